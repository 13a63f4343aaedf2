-- Samples of each queue for the dashboard (see 0004-instance.sql).
CREATE TABLE queue_stats (
	queue_id	INT UNSIGNED NOT NULL,
	sampled_ms	BIGINT NOT NULL,		-- DB time, Unix ms
	waiting		BIGINT NOT NULL,	-- issued - serving, >= 0
	inflow_per_min	DOUBLE NOT NULL,	-- new numbers per minute
	rate_per_minute	INT NOT NULL,
	serving		BIGINT NOT NULL,
	issued		BIGINT NOT NULL,	-- last_number
	active		TINYINT(1) NOT NULL,
	PRIMARY KEY (queue_id, sampled_ms),
	CONSTRAINT queue_stats_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
