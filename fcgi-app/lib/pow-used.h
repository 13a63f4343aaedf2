/*
 * pow-used.h - the proof of work's single-use record: a challenge is
 * spent once across every process of the installation on a host.  A
 * table keyed by the challenge's random bytes, under one robust
 * process-shared mutex (a process that dies holding it does not stop
 * the others), in a shared mapping (shm-file.h): with a master, an
 * anonymous one it makes before it forks; without one (workers = 0,
 * each process started by the web server), the file pow-used.shm in
 * run-dir that every process of the installation maps.  A join
 * reserves its challenge before it takes a number and marks it spent
 * only when the number was issued; a failed join gives it back.  An
 * entry is forgotten once its challenge has expired (the check refuses
 * it by its age then).  Outside a pool (the CLI, tests without
 * pow_used_init()) nothing is recorded.
 */
#ifndef POW_USED_H
#define POW_USED_H

#include <stddef.h>
#include <stdint.h>

#include "pow.h"

/*
 * Before forking (or, without a master, when the process starts): a
 * table of slots entries (rounded up to a power of two), in the file of
 * run-dir dir, or anonymous when dir is NULL or empty (then shared with
 * children only; a file that cannot be used falls back to it, logged).
 * Returns 0, or -1 (logged; then every reservation answers
 * POW_USED_FULL, so that no challenge is ever spent twice).
 */
int	 pow_used_init(size_t slots, const char *dir);

/* What pow_used_reserve() found. */
enum pow_used {
	POW_USED_FRESH,	/* reserved for this join */
	POW_USED_SPENT,	/* spent, or reserved by a join under way */
	POW_USED_FULL	/* no room: refuse the join for now (503) */
};

/*
 * Reserve challenge c (its random bytes; it expires at expires_ms, on
 * the clock of now_ms) for a join at now_ms.  Returns as enum
 * pow_used.  Without pow_used_init(), always POW_USED_FRESH.
 */
enum pow_used pow_used_reserve(const struct pow_challenge *c,
	    int64_t expires_ms, int64_t now_ms);

/*
 * The join of a reserved challenge c is over: spent (1, a number was
 * issued) or given back (0).  Can't fail.
 */
void	 pow_used_done(const struct pow_challenge *c, int spent);

#endif /* POW_USED_H */
