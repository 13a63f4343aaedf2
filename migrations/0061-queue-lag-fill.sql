-- Rows from before the lagging cap: every join is long past (tick 0 makes
-- the cap read last_number itself), and the claim history starts now, at
-- what the old checkpoint had already declared past the window (a lower
-- bound: nothing expires early).
UPDATE queue SET
	updated_at = updated_at,
	state_ms = CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED),
	claim_grid = CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) DIV
	    (claim_window_s * 1000 + 1000),
	claim_dead = ck_expired,
	claim_front = ck_expired,
	claim_front1 = ck_expired
