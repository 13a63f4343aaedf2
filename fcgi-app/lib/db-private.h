/*
 * db-private.h - the statement table and the run helper shared by db.c
 * and db-<entity>.c.  Not for use outside the db-* files.
 */
#ifndef DB_PRIVATE_H
#define DB_PRIVATE_H

#include <mysql.h>

#include "db.h"

enum stmt {
	STMT_QUEUE_GET,
	STMT_QUEUE_GET_LOCKED,
	STMT_QUEUE_STATE,
	STMT_QUEUE_STATE_LOCKED,
	STMT_QUEUE_DUE,
	STMT_QUEUE_JOIN,
	STMT_QUEUE_LEASE,
	STMT_QUEUE_UNUSED_ADD,
	STMT_QUEUE_UNUSED_DUE,
	STMT_QUEUE_UNUSED_GET,
	STMT_QUEUE_UNUSED_SUB,
	STMT_QUEUE_INSERT,
	STMT_QUEUE_SET_STATE,
	STMT_QUEUE_SEAL,
	STMT_QUEUE_SEALABLE,
	STMT_QUEUE_SET_SECRET,
	STMT_MIGRATION_APPLIED,
	STMT_MIGRATION_RECORD,
	STMT_QUEUE_LIST,
	STMT_QUEUE_DELETE,
	STMT_QUEUE_WRITE,
	STMT_MIGRATION_TABLE,
	STMT_SESSION_LOCK_WAIT,
	STMT_SESSION_STATEMENT_TIME,
	STMT_NOW,
	STMT_INSTANCE_UPSERT,
	STMT_INSTANCE_DELETE,
	STMT_INSTANCE_PURGE,
	STMT_INSTANCE_LIST,
	STMT_STATS_LOCK,
	STMT_STATS_PREV,
	STMT_STATS_FIRST,
	STMT_STATS_INSERT,
	STMT_STATS_PURGE,
	STMT_STATS_SERIES,
	STMT_ADMIN_USER_INSERT,
	STMT_ADMIN_USER_GET,
	STMT_ADMIN_USER_LIST,
	STMT_ADMIN_USER_SET_HASH,
	STMT_ADMIN_USER_SET_DISABLED,
	STMT_ADMIN_SESSION_INSERT,
	STMT_ADMIN_SESSION_GET,
	STMT_ADMIN_SESSION_TOUCH,
	STMT_ADMIN_SESSION_DELETE,
	STMT_ADMIN_SESSION_END_USER,
	STMT_ADMIN_SESSION_PURGE,
	STMT_LOGIN_FAIL_INSERT,
	STMT_LOGIN_FAIL_PURGE,
	STMT_LOGIN_RESET_USER,
	STMT_DRAW_SEEDLESS,
	STMT_DRAW_SET_SEED,
	STMT_DRAW_CLOSE,
	STMT_DRAW_DUE,
	STMT_DRAW_NEXT,
	STMT_PRESENCE_SEEN,
	STMT_ABANDON_QUEUES,
	STMT_ABANDON_MARKS,
	STMT_ABANDON_PRESENT,
	STMT_ABANDON_MARK_RANGE,
	STMT_PRESENCE_PRUNE,
	STMT_ISSUE_MARK_ADD,
	STMT_ISSUE_MARK_GET,
	STMT_ISSUE_MARK_PRUNE,
	STMT_ABANDON_SAVE,
	STMT_LEADER_GET,
	STMT_LEADER_CHECK,
	STMT_LEADER_RELEASE,
	STMT_LEADER_HOLDER,
	STMT_CONN_LIMITS,
	STMT_AR_GET,
	STMT_AR_SAVE,
	STMT_AR_STATE,
	STMT_AR_TESTED,
	STMT_AR_ENABLE,
	STMT_AR_LIST_ENABLED,
	STMT_AR_LOG_ADD,
	STMT_AR_LOG_LIST,
	STMT_AR_LOG_PRUNE,
	STMT_SERVED_ADD,
	STMT_SERVED_PRUNE,
	STMT_FAIR_SAMPLES,
	STMT_FAIR_SERVED,
	STMT_QUEUE_GET_BY_ID,
	STMT_QUEUE_LIST_PAGE,
	STMT_AUDIT_INSERT,
	STMT_AUDIT_LIST,
	STMT_KEY_INSERT,
	STMT_KEY_LIST,
	STMT_KEY_BY_HASH,
	STMT_KEY_TOUCH,
	STMT_KEY_GET_LOCKED,
	STMT_KEY_REVOKE,
	STMT_QUEUE_TIMES,
	STMT_WSREP_NOT_READY,
	/* Protection: log-in throttling, VIP bypass codes. */
	STMT_LOGIN_STATS,
	STMT_BYPASS_INSERT,
	STMT_BYPASS_LIST,
	STMT_BYPASS_GET_LOCKED,
	STMT_BYPASS_SET_DISABLED,
	STMT_BYPASS_DELETE,
	STMT_BYPASS_REDEEM,
	STMT_BYPASS_WHY,
	STMT_BYPASS_FAIL_COUNT,
	STMT_BYPASS_FAIL_INSERT,
	STMT_BYPASS_FAIL_PURGE,
	/* A queue's custom waiting-room template (db-template.c). */
	STMT_TEMPLATE_GET,
	STMT_TEMPLATE_PUT,
	STMT_TEMPLATE_DELETE,
	/* Load tests (db-loadtest.c). */
	STMT_LT_INSERT,
	STMT_LT_GET,
	STMT_LT_LIST,
	STMT_LT_SECONDS,
	STMT_LT_STALE,
	STMT_LT_CLAIM,
	STMT_LT_PROGRESS,
	STMT_LT_SECOND,
	STMT_LT_FINISH,
	STMT_LT_PRIOR,
	STMT_LT_LATEST,
	STMT_LTS_INSERT,
	STMT_LTS_LIST,
	STMT_LTS_GET,
	STMT_LTS_DELETE,
	STMT_LTS_DUE,
	STMT_LTS_ADVANCE,
	STMT__MAX
};

