/*
 * db-loadtest.h - rows of loadtest and loadtest_second (migration
 * 0078): the load tests asked for, claimed by a worker's runner, their
 * outcome as it comes in, and their per-second series (loadtest.h).
 * Times are the database's clock, Unix ms.
 */
#ifndef DB_LOADTEST_H
#define DB_LOADTEST_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "loadtest.h"
#include "queue-fields.h"

struct db;

#define LT_TEXT_MAX	255	/* bytes of runner, reason, error */
#define LT_SERVED_MAX	4095	/* bytes of served_by's JSON */

/* One run as read. */
struct lt_run {
	int64_t	 id;
	int64_t	 queue_id;
	char	 slug[SLUG_MAX + 1];
	char	 profile[LT_PROFILE_MAX + 1];
	int64_t	 rate;		/* requests per second */
	int64_t	 duration_s;
	char	 requested_by[LT_TEXT_MAX + 1];
	char	 status[LT_PROFILE_MAX + 1];	/* pending ... cancelled */
	char	 runner[LT_TEXT_MAX + 1];	/* worker instance id */
	int64_t	 created_ms;
	int64_t	 started_ms;	/* 0: not yet */
	int64_t	 finished_ms;	/* 0: not yet */
	int64_t	 sent, ok, errors;
	int64_t	 p50_us, p95_us, p99_us;
	int64_t	 flagged;
	char	 flag_reason[LT_TEXT_MAX + 1];
	int64_t	 elapsed_ms;
	char	 error[LT_TEXT_MAX + 1];
	int64_t	 now_ms;	/* the database's now at the read */
	int64_t	 joins, polls, claims;	/* sent, by kind */
	/* A replay: the source queue (0: none), its window, the scales. */
	int64_t	 replay_queue_id;
	char	 replay_slug[SLUG_MAX + 1];
	int64_t	 replay_from_ms, replay_to_ms;
	int64_t	 replay_speed_milli, replay_volume_milli;
	char	 served_by[LT_SERVED_MAX + 1];	/* JSON, or "" */
};

/* One second of a run's series. */
struct lt_second {
	int64_t	 sec;		/* from the run's start */
	int64_t	 sent, ok, errors;
	int64_t	 p50_us, p95_us, p99_us;
};

/*
 * Ask for run r (pending until a worker claims it): its queue_id,
 * profile, rate, duration_s, requested_by (who asked) and, for a
 * replay, replay_queue_id, its window and scales.  Sets *id.  Returns
 * APP_OK, APP_NOTFOUND (no such queue), APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_insert(struct db *, const struct lt_run *r,
		    int64_t *id);

/* Run id into *out.  APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN. */
enum app_err	 db_lt_get(struct db *, int64_t id, struct lt_run *out);

/*
 * The latest runs, newest first, at most limit (1-100), of queue
 * queue_id (0: of every queue): *out a new array of *n (NULL when
 * none), freed with free().  APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_list(struct db *, int64_t queue_id, int64_t limit,
		    struct lt_run **out, size_t *n);

/*
 * Run id's series by second: *out a new array of *n (NULL when none),
 * freed with free().  APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_seconds(struct db *, int64_t id,
		    struct lt_second **out, size_t *n);

/*
 * For a worker's runner: first mark failed the runs whose runner has
 * not reported for stale_ms; then claim the oldest pending run for
 * runner (its instance id): *id the run, or 0 when none is pending.
 * Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_claim(struct db *, const char *runner,
		    int64_t stale_ms, int64_t *id);

/*
 * The outcome of running run r->id so far: r's totals (its status,
 * texts and times are not used), the heartbeat set to now; with s not
 * NULL, second s of its series too.  Only while the run is running and
 * its queue is a test queue: *live 0 otherwise (the runner stops).
 * Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_progress(struct db *, const struct lt_run *r,
		    const struct lt_second *s, int *live);

/*
 * End run id with status ("done", "failed", "cancelled"), error ("" for
 * none), flagged, reason and served_by (the pool processes' JSON, ""
 * for none), only while it is running and runner (the claiming
 * worker's instance id) holds it: a run another worker ended as failed
 * (its runner stopped reporting) stays so.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err	 db_lt_finish(struct db *, int64_t id, const char *status,
		    const char *error, int flagged, const char *reason,
		    const char *served_by, const char *runner);

/*
 * The comparable earlier runs of r (done, same queue, profile, rate and
 * duration, older than r), the latest LT_PRIOR_MAX: their p95 in
 * p95_us[] and their error rate (parts per million) in err_ppm[], *n
 * of them.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err	 db_lt_prior(struct db *, const struct lt_run *r,
		    int64_t p95_us[LT_PRIOR_MAX],
		    int64_t err_ppm[LT_PRIOR_MAX], size_t *n);

/*
 * The latest run done of each queue and profile (for /metrics):
 * like db_lt_list().
 */
enum app_err	 db_lt_latest(struct db *, struct lt_run **out, size_t *n);

/*
 * Schedules (loadtest_schedule, migration 0081; struct lt_schedule of
 * loadtest.h).  db_lts_insert(): s's queue, profile, rate, duration,
 * every_min, weekday, at_min, zone, next_ms (0: now) and created_by;
 * sets *id.  db_lts_list(): every schedule by id; db_lts_due(): those
 * due now, the earliest first, at most 8 (*out a new array freed with
 * free()).  db_lts_get(): APP_NOTFOUND when there is none.
 * db_lts_advance(): set schedule id's next time to new_next and its last
 * run to run_id (0: none) only while its next time is old_next; *moved
 * 1 when it was.  Each returns APP_OK, APP_ENOMEM, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err	 db_lts_insert(struct db *, const struct lt_schedule *s,
		    int64_t *id);
enum app_err	 db_lts_list(struct db *, struct lt_schedule **out,
		    size_t *n);
enum app_err	 db_lts_due(struct db *, struct lt_schedule **out,
		    size_t *n);
enum app_err	 db_lts_get(struct db *, int64_t id,
		    struct lt_schedule *out);
enum app_err	 db_lts_delete(struct db *, int64_t id);
enum app_err	 db_lts_advance(struct db *, int64_t id, int64_t old_next,
		    int64_t new_next, int64_t run_id, int *moved);

#endif /* DB_LOADTEST_H */
