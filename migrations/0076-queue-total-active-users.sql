-- The total-active-users cap of a queue (ESA's "total active users"):
-- visitors admitted within any session duration (token_ttl_s), at most;
-- 0 is no cap.  The admission segment's rate and burst are lowered to
-- keep it (admission.h, adm_cap_limit()), so the join statement needs
-- no new column.
ALTER TABLE queue
	ADD COLUMN total_active_users INT UNSIGNED NOT NULL DEFAULT 0
	    CHECK (total_active_users <= 10000000)
