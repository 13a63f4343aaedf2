/*
 * db.c - one connection per process, the table of prepared statements,
 * strict session settings at every connect, reconnect after loss.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "cfg.h"
#include "db-private.h"
#include "db-worker.h"
#include "log.h"

/* Sixteen rows of queue_served for STMT_SERVED_ADD (SERVED_BATCH rows). */
#define SERVED_ROWS4	"(?, ?, ?), (?, ?, ?), (?, ?, ?), (?, ?, ?)"
#define SERVED_ROWS16	SERVED_ROWS4 ", " SERVED_ROWS4 ", " SERVED_ROWS4 \
	", " SERVED_ROWS4

/* The database's clock in Unix ms (NOW(3) is fixed per statement). */
#define DBNOW_SQL "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
/* The same in microseconds, for the processes' estimate of that clock. */
#define DBNOW_US_SQL "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"
/* The database's clock when evaluated (SYSDATE(): per row, not fixed). */
#define SYSNOW_SQL "CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED)"
/* "now" of a write: the bound time, or the database's when NULL. */
#define NOW_SQL "COALESCE(?, " DBNOW_SQL ")"

/*
 * The admission state (struct adm_queue, in db-queue.c's order), then
 * the database's now.
 */
#define STATE_COLS "rate_per_minute, burst, anchor_number, " \
	"anchor_time_ms, last_number, skip_count, active, serving_floor, " \
	"claim_window_s, tick, l_tick, l_tick1, l_tick2, pend_at_ms, " \
	"pend_rate, pend_burst, pend_active, pend_skip, pend_floor, " \
	"claim_grid, claim_front, claim_front1, claim_dead, " \
	DBNOW_US_SQL ", COALESCE(opens_at_ms, 0), draw_open, draw_count"

/*
 * A whole queue row (db-queue.c reads it in this order): "@cols@" is
 * replaced, when the statement is prepared, by the columns of the
 * queue field table (qops_sql(): queue-fields.c), so that a setting
 * added to the table is read and written without an edit here.
 */
#define QUEUE_COLS "id, slug, secret_sealed, ticket_key_sealed, @cols@, " \
	STATE_COLS ", draw_seed_sealed, COALESCE(draw_seed_hash, '')"

/*
 * The admission state an operator's change or the worker writes (struct
 * adm_queue, db-queue.c's order): never last_number and the tick ring,
 * which belong to the join.
 */
#define ADM_SET_SQL "rate_per_minute = ?, burst = ?, anchor_number = ?, " \
	"anchor_time_ms = ?, active = ?, serving_floor = ?, " \
	"claim_window_s = ?, skip_count = ?, pend_at_ms = ?, " \
	"pend_rate = ?, pend_burst = ?, pend_active = ?, pend_skip = ?, " \
	"pend_floor = ?, claim_grid = ?, claim_front = ?, " \
	"claim_front1 = ?, claim_dead = ?"

/* The opening's columns of a whole row's write (db-queue.c's order). */
#define DRAW_SET_SQL "opens_at_ms = NULLIF(?, 0), draw_open = ?, " \
	"draw_count = ?, draw_seed_sealed = ?, " \
	"draw_seed_hash = NULLIF(?, ''), draw_arm = draw_arm + ?"

/*
 * The admission model of admission.c in SQL, for the join statement.
 * The join's first assignment writes its time to state_ms, so that
 * every later expression of the statement reads "now" from there.
 * ADM_TICK_MS is 250 and ADM_CLAIM_SLACK_MS 1000 (test-db holds the
 * statement to adm_join()).
 */
/* Effective burst, as adm_burst() computes it. */
#define BURST_SQL "IF(burst > 0, burst, GREATEST(1, rate_per_minute DIV 6))"
/* adm_lagged_last() at time t. */
#define LAG_SQL(t) "(CASE WHEN (" t ") DIV 250 - 1 > tick THEN " \
	"last_number WHEN (" t ") DIV 250 - 1 = tick THEN l_tick WHEN " \
	"(" t ") DIV 250 - 1 = tick - 1 THEN l_tick1 ELSE l_tick2 END)"
/* grown(): A + skip + floor(r * clamp(t - T) / 60000) while active. */
#define GROWN_SQL(t) "(anchor_number + skip_count + IF(active = 1, " \
	"(rate_per_minute * LEAST(GREATEST((" t ") - anchor_time_ms, 0), " \
	"1000000000000)) DIV 60000, 0))"
/* adm_serving() at t (no change due: the join's WHERE sees to it). */
#define SERVING_SQL(t) "GREATEST(serving_floor, 0, LEAST(" GROWN_SQL(t) \
	", " LAG_SQL(t) " + " BURST_SQL "))"
/* adm_held() at t. */
#define HELD_SQL(t) "(COALESCE(opens_at_ms, 0) > 0 AND (" t ") < " \
	"opens_at_ms + 250)"
/* adm_frontier() at t. */
#define FRONT_SQL(t) "IF(" HELD_SQL(t) ", 0, LEAST(" SERVING_SQL(t) \
	", last_number))"
/* The claim grid's spacing (claim_window_s is CHECKed to 1..86400). */
#define GRID_SQL "(claim_window_s * 1000 + 1000)"
/* The grid point of the join's now, and its tick. */
#define GNOW_SQL "(state_ms DIV " GRID_SQL ")"
#define TNOW_SQL "(state_ms DIV 250)"

/* A bypass code's row, in db-bypass.c's order (b: bypass_code, q). */
#define BYPASS_COLS "b.id, b.queue_id, q.slug, b.label, " \
	"COALESCE(b.use_limit, 0), b.uses, COALESCE(b.expires_ms, 0), " \
	"b.disabled, b.created_ms, " DBNOW_SQL

/* The columns of struct ar_settings, in db-worker.c's order. */
#define AR_COLS "queue_id, enabled, dry_run, health_url, allow_private, " \
	"interval_s, rules, rate_min, rate_max, raise_step, cut_percent, " \
	"cooldown_s, band_percent, failures_to_min, tested_ms, " \
	"tested_result, st_poll_ms, st_failures, st_since_ms, " \
	"st_change_ms, st_cut_ms, updated_ms"
#define AR_COLS_A "a.queue_id, a.enabled, a.dry_run, a.health_url, " \
	"a.allow_private, a.interval_s, a.rules, a.rate_min, a.rate_max, " \
	"a.raise_step, a.cut_percent, a.cooldown_s, a.band_percent, " \
	"a.failures_to_min, a.tested_ms, a.tested_result, a.st_poll_ms, " \
	"a.st_failures, a.st_since_ms, a.st_change_ms, a.st_cut_ms, " \
	"a.updated_ms"

/*
 * The statement table: each statement's SQL, the parameters ("?") its
 * caller binds (checked against mysql_stmt_param_count() at prepare
 * time), and whether it only reads (then it may be retried after a
 * reconnect).
 */
struct stmt_def {
	unsigned int	 params;
	int		 reads;
	const char	*sql;
};

