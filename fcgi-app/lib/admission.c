/*
 * admission.c - the admission model (SPEC section 3) as pure arithmetic:
 * serving number, join, scheduled changes, the claim window's history,
 * status estimates.  No I/O, no clock, no allocation; the join
 * statement in db-stmt.c mirrors adm_join().
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "admission.h"

#define MS_PER_MIN	60000

/*
 * Rate r clamped to [ADM_RATE_MIN, ADM_RATE_MAX], so that a bad row can
 * neither divide by zero nor overflow r * dt.  Can't fail.
 */
static int64_t
clamp_rate(int64_t r)
{
	if (r < ADM_RATE_MIN)
		return ADM_RATE_MIN;
	if (r > ADM_RATE_MAX)
		return ADM_RATE_MAX;
	return r;
}

/* The rate of q's own segment, clamped.  Can't fail. */
static int64_t
rate(const struct adm_queue *q)
{
	return clamp_rate(q->rate_per_minute);
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

/* floor(a / b) for b > 0, also for negative a.  Can't fail. */
static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t	 d = a / b;

	return (a % b != 0 && a < 0) ? d - 1 : d;
}

/*
 * The spacing of the claim window's grid in ms: the window (clamped to
 * [ADM_CLAIM_MIN_S, ADM_CLAIM_MAX_S]) plus ADM_CLAIM_SLACK_MS.
 * Can't fail.
 */
static int64_t
grid_ms(const struct adm_queue *q)
{
	int64_t	 w = q->claim_window_s;

	if (w < ADM_CLAIM_MIN_S)
		w = ADM_CLAIM_MIN_S;
	else if (w > ADM_CLAIM_MAX_S)
		w = ADM_CLAIM_MAX_S;
	return w * 1000 + ADM_CLAIM_SLACK_MS;
}

/* A segment kind from a stored value: ADM_SEG_*.  Can't fail. */
static int
seg(int64_t v)
{
	return v >= ADM_SEG_PAUSED && v <= ADM_SEG_RANDOM ? (int)v :
	    ADM_SEG_FIFO;
}

/* min and max of two values. */
static int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
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
		return min64(q->burst, ADM_BURST_MAX);
	b = rate(q) / 6;
	return b < 1 ? 1 : b;
}

/*
 * Make *q the segment its scheduled change begins (whether due or not):
 * floor and anchor at pend_floor (A with the old skip, so that a larger
 * new skip jumps serving ahead), T at the change's time or, while an
 * opening holds, at the opening plus ADM_TICK_MS.  Can't fail.
 */
static void
apply_change(struct adm_queue *q)
{
	q->floor = q->pend_floor;
	q->anchor_number = q->pend_floor - q->skip;
	q->anchor_time_ms = q->pend_at_ms;
	if (q->opens_at_ms > 0 &&
	    q->anchor_time_ms < q->opens_at_ms + ADM_TICK_MS)
		q->anchor_time_ms = q->opens_at_ms + ADM_TICK_MS;
	q->rate_per_minute = clamp_rate(q->pend_rate);
	q->burst = q->pend_burst;
	q->active = seg(q->pend_active);
	q->skip = q->pend_skip;
	q->pend_at_ms = 0;
	q->pend_rate = q->pend_burst = q->pend_active = 0;
	q->pend_skip = q->pend_floor = 0;
}

/*
 * The segment in effect at t: q itself, or (in *buf) q with its
 * scheduled change applied when that is due at t.  Returns q or buf.
 */
static const struct adm_queue *
view(const struct adm_queue *q, int64_t t, struct adm_queue *buf)
{
	if (q->pend_at_ms <= 0 || t < q->pend_at_ms)
		return q;
	*buf = *q;
	apply_change(buf);
	return buf;
}

int64_t
adm_burst_at(const struct adm_queue *q, int64_t t)
{
	struct adm_queue	 buf;

	return adm_burst(view(q, t, &buf));
}

/*
 * Returns L at the start of the tick before t's, from the ring: L for
 * boundaries after the last join's tick, else the ring's entry (the
 * oldest for anything older).  Can't fail.
 */
