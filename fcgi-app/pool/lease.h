/*
 * lease.h - number blocks in a pool process (the queue setting
 * numberBlock; admission.h, adm_lease()).
 *
 * A join whose process holds no live lease of its queue takes its
 * number with one statement, as ever; under load, one statement takes a
 * lease of several consecutive numbers (db_queue_lease()), the first for
 * that join, the others for the joins that follow in this process, in
 * their arrival order (one request at a time), for at most LEASE_MS.
 * So two joins on different processes may be ordered either way only
 * when they came less than LEASE_MS apart.  A lease takes as many
 * numbers as this process took joins in the last LEASE_MS (at most
 * numberBlock), so that an idle queue wastes none.
 *
 * The numbers of a lease handed to nobody (it expired, or the queue
 * stopped taking leases) are written to the row's count of unused
 * numbers (db_queue_unused_add(), between requests), and the worker
 * passes them over with a skip (db_queue_unused_fold()): serving never
 * spends its rate on them.
 *
 * Times here are this process's monotonic clock: the lease bounds an
 * order, nothing any other process compares with.
 */
#ifndef LEASE_H
#define LEASE_H

#include <stdint.h>

struct db;
struct qentry;

#define LEASE_MS	50	/* a lease's numbers are handed out within */

/*
 * Count a join of this process on queue queue_id (every join, from a
 * lease or not): the base of lease_size().  Can't fail.
 */
void	 lease_note_join(int64_t queue_id);

/*
 * How many numbers the next join of e's queue takes with its statement:
 * 1 (a plain join) unless the cached row has numberBlock above 1 and
 * takes leases (adm_lease_ok()); then the joins this process took on
 * that queue in the last LEASE_MS window (or this one, when more), at
 * most numberBlock.  Can't fail.
 */
int64_t	 lease_size(const struct qentry *e);

/*
 * Whether this process holds a live lease of e's queue with a number
 * left: taken less than LEASE_MS ago, numberBlock still above 1 in the
 * cached row.  Returns 1 or 0.  Can't fail.
 */
int	 lease_live(const struct qentry *e);

/*
 * The next number of the live lease of e's queue into *number, when
 * the cached row, read at most ADM_TICK_MS / 2 ago at now (the caller
 * sees to it), still takes leases and its segment at now is fifo or
 * passthrough (a scheduled change counts from its time on).  Returns
 * 1, or 0 when no number is handed out (the lease then ends: its rest
 * is unused).  Can't fail.
 */
int	 lease_take(const struct qentry *e, int64_t now, int64_t *number);

/*
 * Keep a new lease of queue queue_id: first .. last were issued, first
 * is handed out by the caller; at: mono_ms() before its statement was
 * sent (the LEASE_MS bound counts from there).  A lease held before
 * ends (its rest is unused).  Can't fail.
 */
void	 lease_set(int64_t queue_id, int64_t first, int64_t last,
	    int64_t at);

/*
 * Between requests: end the lease when it has expired (or always, when
 * all), and write the unused numbers of ended leases to their rows; what
 * the database does not take now is tried again later.  Never while a
 * statement given up on is in flight.  Can't fail.
 */
void	 lease_flush(struct db *, int all);

/*
 * Milliseconds until lease_flush() has something to do: the live
 * lease's expiry, or a retry of unused numbers not written yet; -1 when
 * nothing.  Can't fail.
 */
int64_t	 lease_wait_ms(void);

#endif /* LEASE_H */