static const struct stmt_def stmts[STMT__MAX] = {
	[STMT_QUEUE_GET] = { 1, 1,
	    "SELECT " QUEUE_COLS " FROM queue WHERE slug = ?" },
	[STMT_QUEUE_GET_LOCKED] = { 1, 0,
	    "SELECT " QUEUE_COLS " FROM queue WHERE slug = ? FOR UPDATE" },
	[STMT_QUEUE_STATE] = { 1, 1,
	    "SELECT " STATE_COLS " FROM queue WHERE id = ?" },
	[STMT_QUEUE_STATE_LOCKED] = { 1, 0,
	    "SELECT " STATE_COLS " FROM queue WHERE id = ? FOR UPDATE" },
	/* STMT_QUEUE_DUE: a plain read, locking nothing. */
	[STMT_QUEUE_DUE] = { 0, 1,
	    "SELECT id FROM queue WHERE pend_at_ms > 0 AND pend_at_ms <= "
	    DBNOW_SQL " LIMIT 64" },
	/*
	 * STMT_QUEUE_JOIN: the only write on the visitor path, exactly
	 * adm_join().  Assignments run left to right and see earlier ones
	 * (MySQL and MariaDB without SIMULTANEOUS_ASSIGNMENT):
	 * 0. state_ms := now (read as "now" by everything after it);
	 * 1. adm_fold(): the claim samples up to now's grid point, from
	 *    the state before the join (so before anything else changes);
	 * 2. the first join at or after the opening closes the pre-queue
	 *    (the row lock orders joins, so each number lands on exactly one
	 *    side of it, once);
	 * 3. the tick ring moves on to now's tick;
	 * 4. re-anchor A to max(L + burst, F) - skip when T <= now and A +
	 *    credit + skip >= L + burst, and T := now when A + skip ==
	 *    max(L + burst, F) afterwards (true iff 4. re-anchored);
	 * 5. issue L + 1 and return it through LAST_INSERT_ID() as number
	 *    * 2 + admitted (adm_admitted() on the new state), so that the
	 *    caller needs no second round trip.  Numbers stay below 2^40.
	 * Refused (no row) while paused and when a scheduled change is due:
	 * the caller applies it (db_queue_materialize) and joins again.
	 * And only until the caller's deadline (the last parameter, Unix ms
	 * of the database's clock): SYSDATE(), unlike NOW(), is read when
	 * the condition is evaluated, after the row lock was granted, so a
	 * statement the server takes up only after the client gave up on it
	 * (a lock held long, a server that was stopped) changes nothing and
	 * issues no number.
	 * Parameters: now, id, now, deadline.
	 */
	[STMT_QUEUE_JOIN] = { 4, 0,
	    "UPDATE queue SET "
	    "state_ms = " NOW_SQL ", "
	    "claim_front1 = IF(" GNOW_SQL " > claim_grid, IF(" GNOW_SQL
	    " = claim_grid + 1, claim_front, " FRONT_SQL("(" GNOW_SQL
	    " - 1) * " GRID_SQL) "), claim_front1), "
	    "claim_front = IF(" GNOW_SQL " > claim_grid, "
	    FRONT_SQL(GNOW_SQL " * " GRID_SQL) ", claim_front), "
	    "claim_grid = GREATEST(claim_grid, " GNOW_SQL "), "
	    "draw_count = IF(draw_open = 1 AND state_ms >= opens_at_ms, "
	    "last_number, draw_count), "
	    "draw_open = IF(draw_open = 1 AND state_ms >= opens_at_ms, 0, "
	    "draw_open), "
	    "l_tick2 = CASE WHEN " TNOW_SQL " <= tick THEN l_tick2 WHEN "
	    TNOW_SQL " = tick + 1 THEN l_tick1 WHEN " TNOW_SQL " = tick + 2 "
	    "THEN l_tick ELSE last_number END, "
	    "l_tick1 = CASE WHEN " TNOW_SQL " <= tick THEN l_tick1 WHEN "
	    TNOW_SQL " = tick + 1 THEN l_tick ELSE last_number END, "
	    "l_tick = IF(" TNOW_SQL " > tick, last_number, l_tick), "
	    "tick = GREATEST(tick, " TNOW_SQL "), "
	    "anchor_number = IF(anchor_time_ms <= state_ms AND "
	    GROWN_SQL("state_ms") " >= last_number + " BURST_SQL ", "
	    "GREATEST(last_number + " BURST_SQL ", serving_floor) - "
	    "skip_count, anchor_number), "
	    "anchor_time_ms = IF(anchor_time_ms <= state_ms AND "
	    "anchor_number + skip_count = GREATEST(last_number + " BURST_SQL
	    ", serving_floor), state_ms, anchor_time_ms), "
	    "last_number = LAST_INSERT_ID((last_number + 1) * 2 + "
	    "(NOT " HELD_SQL("state_ms") " AND last_number + 1 <= "
	    SERVING_SQL("state_ms") ")) DIV 2 "
	    "WHERE id = ? AND active = 1 AND (pend_at_ms = 0 OR "
	    "pend_at_ms > " NOW_SQL ") AND " SYSNOW_SQL " <= ?" },
	/*
	 * STMT_QUEUE_INSERT: a new row whole, in the order of
	 * STMT_QUEUE_WRITE (the slug and the keys first, last_number and
	 * the tick ring after the admission state).
	 */
	[STMT_QUEUE_INSERT] = { 3 + 18 + 5 + 6, 0,
	    "INSERT INTO queue SET slug = ?, secret_sealed = ?, "
	    "ticket_key_sealed = ?, @set@, " ADM_SET_SQL ", last_number = ?, "
	    "tick = ?, l_tick = ?, l_tick1 = ?, l_tick2 = ?, " DRAW_SET_SQL
	    ", state_ms = " DBNOW_SQL },
	/*
	 * STMT_QUEUE_SET_STATE: the admission state as an operator's change
	 * or the worker leaves it (queue-ops.c, inside the transaction that
	 * locked the row); last_number and the tick ring belong to the join
	 * and are never written here.
	 */
	[STMT_QUEUE_SET_STATE] = { 18 + 1, 0,
	    "UPDATE queue SET " ADM_SET_SQL ", state_ms = " DBNOW_SQL
	    " WHERE id = ?" },
	[STMT_QUEUE_SET_SECRET] = { 2, 0,
	    "UPDATE queue SET secret_sealed = ? WHERE id = ?" },
	[STMT_MIGRATION_APPLIED] = { 1, 1,
	    "SELECT COUNT(*) FROM schema_migrations WHERE version = ?" },
	[STMT_MIGRATION_RECORD] = { 2, 0,
	    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)" },
	[STMT_QUEUE_LIST] = { 0, 1,
	    "SELECT " QUEUE_COLS " FROM queue ORDER BY slug" },
	[STMT_QUEUE_DELETE] = { 1, 0,
	    "DELETE FROM queue WHERE slug = ?" },
	/*
	 * STMT_QUEUE_WRITE: an operator's change, whole, inside the
	 * transaction that locked the row: the settings of the field table,
	 * the admission state, the opening (an arming adds 1 to draw_arm).
	 */
	[STMT_QUEUE_WRITE] = { 18 + 6 + 1, 0,
	    "UPDATE queue SET @set@, " ADM_SET_SQL ", " DRAW_SET_SQL ", "
	    "state_ms = " DBNOW_SQL " WHERE id = ?" },
	/* STMT_MIGRATION_TABLE: before the first migration runs. */
	[STMT_MIGRATION_TABLE] = { 0, 0,
	    "CREATE TABLE IF NOT EXISTS schema_migrations "
	    "(version INT UNSIGNED NOT NULL PRIMARY KEY, name VARCHAR(200) "
	    "NOT NULL, applied_at TIMESTAMP(3) NOT NULL DEFAULT "
	    "CURRENT_TIMESTAMP(3)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
	    "COLLATE=utf8mb4_unicode_ci" },
	/*
	 * STMT_SESSION_LOCK_WAIT: row lock waits (InnoDB) and metadata lock
	 * waits (a migration, a dump), in seconds.
	 */
	[STMT_SESSION_LOCK_WAIT] = { 2, 0,
	    "SET SESSION innodb_lock_wait_timeout = ?, lock_wait_timeout = ?" },
	/* STMT_SESSION_STATEMENT_TIME: MariaDB only; seconds, fractional. */
	[STMT_SESSION_STATEMENT_TIME] = { 1, 0,
	    "SET SESSION max_statement_time = ?" },
	[STMT_NOW] = { 0, 1,
	    "SELECT " DBNOW_US_SQL },
	/* STMT_INSTANCE_*: a process reports itself (db-stats.c). */
	[STMT_INSTANCE_UPSERT] = { 10, 0,
	    "INSERT INTO instance (id, kind, host, pid, workers, busy, "
	    "cpu_pct, rss_kb, rps_json, leader, started_ms, seen_ms) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, " DBNOW_SQL ", "
	    DBNOW_SQL ") ON DUPLICATE KEY UPDATE kind = VALUES(kind), "
	    "host = VALUES(host), pid = VALUES(pid), "
	    "workers = VALUES(workers), busy = VALUES(busy), "
	    "cpu_pct = VALUES(cpu_pct), rss_kb = VALUES(rss_kb), "
	    "rps_json = VALUES(rps_json), leader = VALUES(leader), "
	    "seen_ms = VALUES(seen_ms)" },
	[STMT_INSTANCE_DELETE] = { 1, 0,
	    "DELETE FROM instance WHERE id = ?" },
	[STMT_INSTANCE_PURGE] = { 1, 0,
	    "DELETE FROM instance WHERE seen_ms < " DBNOW_SQL " - ?" },
	[STMT_INSTANCE_LIST] = { 1, 1,
	    "SELECT id, kind, host, pid, workers, busy, cpu_pct, rss_kb, "
	    "rps_json, leader, started_ms, seen_ms FROM instance "
	    "WHERE seen_ms >= " DBNOW_SQL " - ? ORDER BY id" },
	/*
	 * STMT_STATS_LOCK: 1 when this session holds the sampler's named
	 * lock (kept from an earlier call, or taken now without waiting).
	 */
	[STMT_STATS_LOCK] = { 2, 0,
	    "SELECT IF(IS_USED_LOCK(?) = CONNECTION_ID(), 1, "
	    "COALESCE(GET_LOCK(?, 0), 0))" },
	[STMT_STATS_PREV] = { 2, 1,
	    "SELECT issued, sampled_ms FROM queue_stats WHERE queue_id = ? "
	    "AND sampled_ms <= ? ORDER BY sampled_ms DESC LIMIT 1" },
	[STMT_STATS_FIRST] = { 1, 1,
	    "SELECT issued, sampled_ms FROM queue_stats WHERE queue_id = ? "
	    "ORDER BY sampled_ms LIMIT 1" },
	[STMT_STATS_INSERT] = { 8, 0,
	    "INSERT IGNORE INTO queue_stats (queue_id, sampled_ms, waiting, "
	    "inflow_per_min, rate_per_minute, serving, issued, active) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[STMT_STATS_PURGE] = { 1, 0,
	    "DELETE FROM queue_stats WHERE sampled_ms < ? LIMIT 10000" },
	[STMT_STATS_SERIES] = { 2, 1,
	    "SELECT sampled_ms, waiting, inflow_per_min, rate_per_minute, "
	    "serving, issued, active FROM queue_stats WHERE queue_id = ? "
	    "AND sampled_ms >= ? ORDER BY sampled_ms" },
	/* STMT_ADMIN_*, STMT_LOGIN_*: console users (db-console.c). */
	[STMT_ADMIN_USER_INSERT] = { 2, 0,
	    "INSERT INTO admin_user (name, password_hash, created_ms) "
	    "VALUES (?, ?, " DBNOW_SQL ")" },
	[STMT_ADMIN_USER_GET] = { 1, 1,
	    "SELECT id, name, password_hash, created_ms, disabled "
	    "FROM admin_user WHERE name = ?" },
	[STMT_ADMIN_USER_LIST] = { 0, 1,
	    "SELECT id, name, password_hash, created_ms, disabled "
	    "FROM admin_user ORDER BY name" },
	[STMT_ADMIN_USER_SET_HASH] = { 2, 0,
	    "UPDATE admin_user SET password_hash = ? WHERE id = ?" },
	[STMT_ADMIN_USER_SET_DISABLED] = { 2, 0,
	    "UPDATE admin_user SET disabled = ? WHERE id = ?" },
	[STMT_ADMIN_SESSION_INSERT] = { 4, 0,
	    "INSERT INTO admin_session (id_hash, user_id, csrf_token, "
	    "created_ms, last_seen_ms, client_addr) VALUES (?, ?, ?, "
	    DBNOW_SQL ", " DBNOW_SQL ", ?)" },
	/* A live session: within both expiries, its user not disabled. */
	[STMT_ADMIN_SESSION_GET] = { 3, 1,
	    "SELECT s.user_id, u.name, s.csrf_token, s.created_ms, "
	    "s.last_seen_ms FROM admin_session s JOIN admin_user u "
	    "ON u.id = s.user_id WHERE s.id_hash = ? AND u.disabled = 0 "
	    "AND s.last_seen_ms > " DBNOW_SQL " - ? "
	    "AND s.created_ms > " DBNOW_SQL " - ?" },
	[STMT_ADMIN_SESSION_TOUCH] = { 1, 0,
	    "UPDATE admin_session SET last_seen_ms = " DBNOW_SQL
	    " WHERE id_hash = ?" },
	[STMT_ADMIN_SESSION_DELETE] = { 1, 0,
	    "DELETE FROM admin_session WHERE id_hash = ?" },
	[STMT_ADMIN_SESSION_END_USER] = { 1, 0,
	    "DELETE FROM admin_session WHERE user_id = ?" },
	[STMT_ADMIN_SESSION_PURGE] = { 2, 0,
	    "DELETE FROM admin_session WHERE last_seen_ms <= " DBNOW_SQL
	    " - ? OR created_ms <= " DBNOW_SQL " - ? LIMIT 1000" },
	[STMT_LOGIN_FAIL_INSERT] = { 2, 0,
	    "INSERT INTO login_failure (user_name, client_addr, at_ms) "
	    "VALUES (?, ?, " DBNOW_SQL ")" },
	[STMT_LOGIN_FAIL_PURGE] = { 1, 0,
	    "DELETE FROM login_failure WHERE at_ms <= " DBNOW_SQL " - ? "
	    "LIMIT 1000" },
	/* STMT_LOGIN_RESET_USER: a log-in forgets its address's failures. */
	[STMT_LOGIN_RESET_USER] = { 2, 0,
	    "DELETE FROM login_failure WHERE user_name = ? AND "
	    "client_addr = ?" },
	[STMT_DRAW_SEEDLESS] = { 0, 1,
	    "SELECT id, slug, draw_arm FROM queue WHERE opens_at_ms IS NOT "
	    "NULL AND draw_seed_sealed IS NULL" },
	[STMT_DRAW_SET_SEED] = { 4, 0,
	    "UPDATE queue SET draw_seed_sealed = ?, draw_seed_hash = ? "
	    "WHERE id = ? AND draw_arm = ? AND draw_seed_sealed IS NULL" },
	/*
	 * STMT_DRAW_DUE (a plain read: it locks nothing) and
	 * STMT_DRAW_CLOSE (one row by its key): the join's closing rule,
	 * for queues nobody joins at the opening.  Never one UPDATE over
	 * the table: it would lock every row it scans, in the joins' way.
	 */
	[STMT_DRAW_DUE] = { 0, 1,
	    "SELECT id FROM queue WHERE draw_open = 1 AND opens_at_ms <= "
	    DBNOW_SQL " LIMIT 64" },
	[STMT_DRAW_CLOSE] = { 1, 0,
	    "UPDATE queue SET draw_count = last_number, draw_open = 0 "
	    "WHERE id = ? AND draw_open = 1 AND opens_at_ms <= " DBNOW_SQL },
	[STMT_DRAW_NEXT] = { 0, 1,
	    "SELECT COALESCE(MIN(opens_at_ms), 0) FROM queue WHERE "
	    "draw_open = 1 AND opens_at_ms > " DBNOW_SQL },
	/*
	 * STMT_PRESENCE_SEEN: a heartbeat.  A row fresher than the
	 * coalescing interval (third parameter, ms) is left as it is: no
	 * change, nothing logged by InnoDB.
	 */
	[STMT_PRESENCE_SEEN] = { 3, 0,
	    "INSERT INTO queue_presence (queue_id, number, seen_ms) "
	    "VALUES (?, ?, " DBNOW_SQL ") ON DUPLICATE KEY UPDATE "
	    "seen_ms = IF(" DBNOW_SQL " - seen_ms >= ?, " DBNOW_SQL
	    ", seen_ms)" },
	[STMT_ABANDON_QUEUES] = { 0, 1,
	    "SELECT slug FROM queue WHERE abandon = 1 AND "
	    "active = 1 AND draw_open = 0 ORDER BY slug" },
	[STMT_ABANDON_MARKS] = { 1, 0,
	    "SELECT abandon_grace_s, abandon_done, abandon_total "
	    "FROM queue WHERE id = ? FOR UPDATE" },
	/* STMT_ISSUE_MARK_ADD: (id, now, L, id, now - interval). */
	[STMT_ISSUE_MARK_ADD] = { 5, 0,
	    "INSERT INTO queue_issue_mark (queue_id, at_ms, number) "
	    "SELECT ?, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM "
	    "queue_issue_mark WHERE queue_id = ? AND at_ms > ?)" },
	/* STMT_ISSUE_MARK_GET: the newest mark at or before a time. */
	[STMT_ISSUE_MARK_GET] = { 2, 0,
	    "SELECT at_ms, number FROM queue_issue_mark WHERE queue_id = ? "
	    "AND at_ms <= ? ORDER BY at_ms DESC LIMIT 1" },
	[STMT_ISSUE_MARK_PRUNE] = { 2, 0,
	    "DELETE FROM queue_issue_mark WHERE queue_id = ? AND at_ms < ?" },
	[STMT_ABANDON_PRESENT] = { 4, 0,
	    "SELECT COUNT(*) FROM queue_presence WHERE queue_id = ? AND "
	    "number > ? AND number <= ? AND seen_ms >= ?" },
	/* STMT_ABANDON_MARK_RANGE: its affected rows are the count. */
	[STMT_ABANDON_MARK_RANGE] = { 4, 0,
	    "UPDATE queue_presence SET counted = 1 WHERE queue_id = ? AND "
	    "number > ? AND number <= ? AND seen_ms < ? AND counted = 0" },
	[STMT_ABANDON_SAVE] = { 3, 0,
	    "UPDATE queue SET abandon_done = ?, abandon_total = "
	    "abandon_total + ? WHERE id = ?" },
	/* STMT_PRESENCE_PRUNE: rows of numbers serving has passed. */
	[STMT_PRESENCE_PRUNE] = { 2, 0,
	    "DELETE FROM queue_presence WHERE queue_id = ? AND number <= ? "
	    "LIMIT 10000" },
	/*
	 * The worker's leader lock (MariaDB/MySQL named locks): taken
	 * without waiting, held by the session, released by the server when
	 * the session ends.  CHECK answers 1 only while this very session
	 * holds it, so a reconnected session reads as "not leader".  None is
	 * retried after a lost connection.
	 */
	[STMT_LEADER_GET] = { 1, 0,
	    "SELECT COALESCE(GET_LOCK(?, 0), 0)" },
	[STMT_LEADER_CHECK] = { 1, 0,
	    "SELECT COALESCE(IS_USED_LOCK(?) = CONNECTION_ID(), 0)" },
	[STMT_LEADER_RELEASE] = { 1, 0,
	    "SELECT COALESCE(RELEASE_LOCK(?), 0)" },
	/*
	 * Auto-rate: the settings (written by operators, never the st_*
	 * columns), the controller's memory (written by the worker's leader
	 * only), the test record, the decision log.
	 */
	[STMT_AR_GET] = { 1, 1,
	    "SELECT " AR_COLS " FROM queue_autorate WHERE queue_id = ?" },
	[STMT_AR_SAVE] = { 17, 0,
	    "INSERT INTO queue_autorate (queue_id, enabled, dry_run, "
	    "health_url, allow_private, interval_s, rules, rate_min, "
	    "rate_max, raise_step, cut_percent, cooldown_s, band_percent, "
	    "failures_to_min, tested_ms, tested_result, updated_ms) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
	    "ON DUPLICATE KEY UPDATE enabled = VALUES(enabled), "
	    "dry_run = VALUES(dry_run), health_url = VALUES(health_url), "
	    "allow_private = VALUES(allow_private), "
	    "interval_s = VALUES(interval_s), rules = VALUES(rules), "
	    "rate_min = VALUES(rate_min), rate_max = VALUES(rate_max), "
	    "raise_step = VALUES(raise_step), "
	    "cut_percent = VALUES(cut_percent), "
	    "cooldown_s = VALUES(cooldown_s), "
	    "band_percent = VALUES(band_percent), "
	    "failures_to_min = VALUES(failures_to_min), "
	    "tested_ms = VALUES(tested_ms), "
	    "tested_result = VALUES(tested_result), "
	    "updated_ms = VALUES(updated_ms)" },
	[STMT_AR_STATE] = { 6, 0,
	    "UPDATE queue_autorate SET st_poll_ms = ?, st_failures = ?, "
	    "st_since_ms = ?, st_change_ms = ?, st_cut_ms = ? "
	    "WHERE queue_id = ?" },
	[STMT_AR_TESTED] = { 4, 0,
	    "UPDATE queue_autorate SET tested_ms = ?, tested_result = ? "
	    "WHERE queue_id = ? AND updated_ms = ?" },
	[STMT_AR_ENABLE] = { 3, 0,
	    "UPDATE queue_autorate SET enabled = ?, updated_ms = ? "
	    "WHERE queue_id = ?" },
	[STMT_AR_LIST_ENABLED] = { 0, 1,
	    "SELECT q.slug, " AR_COLS_A " FROM queue_autorate a "
	    "JOIN queue q ON q.id = a.queue_id WHERE a.enabled = 1 "
	    "ORDER BY a.queue_id" },
	[STMT_AR_LOG_ADD] = { 12, 0,
	    "INSERT INTO autorate_log (queue_id, at_ms, kind, dry_run, "
	    "action, state, reason, rule, rate_before, rate_after, "
	    "response_ms, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
	    "?)" },
	[STMT_AR_LOG_LIST] = { 2, 1,
	    "SELECT at_ms, kind, dry_run, action, state, reason, rule, "
	    "rate_before, rate_after, response_ms, sample FROM autorate_log "
	    "WHERE queue_id = ? ORDER BY id DESC LIMIT ?" },
	[STMT_AR_LOG_PRUNE] = { 1, 0,
	    "DELETE FROM autorate_log WHERE at_ms < ? LIMIT 10000" },
	/*
	 * The fairness report: a number's first token (never a second row),
	 * the queue's samples and served numbers since a time.
	 */
	[STMT_SERVED_ADD] = { 3 * SERVED_BATCH, 0,
	    "INSERT IGNORE INTO queue_served (queue_id, number, served_ms) "
	    "VALUES " SERVED_ROWS16 ", " SERVED_ROWS16 ", " SERVED_ROWS16
	    ", " SERVED_ROWS16 },
	[STMT_SERVED_PRUNE] = { 1, 0,
	    "DELETE FROM queue_served WHERE served_ms < ? LIMIT 10000" },
	[STMT_FAIR_SAMPLES] = { 3, 1,
	    "SELECT sampled_ms, issued, serving, rate_per_minute "
	    "FROM queue_stats WHERE queue_id = ? AND sampled_ms >= ? "
	    "AND sampled_ms <= ? ORDER BY sampled_ms" },
	[STMT_FAIR_SERVED] = { 3, 1,
	    "SELECT number, served_ms FROM queue_served WHERE queue_id = ? "
	    "AND served_ms >= ? AND served_ms <= ? "
	    "ORDER BY served_ms, number" },
	[STMT_QUEUE_GET_BY_ID] = { 1, 1,
	    "SELECT " QUEUE_COLS " FROM queue WHERE id = ?" },
	/* STMT_QUEUE_LIST_PAGE: after id ?, at most ? rows, by id. */
	[STMT_QUEUE_LIST_PAGE] = { 2, 1,
	    "SELECT " QUEUE_COLS " FROM queue WHERE id > ? ORDER BY id "
	    "LIMIT ?" },
	/* STMT_AUDIT_INSERT: at the database's time, in the change's txn. */
	[STMT_AUDIT_INSERT] = { 9, 0,
	    "INSERT INTO audit_log (at_ms, actor_kind, actor_id, actor_name, "
	    "queue_id, queue_slug, action, before_json, after_json, "
	    "client_addr) VALUES (" DBNOW_SQL ", ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	/*
	 * STMT_AUDIT_LIST: newest first, below id ?; each filter pair is
	 * (NULL = any, value).
	 */
	[STMT_AUDIT_LIST] = { 10, 1,
	    "SELECT id, at_ms, actor_kind, actor_id, actor_name, queue_id, "
	    "queue_slug, action, before_json, after_json, client_addr "
	    "FROM audit_log WHERE id < ? "
	    "AND (? IS NULL OR queue_id = ?) "
	    "AND (? IS NULL OR actor_name = ?) "
	    "AND (? IS NULL OR action = ?) "
	    "AND at_ms >= ? AND at_ms < ? "
	    "ORDER BY id DESC LIMIT ?" },
	[STMT_KEY_INSERT] = { 4, 0,
	    "INSERT INTO api_key (queue_id, name, key_hash, prefix, "
	    "created_ms) VALUES (?, ?, ?, ?, " DBNOW_SQL ")" },
	/* STMT_KEY_LIST: one queue's keys (or every key: NULL), by id. */
	[STMT_KEY_LIST] = { 2, 1,
	    "SELECT k.id, k.queue_id, q.slug, k.name, k.prefix, "
	    "k.created_ms, k.last_used_ms, k.revoked_ms, " DBNOW_SQL " "
	    "FROM api_key k JOIN queue q ON q.id = k.queue_id "
	    "WHERE (? IS NULL OR k.queue_id = ?) ORDER BY k.id" },
	[STMT_KEY_BY_HASH] = { 1, 1,
	    "SELECT k.id, k.queue_id, q.slug, k.name, k.prefix, "
	    "k.created_ms, k.last_used_ms, k.revoked_ms, " DBNOW_SQL ", "
	    "k.key_hash FROM api_key k JOIN queue q ON q.id = k.queue_id "
	    "WHERE k.key_hash = ?" },
	/* STMT_KEY_TOUCH: last use, written at most once a minute. */
	[STMT_KEY_TOUCH] = { 1, 0,
	    "UPDATE api_key SET last_used_ms = " DBNOW_SQL " WHERE id = ? "
	    "AND (last_used_ms IS NULL OR last_used_ms < " DBNOW_SQL
	    " - 60000)" },
	[STMT_KEY_GET_LOCKED] = { 1, 0,
	    "SELECT k.id, k.queue_id, q.slug, k.name, k.prefix, "
	    "k.created_ms, k.last_used_ms, k.revoked_ms, " DBNOW_SQL " "
	    "FROM api_key k JOIN queue q ON q.id = k.queue_id "
	    "WHERE k.id = ? FOR UPDATE" },
	[STMT_KEY_REVOKE] = { 1, 0,
	    "UPDATE api_key SET revoked_ms = " DBNOW_SQL " WHERE id = ? "
	    "AND revoked_ms IS NULL" },
	/* STMT_QUEUE_TIMES: creation, and the last audited change. */
	[STMT_QUEUE_TIMES] = { 1, 1,
	    "SELECT CAST(UNIX_TIMESTAMP(q.created_at) * 1000 AS SIGNED), "
	    "IFNULL((SELECT MAX(a.at_ms) FROM audit_log a WHERE "
	    "a.queue_id = q.id), 0) FROM queue q WHERE q.id = ?" },
	/*
	 * STMT_WSREP_NOT_READY: 1 on a Galera node that does not accept
	 * queries yet (joining, or cut off from the cluster's majority), 0
	 * on a ready node and on a server without Galera.
	 */
	[STMT_WSREP_NOT_READY] = { 0, 1,
	    "SELECT COUNT(*) FROM information_schema.GLOBAL_STATUS WHERE "
	    "VARIABLE_NAME = 'WSREP_READY' AND VARIABLE_VALUE <> 'ON'" },
	/*
	 * STMT_LOGIN_STATS: a log-in's failures within the window (the last
	 * parameter, ms), in one read: for the name from this address
	 * (count, oldest), from this address (count, oldest), for the name
	 * from anywhere (count, newest), and the database's now.
	 * Parameters: name, addr, name, addr, addr, addr, name, name, name,
	 * addr, window.
	 */
	[STMT_LOGIN_STATS] = { 11, 1,
	    "SELECT CAST(COALESCE(SUM(user_name = ? AND client_addr = ?), 0) "
	    "AS SIGNED), COALESCE(MIN(IF(user_name = ? AND client_addr = ?, "
	    "at_ms, NULL)), 0), CAST(COALESCE(SUM(client_addr = ?), 0) AS "
	    "SIGNED), COALESCE(MIN(IF(client_addr = ?, at_ms, NULL)), 0), "
	    "CAST(COALESCE(SUM(user_name = ?), 0) AS SIGNED), "
	    "COALESCE(MAX(IF(user_name = ?, at_ms, NULL)), 0), " DBNOW_SQL
	    " FROM login_failure WHERE (user_name = ? OR client_addr = ?) "
	    "AND at_ms > " DBNOW_SQL " - ?" },
	/*
	 * STMT_BYPASS_*: VIP bypass codes (db-bypass.c).  A code's row
	 * (BYPASS_COLS): id, queue, slug, label, limit, uses, expiry,
	 * disabled, created, the database's now.
	 */
	[STMT_BYPASS_INSERT] = { 5, 0,
	    "INSERT INTO bypass_code (queue_id, label, code_hash, use_limit, "
	    "expires_ms, created_ms) VALUES (?, ?, ?, ?, ?, " DBNOW_SQL ")" },
	[STMT_BYPASS_LIST] = { 1, 1,
	    "SELECT " BYPASS_COLS " FROM bypass_code b JOIN queue q ON "
	    "q.id = b.queue_id WHERE b.queue_id = ? ORDER BY b.id" },
	[STMT_BYPASS_GET_LOCKED] = { 1, 0,
	    "SELECT " BYPASS_COLS " FROM bypass_code b JOIN queue q ON "
	    "q.id = b.queue_id WHERE b.id = ? FOR UPDATE" },
	[STMT_BYPASS_SET_DISABLED] = { 2, 0,
	    "UPDATE bypass_code SET disabled = ? WHERE id = ?" },
	[STMT_BYPASS_DELETE] = { 1, 0,
	    "DELETE FROM bypass_code WHERE id = ?" },
	/*
	 * STMT_BYPASS_REDEEM: one use of a code of the queue, in one
	 * statement, only while it is enabled, unexpired and below its
	 * limit (the row lock orders redemptions: never past the limit).
	 * Parameters: hash, queue.
	 */
	[STMT_BYPASS_REDEEM] = { 2, 0,
	    "UPDATE bypass_code SET uses = uses + 1 WHERE code_hash = ? AND "
	    "queue_id = ? AND disabled = 0 AND (use_limit IS NULL OR "
	    "uses < use_limit) AND (expires_ms IS NULL OR expires_ms > "
	    DBNOW_SQL ")" },
	/* STMT_BYPASS_WHY: why a code did not redeem (for the audit). */
	[STMT_BYPASS_WHY] = { 2, 1,
	    "SELECT " BYPASS_COLS " FROM bypass_code b JOIN queue q ON "
	    "q.id = b.queue_id WHERE b.code_hash = ? AND b.queue_id = ?" },
	[STMT_BYPASS_FAIL_COUNT] = { 2, 1,
	    "SELECT COUNT(*), COALESCE(MIN(at_ms), 0), " DBNOW_SQL
	    " FROM bypass_failure WHERE client_addr = ? AND at_ms > "
	    DBNOW_SQL " - ?" },
	[STMT_BYPASS_FAIL_INSERT] = { 1, 0,
	    "INSERT INTO bypass_failure (client_addr, at_ms) VALUES (?, "
	    DBNOW_SQL ")" },
	[STMT_BYPASS_FAIL_PURGE] = { 1, 0,
	    "DELETE FROM bypass_failure WHERE at_ms <= " DBNOW_SQL " - ? "
	    "LIMIT 1000" },
};

/* Session settings at every connect: strict, utf8mb4, UTC. */
#define INIT_SQL "SET SESSION sql_mode = 'STRICT_ALL_TABLES," \
	"ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE," \
	"NO_ENGINE_SUBSTITUTION', time_zone = '+00:00'"

/*
 * What a connection in non-blocking mode is doing (db_nonblocking()):
 * the call of MariaDB's non-blocking API whose _start returned a wait,
 * until its _cont says it is done.
 */
enum op {
	OP_NONE,
	OP_CONNECT,	/* mysql_real_connect */
	OP_QUERY,	/* mysql_real_query (db_exec_static) */
	OP_RESULT,	/* mysql_store_result (db_exec_static) */
	OP_PREPARE,	/* mysql_stmt_prepare of op_st */
	OP_EXECUTE,	/* mysql_stmt_execute of op_st */
	OP_STORE	/* mysql_stmt_store_result of op_st */
};

/*
 * The late outcome of a tracked statement (db_track()): its caller gave
 * up on it, and then it finished (affected rows, insert id) or its
 * connection broke first (unknown).
 */
struct late {
	int64_t	 arg;
	int64_t	 affected;
	int64_t	 insert_id;
	int	 unknown;
};

#define DB_LATE_MAX	8

struct db {
	const struct cfg	*cfg;
	MYSQL			*my;
	MYSQL_STMT		*st[STMT__MAX];
	int64_t			 next_try_ms;	/* hold-off after failure */
	unsigned int		 last_errno;	/* of the last failure */
	int			 limits;	/* bound server-side time */
	int64_t			 offset_us;	/* database clock - ours */
	int64_t			 offset_bound_us; /* its error bound */
	int64_t			 offset_at_us;	/* when learnt (ours), or 0 */
	int64_t			 last_clock_ms;	/* last db_clock_ms() */
	int			 node;	/* db-hosts entry connected, or -1 */
	int			 failback;	/* may go back to node 1 */
	int64_t			 failback_ms;	/* next try to go back */
	int64_t			 failback_iv;	/* ms between tries */
	int			 in_tx;	/* between db_begin and commit */
	/* Non-blocking mode (db_nonblocking()); times are monotonic ms. */
	int			 nonblock;
	int64_t			 deadline;	/* the caller's, or 0 */
	int64_t			 stmt_ms;	/* else each statement's time */
	int64_t			 until;		/* the running call's end */
	enum op			 op;		/* in flight, or OP_NONE */
	int			 op_wait;	/* MYSQL_WAIT_* it waits for */
	int64_t			 op_since;	/* when it was sent */
	MYSQL_STMT		*op_st;		/* its statement */
	enum stmt		 op_s;		/* OP_PREPARE: table entry */
	int			 op_ret;	/* what an int call returned */
	MYSQL			*op_my;		/* what the connect returned */
	MYSQL_RES		*op_res;	/* what store_result returned */
	int64_t			 track;		/* see db_track() */
	int64_t			 op_track;	/* track of the one in flight */
	uint64_t		 answers;	/* statements answered */
	struct late		 late[DB_LATE_MAX];
	size_t			 nlate;
};

/*
 * How often a process on a later node of db-hosts tries the first: after
 * 5 s, then twice as long after every try that found it still gone (on a
 * network that drops packets a try costs up to db-timeout), at most 60 s.
 */
#define DB_FAILBACK_MS		5000
#define DB_FAILBACK_MAX_MS	60000

/*
 * A statement given up on is finished in the background (db_idle()) for
 * at most DB_INFLIGHT_MAX_MS; then its connection is closed.  One in
 * flight for DB_STUCK_MS or longer means the database is stuck: a new
 * statement is refused at once instead of waiting for it (below that it
 * waits for it within its caller's time: on a loaded machine a read
 * given up on by a caller with a short time may just be a little late).
 */
#define DB_INFLIGHT_MAX_MS	60000
#define DB_STUCK_MS		500

/* Monotonic milliseconds. */
static int64_t
mono_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct db *
db_open(const struct cfg *c)
{
	struct db	*db = xcalloc(1, sizeof(*db));

	db->cfg = c;
	db->node = -1;
	db->stmt_ms = c->db_timeout_s * 1000;
	return db;
}

const struct cfg *
db_config(const struct db *db)
{
	return db->cfg;
}

static void	 late_push(struct db *, int);

/*
 * Drop the connection and its statements.  With an operation in flight,
 * the socket is shut down first (mariadb_cancel()): nothing then waits
 * for the server, and the session ends on the server (a transaction is
 * rolled back); a tracked statement's outcome becomes unknown.
 */
static void
disconnect(struct db *db)
{
	size_t	 i;

	if (db->op != OP_NONE) {
		if (db->op_track != 0)
			late_push(db, 1);
		if (db->my != NULL)
			(void)mariadb_cancel(db->my);
	}
	/* After mysql_close() a statement close only frees memory. */
	if (db->my != NULL) {
		mysql_close(db->my);
		db->my = NULL;
	}
	if (db->op == OP_PREPARE && db->op_st != NULL)
		mysql_stmt_close(db->op_st);
	for (i = 0; i < STMT__MAX; i++)
		if (db->st[i] != NULL) {
			mysql_stmt_close(db->st[i]);
			db->st[i] = NULL;
		}
	db->op = OP_NONE;
	db->op_wait = 0;
	db->op_st = NULL;
	db->op_track = 0;
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	disconnect(db);
	free(db);
}

static const char *stmt_sql(enum stmt, unsigned int *);
static enum app_err run_once(struct db *, enum stmt, MYSQL_BIND *,
	    MYSQL_BIND *, int *);

/* Whether a client/server error number means the connection is gone. */
static int
conn_lost(unsigned int e)
{
	return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST ||
	    e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR ||
	    e == CR_SERVER_LOST_EXTENDED || e == ER_CONNECTION_KILLED ||
	    e == ER_SERVER_SHUTDOWN || e == CR_COMMANDS_OUT_OF_SYNC;
}

/* The poll(2) events for what the library waits for (MYSQL_WAIT_*). */
static short
wait_events(int w)
{
	short	 ev = 0;

	if (w & MYSQL_WAIT_READ)
		ev |= POLLIN;
	if (w & MYSQL_WAIT_WRITE)
		ev |= POLLOUT;
	if (w & MYSQL_WAIT_EXCEPT)
		ev |= POLLPRI;
	return ev;
}

/*
 * What poll(2) found (revents) as MYSQL_WAIT_* for the library, which
 * waited for w: an error or hang-up is reported as everything it waited
 * for, so that its next read or write meets the error.
 */
static int
wait_ready(short re, int w)
{
	int	 ev = 0;

	if (re & POLLIN)
		ev |= MYSQL_WAIT_READ;
	if (re & POLLOUT)
		ev |= MYSQL_WAIT_WRITE;
	if (re & POLLPRI)
		ev |= MYSQL_WAIT_EXCEPT;
	ev &= w;
	if (ev == 0)
		ev = w & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE |
		    MYSQL_WAIT_EXCEPT);
	return ev;
}

