/*
 * admission.h - the admission model (SPEC section 3) as pure arithmetic:
 * no I/O, no clock, no allocation.  The same rules are mirrored by the join
 * statement in db-queue.c; test/unit/test-admission.c checks both the
 * formulas and, by simulation, the admission bound.
 */
#ifndef ADMISSION_H
#define ADMISSION_H

#include <stdint.h>

#define ADM_RATE_MIN	1		/* visitors per minute */
#define ADM_RATE_MAX	1000000		/* visitors per minute */
#define ADM_BURST_MAX	1000000		/* numbers */
/* Elapsed time beyond this is clamped, so r * dt fits in int64_t. */
#define ADM_DT_MAX_MS	1000000000000LL	/* about 31 years */
/* The join's growth report (adm_join_growth()) is clamped to this range. */
#define ADM_GROWTH_MIN	(-1048576LL)	/* -2^20 */
#define ADM_GROWTH_MAX	1048575LL	/* 2^20 - 1 */
/* The join packs its answer in 63 bits: numbers stay below 2^40. */
#define ADM_NUMBER_MAX	1099511627775LL	/* 2^40 - 1 */
#define ADM_RETRY_MIN_S	2		/* polling interval near the front */
#define ADM_RETRY_MAX_S	30		/* polling interval far back */
#define ADM_RETRY_PAUSED_S 10		/* polling interval while paused */
#define ADM_CLAIM_MIN_S	1		/* claim window, seconds */
#define ADM_CLAIM_MAX_S	86400		/* claim window, seconds */
#define ADM_CLAIM_DEFAULT_S 600		/* claim window, seconds */

/*
 * The admission state of one queue, as stored in its DB row.
 * All numbers are waiting numbers (>= 0); times are Unix milliseconds of
 * the database's clock.
 *
 * Besides the anchor, the row keeps what the claim window needs (see
 * adm_admitted_at()): the anchor and rate of the last segment that
 * admitted before the latest state change, and a checkpoint that the
 * join moves at most once per claim window.
 */
