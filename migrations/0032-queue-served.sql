-- When each number got its first access token (DB time): the served order
-- that the fairness report compares with the join order.  Written once per
-- number by the process that signs its first token (INSERT IGNORE), never
-- by /status; deleted after stats-retention by the worker.
CREATE TABLE queue_served (
	queue_id	INT UNSIGNED NOT NULL,
	number		BIGINT NOT NULL,
	served_ms	BIGINT NOT NULL,
	PRIMARY KEY (queue_id, number),
	KEY queue_served_at (served_ms),
	CONSTRAINT queue_served_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
