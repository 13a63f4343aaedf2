-- Auto-rate settings of a queue and the controller's memory (written by
-- the worker's leader after each poll).  tested_ms is when the health URL
-- last passed the one-time test with the current URL and rules (0: not
-- since they changed); enabling needs it.  Times are DB Unix ms.
CREATE TABLE queue_autorate (
	queue_id	INT UNSIGNED NOT NULL PRIMARY KEY,
	enabled		TINYINT(1) NOT NULL DEFAULT 0,
	dry_run		TINYINT(1) NOT NULL DEFAULT 0,
	health_url	VARCHAR(2048) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL DEFAULT '',
	allow_private	TINYINT(1) NOT NULL DEFAULT 0,
	interval_s	INT NOT NULL DEFAULT 10,
	rules		VARCHAR(2048) NOT NULL DEFAULT '',
	rate_min	INT NOT NULL DEFAULT 1,
	rate_max	INT NOT NULL DEFAULT 1000,
	raise_step	INT NOT NULL DEFAULT 10,
	cut_percent	INT NOT NULL DEFAULT 20,
	cooldown_s	INT NOT NULL DEFAULT 60,
	band_percent	INT NOT NULL DEFAULT 10,
	failures_to_min	INT NOT NULL DEFAULT 3,
	tested_ms	BIGINT NOT NULL DEFAULT 0,
	tested_result	VARCHAR(1024) NOT NULL DEFAULT '',
	st_poll_ms	BIGINT NOT NULL DEFAULT 0,	-- last poll
	st_failures	INT NOT NULL DEFAULT 0,	-- unknown samples in a row
	st_since_ms	BIGINT NOT NULL DEFAULT 0,	-- healthy since, or 0
	st_change_ms	BIGINT NOT NULL DEFAULT 0,	-- last change
	st_cut_ms	BIGINT NOT NULL DEFAULT 0,	-- last cut
	updated_ms	BIGINT NOT NULL DEFAULT 0,
	CONSTRAINT queue_autorate_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