int64_t
adm_lagged_last(const struct adm_queue *q, int64_t t)
{
	int64_t	 k = floor_div(t, ADM_TICK_MS) - 1;

	if (k > q->tick)
		return q->last_number;
	if (k == q->tick)
		return q->l_tick;
	if (k == q->tick - 1)
		return q->l_tick1;
	return q->l_tick2;
}

/*
 * The growth term of segment v at t without the cap: A + skip, plus
 * floor(r * (t - T) / 60000) while active.  r <= 10^6 and dt <= 10^12,
 * so the product fits in int64_t.  Can't fail.
 */
static int64_t
grown(const struct adm_queue *v, int64_t t)
{
	int64_t	 g = v->anchor_number + v->skip;

	if (v->active == ADM_SEG_FIFO || v->active == ADM_SEG_RANDOM)
		g += rate(v) * elapsed(v->anchor_time_ms, t) / MS_PER_MIN;
	else if (v->active == ADM_SEG_PASS && t >= v->anchor_time_ms)
		g += ADM_PASS_CREDIT;
	return g;
}

/* The size of q's random blocks, at least 1.  Can't fail. */
static int64_t
block(const struct adm_queue *q)
{
	return q->rand_block < 1 ? 1 : q->rand_block;
}

int64_t
adm_block_size(int64_t r)
{
	r = clamp_rate(r);
	return min64(max64((r + 5) / 6, 2), ADM_BURST_MAX);
}

int
adm_order_block(const struct adm_queue *q, int64_t n, int64_t *start,
    int64_t *size)
{
	int64_t	 b = block(q);

	if (q->rand_from <= 0 || n < q->rand_from ||
	    (q->rand_to > 0 && n >= q->rand_to))
		return 0;
	*start = q->rand_from + (n - q->rand_from) / b * b;
	*size = b;
	return 1;
}

int64_t
adm_issued_front(const struct adm_queue *q, int64_t x)
{
	int64_t	 b = block(q);

	if (q->rand_from <= 0 || x < q->rand_from - 1 ||
	    (q->rand_to > 0 && x >= q->rand_to - 1))
		return x;
	return q->rand_from - 1 + (x - q->rand_from + 1) / b * b;
}

/*
 * The cap of serving for the lagged L x (adm_serving()): x + burst,
 * but never into a random block not all issued.  Can't fail.
 */
static int64_t
cap_of(const struct adm_queue *v, int64_t x)
{
	int64_t	 b = adm_burst(v);

	if (v->rand_from <= 0 || (v->rand_to > 0 && x >= v->rand_to - 1))
		return x + b;
	if (x < v->rand_from - 1)
		return min64(x + b, v->rand_from - 1);
	return adm_issued_front(v, x);
}

/*
 * Returns the serving number at t: the growth term of the segment in
 * effect at t, clamped to the cap of the lagged L, never below the
 * floor or 0.  Can't fail.
 */
int64_t
adm_serving(const struct adm_queue *q, int64_t t)
{
	struct adm_queue	 buf;
	const struct adm_queue	*v = view(q, t, &buf);
	int64_t			 s;

	s = min64(grown(v, t), cap_of(v, adm_lagged_last(v, t)));
	s = max64(s, v->floor);
	return s < 0 ? 0 : s;
}

int64_t
adm_waiting(const struct adm_queue *q, int64_t t)
{
	int64_t	 s = adm_serving(q, t);

	return q->last_number > s ? q->last_number - s : 0;
}

int
adm_held(const struct adm_queue *q, int64_t t)
{
	return q->opens_at_ms > 0 && t < q->opens_at_ms + ADM_TICK_MS;
}

int
adm_admitted(const struct adm_queue *q, int64_t pos, int64_t t)
{
	return pos >= 1 && !adm_held(q, t) && pos <= adm_serving(q, t);
}

int64_t
adm_frontier(const struct adm_queue *q, int64_t t)
{
	if (adm_held(q, t))
		return 0;
	return min64(adm_serving(q, t), adm_issued_front(q, q->last_number));
}

/*
 * Moves the claim samples up to now's grid point: the frontier there
 * (and at the point before, unless that is the previous latest one),
 * from the state in effect since the last write.  Can't fail.
 */
