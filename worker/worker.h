/*
 * worker.h - the background worker (aqueue-worker): one event loop that
 * runs timed jobs from one table.  Several workers may run, one per
 * host; exactly one of them is the leader (it holds the MariaDB named
 * lock "aqueue-worker-leader" on a connection of its own), and jobs
 * flagged JOB_LEADER run only there.
 *
 * Adding a job (a draw at an opening, abandonment accounting, a
 * scheduled load test, ...):
 *   1. write  enum app_err my_job(struct worker_ctx *w)  in a file of
 *      worker/ (declare it below); it does one bounded step with w->db
 *      and returns (APP_OK, or an error: logged, and the job runs again
 *      at its next deadline - a job never loops or sleeps itself);
 *   2. give it a deadline: a fixed interval_ms, or a next() function
 *      that returns the DB time (Unix ms) it wants to run at next (e.g.
 *      the earliest opening of any queue, at most a minute ahead so that
 *      new settings are picked up);
 *   3. append one row to worker_jobs[] in worker/jobs.c, with JOB_LEADER
 *      when only one worker in the fleet may run it.
 * Times come from the database (w->now_ms, db_clock_ms()), never from
 * one host's clock alone.  A job must not block for long: outbound
 * requests carry timeouts; SIGTERM waits for the step that runs.
 */
#ifndef WORKER_H
#define WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "principal.h"

struct cfg;
struct db;

/* What every job gets. */
struct worker_ctx {
	const struct cfg	*cfg;
	struct db		*db;	/* the jobs' connection */
	int			 leader;	/* 1: this worker leads */
	int64_t			 now_ms;	/* DB clock at this step */
	int64_t			 started_ms;	/* DB clock at start */
	char			 instance_id[160];	/* "worker:host:pid" */
	char			 host[128];
	struct principal	 who;	/* PRINCIPAL_WORKER, "worker" */
	void			*autorate;	/* autorate.c's state */
};

#define JOB_LEADER	0x1u	/* only the leader runs it */

/* One timed job; see the header comment for how to add one. */
struct worker_job {
	const char	*name;
	unsigned int	 flags;
	int64_t		 interval_ms;	/* with next == NULL */
	/* The next deadline, DB Unix ms; NULL: last run + interval_ms. */
	int64_t		(*next)(struct worker_ctx *);
	enum app_err	(*fn)(struct worker_ctx *);
};

extern const struct worker_job	 worker_jobs[];
extern const size_t		 worker_njobs;

/* Jobs (one line each, alphabetical by file). */
enum app_err	 job_abandon(struct worker_ctx *);
enum app_err	 job_draw(struct worker_ctx *);
int64_t		 job_draw_next(struct worker_ctx *);
enum app_err	 job_autorate(struct worker_ctx *);
int64_t		 job_autorate_next(struct worker_ctx *);
enum app_err	 job_autorate_retention(struct worker_ctx *);
enum app_err	 job_changes(struct worker_ctx *);
enum app_err	 job_instance(struct worker_ctx *);
int64_t		 job_instance_next(struct worker_ctx *);
enum app_err	 job_stats(struct worker_ctx *);
int64_t		 job_stats_next(struct worker_ctx *);

#endif /* WORKER_H */
