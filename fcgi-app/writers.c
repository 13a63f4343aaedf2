/*
 * writers.c - a pool-wide limit on requests that are inside a database
 * write at once, so that writes stuck on the database (a locked queue
 * row, a hanging server) never occupy every worker: at least one worker
 * stays free for the requests that need no database (status, info,
 * verify).  The slots live in a shared anonymous mapping that the
 * master creates before it forks; workers take and give back slots
 * with C11 atomics, and the master frees the slots of workers that died.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/types.h>

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
 * all, while its worker answers other requests (pool_wait()).  Both stay
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
static size_t		 mine = (size_t)-1;	/* this worker's slot */

/* Monotonic milliseconds, the same clock in every process. */
static int64_t
mono_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
writers_init(size_t workers)
{
	size_t	 i;
	void	*p;

	nslots = workers > 1 ? workers - 1 : 1;
	p = mmap(NULL, nslots * sizeof(*slots), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("mmap");
		slots = NULL;
		return -1;
	}
	slots = p;
	for (i = 0; i < nslots; i++) {
		atomic_init(&slots[i].pid, 0);
		atomic_init(&slots[i].since_ms, 0);
	}
	return 0;
}

enum app_err
writers_enter(void)
{
	int64_t		 start = mono_ms(), now, since, youngest;
	int		 me = (int)getpid(), free_pid;
	size_t		 i;

	if (slots == NULL || mine != (size_t)-1)
		return APP_OK;
	for (;;) {
		youngest = 0;
		for (i = 0; i < nslots; i++) {
			free_pid = 0;
			if (atomic_compare_exchange_strong(&slots[i].pid,
			    &free_pid, me)) {
				atomic_store(&slots[i].since_ms, mono_ms());
				mine = i;
				return APP_OK;
			}
			since = atomic_load(&slots[i].since_ms);
			if (since == 0)
				since = mono_ms();
			if (since > youngest)
				youngest = since;
		}
		now = mono_ms();
		if (now - youngest >= STUCK_MS || now - start >= WAIT_MAX_MS)
			return APP_BUSY;
		pool_wait(1);
	}
}

void
writers_leave(void)
{
	if (slots == NULL || mine == (size_t)-1)
		return;
	atomic_store(&slots[mine].since_ms, 0);
	atomic_store(&slots[mine].pid, 0);
	mine = (size_t)-1;
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
		(void)atomic_compare_exchange_strong(&slots[i].pid, &held,
		    0);
	}
}