void
adm_fold(struct adm_queue *q, int64_t now)
{
	int64_t	 g, gms = grid_ms(q);

	if (now < 0)
		return;
	g = now / gms;
	if (g <= q->claim_grid)
		return;
	if (g == q->claim_grid + 1)
		q->claim_front1 = q->claim_front;
	else
		q->claim_front1 = adm_frontier(q, (g - 1) * gms);
	q->claim_front = adm_frontier(q, g * gms);
	q->claim_grid = g;
}

int
adm_materialize(struct adm_queue *q, int64_t now)
{
	if (q->pend_at_ms <= 0 || q->pend_at_ms > now)
		return 0;
	apply_change(q);
	return 1;
}

void
adm_change_init(const struct adm_queue *q, int64_t t, struct adm_change *c)
{
	struct adm_queue	 buf;
	const struct adm_queue	*v = view(q, t, &buf);

	c->rate = v->rate_per_minute;
	c->burst = v->burst;
	c->active = v->active;
	c->skip = v->skip;
}

int
adm_order_free(const struct adm_queue *q, int64_t now)
{
	if (q->rand_from <= 0 || q->rand_to == 0 ||
	    (q->rand_to == q->rand_from &&
	    q->last_number < q->rand_from - 1))
		return 1;
	return adm_lagged_last(q, now) >= q->rand_to - 1 &&
	    adm_claim_expired(q, q->rand_to - 1, now);
}

/*
 * adm_order_change() with f, the serving number at now + ADM_TICK_MS.
 * Returns 0 or -1 (q unchanged).
 */
static int
order_change(struct adm_queue *q, int64_t now, int kind, int64_t r,
    int64_t f)
{
	int64_t	 l = q->last_number, e = q->rand_from, b = block(q);

	if (kind == ADM_SEG_RANDOM) {
		if (e > 0 && q->rand_to == 0)
			return 0;
		/*
		 * An ended order no number reached: it goes on again where
		 * it was (every copy's cap, min(L' + burst, e - 1), stays).
		 */
		if (e > 0 && q->rand_to == e && l < e - 1) {
			q->rand_to = 0;
			q->rand_block = adm_block_size(r);
			return 0;
		}
		if (!adm_order_free(q, now))
			return -1;
		q->rand_from = max64(l + adm_burst_at(q, now), f) + 1;
		q->rand_to = 0;
		q->rand_block = adm_block_size(r);
		return 0;
	}
	/* Paused and on hold nobody new is admitted: the order goes on. */
	if (kind == ADM_SEG_PAUSED || kind == ADM_SEG_HOLD || e <= 0 ||
	    q->rand_to != 0)
		return 0;
	/*
	 * The copies read before now saw the order go on: their cap at
	 * any L' <= L inside it is the new row's too, with the order ending
	 * at the end of the block that holds L + 1 (so L' = L at a block's
	 * end still lies inside; none issued: at e).
	 */
	q->rand_to = l < e - 1 ? e : e + ((l - e + 1) / b + 1) * b;
	return 0;
}

int
adm_order_change(struct adm_queue *q, int64_t now, int kind, int64_t r)
{
	return order_change(q, now, kind, r, adm_serving(q, now +
	    ADM_TICK_MS));
}

/*
 * Folds, applies a due change, and schedules c at now + ADM_TICK_MS
 * with the serving number the current segment has there.  Returns 0, or
 * -1 when a change is still scheduled ahead of now.
 */
int
adm_schedule(struct adm_queue *q, int64_t now, const struct adm_change *c)
{
	int64_t	 at = now + ADM_TICK_MS, f;

	if (q->pend_at_ms > now)
		return -1;
	adm_fold(q, now);
	(void)adm_materialize(q, now);
	f = adm_serving(q, at);
	if (order_change(q, now, seg(c->active), c->rate, f) == -1)
		return -1;
	q->pend_floor = f;
	q->pend_at_ms = at;
	q->pend_rate = clamp_rate(c->rate);
	q->pend_burst = c->burst < 0 ? 0 : min64(c->burst, ADM_BURST_MAX);
	q->pend_active = seg(c->active);
	q->pend_skip = max64(c->skip, q->skip);
	return 0;
}