/*
 * Start operation op (not OP_CONNECT) on the connection: sql for
 * OP_QUERY and OP_PREPARE, st for the statement operations.  Its wait
 * is in db->op_wait (0: done at once).  Can't fail (the outcome is in
 * db->op_ret / db->op_res).
 */
static void
op_begin(struct db *db, enum op op, MYSQL_STMT *st, const char *sql)
{
	db->op = op;
	db->op_st = st;
	db->op_since = mono_ms();
	db->op_wait = 0;
	switch (op) {
	case OP_QUERY:
		db->op_wait = mysql_real_query_start(&db->op_ret, db->my, sql,
		    strlen(sql));
		break;
	case OP_RESULT:
		db->op_wait = mysql_store_result_start(&db->op_res, db->my);
		break;
	case OP_PREPARE:
		db->op_wait = mysql_stmt_prepare_start(&db->op_ret, st, sql,
		    strlen(sql));
		break;
	case OP_EXECUTE:
		db->op_wait = mysql_stmt_execute_start(&db->op_ret, st);
		break;
	case OP_STORE:
		db->op_wait = mysql_stmt_store_result_start(&db->op_ret, st);
		break;
	case OP_CONNECT:
	case OP_NONE:
		break;
	}
}

/* Continue the operation in flight with the events ev.  Can't fail. */
static void
op_step(struct db *db, int ev)
{
	switch (db->op) {
	case OP_CONNECT:
		db->op_wait = mysql_real_connect_cont(&db->op_my, db->my, ev);
		break;
	case OP_QUERY:
		db->op_wait = mysql_real_query_cont(&db->op_ret, db->my, ev);
		break;
	case OP_RESULT:
		db->op_wait = mysql_store_result_cont(&db->op_res, db->my, ev);
		break;
	case OP_PREPARE:
		db->op_wait = mysql_stmt_prepare_cont(&db->op_ret, db->op_st,
		    ev);
		break;
	case OP_EXECUTE:
		db->op_wait = mysql_stmt_execute_cont(&db->op_ret, db->op_st,
		    ev);
		break;
	case OP_STORE:
		db->op_wait = mysql_stmt_store_result_cont(&db->op_ret,
		    db->op_st, ev);
		break;
	case OP_NONE:
		db->op_wait = 0;
		break;
	}
}

