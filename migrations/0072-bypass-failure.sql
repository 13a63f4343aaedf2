-- Bypass codes that did not redeem, per client address, for the
-- throttle on guessing (every process counts the same rows).  Rows older
-- than the window are deleted as new failures come in.
CREATE TABLE bypass_failure (
	id		BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	client_addr	VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	at_ms		BIGINT NOT NULL,		-- DB time, Unix ms
	KEY bypass_failure_addr (client_addr, at_ms),
	KEY bypass_failure_at (at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
