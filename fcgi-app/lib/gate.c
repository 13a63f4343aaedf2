/*
 * gate.c - pool-wide slots for costly work (see gate.h): one shared
 * anonymous mapping of pids, taken and given back with C11 atomics.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/types.h>

#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"

/* The slots of every gate, one after the other, in the mapping. */
static atomic_int	*slots;
static size_t		 first[GATE__MAX];	/* index of a gate's first */
static size_t		 count[GATE__MAX];	/* its number of slots */
static size_t		 mine[GATE__MAX];	/* held by this process + 1,
						   0 when none */

int
gate_init(const size_t want[GATE__MAX])
{
	size_t	 g, i, total = 0;
	void	*p;

	for (g = 0; g < GATE__MAX; g++) {
		first[g] = total;
		count[g] = want[g] > 0 ? want[g] : 1;
		total += count[g];
	}
	p = mmap(NULL, total * sizeof(*slots), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("mmap");
		slots = NULL;
		return -1;
	}
	slots = p;
	for (i = 0; i < total; i++)
		atomic_init(&slots[i], 0);
	return 0;
}

int
gate_enter(enum gate g)
{
	int	 me = (int)getpid(), free_pid;
	size_t	 i;

	if (slots == NULL || g >= GATE__MAX)
		return 1;
	/* Held already by this very process (not a parent before fork). */
	if (mine[g] != 0 && atomic_load(&slots[mine[g] - 1]) == me)
		return 1;
	mine[g] = 0;
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