/*
 * Wait for the operation in flight until it is done or until the
 * monotonic time until, whichever comes first; a timeout the library
 * asks for itself (the connect timeout) is honoured too.  Returns 0
 * when done (db->op is then still set: the caller takes the outcome),
 * or -1 when until came first (it stays in flight).
 */
static int
op_wait(struct db *db, int64_t until)
{
	struct pollfd	 pfd;
	int64_t		 left;
	unsigned int	 lib;
	int		 n, tmo, by_lib;

	while (db->op_wait != 0) {
		if ((left = until - mono_ms()) <= 0)
			return -1;
		tmo = left > INT_MAX ? INT_MAX : (int)left;
		by_lib = 0;
		if (db->op_wait & MYSQL_WAIT_TIMEOUT) {
			lib = mysql_get_timeout_value_ms(db->my);
			if (lib < (unsigned int)tmo) {
				tmo = (int)lib;
				by_lib = 1;
			}
		}
		pfd.fd = (int)mysql_get_socket(db->my);
		pfd.events = wait_events(db->op_wait);
		pfd.revents = 0;
		n = poll(&pfd, 1, tmo);
		if (n > 0)
			op_step(db, wait_ready(pfd.revents, db->op_wait));
		else if (n == 0 && by_lib)
			op_step(db, MYSQL_WAIT_TIMEOUT);
		else if (n == -1 && errno != EINTR) {
			log_warn("db poll");
			return -1;
		}
	}
	return 0;
}

