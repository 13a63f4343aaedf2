-- A run's per-second series: second sec (from its start) with the
-- requests sent in it, and those that ended in it: answered 2xx,
-- errors, latency percentiles (microseconds).
CREATE TABLE loadtest_second (
	loadtest_id	INT UNSIGNED NOT NULL,
	sec		INT UNSIGNED NOT NULL,
	sent		INT UNSIGNED NOT NULL,
	ok		INT UNSIGNED NOT NULL,
	errors		INT UNSIGNED NOT NULL,
	p50_us		BIGINT UNSIGNED NOT NULL,
	p95_us		BIGINT UNSIGNED NOT NULL,
	p99_us		BIGINT UNSIGNED NOT NULL,
	PRIMARY KEY (loadtest_id, sec),
	CONSTRAINT loadtest_second_run FOREIGN KEY (loadtest_id)
	    REFERENCES loadtest (id) ON DELETE CASCADE
) ENGINE=InnoDB
