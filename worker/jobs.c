/*
 * jobs.c - the worker's job table (see worker.h for how to add a job)
 * and the small jobs that need no file of their own: the instance
 * report, queue samples, the retention of the auto-rate log, and the
 * admission changes that are due.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abandon.h"
#include "cfg.h"
#include "db.h"
#include "db-stats.h"
#include "instance.h"
#include "draw.h"
#include "log.h"
#include "stats.h"
#include "worker.h"

/*
 * Report this worker into table instance (kind "worker", its CPU and
 * memory since the last report, whether it leads), as every pool master
 * does.  Returns APP_OK or the database's error.
 */
enum app_err
job_instance(struct worker_ctx *w)
{
	static int64_t		 last_ms, last_ticks;
	struct instance_report	 r;
	pid_t			 self = getpid();
	int64_t			 t = now_ms(), ticks, rss, dt;
	long			 hz = sysconf(_SC_CLK_TCK);

	instance_proc_usage(&self, 1, &ticks, &rss);
	dt = last_ms == 0 ? 0 : t - last_ms;
	memset(&r, 0, sizeof(r));
	r.kind = "worker";
	r.workers = 1;
	r.cpu_pct = dt > 0 && hz > 0 ? (double)(ticks - last_ticks) *
	    100000.0 / (double)hz / (double)dt : 0.0;
	if (r.cpu_pct < 0)
		r.cpu_pct = 0;
	r.rss_kb = rss;
	r.leader = w->leader;
	last_ms = t;
	last_ticks = ticks;
	return instance_report(w->db, &r);
}

/*
 * The embedded worker's round of samples under way (see job_stats()):
 * the queues as read at the database's time now, the next to sample.
 */
static struct {
	struct queue	**qs;
	size_t		 n, i;
	int64_t		 now;
	int		 busy;
} sampling;

/*
 * The embedded worker's run of abandonment detection under way: the
 * queues with detection on, the next to look at.
 */
static struct {
	char	(*slugs)[SLUG_MAX + 1];
	size_t	  n, i;
	int	  busy;
} abandoning;

/* End the round of samples under way. */
static void
sampling_end(void)
{
	db_queue_list_free(sampling.qs, sampling.n);
	memset(&sampling, 0, sizeof(sampling));
}

/* End the run of abandonment detection under way. */
static void
abandoning_end(void)
{
	free(abandoning.slugs);
	memset(&abandoning, 0, sizeof(abandoning));
}

void
job_rounds_abort(void)
{
	sampling_end();
	abandoning_end();
}

/*
 * One step of the embedded worker's round: the lock, the time and the
 * queues; then one queue a step; then the retention (DB_PRUNE_STEP_MAX
 * rows).  Returns APP_OK or the database's error (the round ends).
 */
static enum app_err
stats_step(struct worker_ctx *w)
{
	int		 held = 0;
	enum app_err	 er;

	if (!sampling.busy) {
		if ((er = stats_try_lock(w->db, &held)) != APP_OK || !held)
			return er;
		if ((er = db_now_ms(w->db, &sampling.now)) != APP_OK ||
		    (er = db_queue_list(w->db, &sampling.qs, &sampling.n)) !=
		    APP_OK) {
			sampling_end();
			return er;
		}
		sampling.busy = 1;
		return APP_OK;
	}
	if (sampling.i < sampling.n) {
		er = stats_sample_queue(w->db, sampling.qs[sampling.i++],
		    sampling.now);
		if (er != APP_OK)
			sampling_end();
		return er;
	}
	er = stats_prune(w->db, sampling.now, w->cfg->stats_retention_s * 1000,
	    DB_PRUNE_STEP_MAX);
	sampling_end();
	return er;
}

/*
 * Sample every queue into queue_stats (stats_sample(), which also drops
 * samples older than stats-retention), while this worker's session holds
 * the samplers' lock STATS_LOCK: exactly one sampler in the fleet, a
 * pool master when no worker leads.  Embedded, a round goes in steps of
 * a few statements each (stats_step()).  Returns APP_OK or the
 * database's error.
 */
enum app_err
job_stats(struct worker_ctx *w)
{
	size_t		 n;
	int		 held = 0;
	enum app_err	 er;

	if (w->cfg->stats_interval_ms == 0)
		return APP_OK;
	if (w->embedded)
		return stats_step(w);
	if ((er = stats_try_lock(w->db, &held)) != APP_OK || !held)
		return er;
	return stats_sample(w->db, w->cfg->stats_retention_s * 1000,
	    DB_PRUNE_MAX, &n);
}

