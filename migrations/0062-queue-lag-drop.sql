-- The previous segment and checkpoint of the old claim window estimate,
-- replaced by the claim history (0060, 0061).
ALTER TABLE queue
	DROP CONSTRAINT queue_prev_rate,
	DROP COLUMN prev_anchor_number,
	DROP COLUMN prev_anchor_time_ms,
	DROP COLUMN prev_rate,
	DROP COLUMN prev_frontier,
	DROP COLUMN ck_number,
	DROP COLUMN ck_time_ms,
	DROP COLUMN ck_expired
