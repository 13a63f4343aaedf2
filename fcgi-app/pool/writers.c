/*
 * writers.c - a pool-wide limit on requests that are inside a database
 * write at once, so that writes stuck on the database (a locked queue
 * row, a hanging server) never occupy every worker: at least one worker
 * stays free for the requests that need no database (status, info,
 * verify).  The slots live in a shared anonymous mapping that the
 * master creates before it forks; workers take and give back slots
 * with C11 atomics, and the master frees the slots of workers that died.
 * A worker waiting for a slot sleeps in poll(2) on an eventfd(2) that
 * the master creates too (a semaphore): whoever gives a slot back while
 * someone waits posts it, so the wait ends as soon as a slot is free,
 * not at the next tick of a timer.
 */
#include "config.h"

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "aqueue.h"
#include "extern.h"
#include "log.h"

/*
 * A write whose slot holders have all been inside the database this
 * long, with none finishing, finds the database stuck: it is refused at
 * once.  Below that, it waits for a slot (a join takes about a
 * millisecond; much longer on a loaded machine), at most WAIT_MAX_MS in
 * all, while its worker answers other requests (the wait function given
 * to writers_init(): the pool's pool_wait()).  Both stay
 * well below the server's own lock wait bound (db-lock-timeout), so a
 * refused join is answered within about half a second.
 */
#define STUCK_MS	500
#define WAIT_MAX_MS	500

struct slot {
	atomic_int		 pid;		/* holder, 0 when free */
	atomic_llong		 since_ms;	/* monotonic; 0: just taken */
};

static struct slot	*slots;		/* shared with every worker */
static size_t		 nslots;
/*
 * The slots in use, from the front: nslots, or fewer while an elastic
 * pool runs fewer processes (writers_resize()).  Shared too.
 */
static atomic_size_t	*nused;
/*
 * The workers waiting for a slot, by pid (0: free entry), so that the
 * master can strike out one that died waiting: two per worker, for the
 * old set that drains after a reload beside the new one.
 */
static atomic_int	*waiters;	/* shared too, after the slots */
static size_t		 nwaiters;
static int		 wake_fd = -1;	/* eventfd: a slot came free */
static size_t		 mine = (size_t)-1;	/* this worker's slot */
static writers_wait_fn	 wait_fn;	/* the pool's, from writers_init() */

int
writers_init(size_t workers, writers_wait_fn wait)
{
	size_t	 i;
	void	*p;

	wait_fn = wait;
	nslots = workers > 1 ? workers - 1 : 1;
	nwaiters = 2 * (workers > 0 ? workers : 1);
	p = mmap(NULL, nslots * sizeof(*slots) + nwaiters * sizeof(*waiters) +
	    sizeof(*nused), PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("mmap");
		slots = NULL;
		return -1;
	}
	slots = p;
	waiters = (atomic_int *)(void *)(slots + nslots);
	/* nwaiters is even: 8-aligned after the 4-byte waiters. */
	nused = (atomic_size_t *)(void *)(waiters + nwaiters);
	atomic_init(nused, nslots);
	for (i = 0; i < nslots; i++) {
		atomic_init(&slots[i].pid, 0);
		atomic_init(&slots[i].since_ms, 0);
	}
	for (i = 0; i < nwaiters; i++)
		atomic_init(&waiters[i], 0);
	/* Without it, a waiter wakes every millisecond to look. */
	wake_fd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
	if (wake_fd == -1)
		log_warn("eventfd");
	return 0;
}

/* Tell one waiter, if any, that a slot came free. */
static void
wake_one(void)
{
	uint64_t	 one = 1;
	size_t		 i;

	if (wake_fd == -1)
		return;
	for (i = 0; i < nwaiters; i++)
		if (atomic_load(&waiters[i]) != 0)
			break;
	if (i == nwaiters)
		return;
	if (write(wake_fd, &one, sizeof(one)) == -1 && errno != EAGAIN)
		log_warn("eventfd write");
}

/*
 * Enter this process among the waiters: its entry, or -1 when there is
 * no free one (then it looks every millisecond instead).
 */
static ssize_t
wait_enter(void)
{
	int	 me = (int)getpid(), free_pid;
	size_t	 i;

	for (i = 0; i < nwaiters; i++) {
		free_pid = 0;
		if (atomic_compare_exchange_strong(&waiters[i], &free_pid,
		    me))
			return (ssize_t)i;
	}
	return -1;
}

/* Take a free slot for this process: 1, or 0 when all are held. */
static int
take(int64_t *youngest)
{
	int	 me = (int)getpid(), free_pid;
	int64_t	 since;
	size_t	 i, n = atomic_load(nused);

	*youngest = 0;
	for (i = 0; i < n && i < nslots; i++) {
		free_pid = 0;
		if (atomic_compare_exchange_strong(&slots[i].pid, &free_pid,
		    me)) {
			atomic_store(&slots[i].since_ms, mono_ms());
			mine = i;
			return 1;
		}
		since = atomic_load(&slots[i].since_ms);
		if (since == 0)
			since = mono_ms();
		if (since > *youngest)
			*youngest = since;
	}
	return 0;
}

enum app_err
writers_enter(void)
{
	int64_t		 start = mono_ms(), now, youngest, left;
	ssize_t		 entry = -1;
	int		 waiting = 0;
	enum app_err	 er = APP_OK;

	if (slots == NULL || mine != (size_t)-1)
		return APP_OK;
	for (;;) {
		if (take(&youngest))
			break;
		/*
		 * Counted as a waiter before the look that precedes the
		 * sleep: a slot given back after that look is posted.
		 */
		if (!waiting) {
			entry = wait_enter();
			waiting = 1;
			continue;
		}
		now = mono_ms();
		left = STUCK_MS - (now - youngest);
		if (WAIT_MAX_MS - (now - start) < left)
			left = WAIT_MAX_MS - (now - start);
		if (left <= 0) {
			er = APP_BUSY;
			break;
		}
		if (entry == -1 || wake_fd == -1)
			wait_fn(1, -1);
		else
			wait_fn((int)left, wake_fd);
	}
	if (entry != -1)
		atomic_store(&waiters[entry], 0);
	return er;
}

void
writers_leave(void)
{
	if (slots == NULL || mine == (size_t)-1)
		return;
	atomic_store(&slots[mine].since_ms, 0);
	atomic_store(&slots[mine].pid, 0);
	mine = (size_t)-1;
	wake_one();
}

void
writers_resize(size_t workers)
{
	size_t	 n = workers > 1 ? workers - 1 : 1, was;

	if (slots == NULL)
		return;
	if (n > nslots)
		n = nslots;
	/* More slots: a waiter may take each new one now. */
	for (was = atomic_exchange(nused, n); was < n; was++)
		wake_one();
}

void
writers_reap(pid_t pid)
{
	size_t	 i;
	int	 held;

	if (slots == NULL || pid <= 0)
		return;
	for (i = 0; i < nslots; i++) {
		held = (int)pid;
		if (atomic_load(&slots[i].pid) != held)
			continue;
		atomic_store(&slots[i].since_ms, 0);
		if (atomic_compare_exchange_strong(&slots[i].pid, &held, 0))
			wake_one();
	}
	/* One that died waiting is no longer a waiter. */
	for (i = 0; i < nwaiters; i++) {
		held = (int)pid;
		(void)atomic_compare_exchange_strong(&waiters[i], &held, 0);
	}
}
