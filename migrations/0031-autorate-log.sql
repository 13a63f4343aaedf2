-- Every auto-rate decision (each poll, dry-run or not, and each one-time
-- test) with the sample and the rule that decided it.
CREATE TABLE autorate_log (
	id		BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	queue_id	INT UNSIGNED NOT NULL,
	at_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	kind		VARCHAR(8) CHARACTER SET ascii NOT NULL, -- poll, test
	dry_run		TINYINT(1) NOT NULL,
	action		VARCHAR(8) CHARACTER SET ascii NOT NULL,
	state		VARCHAR(10) CHARACTER SET ascii NOT NULL,
	reason		VARCHAR(32) CHARACTER SET ascii NOT NULL,
	rule		VARCHAR(200) NOT NULL DEFAULT '',
	rate_before	INT NOT NULL,
	rate_after	INT NOT NULL,
	response_ms	BIGINT NOT NULL DEFAULT -1,
	sample		VARCHAR(2048) NOT NULL DEFAULT '',	-- JSON
	KEY autorate_log_queue (queue_id, id),
	KEY autorate_log_at (at_ms),
	CONSTRAINT autorate_log_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
