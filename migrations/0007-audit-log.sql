-- Every change by a console user, an API key, the CLI or the worker:
-- who, which queue, what, the changed fields before and after (JSON,
-- never secrets, passwords or key material), when (the database's time,
-- Unix ms) and from where.  Written in the transaction of the change.
-- queue_id has no foreign key: the history of a deleted queue stays,
-- with its slug.
CREATE TABLE audit_log (
	id		BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	at_ms		BIGINT NOT NULL,
	actor_kind	VARCHAR(16) CHARACTER SET ascii NOT NULL,
					-- "user", "key", "cli", "worker"
	actor_id	BIGINT NULL,		-- user or key id
	actor_name	VARCHAR(200) NOT NULL,
	queue_id	INT UNSIGNED NULL,
	queue_slug	VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin
			    NULL,
	action		VARCHAR(32) CHARACTER SET ascii NOT NULL,
	before_json	TEXT NULL,
	after_json	TEXT NULL,
	client_addr	VARCHAR(64) NOT NULL DEFAULT '',
	KEY audit_queue (queue_id, id),
	KEY audit_actor (actor_name, id),
	KEY audit_action (action, id),
	KEY audit_time (at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
