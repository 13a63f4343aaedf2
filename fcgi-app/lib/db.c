/*
 * db.c - the statements' life on one connection: prepare on first use
 * (the table is db-stmt.c's), run, bind, transactions, the database's
 * clock as this process estimates it, the migrations' bookkeeping.
 * The connection is db-conn.c's, its non-blocking mode db-async.c's.
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
#include "db-slots.h"
#include "log.h"

static int	 node_ready(struct db *);

enum app_err
dbe_connect(struct db *db)
{
	const struct cfg	*c = db->cfg;
	unsigned int		 to = (unsigned int)c->db_timeout_s;
	char			 host[256];
	const char		*h;
	unsigned int		 port;
	int			 i, n;

	if (c->db_hosts[0] == '\0')
		return dbe_connect_to(db, c->db_host[0] != '\0' ?
		    c->db_host : NULL, (unsigned int)c->db_port,
		    c->db_socket[0] != '\0' ? c->db_socket : NULL, to);
	/*
	 * A cluster: the first node that answers, in the listed order, so
	 * that every process writes through the same node while it is up
	 * (the counter row is written on one node: no certification
	 * conflicts between nodes), and through the next one when it is
	 * gone.  (No node while trying: no failback from inside.)
	 */
	db->node = -1;
	for (i = 0, h = c->db_hosts; *h != '\0'; i++) {
		if ((n = cfg_hosts_entry(&h, c->db_port, host, sizeof(host),
		    &port)) == -1)
			break;
		if (n == 0)
			continue;
		if (dbe_connect_to(db, host, port, NULL, to) != APP_OK)
			continue;
		if (!node_ready(db)) {
			log_warnx("db: node %d of db-hosts (%s:%u) is not "
			    "ready for queries (Galera: joining, or not in "
			    "the majority); trying the next", i + 1, host,
			    port);
			dbe_disconnect(db);
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
	if (dbe_run_once(db, STMT_WSREP_NOT_READY, NULL, res, &has) != APP_OK ||
	    db->my == NULL)
		return 0;
	return has && not_ready == 0;
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
	if ((er = dbe_run_once(db, STMT_SESSION_LOCK_WAIT, p, NULL, NULL)) !=
	    APP_OK)
		return er;
	if (!mariadb_connection(db->my))
		return APP_OK;
	memset(&p[0], 0, sizeof(p[0]));
	p[0].buffer_type = MYSQL_TYPE_DOUBLE;
	p[0].buffer = &stmt_s;
	return dbe_run_once(db, STMT_SESSION_STATEMENT_TIME, p, NULL, NULL);
}

void
dbe_call_begin(struct db *db)
{
	db->until = db->deadline != 0 ? db->deadline : dbe_mono_ms() +
	    db->stmt_ms;
}

enum app_err
dbe_ensure(struct db *db)
{
	int64_t		 now = now_ms();
	enum app_err	 er;

	if ((er = dbe_conn_free(db)) != APP_OK)
		return er;
	if (db->my != NULL)
		return APP_OK;
	if (now < db->next_try_ms ||
	    (db->nonblock && dbe_mono_ms() >= db->until))
		return APP_DB_DOWN;
	/*
	 * A place in the installation's budget first; none free is no
	 * connection now (nothing to hold off: the next call looks again).
	 */
	if (db->budget && (db->slot = dbslots_take(db->cfg)) == DBSLOTS_FULL) {
		db->slot = DBSLOTS_NONE;
		db->last_errno = ER_TOO_MANY_USER_CONNECTIONS;
		if (!db->full_logged++)
			log_warnx("db: all %lld connections of "
			    "db-max-connections are in use by this "
			    "installation; answering without the database "
			    "until one is free", (long long)
			    db->cfg->db_max_connections);
		return APP_DB_DOWN;
	}
	if (dbe_connect(db) != APP_OK ||
	    (db->limits && session_limits(db) != APP_OK)) {
		dbe_disconnect(db);
		db->next_try_ms = now + 1000;
		return APP_DB_DOWN;
	}
	db->next_try_ms = 0;
	db->sessions++;
	db->full_logged = 0;
	return APP_OK;
}

enum app_err
db_ensure(struct db *db)
{
	dbe_call_begin(db);
	return dbe_ensure(db);
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
	if (dbe_conn_lost(e)) {
		dbe_disconnect(db);
		return APP_DB_DOWN;
	}
	return APP_DB;
}

enum app_err
db_exec_static(struct db *db, const char *sql)
{
	enum app_err	 er;
	MYSQL_RES	*res;

	dbe_call_begin(db);
	if (dbe_no_time(db))
		return APP_DB_DOWN;
	if ((er = dbe_ensure(db)) != APP_OK)
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
	dbe_op_begin(db, OP_QUERY, NULL, sql);
	if (dbe_op_wait(db, db->until) == -1)
		return dbe_give_up(db, "query");
	db->op = OP_NONE;
	if (db->op_ret != 0)
		return fail(db, mysql_errno(db->my), "query",
		    mysql_error(db->my));
	dbe_op_begin(db, OP_RESULT, NULL, NULL);
	if (dbe_op_wait(db, db->until) == -1)
		return dbe_give_up(db, "query result");
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
	if (was && dbe_no_time(db)) {
		dbe_disconnect(db);
		return;
	}
	(void)db_exec_static(db, "ROLLBACK");
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
		dbe_op_begin(db, OP_PREPARE, st, sql);
		if (dbe_op_wait(db, db->until) == -1) {
			db->op_s = s;
			return dbe_give_up(db, "prepare");
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

	if ((sql = dbe_stmt_sql(s, &params)) == NULL)
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

	if ((er = dbe_conn_free(db)) != APP_OK)
		return er;
	/*
	 * A connection found dead before anything is sent is replaced at
	 * once: nothing of this statement can have run.
	 */
	if (db->my != NULL && dbe_conn_dead(db)) {
		log_info("db: the connection was closed by the server; "
		    "reconnecting");
		dbe_disconnect(db);
		db->next_try_ms = 0;
	}
	/*
	 * On a later node of db-hosts, try the first (the designated
	 * writer) again now and then, between transactions, so that the
	 * processes do not stay split over two writers after it is back.
	 */
	if (db->my != NULL && db->failback && db->node > 0 && !db->in_tx &&
	    now_ms() >= db->failback_ms) {
		dbe_disconnect(db);
		db->next_try_ms = 0;
	}
	if ((er = dbe_ensure(db)) != APP_OK)
		return er;
	if (db->st[s] == NULL)
		return prepare_one(db, s);
	return APP_OK;
}

/*
 * Execute st (its parameters bound) and, for a statement with a result
 * set, read the whole result into the client (mysql_stmt_store_result),
 * so that fetching it never waits for the server.  In non-blocking mode
 * both end with the caller's time (dbe_give_up()).  Returns APP_OK, else
 * what fail() or dbe_give_up() say.
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
	dbe_op_begin(db, OP_EXECUTE, st, NULL);
	if (dbe_op_wait(db, db->until) == -1)
		return dbe_give_up(db, "execute");
	db->op = OP_NONE;
	if (db->op_ret != 0)
		return fail(db, mysql_stmt_errno(st), "execute",
		    mysql_stmt_error(st));
	if (mysql_stmt_field_count(st) == 0)
		return APP_OK;
	dbe_op_begin(db, OP_STORE, st, NULL);
	if (dbe_op_wait(db, db->until) == -1)
		return dbe_give_up(db, "read");
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

	if (dbe_no_time(db))
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

enum app_err
dbe_run_once(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    int *has_row)
{
	MYSQL_STMT	*st;
	enum app_err	 er;
	int		 rc;

	db->last_errno = 0;
	dbe_call_begin(db);
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
	return was_connected && db->my == NULL && dbe_stmt_reads(s) &&
	    !db->in_tx && !dbe_no_time(db);
}

enum app_err
db_run(struct db *db, enum stmt s, MYSQL_BIND *param, MYSQL_BIND *res,
    int *has_row)
{
	enum app_err	 er;
	int		 was_connected = db->my != NULL;

	er = dbe_run_once(db, s, param, res, has_row);
	if (er == APP_DB_DOWN && may_retry(db, was_connected, s)) {
		db->next_try_ms = 0;
		er = dbe_run_once(db, s, param, res, has_row);
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
	dbe_call_begin(db);
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
db_bind_opt_int(MYSQL_BIND *b, int64_t *v)
{
	static my_bool	 is_null = 1;

	db_bind_int(b, v);
	if (*v == 0)
		b->is_null = &is_null;
}

void
db_bind_res_str(MYSQL_BIND *b, char *buf, size_t cap, unsigned long *len,
    my_bool *isnull)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = cap;
	b->length = len;
	b->is_null = isnull;
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
