-- Recurring load tests: every every_min minutes (the first run when the
-- schedule is made), or weekly (every_min 0) on weekday (0 Sunday - 6
-- Saturday) at at_min minutes after midnight in time_zone (an IANA
-- zone, the operator's).  next_ms: the next run's time (the database's
-- clock, Unix ms); the worker's leader asks for the run and moves
-- next_ms on in one transaction, guarded by its old value.  The
-- schedules go with their queue.
CREATE TABLE loadtest_schedule (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	queue_id	INT UNSIGNED NOT NULL,
	profile		VARCHAR(16) NOT NULL,
	rate_per_s	INT UNSIGNED NOT NULL,
	duration_s	INT UNSIGNED NOT NULL,
	every_min	INT UNSIGNED NOT NULL DEFAULT 0,
	weekday		TINYINT NOT NULL DEFAULT -1,
	at_min		SMALLINT NOT NULL DEFAULT 0,
	time_zone	VARCHAR(64) NOT NULL DEFAULT 'UTC',
	next_ms		BIGINT NOT NULL,
	created_by	VARCHAR(191) NOT NULL DEFAULT '',
	created_ms	BIGINT NOT NULL,
	last_run_id	INT UNSIGNED NULL,
	KEY loadtest_schedule_due (next_ms),
	CONSTRAINT loadtest_schedule_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE,
	CONSTRAINT loadtest_schedule_when CHECK ((every_min > 0 AND
	    weekday = -1) OR (every_min = 0 AND weekday BETWEEN 0 AND 6 AND
	    at_min BETWEEN 0 AND 1439))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
