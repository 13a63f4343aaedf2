/*
 * db-stmt.c - the statement table: every statement's SQL, the parameters
 * its caller binds (checked when it is prepared), and whether it only
 * reads; the statements generated from the queue field table.  No SQL
 * text is ever built from input.
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
#include "db-engine.h"
#include "db-private.h"
#include "db-join-sql.h"
#include "log.h"
#include "queue-fields.h"

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
	DBNOW_US_SQL ", COALESCE(opens_at_ms, 0), draw_open, draw_count, " \
	"rand_from, rand_to, rand_block"

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
	"claim_front1 = ?, claim_dead = ?, rand_from = ?, rand_to = ?, " \
	"rand_block = ?"

/* The opening's columns of a whole row's write (db-queue.c's order). */
#define DRAW_SET_SQL "opens_at_ms = NULLIF(?, 0), draw_open = ?, " \
	"draw_count = ?, draw_seed_sealed = ?, " \
	"draw_seed_hash = NULLIF(?, ''), draw_arm = draw_arm + ?"

/*
 * A named lock of this installation: the bound base name (at most 23
 * characters), ':' and the database's name (its MD5 when longer than 40
 * characters), so that installations sharing one server never share a
 * lock, and the name stays within MySQL's 64 characters.
 */
#define LOCK_SQL "CONCAT(?, ':', IF(CHAR_LENGTH(COALESCE(DATABASE(), " \
	"'')) <= 40, COALESCE(DATABASE(), ''), MD5(DATABASE())))"

/* A bypass code's row, in db-bypass.c's order (b: bypass_code, q). */
#define BYPASS_COLS "b.id, b.queue_id, q.slug, b.label, " \
	"COALESCE(b.use_limit, 0), b.uses, COALESCE(b.expires_ms, 0), " \
	"b.disabled, b.created_ms, " DBNOW_SQL

/* A load test's row (struct lt_run, db-loadtest.c's order). */
#define LT_COLS "l.id, l.queue_id, q.slug, l.profile, l.rate_per_s, " \
	"l.duration_s, l.requested_by, l.status, l.runner, l.created_ms, " \
	"COALESCE(l.started_ms, 0), COALESCE(l.finished_ms, 0), l.sent, " \
	"l.ok, l.errors, l.p50_us, l.p95_us, l.p99_us, l.flagged, " \
	"l.flag_reason, l.elapsed_ms, l.error, " DBNOW_SQL ", l.joins, " \
	"l.polls, l.claims, COALESCE(l.replay_queue_id, 0), " \
	"COALESCE(rq.slug, ''), COALESCE(l.replay_from_ms, 0), " \
	"COALESCE(l.replay_to_ms, 0), l.replay_speed_milli, " \
	"l.replay_volume_milli, COALESCE(l.served_by, '')"
/* The tables of LT_COLS. */
#define LT_FROM "loadtest l JOIN queue q ON q.id = l.queue_id LEFT JOIN " \
	"queue rq ON rq.id = l.replay_queue_id"

