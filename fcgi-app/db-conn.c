/*
 * db-conn.c - one connection per process: open and close the handle,
 * connect (db-socket, db-host, or the first node of db-hosts that is
 * ready), the strict session settings at every connect, failing back to
 * the first node, reconnecting after a loss.
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
#include "log.h"

/* Session settings at every connect: strict, utf8mb4, UTC. */
#define INIT_SQL "SET SESSION sql_mode = 'STRICT_ALL_TABLES," \
	"ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE," \
	"NO_ENGINE_SUBSTITUTION', time_zone = '+00:00'"

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
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	dbe_disconnect(db);
	free(db);
}
static enum app_err connect_to(struct db *, const char *, unsigned int,
	    const char *, unsigned int);
static int	 node_ready(struct db *);

/*
 * Connect with the session settings: to db-socket / db-host, or to the
 * first node of db-hosts that answers.  Statements are prepared on first
 * use (so that the CLI can connect before the schema exists).  Returns
 * APP_OK or APP_DB_DOWN.
 */
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
		if ((n = cfg_hosts_entry(&h, c->db_port, host, sizeof(host),
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

/*
 * Connect to host:port (or the unix socket sock) with the session
 * settings.  In non-blocking mode the connect ends with the caller's
 * time (never left in flight), and there are no read or write timeouts:
 * statements end with their caller's time (see dbe_give_up()).  Returns
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
			dbe_disconnect(db);
			return APP_DB_DOWN;
		}
		db->op = OP_CONNECT;
		db->op_st = NULL;
		db->op_since = dbe_mono_ms();
		db->op_my = NULL;
		db->op_wait = mysql_real_connect_start(&db->op_my, db->my, host,
		    c->db_user, c->db_password, c->db_name, port, sock, 0);
		if (dbe_op_wait(db, db->until) == -1) {
			log_warnx("db connect%s%s: no answer in time",
			    host != NULL ? " to " : "",
			    host != NULL ? host : "");
			dbe_disconnect(db);
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
		dbe_disconnect(db);
		return APP_DB_DOWN;
	}
	return APP_OK;
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
	if (connect_db(db) != APP_OK ||
	    (db->limits && session_limits(db) != APP_OK)) {
		dbe_disconnect(db);
		db->next_try_ms = now + 1000;
		return APP_DB_DOWN;
	}
	db->next_try_ms = 0;
	return APP_OK;
}

enum app_err
db_ensure(struct db *db)
{
	dbe_call_begin(db);
	return dbe_ensure(db);
}

int
dbe_conn_dead(struct db *db)
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
