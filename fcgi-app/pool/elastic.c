/*
 * elastic.c - the elastic pool: the scoreboard the children mark, the
 * master's check over it, and the pure decision (elastic.h).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/types.h>

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "elastic.h"
#include "extern.h"
#include "log.h"

/* One process's slot: written by the child, read by the master. */
struct board_slot {
	atomic_int	 pid;		/* the child that marks it; 0: none */
	atomic_uchar	 busy;		/* inside a request */
	atomic_llong	 since_ms;	/* monotonic: busy or idle began */
};

/* The shared mapping: the running count (for /metrics), the slots. */
struct board {
	atomic_int		 running;
	struct board_slot	 s[];
};

static struct board		*board;		/* NULL: not elastic */
static size_t			 nslots;
static struct elastic_limits	 lim;
static int			*retiring;	/* the master's, per slot */
static struct elastic_view	*views;		/* the master's, per slot */
static size_t			 mine = (size_t)-1;	/* a child's slot */
static int64_t			 busy_began;	/* a child's: 0 never busy */
static int64_t			 fork_after;	/* the master's: no fork till */

/*
 * How many children the connections of db_max_connections leave room
 * for, after the master's and (embedded_worker 0) the worker daemon's;
 * may be 0 or less.  Can't fail.
 */
static int64_t
conns_fit(int64_t db_max_connections, int embedded_worker)
{
	int64_t	 left = db_max_connections - ELASTIC_CONNS_MASTER;

	if (!embedded_worker)
		left -= ELASTIC_CONNS_WORKER;
	return left / ELASTIC_CONNS_PER_CHILD;
}

size_t
elastic_clamp(int64_t workers_min, int64_t workers_max,
    int64_t db_max_connections, int embedded_worker)
{
	int64_t	 fit;

	fit = conns_fit(db_max_connections, embedded_worker);
	if (fit > workers_max)
		fit = workers_max;
	if (fit < workers_min)
		fit = workers_min;
	return fit > 0 ? (size_t)fit : 0;
}

enum elastic_act
elastic_decide(const struct elastic_view *v, size_t n, size_t draining,
    const struct elastic_limits *l, int64_t now_ms, size_t *slot)
{
	size_t	 i, total = draining, live = 0, busy = 0, empty = n, old = n;

	for (i = 0; i < n; i++) {
		if (v[i].pid == 0) {
			if (empty == n)
				empty = i;
			continue;
		}
		total++;
		if (v[i].retiring)
			continue;
		live++;
		if (v[i].busy) {
			if (now_ms - v[i].since_ms >= l->busy_ms)
				busy++;
			continue;
		}
		if (now_ms - v[i].since_ms < l->idle_ms)
			continue;
		if (old == n || v[i].since_ms <= v[old].since_ms)
			old = i;
	}
	if (live > 0 && busy == live && total < l->max && empty < n) {
		*slot = empty;
		return ELASTIC_FORK;
	}
	if (live > l->min && old < n) {
		*slot = old;
		return ELASTIC_RETIRE;
	}
	return ELASTIC_NONE;
}

/*
 * Log the limits now in force for configuration c, with why before
 * ("" at start): the budget db-max-connections and what it keeps for
 * the master and the worker daemon (none with embedded-worker on).
 * Can't fail.
 */
static void
log_limits(const struct cfg *c, const char *why)
{
	char	 kept[96];

	if (c->embedded_worker)
		snprintf(kept, sizeof(kept), "the master's %d (embedded-"
		    "worker: none kept for aqueue-worker)",
		    ELASTIC_CONNS_MASTER);
	else
		snprintf(kept, sizeof(kept), "the master's %d and "
		    "aqueue-worker's %d", ELASTIC_CONNS_MASTER,
		    ELASTIC_CONNS_WORKER);
	if (conns_fit(c->db_max_connections, c->embedded_worker != 0) <
	    c->workers_min)
		log_warnx("%selastic pool: workers-min = %lld processes need "
		    "more connections than db-max-connections = %lld leaves "
		    "after %s: a fixed pool of %zu", why,
		    (long long)c->workers_min,
		    (long long)c->db_max_connections, kept, lim.max);
	else if (lim.max < (size_t)c->workers_max)
		log_info("%selastic pool: %zu to %zu processes (workers-max "
		    "%lld lowered: %zu processes of %d connection, %s fit "
		    "in db-max-connections = %lld)", why, lim.min, lim.max,
		    (long long)c->workers_max, lim.max,
		    ELASTIC_CONNS_PER_CHILD, kept,
		    (long long)c->db_max_connections);
	else
		log_info("%selastic pool: %zu to %zu processes (%zu of %d "
		    "connection, %s within db-max-connections = %lld)",
		    why, lim.min, lim.max, lim.max, ELASTIC_CONNS_PER_CHILD,
		    kept, (long long)c->db_max_connections);
}

