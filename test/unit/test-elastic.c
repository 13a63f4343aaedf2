/*
 * test-elastic.c - the elastic pool (fcgi-app/pool/elastic.c): the
 * maximum clamped to the connection budget (less the master's and,
 * without embedded-worker, aqueue-worker's) and never below the
 * minimum; the decision over a scoreboard (fork one when every running
 * process has been busy long enough, into the first empty slot, never
 * past the maximum, retiring processes counted; retire the process
 * idle the longest, never below the minimum; an old set draining after
 * a reload counted toward the maximum); and the marks a child
 * makes in its slot (busy when it takes a request, idle when it goes
 * back to wait, also when it then loses the accept to another process;
 * busy all along from one request straight to the next; nothing once
 * another process claimed the slot); a reload's budget moves the
 * maximum.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "elastic.h"
#include "tap.h"

#define NOW	1000000		/* a monotonic time, ms */

static const struct elastic_limits lim = { 2, 6, 200, 10000 };

/* Slot i: process pid (0: empty), busy or idle since NOW - ago ms. */
static void
set(struct elastic_view *v, size_t i, pid_t pid, int busy, int64_t ago)
{
	v[i].pid = pid;
	v[i].retiring = 0;
	v[i].busy = busy;
	v[i].since_ms = NOW - ago;
}

/*
 * The decision over v[0..n) and draining processes outside them under
 * l, as "none", "fork 2", "retire 1".
 */
static const char *
decide_d(const struct elastic_view *v, size_t n, size_t draining,
    const struct elastic_limits *l)
{
	static char		 out[32];
	size_t			 slot = 99;
	enum elastic_act	 a;

	a = elastic_decide(v, n, draining, l, NOW, &slot);
	if (a == ELASTIC_FORK)
		snprintf(out, sizeof(out), "fork %zu", slot);
	else if (a == ELASTIC_RETIRE)
		snprintf(out, sizeof(out), "retire %zu", slot);
	else
		snprintf(out, sizeof(out), "none%s", slot == 99 ? "" : "?");
	return out;
}

/* The decision over v[0..n) under l, nothing draining. */
static const char *
decide(const struct elastic_view *v, size_t n, const struct elastic_limits *l)
{
	return decide_d(v, n, 0, l);
}

static void
test_clamp(void)
{
	/* aqueue-worker's 2 kept: 6 children + the master + 2 = 9. */
	is_int(elastic_clamp(2, 6, 20, 0), 6, "budget 20: workers-max 6 stays");
	is_int(elastic_clamp(2, 6, 9, 0), 6, "budget 9: 6 children fit");
	is_int(elastic_clamp(2, 6, 8, 0), 5,
	    "budget 8: 5 children + master + aqueue-worker's 2");
	is_int(elastic_clamp(2, 6, 6, 0), 3,
	    "budget 6: 3 children + master + aqueue-worker's 2");
	/* Never below the minimum, whatever the budget. */
	is_int(elastic_clamp(2, 6, 4, 0), 2,
	    "budget 4: 1 child fits, still workers-min 2");
	is_int(elastic_clamp(3, 6, 1, 0), 3, "budget 1: still workers-min 3");
	is_int(elastic_clamp(1, 256, 100000, 0), 256, "a big budget: 256");
	/* embedded-worker on: no worker daemon to keep connections for. */
	is_int(elastic_clamp(2, 6, 7, 1), 6,
	    "embedded-worker, budget 7: 6 children fit");
	is_int(elastic_clamp(2, 6, 6, 1), 5,
	    "embedded-worker, budget 6: 5 children + master");
	is_int(elastic_clamp(2, 6, 4, 1), 3,
	    "embedded-worker, budget 4: 3 children + master");
	is_int(elastic_clamp(2, 6, 2, 1), 2,
	    "embedded-worker, budget 2: still workers-min 2");
}

static void
test_fork(void)
{
	struct elastic_view	 v[6];
	struct elastic_limits	 l = lim;

	memset(v, 0, sizeof(v));
	set(v, 0, 101, 1, 250);
	set(v, 1, 102, 1, 200);
	is_str(decide(v, 6, &l), "fork 2", "both busy >= 200 ms: fork one");
	set(v, 1, 102, 1, 199);
	is_str(decide(v, 6, &l), "none", "one busy only 199 ms: nothing");
	set(v, 1, 102, 0, 5);
	is_str(decide(v, 6, &l), "none", "one idle: nothing");
	set(v, 1, 102, 0, 60000);
	is_str(decide(v, 6, &l), "none",
	    "one idle a minute, but 2 = workers-min: nothing");
	/* The first empty slot, wherever it is. */
	set(v, 1, 0, 0, 0);
	set(v, 2, 103, 1, 1000);
	is_str(decide(v, 6, &l), "fork 1", "an empty slot between two");
	/* No process at all: refilling is the respawn loop's. */
	memset(v, 0, sizeof(v));
	is_str(decide(v, 6, &l), "none", "nothing runs: nothing decided");
	/* At the maximum: all six busy. */
	set(v, 0, 101, 1, 900);
	set(v, 1, 102, 1, 900);
	set(v, 2, 103, 1, 900);
	set(v, 3, 104, 1, 900);
	set(v, 4, 105, 1, 900);
	is_str(decide(v, 6, &l), "fork 5", "five busy of max 6: the sixth");
	set(v, 5, 106, 1, 900);
	is_str(decide(v, 6, &l), "none", "six busy of max 6: no more");
	/* The budget's clamp: a maximum below the slots. */
	memset(v, 0, sizeof(v));
	l.max = 3;
	set(v, 0, 101, 1, 900);
	set(v, 1, 102, 1, 900);
	is_str(decide(v, 6, &l), "fork 2", "two busy of max 3: a third");
	set(v, 2, 103, 1, 900);
	is_str(decide(v, 6, &l), "none",
	    "three busy of max 3 (the budget's): no fourth, slots free");
	/* A retiring process holds its connection: it counts in max. */
	v[2].retiring = 1;
	v[2].busy = 0;
	is_str(decide(v, 6, &l), "none",
	    "two busy + one retiring = max 3: no fork");
	l.max = 4;
	is_str(decide(v, 6, &l), "fork 3",
	    "two busy + one retiring (idle) of max 4: fork, the retiring "
	    "one is not waited for");
}

