/*
 * gate.h - pool-wide limits on costly work that an anonymous client (or
 * an API key) can start: a fixed number of slots per kind of work,
 * shared by every worker of the pool (one pool per host), taken without
 * waiting: when every slot is held the work is refused at once (the
 * caller answers 503 with Retry-After), so that such work never fills
 * the workers that answer the visitors.  The slots live in a shared
 * anonymous mapping the master makes before it forks; the master frees
 * the slots of a worker that died.  Outside a pool (the CLI, tests)
 * there is no limit.
 */
#ifndef GATE_H
#define GATE_H

#include <sys/types.h>

#include <stddef.h>

enum gate {
	GATE_HASH,	/* a log-in's password hash (Argon2id) */
	GATE_HEALTH,	/* an auto-rate test's request to a shop */
	GATE__MAX
};

/*
 * In the master, before forking: slots[g] slots for each gate (at least
 * one each).  Returns 0, or -1 (logged; then there is no limit).
 */
int	 gate_init(const size_t slots[GATE__MAX]);

/*
 * Take a slot of gate g for this process, without waiting.  Returns 1
 * (call gate_leave() when done), or 0 when every slot is held.  A
 * process that already holds one of g's slots gets 1 again (and leaves
 * once).  Without gate_init(), always 1.
 */
int	 gate_enter(enum gate g);

/* Give back this process's slot of gate g, if it holds one. */
void	 gate_leave(enum gate g);

/* In the master: free every slot held by the dead process pid. */
void	 gate_reap(pid_t pid);

/*
 * How many of gate g's slots are held now (for tests and /metrics);
 * 0 without gate_init().
 */
size_t	 gate_held(enum gate g);

#endif /* GATE_H */
