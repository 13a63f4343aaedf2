/*
 * loadtest-job.c - the load-test job: a worker daemon (never the
 * embedded worker of a FastCGI process) claims the oldest pending run
 * and forks a runner for it (loadtest-run.c), one run at a time per
 * worker; the runner's process is reaped at the job's next steps, and
 * stopped (the run then ends "cancelled") when the worker stops.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfg.h"
#include "db.h"
#include "db-loadtest.h"
#include "loadtest.h"
#include "log.h"
#include "worker.h"

/* A run whose runner has not reported for this long has failed. */
#define LT_STALE_MS	15000

static pid_t	 child;		/* the runner under way, or 0 */
static int64_t	 child_run;	/* its run */
static char	 runner_id[160];	/* the claiming worker's instance id */

/* Reap the runner when it has ended.  Returns 1 while it runs. */
static int
child_running(void)
{
	pid_t	 r;
	int	 st;

	if (child == 0)
		return 0;
	r = waitpid(child, &st, WNOHANG);
	if (r == 0)
		return 1;
	if (r == child && WIFEXITED(st) && WEXITSTATUS(st) != 0)
		log_warnx("load test %lld: its runner ended with status %d",
		    (long long)child_run, WEXITSTATUS(st));
	else if (r == child && WIFSIGNALED(st))
		log_warnx("load test %lld: its runner ended on signal %d",
		    (long long)child_run, WTERMSIG(st));
	child = 0;
	return 0;
}

int64_t
job_loadtest_next(struct worker_ctx *w)
{
	return w->now_ms + (child != 0 ? 250 : 1000);
}

enum app_err
job_loadtest(struct worker_ctx *w)
{
	enum app_err	 er;
	int64_t		 id;
	pid_t		 pid, self = getpid();

	if (child_running() || w->cfg->loadtest_url[0] == '\0')
		return APP_OK;
	if ((er = db_lt_claim(w->db, w->instance_id, LT_STALE_MS, &id)) !=
	    APP_OK || id == 0)
		return er;
	if ((pid = fork()) == -1) {
		log_warn("load test %lld: fork", (long long)id);
		return db_lt_finish(w->db, id, "failed", "the worker could "
		    "not start its runner", 0, "", "", w->instance_id);
	}
	if (pid == 0)
		_exit(lt_runner(w->cfg, id, self));
	child = pid;
	child_run = id;
	snprintf(runner_id, sizeof(runner_id), "%s", w->instance_id);
	log_info("load test %lld: runner %ld started", (long long)id,
	    (long)pid);
	return APP_OK;
}

void
job_loadtest_abort(struct db *db)
{
	struct timespec	 ts = { 0, 50000000L };
	int		 i;

	if (child == 0)
		return;
	(void)kill(child, SIGTERM);
	/* The runner ends its run within a second or so; 5 s at most. */
	for (i = 0; i < 100; i++) {
		if (!child_running())
			return;
		(void)nanosleep(&ts, NULL);
	}
	log_warnx("load test %lld: its runner did not end; killed",
	    (long long)child_run);
	(void)kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) == -1 && errno == EINTR)
		continue;
	child = 0;
	(void)db_lt_finish(db, child_run, "cancelled", "stopped before its "
	    "end (the worker stopped)", 0, "", "", runner_id);
}

/*
 * The schedules' step (the leader's): ask for the runs that are due.
 */
enum app_err
job_loadtest_schedules(struct worker_ctx *w)
{
	int	 made;

	return lt_schedules_run(w->db, w->cfg, &made);
}
