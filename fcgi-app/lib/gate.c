/*
 * gate.c - pool-wide slots for costly work (see gate.h): one shared
 * mapping of pids (shm-file.h), taken and given back with C11 atomics.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"
#include "shm-file.h"

/* The record's file in run-dir, its kind ("GATE") and layout. */
#define GATE_FILE	"gates.shm"
#define GATE_MAGIC	0x47415445u
#define GATE_LAYOUT	1u

/* The slots of every gate, one after the other, in the mapping. */
static atomic_int	*slots;
static size_t		 first[GATE__MAX];	/* index of a gate's first */
static size_t		 count[GATE__MAX];	/* its number of slots */
static size_t		 mine[GATE__MAX];	/* held by this process + 1,
						   0 when none */

/* New slots (shm_file_init_fn): all free. */
static int
slots_init(void *p, size_t bytes, void *arg)
{
	atomic_int	*s = p;
	size_t		 i;

	(void)arg;
	for (i = 0; i < bytes / sizeof(*s); i++)
		atomic_init(&s[i], 0);
	return 0;
}

int
gate_init(const size_t want[GATE__MAX], const char *dir)
{
	size_t	 g, total = 0;
	void	*p;

	for (g = 0; g < GATE__MAX; g++) {
		first[g] = total;
		count[g] = want[g] > 0 ? want[g] : 1;
		total += count[g];
	}
	if (shm_file_map(dir, GATE_FILE, GATE_MAGIC, GATE_LAYOUT,
	    total * sizeof(*slots), slots_init, NULL,
	    "the limits on costly work", &p) == SHM_FILE_FAILED) {
		slots = NULL;
		return -1;
	}
	slots = p;
	return 0;
}

/*
 * Free g's slots whose holder is gone (kill(2) finds no such process),
 * for processes without a master to reap their dead.  Returns how many
 * it freed.
 */
static size_t
free_dead(enum gate g)
{
	size_t	 i, n = 0;
	int	 held;

	for (i = first[g]; i < first[g] + count[g]; i++) {
		held = atomic_load(&slots[i]);
		if (held <= 0 || kill((pid_t)held, 0) == 0 || errno != ESRCH)
			continue;
		if (atomic_compare_exchange_strong(&slots[i], &held, 0))
			n++;
	}
	return n;
}

/* Take a free slot of gate g for me.  Returns 1, or 0 when none. */
static int
take(enum gate g, int me)
{
	size_t	 i;
	int	 free_pid;

	for (i = first[g]; i < first[g] + count[g]; i++) {
		free_pid = 0;
		if (atomic_compare_exchange_strong(&slots[i], &free_pid,
		    me)) {
			mine[g] = i + 1;
			return 1;
		}
	}
	return 0;
}

int
gate_enter(enum gate g)
{
	int	 me = (int)getpid();

	if (slots == NULL || g >= GATE__MAX)
		return 1;
	/* Held already by this very process (not a parent before fork). */
	if (mine[g] != 0 && atomic_load(&slots[mine[g] - 1]) == me)
		return 1;
	mine[g] = 0;
	if (take(g, me))
		return 1;
	/* Every slot held: one may belong to a process that died. */
	return free_dead(g) > 0 && take(g, me);
}

void
gate_leave(enum gate g)
{
	int	 me = (int)getpid();

	if (slots == NULL || g >= GATE__MAX || mine[g] == 0)
		return;
	(void)atomic_compare_exchange_strong(&slots[mine[g] - 1], &me, 0);
	mine[g] = 0;
}

void
gate_reap(pid_t pid)
{
	size_t	 g, i;
	int	 held;

	if (slots == NULL || pid <= 0)
		return;
	for (g = 0; g < GATE__MAX; g++)
		for (i = first[g]; i < first[g] + count[g]; i++) {
			held = (int)pid;
			(void)atomic_compare_exchange_strong(&slots[i], &held,
			    0);
		}
}

size_t
gate_held(enum gate g)
{
	size_t	 i, n = 0;

	if (slots == NULL || g >= GATE__MAX)
		return 0;
	for (i = first[g]; i < first[g] + count[g]; i++)
		if (atomic_load(&slots[i]) != 0)
			n++;
	return n;
}