/*
 * Moves the tick ring of q on to now's tick: L at every boundary since
 * the last join's tick is L.  Can't fail.
 */
static void
ring_move(struct adm_queue *q, int64_t now)
{
	int64_t	 k = floor_div(now, ADM_TICK_MS), l = q->last_number;

	if (k <= q->tick)
		return;
	q->l_tick2 = k == q->tick + 1 ? q->l_tick1 :
	    k == q->tick + 2 ? q->l_tick : l;
	q->l_tick1 = k == q->tick + 1 ? q->l_tick : l;
	q->l_tick = l;
	q->tick = k;
}

int64_t
adm_seal_due(const struct adm_queue *q, int64_t now)
{
	int64_t	 s0, b;
	int	 k = adm_seg_at(q, now);

	if (!adm_order_block(q, q->last_number, &s0, &b) ||
	    q->last_number == s0 + b - 1 || k == ADM_SEG_PAUSED ||
	    k == ADM_SEG_HOLD || adm_held(q, now) ||
	    adm_serving(q, now) < s0 - 1)
		return 0;
	return s0 + b - 1;
}

void
adm_seal(struct adm_queue *q, int64_t now, int64_t to)
{
	ring_move(q, now);
	if (to > q->last_number)
		q->last_number = to;
}

/*
 * Issues the next number at now, in the order of the SQL statement.
 * Returns the number (>= 1), 0 when paused, -1 when a change is due;
 * q is unchanged then.
 */
int64_t
adm_join(struct adm_queue *q, int64_t now, int *admitted)
{
	return adm_lease(q, now, 1, admitted);
}

int
adm_order_open(const struct adm_queue *q)
{
	return q->rand_from > 0 && (q->rand_to == 0 ||
	    q->last_number < q->rand_to - 1);
}

int
adm_lease_ok(const struct adm_queue *q)
{
	return (q->active == ADM_SEG_FIFO || q->active == ADM_SEG_PASS) &&
	    !q->draw_open && !adm_order_open(q);
}

int64_t
adm_lease(struct adm_queue *q, int64_t now, int64_t n, int *admitted)
{
	int64_t	 cap, l;

	*admitted = 0;
	if (q->pend_at_ms > 0 && q->pend_at_ms <= now)
		return -1;
	if (!q->active || (n > 1 && !adm_lease_ok(q)))
		return 0;
	if (n < 1)
		n = 1;
	adm_fold(q, now);
	l = q->last_number;
	if (q->draw_open && now >= q->opens_at_ms) {
		q->draw_count = l;
		q->draw_open = 0;
	}
	ring_move(q, now);
	cap = l + adm_burst(q);
	if (q->anchor_time_ms <= now && grown(q, now) >= cap) {
		q->anchor_number = max64(cap, q->floor) - q->skip;
		q->anchor_time_ms = now;
	}
	/* On hold: past serving, so that nobody new is admitted. */
	if (q->active == ADM_SEG_HOLD)
		l = max64(l, adm_serving(q, now));
	q->last_number = l + n;
	*admitted = adm_admitted(q, l + 1, now);
	return q->last_number;
}

/*
 * The largest position past the claim window at now: claim_dead, or the
 * frontier at the latest grid point at or before now - G (from the
 * samples, or computed when it lies after the last write; 0 when it is
 * older than the samples: never expire early).  Can't fail.
 */
static int64_t
expired_front(const struct adm_queue *q, int64_t now)
{
	int64_t	 gms = grid_ms(q), gs, f;

	if (now < 2 * gms)
		return q->claim_dead;
	gs = now / gms - 1;
	if (gs > q->claim_grid)
		f = adm_frontier(q, gs * gms);
	else if (gs == q->claim_grid)
		f = q->claim_front;
	else if (gs == q->claim_grid - 1)
		f = q->claim_front1;
	else
		f = 0;
	return max64(f, q->claim_dead);
}

int
adm_claim_expired(const struct adm_queue *q, int64_t pos, int64_t now)
{
	return pos <= expired_front(q, now);
}

/*
 * Keeps what has passed the old window past it, then starts the samples
 * anew on the new grid (at claim_dead: a lower bound, so nothing
 * expires early).  Can't fail.
 */
