/*
 * admission.c - the admission model (SPEC section 3) as pure arithmetic:
 * serving number, join, status estimates.  No I/O, no clock, no
 * allocation; the join statement in db-queue.c mirrors adm_join().
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "admission.h"

#define MS_PER_MIN	60000

/*
 * The rate of q clamped to [ADM_RATE_MIN, ADM_RATE_MAX], so that a bad
 * row can neither divide by zero nor overflow r * dt.  For a valid row
 * this is rate_per_minute itself.  Can't fail.
 */
static int64_t
rate(const struct adm_queue *q)
{
	if (q->rate_per_minute < ADM_RATE_MIN)
		return ADM_RATE_MIN;
	if (q->rate_per_minute > ADM_RATE_MAX)
		return ADM_RATE_MAX;
	return q->rate_per_minute;
}

/*
 * Milliseconds from "from" to "to", clamped to [0, ADM_DT_MAX_MS]: a
 * clock behind "from" counts as no time passed.  The difference is taken
 * in unsigned arithmetic, so even extreme inputs cannot overflow.
 * Can't fail.
 */
static int64_t
elapsed(int64_t from, int64_t to)
{
	uint64_t	 d;

	if (to <= from)
		return 0;
	d = (uint64_t)to - (uint64_t)from;
	if (d > (uint64_t)ADM_DT_MAX_MS)
		return ADM_DT_MAX_MS;
	return (int64_t)d;
}

/*
 * The unclamped growth term of an active queue at now_ms:
 * A + floor(r * (now - T) / 60000), without skip.  r <= 10^6 and
 * dt <= 10^12, so the product fits in int64_t.  Can't fail.
 */
static int64_t
grown(const struct adm_queue *q, int64_t now_ms)
{

	return q->anchor_number +
	    rate(q) * elapsed(q->anchor_time_ms, now_ms) / MS_PER_MIN;
}

/*
 * The claim window of q in ms, the setting clamped to
 * [ADM_CLAIM_MIN_S, ADM_CLAIM_MAX_S].  Can't fail.
 */
static int64_t
claim_ms(const struct adm_queue *q)
{
	int64_t	 w = q->claim_window_s;

	if (w < ADM_CLAIM_MIN_S)
		w = ADM_CLAIM_MIN_S;
	else if (w > ADM_CLAIM_MAX_S)
		w = ADM_CLAIM_MAX_S;
	return w * 1000;
}

/*
 * Milliseconds for k numbers at r per minute, rounded up (ceil) or down:
 * k * 60000 / r for 0 <= k, 1 <= r <= ADM_RATE_MAX, saturating at
 * ADM_DT_MAX_MS so that callers can add it to a time.  Can't fail.
 */
static int64_t
ticks_ms(int64_t k, int64_t r, int up)
{
	if (k <= 0)
		return 0;
	if (k / r >= ADM_DT_MAX_MS / MS_PER_MIN)
		return ADM_DT_MAX_MS;
	/* k % r < 10^6, so (k % r) * 60000 fits easily. */
	return k / r * MS_PER_MIN +
	    ((k % r) * MS_PER_MIN + (up ? r - 1 : 0)) / r;
}

/*
 * Returns the configured burst when > 0, else r / 6 (r/60 per second
 * times 10 s), at least 1.  Can't fail.
 */
int64_t
adm_burst(const struct adm_queue *q)
{
	int64_t	 b;

	if (q->burst > 0)
		return q->burst;
	b = rate(q) / 6;
	return b < 1 ? 1 : b;
}

/*
 * Returns the serving number at now_ms: the growth term (frozen at A
 * while paused) plus skip, clamped to L + burst, and never below 0.
 * Can't fail.
 */
int64_t
adm_serving(const struct adm_queue *q, int64_t now_ms)
{
	int64_t	 s, cap;

	s = (q->active ? grown(q, now_ms) : q->anchor_number) + q->skip;
	cap = q->last_number + adm_burst(q);
	if (s > cap)
		s = cap;
	if (s < q->floor)
		s = q->floor;
	return s < 0 ? 0 : s;
}

int64_t
adm_waiting(const struct adm_queue *q, int64_t now_ms)
{
	int64_t	 s = adm_serving(q, now_ms);

	return q->last_number > s ? q->last_number - s : 0;
}

/*
 * Moves the anchor to now_ms without moving serving: remembers the
 * segment that ends when it was admitting, then F := serving(now),
 * A := serving(now) - skip, T := now.  Can't fail.
 */
