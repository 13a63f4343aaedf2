-- One load test.  status: pending (asked for, not started), running (a
-- worker's runner owns it: runner is its instance id), done, failed
-- (the runner could not do it, or died: error says why), cancelled.
-- Times are the database's, Unix ms.  The outcome so far (live while
-- it runs, updated every second with heartbeat_ms): requests sent,
-- answered 2xx, errors, latency percentiles in microseconds from the
-- time each request was due (open loop); flagged: clearly worse than
-- the comparable earlier runs (flag_reason says how); joins, polls and
-- claims: the requests sent by kind (join, status, token).  A replay
-- (profile 'replay') sends the joins of queue replay_queue_id's samples
-- from replay_from_ms to replay_to_ms, replay_speed_milli / 1000 times
-- faster and replay_volume_milli / 1000 times as many; rate_per_s is
-- then its busiest second.  served_by: the pool processes that answered
-- its requests, as JSON [{"instance": "pool:<host>:<pid>", "requests":
-- N}], from the header they add to a load test's answers.
CREATE TABLE loadtest (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	queue_id	INT UNSIGNED NOT NULL,
	profile		VARCHAR(16) NOT NULL,
	rate_per_s	INT UNSIGNED NOT NULL,
	duration_s	INT UNSIGNED NOT NULL,
	requested_by	VARCHAR(191) NOT NULL DEFAULT '',
	status		VARCHAR(16) NOT NULL DEFAULT 'pending',
	runner		VARCHAR(191) NOT NULL DEFAULT '',
	created_ms	BIGINT NOT NULL,
	started_ms	BIGINT NULL,
	finished_ms	BIGINT NULL,
	heartbeat_ms	BIGINT NULL,
	sent		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	ok		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	errors		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	p50_us		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	p95_us		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	p99_us		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	flagged		TINYINT(1) NOT NULL DEFAULT 0,
	flag_reason	VARCHAR(255) NOT NULL DEFAULT '',
	elapsed_ms	BIGINT NOT NULL DEFAULT 0,
	joins		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	polls		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	claims		BIGINT UNSIGNED NOT NULL DEFAULT 0,
	replay_queue_id	INT UNSIGNED NULL,
	replay_from_ms	BIGINT NULL,
	replay_to_ms	BIGINT NULL,
	replay_speed_milli INT UNSIGNED NOT NULL DEFAULT 1000,
	replay_volume_milli INT UNSIGNED NOT NULL DEFAULT 1000,
	served_by	TEXT NULL,
	error		VARCHAR(255) NOT NULL DEFAULT '',
	KEY loadtest_status (status, id),
	KEY loadtest_like (profile, rate_per_s, duration_s, status, id),
	CONSTRAINT loadtest_queue FOREIGN KEY (queue_id) REFERENCES queue (id)
	    ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
