/*
 * db-async.c - the connection in non-blocking mode (db_nonblocking()):
 * every call within its caller's time, a statement given up on finished
 * in the background, the late outcomes of tracked statements.
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
#include "db-slots.h"
#include "db-private.h"
#include "log.h"

int64_t
dbe_mono_ms(void)
{
	return mono_ms();
}

int
dbe_conn_lost(unsigned int e)
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

void
dbe_op_begin(struct db *db, enum op op, MYSQL_STMT *st, const char *sql)
{
	db->op = op;
	db->op_st = st;
	db->op_since = dbe_mono_ms();
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

int
dbe_op_wait(struct db *db, int64_t until)
{
	struct pollfd	 pfd;
	int64_t		 left;
	unsigned int	 lib;
	int		 n, tmo, by_lib;

	while (db->op_wait != 0) {
		if ((left = until - dbe_mono_ms()) <= 0)
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

void
dbe_late_push(struct db *db, int unknown)
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

enum app_err
dbe_give_up(struct db *db, const char *what)
{
	db->last_errno = 0;
	if (db->in_tx || db->op == OP_CONNECT || db->op == OP_QUERY ||
	    db->op == OP_RESULT ||
	    (db->op == OP_PREPARE && db->op_s == STMT__MAX)) {
		log_warnx("db %s: no answer in time; closing the connection",
		    what);
		dbe_disconnect(db);
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
	dbe_disconnect(db);
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
			(void)dbe_stmt_sql(db->op_s, &params);
		if (e == 0 && db->op_s < STMT__MAX &&
		    db->st[db->op_s] == NULL &&
		    mysql_stmt_param_count(st) == params) {
			db->st[db->op_s] = st;
			db->answers++;
		} else if (dbe_conn_lost(e)) {
			bg_lost(db, "the connection broke during a prepare",
			    0);
			return;
		} else
			mysql_stmt_close(st);
		break;
	case OP_EXECUTE:
		if (db->op_ret != 0) {
			e = mysql_stmt_errno(st);
			if (dbe_conn_lost(e)) {
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
			dbe_op_begin(db, OP_STORE, st, NULL);
			db->op_since = since;
			return;
		}
		if (db->op_track != 0)
			dbe_late_push(db, 0);
		break;
	case OP_STORE:
		if (db->op_ret != 0 && dbe_conn_lost(mysql_stmt_errno(st))) {
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
		now = dbe_mono_ms();
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

enum app_err
dbe_conn_free(struct db *db)
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

	db->deadline = ms > 0 ? dbe_mono_ms() + ms : 0;
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
	return dbe_mono_ms();
}

void
db_deadline_resume(struct db *db, int64_t paused)
{
	if (db->deadline != 0)
		db->deadline += dbe_mono_ms() - paused;
}

int64_t
db_time_left_ms(struct db *db)
{
	if (db->deadline == 0)
		return db->stmt_ms;
	return db->deadline - dbe_mono_ms();
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
		(void)bg_run(db, wait_ms > 0 ? dbe_mono_ms() + wait_ms : 0);
}

uint64_t
db_answers(const struct db *db)
{
	return db->answers;
}

uint64_t
db_session(const struct db *db)
{
	return db->my != NULL ? db->sessions : 0;
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

int
dbe_no_time(struct db *db)
{
	return db->nonblock && db->deadline != 0 &&
	    dbe_mono_ms() >= db->deadline;
}

void
dbe_disconnect(struct db *db)
{
	size_t	 i;

	if (db->op != OP_NONE) {
		if (db->op_track != 0)
			dbe_late_push(db, 1);
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
	dbslots_give(db->slot);
	db->slot = DBSLOTS_NONE;
}
