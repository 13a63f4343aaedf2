-- Built-in load tests (loadtest.h): a queue flagged as a test queue is
-- the only kind a load test may run against; every run is kept with its
-- parameters, its outcome and its per-second series.
ALTER TABLE queue
	ADD COLUMN load_test_queue TINYINT(1) NOT NULL DEFAULT 0