/*
 * Keep a tracked statement's late outcome for db_late_take(): what it
 * did (the statement in flight has just finished), or unknown (its
 * connection is being closed first).  Can't fail (a full list drops
 * it, logged).
 */
static void
late_push(struct db *db, int unknown)
{
	struct late	*l;

	if (unknown)
		log_warnx("db: the connection closes before the outcome of a "
		    "statement given up on arrived (for %lld)",
		    (long long)db->op_track);
	if (db->nlate == DB_LATE_MAX) {
		log_warnx("db: late outcome for %lld dropped",
		    (long long)db->op_track);
		return;
	}
	l = &db->late[db->nlate++];
	l->arg = db->op_track;
	l->unknown = unknown;
	l->affected = unknown || db->op_st == NULL ? 0 :
	    (int64_t)mysql_stmt_affected_rows(db->op_st);
	l->insert_id = unknown || db->op_st == NULL ? 0 :
	    (int64_t)mysql_stmt_insert_id(db->op_st);
}

/*
 * The caller's time ran out while operation what was in flight (non-
 * blocking mode).  Inside a transaction, for a connect or a plain query,
 * and for a prepare outside the statement table, the connection is
 * closed (the server rolls back); a statement otherwise stays in flight
 * and is finished in the background (see bg_run()), so that a write the
 * server still does is not cut off half way and its outcome can be
 * learnt (db_track()).  Returns APP_DB_DOWN.
 */
static enum app_err
give_up(struct db *db, const char *what)
{
	db->last_errno = 0;
	if (db->in_tx || db->op == OP_CONNECT || db->op == OP_QUERY ||
	    db->op == OP_RESULT ||
	    (db->op == OP_PREPARE && db->op_s == STMT__MAX)) {
		log_warnx("db %s: no answer in time; closing the connection",
		    what);
		disconnect(db);
		db->next_try_ms = now_ms() + 1000;
		return APP_DB_DOWN;
	}
	db->op_track = db->track;
	log_info("db %s: no answer in time; finishing it in the background",
	    what);
	return APP_DB_DOWN;
}

/*
 * The connection of the abandoned operation broke, or (hold set) it has
 * taken longer than DB_INFLIGHT_MAX_MS: close it (a tracked outcome is
 * unknown); the next statement connects again, at once after a break,
 * else not within a second.
 */
static void
bg_lost(struct db *db, const char *why, int hold)
{
	log_warnx("db: %s; closing the connection", why);
	disconnect(db);
	db->next_try_ms = hold ? now_ms() + 1000 : 0;
}

/*
 * The abandoned operation finished its step: take its outcome, start
 * the next step (a result set is read to its end and dropped), or free
 * the connection (db->op becomes OP_NONE).  Can't fail.
 */
static void
bg_finish(struct db *db)
{
	MYSQL_STMT	*st = db->op_st;
	int64_t		 since = db->op_since;
	unsigned int	 e, params = 0;

	switch (db->op) {
	case OP_PREPARE:
		e = db->op_ret != 0 ? mysql_stmt_errno(st) : 0;
		if (db->op_s < STMT__MAX)
			(void)stmt_sql(db->op_s, &params);
		if (e == 0 && db->op_s < STMT__MAX &&
		    db->st[db->op_s] == NULL &&
		    mysql_stmt_param_count(st) == params) {
			db->st[db->op_s] = st;
			db->answers++;
		} else if (conn_lost(e)) {
			bg_lost(db, "the connection broke during a prepare",
			    0);
			return;
		} else
			mysql_stmt_close(st);
		break;
	case OP_EXECUTE:
		if (db->op_ret != 0) {
			e = mysql_stmt_errno(st);
			if (conn_lost(e)) {
				bg_lost(db, "the connection broke before a "
				    "statement given up on was answered", 0);
				return;
			}
			log_info("db: a statement given up on failed after "
			    "all: %u %s", e, mysql_stmt_error(st));
			break;
		}
		db->answers++;
		if (mysql_stmt_field_count(st) > 0) {
			op_begin(db, OP_STORE, st, NULL);
			db->op_since = since;
			return;
		}
		if (db->op_track != 0)
			late_push(db, 0);
		break;
	case OP_STORE:
		if (db->op_ret != 0 && conn_lost(mysql_stmt_errno(st))) {
			bg_lost(db, "the connection broke while the rows of a "
			    "read given up on came in", 0);
			return;
		}
		mysql_stmt_free_result(st);
		break;
	default:
		/* A connect or a query is never left in flight. */
		break;
	}
	db->op = OP_NONE;
	db->op_st = NULL;
	db->op_track = 0;
}

/*
 * Drive the abandoned operation on, waiting for the server at most
 * until the monotonic time until (now or earlier: not at all).  One in
 * flight longer than DB_INFLIGHT_MAX_MS has its connection closed.
 * Returns 1 when the connection is free (or closed), 0 while the
 * operation is still in flight.
 */
static int
bg_run(struct db *db, int64_t until)
{
	struct pollfd	 pfd;
	int64_t		 now, left, max;
	int		 n;

	for (;;) {
		while (db->op != OP_NONE && db->op_wait == 0)
			bg_finish(db);
		if (db->op == OP_NONE)
			return 1;
		now = mono_ms();
		if ((max = db->op_since + DB_INFLIGHT_MAX_MS - now) <= 0) {
			bg_lost(db, "a statement given up on has had no answer "
			    "for a minute", 1);
			return 1;
		}
		left = until - now;
		if (left < 0)
			left = 0;
		if (left > max)
			left = max;
		pfd.fd = (int)mysql_get_socket(db->my);
		pfd.events = wait_events(db->op_wait);
		pfd.revents = 0;
		n = poll(&pfd, 1, (int)(left > INT_MAX ? INT_MAX : left));
		if (n > 0)
			op_step(db, wait_ready(pfd.revents, db->op_wait));
		else if (n == 0 && left == 0)
			return 0;
		else if (n == -1 && errno != EINTR) {
			log_warn("db poll");
			return 0;
		}
	}
}

