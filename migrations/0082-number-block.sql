-- Number blocks (admission.h, adm_lease()): a queue setting, the size of
-- the block of numbers a pool process leases with one write (0 = off),
-- and the numbers of expired leases handed to nobody: those not yet
-- passed over by a skip (the worker folds them in), and all of them.
ALTER TABLE queue
	ADD COLUMN number_block INT NOT NULL DEFAULT 0,
	ADD COLUMN lease_unused BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN lease_unused_total BIGINT NOT NULL DEFAULT 0