size_t
elastic_init(const struct cfg *c)
{
	size_t	 n, i;
	void	*p;

	if (c->workers_max == 0)
		return (size_t)c->workers;
	/* One slot up to workers-max: a reload may raise the clamp. */
	n = (size_t)c->workers_max;
	p = mmap(NULL, sizeof(*board) + n * sizeof(board->s[0]),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("elastic pool: mmap (a fixed pool of workers-min = "
		    "%lld instead)", (long long)c->workers_min);
		return (size_t)c->workers_min;
	}
	board = p;
	atomic_init(&board->running, 0);
	for (i = 0; i < n; i++) {
		atomic_init(&board->s[i].pid, 0);
		atomic_init(&board->s[i].busy, 0);
		atomic_init(&board->s[i].since_ms, 0);
	}
	nslots = n;
	retiring = xcalloc(n, sizeof(*retiring));
	views = xcalloc(n, sizeof(*views));
	lim.min = (size_t)c->workers_min;
	lim.max = elastic_clamp(c->workers_min, c->workers_max,
	    c->db_max_connections, c->embedded_worker != 0);
	lim.busy_ms = ELASTIC_BUSY_MS;
	lim.idle_ms = ELASTIC_IDLE_MS;
	log_limits(c, "");
	return n;
}

size_t
elastic_reload(const struct cfg *nc, const char *why)
{
	char	 pre[64];
	size_t	 max;

	if (board == NULL)
		return 0;
	max = elastic_clamp((int64_t)lim.min, (int64_t)nslots,
	    nc->db_max_connections, nc->embedded_worker != 0);
	lim.max = max < nslots ? max : nslots;
	snprintf(pre, sizeof(pre), "%s: ", why);
	log_limits(nc, pre);
	return lim.max;
}

void
elastic_start(void)
{
	if (board != NULL)
		writers_resize(lim.min);
}

void
elastic_prepare(size_t i)
{
	if (board == NULL || i >= nslots)
		return;
	atomic_store(&board->s[i].pid, 0);
	atomic_store(&board->s[i].busy, 0);
	atomic_store(&board->s[i].since_ms, mono_ms());
	retiring[i] = 0;
	mine = i;
}

void
elastic_child(void)
{
	if (board != NULL && mine < nslots)
		atomic_store(&board->s[mine].pid, (int)getpid());
}

/* This child's slot, or NULL (not elastic, or claimed by another). */
static struct board_slot *
my_slot(void)
{
	if (board == NULL || mine >= nslots ||
	    atomic_load(&board->s[mine].pid) != (int)getpid())
		return NULL;
	return &board->s[mine];
}

void
elastic_busy(void)
{
	struct board_slot	*s;
	int64_t			 now;

	if ((s = my_slot()) == NULL || atomic_load(&s->busy))
		return;
	now = mono_ms();
	/* Straight from one request to the next: busy all along. */
	if (busy_began == 0 || now - atomic_load(&s->since_ms) >=
	    ELASTIC_GAP_MS)
		busy_began = now;
	atomic_store(&s->since_ms, busy_began);
	atomic_store(&s->busy, 1);
}

void
elastic_idle(void)
{
	struct board_slot	*s;

	if ((s = my_slot()) == NULL || !atomic_load(&s->busy))
		return;
	atomic_store(&s->since_ms, mono_ms());
	atomic_store(&s->busy, 0);
}

int
elastic_enough(const pid_t *pids, size_t n)
{
	size_t	 i, live = 0;

	if (board == NULL)
		return 0;
	for (i = 0; i < n && i < nslots; i++)
		if (pids[i] > 0 && !retiring[i])
			live++;
	return live >= lim.min;
}

enum elastic_act
elastic_tick(const pid_t *pids, const pid_t *old, size_t n, size_t *slot)
{
	size_t			 i, live = 0, total = 0, draining = 0;
	enum elastic_act	 act;

	if (board == NULL)
		return ELASTIC_NONE;
	if (n > nslots)
		n = nslots;
	for (i = 0; i < n; i++) {
		draining += old[i] > 0;
		if (pids[i] <= 0)
			retiring[i] = 0;
		views[i].pid = pids[i] > 0 ? pids[i] : 0;
		views[i].retiring = retiring[i];
		views[i].busy = atomic_load(&board->s[i].busy);
		views[i].since_ms = atomic_load(&board->s[i].since_ms);
		total += views[i].pid != 0;
		live += views[i].pid != 0 && !retiring[i];
	}
	atomic_store(&board->running, (int)total);
	/* One process always free of writes (writers.c), as in a pool of n. */
	writers_resize(live);
	act = elastic_decide(views, n, draining, &lim, mono_ms(), slot);
	if (act == ELASTIC_FORK && mono_ms() < fork_after)
		return ELASTIC_NONE;	/* the last fork failed: not yet */
	if (act == ELASTIC_FORK) {
		log_info("elastic pool: all %zu processes busy for %lld ms: "
		    "starting one more (%zu draining)", live,
		    (long long)lim.busy_ms, draining);
		return ELASTIC_FORK;
	}
	if (act == ELASTIC_RETIRE) {
		log_info("elastic pool: process %ld idle for %lld s: retiring "
		    "it (%zu left)", (long)pids[*slot],
		    (long long)(lim.idle_ms / 1000), live - 1);
		retiring[*slot] = 1;
		kill(pids[*slot], SIGTERM);
	}
	return ELASTIC_NONE;
}

void
elastic_fork_failed(int64_t ms)
{
	fork_after = mono_ms() + ms;
}

int64_t
elastic_workers(void)
{
	return board != NULL ? atomic_load(&board->running) : -1;
}
