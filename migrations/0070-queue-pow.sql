-- Proof of work per queue (off by default): a join first brings a
-- solution of a server-signed challenge whose SHA-256 starts with
-- pow_bits zero bits (8 to 24, 15 by default).
ALTER TABLE queue
	ADD COLUMN pow_enabled TINYINT(1) NOT NULL DEFAULT 0,
	ADD COLUMN pow_bits TINYINT UNSIGNED NOT NULL DEFAULT 15
	    CHECK (pow_bits BETWEEN 8 AND 24)