void
adm_set_claim_window(struct adm_queue *q, int64_t now, int64_t w)
{
	if (w < ADM_CLAIM_MIN_S)
		w = ADM_CLAIM_MIN_S;
	else if (w > ADM_CLAIM_MAX_S)
		w = ADM_CLAIM_MAX_S;
	q->claim_dead = expired_front(q, now);
	q->claim_window_s = w;
	q->claim_grid = now < 0 ? 0 : now / grid_ms(q);
	q->claim_front = q->claim_front1 = q->claim_dead;
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
 * Fills *st for number at t: serving, ahead, admitted, the wait estimate
 * and the polling interval.  Can't fail.
 */
void
adm_status(const struct adm_queue *q, int64_t number, int64_t t,
    struct adm_status *st)
{
	struct adm_queue	 buf;
	const struct adm_queue	*v = view(q, t, &buf);

	st->serving = adm_serving(q, t);
	st->admitted = adm_admitted(q, number, t);
	/* serving >= 0, so number - serving - 1 cannot overflow here. */
	st->ahead = number > st->serving && !st->admitted ?
	    number - st->serving - 1 : 0;
	if (st->admitted) {
		st->wait_s = 0;
		st->retry_after_s = ADM_RETRY_MIN_S;
	} else if (v->active == ADM_SEG_PAUSED ||
	    v->active == ADM_SEG_HOLD) {
		st->wait_s = -1;
		st->retry_after_s = ADM_RETRY_PAUSED_S;
	} else if (number <= st->serving) {
		/* Held by an opening: admitted when the hold ends. */
		st->wait_s = (q->opens_at_ms + ADM_TICK_MS - t + 999) / 1000;
		st->retry_after_s = adm_retry_after(st->wait_s);
	} else {
		st->wait_s = wait_seconds(st->ahead + 1, rate(v));
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
 * Sets *q to a new, active queue at now with rate r (clamped) and
 * configured burst b (<= 0 means the default): A = burst, T = now, so
 * the first burst joiners pass at once.  Can't fail.
 */
void
adm_init(struct adm_queue *q, int64_t r, int64_t b, int64_t now)
{
	memset(q, 0, sizeof(*q));
	q->rate_per_minute = clamp_rate(r);
	q->burst = b > 0 ? min64(b, ADM_BURST_MAX) : 0;
	q->active = 1;
	q->anchor_number = adm_burst(q);
	q->anchor_time_ms = now;
	q->claim_window_s = ADM_CLAIM_DEFAULT_S;
	q->claim_grid = now < 0 ? 0 : now / grid_ms(q);
	q->tick = floor_div(now, ADM_TICK_MS);
	q->rand_block = 1;
}

void
adm_init_opening(struct adm_queue *q, int64_t r, int64_t b, int64_t now,
    int64_t opens_ms)
{
	adm_init(q, r, b, now);
	q->anchor_number = 0;
	q->anchor_time_ms = opens_ms + ADM_TICK_MS;
	q->opens_at_ms = opens_ms;
	q->draw_open = 1;
}

/*
 * Holds serving at its value ADM_TICK_MS from now until the opening plus
 * ADM_TICK_MS, and starts collecting the pre-queue.  Returns 0 or -1.
 */
int
adm_arm_opening(struct adm_queue *q, int64_t now, int64_t opens_ms)
{
	int64_t	 f;

	if (opens_ms < now + ADM_TICK_MS || q->pend_at_ms > now ||
	    (q->last_number > 0 && !adm_prequeue(q, now)))
		return -1;
	adm_fold(q, now);
	(void)adm_materialize(q, now);
	f = adm_serving(q, now + ADM_TICK_MS);
	q->floor = f;
	q->anchor_number = f - q->skip;
	q->anchor_time_ms = opens_ms + ADM_TICK_MS;
	q->opens_at_ms = opens_ms;
	q->draw_open = 1;
	q->draw_count = 0;
	return 0;
}

/*
 * Drops the opening at once and schedules the segment of a new queue
 * (serving at least its burst).  Returns 0 or -1.
 */
int
adm_cancel_opening(struct adm_queue *q, int64_t now,
    const struct adm_change *c)
{
	struct adm_queue	 v;

	if (!adm_prequeue(q, now) || q->last_number > 0 ||
	    q->pend_at_ms > now)
		return -1;
	adm_fold(q, now);
	(void)adm_materialize(q, now);
	q->opens_at_ms = 0;
	q->draw_open = 0;
	q->draw_count = 0;
	if (adm_schedule(q, now, c) == -1)
		return -1;
	v = *q;
	apply_change(&v);
	q->pend_floor = max64(q->pend_floor, adm_burst(&v));
	return 0;
}

void
adm_settled(const struct adm_queue *q, struct adm_queue *out)
{
	*out = *q;
	if (out->pend_at_ms > 0)
		apply_change(out);
}

int64_t
adm_settled_rate(const struct adm_queue *q)
{
	return clamp_rate(q->pend_at_ms > 0 ? q->pend_rate :
	    q->rate_per_minute);
}

int
adm_settled_active(const struct adm_queue *q)
{
	return (q->pend_at_ms > 0 ? q->pend_active : q->active) !=
	    ADM_SEG_PAUSED;
}

int
adm_active_at(const struct adm_queue *q, int64_t t)
{
	return adm_seg_at(q, t) != ADM_SEG_PAUSED;
}

int
adm_seg_at(const struct adm_queue *q, int64_t t)
{
	struct adm_queue	 buf;

	return view(q, t, &buf)->active;
}

int
adm_seg_kind(int active, const char *method)
{
	if (!active)
		return ADM_SEG_PAUSED;
	if (method != NULL && strcmp(method, "hold") == 0)
		return ADM_SEG_HOLD;
	if (method != NULL && strcmp(method, "passthrough") == 0)
		return ADM_SEG_PASS;
	if (method != NULL && strcmp(method, "random") == 0)
		return ADM_SEG_RANDOM;
	return ADM_SEG_FIFO;
}

int64_t
adm_cap_min(int64_t session_s)
{
	return 2 * ((max64(session_s, 1) + 59) / 60) + 2;
}

int
adm_cap_limit(int64_t cap, int64_t session_s, struct adm_change *c)
{
	struct adm_queue	 v;
	int64_t			 b, bmax, rmax;
	int			 lowered = 0;

	if (cap <= 0 || c->active == ADM_SEG_PAUSED ||
	    c->active == ADM_SEG_HOLD)
		return 0;
	session_s = max64(session_s, 1);
	cap = max64(cap, adm_cap_min(session_s));
	memset(&v, 0, sizeof(v));
	v.rate_per_minute = c->rate;
	v.burst = c->burst;
	b = adm_burst(&v);
	bmax = max64(1, (cap - 1) / 2);
	rmax = clamp_rate((cap - 1 - min64(b, bmax)) * 60 / session_s);
	if (c->active == ADM_SEG_PASS || c->rate > rmax) {
		c->active = ADM_SEG_FIFO;
		c->rate = rmax;
		lowered = 1;
	}
	/* Explicit once lowered: the default would follow the new rate. */
	if (b > bmax || (lowered && c->burst == 0)) {
		c->burst = min64(b, bmax);
		lowered |= b > bmax;
	}
	return lowered;
}

int64_t
adm_rate_at(const struct adm_queue *q, int64_t t)
{
	struct adm_queue	 buf;

	return rate(view(q, t, &buf));
}

int
adm_prequeue(const struct adm_queue *q, int64_t t)
{
	return q->draw_open && t < q->opens_at_ms;
}

int64_t
adm_prequeue_size(const struct adm_queue *q, int64_t t)
{
	if (q->opens_at_ms <= 0)
		return 0;
	(void)t;
	/*
	 * Counting L as P in a copy that still collects is right only if
	 * no pre-queue join can land after the copy was read, and a join's
	 * time is the sending process's estimate of the database's clock:
	 * a copy read before the opening, or one read after it while a
	 * join timed before it still waited for the row lock, counts P
	 * short (CI runs saw a join answered a place the draw did not give
	 * it).  The worker's opening job closes the pre-queue at the
	 * opening, within the hold, so waiting for the row costs nothing.
	 */
	return q->draw_open ? -1 : q->draw_count;
}
