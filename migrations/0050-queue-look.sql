-- What visitors see of a queue: the waiting room's branding (header image,
-- display name, message, accent colour) and the status code of a queued
-- answer in JSON mode and the suffix of its number cookie's name.  Empty
-- strings mean "not set" (the page falls back
-- to the queue's name and the default colour).
ALTER TABLE queue
	ADD COLUMN header_image_url VARCHAR(2048) NOT NULL DEFAULT '',
	ADD COLUMN display_name VARCHAR(200) NOT NULL DEFAULT '',
	ADD COLUMN message TEXT NOT NULL DEFAULT '',
	ADD COLUMN accent_color VARCHAR(7) NOT NULL DEFAULT '',
	ADD COLUMN json_queued_status SMALLINT NOT NULL DEFAULT 200,
	ADD COLUMN json_cookie VARCHAR(32) NOT NULL DEFAULT '',
	ADD CONSTRAINT queue_json_status
	    CHECK (json_queued_status IN (200, 202, 429)),
	ADD CONSTRAINT queue_accent
	    CHECK (accent_color = '' OR accent_color REGEXP '^#[0-9a-f]{6}$')
