/*
 * page-pow.h - the proof of work on the visitor path: GET
 * /queue/<slug>/pow hands out a challenge, and the join's check of a
 * solution (pow.h, pow-used.h), answering 428 with a fresh challenge
 * when it fails.
 */
#ifndef PAGE_POW_H
#define PAGE_POW_H

#include "pow.h"

struct json_object;
struct req;

/*
 * GET /queue/<slug>/pow: {queue, enabled: false} while the queue's
 * proof of work is off, else {queue, enabled: true, challenge, bits,
 * expiresInSeconds, algorithm: "sha256"}.  Never cached.
 */
void	 page_pow(struct req *);

/*
 * The join's check of body's "pow" member on the route's queue, whose
 * proof of work is on: the checks of pow_check() in their order, then
 * the single-use reservation.  Returns 0 with *c the reserved challenge
 * (the caller ends it with pow_used_done(): spent when the join issued
 * a number, given back otherwise), or -1 after answering: 428 with the
 * verdict's code and a fresh challenge, 503 busy when the single-use
 * record has no room.
 */
int	 page_pow_join(struct req *, struct json_object *body,
	    struct pow_challenge *c);

/*
 * Answer 428 with code v (pow_code()) and a fresh challenge of the
 * route's queue, flat beside the error: {error, message, queue,
 * challenge, bits, expiresInSeconds, algorithm}.  Can't fail (a
 * challenge that cannot be made gives 500).
 */
void	 page_pow_refuse(struct req *, enum pow_verdict v);

#endif /* PAGE_POW_H */