/*
 * Before anything is sent on the connection: an operation given up on
 * earlier must be done first.  It is waited for within the caller's
 * time until it has been in flight DB_STUCK_MS (a read given up on by a
 * short-lived caller may just be late on a loaded machine), not at all
 * after that.  Returns APP_OK when the connection is free, else
 * APP_DB_DOWN (nothing sent).
 */
static enum app_err
conn_free(struct db *db)
{
	int64_t	 until;

	if (db->op == OP_NONE)
		return APP_OK;
	until = db->until;
	if (until > db->op_since + DB_STUCK_MS)
		until = db->op_since + DB_STUCK_MS;
	if (bg_run(db, until))
		return APP_OK;
	db->last_errno = 0;
	return APP_DB_DOWN;
}

/*
 * Connect with the session settings: to db-socket / db-host, or to the
 * first node of db-hosts that answers.  Statements are prepared on first
 * use (so that the CLI can connect before the schema exists).  Returns
 * APP_OK or APP_DB_DOWN.
 */
static enum app_err connect_to(struct db *, const char *, unsigned int,
	    const char *, unsigned int);
static int	 node_ready(struct db *);

static enum app_err
connect_db(struct db *db)
{
	const struct cfg	*c = db->cfg;
	unsigned int		 to = (unsigned int)c->db_timeout_s;
	char			 host[256];
	const char		*h;
	unsigned int		 port;
	int			 i, n;

	if (c->db_hosts[0] == '\0')
		return connect_to(db, c->db_host[0] != '\0' ? c->db_host : NULL,
		    (unsigned int)c->db_port, c->db_socket[0] != '\0' ?
		    c->db_socket : NULL, to);
	/*
	 * A cluster: the first node that answers, in the listed order, so
	 * that every process writes through the same node while it is up
	 * (the counter row is written on one node: no certification
	 * conflicts between nodes), and through the next one when it is
	 * gone.  (No node while trying: no failback from inside.)
	 */
	db->node = -1;
	for (i = 0, h = c->db_hosts; *h != '\0'; i++) {
		if ((n = db_hosts_entry(&h, c->db_port, host, sizeof(host),
		    &port)) == -1)
			break;
		if (n == 0)
			continue;
		if (connect_to(db, host, port, NULL, to) != APP_OK)
			continue;
		if (!node_ready(db)) {
			log_warnx("db: node %d of db-hosts (%s:%u) is not "
			    "ready for queries (Galera: joining, or not in "
			    "the majority); trying the next", i + 1, host,
			    port);
			disconnect(db);
			continue;
		}
		if (i > 0)
			log_info("db: connected to node %d of db-hosts "
			    "(%s:%u): the first ones do not answer", i + 1,
			    host, port);
		db->node = i;
		/* The next try of the first node (see DB_FAILBACK_MS). */
		if (i == 0)
			db->failback_iv = 0;
		else {
			db->failback_iv = db->failback_iv == 0 ?
			    DB_FAILBACK_MS : db->failback_iv * 2;
			if (db->failback_iv > DB_FAILBACK_MAX_MS)
				db->failback_iv = DB_FAILBACK_MAX_MS;
			db->failback_ms = now_ms() + db->failback_iv;
		}
		return APP_OK;
	}
	db->node = -1;
	return APP_DB_DOWN;
}

/*
 * Whether the node just connected to takes queries: not a Galera node
 * that is joining or cut off from the majority (it would refuse every
 * statement).  Returns 1 or 0.
 */
static int
node_ready(struct db *db)
{
	MYSQL_BIND	 res[1];
	int64_t		 not_ready = 1;
	int		 has = 0;

	db_bind_int(&res[0], &not_ready);
	if (run_once(db, STMT_WSREP_NOT_READY, NULL, res, &has) != APP_OK ||
	    db->my == NULL)
		return 0;
	return has && not_ready == 0;
}

void
db_allow_failback(struct db *db)
{
	db->failback = 1;
}

int
db_node(const struct db *db)
{
	return db->my != NULL && db->node >= 0 ? db->node + 1 : 0;
}

int
db_hosts_entry(const char **list, int64_t defport, char *host, size_t sz,
    unsigned int *port)
{
	const char	*p = *list, *e, *colon;
	size_t		 n;
	int64_t		 v;
	char		 num[8];

	while (*p == ' ' || *p == ',')
		p++;
	if (*p == '\0') {
		*list = p;
		return 0;
	}
	e = p + strcspn(p, ", ");
	*list = e;
	colon = memchr(p, ':', (size_t)(e - p));
	n = (size_t)((colon != NULL ? colon : e) - p);
	if (n == 0 || n >= sz)
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	v = defport;
	if (colon != NULL) {
		if ((size_t)(e - colon - 1) >= sizeof(num) || e == colon + 1)
			return -1;
		memcpy(num, colon + 1, (size_t)(e - colon - 1));
		num[e - colon - 1] = '\0';
		if (parse_int64(num, 1, 65535, &v) == -1)
			return -1;
	}
	*port = (unsigned int)v;
	return 1;
}

/*
 * Connect to host:port (or the unix socket sock) with the session
 * settings.  In non-blocking mode the connect ends with the caller's
 * time (never left in flight), and there are no read or write timeouts:
 * statements end with their caller's time (see give_up()).  Returns
 * APP_OK or APP_DB_DOWN (logged).
 */