static void
test_retire(void)
{
	struct elastic_view	 v[6];
	struct elastic_limits	 l = lim;

	memset(v, 0, sizeof(v));
	set(v, 0, 101, 1, 50);
	set(v, 1, 102, 0, 11000);
	set(v, 2, 103, 0, 12000);
	set(v, 3, 104, 0, 3000);
	is_str(decide(v, 6, &l), "retire 2",
	    "4 running, min 2: the one idle longest (12 s) goes");
	set(v, 2, 103, 0, 11000);
	is_str(decide(v, 6, &l), "retire 2", "a tie: the higher slot");
	set(v, 1, 102, 0, 9999);
	set(v, 2, 103, 0, 9999);
	is_str(decide(v, 6, &l), "none", "idle 9.999 s: not yet");
	set(v, 2, 103, 0, 10000);
	is_str(decide(v, 6, &l), "retire 2", "idle exactly 10 s: goes");
	/* Never below the minimum. */
	memset(v, 0, sizeof(v));
	set(v, 0, 101, 0, 60000);
	set(v, 1, 102, 0, 60000);
	is_str(decide(v, 6, &l), "none", "2 idle a minute, min 2: stay");
	set(v, 2, 103, 0, 60000);
	is_str(decide(v, 6, &l), "retire 2",
	    "3 idle a minute, min 2: one goes (tie: the higher slot)");
	/* One already retiring: the two left are the minimum. */
	v[2].retiring = 1;
	is_str(decide(v, 6, &l), "none",
	    "one retiring, 2 left = min 2: no second retire");
	/* An empty slot whose old flag lingers is just empty. */
	v[2].pid = 0;
	is_str(decide(v, 6, &l), "none", "2 running, min 2: stay");
	l.min = 1;
	is_str(decide(v, 6, &l), "retire 1", "min 1: one of two goes");
}

/* After a reload: the old set, draining, counts toward the maximum. */
static void
test_draining(void)
{
	struct elastic_view	 v[6];
	struct elastic_limits	 l = lim;

	memset(v, 0, sizeof(v));
	/* The new set's two, both busy; the old set's six drain. */
	set(v, 0, 201, 1, 900);
	set(v, 1, 202, 1, 900);
	is_str(decide_d(v, 6, 6, &l), "none",
	    "2 busy + 6 draining, max 6: no fork");
	is_str(decide_d(v, 6, 4, &l), "none",
	    "2 busy + 4 draining = max 6: no fork");
	is_str(decide_d(v, 6, 3, &l), "fork 2",
	    "2 busy + 3 draining of max 6: fork");
	is_str(decide_d(v, 6, 0, &l), "fork 2",
	    "the old set gone: fork");
	/* Draining ones are not the new set's: they never block a retire. */
	set(v, 0, 201, 0, 60000);
	set(v, 1, 202, 0, 60000);
	set(v, 2, 203, 0, 60000);
	is_str(decide_d(v, 6, 3, &l), "retire 2",
	    "3 idle a minute + 3 draining, min 2: one goes");
	/* Retiring and draining add up. */
	set(v, 0, 201, 1, 900);
	set(v, 1, 202, 1, 900);
	v[2].retiring = 1;
	is_str(decide_d(v, 6, 3, &l), "none",
	    "2 busy + 1 retiring + 3 draining = max 6: no fork");
	is_str(decide_d(v, 6, 2, &l), "fork 3",
	    "2 busy + 1 retiring + 2 draining of max 6: fork");
}

