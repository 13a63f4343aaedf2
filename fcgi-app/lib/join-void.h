/*
 * join-void.h - numbers issued for joins that were answered 503.
 *
 * A join the database answers only after its caller's time ran out is
 * answered 503 (failed means failed: SPEC section 3); its statement is
 * finished in the background (db_nonblocking()).  When it turns out to
 * have issued a number all the same, that number is voided: nobody
 * holds it, so its place in the queue is given back, and it is counted
 * (/metrics aqueue_queue_joins_voided_total) and logged.
 */
#ifndef JOIN_VOID_H
#define JOIN_VOID_H

#include <stdint.h>

#include "aqueue.h"

struct db;

/*
 * Void number of queue queue_id: count and log it, then give its place
 * back in one transaction: skip raised by one as a scheduled change
 * (admission.h), as the abandonment job does for an abandoned number
 * (abandon.c), so serving moves on by one a tick later and never
 * backward.  Returns APP_OK, APP_NOTFOUND (the queue is gone), or
 * APP_BUSY, APP_DB or APP_DB_DOWN: then the place is given back later,
 * between requests (visitor_join_late()).
 */
enum app_err visitor_join_void(struct db *, int64_t queue_id,
	    int64_t number);

/*
 * Between requests: handle every late join outcome of this process's
 * connection (db_late_join()): void the numbers issued, and count and
 * log the joins whose outcome stayed unknown; and give back the places
 * of voided numbers that could not be given back before.  Can't fail.
 */
void	 visitor_join_late(struct db *);

/*
 * Number blocks (lease.h): k >= 1 numbers of queue queue_id were issued
 * by a lease and handed to nobody.  Kept in this process until
 * join_unused_flush() writes them (db_queue_unused_add()); the counts
 * of up to JOIN_UNUSED_MAX queues are kept (more are logged and lost:
 * serving then spends its rate on them, as on an abandoned number).
 * Can't fail.
 */
#define JOIN_UNUSED_MAX	16
void	 join_unused_note(int64_t queue_id, int64_t k);

/*
 * Write the unused numbers kept; those the database refuses stay for
 * the next call, but a count given up on while in flight (it may still
 * be applied) is dropped and logged, never sent twice.  Does nothing
 * while a statement given up on is in flight.  Can't fail.
 */
void	 join_unused_flush(struct db *);

/* Whether unused numbers are kept, not written yet: 1 or 0. */
int	 join_unused_pending(void);

#endif /* JOIN_VOID_H */
