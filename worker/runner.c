/*
 * runner.c - the worker's loop in steps (see worker.h): the leader lock,
 * the job table's deadlines and one bounded job at a time, driven by the
 * daemon's event loop (worker/main.c) or, between requests, by a FastCGI
 * process (fcgi-app/pool/embedded-worker.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "db-worker.h"
#include "instance.h"
#include "log.h"
#include "worker.h"

/* How often the offset to the database's clock is measured again. */
#define CLOCK_TICK_MS	30000

void
worker_run_init(struct worker_run *r, const struct cfg *c, struct db *db,
    struct db *lockdb, int embedded)
{
	struct worker_ctx	*w = &r->w;

	memset(r, 0, sizeof(*r));
	w->cfg = c;
	w->db = db;
	r->lockdb = lockdb;
	r->embedded = embedded;
	w->embedded = embedded;
	if (gethostname(w->host, sizeof(w->host) - 1) == -1)
		snprintf(w->host, sizeof(w->host), "localhost");
	snprintf(w->instance_id, sizeof(w->instance_id), "worker:%s:%ld",
	    w->host, (long)getpid());
	w->who.kind = PRINCIPAL_WORKER;
	snprintf(w->who.name, sizeof(w->who.name), "worker");
	w->started_ms = db_clock_ms(db);
	r->due = xcalloc(worker_njobs + 1, sizeof(*r->due));
}

/* The database this process works for, for the log. */
static const char *
db_label(const struct worker_run *r)
{
	const char	*n = r->w.cfg->db_name;

	return n != NULL && n[0] != '\0' ? n : "(default)";
}

/*
 * This process stops leading: log why, drop what a leader had under
 * way, remove an embedded leader's row from table instance (a standby
 * there reports nothing).  Can't fail.
 */
static void
lost(struct worker_run *r, const char *why)
{
	r->w.leader = 0;
	job_autorate_abort();
	job_rounds_abort();
	log_info("leader: lost the lock (%s); now standby", why);
	if (r->embedded)
		(void)instance_remove(r->w.db, "worker");
}

int
worker_run_leader(struct worker_run *r, int may_try)
{
	struct worker_ctx	*w = &r->w;
	enum app_err		 er;
	int64_t			 t = now_ms(), clk;
	int			 was = w->leader, ok = 0;
	size_t			 i;

	/* A new session holds nothing: the lock went with the old one. */
	if (w->leader && db_session(r->lockdb) != r->lock_session)
		lost(r, "database connection lost");
	if (t >= r->next_leader) {
		if (w->leader) {
			r->next_leader = t + WORKER_LEADER_TICK_MS;
			er = db_leader_check(r->lockdb, &ok);
			if (!ok)
				lost(r, er == APP_OK ?
				    "another session holds it" :
				    "database connection lost");
		} else if (!r->embedded || (may_try && t >= r->next_try)) {
			r->next_leader = t + WORKER_LEADER_TICK_MS;
			r->next_try = t + WORKER_EMBEDDED_TRY_MS;
			if (db_leader_get(r->lockdb, &ok) == APP_OK && ok) {
				w->leader = 1;
				r->lock_session = db_session(r->lockdb);
				log_info("leader: took the lock '%s' of "
				    "database %s; this %s leads",
				    DB_LEADER_LOCK, db_label(r), r->embedded ?
				    "process's embedded worker" : "worker");
			}
		}
	}
	/* Keep the DB clock offset fresh, twice a minute. */
	if ((w->leader || !r->embedded) && t >= r->next_clock) {
		(void)db_now_ms(w->db, &clk);
		r->next_clock = t + CLOCK_TICK_MS;
	}
	/* A new role: every job is due now (the report too). */
	for (i = 0; was != w->leader && i < worker_njobs; i++)
		r->due[i] = 0;
	return w->leader;
}

/*
 * Whether job j runs in this role now: on the leader every job; on a
 * daemon's standby those without JOB_LEADER (its report); on an
 * embedded standby none (an idle FastCGI process costs nothing); a
 * JOB_DAEMON job never in a FastCGI process.
 */
static int
runs_here(const struct worker_run *r, const struct worker_job *j)
{
	if (r->embedded && (j->flags & JOB_DAEMON))
		return 0;
	if (r->w.leader)
		return 1;
	return !r->embedded && !(j->flags & JOB_LEADER);
}

/*
 * Run job i: log an error it returns, then set its next deadline.
 */
static void
run_job(struct worker_run *r, size_t i)
{
	const struct worker_job	*j = &worker_jobs[i];
	struct worker_ctx	*w = &r->w;
	enum app_err		 er;

	log_debug("job %s: run", j->name);
	if ((er = j->fn(w)) != APP_OK)
		log_warnx("job %s: failed (error %d); again at its next "
		    "deadline", j->name, (int)er);
	w->now_ms = db_clock_ms(w->db);
	r->due[i] = j->next != NULL ? j->next(w) : w->now_ms + j->interval_ms;
}

size_t
worker_run_jobs(struct worker_run *r, size_t max, int (*stop)(void))
{
	struct worker_ctx	*w = &r->w;
	size_t			 i, ran = 0;

	if (w->leader && db_session(r->lockdb) != r->lock_session)
		lost(r, "database connection lost");
	w->now_ms = db_clock_ms(w->db);
	for (i = 0; i < worker_njobs && (max == 0 || ran < max); i++) {
		if (stop != NULL && stop())
			break;
		if (!runs_here(r, &worker_jobs[i]) || r->due[i] > w->now_ms)
			continue;
		run_job(r, i);
		ran++;
		/* A job may have lost the connection, and the lock with it. */
		if (w->leader && db_session(r->lockdb) != r->lock_session) {
			lost(r, "database connection lost");
			break;
		}
	}
	return ran;
}

int64_t
worker_run_wait_ms(struct worker_run *r)
{
	int64_t	 wake = -1, t, d;
	size_t	 i;

	if (!r->embedded || r->w.leader) {
		wake = r->next_leader - now_ms();
		if (wake < 0)
			wake = 0;
	}
	t = db_clock_ms(r->w.db);
	for (i = 0; i < worker_njobs; i++) {
		if (!runs_here(r, &worker_jobs[i]))
			continue;
		d = r->due[i] - t;
		if (d < 0)
			d = 0;
		if (wake < 0 || d < wake)
			wake = d;
	}
	return wake;
}

void
worker_run_end(struct worker_run *r)
{
	job_autorate_abort();
	job_rounds_abort();
	job_loadtest_abort(r->w.db);
	if (!r->embedded || r->w.leader)
		(void)instance_remove(r->w.db, "worker");
	if (r->w.leader && db_session(r->lockdb) == r->lock_session) {
		(void)db_leader_release(r->lockdb);
		log_info("leader: released the lock '%s' of database %s",
		    DB_LEADER_LOCK, db_label(r));
	}
	r->w.leader = 0;
	free(r->due);
	r->due = NULL;
}
