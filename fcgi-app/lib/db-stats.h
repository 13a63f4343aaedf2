/*
 * db-stats.h - rows of the tables instance and queue_stats (see
 * migrations/0004-instance.sql and 0005-queue-stats.sql): what running
 * processes report about themselves and the per-queue samples the
 * dashboard and /metrics read.  Every time is the database's clock,
 * Unix milliseconds.
 */
#ifndef DB_STATS_H
#define DB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct db;

#define INSTANCE_ID_MAX		160	/* "kind:host:pid", bytes */
#define INSTANCE_HOST_MAX	128
#define INSTANCE_RPS_MAX	4096	/* rps_json, bytes */

/* One row of table instance. */
struct instance_row {
	char	 id[INSTANCE_ID_MAX + 1];
	char	 kind[17];		/* "pool" or "worker" */
	char	 host[INSTANCE_HOST_MAX * 4 + 1];
	int64_t	 pid;
	int64_t	 workers;
	int64_t	 busy;			/* workers inside a request */
	double	 cpu_pct;		/* since the previous report */
	int64_t	 rss_kb;
	char	 rps_json[INSTANCE_RPS_MAX + 1];	/* {"join":1.5,...} */
	int64_t	 leader;		/* 1: the worker's leader */
	int64_t	 started_ms;
	int64_t	 seen_ms;
};

/* One row of table queue_stats. */
struct stats_row {
	int64_t	 queue_id;
	int64_t	 sampled_ms;
	int64_t	 waiting;		/* issued - serving, >= 0 */
	double	 inflow_per_min;	/* new numbers per minute */
	int64_t	 rate_per_minute;
	int64_t	 serving;
	int64_t	 issued;		/* last_number */
	int64_t	 active;		/* 0: paused */
};

/*
 * Insert or update the row r->id with every field of r; started_ms is
 * stamped with the database's clock on insert only, seen_ms on every
 * call (the fields of r with those names are not read).  Returns
 * APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_instance_upsert(struct db *, const struct instance_row *r);

/* Delete the row id (a clean shutdown).  Returns as above. */
enum app_err db_instance_delete(struct db *, const char *id);

/*
 * Delete the rows not seen for older_ms milliseconds or more.  Returns
 * as above.
 */
enum app_err db_instance_purge(struct db *, int64_t older_ms);

/*
 * The rows seen within the last within_ms milliseconds, ordered by id:
 * *out is a new array of *n rows (NULL when none) the caller frees with
 * free().  Returns APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN (then *out
 * is NULL and *n 0).
 */
enum app_err db_instance_list(struct db *, int64_t within_ms,
	    struct instance_row **out, size_t *n);

/*
 * Take, or confirm that this connection still holds, the named lock
 * name of this installation ("name:<database>", MariaDB GET_LOCK,
 * without waiting; held until this connection ends or releases it).
 * Sets *held to 1 or 0.  Returns APP_OK, APP_DB or APP_DB_DOWN (then
 * the lock is not held: a lost connection loses it).
 */
enum app_err db_named_lock(struct db *, const char *name, int *held);

/*
 * The newest sample of queue_id taken at or before at_ms, or when
 * there is none the oldest sample of queue_id at all (at_ms < 0: the
 * oldest directly).  Sets *found, and *issued and *sampled_ms when
 * found.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_stats_prev(struct db *, int64_t queue_id, int64_t at_ms,
	    int64_t *issued, int64_t *sampled_ms, int *found);

/*
 * Insert sample r (a second sample of the same queue in the same
 * millisecond is ignored).  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_stats_insert(struct db *, const struct stats_row *r);

/* The tables that keep rows for a while (stats-retention). */
enum db_prune {
	DB_PRUNE_STATS,		/* queue_stats: the samples */
	DB_PRUNE_AR_LOG,	/* autorate_log: auto-rate decisions */
	DB_PRUNE_SERVED,	/* queue_served: the fairness report's */
	DB_PRUNE__MAX
};

/*
 * Delete at most max rows of table what older than before_ms (DB Unix
 * ms; a longer backlog goes in slices, one per call): DB_PRUNE_MAX for
 * a daemon or a pool master, DB_PRUNE_STEP_MAX between two requests
 * (embedded-worker = on).  Sets *deleted to how many went.  Returns
 * APP_OK, APP_DB, APP_DB_DOWN or APP_INVALID (what out of range, max
 * below 1).
 */
#define DB_PRUNE_MAX		10000
#define DB_PRUNE_STEP_MAX	100
enum app_err db_prune(struct db *, enum db_prune what, int64_t before_ms,
	    int64_t max, int64_t *deleted);

/*
 * The samples of queue_id since since_ms, oldest first: *out is a new
 * array of *n rows (NULL when none) the caller frees with free().
 * Returns APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN (then *out is NULL
 * and *n 0).
 */
enum app_err db_stats_series(struct db *, int64_t queue_id,
	    int64_t since_ms, struct stats_row **out, size_t *n);

#endif /* DB_STATS_H */
