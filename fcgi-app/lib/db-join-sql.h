/*
 * db-join-sql.h - the admission model of admission.c in SQL, and the
 * join statement built from it, for db-stmt.c only (it defines the
 * clock's expressions NOW_SQL and SYSNOW_SQL used here).
 */
#ifndef DB_JOIN_SQL_H
#define DB_JOIN_SQL_H

/*
 * The admission model of admission.c in SQL, for the join statement.
 * The join's first assignment writes its time to state_ms, so that
 * every later expression of the statement reads "now" from there.
 * ADM_TICK_MS is 250 and ADM_CLAIM_SLACK_MS 1000 (test-db holds the
 * statement to adm_join()).
 */
/* Effective burst, as adm_burst() computes it. */
#define BURST_SQL "IF(burst > 0, burst, GREATEST(1, rate_per_minute DIV 6))"
/*
 * adm_lagged_last() at time t: by t's tick minus 1 against the ring's
 * tick, clamped to -2..1 so that t is spelled (and resolved by the
 * server at every execution) once.
 */
#define LAG_SQL(t) "(CASE LEAST(GREATEST((" t ") DIV 250 - 1 - tick, " \
	"-2), 1) WHEN 1 THEN last_number WHEN 0 THEN l_tick WHEN -1 " \
	"THEN l_tick1 ELSE l_tick2 END)"
/* grown(): A + skip + floor(r * clamp(t - T) / 60000) while active. */
#define GROWN_SQL(t) "(anchor_number + skip_count + IF(active IN (1, 4), " \
	"(rate_per_minute * LEAST(GREATEST((" t ") - anchor_time_ms, 0), " \
	"1000000000000)) DIV 60000, IF(active = 3 AND (" t ") >= " \
	"anchor_time_ms, 1099511627776, 0)))"
/*
 * adm_issued_front(x): x, or inside a block of the random order that x
 * does not fill, the number before that block (rand_block is CHECKed
 * to be at least 1; block() in admission.c clamps it so too).
 */
#define ISSUED_SQL(x) "IF(rand_from > 0 AND (" x ") >= rand_from - 1 " \
	"AND (rand_to = 0 OR (" x ") < rand_to - 1), rand_from - 1 + " \
	"((" x ") - rand_from + 1) DIV GREATEST(rand_block, 1) * " \
	"GREATEST(rand_block, 1), (" x "))"
/*
 * cap_of() in admission.c: the cap of serving for the lagged L x.  In
 * the last branch x is inside the order, so adm_issued_front(x) is
 * x less (x - rand_from + 1) mod the block size: x is spelled six
 * times, not the eight of ISSUED_SQL() there (the statement's size is
 * what the server's CPU spends on it at every execution).
 */
#define CAP_SQL(x) "(CASE WHEN rand_from = 0 OR (rand_to > 0 AND (" x \
	") >= rand_to - 1) THEN (" x ") + " BURST_SQL " WHEN (" x ") < " \
	"rand_from - 1 THEN LEAST((" x ") + " BURST_SQL ", rand_from - 1) " \
	"ELSE (" x ") - ((" x ") - rand_from + 1) MOD " \
	"GREATEST(rand_block, 1) END)"
/*
 * adm_serving() at t (no change due: the join's WHERE sees to it);
 * active is the segment's kind (admission.h: 1 fifo, 3 passthrough,
 * whose growth is ADM_PASS_CREDIT from its start on, 4 random).
 */
#define SERVING_SQL(t) "GREATEST(serving_floor, 0, LEAST(" GROWN_SQL(t) \
	", " CAP_SQL(LAG_SQL(t)) "))"
/* adm_held() at t. */
#define HELD_SQL(t) "(COALESCE(opens_at_ms, 0) > 0 AND (" t ") < " \
	"opens_at_ms + 250)"
/* adm_frontier() at t. */
#define FRONT_SQL(t) "IF(" HELD_SQL(t) ", 0, LEAST(" SERVING_SQL(t) \
	", " ISSUED_SQL("last_number") "))"
/* The claim grid's spacing (claim_window_s is CHECKed to 1..86400). */
#define GRID_SQL "(claim_window_s * 1000 + 1000)"
/* The grid point of the join's now, and its tick. */
#define GNOW_SQL "(state_ms DIV " GRID_SQL ")"
#define TNOW_SQL "(state_ms DIV 250)"

/*
 * The join (STMT_QUEUE_JOIN, described there) issuing step numbers at
 * once, on the rows the condition where (" AND ..." or "") also holds.
 */
#define JOIN_SQL(step, where) \
	    "UPDATE queue SET " \
	    "state_ms = " NOW_SQL ", " \
	    "claim_front1 = IF(" GNOW_SQL " > claim_grid, IF(" GNOW_SQL \
	    " = claim_grid + 1, claim_front, " FRONT_SQL("(" GNOW_SQL \
	    " - 1) * " GRID_SQL) "), claim_front1), " \
	    "claim_front = IF(" GNOW_SQL " > claim_grid, " \
	    FRONT_SQL(GNOW_SQL " * " GRID_SQL) ", claim_front), " \
	    "claim_grid = GREATEST(claim_grid, " GNOW_SQL "), " \
	    "draw_count = IF(draw_open = 1 AND state_ms >= opens_at_ms, " \
	    "last_number, draw_count), " \
	    "draw_open = IF(draw_open = 1 AND state_ms >= opens_at_ms, 0, " \
	    "draw_open), " \
	    "l_tick2 = CASE WHEN " TNOW_SQL " <= tick THEN l_tick2 WHEN " \
	    TNOW_SQL " = tick + 1 THEN l_tick1 WHEN " TNOW_SQL " = tick + 2 " \
	    "THEN l_tick ELSE last_number END, " \
	    "l_tick1 = CASE WHEN " TNOW_SQL " <= tick THEN l_tick1 WHEN " \
	    TNOW_SQL " = tick + 1 THEN l_tick ELSE last_number END, " \
	    "l_tick = IF(" TNOW_SQL " > tick, last_number, l_tick), " \
	    "tick = GREATEST(tick, " TNOW_SQL "), " \
	    "anchor_number = IF(anchor_time_ms <= state_ms AND " \
	    GROWN_SQL("state_ms") " >= last_number + " BURST_SQL ", " \
	    "GREATEST(last_number + " BURST_SQL ", serving_floor) - " \
	    "skip_count, anchor_number), " \
	    "anchor_time_ms = IF(anchor_time_ms <= state_ms AND " \
	    "anchor_number + skip_count = GREATEST(last_number + " BURST_SQL \
	    ", serving_floor), state_ms, anchor_time_ms), " \
	    "last_number = LAST_INSERT_ID((IF(active = 2, GREATEST(" \
	    "last_number, " SERVING_SQL("state_ms") "), last_number) + " \
	    step ") " \
	    "* 2 + (active <> 2 AND NOT " HELD_SQL("state_ms") " AND " \
	    "last_number + 1 <= " SERVING_SQL("state_ms") ")) DIV 2 " \
	    "WHERE id = ? AND active >= 1 AND (pend_at_ms = 0 OR " \
	    "pend_at_ms > " NOW_SQL ") AND " SYSNOW_SQL " <= ?" where

#endif /* DB_JOIN_SQL_H */
