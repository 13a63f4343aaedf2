/*
 * elastic.h - the elastic pool (workers-min, workers-max; php-fpm's
 * "pm = dynamic"): the master keeps workers-min processes, forks one
 * more when every process has been inside requests for ELASTIC_BUSY_MS,
 * and retires one (SIGTERM: it finishes its request, then exits) that
 * has waited for a request for ELASTIC_IDLE_MS while more than
 * workers-min run.  It learns who is busy from a scoreboard: a shared
 * anonymous mapping the master creates before it forks, one slot per
 * process, which each child marks when it takes a request and when it
 * goes back to wait for the next.  Without workers-min/workers-max (the pool of
 * `workers` processes) there is no scoreboard and every call below but
 * elastic_init() and elastic_decide() does nothing.
 */
#ifndef ELASTIC_H
#define ELASTIC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct cfg;

/* Every process inside requests this long: fork one more. */
#define ELASTIC_BUSY_MS		200
/* A process without a request this long: retire it (above the min). */
#define ELASTIC_IDLE_MS		10000
/* Idle less than this between two requests: still busy (ms). */
#define ELASTIC_GAP_MS		5
/*
 * Database connections a child holds (its one, child_main()), the
 * master's own (its report, the samples, the poll documents) and the
 * worker daemon's (aqueue-worker: its jobs' and the leader lock's,
 * start_run() in worker/main.c), which share db-max-connections.
 */
#define ELASTIC_CONNS_PER_CHILD	1
#define ELASTIC_CONNS_MASTER	1
#define ELASTIC_CONNS_WORKER	2

/* What the master knows of one slot, for elastic_decide(). */
struct elastic_view {
	pid_t	 pid;		/* 0: no process in the slot */
	int	 retiring;	/* sent SIGTERM, not yet reaped */
	int	 busy;		/* inside a request (scoreboard) */
	int64_t	 since_ms;	/* monotonic ms busy or idle began */
};

/* The bounds elastic_decide() keeps to. */
struct elastic_limits {
	size_t	 min;		/* processes kept, >= 1 */
	size_t	 max;		/* most processes, retiring ones too */
	int64_t	 busy_ms;	/* all busy this long: fork (ms) */
	int64_t	 idle_ms;	/* idle this long: retire (ms) */
};

/* What elastic_decide() says to do. */
enum elastic_act {
	ELASTIC_NONE,		/* nothing */
	ELASTIC_FORK,		/* start a process in *slot */
	ELASTIC_RETIRE		/* send the process in *slot SIGTERM */
};

/*
 * The most processes an elastic pool may run: workers_max, lowered so
 * that the children's connections (ELASTIC_CONNS_PER_CHILD each), the
 * master's (ELASTIC_CONNS_MASTER) and, unless embedded_worker is set
 * (the pool's own processes run the jobs), the worker daemon's
 * (ELASTIC_CONNS_WORKER) fit in db_max_connections, but never below
 * workers_min (those run whatever the budget: a process without a
 * connection answers from its cache or with 503).  All counts >= 0;
 * returns a count in [workers_min, workers_max].  Can't fail.
 */
size_t		 elastic_clamp(int64_t workers_min, int64_t workers_max,
		    int64_t db_max_connections, int embedded_worker);

/*
 * The pure decision, one check of the master at monotonic time now_ms
 * over the n slots v[0..n-1] and draining processes outside the slots
 * (the old set after a reload, finishing their requests) under limits
 * l:
 *   - ELASTIC_FORK with *slot the first empty slot, when at least one
 *     process runs, every running process that is not retiring is busy
 *     and has been since l->busy_ms or longer, fewer than l->max run
 *     (retiring and draining ones count: they hold their connection
 *     until they exit) and a slot is empty;
 *   - ELASTIC_RETIRE with *slot the process idle the longest (the
 *     higher slot on a tie), when more than l->min run that are not
 *     retiring and it has been idle since l->idle_ms or longer;
 *   - else ELASTIC_NONE (*slot untouched).
 * Starting processes up to l->min is not decided here (the master
 * refills dead slots with its own back-off).  Can't fail.
 */
enum elastic_act elastic_decide(const struct elastic_view *v, size_t n,
		    size_t draining, const struct elastic_limits *l,
		    int64_t now_ms, size_t *slot);

/*
 * In the master, before it forks: with workers-min and workers-max set,
 * compute the limits (elastic_clamp(); logged, with the budget and what
 * it keeps for the master and aqueue-worker) and create the scoreboard.
 * Returns how many slots the pool needs: workers-max (so that a reload
 * may raise the clamped maximum up to it), or c->workers without
 * workers-min/workers-max, or workers-min when the scoreboard cannot be
 * made (logged: then a fixed pool of workers-min).
 */
size_t		 elastic_init(const struct cfg *c);

/*
 * In the master, on a reload (why: "SIGHUP" or the file) that is going
 * ahead with the configuration nc, whose workers-min and workers-max
 * are those of elastic_init(): the maximum again from nc's
 * db-max-connections and embedded-worker (elastic_clamp(), at most the
 * slots), logged as at start.  Returns the maximum now in force, or 0
 * without workers-min/workers-max.  Can't fail.
 */
size_t		 elastic_reload(const struct cfg *nc, const char *why);

/*
 * In the master, after writers_init() and before its first fork: the
 * write slots for the workers-min processes it starts with
 * (writers_resize(); elastic_tick() keeps them in step after that).
 * Does nothing without workers-min/workers-max.  Can't fail.
 */
void		 elastic_start(void);

/*
 * In the master, just before it forks a process for slot i: the slot
 * starts idle, now, owned by nobody until the child claims it; the
 * child inherits i as its slot.  Can't fail.
 */
void		 elastic_prepare(size_t i);

/* In a child just forked: claim its slot (elastic_prepare()). */
void		 elastic_child(void);

/*
 * In a child: it took a request (elastic_busy()); it is between
 * requests and about to wait (elastic_idle(): always marked idle, so a
 * process that lost the next connection to another one does not wait
 * marked busy).  A request taken less than ELASTIC_GAP_MS after the
 * idle mark keeps the busy start of the one before, so a process that
 * goes from one request straight to the next counts as busy all along.
 * A slot another process claimed since (an old child draining after a
 * reload) is left alone.  Can't fail.
 */
void		 elastic_busy(void);
void		 elastic_idle(void);

/*
 * In the master: whether the running processes that are not retiring
 * are workers-min or more (so an empty slot stays empty).  0 without
 * workers-min/workers-max.
 */
int		 elastic_enough(const pid_t *pids, size_t n);

/*
 * In the master, from its loop (a few times a second): one check over
 * its n slots pids[] (0: empty) and the n slots old[] of the set that
 * drains after a reload (0: none; those alive count toward the
 * maximum).  Retires a process itself (SIGTERM, logged); returns
 * ELASTIC_FORK with *slot for the caller to fork into (after
 * elastic_prepare()), else ELASTIC_NONE.  Also keeps the write slots at
 * one fewer than the processes (writers_resize()).
 */
enum elastic_act elastic_tick(const pid_t *pids, const pid_t *old,
		    size_t n, size_t *slot);

/*
 * In the master: the fork elastic_tick() asked for failed (logged by
 * the caller); elastic_tick() asks for none for the next ms
 * milliseconds.  Can't fail.
 */
void		 elastic_fork_failed(int64_t ms);

/*
 * How many processes the elastic pool runs now (any process may ask:
 * /metrics), or -1 without workers-min/workers-max.
 */
int64_t		 elastic_workers(void);

#endif /* ELASTIC_H */
