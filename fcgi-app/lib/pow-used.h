/*
 * pow-used.h - the proof of work's single-use record: a challenge is
 * spent once across every process of the pool (one pool per host).  A
 * table in a shared anonymous mapping the master makes before it
 * forks, keyed by the challenge's random bytes, under one robust
 * process-shared mutex (a worker that dies holding it does not stop
 * the others).  A join reserves its challenge before it takes a number
 * and marks it spent only when the number was issued; a failed join
 * gives it back.  An entry is forgotten once its challenge has expired
 * (the check refuses it by its age then).  Outside a pool (the CLI,
 * tests without pow_used_init()) nothing is recorded.
 */
#ifndef POW_USED_H
#define POW_USED_H

#include <stddef.h>
#include <stdint.h>

#include "pow.h"

/*
 * In the master, before forking: a table of slots entries (rounded up
 * to a power of two).  Returns 0, or -1 (logged; then every reservation
 * answers POW_USED_FULL, so that no challenge is ever spent twice).
 */
int	 pow_used_init(size_t slots);

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
