-- Session renewal per queue (off by default): a visitor who holds a
-- valid access token may exchange it for one valid for another session
-- duration (token_ttl_s) from now, POST /queue/<slug>/renew.
ALTER TABLE queue
	ADD COLUMN session_renewal TINYINT(1) NOT NULL DEFAULT 0