void
adm_reanchor(struct adm_queue *q, int64_t now_ms)
{
	int64_t	 s = adm_serving(q, now_ms);

	if (q->active) {
		q->prev_anchor_number = q->anchor_number;
		q->prev_anchor_time_ms = q->anchor_time_ms;
		q->prev_rate = rate(q);
		q->prev_frontier = s < q->last_number ? s : q->last_number;
	}
	q->floor = s;
	q->anchor_number = s - q->skip;
	q->anchor_time_ms = now_ms;
}

/*
 * Re-anchors at now_ms, then sets the rate, clamped to
 * [ADM_RATE_MIN, ADM_RATE_MAX].  Can't fail.
 */
void
adm_set_rate(struct adm_queue *q, int64_t r, int64_t now_ms)
{

	adm_reanchor(q, now_ms);
	if (r < ADM_RATE_MIN)
		r = ADM_RATE_MIN;
	else if (r > ADM_RATE_MAX)
		r = ADM_RATE_MAX;
	q->rate_per_minute = r;
}

/*
 * Re-anchors at now_ms, then pauses: serving stays frozen until
 * adm_resume().  Can't fail.
 */
void
adm_pause(struct adm_queue *q, int64_t now_ms)
{

	adm_reanchor(q, now_ms);
	q->active = 0;
}

/*
 * Re-anchors at now_ms, then resumes: serving grows again from its
 * frozen value.  Can't fail.
 */
void
adm_resume(struct adm_queue *q, int64_t now_ms)
{

	adm_reanchor(q, now_ms);
	q->active = 1;
}

/*
 * Issues the next number at now_ms, in the order of the SQL statement:
 * forget idle credit when the clamp L + burst is the smaller (or equal)
 * term, restart the anchor time when so, then L := L + 1.  Returns the
 * new number (>= 1), or 0 and leaves q unchanged when paused.
 * Can't fail otherwise.
 */
int64_t
adm_join(struct adm_queue *q, int64_t now_ms)
{
	int64_t	 cap, s;

	if (!q->active)
		return 0;
	if (q->draw_open && now_ms >= q->opens_at_ms) {
		q->draw_count = q->last_number;
		q->draw_open = 0;
	}
	if (elapsed(q->ck_time_ms, now_ms) >= claim_ms(q)) {
		s = adm_serving(q, now_ms);
		q->ck_expired = q->ck_number;
		q->ck_number = s < q->last_number ? s : q->last_number;
		q->ck_time_ms = now_ms;
	}
	cap = q->last_number + adm_burst(q);
	if (grown(q, now_ms) + q->skip >= cap)
		q->anchor_number = (cap > q->floor ? cap : q->floor) - q->skip;
	if (q->anchor_number + q->skip == (cap > q->floor ? cap : q->floor))
		q->anchor_time_ms = now_ms;
	q->last_number++;
	return q->last_number;
}

/*
 * The rate of the remembered segment, clamped like rate().
 */
static int64_t
prev_rate(const struct adm_queue *q)
{
	if (q->prev_rate < ADM_RATE_MIN)
		return ADM_RATE_MIN;
	if (q->prev_rate > ADM_RATE_MAX)
		return ADM_RATE_MAX;
	return q->prev_rate;
}

/*
 * Returns the estimated admission time of number in ms, by the cases
 * documented in admission.h.  Can't fail.
 */
int64_t
adm_admitted_at(const struct adm_queue *q, int64_t n)
{
	int64_t	 a = q->anchor_number + q->skip, a0, t;

	if (n > a)
		t = q->anchor_time_ms + ticks_ms(n - a, rate(q), 1);
	else if (n > q->prev_frontier)
		t = q->anchor_time_ms - ticks_ms(a - n, rate(q), 0);
	else {
		a0 = q->prev_anchor_number + q->skip;
		if (n > a0)
			t = q->prev_anchor_time_ms +
			    ticks_ms(n - a0, prev_rate(q), 1);
		else
			t = q->prev_anchor_time_ms -
			    ticks_ms(a0 - n, prev_rate(q), 0);
	}
	if (n <= q->ck_number && t > q->ck_time_ms)
		t = q->ck_time_ms;
	return t;
}

int
adm_claim_expired(const struct adm_queue *q, int64_t n, int64_t now_ms)
{
	int64_t	 at;

	if (n <= q->ck_expired)
		return 1;
	at = adm_admitted_at(q, n);
	return now_ms >= at && elapsed(at, now_ms) >= claim_ms(q);
}

int64_t
adm_join_growth(const struct adm_queue *q, int64_t now_ms)
{
	int64_t	 d = grown(q, now_ms) + q->skip - q->last_number;

	if (d < ADM_GROWTH_MIN)
		return ADM_GROWTH_MIN;
	return d > ADM_GROWTH_MAX ? ADM_GROWTH_MAX : d;
}