struct adm_queue {
	int64_t	 rate_per_minute;	/* r, ADM_RATE_MIN..ADM_RATE_MAX */
	int64_t	 burst;		/* configured burst; 0 = default from r */
	int64_t	 anchor_number;	/* A */
	int64_t	 anchor_time_ms;	/* T */
	int64_t	 last_number;	/* L: numbers issued so far */
	int64_t	 skip;		/* abandoned numbers (worker) */
	int	 active;	/* 0 = paused: serving frozen */
	int64_t	 floor;		/* F: serving at the last state change */
	int64_t	 claim_window_s; /* ADM_CLAIM_MIN_S..ADM_CLAIM_MAX_S */
	int64_t	 prev_anchor_number;	/* A0: last admitting segment's A */
	int64_t	 prev_anchor_time_ms;	/* T0: ... and its T */
	int64_t	 prev_rate;	/* r0: ... and its rate */
	int64_t	 prev_frontier;	/* P: min(serving, L) when it ended */
	int64_t	 ck_number;	/* K1: admitted frontier at ck_time_ms */
	int64_t	 ck_time_ms;	/* K1's time */
	int64_t	 ck_expired;	/* K0: numbers <= K0 are past the window */
	/* Scheduled opening (see draw.h): */
	int64_t	 opens_at_ms;	/* the opening; 0 = none */
	int64_t	 draw_open;	/* 1: the pre-queue still collects */
	int64_t	 draw_count;	/* P: pre-queue numbers, once closed */
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

/*
 * Effective burst allowance: the configured burst when > 0, else
 * r / 60 * 10 s = r / 6, and at least 1.  Can't fail.
 */
int64_t	 adm_burst(const struct adm_queue *q);

/*
 * Serving number at now_ms:
 *   active:  max(F, min(A + floor(r * (now - T) / 60000) + skip, L + burst))
 *   paused:  max(F, min(A + skip, L + burst))  (frozen since the pause)
 * now - T is clamped to [0, ADM_DT_MAX_MS] (a clock behind T counts as no
 * time passed).  Never below 0.  Can't fail.
 *
 * Serving never goes backward (SPEC section 3): for a fixed state it
 * grows with now; a join leaves it unchanged at the join's instant (it
 * only raises the clamp and re-anchors exactly at it); and every state
 * change sets the floor F to serving(now) first, so a lower rate (and so
 * a lower default burst) cannot pull serving below what it was, also not
 * the part above L on an idle queue.  The floor admits no extra number:
 * it only keeps numbers admitted that already were.
 */
int64_t	 adm_serving(const struct adm_queue *q, int64_t now_ms);

/*
 * Numbers issued and not yet admitted at now_ms: L - serving, at least
 * 0 (serving may run ahead of L by the burst).  Can't fail.
 */
int64_t	 adm_waiting(const struct adm_queue *q, int64_t now_ms);

/*
 * Re-anchor so that serving stays continuous across a rate change, pause
 * or resume: F := serving(now), A := serving(now) - skip, T := now; when
 * the queue is active, the segment it ends is remembered for the claim
 * window (A0, T0, r0 := A, T, r before the change, P := min(serving, L)).
 * Call it before changing rate_per_minute or active.  Can't fail.
 */
void	 adm_reanchor(struct adm_queue *q, int64_t now_ms);

/*
 * Convenience wrappers that re-anchor and then apply the change.
 * adm_set_rate() clamps rate to [ADM_RATE_MIN, ADM_RATE_MAX].  With the
 * default burst (r / 6) a lower rate lowers the clamp L + burst; the
 * floor keeps serving where it was until growth or joins pass it.
 */
void	 adm_set_rate(struct adm_queue *q, int64_t rate, int64_t now_ms);
void	 adm_pause(struct adm_queue *q, int64_t now_ms);
void	 adm_resume(struct adm_queue *q, int64_t now_ms);

/*
 * Join, exactly as the SQL statement in db.c does it, in this order:
 *  -1. if the pre-queue collects (draw_open) and now >= opens_at:
 *      P := L, draw_open := 0 (the first join at or after the opening
 *      closes the pre-queue; its own number is the first after it)
 *   0. if now - K1's time >= claim window (in ms): K0 := K1,
 *      K1 := min(serving(now), L), K1's time := now  (the checkpoint)
 *   1. if A + floor(r * (now - T) / 60000) + skip >= L + burst
 *      then A := max(L + burst, F) - skip    (the clamp was the smaller
 *                                             term: forget idle credit,
 *                                             but grow on from the floor)
 *   2. if A + skip == max(L + burst, F) then T := now
 *   3. L := L + 1; the new number is L.
 * F is kept as it is.  Returns the issued number (>= 1), or 0 when the
 * queue is paused (then q is unchanged).  Can't fail otherwise.  Whether
 * the new number is admitted at once is number <= adm_serving(q, now)
 * on the new state (the statement returns the same bit).
 */
int64_t	 adm_join(struct adm_queue *q, int64_t now_ms);

/*
 * After adm_join() at now_ms: the growth term A + floor(r * (now - T) /
 * 60000) + skip of the new state minus L (the new number), clamped to
 * [ADM_GROWTH_MIN, ADM_GROWTH_MAX].  The join statement returns the same
 * value, so that a process can anchor its cached state at (L + growth -
 * skip, now) with L := number and, until the next change, compute the
 * same serving as the row without reading it again.  A clamped value
 * only understates growth.  Can't fail.
 */
int64_t	 adm_join_growth(const struct adm_queue *q, int64_t now_ms);

/*
 * When number (>= 1) was admitted, in ms, as far as the row can tell:
 *   n > A + skip:    T + ceil((n - A - skip) * 60000 / r)  (the time
 *                    serving reaches n; may be in the future)
 *   P < n <= A + skip:  T - floor((A + skip - n) * 60000 / r)
 *   n <= P, n > A0 + skip:  T0 + ceil((n - A0 - skip) * 60000 / r0)
 *   n <= A0 + skip:  T0 - floor((A0 + skip - n) * 60000 / r0)
 * and, for n <= K1, at most K1's time.
 * Exact for a number that waited and was reached by serving in the
 * current segment or in the segment before the last state change (so a
 * pause neither extends nor shortens a window, and a rate change does
 * not move it).  Below the rate the row does not know join times: the
 * value extrapolates back at the rate from the anchor, which may lie up
 * to 2 * burst * 60 / r seconds (20 s with the default burst) before the
 * true admission; it lies later when the queue was idle in between, and
 * adm_claim_expired() bounds that through the checkpoint.  Numbers older
 * than one state change are extrapolated at the previous segment's rate.
 * Can't fail.
 */
int64_t	 adm_admitted_at(const struct adm_queue *q, int64_t number);

/*
 * Whether the claim window of number (admitted: the caller checked
 * number <= serving) has passed at now_ms:
 *   number <= K0, or now >= adm_admitted_at() + claim window.
 * A number at or below K0 was admitted before the checkpoint K1 was set,
 * which the join sets no sooner than one claim window after the one
 * before, so it is past its window for certain.  A ticket thus obtains
 * tokens for at least the claim window after its admission (less the
 * extrapolation error above) and for at most about twice the window
 * plus the time to the next join.  Returns 1 or 0.  Can't fail.
 */
int	 adm_claim_expired(const struct adm_queue *q, int64_t number,
	    int64_t now_ms);

/*
 * Fill *st for a visitor holding number (>= 1) at now_ms: serving, ahead,
 * admitted, wait_s = ceil((number - serving) * 60 / r), the time until
 * serving reaches the number (0 when admitted; -1 when paused and not
 * admitted: nobody knows), and retry_after_s = adm_retry_after(wait_s)
 * (ADM_RETRY_MIN_S when admitted, ADM_RETRY_PAUSED_S when paused).
 * Can't fail.
 */
void	 adm_status(const struct adm_queue *q, int64_t number,
	    int64_t now_ms, struct adm_status *st);

/*
 * Polling interval for an estimated wait of wait_s seconds: wait / 10,
 * clamped to [ADM_RETRY_MIN_S, ADM_RETRY_MAX_S].  Can't fail.
 */
int	 adm_retry_after(int64_t wait_s);

/*
 * State of a new queue at now_ms with rate r and configured burst b
 * (0 = default): A = burst, T = now, L = 0, skip = 0, F = 0, active,
 * claim window ADM_CLAIM_DEFAULT_S, A0 = A, T0 = T, r0 = r, P = 0,
 * checkpoint K1 = K0 = 0 at now.
 */
void	 adm_init(struct adm_queue *q, int64_t rate, int64_t burst,
	    int64_t now_ms);

/*
 * Arm a scheduled opening at opens_ms (> now): serving is held at 0
 * until then (A := -skip, F := 0, T := opens_ms, so the growth term
 * starts at the opening), the pre-queue collects (draw_open := 1), and
 * the remembered segment starts there too.  Only for a queue that has
 * issued no number yet or whose pre-queue still collects before its
 * opening (adm_prequeue()): then nobody holds an admitted number and
 * serving, 0 or not yet grown, does not step back for anyone.
 * Can't fail.
 */
void	 adm_arm_opening(struct adm_queue *q, int64_t opens_ms);

/*
 * Cancel the scheduled opening of q at now_ms, as if it had never been
 * armed, the way a new queue starts (A := burst - skip, T := now_ms,
 * F := 0): the first burst of visitors pass at once, then the rate; no
 * pre-queue.  Only
 * while the pre-queue is empty (adm_prequeue() and no number issued):
 * nobody waits for the draw.  Can't fail.
 */
void	 adm_cancel_opening(struct adm_queue *q, int64_t now_ms);

/*
 * Whether q's pre-queue still collects before its opening at now_ms
 * (draw_open and now < opens_at).  Returns 1 or 0.
 */
int	 adm_prequeue(const struct adm_queue *q, int64_t now_ms);

/*
 * Keep a collecting pre-queue held at its opening after another state
 * change (rate, burst, pause, resume) re-anchored it at now_ms: when
 * adm_prequeue(q, now_ms), A := -skip, F := 0, T := opens_at again.
 * Can't fail.
 */
void	 adm_hold_prequeue(struct adm_queue *q, int64_t now_ms);

#endif /* ADMISSION_H */
