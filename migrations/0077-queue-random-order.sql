-- The random order of a queue (queuing method random; admission.h):
-- from rand_from on (to rand_to, or on while it is 0), blocks of
-- rand_block numbers, each admitted in a keyed random order (active and
-- pend_active: 4 is the segment kind random).  0 and 0:
-- no random order.  The join statement's cap reads them.
ALTER TABLE queue
	ADD COLUMN rand_from BIGINT NOT NULL DEFAULT 0
	    CHECK (rand_from >= 0),
	ADD COLUMN rand_to BIGINT NOT NULL DEFAULT 0
	    CHECK (rand_to >= 0),
	ADD COLUMN rand_block BIGINT NOT NULL DEFAULT 1
	    CHECK (rand_block BETWEEN 1 AND 1000000)
