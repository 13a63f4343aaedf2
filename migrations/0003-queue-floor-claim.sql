-- Serving floor, claim window, and what the claim window needs to know
-- about the past (see fcgi-app/lib/admission.h): the anchor and rate of the
-- last admitting segment before the latest state change, its admitted
-- frontier, and the checkpoint the join moves once per claim window.
-- CHECK constraints hold what the C code clamps, so that no other writer
-- can store a row the model would have to repair.
ALTER TABLE queue
	ADD COLUMN serving_floor BIGINT NOT NULL DEFAULT 0 AFTER active,
	ADD COLUMN claim_window_s INT NOT NULL DEFAULT 600
	    AFTER token_ttl_s,
	ADD COLUMN prev_anchor_number BIGINT NOT NULL DEFAULT 0
	    AFTER serving_floor,
	ADD COLUMN prev_anchor_time_ms BIGINT NOT NULL DEFAULT 0
	    AFTER prev_anchor_number,
	ADD COLUMN prev_rate INT NOT NULL DEFAULT 1 AFTER prev_anchor_time_ms,
	ADD COLUMN prev_frontier BIGINT NOT NULL DEFAULT 0 AFTER prev_rate,
	ADD COLUMN ck_number BIGINT NOT NULL DEFAULT 0 AFTER prev_frontier,
	ADD COLUMN ck_time_ms BIGINT NOT NULL DEFAULT 0 AFTER ck_number,
	ADD COLUMN ck_expired BIGINT NOT NULL DEFAULT 0 AFTER ck_time_ms,
	ADD CONSTRAINT queue_rate CHECK (rate_per_minute BETWEEN 1 AND 1000000),
	ADD CONSTRAINT queue_prev_rate CHECK (prev_rate BETWEEN 1 AND 1000000),
	ADD CONSTRAINT queue_burst CHECK (burst BETWEEN 0 AND 1000000),
	ADD CONSTRAINT queue_token_ttl CHECK (token_ttl_s BETWEEN 1 AND 86400),
	ADD CONSTRAINT queue_claim_window
	    CHECK (claim_window_s BETWEEN 1 AND 86400),
	ADD CONSTRAINT queue_numbers CHECK (last_number >= 0 AND
	    skip_count >= 0 AND serving_floor >= 0)
