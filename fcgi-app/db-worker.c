/*
 * db-worker.c - the background worker's statements (see db-worker.h).
 */
#include "config.h"

#include <string.h>

#include "db-private.h"
#include "db-worker.h"

/*
 * Run one of the lock statements, which take the lock name and return
 * one integer, into *v (0 on failure).
 */
static enum app_err
lock_stmt(struct db *db, enum stmt s, int64_t *v)
{
	MYSQL_BIND	 p[1], r[1];
	unsigned long	 len;
	int		 has = 0;
	enum app_err	 er;

	*v = 0;
	db_bind_str(&p[0], DB_LEADER_LOCK, &len);
	db_bind_int(&r[0], v);
	if ((er = db_run(db, s, p, r, &has)) != APP_OK) {
		*v = 0;
		return er;
	}
	if (!has)
		*v = 0;
	return APP_OK;
}

enum app_err
db_leader_get(struct db *db, int *got)
{
	int64_t		 v;
	enum app_err	 er;

	er = lock_stmt(db, STMT_LEADER_GET, &v);
	*got = v == 1;
	return er;
}

enum app_err
db_leader_check(struct db *db, int *held)
{
	int64_t		 v;
	enum app_err	 er;

	er = lock_stmt(db, STMT_LEADER_CHECK, &v);
	*held = v == 1;
	return er;
}

enum app_err
db_leader_release(struct db *db)
{
	int64_t	 v;

	return lock_stmt(db, STMT_LEADER_RELEASE, &v);
}

enum app_err
db_stats_prune(struct db *db, int64_t before_ms, int64_t *deleted)
{
	MYSQL_BIND	 p[1];
	enum app_err	 er;

	*deleted = 0;
	db_bind_int(&p[0], &before_ms);
	if ((er = db_run(db, STMT_STATS_PRUNE, p, NULL, NULL)) != APP_OK)
		return er;
	*deleted = db_affected(db, STMT_STATS_PRUNE);
	return APP_OK;
}