/*
 * Returns ceil(ahead * 60 / r) for ahead >= 0 and r >= 1, computed as
 * 60 * (ahead / r) + ceil(60 * (ahead % r) / r) so that no intermediate
 * overflows; saturates at INT64_MAX.  Can't fail.
 */
static int64_t
wait_seconds(int64_t ahead, int64_t r)
{
	int64_t	 whole, rem;

	whole = ahead / r;
	rem = ahead % r;
	if (whole > (INT64_MAX - 60) / 60)
		return INT64_MAX;
	return whole * 60 + (rem * 60 + r - 1) / r;
}

/*
 * Fills *st for number at now_ms: serving, ahead, admitted, the wait
 * estimate and the polling interval.  Can't fail.
 */
void
adm_status(const struct adm_queue *q, int64_t number, int64_t now_ms,
    struct adm_status *st)
{

	st->serving = adm_serving(q, now_ms);
	st->admitted = number <= st->serving;
	/* serving >= 0, so number - serving - 1 cannot overflow here. */
	st->ahead = st->admitted ? 0 : number - st->serving - 1;
	if (st->admitted) {
		st->wait_s = 0;
		st->retry_after_s = ADM_RETRY_MIN_S;
	} else if (!q->active) {
		st->wait_s = -1;
		st->retry_after_s = ADM_RETRY_PAUSED_S;
	} else {
		st->wait_s = wait_seconds(st->ahead + 1, rate(q));
		st->retry_after_s = adm_retry_after(st->wait_s);
	}
}

/*
 * Returns wait_s / 10 clamped to [ADM_RETRY_MIN_S, ADM_RETRY_MAX_S].
 * Can't fail.
 */
int
adm_retry_after(int64_t wait_s)
{
	int64_t	 r;

	r = wait_s / 10;
	if (r < ADM_RETRY_MIN_S)
		return ADM_RETRY_MIN_S;
	if (r > ADM_RETRY_MAX_S)
		return ADM_RETRY_MAX_S;
	return (int)r;
}

/*
 * Sets *q to a new, active queue at now_ms with rate r (clamped as in
 * adm_set_rate()) and configured burst b (<= 0 means the default):
 * A = burst, T = now, L = 0, skip = 0, so the first burst joiners pass
 * at once.  Can't fail.
 */
void
adm_init(struct adm_queue *q, int64_t r, int64_t b, int64_t now_ms)
{

	if (r < ADM_RATE_MIN)
		r = ADM_RATE_MIN;
	else if (r > ADM_RATE_MAX)
		r = ADM_RATE_MAX;
	memset(q, 0, sizeof(*q));
	q->rate_per_minute = r;
	q->burst = b > 0 ? b : 0;
	q->active = 1;
	q->anchor_number = adm_burst(q);
	q->anchor_time_ms = now_ms;
	q->claim_window_s = ADM_CLAIM_DEFAULT_S;
	q->prev_anchor_number = q->anchor_number;
	q->prev_anchor_time_ms = now_ms;
	q->prev_rate = r;
	q->ck_time_ms = now_ms;
}

/*
 * Holds serving at 0 until opens_ms and starts collecting the
 * pre-queue.  Can't fail.
 */
void
adm_arm_opening(struct adm_queue *q, int64_t opens_ms)
{

	q->opens_at_ms = opens_ms;
	q->draw_open = 1;
	q->draw_count = 0;
	q->floor = 0;
	q->anchor_number = -q->skip;
	q->anchor_time_ms = opens_ms;
	q->prev_anchor_number = q->anchor_number;
	q->prev_anchor_time_ms = opens_ms;
	q->prev_rate = rate(q);
	q->prev_frontier = 0;
}

void
adm_cancel_opening(struct adm_queue *q, int64_t now_ms)
{

	/* As a new queue starts: A = burst at now, L = 0. */
	adm_arm_opening(q, now_ms);
	q->opens_at_ms = 0;
	q->draw_open = 0;
	q->anchor_number = adm_burst(q) - q->skip;
	q->prev_anchor_number = q->anchor_number;
}

int
adm_prequeue(const struct adm_queue *q, int64_t now_ms)
{
	return q->draw_open && now_ms < q->opens_at_ms;
}

void
adm_hold_prequeue(struct adm_queue *q, int64_t now_ms)
{
	if (!adm_prequeue(q, now_ms))
		return;
	q->floor = 0;
	q->anchor_number = -q->skip;
	q->anchor_time_ms = q->opens_at_ms;
}
