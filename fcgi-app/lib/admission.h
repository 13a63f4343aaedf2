/*
 * admission.h - the admission model (SPEC section 3) as pure arithmetic:
 * no I/O, no clock, no allocation.  The join statement in db-stmt.c mirrors
 * adm_join(); test/unit/test-admission.c checks the formulas and, by
 * simulation, the admission bound, and test/unit/test-db.c runs the
 * statement and adm_join() over the same random states.
 *
 * Three rules make the model the same for every process and host that
 * reads the row, whatever moment each read it (SPEC section 3, "serving
 * never goes backward for any observer"):
 *
 *  - The cap lags.  serving = max(F, min(growth, L' + burst)) with L'
 *    the numbers issued before the start of the previous tick of
 *    ADM_TICK_MS (a small ring of L at tick boundaries lives in the
 *    row).  A join therefore changes serving no sooner than ADM_TICK_MS
 *    after it, and the join's re-anchoring (forgetting idle credit) never
 *    changes serving within that time either: a copy of the row read
 *    less than ADM_TICK_MS ago computes exactly the serving number of
 *    the newest one (see adm_serving()).
 *  - Changes are scheduled.  A rate change, pause, resume or abandonment
 *    skip takes effect ADM_TICK_MS after it is made (adm_schedule()):
 *    every copy read before the change is refreshed before it matters,
 *    and the new segment starts exactly at the old serving number.
 *  - The claim window is measured from the admission history kept in the
 *    row: the admitted frontier at the points of a grid of spacing
 *    claim window + ADM_CLAIM_SLACK_MS, folded in by every write
 *    (adm_fold()), so that the window of every number starts no earlier
 *    than its admission, whatever happened since (adm_claim_expired()).
 *
 * All numbers are waiting numbers or positions (>= 0); all times are
 * Unix milliseconds of the database's clock.
 */
#ifndef ADMISSION_H
#define ADMISSION_H

#include <stdint.h>

#define ADM_RATE_MIN	1		/* visitors per minute */
#define ADM_RATE_MAX	1000000		/* visitors per minute */
#define ADM_BURST_MAX	1000000		/* numbers */
/* Elapsed time beyond this is clamped, so r * dt fits in int64_t. */
#define ADM_DT_MAX_MS	1000000000000LL	/* about 31 years */
/* The join packs its answer in 63 bits: numbers stay below 2^40. */
#define ADM_NUMBER_MAX	1099511627775LL	/* 2^40 - 1 */
#define ADM_RETRY_MIN_S	2		/* polling interval near the front */
#define ADM_RETRY_MAX_S	30		/* polling interval far back */
#define ADM_RETRY_PAUSED_S 10		/* polling interval while paused */
#define ADM_CLAIM_MIN_S	1		/* claim window, seconds */
#define ADM_CLAIM_MAX_S	86400		/* claim window, seconds */
#define ADM_CLAIM_DEFAULT_S 600		/* claim window, seconds */
/*
 * The lag of the cap and of scheduled changes, ms.  A process must not
 * answer from a copy of the row older than this (qcache.c refreshes its
 * copy well before), except while the database does not answer (then
 * the answer says stale).
 */
#define ADM_TICK_MS	250
/* Added to the claim window for the clocks of the hosts, ms. */
#define ADM_CLAIM_SLACK_MS 1000

/*
 * The kind of a segment (struct adm_queue's active and pend_active), from
 * the operator's pause and the queue's queuing method:
 *  - ADM_SEG_PAUSED: serving frozen at the floor, joins refused;
 *  - ADM_SEG_FIFO: serving grows at the rate, capped (the model above);
 *  - ADM_SEG_HOLD: serving frozen as paused, but joins take numbers:
 *    each new number lies past serving (the join moves L up to serving
 *    first: the numbers between are never issued), so nobody new is
 *    admitted until the hold ends;
 *  - ADM_SEG_PASS: fifo without a rate: from the segment's start on,
 *    the growth term is unbounded (ADM_PASS_CREDIT), so serving is
 *    max(F, L' + burst), the lagged cap: every number issued is
 *    admitted within two ticks (at once within the burst), by the same
 *    rule as fifo (position <= serving), so every copy of the row, the
 *    join statement and the poll document agree, and before a held
 *    opening it is frozen as fifo is.
 *  - ADM_SEG_RANDOM: fifo over positions instead of numbers: the
 *    numbers from rand_from on form blocks of rand_block, each block's
 *    positions a keyed permutation of its numbers (draw.h,
 *    draw_order_position()); serving only enters a block once all its
 *    numbers are issued (the cap of adm_serving()), so the positions it
 *    admits are always taken.  A block that would keep its visitors waiting for
 *    others to join is sealed by the worker (adm_seal_due()).
 * A change leaving any of them starts at the serving number of its
 * moment, so no admitted place is ever taken back.
 */
