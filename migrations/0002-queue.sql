-- One row per waiting room.  The admission state (SPEC section 3) lives
-- here: rate_per_minute, anchor_number, anchor_time_ms, last_number,
-- skip_count, active.  Secrets are sealed with the master key (AES-256-GCM)
-- and never stored in clear.
CREATE TABLE queue (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	slug		VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	name		VARCHAR(200) NOT NULL,
	target_url	VARCHAR(2048) NULL,
	shop_domains	VARCHAR(8192) NOT NULL DEFAULT '',
	rate_per_minute	INT NOT NULL,
	burst		INT NOT NULL DEFAULT 0,
	anchor_number	BIGINT NOT NULL,
	anchor_time_ms	BIGINT NOT NULL,
	last_number	BIGINT NOT NULL DEFAULT 0,
	skip_count	BIGINT NOT NULL DEFAULT 0,
	active		TINYINT(1) NOT NULL DEFAULT 1,
	token_ttl_s	INT NOT NULL DEFAULT 600,
	secret_sealed	VARBINARY(255) NOT NULL,
	ticket_key_sealed VARBINARY(255) NOT NULL,
	created_at	TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	updated_at	TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
			    ON UPDATE CURRENT_TIMESTAMP(3),
	UNIQUE KEY queue_slug (slug)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
