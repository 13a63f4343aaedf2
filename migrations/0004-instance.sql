-- What the dashboard and /metrics read, written off the visitor path:
-- every running process (FastCGI pool master, background worker) reports
-- itself into instance every few seconds, and one writer (the worker's
-- leader, or a pool master when no worker runs) samples each queue into
-- queue_stats.  Readers drop instances not seen for a while; old samples
-- are deleted after the configured retention.
CREATE TABLE instance (
	id		VARCHAR(160) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL PRIMARY KEY,	-- "kind:host:pid"
	kind		VARCHAR(16) CHARACTER SET ascii NOT NULL,
						-- "pool" or "worker"
	host		VARCHAR(128) NOT NULL,
	pid		INT NOT NULL,
	workers		INT NOT NULL DEFAULT 0,
	busy		INT NOT NULL DEFAULT 0,	-- workers inside a request
	cpu_pct		DOUBLE NOT NULL DEFAULT 0,	-- since last report
	rss_kb		BIGINT NOT NULL DEFAULT 0,
	-- requests per second by endpoint since the last report, a JSON
	-- object such as {"join":12.5,"status":300.0} (healthz excluded)
	rps_json	VARCHAR(4096) NOT NULL DEFAULT '{}',
	leader		TINYINT(1) NOT NULL DEFAULT 0,	-- worker only
	started_ms	BIGINT NOT NULL,		-- DB time, Unix ms
	seen_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	KEY instance_seen (seen_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