/* A load-test schedule's row (struct lt_schedule, db-loadtest.c). */
#define LTS_COLS "s.id, s.queue_id, q.slug, s.profile, s.rate_per_s, " \
	"s.duration_s, s.every_min, s.weekday, s.at_min, s.time_zone, " \
	"s.next_ms, s.created_by, s.created_ms, COALESCE(s.last_run_id, 0)"

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
	 * STMT_QUEUE_SEALABLE: a plain read, locking nothing: the queues
	 * whose L lies inside a block of their random order that it does
	 * not fill (adm_seal_due() decides under the row lock).
	 */
	[STMT_QUEUE_SEALABLE] = { 1, 1,
	    "SELECT id FROM queue WHERE id > ? AND rand_from > 0 AND "
	    "last_number >= rand_from AND (rand_to = 0 OR last_number < "
	    "rand_to - 1) AND (last_number - rand_from + 1) MOD rand_block "
	    "<> 0 AND (active NOT IN (0, 2) OR pend_at_ms > 0) ORDER BY id "
	    "LIMIT 64" },
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
	 * 5. issue L + 1 (on hold, active 2: GREATEST(L, serving) + 1,
	 *    past serving, never admitted) and return it through
	 *    LAST_INSERT_ID() as number * 2 + admitted (adm_admitted() on
	 *    the new state), so that the caller needs no second round
	 *    trip.  Numbers stay below 2^40.
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
	[STMT_QUEUE_JOIN] = { 4, 0, JOIN_SQL("1", "") },
	/*
	 * STMT_QUEUE_LEASE: number blocks, exactly adm_lease(): the join
	 * issuing n numbers at once (L + 1 .. L + n; LAST_INSERT_ID() gives
	 * L + n, and whether L + 1 is admitted), only where adm_lease_ok()
	 * holds (fifo or passthrough, no pre-queue collecting, no random
	 * order open) and numberBlock is still on (a process's copy of the
	 * settings may lag).  Parameters: now, n, id, now, deadline.
	 */
	[STMT_QUEUE_LEASE] = { 5, 0, JOIN_SQL("?", " AND number_block > 1 "
	    "AND active IN (1, 3) AND COALESCE(draw_open, 0) = 0 AND "
	    "(rand_from = 0 OR (rand_to > 0 AND last_number >= "
	    "rand_to - 1))") },
	/* STMT_QUEUE_UNUSED_ADD: a lease's numbers handed to nobody. */
	[STMT_QUEUE_UNUSED_ADD] = { 3, 0,
	    "UPDATE queue SET lease_unused = lease_unused + ?, "
	    "lease_unused_total = lease_unused_total + ? WHERE id = ?" },
	/* STMT_QUEUE_UNUSED_DUE: a plain read, locking nothing. */
	[STMT_QUEUE_UNUSED_DUE] = { 0, 1,
	    "SELECT id FROM queue WHERE lease_unused > 0 AND active NOT IN "
	    "(0, 2) LIMIT 64" },
	/* STMT_QUEUE_UNUSED_GET: inside the transaction that locked the row. */
	[STMT_QUEUE_UNUSED_GET] = { 1, 1,
	    "SELECT lease_unused, abandon FROM queue WHERE id = ?" },
	[STMT_QUEUE_UNUSED_SUB] = { 2, 0,
	    "UPDATE queue SET lease_unused = lease_unused - ? WHERE id = ?" },
	/*
	 * STMT_QUEUE_INSERT: a new row whole, in the order of
	 * STMT_QUEUE_WRITE (the slug and the keys first, last_number and
	 * the tick ring after the admission state).
	 */
	[STMT_QUEUE_INSERT] = { 3 + 21 + 5 + 6, 0,
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
	[STMT_QUEUE_SET_STATE] = { 21 + 1, 0,
	    "UPDATE queue SET " ADM_SET_SQL ", state_ms = " DBNOW_SQL
	    " WHERE id = ?" },
	/*
	 * STMT_QUEUE_SEAL: the worker seals a block of the random order
	 * (adm_seal()) inside the transaction that locked the row: the
	 * admission state, then L and the tick ring as a join moves them.
	 */
	[STMT_QUEUE_SEAL] = { 21 + 5 + 1, 0,
	    "UPDATE queue SET " ADM_SET_SQL ", last_number = ?, tick = ?, "
	    "l_tick = ?, l_tick1 = ?, l_tick2 = ?, state_ms = " DBNOW_SQL
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
	[STMT_QUEUE_WRITE] = { 21 + 6 + 1, 0,
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
	    "SELECT IF(IS_USED_LOCK(" LOCK_SQL ") = CONNECTION_ID(), 1, "
	    "COALESCE(GET_LOCK(" LOCK_SQL ", 0), 0))" },
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
	[STMT_STATS_PURGE] = { 2, 0,
	    "DELETE FROM queue_stats WHERE sampled_ms < ? LIMIT ?" },
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
	/* With the newest log-in of each user's audit rows (0: none). */
	[STMT_ADMIN_USER_LIST] = { 0, 1,
	    "SELECT u.id, u.name, u.password_hash, u.created_ms, u.disabled, "
	    "COALESCE((SELECT MAX(a.at_ms) FROM audit_log a "
	    "WHERE a.action = 'login' AND a.actor_kind = 'user' "
	    "AND a.actor_id = u.id), 0) "
	    "FROM admin_user u ORDER BY u.name" },
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
	    "active IN (1, 4) AND draw_open = 0 ORDER BY slug" },
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
	    "SELECT COALESCE(GET_LOCK(" LOCK_SQL ", 0), 0)" },
	[STMT_LEADER_CHECK] = { 1, 0,
	    "SELECT COALESCE(IS_USED_LOCK(" LOCK_SQL ") = CONNECTION_ID(), "
	    "0)" },
	[STMT_LEADER_RELEASE] = { 1, 0,
	    "SELECT COALESCE(RELEASE_LOCK(" LOCK_SQL "), 0)" },
	/*
	 * For the operator (aqueuectl doctor): which session holds a lock
	 * of this installation (0: none); the connections this account may
	 * hold (the session's max_user_connections is the account's own
	 * limit when it has one, else the server's; 0: no limit), the
	 * server's max_connections, and how many it holds now (an account
	 * sees only its own sessions in the process list).
	 */
	[STMT_LEADER_HOLDER] = { 1, 0,
	    "SELECT COALESCE(IS_USED_LOCK(" LOCK_SQL "), 0)" },
	[STMT_CONN_LIMITS] = { 0, 0,
	    "SELECT @@max_user_connections, @@max_connections, "
	    "(SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE "
	    "USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1))" },
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
	[STMT_AR_LOG_PRUNE] = { 2, 0,
	    "DELETE FROM autorate_log WHERE at_ms < ? LIMIT ?" },
	/*
	 * The fairness report: a number's first token (never a second row),
	 * the queue's samples and served numbers since a time.
	 */
	[STMT_SERVED_ADD] = { 3 * SERVED_BATCH, 0,
	    "INSERT IGNORE INTO queue_served (queue_id, number, served_ms) "
	    "VALUES " SERVED_ROWS16 ", " SERVED_ROWS16 ", " SERVED_ROWS16
	    ", " SERVED_ROWS16 },
	[STMT_SERVED_PRUNE] = { 2, 0,
	    "DELETE FROM queue_served WHERE served_ms < ? LIMIT ?" },
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
	    "a.queue_id = q.id), 0), q.lease_unused_total FROM queue q "
	    "WHERE q.id = ?" },
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
	/* STMT_TEMPLATE_*: a queue's custom template (db-template.c). */
	[STMT_TEMPLATE_GET] = { 1, 1,
	    "SELECT html FROM queue_template WHERE queue_id = ?" },
	[STMT_TEMPLATE_PUT] = { 2, 0,
	    "INSERT INTO queue_template (queue_id, html, updated_ms) VALUES "
	    "(?, ?, " DBNOW_SQL ") ON DUPLICATE KEY UPDATE html = "
	    "VALUES(html), updated_ms = VALUES(updated_ms)" },
	[STMT_TEMPLATE_DELETE] = { 1, 0,
	    "DELETE FROM queue_template WHERE queue_id = ?" },
	/*
	 * STMT_LT_*: load tests (db-loadtest.c).  A claim takes the oldest
	 * pending run and leaves its id in LAST_INSERT_ID(); a runner that
	 * stopped reporting leaves its run failed (STMT_LT_STALE, the
	 * parameter in ms).
	 */
	[STMT_LT_INSERT] = { 10, 0,
	    "INSERT INTO loadtest (queue_id, profile, rate_per_s, duration_s, "
	    "requested_by, replay_queue_id, replay_from_ms, replay_to_ms, "
	    "replay_speed_milli, replay_volume_milli, created_ms) VALUES (?, "
	    "?, ?, ?, ?, NULLIF(?, 0), NULLIF(?, 0), NULLIF(?, 0), ?, ?, "
	    DBNOW_SQL ")" },
	[STMT_LT_GET] = { 1, 1,
	    "SELECT " LT_COLS " FROM " LT_FROM " WHERE l.id = ?" },
	[STMT_LT_LIST] = { 3, 1,
	    "SELECT " LT_COLS " FROM " LT_FROM " WHERE ? = 0 OR l.queue_id "
	    "= ? ORDER BY l.id DESC LIMIT ?" },
	[STMT_LT_SECONDS] = { 1, 1,
	    "SELECT sec, sent, ok, errors, p50_us, p95_us, p99_us FROM "
	    "loadtest_second WHERE loadtest_id = ? ORDER BY sec" },
	[STMT_LT_STALE] = { 1, 0,
	    "UPDATE loadtest SET status = 'failed', finished_ms = "
	    DBNOW_SQL ", error = 'its runner stopped reporting (the worker "
	    "stopped or was restarted)' WHERE status = 'running' AND "
	    "heartbeat_ms < " DBNOW_SQL " - ?" },
	[STMT_LT_CLAIM] = { 1, 0,
	    "UPDATE loadtest SET status = 'running', runner = ?, started_ms "
	    "= " DBNOW_SQL ", heartbeat_ms = " DBNOW_SQL ", id = "
	    "LAST_INSERT_ID(id) WHERE status = 'pending' ORDER BY id LIMIT 1" },
	[STMT_LT_PROGRESS] = { 11, 0,
	    "UPDATE loadtest l JOIN queue q ON q.id = l.queue_id SET l.sent "
	    "= ?, l.ok = ?, l.errors = ?, l.p50_us = ?, l.p95_us = ?, "
	    "l.p99_us = ?, l.elapsed_ms = ?, l.joins = ?, l.polls = ?, "
	    "l.claims = ?, l.heartbeat_ms = " DBNOW_SQL " WHERE l.id = ? "
	    "AND l.status = 'running' AND q.load_test_queue = 1" },
	[STMT_LT_SECOND] = { 8, 0,
	    "INSERT INTO loadtest_second (loadtest_id, sec, sent, ok, errors, "
	    "p50_us, p95_us, p99_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[STMT_LT_FINISH] = { 7, 0,
	    "UPDATE loadtest SET status = ?, error = ?, flagged = ?, "
	    "flag_reason = ?, served_by = NULLIF(?, ''), finished_ms = "
	    DBNOW_SQL " WHERE id = ? AND status = 'running' AND runner = ?" },
	[STMT_LT_PRIOR] = { 10, 1,
	    "SELECT p95_us, CAST(errors * 1000000 DIV GREATEST(sent, 1) AS "
	    "SIGNED) FROM loadtest WHERE queue_id = ? AND profile = ? AND "
	    "rate_per_s = ? AND duration_s = ? AND COALESCE(replay_queue_id, "
	    "0) = ? AND COALESCE(replay_from_ms, 0) = ? AND "
	    "COALESCE(replay_to_ms, 0) = ? AND replay_speed_milli = ? AND "
	    "replay_volume_milli = ? AND status = 'done' AND id < ? ORDER BY "
	    "id DESC LIMIT 10" },
	[STMT_LT_LATEST] = { 0, 1,
	    "SELECT " LT_COLS " FROM " LT_FROM " WHERE l.id IN (SELECT "
	    "MAX(id) FROM loadtest WHERE status = 'done' GROUP BY queue_id, "
	    "profile) ORDER BY q.slug, l.profile" },
	/*
	 * STMT_LTS_*: load-test schedules.  STMT_LTS_INSERT's next_ms
	 * parameter NULL: now (an interval's first run).  STMT_LTS_ADVANCE
	 * moves a due schedule on only from the next_ms it was read with.
	 */
	[STMT_LTS_INSERT] = { 10, 0,
	    "INSERT INTO loadtest_schedule (queue_id, profile, rate_per_s, "
	    "duration_s, every_min, weekday, at_min, time_zone, next_ms, "
	    "created_by, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
	    "COALESCE(?, " DBNOW_SQL "), ?, " DBNOW_SQL ")" },
	[STMT_LTS_LIST] = { 0, 1,
	    "SELECT " LTS_COLS " FROM loadtest_schedule s JOIN queue q ON "
	    "q.id = s.queue_id ORDER BY s.id" },
	[STMT_LTS_GET] = { 1, 1,
	    "SELECT " LTS_COLS " FROM loadtest_schedule s JOIN queue q ON "
	    "q.id = s.queue_id WHERE s.id = ?" },
	[STMT_LTS_DELETE] = { 1, 0,
	    "DELETE FROM loadtest_schedule WHERE id = ?" },
	[STMT_LTS_DUE] = { 0, 1,
	    "SELECT " LTS_COLS " FROM loadtest_schedule s JOIN queue q ON "
	    "q.id = s.queue_id WHERE s.next_ms <= " DBNOW_SQL " ORDER BY "
	    "s.next_ms LIMIT 8" },
	[STMT_LTS_ADVANCE] = { 4, 0,
	    "UPDATE loadtest_schedule SET next_ms = ?, last_run_id = "
	    "NULLIF(?, 0) WHERE id = ? AND next_ms = ?" },
};

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

const char *
dbe_stmt_sql(enum stmt s, unsigned int *params)
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

int
dbe_stmt_reads(enum stmt s)
{
	return stmts[s].reads;
}
