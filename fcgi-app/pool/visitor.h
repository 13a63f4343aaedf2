/*
 * visitor.h - what the visitor endpoints share: the status fields, the
 * body about one number, the admission check, the claim rule, the join
 * and the token.  These return an enum http_err instead of answering
 * (ERR_OK: done); the page modules send the answer, with
 * http_app_err().
 */
#ifndef VISITOR_H
#define VISITOR_H

#include <stdint.h>

#include "aqueue.h"
#include "extern.h"

struct json_object;
struct qentry;
struct req;

/*
 * The admission status of number at now (Unix ms of the database's
 * clock) into *st, judged by its place in the drawn order of a scheduled
 * opening (SPEC section 3): a pre-queue number not drawn yet is never
 * admitted, and while the pre-queue collects the wait is unknown
 * (wait_s -1) and the polling interval a tenth of the time to the
 * opening, within [ADM_RETRY_MIN_S, ADM_RETRY_MAX_S].  Returns the
 * number's position (0 or less: not drawn yet).  Can't fail.
 */
int64_t	 visitor_status(const struct qentry *e, int64_t number,
	    int64_t now, struct adm_status *st);

/*
 * visitor_status(), and then, when decided is 1 or 0 (what a join
 * statement or the claim rule decided for number), "admitted" as
 * decided, with serving on that side of the number.  decided -1 leaves
 * it to the state.  Returns the position as visitor_status().
 */
int64_t	 visitor_status_as(const struct qentry *e, int64_t number,
	    int64_t now, int decided, struct adm_status *st);

/*
 * Add the status fields for number to obj ("active" too when
 * with_active), computed from e's cached state at now (Unix ms of the
 * database's clock); decided 1 or 0 overrides "admitted" with what the
 * join statement decided (serving then on that side of the number), -1
 * leaves it to the state.  Returns retryAfterSeconds, for the
 * Retry-After header.  Can't fail.
 */
int	 visitor_status_fill(struct json_object *obj, const struct qentry *e,
	    int64_t number, int64_t now, int with_active, int decided);

/*
 * The admission position of number on e's queue at now: the number
 * itself, or its drawn place in a scheduled opening's pre-queue
 * (draw_queue_position()), or -1 while that place is not drawn yet
 * (never admitted then).
 */
int64_t	 visitor_position(const struct qentry *e, int64_t number,
	    int64_t now);

/* The largest number a visitor may send: 2^53 - 1 (exact in JSON). */
#define VISITOR_NUMBER_MAX	9007199254740991LL

/*
 * Whether number waits on e's queue at now by the cached state (a
 * heartbeat's question): its place is not drawn yet, or beyond the
 * serving number.  Returns 1 or 0.  Can't fail.
 */
int	 visitor_waiting(const struct qentry *e, int64_t number, int64_t now);

/*
 * Read the body of a request about one number (POST /token,
 * /heartbeat): one JSON object (req_body_json()) with "number" (1 to
 * VISITOR_NUMBER_MAX) and "ticket".  *body gets the object for the
 * caller's other members (released by the caller with json_object_put,
 * also after -1);
 * *ticket points into it, NULL when the ticket is missing, not a
 * string or holds a NUL.  Returns 0, or -1 after answering 4xx.
 */
int	 visitor_number_body(struct req *, struct json_object **body,
	    int64_t *number, const char **ticket);

/*
 * Sign an access token for number on the route's queue, valid for the
 * queue's token lifetime from now, and record a number's first token for
 * the fairness report (fair_served_record(): best effort, written in
 * batches after the answer).  Returns the JWT (caller frees) or NULL on
 * failure (logged).
 */
char	*visitor_token(struct req *, int64_t number);

/*
 * Decide whether number (>= 1) is admitted now on the route's queue.  A
 * number above the cached last number forces a fresh read (rate-limited
 * unless trusted, i.e. its ticket was checked); when trusted, a state
 * older than token-state-ms is read again first.  Returns ERR_OK with
 * *admitted set, else ERR_NUMBER_NOT_FOUND (never issued),
 * ERR_QUEUE_NOT_FOUND (deleted meanwhile), ERR_BUSY or ERR_DB_DOWN.
 * Sends nothing.
 */
enum http_err visitor_admitted(struct req *, int64_t number, int trusted,
	    int *admitted);

/*
 * The one claim rule of every path that mints a token for a number a
 * visitor already holds (/token, JSON mode; SPEC section 4): number
 * (its ticket checked by the caller) must be admitted now on a fresh
 * state (visitor_admitted(), trusted) and within its claim window
 * (adm_claim_expired(): the window starts no earlier than the number's
 * admission, whatever happened since).  Returns ERR_OK when a token may
 * be minted, ERR_TICKET_EXPIRED when the window has passed,
 * ERR_NOT_ADMITTED, or as visitor_admitted().  Sends nothing.
 */
enum http_err visitor_claim(struct req *, int64_t number);

/*
 * Issue the next number on the route's queue (db_queue_join, stamped
 * with the database's clock) in one round trip; *admitted tells whether
 * it is admitted at the join's instant, as the statement decided it
 * (the one decider: callers do not decide again).  A scheduled change
 * that is due is applied first (db_queue_materialize()).  The cache
 * notes the number (qcache_note_issued()); its admission state agrees
 * with the row (admission.h) and is read again only around a scheduled
 * opening (the join may have closed the pre-queue: the answer must say
 * on which side the number landed).
 * Returns ERR_OK with *number and *admitted set, ERR_QUEUE_PAUSED when
 * the queue is paused, ERR_QUEUE_NOT_FOUND when it is gone, ERR_DB_DOWN
 * when the database does not answer within the request's time (or gave
 * up on the statement: nothing was issued; also for an answer without a
 * number; a number the statement issues after all is voided,
 * join-void.h), ERR_BUSY when the writes of the pool are stuck on the
 * database (writers.c: nothing was issued).  Sends nothing.
 */
enum http_err visitor_join(struct req *, int64_t *number, int *admitted);

#endif /* VISITOR_H */