#define ADM_SEG_PAUSED	0
#define ADM_SEG_FIFO	1
#define ADM_SEG_HOLD	2
#define ADM_SEG_PASS	3
#define ADM_SEG_RANDOM	4
/* The growth term's credit in a passthrough segment: beyond any number. */
#define ADM_PASS_CREDIT	1099511627776LL	/* 2^40 */

/*
 * The admission state of one queue, as stored in its DB row.
 */
struct adm_queue {
	int64_t	 rate_per_minute;	/* r, ADM_RATE_MIN..ADM_RATE_MAX */
	int64_t	 burst;		/* configured burst; 0 = default from r */
	int64_t	 anchor_number;	/* A */
	int64_t	 anchor_time_ms;	/* T (may lie ahead: a held opening) */
	int64_t	 last_number;	/* L: numbers issued so far */
	int64_t	 skip;		/* abandoned and voided numbers */
	int	 active;	/* ADM_SEG_*: 0 = paused: serving frozen */
	int64_t	 floor;		/* F: serving when the segment began */
	int64_t	 claim_window_s; /* ADM_CLAIM_MIN_S..ADM_CLAIM_MAX_S */
	/* The lagging cap: L at tick boundaries, kept by the join. */
	int64_t	 tick;		/* k: the tick of the last join */
	int64_t	 l_tick;	/* L at k * ADM_TICK_MS */
	int64_t	 l_tick1;	/* L at (k - 1) * ADM_TICK_MS */
	int64_t	 l_tick2;	/* L at (k - 2) * ADM_TICK_MS */
	/* A scheduled change (adm_schedule()); pend_at_ms 0 = none. */
	int64_t	 pend_at_ms;	/* when the new segment begins */
	int64_t	 pend_rate;	/* its rate */
	int64_t	 pend_burst;	/* its configured burst */
	int64_t	 pend_active;	/* 1 active, 0 paused */
	int64_t	 pend_skip;	/* its skip */
	int64_t	 pend_floor;	/* serving at pend_at_ms: its floor */
	/* The admission history for the claim window (adm_fold()). */
	int64_t	 claim_grid;	/* g: the latest grid point folded in */
	int64_t	 claim_front;	/* admitted frontier at g * G */
	int64_t	 claim_front1;	/* ... at (g - 1) * G */
	int64_t	 claim_dead;	/* positions <= this are past the window */
	/* Scheduled opening (see draw.h): */
	int64_t	 opens_at_ms;	/* the opening; 0 = none */
	int64_t	 draw_open;	/* 1: the pre-queue still collects */
	int64_t	 draw_count;	/* P: pre-queue numbers, once closed */
	/* The random order (ADM_SEG_RANDOM; adm_order_change()): */
	int64_t	 rand_from;	/* its first number; 0 = none */
	int64_t	 rand_to;	/* the number after it; 0 = goes on */
	int64_t	 rand_block;	/* numbers per block, >= 1 */
};

/* What a visitor holding a number is told (status, join). */
struct adm_status {
	int64_t	 serving;	/* admitted up to and including */
	int64_t	 ahead;		/* max(0, number - serving - 1) */
	int	 admitted;	/* number <= serving */
	int64_t	 wait_s;	/* ceil((number - serving) * 60 / r) s;
				   0 when admitted, -1 (unknown) when
				   paused and not admitted */
	int	 retry_after_s;	/* polling interval, seconds */
};

/* A change for adm_schedule(): the values of the segment it begins. */
struct adm_change {
	int64_t	 rate;		/* ADM_RATE_MIN..ADM_RATE_MAX */
	int64_t	 burst;		/* 0..ADM_BURST_MAX, 0 = default */
	int	 active;	/* ADM_SEG_*: 0 paused */
	int64_t	 skip;		/* >= the current skip */
};

/*
 * Effective burst allowance of the segment in effect at time t: the
 * configured burst when > 0, else r / 60 * 10 s = r / 6, and at least 1.
 * adm_burst() is that of q's own (current) segment.  Can't fail.
 */