static enum app_err
connect_to(struct db *db, const char *host, unsigned int port,
    const char *sock, unsigned int to)
{
	const struct cfg	*c = db->cfg;
	my_bool			 no = 0;
	MYSQL			*ok;

	if ((db->my = mysql_init(NULL)) == NULL) {
		log_warnx("mysql_init failed");
		return APP_DB_DOWN;
	}
	mysql_options(db->my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options(db->my, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	if (!db->nonblock) {
		mysql_options(db->my, MYSQL_OPT_READ_TIMEOUT, &to);
		mysql_options(db->my, MYSQL_OPT_WRITE_TIMEOUT, &to);
	}
	mysql_options(db->my, MYSQL_OPT_RECONNECT, &no);
	mysql_options(db->my, MYSQL_INIT_COMMAND, INIT_SQL);
	if (db->nonblock) {
		if (mysql_options(db->my, MYSQL_OPT_NONBLOCK, 0) != 0) {
			log_warnx("db: no non-blocking mode: %s",
			    mysql_error(db->my));
			disconnect(db);
			return APP_DB_DOWN;
		}
		db->op = OP_CONNECT;
		db->op_st = NULL;
		db->op_since = mono_ms();
		db->op_my = NULL;
		db->op_wait = mysql_real_connect_start(&db->op_my, db->my, host,
		    c->db_user, c->db_password, c->db_name, port, sock, 0);
		if (op_wait(db, db->until) == -1) {
			log_warnx("db connect%s%s: no answer in time",
			    host != NULL ? " to " : "",
			    host != NULL ? host : "");
			disconnect(db);
			return APP_DB_DOWN;
		}
		db->op = OP_NONE;
		ok = db->op_my;
	} else
		ok = mysql_real_connect(db->my, host, c->db_user,
		    c->db_password, c->db_name, port, sock, 0);
	if (ok == NULL) {
		log_warnx("db connect%s%s: %s", host != NULL ? " to " : "",
		    host != NULL ? host : "", mysql_error(db->my));
		disconnect(db);
		return APP_DB_DOWN;
	}
	return APP_OK;
}

void
db_limit_statements(struct db *db)
{
	db->limits = 1;
}

void
db_nonblocking(struct db *db)
{
	db->nonblock = 1;
}

void
db_statement_ms(struct db *db, int64_t ms)
{
	db->stmt_ms = ms > 0 ? ms : db->cfg->db_timeout_s * 1000;
}

int64_t
db_deadline(struct db *db, int64_t ms)
{
	int64_t	 was = db->deadline;

	db->deadline = ms > 0 ? mono_ms() + ms : 0;
	return was;
}

void
db_deadline_restore(struct db *db, int64_t saved)
{
	db->deadline = saved;
}

int64_t
db_deadline_pause(const struct db *db)
{
	(void)db;
	return mono_ms();
}

void
db_deadline_resume(struct db *db, int64_t paused)
{
	if (db->deadline != 0)
		db->deadline += mono_ms() - paused;
}

int64_t
db_time_left_ms(struct db *db)
{
	if (db->deadline == 0)
		return db->stmt_ms;
	return db->deadline - mono_ms();
}

int
db_inflight(const struct db *db)
{
	return db->op != OP_NONE;
}

int
db_inflight_fd(const struct db *db, short *events)
{
	if (db->op == OP_NONE || db->my == NULL)
		return -1;
	*events = wait_events(db->op_wait);
	return (int)mysql_get_socket(db->my);
}

void
db_idle(struct db *db, int64_t wait_ms)
{
	if (db->op != OP_NONE)
		(void)bg_run(db, wait_ms > 0 ? mono_ms() + wait_ms : 0);
}

uint64_t
db_answers(const struct db *db)
{
	return db->answers;
}

void
db_track(struct db *db, int64_t arg)
{
	db->track = arg;
}

int
db_late_take(struct db *db, int64_t *arg, int64_t *affected,
    int64_t *insert_id, int *unknown)
{
	if (db->nlate == 0)
		return 0;
	*arg = db->late[0].arg;
	*affected = db->late[0].affected;
	*insert_id = db->late[0].insert_id;
	*unknown = db->late[0].unknown;
	memmove(&db->late[0], &db->late[1],
	    (db->nlate - 1) * sizeof(db->late[0]));
	db->nlate--;
	return 1;
}

/*
 * Bound how long the server works on one statement of this session,
 * below the client's read timeout (db-timeout), so that the server
 * gives up (and rolls the statement back) before the client does: a
 * statement the client reported as failed never commits later.
 * innodb_lock_wait_timeout bounds row lock waits and lock_wait_timeout
 * metadata lock waits (both whole seconds, MySQL and MariaDB);
 * max_statement_time (MariaDB 10.1 and later) bounds the whole
 * statement, waits included.  MySQL has no such bound for writes
 * (its max_execution_time applies to SELECT only).  Returns APP_OK,
 * APP_DB or APP_DB_DOWN.
 */
static enum app_err
session_limits(struct db *db)
{
	MYSQL_BIND	 p[2];
	int64_t		 lock_s = db->cfg->db_lock_timeout_s;
	double		 stmt_s = (double)db->cfg->db_statement_timeout_ms /
			    1000.0;
	enum app_err	 er;

	db_bind_int(&p[0], &lock_s);
	db_bind_int(&p[1], &lock_s);
	if ((er = run_once(db, STMT_SESSION_LOCK_WAIT, p, NULL, NULL)) !=
	    APP_OK)
		return er;
	if (!mariadb_connection(db->my))
		return APP_OK;
	memset(&p[0], 0, sizeof(p[0]));
	p[0].buffer_type = MYSQL_TYPE_DOUBLE;
	p[0].buffer = &stmt_s;
	return run_once(db, STMT_SESSION_STATEMENT_TIME, p, NULL, NULL);
}

/*
 * The time of a call (a statement, with its connect and prepare) that
 * starts now: until the caller's deadline, or its own statement time.
 * Sets db->until.
 */
static void
call_begin(struct db *db)
{
	db->until = db->deadline != 0 ? db->deadline : mono_ms() +
	    db->stmt_ms;
}

/*
 * db_ensure() within the running call's time: the connection free (see
 * conn_free()), else connected now.
 */
static enum app_err
ensure(struct db *db)
{
	int64_t		 now = now_ms();
	enum app_err	 er;

	if ((er = conn_free(db)) != APP_OK)
		return er;
	if (db->my != NULL)
		return APP_OK;
	if (now < db->next_try_ms || (db->nonblock && mono_ms() >= db->until))
		return APP_DB_DOWN;
	if (connect_db(db) != APP_OK ||
	    (db->limits && session_limits(db) != APP_OK)) {
		disconnect(db);
		db->next_try_ms = now + 1000;
		return APP_DB_DOWN;
	}
	db->next_try_ms = 0;
	return APP_OK;
}

enum app_err
db_ensure(struct db *db)
{
	call_begin(db);
	return ensure(db);
}

/*
 * Whether the idle connection is known dead: the server closed it
 * (KILL, wait_timeout, a restart) or sent something unasked.  An idle
 * connection has nothing to read, so a readable socket means it is of
 * no use.  One poll(2) with a zero timeout; never blocks (an
 * interrupted poll counts as alive: the statement will tell).
 */
static int
conn_dead(struct db *db)
{
	struct pollfd	 pfd;

	pfd.fd = (int)mysql_get_socket(db->my);
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (pfd.fd < 0)
		return 1;
	return poll(&pfd, 1, 0) > 0;
}

struct st_mysql *
db_mysql(struct db *db)
{
	return db->my;
}

/*
 * Map the error of the last call on the connection (or statement) to
 * APP_DB_DOWN (and drop the connection) or APP_DB.
 */
static enum app_err
fail(struct db *db, unsigned int e, const char *what, const char *msg)
{
	db->last_errno = e;
	if (e == ER_DUP_ENTRY)
		log_debug("db %s: %u %s", what, e, msg);
	else
		log_warnx("db %s: %u %s", what, e, msg);
	if (conn_lost(e)) {
		disconnect(db);
		return APP_DB_DOWN;
	}
	return APP_DB;
}

/*
 * Whether the caller's deadline (db_deadline()) has passed: then nothing
 * more is sent (the answer could not be waited for).
 */
static int
no_time(struct db *db)
{
	return db->nonblock && db->deadline != 0 && mono_ms() >= db->deadline;
}

enum app_err
db_exec_static(struct db *db, const char *sql)
{
	enum app_err	 er;
	MYSQL_RES	*res;

	call_begin(db);
	if (no_time(db))
		return APP_DB_DOWN;
	if ((er = ensure(db)) != APP_OK)
		return er;
	if (!db->nonblock) {
		if (mysql_real_query(db->my, sql, strlen(sql)) != 0)
			return fail(db, mysql_errno(db->my), "query",
			    mysql_error(db->my));
		if ((res = mysql_store_result(db->my)) != NULL)
			mysql_free_result(res);
		db->answers++;
		return APP_OK;
	}
	op_begin(db, OP_QUERY, NULL, sql);
	if (op_wait(db, db->until) == -1)
		return give_up(db, "query");
	db->op = OP_NONE;
	if (db->op_ret != 0)
		return fail(db, mysql_errno(db->my), "query",
		    mysql_error(db->my));
	op_begin(db, OP_RESULT, NULL, NULL);
	if (op_wait(db, db->until) == -1)
		return give_up(db, "query result");
	db->op = OP_NONE;
	if (db->op_res != NULL)
		mysql_free_result(db->op_res);
	db->op_res = NULL;
	db->answers++;
	return APP_OK;
}

enum app_err
db_begin(struct db *db)
{
	enum app_err	 er;

	if ((er = db_exec_static(db, "START TRANSACTION")) == APP_OK)
		db->in_tx = 1;
	return er;
}

enum app_err
db_commit(struct db *db)
{
	db->in_tx = 0;
	return db_exec_static(db, "COMMIT");
}

void
db_rollback(struct db *db)
{
	int	 was = db->in_tx;

	db->in_tx = 0;
	if (db->my == NULL)
		return;
	/* No time left to wait for it: the server rolls back on close. */
	if (was && no_time(db)) {
		disconnect(db);
		return;
	}
	(void)db_exec_static(db, "ROLLBACK");
}

/* Generated statements (QUEUE_COLS): their text once expanded. */
#define GEN_SQL_MAX	4096
#define GEN_SLOTS	8
static struct {
	enum stmt	 s;
	unsigned int	 params;
	char		 sql[GEN_SQL_MAX];
} gen[GEN_SLOTS];
static size_t	 ngen;

/*
 * Expand the placeholders of sql into out (n bytes): "@cols@", "@set@"
 * and "@marks@" become qops_sql()'s QOPS_SQL_COLS, QOPS_SQL_SET and
 * QOPS_SQL_MARKS; *params grows by the parameters they add.  Returns 0,
 * or -1 when out is too small.
 */
static int
expand(const char *sql, char *out, size_t n, unsigned int *params)
{
	static const struct {
		const char	*name;
		enum qops_sql	 kind;
	} ph[] = {
		{ "@cols@", QOPS_SQL_COLS },
		{ "@set@", QOPS_SQL_SET },
		{ "@marks@", QOPS_SQL_MARKS },
	};
	size_t	 len = 0, i, k;
	int	 c;

	while (*sql != '\0') {
		for (i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
			if (strncmp(sql, ph[i].name, strlen(ph[i].name)) == 0)
				break;
		if (i == sizeof(ph) / sizeof(ph[0])) {
			if (len + 1 >= n)
				return -1;
			out[len++] = *sql++;
			continue;
		}
		if ((c = qops_sql(ph[i].kind, out + len, n - len)) == -1)
			return -1;
		if (ph[i].kind != QOPS_SQL_COLS)
			*params += (unsigned int)c;
		k = strlen(out + len);
		len += k;
		sql += strlen(ph[i].name);
	}
	out[len] = '\0';
	return 0;
}

/*
 * The text of statement s and the parameters its caller binds into
 * *params: as the table has it, or expanded once per process when it
 * holds placeholders (the processes have one thread).  Returns the text
 * (static), or NULL when a generated one does not fit (a bug, logged).
 */
static const char *
stmt_sql(enum stmt s, unsigned int *params)
{
	size_t	 i;

	*params = stmts[s].params;
	if (strchr(stmts[s].sql, '@') == NULL)
		return stmts[s].sql;
	for (i = 0; i < ngen; i++)
		if (gen[i].s == s) {
			*params = gen[i].params;
			return gen[i].sql;
		}
	if (ngen == GEN_SLOTS || expand(stmts[s].sql, gen[ngen].sql,
	    sizeof(gen[ngen].sql), params) == -1) {
		log_warnx("db: statement %d does not fit its buffer", (int)s);
		return NULL;
	}
	gen[ngen].s = s;
	gen[ngen].params = *params;
	return gen[ngen++].sql;
}

/*
 * Prepare sql on the connection into *out and check that it takes
 * exactly nparams parameters.  In non-blocking mode a prepare the
 * caller's time ran out on is finished in the background, and kept as
 * statement s of the table (STMT__MAX: dropped).  Returns APP_OK,
 * APP_DB (logged; also for a count mismatch, which is a bug in the
 * statement table) or APP_DB_DOWN.
 */
static enum app_err
prepare(struct db *db, enum stmt s, const char *sql, unsigned int nparams,
    MYSQL_STMT **out)
{
	MYSQL_STMT	*st;
	enum app_err	 er;
	unsigned long	 n;
	int		 rc;

	*out = NULL;
	if ((st = mysql_stmt_init(db->my)) == NULL)
		return fail(db, mysql_errno(db->my), "stmt init",
		    mysql_error(db->my));
	if (db->nonblock) {
		op_begin(db, OP_PREPARE, st, sql);
		if (op_wait(db, db->until) == -1) {
			db->op_s = s;
			return give_up(db, "prepare");
		}
		db->op = OP_NONE;
		db->op_st = NULL;
		rc = db->op_ret;
	} else
		rc = mysql_stmt_prepare(st, sql, strlen(sql));
	if (rc != 0) {
		er = fail(db, mysql_stmt_errno(st), "prepare",
		    mysql_stmt_error(st));
		/* fail() may have closed the connection, not the statement. */
		mysql_stmt_close(st);
		return er;
	}
	if ((n = mysql_stmt_param_count(st)) != nparams) {
		log_warnx("db prepare: statement takes %lu parameters, its "
		    "caller binds %u: %.60s...", n, nparams, sql);
		db->last_errno = 0;
		mysql_stmt_close(st);
		return APP_DB;
	}
	db->answers++;
	*out = st;
	return APP_OK;
}

/* Prepare statement s of the table into db->st[s].  As prepare(). */
static enum app_err
prepare_one(struct db *db, enum stmt s)
{
	const char	*sql;
	unsigned int	 params;

	if ((sql = stmt_sql(s, &params)) == NULL)
		return APP_DB;
	return prepare(db, s, sql, params, &db->st[s]);
}

enum app_err
db_prepare_check(struct db *db, const char *sql, unsigned int nparams)
{
	MYSQL_STMT	*st;
	enum app_err	 er;

	if ((er = db_ensure(db)) != APP_OK)
		return er;
	if ((er = prepare(db, STMT__MAX, sql, nparams, &st)) == APP_OK)
		mysql_stmt_close(st);
	return er;
}

enum app_err
db_prepare_all(struct db *db)
{
	enum app_err	 er;
	size_t		 i;

	if ((er = db_ensure(db)) != APP_OK)
		return er;
	for (i = 0; i < STMT__MAX; i++)
		if (db->st[i] == NULL &&
		    (er = prepare_one(db, (enum stmt)i)) != APP_OK)
			return er;
	return APP_OK;
}

/*
 * Connect if needed and prepare statement s on first use.  Returns
 * APP_OK (db->st[s] is ready), APP_DB or APP_DB_DOWN.
 */
static enum app_err
prepared(struct db *db, enum stmt s)
{
	enum app_err	 er;

	if ((er = conn_free(db)) != APP_OK)
		return er;
	/*
	 * A connection found dead before anything is sent is replaced at
	 * once: nothing of this statement can have run.
	 */
	if (db->my != NULL && conn_dead(db)) {
		log_info("db: the connection was closed by the server; "
		    "reconnecting");
		disconnect(db);
		db->next_try_ms = 0;
	}
	/*
	 * On a later node of db-hosts, try the first (the designated
	 * writer) again now and then, between transactions, so that the
	 * processes do not stay split over two writers after it is back.
	 */
	if (db->my != NULL && db->failback && db->node > 0 && !db->in_tx &&
	    now_ms() >= db->failback_ms) {
		disconnect(db);
		db->next_try_ms = 0;
	}
	if ((er = ensure(db)) != APP_OK)
		return er;
	if (db->st[s] == NULL)
		return prepare_one(db, s);
	return APP_OK;
}

/*
 * Execute st (its parameters bound) and, for a statement with a result
 * set, read the whole result into the client (mysql_stmt_store_result),
 * so that fetching it never waits for the server.  In non-blocking mode
 * both end with the caller's time (give_up()).  Returns APP_OK, else
 * what fail() or give_up() say.
 */
static enum app_err
exec_store(struct db *db, MYSQL_STMT *st)
{
	enum app_err	 er;

	if (!db->nonblock) {
		if (mysql_stmt_execute(st) != 0)
			return fail(db, mysql_stmt_errno(st), "execute",
			    mysql_stmt_error(st));
		if (mysql_stmt_field_count(st) > 0 &&
		    mysql_stmt_store_result(st) != 0)
			goto store_failed;
		return APP_OK;
	}
	op_begin(db, OP_EXECUTE, st, NULL);
	if (op_wait(db, db->until) == -1)
		return give_up(db, "execute");
	db->op = OP_NONE;
	if (db->op_ret != 0)
		return fail(db, mysql_stmt_errno(st), "execute",
		    mysql_stmt_error(st));
	if (mysql_stmt_field_count(st) == 0)
		return APP_OK;
	op_begin(db, OP_STORE, st, NULL);
	if (op_wait(db, db->until) == -1)
		return give_up(db, "read");
	db->op = OP_NONE;
	if (db->op_ret == 0)
		return APP_OK;
store_failed:
	er = fail(db, mysql_stmt_errno(st), "read", mysql_stmt_error(st));
	if (db->my != NULL)
		mysql_stmt_free_result(st);
	return er;
}

/*
 * Prepare statement s on first use, bind param (when not NULL), execute
 * (its rows, if any, read into the client), and bind res (when not NULL)
 * for the fetches.  Returns APP_OK with *stp set, else what fail() says
 * (a failed result binding freed while still connected).
 */
static enum app_err
execute(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    MYSQL_STMT **stp)
{
	MYSQL_STMT	*st;
	enum app_err	 er;

	if (no_time(db))
		return APP_DB_DOWN;
	if ((er = prepared(db, s)) != APP_OK)
		return er;
	st = *stp = db->st[s];
	if (param != NULL && mysql_stmt_bind_param(st, param) != 0)
		return fail(db, mysql_stmt_errno(st), "bind",
		    mysql_stmt_error(st));
	if ((er = exec_store(db, st)) != APP_OK)
		return er;
	db->answers++;
	if (res != NULL && mysql_stmt_bind_result(st, res) != 0) {
		er = fail(db, mysql_stmt_errno(st), "bind result",
		    mysql_stmt_error(st));
		if (db->my != NULL)
			mysql_stmt_free_result(st);
		return er;
	}
	return APP_OK;
}

/*
 * One attempt of db_run(): prepare on first use, bind, execute, fetch.
 */
static enum app_err
run_once(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    int *has_row)
{
	MYSQL_STMT	*st;
	enum app_err	 er;
	int		 rc;

	db->last_errno = 0;
	call_begin(db);
	if ((er = execute(db, s, param, res, &st)) != APP_OK)
		return er;
	if (res == NULL) {
		/* A statement with rows nobody asked for: drop them. */
		if (mysql_stmt_field_count(st) > 0)
			mysql_stmt_free_result(st);
		return APP_OK;
	}
	rc = mysql_stmt_fetch(st);
	if (rc == 1) {
		er = fail(db, mysql_stmt_errno(st), "fetch",
		    mysql_stmt_error(st));
		if (db->my != NULL)
			mysql_stmt_free_result(st);
		return er;
	}
	/* MYSQL_DATA_TRUNCATED: a column longer than its buffer. */
	if (rc == MYSQL_DATA_TRUNCATED) {
		log_warnx("db fetch: column truncated in statement %d", (int)s);
		mysql_stmt_free_result(st);
		return APP_DB;
	}
	*has_row = rc == 0;
	mysql_stmt_free_result(st);
	return APP_OK;
}

/*
 * Whether a read that failed with APP_DB_DOWN may run again at once:
 * its connection was lost (closed now), outside a transaction, with
 * time left.
 */
static int
may_retry(struct db *db, int was_connected, enum stmt s)
{
	return was_connected && db->my == NULL && stmts[s].reads &&
	    !db->in_tx && !no_time(db);
}

enum app_err
db_run(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    int *has_row)
{
	enum app_err	 er;
	int		 was_connected = db->my != NULL;

	er = run_once(db, s, param, res, has_row);
	if (er == APP_DB_DOWN && may_retry(db, was_connected, s)) {
		db->next_try_ms = 0;
		er = run_once(db, s, param, res, has_row);
	}
	return er;
}

/*
 * One attempt of db_run_each().  Sets *rows to the number of rows handed
 * to row().
 */
static enum app_err
run_each_once(struct db *db, enum stmt s, MYSQL_BIND *param,
    MYSQL_BIND *res, int (*row)(void *), void *arg, size_t *rows)
{
	MYSQL_STMT	*st;
	enum app_err	 er;
	int		 rc;

	*rows = 0;
	db->last_errno = 0;
	call_begin(db);
	if ((er = execute(db, s, param, res, &st)) != APP_OK)
		return er;
	/* After a refused row, the rest is still fetched (and dropped). */
	while ((rc = mysql_stmt_fetch(st)) == 0) {
		(*rows)++;
		if (er == APP_OK && row(arg) == -1)
			er = APP_ENOMEM;
	}
	if (er == APP_OK && rc == 1) {
		er = fail(db, mysql_stmt_errno(st), "fetch",
		    mysql_stmt_error(st));
		if (db->my == NULL)
			return er;
	} else if (er == APP_OK && rc == MYSQL_DATA_TRUNCATED) {
		log_warnx("db fetch: column truncated in statement %d", (int)s);
		er = APP_DB;
	}
	mysql_stmt_free_result(st);
	return er;
}

enum app_err
db_run_each(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    int (*row)(void *), void *arg)
{
	enum app_err	 er;
	int		 was_connected = db->my != NULL;
	size_t		 rows;

	er = run_each_once(db, s, param, res, row, arg, &rows);
	if (er == APP_DB_DOWN && rows == 0 &&
	    may_retry(db, was_connected, s)) {
		db->next_try_ms = 0;
		er = run_each_once(db, s, param, res, row, arg, &rows);
	}
	return er;
}

unsigned int
db_last_errno(struct db *db)
{
	return db->last_errno;
}

int64_t
db_affected(struct db *db, enum stmt s)
{
	return db->st[s] != NULL ? (int64_t)mysql_stmt_affected_rows(db->st[s])
	    : 0;
}

int64_t
db_insert_id(struct db *db, enum stmt s)
{
	return db->st[s] != NULL ? (int64_t)mysql_stmt_insert_id(db->st[s])
	    : 0;
}

void
db_bind_now(MYSQL_BIND *b, int64_t *v)
{
	static my_bool	 is_null = 1;

	db_bind_int(b, v);
	if (*v == DB_NOW)
		b->is_null = &is_null;
}

/*
 * The offset's error bound grows by 1 us per CLOCK_AGE_US of its age
 * (100 ppm): clocks drift (far less than this), and a better sample
 * should win over an old one eventually.
 */
#define CLOCK_AGE_US	10000

void
db_clock_sample(struct db *db, int64_t before_us, int64_t db_us)
{
	int64_t	 after = now_us(), offset, bound, held;

	/*
	 * The server's NOW(6) lies about half a round trip back, give or
	 * take half of it.  Keep the sample with the smallest error bound,
	 * as NTP does: every process of every host then holds the offset
	 * to within tens of microseconds on a local network, far less than
	 * the time between two requests of one client, so that two
	 * processes never disagree about serving, a function of time, as
	 * seen by a client that asks one and then the other.
	 */
	offset = db_us - (before_us + (after - before_us) / 2);
	bound = (after - before_us) / 2 + 1;
	if (db->offset_at_us != 0) {
		held = db->offset_bound_us +
		    (after - db->offset_at_us) / CLOCK_AGE_US;
		/*
		 * Worse than the one held, and consistent with it: keep
		 * that.  An inconsistent sample means that the database's
		 * clock stepped or another node answers: take it.
		 */
		if (bound > held && llabs(offset - db->offset_us) <=
		    bound + held)
			return;
	}
	db->offset_us = offset;
	db->offset_bound_us = bound;
	db->offset_at_us = after;
}

int64_t
db_clock_ms(struct db *db)
{
	int64_t	 t;

	if (db == NULL)
		return now_ms();
	t = (now_us() + db->offset_us) / 1000;
	/*
	 * A new sample may move the estimate back by a little (jitter of
	 * the round trip): never let this process's time step back by
	 * less than a second, so that serving, a function of time, never
	 * looks as if it went backward.  A larger step is a real
	 * correction (e.g. the first sample) and is taken.
	 */
	if (t < db->last_clock_ms && db->last_clock_ms - t < 1000)
		return db->last_clock_ms;
	db->last_clock_ms = t;
	return t;
}

enum app_err
db_now_ms(struct db *db, int64_t *out)
{
	MYSQL_BIND	 r[1];
	int64_t		 t0 = now_us(), v = 0;
	int		 has = 0;
	enum app_err	 er;

	db_bind_int(&r[0], &v);
	if ((er = db_run(db, STMT_NOW, NULL, r, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_DB;
	db_clock_sample(db, t0, v);
	*out = v / 1000;
	return APP_OK;
}

void
db_bind_int(MYSQL_BIND *b, int64_t *v)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_LONGLONG;
	b->buffer = v;
}

void
db_bind_str(MYSQL_BIND *b, const char *s, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = (void *)(uintptr_t)s;
	*len = s != NULL ? strlen(s) : 0;
	b->buffer_length = *len;
	b->length = len;
	if (s == NULL) {
		static my_bool is_null = 1;
		b->buffer_type = MYSQL_TYPE_NULL;
		b->is_null = &is_null;
	}
}

void
db_bind_blob(MYSQL_BIND *b, const void *p, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_BLOB;
	b->buffer = (void *)(uintptr_t)p;
	b->buffer_length = *len;
	b->length = len;
}

enum app_err
db_migration_applied(struct db *db, int64_t v, int *applied)
{
	MYSQL_BIND	 p[1], r[1];
	int64_t		 n = 0;
	int		 has = 0;
	enum app_err	 er;

	db_bind_int(&p[0], &v);
	db_bind_int(&r[0], &n);
	if ((er = db_run(db, STMT_MIGRATION_APPLIED, p, r, &has)) != APP_OK)
		return er;
	*applied = has && n > 0;
	return APP_OK;
}

enum app_err
db_migration_record(struct db *db, int64_t v, const char *name)
{
	MYSQL_BIND	 p[2];
	unsigned long	 len;

	db_bind_int(&p[0], &v);
	db_bind_str(&p[1], name, &len);
	return db_run(db, STMT_MIGRATION_RECORD, p, NULL, NULL);
}

enum app_err
db_migration_table(struct db *db)
{
	return db_run(db, STMT_MIGRATION_TABLE, NULL, NULL, NULL);
}

const char *
db_charset(struct db *db)
{
	return db->my != NULL ? mysql_character_set_name(db->my) : NULL;
}
