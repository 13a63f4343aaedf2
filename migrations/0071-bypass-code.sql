-- VIP bypass codes of a queue: a label, an optional use limit, an
-- optional expiry, disabled or not.  Only the SHA-256 of the code is
-- kept (it is shown once, when made; looked up by its hash).  uses
-- counts the redemptions; one UPDATE takes a use, so it never passes
-- use_limit.  Times are the database's, Unix ms.  The codes go with
-- their queue.
CREATE TABLE bypass_code (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	queue_id	INT UNSIGNED NOT NULL,
	label		VARCHAR(200) NOT NULL,
	code_hash	BINARY(32) NOT NULL,
	use_limit	INT UNSIGNED NULL,
	uses		INT UNSIGNED NOT NULL DEFAULT 0,
	expires_ms	BIGINT NULL,
	disabled	TINYINT(1) NOT NULL DEFAULT 0,
	created_ms	BIGINT NOT NULL,
	UNIQUE KEY bypass_code_hash (code_hash),
	KEY bypass_code_queue (queue_id, id),
	CONSTRAINT bypass_code_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE,
	CONSTRAINT bypass_code_uses CHECK (use_limit IS NULL OR
	    uses <= use_limit)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
