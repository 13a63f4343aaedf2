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
db_close(struct db *db)
{
	if (db == NULL)
		return;
	dbe_disconnect(db);
	free(db);
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

enum app_err
dbe_connect_to(struct db *db, const char *host, unsigned int port,
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