/*
 * Every stats-interval-ms (an hour when sampling is off); at once while
 * an embedded round is under way (its next step at the next idle
 * moment).
 */
int64_t
job_stats_next(struct worker_ctx *w)
{
	if (sampling.busy)
		return w->now_ms;
	return w->now_ms + (w->cfg->stats_interval_ms > 0 ?
	    w->cfg->stats_interval_ms : 3600000);
}

/* Every instance-report-ms. */
int64_t
job_instance_next(struct worker_ctx *w)
{
	return w->now_ms + w->cfg->instance_report_ms;
}

/* Whether the last retention run left rows behind (a full slice). */
static int	 retention_more;

/*
 * Delete auto-rate log entries and served records (the fairness
 * report's) older than stats-retention, up to DB_PRUNE_MAX of each per
 * run (a long backlog goes in slices, a minute apart), or embedded
 * DB_PRUNE_STEP_MAX of one of them (a few milliseconds between two
 * requests; a backlog goes in slices a second apart).  Returns APP_OK
 * or the database's error.
 */
enum app_err
job_autorate_retention(struct worker_ctx *w)
{
	int64_t		 n, before, max;
	enum app_err	 er;

	before = w->now_ms - w->cfg->stats_retention_s * 1000;
	max = w->embedded ? DB_PRUNE_STEP_MAX : DB_PRUNE_MAX;
	retention_more = 0;
	er = db_prune(w->db, DB_PRUNE_AR_LOG, before, max, &n);
	if (er == APP_OK && n > 0)
		log_info("autorate: deleted %lld log entries older than %lld s",
		    (long long)n, (long long)w->cfg->stats_retention_s);
	if (er != APP_OK)
		return er;
	/* One statement per step between requests. */
	if (w->embedded && n == max) {
		retention_more = 1;
		return APP_OK;
	}
	er = db_prune(w->db, DB_PRUNE_SERVED, before, max, &n);
	if (er == APP_OK && n > 0)
		log_info("fairness: deleted %lld served records older "
		    "than %lld s", (long long)n,
		    (long long)w->cfg->stats_retention_s);
	retention_more = er == APP_OK && n == max;
	return er;
}

/*
 * A minute after the last run; embedded a second after one that left
 * rows behind, so that a backlog goes in small slices, yet in time.
 */
