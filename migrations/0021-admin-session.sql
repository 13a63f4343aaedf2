-- Console sessions, stored server-side.  The cookie holds a random id
-- (32 bytes); only its SHA-256 is stored, so a copy of this table opens
-- no session.  csrf_token goes into every state-changing form and is
-- checked on submission.  A session ends after the configured idle time
-- (last_seen_ms) or absolute time (created_ms), or at logout, which
-- deletes every session of the user.
CREATE TABLE admin_session (
	id_hash		BINARY(32) NOT NULL PRIMARY KEY,
	user_id		INT UNSIGNED NOT NULL,
	csrf_token	CHAR(43) CHARACTER SET ascii COLLATE ascii_bin
			    NOT NULL,
	created_ms	BIGINT NOT NULL,		-- DB time, Unix ms
	last_seen_ms	BIGINT NOT NULL,		-- DB time, Unix ms
	client_addr	VARCHAR(64) CHARACTER SET ascii NOT NULL DEFAULT '',
	KEY admin_session_user (user_id),
	CONSTRAINT admin_session_user FOREIGN KEY (user_id)
	    REFERENCES admin_user (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
