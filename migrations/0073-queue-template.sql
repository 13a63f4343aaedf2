-- A queue's custom waiting-room template: the HTML its room page shows
-- instead of the default figures (at most 51200 bytes, checked before it
-- is stored), kept apart from the queue row that every status read
-- takes.  At most one a queue; none means the default page.  The time
-- is the database's, Unix ms.  The template goes with its queue.
CREATE TABLE queue_template (
	queue_id	INT UNSIGNED NOT NULL PRIMARY KEY,
	html		MEDIUMTEXT NOT NULL,
	updated_ms	BIGINT NOT NULL,
	CONSTRAINT queue_template_queue FOREIGN KEY (queue_id)
	    REFERENCES queue (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