int64_t	 adm_burst(const struct adm_queue *q);
int64_t	 adm_burst_at(const struct adm_queue *q, int64_t t);

/*
 * Numbers issued before the start of the tick before the one holding t:
 * L at (floor(t / ADM_TICK_MS) - 1) * ADM_TICK_MS, from the ring the
 * join keeps (L itself for boundaries after the last join).  Exact for
 * t no earlier than two ticks before the last join.  Can't fail.
 */
int64_t	 adm_lagged_last(const struct adm_queue *q, int64_t t);

/*
 * Serving number at t, of the segment in effect at t (a scheduled change
 * applies from its time on):
 *   active:  max(F, min(A + floor(r * (t - T) / 60000) + skip, C))
 *   paused:  max(F, min(A + skip, C))  (frozen)
 * with L' = adm_lagged_last(q, t), t - T clamped to [0, ADM_DT_MAX_MS],
 * and the cap C = L' + burst, except by a random order (see below): L'
 * inside one of its blocks, adm_issued_front(L'); L' before it,
 * min(L' + burst, rand_from - 1).
 * Never below 0.  Can't fail.
 *
 * Serving never goes backward: for one state it grows with t; a join
 * does not change it before ADM_TICK_MS has passed, and then only
 * raises it (the cap); a scheduled change begins its segment at the
 * serving number of its moment (F).  So any copy of the row read less
 * than ADM_TICK_MS ago gives the newest copy's value.
 */
int64_t	 adm_serving(const struct adm_queue *q, int64_t t);

/*
 * Numbers issued and not yet admitted at t: L - serving, at least 0
 * (serving may run ahead of L by the burst).  Can't fail.
 */
int64_t	 adm_waiting(const struct adm_queue *q, int64_t t);

/*
 * Whether the scheduled opening of q holds every place at t: the
 * opening is set and t is before it plus ADM_TICK_MS (every copy of
 * the row then knows how many numbers the draw orders before any place
 * is admitted).  Returns 1 or 0.
 */
int	 adm_held(const struct adm_queue *q, int64_t t);

/*
 * Whether position pos (>= 1) is admitted at t: not held
 * (adm_held()) and pos <= adm_serving().  Returns 1 or 0.
 */
int	 adm_admitted(const struct adm_queue *q, int64_t pos, int64_t t);

/*
 * The admitted frontier at t: every position up to it is issued and
 * admitted (min(serving, adm_issued_front(L)); 0 while adm_held()).
 * Can't fail.
 */
int64_t	 adm_frontier(const struct adm_queue *q, int64_t t);

/*
 * Fold the admission history up to now into the claim samples of q,
 * before a write changes q at now (every write: the join statement does
 * the same in SQL).  With G = claim window + ADM_CLAIM_SLACK_MS, the
 * samples are the frontier at the two latest grid points g * G <= now.
 * The state is the one in effect since the previous write, so the
 * samples are exact.  Can't fail.
 */
void	 adm_fold(struct adm_queue *q, int64_t now);

/*
 * Apply q's scheduled change when it is due at now (pend_at_ms <= now):
 * the new segment starts at pend_at_ms at serving pend_floor (A :=
 * pend_floor - skip, T := pend_at_ms, or the opening plus ADM_TICK_MS
 * while an opening holds), with the scheduled rate, burst, active flag
 * and skip (a larger skip jumps serving ahead by the difference).
 * Call adm_fold() first.  Returns 1 when a change was applied, else 0.
 */
int	 adm_materialize(struct adm_queue *q, int64_t now);

/*
 * Schedule a change at now on the locked row q: the segment of c begins
 * at now + ADM_TICK_MS at the serving number the current state gives
 * there; the random order changes at once (adm_order_change()).  Folds
 * the history and applies a due change first.  Returns 0, or -1 when
 * another change is still scheduled ahead of now (the caller waits
 * until q->pend_at_ms and tries again) or when random may not begin yet
 * (the caller checks adm_order_free() first); then q's segment and
 * order are unchanged.
 */
int	 adm_schedule(struct adm_queue *q, int64_t now,
	    const struct adm_change *c);

/*
 * The change that leaves q as it is (rate, burst, active and skip of the
 * segment in effect at t), to modify and pass to adm_schedule().
 */
void	 adm_change_init(const struct adm_queue *q, int64_t t,
	    struct adm_change *c);

