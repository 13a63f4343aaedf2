/*
 * gate.h - pool-wide limits on costly work that an anonymous client (or
 * an API key) can start: a fixed number of slots per kind of work,
 * shared by every worker of the pool (one pool per host), taken without
 * waiting: when every slot is held the work is refused at once (the
 * caller answers 503 with Retry-After), so that such work never fills
 * the workers that answer the visitors.  The slots (the pids of their
 * holders) live in a shared mapping (shm-file.h): with a master, an
 * anonymous one it makes before it forks, and the master frees the
 * slots of a worker that died; without one (workers = 0, each process
 * started by the web server), the file gates.shm in run-dir that every
 * process of the installation maps, and a process that finds every
 * slot held frees those of holders that are gone (kill(2) finds no
 * such pid; pids are those of one host).  Outside a pool (the CLI,
 * tests) there is no limit.
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
 * Before forking (or, without a master, when the process starts):
 * slots[g] slots for each gate (at least one each), in the file of
 * run-dir dir, or anonymous when dir is NULL or empty (then shared with
 * children only; a file that cannot be used falls back to it, logged).
 * Returns 0, or -1 (logged; then there is no limit).
 */
int	 gate_init(const size_t slots[GATE__MAX], const char *dir);

/*
 * Take a slot of gate g for this process, without waiting.  Returns 1
 * (call gate_leave() when done), or 0 when every slot is held by a
 * process that is alive.  A
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
