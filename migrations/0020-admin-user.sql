-- Console users.  name: 1 to 64 characters of [A-Za-z0-9._@-], unique
-- without regard to case.  password_hash: the Argon2id encoded string
-- ($argon2id$v=19$m=...,t=...,p=...$salt$hash, RFC 9106), never the
-- password.  A disabled user cannot log in and loses every session.
CREATE TABLE admin_user (
	id		INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	name		VARCHAR(64) CHARACTER SET ascii
			    COLLATE ascii_general_ci NOT NULL,
	password_hash	VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	created_ms	BIGINT NOT NULL,		-- DB time, Unix ms
	disabled	TINYINT(1) NOT NULL DEFAULT 0,
	UNIQUE KEY admin_user_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
