-- Which migrations have been applied.  aqueuectl migrate creates this
-- table itself before anything else, so this file only documents it and
-- is a no-op when the table exists.
CREATE TABLE IF NOT EXISTS schema_migrations (
	version		INT UNSIGNED NOT NULL PRIMARY KEY,
	name		VARCHAR(200) NOT NULL,
	applied_at	TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