/*
 * Join, exactly as the statement in db-stmt.c does it, in this order:
 *   0. refused (returns -1, q unchanged) when a change is due
 *      (pend_at_ms <= now): the caller applies it and tries again;
 *      refused (returns 0) when paused;
 *   1. adm_fold(q, now);
 *   2. the first join at or after the opening closes the pre-queue:
 *      P := L, draw_open := 0;
 *   3. the tick ring moves on to now's tick (L at the boundaries since
 *      the last join is L);
 *   4. when T <= now and A + floor(r * (now - T) / 60000) + skip >=
 *      L + burst: A := max(L + burst, F) - skip, T := now (forget idle
 *      credit; serving is not changed within ADM_TICK_MS by it);
 *   5. L := L + 1; the new number is L.
 * *admitted: whether the new number is admitted at now on the new state
 * (adm_admitted(), its position being its number).  Returns the number.
 */
int64_t	 adm_join(struct adm_queue *q, int64_t now, int *admitted);

/*
 * Number blocks (the queue setting numberBlock): a lease of n >= 1
 * consecutive numbers, exactly as the lease statement in db-stmt.c: the
 * join above with step 5 issuing L + 1 .. L + n at once (L := L + n).
 * A lease of more than one number is refused (returns 0, q unchanged)
 * unless adm_lease_ok(q); otherwise as adm_join().  *admitted: whether
 * the first number, L + 1, is admitted at now on the new state.
 * Returns the lease's last number, L + n (so the first is the result
 * minus n plus 1); 0 or -1 as adm_join().  adm_join() is the lease of
 * one number.
 */
int64_t	 adm_lease(struct adm_queue *q, int64_t now, int64_t n,
	    int *admitted);

/*
 * Whether the row q takes a lease of more than one number: its segment
 * is fifo or passthrough (a hold puts each number past serving as it is
 * taken, and a pause takes none), no pre-queue collects (the first join
 * after the opening closes it, one number at a time), and no random
 * order is open (its blocks are sealed by the numbers actually taken).
 * Returns 1 or 0.  Can't fail.
 */
int	 adm_lease_ok(const struct adm_queue *q);

/*
 * Whether a random order is open on q: it has begun, and has not ended
 * below L + 1 (numbers still to be issued belong to it).  1 or 0.
 */
int	 adm_order_open(const struct adm_queue *q);

/*
 * Whether the claim window of position pos (admitted at now: the caller
 * checked) has passed at now: with G = claim window + ADM_CLAIM_SLACK_MS
 * and g* * G the latest grid point at or before now - G, pos is at or
 * below the frontier at g* * G (or at or below claim_dead).  A position
 * admitted at time a therefore claims from a until the first grid point
 * at or after a, plus G: at least the claim window plus the slack, at
 * most twice that.  Returns 1 or 0.  Can't fail.
 */
int	 adm_claim_expired(const struct adm_queue *q, int64_t pos,
	    int64_t now);

/*
 * Change the claim window of the locked row q at now to w seconds
 * (clamped to [ADM_CLAIM_MIN_S, ADM_CLAIM_MAX_S]): what has passed the
 * old window stays past it (claim_dead), and the samples start anew on
 * the new grid.  Call adm_fold() first.  Can't fail.
 */
void	 adm_set_claim_window(struct adm_queue *q, int64_t now, int64_t w);

/*
 * Fill *st for a visitor at position number (>= 1) at t: serving,
 * ahead, admitted, wait_s = ceil((number - serving) * 60 / r), the time
 * until serving reaches the number (0 when admitted; -1 when paused and
 * not admitted: nobody knows), and retry_after_s = adm_retry_after(wait_s)
 * (ADM_RETRY_MIN_S when admitted, ADM_RETRY_PAUSED_S when paused).
 * Can't fail.
 */
void	 adm_status(const struct adm_queue *q, int64_t number,
	    int64_t t, struct adm_status *st);

/*
 * Polling interval for an estimated wait of wait_s seconds: wait / 10,
 * clamped to [ADM_RETRY_MIN_S, ADM_RETRY_MAX_S].  Can't fail.
 */
int	 adm_retry_after(int64_t wait_s);

/*
 * State of a new queue at now with rate r and configured burst b
 * (0 = default): A = burst, T = now, L = 0, skip = 0, F = 0, active,
 * claim window ADM_CLAIM_DEFAULT_S, no history, no change scheduled.
 */
