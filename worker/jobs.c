/*
 * jobs.c - the worker's job table (see worker.h for how to add a job)
 * and the small jobs that need no file of their own.
 */
#include "config.h"

#include <stddef.h>

#include "cfg.h"
#include "db-worker.h"
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

const struct worker_job worker_jobs[] = {
	{ "autorate", JOB_LEADER, 0, job_autorate_next, job_autorate },
	{ "stats-retention", JOB_LEADER, 60000, NULL, job_stats_retention },
};

const size_t worker_njobs = sizeof(worker_jobs) / sizeof(worker_jobs[0]);
