-- When numbers were issued, coarsely, for abandonment detection: the
-- worker notes (time, last number) a few times per grace period, so
-- that a number never heard of counts as abandoned once it was issued
-- longer ago than the grace period.  Marks older than the one in use are
-- deleted.
CREATE TABLE queue_issue_mark (
	queue_id	INT UNSIGNED NOT NULL,
	at_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	number		BIGINT NOT NULL,	-- last_number at at_ms
	PRIMARY KEY (queue_id, at_ms),
	CONSTRAINT queue_issue_mark_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
