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
 * Embedded (w->embedded: between two requests of a FastCGI process) a
 * step is a few statements, a few milliseconds: a job with more to do
 * keeps its place and asks to run again at once (its next() returns
 * w->now_ms), as the queue samples, abandonment detection, the
 * admission changes and the retention do; the auto-rate's request to
 * the shop is started in one step and looked at, never waited for, in
 * the next ones.
 */
#ifndef WORKER_H
#define WORKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "aqueue.h"
#include "principal.h"

struct cfg;
struct db;

/* What every job gets. */
struct worker_ctx {
	const struct cfg	*cfg;
	struct db		*db;	/* the jobs' connection */
	int			 leader;	/* 1: this worker leads */
	/* 1: in a FastCGI process, a step between two requests: a job
	 * does less per step (e.g. DB_PRUNE_STEP_MAX rows). */
	int			 embedded;
	int64_t			 now_ms;	/* DB clock at this step */
	int64_t			 started_ms;	/* DB clock at start */
	char			 instance_id[160];	/* "worker:host:pid" */
	char			 host[128];
	struct principal	 who;	/* PRINCIPAL_WORKER, "worker" */
	void			*autorate;	/* autorate.c's state */
};

#define JOB_LEADER	0x1u	/* only the leader runs it */
#define JOB_DAEMON	0x2u	/* only in aqueue-worker, never embedded */

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
int64_t		 job_abandon_next(struct worker_ctx *);
enum app_err	 job_draw(struct worker_ctx *);
int64_t		 job_draw_next(struct worker_ctx *);
enum app_err	 job_autorate(struct worker_ctx *);
int64_t		 job_autorate_next(struct worker_ctx *);
enum app_err	 job_autorate_retention(struct worker_ctx *);
int64_t		 job_autorate_retention_next(struct worker_ctx *);
enum app_err	 job_changes(struct worker_ctx *);
int64_t		 job_changes_next(struct worker_ctx *);
enum app_err	 job_seal(struct worker_ctx *);
int64_t		 job_seal_next(struct worker_ctx *);
enum app_err	 job_unused(struct worker_ctx *);
enum app_err	 job_instance(struct worker_ctx *);
int64_t		 job_instance_next(struct worker_ctx *);
enum app_err	 job_loadtest(struct worker_ctx *);
int64_t		 job_loadtest_next(struct worker_ctx *);
enum app_err	 job_loadtest_schedules(struct worker_ctx *);
enum app_err	 job_stats(struct worker_ctx *);
int64_t		 job_stats_next(struct worker_ctx *);
/* Drop an auto-rate poll under way (the lead was lost, or a stop). */
void		 job_autorate_abort(void);
/*
 * Stop a load test's runner under way (it ends "cancelled"): SIGTERM,
 * at most 5 s to end, then SIGKILL and the run ended "cancelled" with
 * db.  Can't fail.
 */
void		 job_loadtest_abort(struct db *db);
/*
 * Run load test id in this (forked) process with a connection of its
 * own (loadtest-run.c), stopping early on SIGTERM or when parent is no
 * longer this process's parent.  Returns the exit status: 0 when the
 * outcome was written, 1 when not.
 */
int		 lt_runner(const struct cfg *c, int64_t id, pid_t parent);
/*
 * Drop the embedded rounds under way (queue samples, abandonment
 * detection): the lead was lost, or a stop.
 */
void		 job_rounds_abort(void);

/*
 * The runner (runner.c): what the daemon's loop does, in steps a caller
 * drives, so that the same job table runs in the daemon (aqueue-worker)
 * and inside the FastCGI processes (embedded-worker = on), one bounded
 * step between two requests there.
 *
 *   worker_run_init()    once, with the jobs' connection and the one
 *                        that holds the leader lock (the same one when
 *                        embedded: a FastCGI process has only one);
 *   worker_run_leader()  the leader lock: checked by a leader every
 *                        WORKER_LEADER_TICK_MS, tried by a standby (a
 *                        daemon every tick; an embedded standby only
 *                        when its caller says it may, see there);
 *   worker_run_jobs()    run the jobs that are due, at most max;
 *   worker_run_wait_ms() how long the caller may wait before the next
 *                        call is due;
 *   worker_run_end()     give up the lead (lock released, its row in
 *                        table instance removed).
 */
#define WORKER_LEADER_TICK_MS	1000
/* An embedded standby tries the lock at most this often. */
#define WORKER_EMBEDDED_TRY_MS	2000

struct worker_run {
	struct worker_ctx	 w;
	struct db		*lockdb;	/* holds the leader lock */
	int			 embedded;	/* in a FastCGI process */
	uint64_t		 lock_session;	/* lockdb's, when taken */
	int64_t			*due;	/* per job, DB Unix ms */
	int64_t			 next_leader;	/* monotonic ms */
	int64_t			 next_clock;	/* monotonic ms */
	int64_t			 next_try;	/* embedded standby's */
};

/*
 * Set r up for the jobs of worker_jobs[] with connection db (the jobs')
 * and lockdb (the leader lock's; db itself when embedded), instance id
 * "worker:<host>:<pid>".  Takes no lock yet.  Can't fail (exits when
 * out of memory).
 */
void	 worker_run_init(struct worker_run *r, const struct cfg *c,
	    struct db *db, struct db *lockdb, int embedded);

/*
 * The leader lock's step, when due (see above).  may_try: an embedded
 * standby may try now (its caller just answered a request, so its
 * connection is up); ignored by a daemon.  A change of role makes
 * every job due at once and is logged.  Returns 1 while this process
 * leads, else 0.  Can't fail (database errors mean "not leading").
 */
int	 worker_run_leader(struct worker_run *r, int may_try);

/*
 * Run the jobs that are due for this role (an embedded worker runs them
 * only while it leads), each one bounded step, at most max of them (0:
 * all), and none once stop() says so (NULL: never).  Errors of a job
 * are logged and it runs again at its next deadline.  Returns how many
 * ran.
 */
size_t	 worker_run_jobs(struct worker_run *r, size_t max, int (*stop)(void));

/*
 * Milliseconds until worker_run_leader() or a job is due (0: now), or
 * -1 when nothing is (an embedded standby waits for requests).  Can't
 * fail.
 */
int64_t	 worker_run_wait_ms(struct worker_run *r);

/*
 * Give up the lead: a poll under way dropped, the lock released, the
 * row in table instance removed; r's memory freed.  Can't fail.
 */
void	 worker_run_end(struct worker_run *r);

#endif /* WORKER_H */
