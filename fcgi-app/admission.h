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
#define ADM_RETRY_MIN_S	2		/* polling interval near the front */
#define ADM_RETRY_MAX_S	30		/* polling interval far back */

/*
 * The admission state of one queue, as stored in its DB row.
 * All numbers are waiting numbers (>= 0); times are Unix milliseconds.
 */
struct adm_queue {
	int64_t	 rate_per_minute;	/* r, ADM_RATE_MIN..ADM_RATE_MAX */
	int64_t	 burst;		/* configured burst; 0 = default from r */
	int64_t	 anchor_number;	/* A */
	int64_t	 anchor_time_ms;	/* T */
	int64_t	 last_number;	/* L: numbers issued so far */
	int64_t	 skip;		/* abandoned numbers (worker) */
	int	 active;	/* 0 = paused: serving frozen */
};

/* What a visitor holding a number is told (status, join). */
struct adm_status {
	int64_t	 serving;	/* admitted up to and including */
	int64_t	 ahead;		/* max(0, number - serving - 1) */
	int	 admitted;	/* number <= serving */
	int64_t	 wait_s;	/* ceil(ahead * 60 / r), seconds */
	int	 retry_after_s;	/* polling interval, seconds */
};

/*
 * Effective burst allowance: the configured burst when > 0, else
 * r / 60 * 10 s = r / 6, and at least 1.  Can't fail.
 */
int64_t	 adm_burst(const struct adm_queue *q);

/*
 * Serving number at now_ms:
 *   active:  min(A + floor(r * (now - T) / 60000) + skip, L + burst)
 *   paused:  min(A + skip, L + burst)        (frozen since the pause)
 * now - T is clamped to [0, ADM_DT_MAX_MS] (a clock behind T counts as no
 * time passed).  Never below 0.  Can't fail.
 */
int64_t	 adm_serving(const struct adm_queue *q, int64_t now_ms);

/*
 * Re-anchor so that serving stays continuous across a rate change, pause
 * or resume: A := serving(now) - skip, T := now.  Call it before changing
 * rate_per_minute or active.  Can't fail.
 */
void	 adm_reanchor(struct adm_queue *q, int64_t now_ms);

/*
 * Convenience wrappers that re-anchor and then apply the change.
 * adm_set_rate() clamps rate to [ADM_RATE_MIN, ADM_RATE_MAX].
 * XXX: with the default burst (r / 6) a lower rate also lowers the clamp
 * L + burst, so on an idle queue serving can step down to L + new burst.
 * That is deliberate: the numbers it drops are not issued yet (min(serving,
 * L) never decreases, no admission is revoked), and keeping the old
 * allowance would let a spike right after the cut through at the old
 * burst, which is what the operator lowered the rate to prevent.
 */
void	 adm_set_rate(struct adm_queue *q, int64_t rate, int64_t now_ms);
void	 adm_pause(struct adm_queue *q, int64_t now_ms);
void	 adm_resume(struct adm_queue *q, int64_t now_ms);

/*
 * Join, exactly as the SQL statement in db-queue.c does it, in this order:
 *   1. if A + floor(r * (now - T) / 60000) + skip >= L + burst
 *      then A := L + burst - skip            (the clamp was the smaller
 *                                             term: forget idle credit)
 *   2. if A + skip == L + burst then T := now
 *   3. L := L + 1; the new number is L.
 * Returns the issued number (>= 1), or 0 when the queue is paused (then q
 * is unchanged).  Can't fail otherwise.
 */
int64_t	 adm_join(struct adm_queue *q, int64_t now_ms);

/*
 * Fill *st for a visitor holding number (>= 1) at now_ms:
 * serving, ahead, admitted, wait_s = ceil(ahead * 60 / r) and
 * retry_after_s = adm_retry_after(wait_s) (ADM_RETRY_MIN_S when admitted).
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
 * (0 = default): A = burst, T = now, L = 0, skip = 0, active.
 */
void	 adm_init(struct adm_queue *q, int64_t rate, int64_t burst,
	    int64_t now_ms);

#endif /* ADMISSION_H */
