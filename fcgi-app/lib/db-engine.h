/*
 * db-engine.h - what db.c, db-conn.c, db-async.c and db-stmt.c share: the
 * connection handle (struct db) and the calls between them.  Not for use
 * outside these four files (the entity files use db-private.h).
 */
#ifndef DB_ENGINE_H
#define DB_ENGINE_H

#include <stdint.h>

#include <mysql.h>

#include "db-private.h"

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

/*
 * The text of statement s and the parameters its caller binds into
 * *params: as the table has it, or expanded once per process when it
 * holds placeholders (the processes have one thread).  Returns the text
 * (static), or NULL when a generated one does not fit (a bug, logged).
 */
const char	*dbe_stmt_sql(enum stmt s, unsigned int *params);

/*
 * Drop the connection and its statements.  With an operation in flight,
 * the socket is shut down first (mariadb_cancel()): nothing then waits
 * for the server, and the session ends on the server (a transaction is
 * rolled back); a tracked statement's outcome becomes unknown.
 */
void	 dbe_disconnect(struct db *db);

/*
 * The time of a call (a statement, with its connect and prepare) that
 * starts now: until the caller's deadline, or its own statement time.
 * Sets db->until.
 */
void	 dbe_call_begin(struct db *db);

/*
 * db_ensure() within the running call's time: the connection free (see
 * dbe_conn_free()), else connected now.
 */
enum app_err	 dbe_ensure(struct db *db);

/*
 * Whether the idle connection is known dead: the server closed it
 * (KILL, wait_timeout, a restart) or sent something unasked.  An idle
 * connection has nothing to read, so a readable socket means it is of
 * no use.  One poll(2) with a zero timeout; never blocks (an
 * interrupted poll counts as alive: the statement will tell).
 */
int	 dbe_conn_dead(struct db *db);

/* Monotonic milliseconds. */
int64_t	 dbe_mono_ms(void);

/* Whether a client/server error number means the connection is gone. */
int	 dbe_conn_lost(unsigned int e);

/*
 * Start operation op (not OP_CONNECT) on the connection: sql for
 * OP_QUERY and OP_PREPARE, st for the statement operations.  Its wait
 * is in db->op_wait (0: done at once).  Can't fail (the outcome is in
 * db->op_ret / db->op_res).
 */
void	 dbe_op_begin(struct db *db, enum op op, MYSQL_STMT *st,
	    const char *sql);

/*
 * Wait for the operation in flight until it is done or until the
 * monotonic time until, whichever comes first; a timeout the library
 * asks for itself (the connect timeout) is honoured too.  Returns 0
 * when done (db->op is then still set: the caller takes the outcome),
 * or -1 when until came first (it stays in flight).
 */
int	 dbe_op_wait(struct db *db, int64_t until);

/*
 * Keep a tracked statement's late outcome for db_late_take(): what it
 * did (the statement in flight has just finished), or unknown (its
 * connection is being closed first).  Can't fail (a full list drops
 * it, logged).
 */
void	 dbe_late_push(struct db *db, int unknown);

/*
 * The caller's time ran out while operation what was in flight (non-
 * blocking mode).  Inside a transaction, for a connect or a plain query,
 * and for a prepare outside the statement table, the connection is
 * closed (the server rolls back); a statement otherwise stays in flight
 * and is finished in the background (db_idle()), so that a write the
 * server still does is not cut off half way and its outcome can be
 * learnt (db_track()).  Returns APP_DB_DOWN.
 */
enum app_err	 dbe_give_up(struct db *db, const char *what);

/*
 * Before anything is sent on the connection: an operation given up on
 * earlier must be done first.  It is waited for within the caller's
 * time until it has been in flight DB_STUCK_MS (a read given up on by a
 * short-lived caller may just be late on a loaded machine), not at all
 * after that.  Returns APP_OK when the connection is free, else
 * APP_DB_DOWN (nothing sent).
 */
enum app_err	 dbe_conn_free(struct db *db);

/*
 * Whether the caller's deadline (db_deadline()) has passed: then nothing
 * more is sent (the answer could not be waited for).
 */
int	 dbe_no_time(struct db *db);

/*
 * One attempt of db_run(): prepare on first use, bind, execute, fetch.
 */
enum app_err	 dbe_run_once(struct db *db, enum stmt s, MYSQL_BIND *param,
	    MYSQL_BIND *res, int *has_row);

/* Whether statement s only reads (may run again after a reconnect). */
int	 dbe_stmt_reads(enum stmt s);

/*
 * Connect with the session settings: to db-socket / db-host, or to the
 * first node of db-hosts that answers.  Statements are prepared on first
 * use (so that the CLI can connect before the schema exists).  Returns
 * APP_OK or APP_DB_DOWN.
 */
enum app_err	 dbe_connect(struct db *db);

/*
 * Connect to host:port (or the unix socket sock) with the session
 * settings.  In non-blocking mode the connect ends with the caller's
 * time (never left in flight), and there are no read or write timeouts:
 * statements end with their caller's time (see dbe_give_up()).  Returns
 * APP_OK or APP_DB_DOWN (logged).
 */
enum app_err	 dbe_connect_to(struct db *db, const char *host,
	    unsigned int port, const char *sock, unsigned int timeout_s);

#endif /* DB_ENGINE_H */