int64_t
job_autorate_retention_next(struct worker_ctx *w)
{
	return w->now_ms + (w->embedded && retention_more ? 1000 : 60000);
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
 * with detection on and advance serving by them (see abandon_job());
 * embedded one queue a step (after a step that lists them).  Returns
 * APP_OK or the first queue's error.
 */
enum app_err
job_abandon(struct worker_ctx *w)
{
	int64_t		 n;
	enum app_err	 er;

	if (!w->embedded)
		return abandon_job(w->db, w->cfg, &n);
	if (!abandoning.busy) {
		abandoning.slugs = xcalloc(ABANDON_QUEUES_MAX,
		    sizeof(*abandoning.slugs));
		abandoning.busy = 1;
		er = db_abandon_queues(w->db, abandoning.slugs,
		    ABANDON_QUEUES_MAX, &abandoning.n);
		if (er != APP_OK || abandoning.n == 0)
			abandoning_end();
		return er;
	}
	er = abandon_queue(w->db, abandoning.slugs[abandoning.i], &n);
	if (er != APP_OK)
		log_warnx("abandon %s: not applied (error %d)",
		    abandoning.slugs[abandoning.i], (int)er);
	if (++abandoning.i == abandoning.n)
		abandoning_end();
	return er;
}

/* Every ABANDON_JOB_EVERY_MS; at once while an embedded run is on. */
int64_t
job_abandon_next(struct worker_ctx *w)
{
	return w->now_ms + (abandoning.busy ? 0 : ABANDON_JOB_EVERY_MS);
}

/* Whether the last run of job_changes() may have left changes due. */
static int	 changes_more;

/*
 * Apply the admission changes that are due (db_queue_materialize()), up
 * to QUEUE_DUE_MAX a step, embedded one a step: the row then holds them
 * even when no join comes (every reader already computes with them).
 * Returns APP_OK or the database's error.
 */
enum app_err
job_changes(struct worker_ctx *w)
{
	int64_t		 ids[QUEUE_DUE_MAX];
	size_t		 n, i, max = w->embedded ? 1 : QUEUE_DUE_MAX;
	enum app_err	 er;

	changes_more = 0;
	if ((er = db_queue_due(w->db, ids, max, &n)) != APP_OK)
		return er;
	for (i = 0; i < n; i++)
		if ((er = db_queue_materialize(w->db, ids[i])) != APP_OK &&
		    er != APP_NOTFOUND)
			return er;
	changes_more = w->embedded && n == max;
	return APP_OK;
}

/* Every second; embedded at once after a step that applied one. */
int64_t
job_changes_next(struct worker_ctx *w)
{
	return w->now_ms + (changes_more ? 0 : 1000);
}

/* The last queue id job_seal() looked at: the next step goes on after. */
static int64_t	 seal_after;

/*
 * The random order: seal every block whose visitors would otherwise
 * wait for others to join (db_queue_seal_one(), adm_seal_due()), up to
 * QUEUE_DUE_MAX a step (embedded one), going on by id where the last
 * step stopped; a queue that fails is logged and passed over.  Returns
 * APP_OK or the error of the list's read.
 */
enum app_err
job_seal(struct worker_ctx *w)
{
	int64_t		 ids[QUEUE_DUE_MAX], to;
	size_t		 n, i, max = w->embedded ? 1 : QUEUE_DUE_MAX;
	enum app_err	 er;

	if ((er = db_queue_sealable(w->db, seal_after, ids, max, &n)) !=
	    APP_OK) {
		seal_after = 0;
		return er;
	}
	seal_after = n < max ? 0 : ids[n - 1];
	for (i = 0; i < n; i++) {
		if ((er = db_queue_seal_one(w->db, ids[i], &to)) != APP_OK &&
		    er != APP_NOTFOUND)
			log_warnx("queue %lld: random block not sealed "
			    "(error %d)", (long long)ids[i], (int)er);
		else if (to > 0)
			log_debug("queue %lld: random block sealed at %lld",
			    (long long)ids[i], (long long)to);
	}
	return APP_OK;
}

/* Every half second; at once while a step left queues to look at. */
int64_t
job_seal_next(struct worker_ctx *w)
{
	return w->now_ms + (seal_after != 0 ? 0 : 500);
}

/*
 * Number blocks: pass over the numbers of leases handed to nobody
 * (db_queue_unused_fold(): a skip, scheduled), up to QUEUE_DUE_MAX
 * queues a step (embedded one); a queue with another change still
 * scheduled waits for the next step.  Returns APP_OK or the error of
 * the list's read.
 */
enum app_err
job_unused(struct worker_ctx *w)
{
	int64_t		 ids[QUEUE_DUE_MAX], k;
	size_t		 n, i, max = w->embedded ? 1 : QUEUE_DUE_MAX;
	enum app_err	 er;

	if ((er = db_queue_unused_due(w->db, ids, max, &n)) != APP_OK)
		return er;
	for (i = 0; i < n; i++) {
		if ((er = db_queue_unused_fold(w->db, ids[i], &k)) !=
		    APP_OK && er != APP_NOTFOUND && er != APP_BUSY)
			log_warnx("queue %lld: unused lease numbers not "
			    "passed over (error %d)", (long long)ids[i],
			    (int)er);
		else if (k > 0)
			log_debug("queue %lld: %lld unused lease numbers "
			    "passed over", (long long)ids[i], (long long)k);
	}
	return APP_OK;
}

const struct worker_job worker_jobs[] = {
	{ "instance", 0, 0, job_instance_next, job_instance },
	{ "draw", JOB_LEADER, 0, job_draw_next, job_draw },
	{ "abandon", JOB_LEADER, 0, job_abandon_next, job_abandon },
	{ "autorate", JOB_LEADER, 0, job_autorate_next, job_autorate },
	{ "stats", JOB_LEADER, 0, job_stats_next, job_stats },
	{ "retention", JOB_LEADER, 0, job_autorate_retention_next,
	    job_autorate_retention },
	{ "changes", JOB_LEADER, 0, job_changes_next, job_changes },
	{ "seal", JOB_LEADER, 0, job_seal_next, job_seal },
	{ "unused", JOB_LEADER, 1000, NULL, job_unused },
	{ "loadtest", JOB_DAEMON, 0, job_loadtest_next, job_loadtest },
	{ "loadtest-schedules", JOB_LEADER, 5000, NULL,
	    job_loadtest_schedules },
};

const size_t worker_njobs = sizeof(worker_jobs) / sizeof(worker_jobs[0]);
