/*
 * db-worker.h - the background worker's statements: the leader lock
 * and (appended below) what its jobs read and write.
 */
#ifndef DB_WORKER_H
#define DB_WORKER_H

#include "aqueue.h"

struct db;

/* The name of the MariaDB/MySQL named lock that makes a leader. */
#define DB_LEADER_LOCK	"aqueue-worker-leader"

/*
 * Try to take the leader lock on this connection without waiting
 * (GET_LOCK(name, 0)).  Sets *got to 1 when this session holds it now,
 * 0 when another session does.  Use a connection of its own: the lock
 * lives exactly as long as the session.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN (then *got is 0).
 */
enum app_err db_leader_get(struct db *, int *got);

/*
 * Whether this session still holds the leader lock: *held is 0 after a
 * reconnect (a new session holds nothing).  Returns APP_OK, APP_DB or
 * APP_DB_DOWN (then *held is 0: a lost connection is lost leadership).
 */
enum app_err db_leader_check(struct db *, int *held);

/* Release the lock (RELEASE_LOCK).  Returns APP_OK, APP_DB, APP_DB_DOWN. */
enum app_err db_leader_release(struct db *);

/*
 * Delete up to 10,000 samples of queue_stats older than before_ms (DB
 * Unix ms); *deleted is how many went.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_stats_prune(struct db *, int64_t before_ms,
	    int64_t *deleted);

#endif /* DB_WORKER_H */
