-- What the admission model needs so that every process and host computes
-- the same serving number, and so that the claim window is measured from
-- the admission history (see fcgi-app/lib/admission.h):
--   state_ms                 when the admission state was last written;
--   tick, l_tick, l_tick1, l_tick2
--                            the lagging cap: the tick of the last join and
--                            the numbers issued at the three latest tick
--                            boundaries;
--   pend_at_ms .. pend_floor a change scheduled ahead (0: none);
--   claim_grid .. claim_dead the admitted frontier at the latest points of
--                            the claim window's grid, and what has passed
--                            the window for good.
ALTER TABLE queue
	ADD COLUMN state_ms BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN tick BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN l_tick BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN l_tick1 BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN l_tick2 BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN pend_at_ms BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN pend_rate INT NOT NULL DEFAULT 0,
	ADD COLUMN pend_burst INT NOT NULL DEFAULT 0,
	ADD COLUMN pend_active TINYINT(1) NOT NULL DEFAULT 0,
	ADD COLUMN pend_skip BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN pend_floor BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN claim_grid BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN claim_front BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN claim_front1 BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN claim_dead BIGINT NOT NULL DEFAULT 0,
	ADD CONSTRAINT queue_pend_rate CHECK (pend_rate BETWEEN 0 AND 1000000),
	ADD CONSTRAINT queue_pend_burst CHECK (pend_burst BETWEEN 0 AND 1000000),
	ADD CONSTRAINT queue_lag_numbers CHECK (l_tick >= 0 AND l_tick1 >= 0 AND
	    l_tick2 >= 0 AND pend_skip >= 0 AND pend_floor >= 0 AND
	    claim_front >= 0 AND claim_front1 >= 0 AND claim_dead >= 0)
