/*
 * abandon.h - abandonment detection: waiting numbers whose visitor has
 * gone silent longer than the queue's grace period are counted once
 * each, and serving advances by that count (SPEC sections 3 and 9).
 *
 * Presence: POST /queue/<slug>/heartbeat writes one row per number
 * (queue_presence), its time changed at most every ABANDON_COALESCE_MS;
 * heartbeats within that interval change nothing (the row is left as
 * it is).  The hosted page sends one every ABANDON_BEAT_S seconds while
 * the number waits.
 *
 * Counting (abandon_job(), worker leader, every cycle): with grace g
 * and the database's now t, a waiting number (above serving and above
 * the pre-queue) is abandoned when it
 *  - was issued at or before t - g (known from the issue marks the job
 *    notes every g / ABANDON_MARKS_PER_GRACE) and has no presence at or
 *    after t - g: looked at once, when it first is that old; or
 *  - was looked at before, had a presence then, and has been silent
 *    since before t - g (its row is marked counted).
 * Each number is counted at most once.  The count k is added to skip
 * as a scheduled change (adm_schedule(): in effect ADM_TICK_MS after
 * t), so serving jumps by k and never goes backward.  Lenient: nothing
 * is revoked; a counted number that comes back is admitted when serving
 * reaches it, as any other, and a number the jump admits claims its
 * token for its whole claim window from the jump on (the claim history,
 * admission.h).
 */
#ifndef ABANDON_H
#define ABANDON_H

#include <stdint.h>

#include "aqueue.h"
#include "queue-fields.h"

struct cfg;
struct db;

#define ABANDON_COALESCE_MS	10000	/* one presence write per number */
#define ABANDON_BEAT_S		20	/* the page's heartbeat interval */
#define ABANDON_MARKS_PER_GRACE	6	/* issue marks per grace period */
#define ABANDON_QUEUES_MAX	1024	/* queues looked at per run */
#define ABANDON_JOB_EVERY_MS	2000	/* the worker's cycle, ms */

/*
 * One run of the job over every queue with detection on (see above),
 * each queue in its own transaction on its locked row.  *abandoned
 * receives the numbers newly counted over all queues.  Returns APP_OK,
 * or APP_DB, APP_DB_DOWN, APP_ENOMEM of the first queue that failed
 * (its transaction rolled back: nothing of it changed).
 */
enum app_err abandon_job(struct db *, const struct cfg *,
	    int64_t *abandoned);

/*
 * The part of abandon_job() for one queue, for a caller that spreads a
 * run over several steps (the embedded worker; the queues from
 * db_abandon_queues()): count and apply the abandoned numbers of queue
 * slug inside one transaction.  *added: numbers counted.  Returns
 * APP_OK or an error (rolled back: nothing of it changed).
 */
enum app_err abandon_queue(struct db *, const char *slug, int64_t *added);

#endif /* ABANDON_H */
