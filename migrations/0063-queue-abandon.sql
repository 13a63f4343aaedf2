-- Abandonment detection on or off in a column of its own: the grace
-- period is kept when detection is off (it used to be 0 then), so that
-- each setting of the field table (fcgi-app/lib/queue-fields.c) has its
-- column.
ALTER TABLE queue
	ADD COLUMN abandon TINYINT(1) NOT NULL DEFAULT 0