/* The marks a child makes, in this process as its own child. */
static void
test_marks(void)
{
	struct cfg		 c;
	pid_t			 pids[5] = { 0, 0, 0, 0, 0 };
	pid_t			 none[5] = { 0, 0, 0, 0, 0 };
	size_t			 slot = 99, n;

	is_int(elastic_workers(), -1, "before elastic_init(): not elastic");
	memset(&c, 0, sizeof(c));
	c.workers = 4;
	c.workers_min = 1;
	c.workers_max = 5;
	c.db_max_connections = 6;
	n = elastic_init(&c);
	is_int(n, 5, "a slot for each of workers-max 5");
	is_int(elastic_reload(&c, "same"), 3,
	    "workers-max 5 lowered to 3 by db-max-connections 6 "
	    "(the master's 1, aqueue-worker's 2)");
	elastic_prepare(0);
	elastic_child();
	pids[0] = getpid();
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "one idle: none");
	is_int(elastic_workers(), 1, "one process running");
	elastic_busy();
	sleep_ms(250);
	/* Straight on to the next request: busy all along. */
	elastic_idle();
	elastic_busy();
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_FORK,
	    "busy 250 ms, the next request taken at once: fork");
	is_int(slot, 1, "... into slot 1");
	/*
	 * Back to wait; the next connection wakes it but another process
	 * accepts it first: no request, so no mark.  Idle, not busy.
	 */
	elastic_idle();
	sleep_ms(250);
	slot = 99;
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "the accept lost: idle 250 ms, not busy: none");
	is_int(slot, 99, "... no slot");
	/* A request after that wait: busy from now on, not before. */
	elastic_busy();
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "busy again after 250 ms idle: busy since now: none");
	sleep_ms(250);
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_FORK,
	    "... and 250 ms later: fork");
	/* Idle 20 ms between two requests: not busy all along. */
	elastic_idle();
	sleep_ms(20);
	elastic_busy();
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "idle 20 ms before the next request: busy anew: none");
	elastic_idle();
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "idle now: none");
	/* The slot given to another process: this one marks nothing. */
	elastic_prepare(0);
	elastic_busy();
	sleep_ms(250);
	is_int(elastic_tick(pids, none, n, &slot), ELASTIC_NONE,
	    "a slot not claimed by this process stays idle");
}

/*
 * A reload's db-max-connections and embedded-worker move the maximum;
 * the old set draining counts toward it; a failed fork is not asked
 * for again during the back-off.
 */
static void
test_reload(void)
{
	struct cfg		 c;
	pid_t			 pids[5] = { 0, 0, 0, 0, 0 };
	pid_t			 none[5] = { 0, 0, 0, 0, 0 };
	pid_t			 old[5] = { 0, 0, 0, 0, 0 };
	size_t			 slot = 99;

	memset(&c, 0, sizeof(c));
	c.workers = 4;
	c.workers_min = 1;
	c.workers_max = 5;
	c.db_max_connections = 20;
	is_int(elastic_reload(&c, "SIGHUP"), 5,
	    "db-max-connections 20: workers-max 5, all the slots");
	c.db_max_connections = 5;
	is_int(elastic_reload(&c, "SIGHUP"), 2,
	    "db-max-connections 5: 2 (+ the master + aqueue-worker's 2)");
	c.db_max_connections = 3;
	is_int(elastic_reload(&c, "SIGHUP"), 1,
	    "db-max-connections 3: none fit, workers-min 1");
	c.embedded_worker = 1;
	is_int(elastic_reload(&c, "SIGHUP"), 2,
	    "db-max-connections 3, embedded-worker: 2 (+ the master)");
	c.embedded_worker = 0;
	c.db_max_connections = 3;
	(void)elastic_reload(&c, "SIGHUP");
	/* The maximum in force is the one the decision keeps to. */
	elastic_prepare(0);
	elastic_child();
	pids[0] = getpid();
	elastic_busy();
	sleep_ms(250);
	is_int(elastic_tick(pids, none, 5, &slot), ELASTIC_NONE,
	    "maximum 1 after the reload: busy 250 ms, no fork");
	c.db_max_connections = 6;
	is_int(elastic_reload(&c, "SIGHUP"), 3, "db-max-connections 6: 3");
	is_int(elastic_tick(pids, none, 5, &slot), ELASTIC_FORK,
	    "maximum 3 after the next: fork");
	is_int(slot, 1, "... into slot 1");
	/* A reload: two of the old set still draining (not signalled). */
	old[0] = 900001;
	old[3] = 900002;
	is_int(elastic_tick(pids, old, 5, &slot), ELASTIC_NONE,
	    "1 busy + 2 draining = maximum 3: no fork");
	old[3] = 0;
	slot = 99;
	is_int(elastic_tick(pids, old, 5, &slot), ELASTIC_FORK,
	    "1 busy + 1 draining of maximum 3: fork");
	is_int(slot, 1, "... into slot 1");
	/* That fork failed: none asked for during the back-off. */
	elastic_fork_failed(300);
	is_int(elastic_tick(pids, old, 5, &slot), ELASTIC_NONE,
	    "the fork failed: none during the 300 ms back-off");
	sleep_ms(350);
	is_int(elastic_tick(pids, old, 5, &slot), ELASTIC_FORK,
	    "the back-off over: fork again");
	elastic_idle();
}

int
main(void)
{
	test_clamp();
	test_fork();
	test_retire();
	test_draining();
	test_marks();
	test_reload();
	return done_testing();
}