void	 adm_init(struct adm_queue *q, int64_t rate, int64_t burst,
	    int64_t now);

/*
 * State of a new queue created at now with a scheduled opening at
 * opens_ms (at least ADM_TICK_MS after now): as adm_init(), but serving
 * is 0 (A = 0, F = 0) and grows from the opening plus ADM_TICK_MS; the
 * pre-queue collects.
 */
void	 adm_init_opening(struct adm_queue *q, int64_t rate, int64_t burst,
	    int64_t now, int64_t opens_ms);

/*
 * Arm (or move) a scheduled opening at opens_ms of the locked row q at
 * now: only for a queue that has issued no number yet, or whose
 * pre-queue still collects (adm_prequeue()), so that nobody holds an
 * admitted number, and with no change scheduled.  Serving stays at its
 * value ADM_TICK_MS from now (F; a queue without numbers serves its
 * burst, and nobody is admitted before the opening anyway: adm_held())
 * and grows from the opening plus ADM_TICK_MS.  (Copies of the row read
 * before the arming agree when serving stands still, which it does on a
 * queue without numbers once its burst has grown in.)  Folds the
 * history first.  Returns 0, or -1 (q unchanged) when the queue may not
 * be armed, a change is scheduled, or opens_ms is less than ADM_TICK_MS
 * after now.
 */
int	 adm_arm_opening(struct adm_queue *q, int64_t now, int64_t opens_ms);

/*
 * Cancel the scheduled opening of the locked row q at now, while its
 * pre-queue is empty (adm_prequeue() and no number issued): the opening
 * is gone at once, and change c, scheduled ADM_TICK_MS ahead, lets the
 * queue go on as a new one (serving at least its burst, so the first
 * visitors pass at once).  Returns 0, or -1 (q unchanged) when a number
 * waits for the draw or another change is scheduled ahead of now.
 */
int	 adm_cancel_opening(struct adm_queue *q, int64_t now,
	    const struct adm_change *c);

/*
 * The settings as they will stand: q with its scheduled change applied,
 * due or not, into *out (for the operator's view: rate, burst, active).
 * Can't fail.
 */
void	 adm_settled(const struct adm_queue *q, struct adm_queue *out);

/*
 * The rate and the active flag as they will stand (adm_settled()), for
 * the operator's view.  Can't fail.
 */
int64_t	 adm_settled_rate(const struct adm_queue *q);
int	 adm_settled_active(const struct adm_queue *q);

/*
 * Whether the segment in effect at t takes joins (not paused): 1 or 0.
 * adm_seg_at(): its kind, ADM_SEG_*.
 */
int	 adm_active_at(const struct adm_queue *q, int64_t t);
int	 adm_seg_at(const struct adm_queue *q, int64_t t);

/*
 * The segment kind of an operator's settings: ADM_SEG_PAUSED when not
 * active, else that of the queuing method method ("hold", "passthrough";
 * anything else, "fifo" included, ADM_SEG_FIFO).  Can't fail.
 */
int	 adm_seg_kind(int active, const char *method);

/*
 * The total-active-users cap (ESA's "total active users"): admissions
 * within any session duration never exceed cap.  The model is a token
 * bucket (at most floor(r * w / 60000) + burst + 1 admissions in any
 * window of w ms: test-admission's bound), so the cap is kept by the
 * segment's values: with b the effective burst of the change (its
 * burst, or rate / 6 for 0) and D = session_s * 1000,
 *   burst' = min(b, max(1, (cap - 1) / 2)),
 *   rate'  = min(rate, floor((cap - 1 - burst') * 60 / session_s)),
 * so that floor(rate' * D / 60000) + burst' + 1 <= cap.  A passthrough
 * segment becomes fifo at the greatest such rate (everyone at once would
 * exceed any cap).  Once the rate is lowered, the burst is set to
 * burst' (a default burst would shrink with the rate).  Abandoned and
 * voided numbers (skip) are nobody's session and do not count.  The
 * places admitted when a capped segment begins (its floor, which may run
 * a former burst ahead of L) stay admitted, serving never going back:
 * the joins that fill them come on top, once.  A cap that is removed
 * leaves the lowered rate as it is.
 *
 * adm_cap_limit(): limits c (rate, burst, kind) for cap (0: none;
 * otherwise at least adm_cap_min(session_s)) and session_s (1..86400).
 * Returns 1 when it lowered anything, else 0.  Can't fail.
 * adm_cap_min(): the least cap for session_s that leaves a rate of at
 * least ADM_RATE_MIN: 2 * ceil(session_s / 60) + 2.
 */
