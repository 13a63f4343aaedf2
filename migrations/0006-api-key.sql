-- Per-queue API keys for the admin API (Authorization: Bearer qak_...).
-- Only the SHA-256 of the whole key text is kept (looked up by it); the
-- prefix is the start of the key, shown in lists so that an operator can
-- tell keys apart.  A key belongs to exactly one queue and goes with it.
-- Times are the database's, Unix ms.
CREATE TABLE api_key (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	queue_id	INT UNSIGNED NOT NULL,
	name		VARCHAR(200) NOT NULL,
	key_hash	BINARY(32) NOT NULL,
	prefix		VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	created_ms	BIGINT NOT NULL,
	last_used_ms	BIGINT NULL,
	revoked_ms	BIGINT NULL,
	UNIQUE KEY api_key_hash (key_hash),
	KEY api_key_queue (queue_id, id),
	CONSTRAINT api_key_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