/*
 * Execute statement s with the given parameter binds (count must match
 * the statement) and, when res is not NULL, bind res and fetch the first
 * row into it (*has_row set to 1, or 0 when there is none; the rest of
 * the result is discarded).  A read statement is retried once after a
 * lost connection; a write statement never is.
 * Returns APP_OK, APP_DB (logged with mysql_stmt_error) or APP_DB_DOWN.
 */
enum app_err db_run(struct db *, enum stmt s, MYSQL_BIND *param,
	    MYSQL_BIND *res, int *has_row);

/*
 * Like db_run(), for a statement that returns many rows: bind res, then
 * for each row call row(arg) (the row is in res's buffers until the
 * call returns; row must not run another statement).  row returns 0 to go
 * on, -1 to stop: db_run_each() then returns APP_ENOMEM.  A read
 * statement is retried once after a lost connection, before any row was
 * handed out.  Returns APP_OK, APP_DB (logged), APP_DB_DOWN or
 * APP_ENOMEM.
 */
enum app_err db_run_each(struct db *, enum stmt s, MYSQL_BIND *param,
	    MYSQL_BIND *res, int (*row)(void *arg), void *arg);

/*
 * The ids statement st (parameters p, or NULL) returns in its single
 * column, at most max of them, into ids; *n their count.  Returns
 * APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_ids(struct db *, enum stmt st, MYSQL_BIND *p,
	    int64_t *ids, size_t max, size_t *n);

/*
 * Mark the statements run from now on (until db_track(db, 0)) as ones
 * whose outcome matters when their caller gives up on them (non-
 * blocking mode): when such a statement finishes later, or its
 * connection breaks first, db_late_take() hands out arg with what it
 * did.  Can't fail.
 */
void	 db_track(struct db *, int64_t arg);

/*
 * Take the oldest late outcome of a tracked statement: *arg as given to
 * db_track(), *affected rows and *insert_id, or *unknown 1 when its
 * connection broke first.  Returns 1, or 0 when there is none.
 */
int	 db_late_take(struct db *, int64_t *arg, int64_t *affected,
	    int64_t *insert_id, int *unknown);

/* Rows changed by the last db_run() of s, and the LAST_INSERT_ID of it. */
int64_t	 db_affected(struct db *, enum stmt s);
int64_t	 db_insert_id(struct db *, enum stmt s);

/* The server or client error number of the last failed call. */
unsigned int db_last_errno(struct db *);

/* Fill a MYSQL_BIND for an int64 / string input parameter. */
void	 db_bind_int(MYSQL_BIND *, int64_t *v);
void	 db_bind_str(MYSQL_BIND *, const char *s, unsigned long *len);
void	 db_bind_blob(MYSQL_BIND *, const void *b, unsigned long *len);
/* Bind a nullable int64 input: SQL NULL when *v == 0. */
void	 db_bind_opt_int(MYSQL_BIND *, int64_t *v);
/*
 * Bind a result column of a string type into buf of cap bytes (the
 * caller keeps room for a NUL after them); *len and *isnull are set at
 * each fetch.
 */
void	 db_bind_res_str(MYSQL_BIND *, char *buf, size_t cap,
	    unsigned long *len, my_bool *isnull);
/* Same as bind_int, but binds SQL NULL when *v == DB_NOW. */
void	 db_bind_now(MYSQL_BIND *, int64_t *v);

/*
 * Learn the offset of the database's clock from a statement that
 * returned its now (db_us, Unix microseconds: NOW(6)) and was sent at
 * our before_us (now_us()): the server stamped it about half the round
 * trip after before_us.
 */
void	 db_clock_sample(struct db *, int64_t before_us, int64_t db_us);

#endif /* DB_PRIVATE_H */
