-- Presence of waiting numbers for abandonment detection: one row per
-- number that sent a heartbeat, its time changed at most every few
-- seconds (the heartbeat statement leaves a fresh row as it is), and
-- whether the worker has counted it as abandoned.
CREATE TABLE queue_presence (
	queue_id	INT UNSIGNED NOT NULL,
	number		BIGINT NOT NULL,
	seen_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	counted		TINYINT(1) NOT NULL DEFAULT 0,
	PRIMARY KEY (queue_id, number),
	CONSTRAINT queue_presence_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
