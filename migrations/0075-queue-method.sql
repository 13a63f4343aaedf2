-- The queuing method of a queue: fifo (the default: admitted in join
-- order at the rate), passthrough (everyone admitted at once) or hold
-- (numbers taken, nobody new admitted).  The admission state follows
-- it: active and pend_active hold the segment's kind (admission.h,
-- ADM_SEG_*: 0 paused, 1 fifo, 2 hold, 3 passthrough).
ALTER TABLE queue
	ADD COLUMN queuing_method VARCHAR(16) NOT NULL DEFAULT 'fifo'
	    CHECK (queuing_method IN ('fifo', 'passthrough', 'hold',
	    'random'))
