-- Queues with a grace period had detection on; the others get the
-- default grace (180 s) for when it is turned on.
UPDATE queue SET
	updated_at = updated_at,
	abandon = abandon_grace_s > 0,
	abandon_grace_s = IF(abandon_grace_s > 0, abandon_grace_s, 180)
