/*
 * main.c - aqueue-worker: the background daemon.  One event loop: every
 * second the leader lock is checked (or tried, by a standby), and each
 * job of worker_jobs[] runs when its deadline has come, on the leader
 * only when it is flagged JOB_LEADER.  Between steps the process waits
 * in ppoll(2) until the earliest deadline, with SIGTERM, SIGINT and
 * SIGHUP unblocked only there: a signal never interrupts a step, it
 * ends the loop after the step that runs (exit 0, the lock released).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "db-worker.h"
#include "log.h"
#include "worker.h"

/* How often the leader lock is checked, or tried by a standby. */
#define LEADER_TICK_MS	1000

static volatile sig_atomic_t	 stop_sig;

static void
on_signal(int sig)
{
	stop_sig = sig;
}

static void
usage(void)
{
	fprintf(stderr, "usage: aqueue-worker [-n] [-c config]\n");
	exit(2);
}

/*
 * Block the stop signals (they are taken only inside ppoll) and ignore
 * SIGPIPE.  Fills *wait_mask with the mask ppoll waits under.  Returns
 * 0, or -1 (logged).
 */
static int
setup_signals(sigset_t *wait_mask)
{
	struct sigaction	 sa;
	sigset_t		 block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1) {
		log_error("sigaction");
		return -1;
	}
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) == -1) {
		log_error("sigaction");
		return -1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, wait_mask) == -1) {
		log_error("sigprocmask");
		return -1;
	}
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGHUP);
	return 0;
}

/*
 * One leader step: a leader checks that its session still holds the
 * lock (a lost connection is lost leadership), a standby tries to take
 * it.  Logs each change.  Can't fail.
 */
static void
leader_step(struct worker_ctx *w, struct db *lockdb)
{
	enum app_err	 er;
	int		 ok = 0;

	if (w->leader) {
		er = db_leader_check(lockdb, &ok);
		if (!ok) {
			w->leader = 0;
			log_info("leader: lost the lock (%s); now standby",
			    er == APP_OK ? "another session holds it" :
			    "database connection lost");
		}
		return;
	}
	if (db_leader_get(lockdb, &ok) == APP_OK && ok) {
		w->leader = 1;
		log_info("leader: took the lock '%s'; this worker leads",
		    DB_LEADER_LOCK);
	}
}

/*
 * Run job i: log an error it returns, then set its next deadline.
 */
static void
run_job(struct worker_ctx *w, size_t i, int64_t *due)
{
	const struct worker_job	*j = &worker_jobs[i];
	enum app_err		 er;

	log_debug("job %s: run", j->name);
	if ((er = j->fn(w)) != APP_OK)
		log_warnx("job %s: failed (error %d); again at its next "
		    "deadline", j->name, (int)er);
	w->now_ms = db_clock_ms(w->db);
	due[i] = j->next != NULL ? j->next(w) : w->now_ms + j->interval_ms;
}

int
main(int argc, char *argv[])
{
	struct cfg		 c;
	struct worker_ctx	 w;
	struct db		*lockdb;
	const char		*conf = "/etc/aqueue/aqueue.conf";
	sigset_t		 wait_mask;
	struct timespec		 ts;
	int64_t			*due, next_leader = 0, wake, t;
	size_t			 i;
	int			 ch, check_only = 0;

	log_open("aqueue-worker", 0);
	while ((ch = getopt(argc, argv, "c:f:n")) != -1)
		switch (ch) {
		case 'c':
		case 'f':
			conf = optarg;
			break;
		case 'n':
			check_only = 1;
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	if (cfg_load(conf, &c) == -1) {
		cfg_free(&c);
		return 1;
	}
	if (check_only) {
		cfg_free(&c);
		return 0;
	}
	if (setup_signals(&wait_mask) == -1)
		return 1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_errorx("curl_global_init failed");
		return 1;
	}

	memset(&w, 0, sizeof(w));
	w.cfg = &c;
	w.db = db_open(&c);
	lockdb = db_open(&c);
	if (gethostname(w.host, sizeof(w.host) - 1) == -1)
		snprintf(w.host, sizeof(w.host), "localhost");
	snprintf(w.instance_id, sizeof(w.instance_id), "worker:%s:%ld",
	    w.host, (long)getpid());
	w.who.kind = PRINCIPAL_WORKER;
	snprintf(w.who.name, sizeof(w.who.name), "worker");
	if (db_now_ms(w.db, &t) == APP_OK)
		w.started_ms = t;
	else
		w.started_ms = db_clock_ms(w.db);
	due = xcalloc(worker_njobs + 1, sizeof(*due));
	log_info("started as %s with %zu jobs (config %s)", w.instance_id,
	    worker_njobs, conf);

	while (!stop_sig) {
		w.now_ms = db_clock_ms(w.db);
		if (now_ms() >= next_leader) {
			leader_step(&w, lockdb);
			/* Keep the DB clock offset fresh. */
			(void)db_now_ms(w.db, &t);
			w.now_ms = db_clock_ms(w.db);
			next_leader = now_ms() + LEADER_TICK_MS;
		}
		for (i = 0; i < worker_njobs && !stop_sig; i++) {
			if ((worker_jobs[i].flags & JOB_LEADER) && !w.leader)
				continue;
			if (due[i] <= w.now_ms)
				run_job(&w, i, due);
		}
		/* Sleep until the earliest deadline, at most a leader tick. */
		wake = next_leader - now_ms();
		t = db_clock_ms(w.db);
		for (i = 0; i < worker_njobs; i++) {
			if ((worker_jobs[i].flags & JOB_LEADER) && !w.leader)
				continue;
			if (due[i] - t < wake)
				wake = due[i] - t;
		}
		if (wake < 0)
			wake = 0;
		ts.tv_sec = (time_t)(wake / 1000);
		ts.tv_nsec = (long)(wake % 1000) * 1000000L;
		if (ppoll(NULL, 0, &ts, &wait_mask) == -1 && errno != EINTR)
			log_warn("ppoll");
	}

	log_info("stopping on signal %d", (int)stop_sig);
	if (w.leader) {
		(void)db_leader_release(lockdb);
		log_info("leader: released the lock '%s'", DB_LEADER_LOCK);
	}
	free(due);
	db_close(lockdb);
	db_close(w.db);
	cfg_free(&c);
	curl_global_cleanup();
	log_info("stopped");
	return 0;
}
