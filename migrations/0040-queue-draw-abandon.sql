-- Scheduled opening with a fair draw, and abandonment detection (see
-- fcgi-app/lib/draw.h and fcgi-app/lib/abandon.h).  opens_at_ms: the opening
-- (database clock, Unix ms), NULL for none; draw_open: 1 while the
-- pre-queue collects; draw_count: P, the pre-queue's size, fixed when it
-- closes (by the first join at or after the opening, or by the worker);
-- draw_arm counts armings, so that the worker's seed belongs to the
-- latest; the seed is sealed with the master key, its SHA-256 (hex) is
-- public.  abandon_grace_s: 0 = detection off, else 60-3600 s; the
-- worker's bookkeeping: numbers up to abandon_done have been looked at
-- once, abandon_total counts every number it has found abandoned.
ALTER TABLE queue
	ADD COLUMN opens_at_ms BIGINT NULL,
	ADD COLUMN draw_open TINYINT(1) NOT NULL DEFAULT 0,
	ADD COLUMN draw_count BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN draw_arm BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN draw_seed_sealed VARBINARY(255) NULL,
	ADD COLUMN draw_seed_hash CHAR(64) CHARACTER SET ascii NULL,
	ADD COLUMN abandon_grace_s INT NOT NULL DEFAULT 0,
	ADD COLUMN abandon_done BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN abandon_total BIGINT NOT NULL DEFAULT 0,
	ADD CONSTRAINT queue_abandon_grace CHECK (abandon_grace_s = 0 OR
	    abandon_grace_s BETWEEN 60 AND 3600),
	ADD CONSTRAINT queue_draw CHECK (draw_open = 0 OR
	    opens_at_ms IS NOT NULL)
