-- Failed console log-ins, for throttling per user name and per client
-- address: every process counts the same rows.  user_name is the name
-- tried (also names that do not exist), in lower case.  Rows older than
-- the configured window are deleted as new failures come in.
CREATE TABLE login_failure (
	id		BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	user_name	VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	client_addr	VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	at_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	KEY login_failure_user (user_name, at_ms),
	KEY login_failure_addr (client_addr, at_ms),
	KEY login_failure_at (at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