#define ADM_CAP_MAX	10000000	/* visitors */
int	 adm_cap_limit(int64_t cap, int64_t session_s, struct adm_change *c);
int64_t	 adm_cap_min(int64_t session_s);

/* The rate of the segment in effect at t, visitors per minute. */
int64_t	 adm_rate_at(const struct adm_queue *q, int64_t t);

/*
 * Whether q's pre-queue still collects before its opening at t
 * (draw_open and t < opens_at).  Returns 1 or 0.
 */
int	 adm_prequeue(const struct adm_queue *q, int64_t t);

/*
 * P, the size of q's pre-queue: draw_count once the pre-queue is closed
 * in the row (by the first join at or after the opening, or by the
 * worker's opening job at the opening, both under the row lock); -1
 * while the row still collects (not known yet, whatever t: a join whose
 * time, the estimate of the process that sent it, lies before the
 * opening may still land in the pre-queue after this copy was read, up
 * to its deadline); 0 without an opening.  t is kept for the callers.
 */
int64_t	 adm_prequeue_size(const struct adm_queue *q, int64_t t);

/*
 * The random order (queuing method random; ADM_SEG_RANDOM).  From
 * rand_from on (up to rand_to, or on while it is 0), the numbers form
 * blocks of B = rand_block: block k holds rand_from + k * B to
 * rand_from + k * B + B - 1, and its positions are the same range in a
 * keyed random order (draw_order_position()).  Serving enters a block
 * only once all its numbers are issued, so a position serving admits
 * is always someone's (the cap of adm_serving(): the last full block
 * instead of the lagged L + burst while L lies inside a block).
 *
 * adm_block_size(): the block size of a random order begun at rate r:
 * the admissions of 10 s (ceil(r / 6)), 2 to ADM_BURST_MAX.
 *
 * adm_order_block(): whether number n lies in a block of q's random
 * order; then *start gets the block's first number and *size its size.
 * Returns 1 or 0.
 *
 * adm_issued_front(): the largest position p such that every position
 * up to p is one of the numbers up to x: x, or before a block of the
 * random order that x does not fill, the number before that block.
 *
 * adm_order_change(): what a change to segment kind kind (rate r) at
 * now does to the random order of the locked row q, at once (every
 * copy of the row read before computes the same serving number until
 * now + ADM_TICK_MS): random begins one (unless one goes on) at
 * max(L + burst, serving at now + ADM_TICK_MS) + 1, past every place
 * already promised (the burst's numbers keep their order), or where an
 * ended order that no number reached began; fifo and passthrough end
 * a random order that goes on (paused and hold keep it), at the end of
 * the block that holds L + 1 (its numbers stay in it; none issued: at
 * its start).
 * adm_schedule() calls it; a new queue calls it once.  Returns 0, or -1
 * (q unchanged) when random would begin while an ended random order is
 * not free (adm_order_free()).
 *
 * adm_order_free(): whether a new random order may begin at now: none
 * has ended, none of its numbers is issued yet, or all of them are
 * issued (as the lagging cap sees it) and past their claim window.
 * Returns 1 or 0.
 *
 * adm_seal_due(): the number L becomes when the worker seals q at now,
 * or 0: L lies inside a block whose numbers are not all issued, serving
 * has reached the number before that block, and the segment admits
 * (not paused, held or before an opening); then the block's last
 * number.  adm_seal(): on the locked row (after adm_fold() and
 * adm_materialize()), L := to as joins move it: the tick ring moves on
 * to now's tick first; the numbers up to to are never issued (their
 * positions are nobody's, and serving passes them at the rate).
 * Can't fail.
 */
int64_t	 adm_block_size(int64_t rate);
int	 adm_order_block(const struct adm_queue *q, int64_t n,
	    int64_t *start, int64_t *size);
int64_t	 adm_issued_front(const struct adm_queue *q, int64_t x);
int	 adm_order_change(struct adm_queue *q, int64_t now, int kind,
	    int64_t rate);
int	 adm_order_free(const struct adm_queue *q, int64_t now);
int64_t	 adm_seal_due(const struct adm_queue *q, int64_t now);
void	 adm_seal(struct adm_queue *q, int64_t now, int64_t to);

#endif /* ADMISSION_H */
