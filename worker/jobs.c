/*
 * jobs.c - the worker's job table (see worker.h for how to add a job)
 * and the small jobs that need no file of their own.
 */
#include "config.h"

#include <stddef.h>

#include "abandon.h"
#include "cfg.h"
#include "db.h"
#include "db-worker.h"
#include "draw.h"
#include "log.h"
#include "worker.h"

/*
 * Delete samples and auto-rate log entries older than stats-retention,
 * up to 10,000 of each per run (a long backlog goes in slices, a minute
 * apart).  Returns APP_OK or the
 * database's error.
 */
enum app_err
job_stats_retention(struct worker_ctx *w)
{
	int64_t		 n;
	enum app_err	 er;

	er = db_stats_prune(w->db, w->now_ms - w->cfg->stats_retention_s *
	    1000, &n);
	if (er == APP_OK && n > 0)
		log_info("stats: deleted %lld samples older than %lld s",
		    (long long)n, (long long)w->cfg->stats_retention_s);
	if (er != APP_OK)
		return er;
	er = db_ar_log_prune(w->db, w->now_ms - w->cfg->stats_retention_s *
	    1000, &n);
	if (er == APP_OK && n > 0)
		log_info("autorate: deleted %lld log entries older than %lld s",
		    (long long)n, (long long)w->cfg->stats_retention_s);
	return er;
}

/*
 * Scheduled openings: give armed queues their seed (hash published),
 * close the pre-queues whose opening has passed (see draw_job()).
 * Returns APP_OK or the error of draw_job().
 */
enum app_err
job_draw(struct worker_ctx *w)
{
	int64_t	 next;
	int	 closed;

	return draw_job(w->db, w->cfg, &next, &closed);
}

/*
 * The draw job's next deadline: the next opening, and at least every
 * DRAW_JOB_EVERY_MS, so that a new arming gets its seed (and its hash
 * published) within that.  DB Unix ms.
 */
#define DRAW_JOB_EVERY_MS	1000
int64_t
job_draw_next(struct worker_ctx *w)
{
	int64_t	 next = 0;

	if (db_draw_next(w->db, &next) != APP_OK || next <= w->now_ms ||
	    next > w->now_ms + DRAW_JOB_EVERY_MS)
		return w->now_ms + DRAW_JOB_EVERY_MS;
	return next;
}

/*
 * Abandonment detection: count the abandoned numbers of every queue
 * with detection on and advance serving by them (see abandon_job()).
 * Returns APP_OK or the first queue's error.
 */
enum app_err
job_abandon(struct worker_ctx *w)
{
	int64_t	 n;

	return abandon_job(w->db, w->cfg, &n);
}

const struct worker_job worker_jobs[] = {
	{ "draw", JOB_LEADER, 0, job_draw_next, job_draw },
	{ "abandon", JOB_LEADER, ABANDON_JOB_EVERY_MS, NULL, job_abandon },
	{ "autorate", JOB_LEADER, 0, job_autorate_next, job_autorate },
	{ "stats-retention", JOB_LEADER, 60000, NULL, job_stats_retention },
};

const size_t worker_njobs = sizeof(worker_jobs) / sizeof(worker_jobs[0]);
