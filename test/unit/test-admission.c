/*
 * test-admission.c - the admission model (SPEC section 3): exact values of
 * the formulas, the lagging cap and scheduled changes, copies of the row
 * that agree with it, the claim window against brute-force admission
 * times, the scheduled opening, status estimates, and a simulation over
 * hours of synthetic arrivals that checks monotonicity, FIFO and the
 * admission bound.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "tap.h"

#define NOW0	1700000000000LL	/* a realistic Unix time, ms */
#define P53	9007199254740992LL	/* 2^53 */

/*
 * Sets *q to an explicit state; the fields not given are 0.
 */
static void
mkq(struct adm_queue *q, int64_t r, int64_t b, int64_t a, int64_t t,
    int64_t l, int64_t skip, int active)
{

	memset(q, 0, sizeof(*q));
	q->rate_per_minute = r;
	q->burst = b;
	q->anchor_number = a;
	q->anchor_time_ms = t;
	q->last_number = l;
	q->skip = skip;
	q->active = active;
	/* No join for long: the lagging cap reads L itself. */
	q->tick = -(1LL << 40);
}

/* Deterministic PRNG (xorshift64*); the state must not be 0. */
static uint64_t
rnd(uint64_t *s)
{

	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Returns a uniform integer in [0, n) for n >= 1. */
static int64_t
rnd_below(uint64_t *s, int64_t n)
{

	return (int64_t)(rnd(s) % (uint64_t)n);
}

/* Returns a uniform double in [0, 1). */
static double
rnd_unit(uint64_t *s)
{

	return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Returns min(a, b) and max(a, b). */
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
 * The burst of SPEC section 3, computed here independently of
 * admission.c: the configured burst when > 0, else r / 6, at least 1.
 */
static int64_t
ref_burst(int64_t r, int64_t b)
{

	if (b > 0)
		return b;
	return r / 6 < 1 ? 1 : r / 6;
}

static void
test_burst(void)
{
	struct adm_queue	 q;

	mkq(&q, 600, 0, 0, 0, 0, 0, 1);
	is_int(adm_burst(&q), 100, "burst r=600 -> 100");
	q.rate_per_minute = 5;
	is_int(adm_burst(&q), 1, "burst r=5 -> 1 (at least 1)");
	q.rate_per_minute = 59;
	is_int(adm_burst(&q), 9, "burst r=59 -> 9 (59/6 rounded down)");
	q.rate_per_minute = 12;
	is_int(adm_burst(&q), 2, "burst r=12 -> 2");
	q.rate_per_minute = ADM_RATE_MAX;
	is_int(adm_burst(&q), 166666, "burst r=10^6 -> 166666");
	q.rate_per_minute = 600;
	q.burst = 7;
	is_int(adm_burst(&q), 7, "configured burst 7 -> 7 (r=600)");
	q.burst = -3;
	is_int(adm_burst(&q), 100, "negative configured burst -> default");
}

static void
test_serving(void)
{
	struct adm_queue	 q;

	/* A=10, T=0, r=60 (1 per second), L=1000, burst 10. */
	mkq(&q, 60, 0, 10, 0, 1000, 0, 1);
	is_int(adm_serving(&q, 0), 10, "serving at T = A");
	is_int(adm_serving(&q, 999), 10, "serving at 999 ms = 10");
	is_int(adm_serving(&q, 1000), 11, "serving at 1000 ms = 11");
	is_int(adm_serving(&q, 60000), 70, "serving at 60000 ms = 70");
	q.rate_per_minute = 7;
	is_int(adm_serving(&q, 8571), 10, "r=7 at 8571 ms = 10");
	is_int(adm_serving(&q, 8572), 11, "r=7 at 8572 ms = 11");

	/* Clamp L' + burst (no join for long: L' = L). */
	mkq(&q, 60, 0, 10, 0, 20, 0, 1);
	is_int(adm_serving(&q, 19999), 29, "below clamp: 29");
	is_int(adm_serving(&q, 20000), 30, "reaches clamp L+burst = 30");
	is_int(adm_serving(&q, 60000), 30, "clamped at L+burst = 30");
	q.burst = 3;
	is_int(adm_serving(&q, 60000), 23, "configured burst 3: clamp 23");

	/* Paused: frozen at A + skip. */
	mkq(&q, 60, 0, 10, 0, 1000, 3, 0);
	is_int(adm_serving(&q, 60000), 13, "paused after 60 s: A + skip 13");
	q.last_number = 5;
	q.burst = 1;
	is_int(adm_serving(&q, 60000), 6, "paused and clamped: L+burst = 6");

	/* Clock behind T counts as no time passed. */
	mkq(&q, 60, 0, 10, 100000, 1000, 0, 1);
	is_int(adm_serving(&q, 99999), 10, "clock 1 ms behind T: A");

	/* Skip adds; the floor holds; never below 0. */
	mkq(&q, 60, 0, 10, 0, 1000, 5, 1);
	is_int(adm_serving(&q, 60000), 75, "skip 5 adds: 75");
	mkq(&q, 60, 0, 10, 0, 1000, 0, 1);
	q.floor = 40;
	is_int(adm_serving(&q, 1000), 40, "floor 40 above the growth");
	is_int(adm_serving(&q, 31000), 41, "growth passes the floor: 41");
	mkq(&q, 60, 0, -50, 0, 0, 0, 0);
	is_int(adm_serving(&q, 0), 0, "never below 0");

	/* Huge dt is clamped to ADM_DT_MAX_MS, without overflow. */
	mkq(&q, ADM_RATE_MAX, ADM_BURST_MAX, 0, 0, P53, 0, 1);
	is_int(adm_serving(&q, ADM_DT_MAX_MS + 12345), 16666666666666LL,
	    "dt just above ADM_DT_MAX_MS clamped");
	is_int(adm_serving(&q, ADM_DT_MAX_MS - 1), 16666666666650LL,
	    "dt just below ADM_DT_MAX_MS not clamped");
}

/*
 * The cap lags: a join raises it no sooner than at the start of the tick
 * after the next (ADM_TICK_MS), so a copy of the row read before the
 * join computes the same serving number until then.
 */
static void
test_lag(void)
{
	struct adm_queue	 q, copy;
	int			 adm;
	int64_t			 n, t, bad = 0;

	/* r=60000/min: growth 1 per ms; burst 1; NOW0 is a tick boundary. */
	adm_init(&q, 60000, 1, NOW0);
	n = adm_join(&q, NOW0 + 10, &adm);
	ok(n == 1 && adm, "number 1 at +10 ms: admitted at once (cap 0 + 1)");
	copy = q;
	n = adm_join(&q, NOW0 + 20, &adm);
	ok(n == 2 && !adm, "number 2 at +20 ms: waits, the cap is L at the "
	    "tick before the previous one (0) + 1");
	is_int(adm_lagged_last(&q, NOW0 + 249), 0, "L' at +249 ms: 0");
	is_int(adm_lagged_last(&q, NOW0 + 250), 0,
	    "L' at +250 ms: L at +0 ms = 0");
	is_int(adm_lagged_last(&q, NOW0 + 500), 2,
	    "L' at +500 ms: L at +250 ms = 2");
	is_int(adm_serving(&q, NOW0 + 499), 1, "serving at +499 ms: 1");
	is_int(adm_serving(&q, NOW0 + 500), 3, "serving at +500 ms: 2 + 1");
	/* The copy from before number 2 agrees until then. */
	for (t = NOW0 + 20; t < NOW0 + 500; t++)
		if (adm_serving(&copy, t) != adm_serving(&q, t))
			bad++;
	is_int(bad, 0, "a copy read before join 2 gives the row's serving "
	    "until the cap moves (+500 ms)");
	/* The ring: L at three boundaries, moved on by the joins. */
	n = adm_join(&q, NOW0 + 760, &adm);
	ok(n == 3 && q.tick == (NOW0 + 760) / ADM_TICK_MS &&
	    q.l_tick == 2 && q.l_tick1 == 2 && q.l_tick2 == 2,
	    "join 3 at +760 ms (two ticks on): ring 2, 2, 2");
	n = adm_join(&q, NOW0 + 1010, &adm);
	ok(n == 4 && q.l_tick == 3 && q.l_tick1 == 2 && q.l_tick2 == 2,
	    "join 4 at +1010 ms (next tick): ring 3, 2, 2");
	is_int(adm_lagged_last(&q, NOW0 + 1010), 2, "L' at +1010 ms: 2");
	is_int(adm_lagged_last(&q, NOW0 + 1250), 3, "L' at +1250 ms: 3");
	is_int(adm_lagged_last(&q, NOW0 + 1500), 4, "L' at +1500 ms: 4");
}

static void
test_join(void)
{
	struct adm_queue	 q, before;
	int64_t			 i, n, bad;
	int			 adm;

	/* A new queue admits the first burst joiners at once. */
	adm_init(&q, 600, 0, NOW0);
	bad = 0;
	for (i = 1; i <= 100; i++) {
		n = adm_join(&q, NOW0, &adm);
		if (n != i || !adm)
			bad++;
	}
	is_int(bad, 0, "new queue r=600: joiners 1..100 admitted at once");
	n = adm_join(&q, NOW0, &adm);
	ok(n == 101 && !adm && adm_serving(&q, NOW0) == 100,
	    "joiner 101 waits (serving 100)");
	is_int(adm_serving(&q, NOW0 + 99), 100, "99 ms later: still 100");
	is_int(adm_serving(&q, NOW0 + 100), 100,
	    "100 ms later: 100 (the cap still lags)");
	is_int(adm_serving(&q, NOW0 + 250), 100, "250 ms later: 100 (the "
	    "cap is L at +0 ms: the joins came at +0 ms, not before)");
	is_int(adm_serving(&q, NOW0 + 500), 105,
	    "500 ms later: the growth, 105 (the cap L at +250 ms + burst)");
	is_int(adm_serving(&q, NOW0 + 60000), 201,
	    "60 s later: clamped to L + burst = 201");

	/* Re-anchor when the clamp is the smaller term. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 60000, &adm);
	ok(n == 6 && adm && q.anchor_number == 15 &&
	    q.anchor_time_ms == 60000 && q.last_number == 6,
	    "clamp smaller (70 > 15): A := L+burst = 15, T := now, "
	    "admitted");
	is_int(adm_serving(&q, 61000), 16,
	    "1 s later 16: idle credit forgotten (not 71)");
	/* Equal terms also re-anchor; a smaller growth term does not. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 5000, &adm);
	ok(n == 6 && q.anchor_number == 15 && q.anchor_time_ms == 5000,
	    "equal terms (15 = 15): A = 15, T := now");
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 4999, &adm);
	ok(n == 6 && q.anchor_number == 10 && q.anchor_time_ms == 0,
	    "growth smaller (14 < 15): A and T unchanged");
	/* An anchor ahead (an opening's hold) is never re-anchored. */
	mkq(&q, 60, 0, 10, 90000, 0, 0, 1);
	n = adm_join(&q, 60000, &adm);
	ok(n == 1 && q.anchor_time_ms == 90000,
	    "anchor ahead of now: kept");
	/* Paused: 0; a change due: -1; the state unchanged. */
	mkq(&q, 60, 0, 10, 0, 5, 3, 0);
	before = q;
	n = adm_join(&q, 60000, &adm);
	ok(n == 0 && memcmp(&q, &before, sizeof(q)) == 0,
	    "paused: join returns 0, q unchanged");
	mkq(&q, 60, 0, 10, 0, 5, 3, 1);
	q.pend_at_ms = 60000;
	q.pend_rate = 60;
	q.pend_active = 1;
	before = q;
	n = adm_join(&q, 60000, &adm);
	ok(n == -1 && memcmp(&q, &before, sizeof(q)) == 0,
	    "a change due: join returns -1, q unchanged");
	q.pend_at_ms = 60001;
	ok(adm_join(&q, 60000, &adm) == 6, "a change still ahead: joins");
}

/*
 * Number blocks: a lease of n numbers is the join issuing n at once
 * (the same fold, ring and re-anchoring; the first number's admitted
 * bit), only where adm_lease_ok() allows more than one.
 */
static void
test_lease(void)
{
	struct adm_queue	 q, j, before;
	int64_t			 n, i;
	int			 adm, jadm, bad = 0;

	/* The same state as five joins at once, but for L. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	j = q;
	n = adm_lease(&q, 60000, 5, &adm);
	(void)adm_join(&j, 60000, &jadm);
	ok(n == 10 && adm == 1 && jadm == 1 && q.last_number == 10 &&
	    q.anchor_number == 15 && q.anchor_time_ms == 60000,
	    "lease of 5 at L 5: numbers 6..10, 6 admitted, A := L+burst = "
	    "15 as the join of 6 does");
	j.last_number = 10;
	ok(memcmp(&q, &j, sizeof(q)) == 0, "the lease's state is the join's "
	    "with L + 4 more");
	/* The cap lags: serving reaches the lease's numbers after a tick. */
	is_int(adm_serving(&q, 60000), 15, "serving at once: 15 (growth)");
	/* A new queue r = 600, burst 100: a lease of 150 admits 1 at once. */
	adm_init(&q, 600, 0, NOW0);
	n = adm_lease(&q, NOW0, 150, &adm);
	ok(n == 150 && adm == 1, "new queue: lease 1..150, 1 admitted");
	is_int(adm_serving(&q, NOW0 + 499), 100,
	    "until the cap moves: serving 100 (the burst)");
	is_int(adm_serving(&q, NOW0 + 500), 105, "then the growth: 105");
	/*
	 * Over 50 states: a lease of n is the join of its first number
	 * (the same fold, ring, re-anchoring and admitted bit) with L
	 * n - 1 further.
	 */
	for (i = 0; i < 50; i++) {
		mkq(&q, 60 + i, i % 3, 10 + i, 1000 * i, 5 + i, i % 4, 1);
		q.floor = i % 5 == 0 ? 40 : 0;
		j = q;
		n = adm_lease(&q, 60000 + 37 * i, 2 + i % 7, &adm);
		if (adm_join(&j, 60000 + 37 * i, &jadm) != 6 + i ||
		    n != 6 + i + 1 + i % 7 || adm != jadm)
			bad++;
		j.last_number = n;
		if (memcmp(&q, &j, sizeof(q)) != 0)
			bad++;
	}
	is_int(bad, 0, "a lease of n is the join with L + n - 1 more (50 "
	    "states)");
	/* Refused where numbers must be taken one by one. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	q.active = ADM_SEG_HOLD;
	before = q;
	ok(adm_lease(&q, 60000, 5, &adm) == 0 &&
	    memcmp(&q, &before, sizeof(q)) == 0, "on hold: refused (0), q "
	    "unchanged");
	q.active = ADM_SEG_PASS;
	ok(adm_lease_ok(&q) && adm_lease(&q, 60000, 5, &adm) == 10,
	    "passthrough: leased");
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	q.opens_at_ms = 90000;
	q.draw_open = 1;
	ok(!adm_lease_ok(&q) && adm_lease(&q, 60000, 5, &adm) == 0,
	    "a pre-queue collecting: refused");
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	q.active = ADM_SEG_RANDOM;
	q.rand_from = 3;
	q.rand_block = 4;
	ok(!adm_lease_ok(&q) && adm_order_open(&q), "a random order open: "
	    "refused");
	q.active = ADM_SEG_FIFO;
	q.rand_to = 6;
	ok(adm_lease_ok(&q) && !adm_order_open(&q), "the order ended below "
	    "L + 1 (rand_to 6, L 5): leased");
	q.rand_to = 8;
	ok(!adm_lease_ok(&q), "the order ends above L + 1 (rand_to 8): "
	    "refused");
	mkq(&q, 60, 0, 10, 0, 5, 3, 0);
	ok(adm_lease(&q, 60000, 5, &adm) == 0, "paused: refused");
}

static void
test_status(void)
{
	struct adm_queue	 q;
	struct adm_status	 st;

	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);
	adm_status(&q, 106, NOW0, &st);
	ok(st.serving == 100 && st.ahead == 5 && !st.admitted &&
	    st.wait_s == 6 && st.retry_after_s == 2,
	    "r=60 number 106: ahead 5, wait 6 s, retry 2");
	adm_status(&q, 100, NOW0, &st);
	ok(st.admitted && st.ahead == 0 && st.wait_s == 0 &&
	    st.retry_after_s == ADM_RETRY_MIN_S, "number 100: admitted");
	adm_status(&q, 251, NOW0, &st);
	ok(st.ahead == 150 && st.wait_s == 151 && st.retry_after_s == 15,
	    "number 251: ahead 150, wait 151 s, retry 15");
	adm_status(&q, 1101, NOW0, &st);
	ok(st.ahead == 1000 && st.wait_s == 1001 && st.retry_after_s == 30,
	    "number 1101: wait 1001 s, retry 30 (max)");
	mkq(&q, 1, 0, 10, NOW0, 20, 0, 1);
	adm_status(&q, 11, NOW0, &st);
	ok(!st.admitted && st.ahead == 0 && st.wait_s == 60 &&
	    st.retry_after_s == 6, "r=1 next in line: wait 60 s, retry 6");
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 0);
	adm_status(&q, 101, NOW0, &st);
	ok(!st.admitted && st.wait_s == -1 &&
	    st.retry_after_s == ADM_RETRY_PAUSED_S,
	    "paused, next in line: wait unknown (-1), retry 10");
	mkq(&q, 7, 0, 100, NOW0, 1000, 0, 1);
	adm_status(&q, 115, NOW0, &st);
	ok(st.ahead == 14 && st.wait_s == 129 && st.retry_after_s == 12,
	    "r=7 ahead 14: wait ceil(15 * 60 / 7) = 129 s, retry 12");
	mkq(&q, 1, 0, 100, NOW0, 1000, 0, 1);
	adm_status(&q, INT64_MAX, NOW0, &st);
	ok(st.wait_s == INT64_MAX && st.retry_after_s == 30,
	    "number INT64_MAX, r=1: wait saturates");
	is_int(adm_retry_after(29), 2, "retry(29) = 2");
	is_int(adm_retry_after(30), 3, "retry(30) = 3");
	is_int(adm_retry_after(INT64_MAX), 30, "retry(INT64_MAX) = 30");
}

/*
 * Scheduled changes: the new segment starts ADM_TICK_MS after the change
 * at the serving number the old one has there; a second change waits.
 */
static void
test_schedule(void)
{
	struct adm_queue	 q, st;
	struct adm_change	 c;
	int64_t			 t = NOW0 + 12345, s;

	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	is_int(adm_serving(&q, t), 223, "r=600 at 12345 ms: 223");
	adm_change_init(&q, t, &c);
	c.rate = 60;
	is_int(adm_schedule(&q, t, &c), 0, "rate 600 -> 60 scheduled");
	s = adm_serving(&q, t + ADM_TICK_MS);
	is_int(s, 225, "at the change's time: the old growth, 225");
	is_int(adm_serving(&q, t + ADM_TICK_MS - 1), 225,
	    "1 ms before: 225 (old segment)");
	is_int(adm_serving(&q, t + ADM_TICK_MS + 999), 225,
	    "+999 ms in the new segment at 60/min: 225");
	is_int(adm_serving(&q, t + ADM_TICK_MS + 1000), 226,
	    "+1000 ms: 226");
	is_int(adm_rate_at(&q, t), 600, "rate in effect at the change: 600");
	is_int(adm_rate_at(&q, t + ADM_TICK_MS), 60,
	    "rate in effect from its time: 60");
	is_int(adm_settled_rate(&q), 60, "the setting: 60");
	c.rate = 70;
	is_int(adm_schedule(&q, t + 10, &c), -1,
	    "a second change while the first is ahead: refused");
	adm_settled(&q, &st);
	ok(st.pend_at_ms == 0 && st.rate_per_minute == 60 &&
	    st.anchor_time_ms == t + ADM_TICK_MS && st.floor == 225,
	    "settled: T at the change's time, F 225, r 60");
	is_int(adm_schedule(&q, t + ADM_TICK_MS, &c), 0,
	    "at its time: the second change is scheduled (the first "
	    "applied)");
	ok(q.rate_per_minute == 60 && q.pend_rate == 70,
	    "the first is in, the second ahead");
	/* Pause: frozen from its time; resume grows again. */
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);
	adm_change_init(&q, NOW0, &c);
	c.active = 0;
	adm_schedule(&q, NOW0 + 1000, &c);
	is_int(adm_serving(&q, NOW0 + 1000 + ADM_TICK_MS), 101,
	    "paused from +1250 ms: 101");
	is_int(adm_serving(&q, NOW0 + 3600000), 101, "an hour later: 101");
	ok(adm_active_at(&q, NOW0 + 1249) && !adm_active_at(&q, NOW0 + 1250),
	    "active until the pause's time");
	/* A skip jumps serving by the difference from its time. */
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);
	adm_change_init(&q, NOW0, &c);
	c.skip = 10;
	adm_schedule(&q, NOW0, &c);
	is_int(adm_serving(&q, NOW0 + ADM_TICK_MS - 1), 100,
	    "skip +10 scheduled: 100 until its time");
	is_int(adm_serving(&q, NOW0 + ADM_TICK_MS), 110,
	    "from its time: 110 (jumped by 10)");
	is_int(adm_materialize(&q, NOW0 + ADM_TICK_MS), 1,
	    "applied when due");
	ok(q.skip == 10 && q.floor == 100 && q.anchor_number == 100 &&
	    q.pend_at_ms == 0, "skip 10, F 100, A 100");
}

/*
 * Every copy of the row read less than ADM_TICK_MS before t gives the
 * row's serving number at t, and the row's serving never goes backward:
 * a random life of a queue (joins in bursts and trickles, rate changes,
 * pauses, resumes, skips, burst changes), every write logged.
 */
/*
 * The random order step by step (queuing method random), at 600 a
 * minute (10 a second, burst and block 100).  Promises it could break:
 * 1 (serving backward when a block fills or is sealed), 2 (a position
 * admitted before its number is issued), 6 (order outside the blocks).
 */
static void
test_random(void)
{
	struct adm_queue	 q;
	struct adm_change	 c;
	int64_t			 t = NOW0, i, n = 0, st, sz;
	int			 adm, adm100 = 0, adm101 = 1;

	is_int(adm_block_size(600), 100, "block: 10 s of admissions");
	is_int(adm_block_size(1), 2, "block: at least 2");
	is_int(adm_block_size(ADM_RATE_MAX), 166667, "block: ceil(r / 6)");
	adm_init(&q, 600, 0, t);
	q.active = ADM_SEG_RANDOM;
	is_int(adm_order_change(&q, t, ADM_SEG_RANDOM, 600), 0, "begins");
	is_int(q.rand_from, 101, "past the burst's 100 places");
	is_int(q.rand_block, 100, "block of 100");
	for (i = 0; i < 101; i++) {
		n = adm_join(&q, t, &adm);
		if (n == 100)
			adm100 = adm;
		if (n == 101)
			adm101 = adm;
	}
	ok(adm100 == 1 && adm101 == 0, "number 100 (burst) admitted at "
	    "once, 101 (first of a block) waits");
	ok(adm_order_block(&q, 101, &st, &sz) && st == 101 && sz == 100 &&
	    !adm_order_block(&q, 100, &st, &sz), "block of 101: 101..200");
	for (i = 0; i < 149; i++)
		n = adm_join(&q, t + 1000, &adm);
	is_int(n, 250, "250 numbers");
	is_int(adm_issued_front(&q, 250), 200, "issued front: the full "
	    "block's end");
	is_int(adm_serving(&q, t + 2000), 120, "serving at the rate inside "
	    "a full block");
	is_int(adm_serving(&q, t + 12000), 200, "serving waits at the end "
	    "of the last full block");
	is_int(adm_seal_due(&q, t + 9000), 0, "no seal before serving "
	    "reaches the block");
	is_int(adm_seal_due(&q, t + 12000), 300, "seal: to the block's end");
	adm_fold(&q, t + 12000);
	adm_seal(&q, t + 12000, 300);
	is_int(adm_serving(&q, t + 12000), 200, "the seal moves nothing at "
	    "once");
	is_int(adm_serving(&q, t + 12500), 225, "then serving enters the "
	    "sealed block");
	is_int(adm_join(&q, t + 12500, &adm), 301, "the next join starts "
	    "the next block");
	/* Ended by fifo with L ending a block: the next block stays in. */
	adm_change_init(&q, t + 13000, &c);
	c.active = ADM_SEG_FIFO;
	q.last_number = 300;
	is_int(adm_schedule(&q, t + 13000, &c), 0, "fifo scheduled");
	is_int(q.rand_to, 401, "ended after the block after L's");
	is_int(adm_issued_front(&q, 350), 300, "inside the ended order: the "
	    "last full block");
	is_int(adm_issued_front(&q, 400), 400, "at its end: L");
	adm_change_init(&q, t + 14000, &c);
	c.active = ADM_SEG_RANDOM;
	is_int(adm_schedule(&q, t + 14000, &c), -1, "random again refused "
	    "while the ended order's numbers are not all issued");
	is_int(adm_order_free(&q, t + 14000), 0, "not free");
	q.last_number = 400;
	q.tick = -(1LL << 40);
	ok(!adm_order_free(&q, t + 14000) &&
	    adm_order_free(&q, t + 14000 + 2 * 601000 + 100000),
	    "free once its numbers passed the claim window (600 s)");
}

/*
 * Every copy of the row a process may hold agrees with the row, and no
 * admitted place is taken back, over random joins and changes; with
 * random set, mostly in the random order, with joins about as fast as
 * admissions and idle gaps, so that blocks fill, wait and are sealed.
 */
static void
test_copies_agree(uint64_t seed, int random)
{
	static struct adm_queue	 snap[20000];
	static int64_t		 snap_t[20000];
	static char		 ever[40000];
	int64_t			 p, revoked = 0, bad_adm = 0;
	int			 a;
	struct adm_queue	 q;
	struct adm_change	 c;
	int64_t			 t = NOW0, end, x, s, prev;
	int64_t			 bad = 0, back = 0, checks = 0, n;
	int64_t			 unissued = 0, bad_join = 0, seals = 0;
	int64_t			 in_random = 0, st, sz, to;
	size_t			 ns = 0, i, j;
	int			 adm;

	memset(ever, 0, sizeof(ever));
	adm_init(&q, 600, 0, t);
	if (random) {
		q.active = ADM_SEG_RANDOM;
		adm_order_change(&q, t, ADM_SEG_RANDOM, 600);
	}
	snap[ns] = q;
	snap_t[ns++] = t;
	end = t + (random ? 2400000 : 900000);
	while (t < end && ns < 19990) {
		if (random)
			t += rnd_below(&seed, 30) == 0 ?
			    rnd_below(&seed, 5000) : rnd_below(&seed, 200);
		else
			t += rnd_below(&seed, 30) == 0 ?
			    rnd_below(&seed, 3000) : rnd_below(&seed, 30);
		if (rnd_below(&seed, 40) == 0) {
			adm_change_init(&q, t, &c);
			switch (rnd_below(&seed, 5)) {
			case 0:
				c.rate = 1 + rnd_below(&seed, 6000);
				break;
			case 1:
				/* Paused, fifo, hold, passthrough, random. */
				c.active = (int)rnd_below(&seed, 5);
				if (random && rnd_below(&seed, 3) != 0)
					c.active = ADM_SEG_RANDOM;
				break;
			case 2:
				c.skip += rnd_below(&seed, 30);
				break;
			case 3:
				c.burst = rnd_below(&seed, 3) ? 0 :
				    1 + rnd_below(&seed, 200);
				break;
			default:
				c.rate = 1 + rnd_below(&seed, 60);
				break;
			}
			if (adm_schedule(&q, t, &c) == -1)
				continue;
		} else if (rnd_below(&seed, 8) == 0) {
			/* The worker's seal of a random block. */
			adm_fold(&q, t);
			adm_materialize(&q, t);
			if ((to = adm_seal_due(&q, t)) == 0)
				continue;
			adm_seal(&q, t, to);
			seals++;
		} else {
			n = adm_join(&q, t, &adm);
			if (n == -1) {
				adm_fold(&q, t);
				adm_materialize(&q, t);
				n = adm_join(&q, t, &adm);
			}
			if (n == 0)
				continue;
			/* A number of a random block waits at first. */
			if (adm && adm_order_block(&q, n, &st, &sz))
				bad_join++;
			in_random += adm_seg_at(&q, t) == ADM_SEG_RANDOM;
		}
		snap[ns] = q;
		snap_t[ns++] = t;
	}
	/* Query times: random, each against every copy of the last tick. */
	prev = -1;
	for (x = NOW0; x < t; x += 1 + rnd_below(&seed, 97)) {
		for (j = ns; j > 0 && snap_t[j - 1] > x; j--)
			;
		if (j == 0)
			continue;
		s = adm_serving(&snap[j - 1], x);
		if (s < prev)
			back++;
		prev = s;
		/* An admitted place stays admitted, whatever the method. */
		for (p = 1 + rnd_below(&seed, 7);
		    p <= snap[j - 1].last_number &&
		    p < (int64_t)sizeof(ever); p += 1 + rnd_below(&seed, 13)) {
			a = adm_admitted(&snap[j - 1], p, x);
			if (ever[p] && !a)
				revoked++;
			/* A random block is admitted only once all issued. */
			if (a && adm_order_block(&snap[j - 1], p, &st, &sz) &&
			    st + sz - 1 > snap[j - 1].last_number)
				unissued++;
			ever[p] |= (char)a;
			for (i = j - 1; i > 0 && snap_t[i] > x - ADM_TICK_MS;
			    i--)
				if (p <= snap[i - 1].last_number &&
				    adm_admitted(&snap[i - 1], p, x) != a)
					bad_adm++;
		}
		/*
		 * The copies a read in (x - ADM_TICK_MS, x] can hold: the
		 * latest state, and every one still current somewhere in
		 * that time (its successor written after x - ADM_TICK_MS).
		 */
		for (i = j - 1; i > 0 && snap_t[i] > x - ADM_TICK_MS; i--) {
			checks++;
			if (adm_serving(&snap[i - 1], x) != s)
				bad++;
		}
	}
	ok(ns > 5000, "%zu writes over %lld s", ns,
	    (long long)((t - NOW0) / 1000));
	is_int(back, 0, "the row's serving never went backward");
	is_int(bad, 0, "every copy less than ADM_TICK_MS old agreed with "
	    "the row (%lld comparisons)", (long long)checks);
	is_int(revoked, 0, "no admitted place was taken back (paused, "
	    "fifo, hold, passthrough, random)");
	if (random)
		ok(in_random > 2000 && seals > 20, "random segments (%lld "
		    "joins), blocks sealed (%lld)", (long long)in_random,
		    (long long)seals);
	is_int(unissued, 0, "no position of a random block not all issued "
	    "was admitted");
	is_int(bad_join, 0, "no join into a random block was admitted at "
	    "once");
	is_int(bad_adm, 0, "every copy less than ADM_TICK_MS old agreed on "
	    "admission");
}

/* A log of the states a queue went through: state k held from t[k]. */
struct hist {
	struct adm_queue	 s[4000];
	int64_t			 t[4000];
	size_t			 n;
};

static void
hist_add(struct hist *h, const struct adm_queue *q, int64_t t)
{
	if (h->n < sizeof(h->t) / sizeof(h->t[0])) {
		h->s[h->n] = *q;
		h->t[h->n++] = t;
	}
}

/* The state in effect at t (the latest written at or before t), or NULL. */
static const struct adm_queue *
hist_at(const struct hist *h, int64_t t)
{
	size_t	 j;

	for (j = h->n; j > 0 && h->t[j - 1] > t; j--)
		;
	return j > 0 ? &h->s[j - 1] : NULL;
}

/*
 * The true admission time of position p: the first ms at which the state
 * in effect reports it issued and admitted (adm_frontier() >= p), by
 * binary search within each state's time; -1 when never (before end).
 */
static int64_t
admitted_at(const struct hist *h, int64_t p, int64_t end)
{
	size_t	 k;
	int64_t	 lo, hi, mid, e;

	for (k = 0; k < h->n; k++) {
		e = k + 1 < h->n ? h->t[k + 1] : end;
		if (e <= h->t[k] || adm_frontier(&h->s[k], e - 1) < p)
			continue;
		lo = h->t[k];
		hi = e - 1;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (adm_frontier(&h->s[k], mid) >= p)
				hi = mid;
			else
				lo = mid + 1;
		}
		return lo;
	}
	return -1;
}

/* Join at t, applying a due change first as the pool does. */
static int64_t
join_at(struct adm_queue *q, int64_t t)
{
	int64_t	 n;
	int	 adm;

	if ((n = adm_join(q, t, &adm)) == -1) {
		adm_fold(q, t);
		adm_materialize(q, t);
		n = adm_join(q, t, &adm);
	}
	return n;
}

/* Schedule c at t, waiting for a change still ahead. */
static int64_t
change_at(struct adm_queue *q, int64_t t, const struct adm_change *c)
{
	if (q->pend_at_ms > t)
		t = q->pend_at_ms;
	adm_schedule(q, t, c);
	return t;
}

/*
 * Checks positions lo..hi of history h: each claims from its admission
 * a for at least the window (w s) plus the slack, on the state in effect
 * and on copies up to ADM_TICK_MS / 2 old, and no longer than two grid
 * spacings.  Returns the count of violations; *checked the positions.
 */
static int64_t
check_windows_of(const struct hist *h, int64_t lo, int64_t hi, int64_t w,
    int64_t end, int64_t *checked, int64_t *late)
{
	const struct adm_queue	*v, *c;
	int64_t			 p, a, g = w * 1000 + ADM_CLAIM_SLACK_MS, x;
	int64_t			 bad = 0, d[] = { 0, 1, 999, 0, 0, 0 };
	size_t			 i;

	*checked = 0;
	d[3] = g / 2;
	d[4] = g - 2;
	d[5] = g - 1;
	for (p = lo; p <= hi; p++) {
		if ((a = admitted_at(h, p, end)) < 0)
			continue;
		(*checked)++;
		for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
			x = a + d[i];
			if (x >= end)
				continue;
			v = hist_at(h, x);
			c = hist_at(h, x - ADM_TICK_MS / 2);
			if (adm_claim_expired(v, p, x) ||
			    (c != NULL && c != v && adm_claim_expired(c, p, x)))
				bad++;
		}
		x = a + 2 * g;
		if (x < end && !adm_claim_expired(hist_at(h, x), p, x))
			(*late)++;
	}
	return bad;
}

static void
test_claim(void)
{
	static struct hist	 h;
	struct adm_queue	 q;
	struct adm_change	 c;
	int64_t			 t, i, n, bad, chk, late = 0, a;

	/* An idle queue, window 3 s: the grid is 4 s. */
	adm_init(&q, 60, 0, NOW0);
	adm_set_claim_window(&q, NOW0, 3);
	n = join_at(&q, NOW0 + 10000);
	ok(n == 1 && adm_admitted(&q, 1, NOW0 + 10000), "idle: number 1 "
	    "admitted at its join");
	ok(!adm_claim_expired(&q, 1, NOW0 + 10000 + 3999),
	    "claims 3999 ms after its admission (window 3 s + 1 s slack)");
	ok(!adm_claim_expired(&q, 1, NOW0 + 15999),
	    "claims until the grid point after it (12 s) + 4 s");
	ok(adm_claim_expired(&q, 1, NOW0 + 16000), "expired at 16 s");
	ok(adm_claim_expired(&q, 1, NOW0 + 10000 + 8000),
	    "expired two grid spacings after its admission");

	/*
	 * Two quick rate changes (the case auto-rate makes routine): r=600
	 * burst 1 window 60 s, 300 numbers at once; after 20 s rate 6,
	 * then 7.  Numbers admitted just before keep their whole window.
	 */
	memset(&h, 0, sizeof(h));
	t = NOW0;
	adm_init(&q, 600, 1, t);
	adm_set_claim_window(&q, t, 60);
	hist_add(&h, &q, t);
	for (i = 0; i < 300; i++) {
		join_at(&q, t);
		hist_add(&h, &q, t);
	}
	adm_change_init(&q, t + 20000, &c);
	c.rate = 6;
	t = change_at(&q, t + 20000, &c);
	hist_add(&h, &q, t);
	c.rate = 7;
	t = change_at(&q, t + 1, &c);
	hist_add(&h, &q, t);
	/* A join now and then, so that the row is written. */
	for (t += 1000; t < NOW0 + 400000; t += 7000) {
		join_at(&q, t);
		hist_add(&h, &q, t);
	}
	bad = check_windows_of(&h, 1, 320, 60, t, &chk, &late);
	ok(chk > 190, "two quick rate changes: %lld numbers admitted",
	    (long long)chk);
	is_int(bad, 0, "two quick rate changes: every number claims for 61 s "
	    "after its admission");
	is_int(late, 0, "and for no longer than two grid spacings");

	/*
	 * Abandonment: r=1/min, window 60 s, 14 numbers; at 150 s the
	 * worker counts 10 numbers abandoned: serving jumps by 10.  The
	 * numbers the jump admits claim for a whole window after it.
	 */
	memset(&h, 0, sizeof(h));
	t = NOW0;
	adm_init(&q, 1, 0, t);
	adm_set_claim_window(&q, t, 60);
	hist_add(&h, &q, t);
	for (i = 0; i < 14; i++) {
		join_at(&q, t + i);
		hist_add(&h, &q, t + i);
	}
	adm_change_init(&q, t + 150000, &c);
	c.skip += 10;
	change_at(&q, t + 150000, &c);
	hist_add(&h, &q, t + 150000);
	a = admitted_at(&h, 4, NOW0 + 400000);
	ok(a == NOW0 + 150000 + ADM_TICK_MS, "abandonment: number 4 admitted "
	    "by the jump (at %lld ms)", (long long)(a - NOW0));
	ok(!adm_claim_expired(&q, 4, a + 60999), "number 4 claims 61 s "
	    "after the jump");
	for (t = NOW0 + 151000; t < NOW0 + 400000; t += 13000) {
		join_at(&q, t);
		hist_add(&h, &q, t);
	}
	late = 0;
	bad = check_windows_of(&h, 1, 20, 60, t, &chk, &late);
	is_int(bad, 0, "abandonment: %lld numbers, each claims for its whole "
	    "window", (long long)chk);
}

/*
 * Random lives of queues (joins, rate changes, pauses, resumes, skips,
 * window changes): every admitted position claims for its window on
 * the row and on fresh copies, and not much longer.
 */
static void
test_claim_random(void)
{
	static struct hist	 h;
	struct adm_queue	 q;
	struct adm_change	 c;
	uint64_t		 seed = 0x7a11ed5eedu;
	int64_t			 t, end, bad = 0, chk = 0, late = 0, k, l;
	int			 run;

	for (run = 0; run < 12; run++) {
		memset(&h, 0, sizeof(h));
		t = NOW0 + rnd_below(&seed, 1000000);
		adm_init(&q, 1 + rnd_below(&seed, 3000),
		    rnd_below(&seed, 2) ? 0 : 1 + rnd_below(&seed, 20), t);
		adm_set_claim_window(&q, t, 2 + rnd_below(&seed, 30));
		hist_add(&h, &q, t);
		end = t + 240000;
		while (t < end && h.n < 3900) {
			t += rnd_below(&seed, 3) ? rnd_below(&seed, 50) :
			    rnd_below(&seed, 4000);
			if (rnd_below(&seed, 25) == 0) {
				adm_change_init(&q, t, &c);
				k = rnd_below(&seed, 4);
				if (k == 0)
					c.rate = 1 + rnd_below(&seed, 3000);
				else if (k == 1)
					c.active = (int)rnd_below(&seed,
					    4);
				else if (k == 2)
					c.skip += 1 + rnd_below(&seed, 20);
				else
					c.rate = 1 + rnd_below(&seed, 30);
				t = change_at(&q, t, &c);
			} else if (join_at(&q, t) <= 0)
				continue;
			hist_add(&h, &q, t);
		}
		l = q.last_number;
		bad += check_windows_of(&h, 1, l, q.claim_window_s, t, &k,
		    &late);
		chk += k;
	}
	ok(chk > 1000, "random lives: %lld admitted positions", (long long)chk);
	is_int(bad, 0, "random lives: every position claims for its whole "
	    "window, on the row and on copies up to %d ms old",
	    ADM_TICK_MS / 2);
	is_int(late, 0, "random lives: no position claims beyond two grid "
	    "spacings");
}

/* A window change keeps what had passed the old window past it. */
static void
test_claim_window_change(void)
{
	struct adm_queue	 q;
	int64_t			 t = NOW0;

	adm_init(&q, 60, 0, t);
	adm_set_claim_window(&q, t, 10);
	join_at(&q, t + 1000);
	ok(adm_claim_expired(&q, 1, t + 60000), "window 10 s: number 1 "
	    "expired a minute later");
	adm_fold(&q, t + 60000);
	adm_set_claim_window(&q, t + 60000, 3600);
	ok(adm_claim_expired(&q, 1, t + 60001), "window raised to an hour: "
	    "number 1 stays expired");
	ok(q.claim_dead == 1, "claim_dead 1");
	join_at(&q, t + 61000);
	ok(!adm_claim_expired(&q, 2, t + 61000 + 3600000),
	    "number 2 claims for the new window");
}

/* A scheduled opening: the pre-queue, the hold, arming and cancelling. */
static void
test_opening(void)
{
	struct adm_queue	 q;
	struct adm_change	 c;
	int64_t			 o = NOW0 + 60000, n;
	int			 adm;

	adm_init_opening(&q, 600, 0, NOW0, o);
	is_int(adm_serving(&q, NOW0), 0, "created with an opening: serving 0");
	ok(adm_prequeue(&q, NOW0) && adm_prequeue_size(&q, NOW0) == -1,
	    "the pre-queue collects; its size is not known yet");
	n = adm_join(&q, NOW0 + 1000, &adm);
	ok(n == 1 && !adm, "a pre-queue number is not admitted");
	adm_join(&q, NOW0 + 2000, &adm);
	is_int(adm_prequeue_size(&q, o), -1,
	    "at the opening, while it holds: P not known from this copy");
	is_int(adm_prequeue_size(&q, o + ADM_TICK_MS), -1,
	    "after the hold too, until the row is closed (a join timed "
	    "before the opening may still land)");
	is_int(adm_serving(&q, o + ADM_TICK_MS), 0,
	    "serving grows from the opening + ADM_TICK_MS");
	is_int(adm_serving(&q, o + ADM_TICK_MS + 100), 1, "100 ms later: 1");
	ok(adm_held(&q, o + ADM_TICK_MS - 1) && !adm_held(&q, o + ADM_TICK_MS),
	    "held until the opening + ADM_TICK_MS");
	n = adm_join(&q, o + 10, &adm);
	ok(n == 3 && !adm && q.draw_count == 2 && !q.draw_open,
	    "the first join after the opening closes the pre-queue (P 2); "
	    "number 3 waits behind it");
	ok(!adm_admitted(&q, 3, o + 10), "no position admitted while held");
	/* Arming a running queue without numbers keeps its serving. */
	adm_init(&q, 600, 0, NOW0);
	is_int(adm_arm_opening(&q, NOW0 + 1000, NOW0 + 1100), -1,
	    "an opening less than ADM_TICK_MS ahead: refused");
	is_int(adm_arm_opening(&q, NOW0 + 1000, o), 0, "armed");
	is_int(adm_serving(&q, NOW0 + 1000), 100, "serving stays at its "
	    "burst (100)");
	ok(!adm_admitted(&q, 1, NOW0 + 1000), "but nobody is admitted "
	    "before the opening");
	/* Cancelling an empty pre-queue: the queue goes on as a new one. */
	adm_init_opening(&q, 600, 7, NOW0, o);
	adm_change_init(&q, NOW0 + 5000, &c);
	is_int(adm_cancel_opening(&q, NOW0 + 5000, &c), 0, "cancelled");
	ok(q.opens_at_ms == 0 && !adm_prequeue(&q, NOW0 + 5000),
	    "no opening any more");
	is_int(adm_serving(&q, NOW0 + 5000 + ADM_TICK_MS - 1), 0,
	    "serving 0 until the change's time");
	is_int(adm_serving(&q, NOW0 + 5000 + ADM_TICK_MS), 7,
	    "then its burst, 7: the first visitors pass at once");
	adm_init_opening(&q, 600, 7, NOW0, o);
	adm_join(&q, NOW0 + 10, &adm);
	is_int(adm_cancel_opening(&q, NOW0 + 5000, &c), -1,
	    "a number waits for the draw: not cancelled");
	is_int(adm_arm_opening(&q, NOW0 + 5000, o + 60000), 0,
	    "but moved (re-armed while the pre-queue collects)");
	is_int(adm_arm_opening(&q, o + 60000 + 10, o + 120000), -1,
	    "after the opening: no more arming");
}

#define SIM_MAXN	200000		/* numbers per scenario */
#define SIM_REACH	(SIM_MAXN + 2000)	/* > max L + burst */
#define SIM_MAXEV	16
#define SIM_MAXSEG	(SIM_MAXEV + 1)

enum sim_op {
	SIM_RATE,		/* a rate change (adm_schedule()) */
	SIM_PAUSE,		/* a pause */
	SIM_RESUME		/* a resume */
};

struct sim_ev {
	int64_t		 t;	/* ms since the start; in effect
				   ADM_TICK_MS later */
	enum sim_op	 op;
	int64_t		 rate;	/* SIM_RATE only */
};

/* The rate schedule, piecewise constant: [start, next start). */
struct sim_seg {
	int64_t		 start;	/* ms since the start */
	int64_t		 rate;	/* r in force */
	int64_t		 burst;	/* effective burst in force */
	int		 active;
};

struct sim {
	const char	*name;
	int64_t		 rate;	/* initial rate */
	int64_t		 burst;	/* configured burst, 0 = default */
	int64_t		 end;	/* ms, after all arrivals, events */
	struct sim_ev	 ev[SIM_MAXEV];
	size_t		 nev;
	struct sim_seg	 seg[SIM_MAXSEG];
	size_t		 nseg;
	size_t		 narr;
	/* Results. */
	int64_t		 issued;	/* numbers issued, L */
	int64_t		 rejected;	/* joins answered 0 */
	int64_t		 badrej;	/* 0 active, or >0 paused */
	int64_t		 gaps;		/* number != previous + 1 */
	int64_t		 steps;		/* serving samples */
	int64_t		 backward;	/* samples below previous */
	int64_t		 jumps;		/* events moving serving */
	int64_t		 unadmitted;	/* never admitted */
	int64_t		 fifo;		/* adm_t[n] < adm_t[n-1] */
	int64_t		 maxwait;	/* ms */
	/*
	 * After each state change, the allowance the floor carries above
	 * L: max(0, F - L), at that time.  It only shrinks until the next
	 * change (joins raise L), and it never exceeds the larger of the
	 * burst in force before the change and the carry then (F = serving
	 * <= max(L + that burst, the earlier floor)).
	 */
	int64_t		 carry_t[SIM_MAXEV];
	int64_t		 carry[SIM_MAXEV];
	size_t		 ncarry;
	int64_t		 carry_viol;	/* carry above the earlier burst */
};

/*
 * Times in ms: arrivals (sorted); per number n its join, the first time
 * serving >= n, and its admission = max(join, reach).
 */
static int64_t	 arr_t[SIM_MAXN];
static int64_t	 join_t[SIM_MAXN + 1];
static int64_t	 reach_t[SIM_REACH];
static int64_t	 adm_t[SIM_MAXN + 1];

static int
cmp64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Appends Poisson arrivals of lambda per second in [from, to) ms: per
 * second a Poisson count (Knuth's method; e^-lambda is passed in, so no
 * libm), each at a uniform ms of that second.
 */
static void
gen_poisson(struct sim *sm, uint64_t *seed, int64_t from, int64_t to,
    double exp_neg_lambda)
{
	int64_t	 sec, k;
	double	 p;

	for (sec = from; sec < to; sec += 1000) {
		k = 0;
		p = rnd_unit(seed);
		while (p > exp_neg_lambda) {
			k++;
			p *= rnd_unit(seed);
		}
		while (k-- > 0 && sm->narr < SIM_MAXN)
			arr_t[sm->narr++] = sec + rnd_below(seed, 1000);
	}
}

/* Appends n arrivals at uniform ms in [from, from + len). */
static void
gen_spike(struct sim *sm, uint64_t *seed, int64_t from, int64_t len,
    int64_t n)
{

	while (n-- > 0 && sm->narr < SIM_MAXN)
		arr_t[sm->narr++] = from + rnd_below(seed, len);
}

static void
add_ev(struct sim *sm, int64_t t, enum sim_op op, int64_t rate)
{

	sm->ev[sm->nev].t = t;
	sm->ev[sm->nev].op = op;
	sm->ev[sm->nev].rate = rate;
	sm->nev++;
}

/* Builds the rate schedule from the initial rate and the events. */
static void
build_segs(struct sim *sm)
{
	struct sim_seg	*s;
	size_t		 i;

	s = &sm->seg[0];
	s->start = 0;
	s->rate = sm->rate;
	s->burst = ref_burst(sm->rate, sm->burst);
	s->active = 1;
	sm->nseg = 1;
	for (i = 0; i < sm->nev; i++) {
		s = &sm->seg[sm->nseg];
		*s = sm->seg[sm->nseg - 1];
		s->start = sm->ev[i].t + ADM_TICK_MS;
		if (sm->ev[i].op == SIM_RATE) {
			s->rate = sm->ev[i].rate;
			s->burst = ref_burst(s->rate, sm->burst);
		} else
			s->active = sm->ev[i].op == SIM_RESUME;
		sm->nseg++;
	}
}

/*
 * First time in (t, limit] at which serving reaches target, or limit
 * when it does not before.  serving(t) < target.
 */
static int64_t
first_reach(const struct adm_queue *q, int64_t t, int64_t limit,
    int64_t target)
{
	int64_t	 lo = t, hi, mid, step = 1;

	for (;;) {
		hi = lo + step;
		if (hi >= limit) {
			hi = limit;
			break;
		}
		if (adm_serving(q, NOW0 + hi) >= target)
			break;
		lo = hi;
		step *= 2;
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (adm_serving(q, NOW0 + mid) >= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * Runs the scenario.  Each step: control events at t, then joins at t,
 * then serving(t) is sampled, checked against the previous sample and
 * recorded as the first-reach time of every number it newly covers.  A
 * number's admission time is max(join time, first reach time).
 */
static void
run_sim(struct sim *sm)
{
	struct adm_queue	 q;
	struct adm_change	 c;
	size_t			 ai = 0, ei = 0;
	int64_t			 t = 0, s, prev = -1, nreach = 0, n, k;
	int64_t			 next, before, after;
	int			 adm;

	qsort(arr_t, sm->narr, sizeof(arr_t[0]), cmp64);
	build_segs(sm);
	adm_init(&q, sm->rate, sm->burst, NOW0);
	for (;;) {
		while (ei < sm->nev && sm->ev[ei].t == t) {
			before = adm_serving(&q, NOW0 + t);
			k = adm_burst_at(&q, NOW0 + t);
			adm_change_init(&q, NOW0 + t, &c);
			if (sm->ev[ei].op == SIM_RATE)
				c.rate = sm->ev[ei].rate;
			else
				c.active = sm->ev[ei].op == SIM_RESUME;
			if (adm_schedule(&q, NOW0 + t, &c) == -1) {
				/* Another still ahead: this one waits. */
				sm->ev[ei].t = q.pend_at_ms - NOW0;
				break;
			}
			after = adm_serving(&q, NOW0 + t);
			if (after != before)
				sm->jumps++;
			/* Carried forward from the change before, at most. */
			if (sm->ncarry > 0)
				k = max64(k, sm->carry[sm->ncarry - 1]);
			if (q.pend_floor - q.last_number > k)
				sm->carry_viol++;
			sm->carry_t[sm->ncarry] = t + ADM_TICK_MS;
			sm->carry[sm->ncarry++] = max64(0, q.pend_floor -
			    q.last_number);
			ei++;
		}
		while (ai < sm->narr && arr_t[ai] == t) {
			if ((n = adm_join(&q, NOW0 + t, &adm)) == -1) {
				adm_fold(&q, NOW0 + t);
				adm_materialize(&q, NOW0 + t);
				n = adm_join(&q, NOW0 + t, &adm);
			}
			ai++;
			if (n == 0) {
				sm->rejected++;
				if (adm_active_at(&q, NOW0 + t))
					sm->badrej++;
				continue;
			}
			if (!adm_active_at(&q, NOW0 + t))
				sm->badrej++;
			if (n != sm->issued + 1)
				sm->gaps++;
			sm->issued = n;
			if (n <= SIM_MAXN)
				join_t[n] = t;
		}
		s = adm_serving(&q, NOW0 + t);
		sm->steps++;
		if (s < prev) {
			sm->backward++;
			nreach = min64(nreach, s);
		}
		prev = s;
		for (k = nreach + 1; k <= s && k < SIM_REACH; k++)
			reach_t[k] = t;
		nreach = max64(nreach, min64(s, SIM_REACH - 1));
		if (t >= sm->end)
			break;
		next = sm->end;
		if (ai < sm->narr)
			next = min64(next, arr_t[ai]);
		if (ei < sm->nev)
			next = min64(next, sm->ev[ei].t);
		/* A scheduled change takes effect: a step of its own. */
		if (q.pend_at_ms > NOW0 + t)
			next = min64(next, q.pend_at_ms - NOW0);
		/* The cap moves at tick starts: a step at each. */
		if (s < q.last_number)
			next = min64(next, (t / ADM_TICK_MS + 1) *
			    ADM_TICK_MS);
		if (s < q.last_number && next > t + 1)
			next = first_reach(&q, t, next, s + 1);
		t = next;
	}

	for (n = 1; n <= sm->issued && n <= SIM_MAXN; n++) {
		if (n > nreach) {
			sm->unadmitted++;
			adm_t[n] = INT64_MAX;
			continue;
		}
		adm_t[n] = max64(join_t[n], reach_t[n]);
		sm->maxwait = max64(sm->maxwait, adm_t[n] - join_t[n]);
		if (n > 1 && adm_t[n] < adm_t[n - 1])
			sm->fifo++;
	}
}

/*
 * Over the interval [a, b] of the schedule: the rate integral over
 * active time (rate * ms), the active ms, the highest active rate and
 * the highest burst in force at any point up to b (see below).  Before the
 * scenario starts (a < 0) the first segment counts for the burst only:
 * the new queue holds its burst at creation, but no rate time passed.
 */
static void
sched(const struct sim *sm, int64_t a, int64_t b, int64_t *integ,
    int64_t *act, int64_t *rmax, int64_t *bmax)
{
	const struct sim_seg	*g;
	int64_t			 s, e, o;
	size_t			 i;

	*integ = *act = *rmax = *bmax = 0;
	/*
	 * The floor keeps an earlier, larger allowance after a rate cut
	 * until joins have used it (the numbers between L and the floor
	 * stay admitted): at most the carry recorded at the last state
	 * change before a, which is the only change the floor needs in the
	 * bound.
	 */
	for (i = 0; i < sm->ncarry && sm->carry_t[i] <= a; i++)
		*bmax = sm->carry[i];
	for (i = 0; i < sm->nseg; i++) {
		g = &sm->seg[i];
		s = g->start;
		e = i + 1 < sm->nseg ? sm->seg[i + 1].start : INT64_MAX;
		if (!(s <= b && e > a))
			continue;
		*bmax = max64(*bmax, g->burst);
		o = min64(e, b) - max64(s, a);
		if (!g->active || o <= 0)
			continue;
		*integ += g->rate * o;
		*act += o;
		*rmax = max64(*rmax, g->rate);
	}
}

struct wstat {
	int64_t	 maxcount;	/* most admissions in one window */
	int64_t	 maxat;		/* its start, ms */
	int64_t	 specb;		/* SPEC bound of that window */
	int64_t	 tightb;	/* tight bound of that window */
	int64_t	 spec_viol;	/* windows over the SPEC bound */
	int64_t	 tight_viol;	/* windows over the tight bound */
	int64_t	 windows;	/* windows checked */
};

/*
 * Checks the window [x, x + w) ms holding count admissions.  Its
 * admissions are those of the refill interval (x - 1, x + w - 1]: serving
 * at x - 1 is the baseline, ticks at x .. x + w - 1 count.  Over that
 * interval (length w), with rmax the highest rate in force while active,
 * w_act the active ms (paused time does not count: serving is frozen
 * and joins are refused) and bmax the highest burst in force:
 *   SPEC bound:  count <= floor(rmax * w_act / 60000) + bmax + 1
 *   tight bound: count <= floor(integral of r over active ms / 60000)
 *                + bmax + 1
 * The tight bound implies the SPEC bound (integral <= rmax * w_act) and
 * that implies SPEC's r*W/60 + burst + 1 (w_act <= W).  Both follow from
 * the model being a token bucket: at most bmax unspent numbers at x - 1
 * (serving <= L + burst), plus one number per tick of
 * floor(r * dt / 60000), of which there are at most the floor of the
 * integral plus 1 (re-anchoring drops fractions, never adds them).
 */
static void
check_window(const struct sim *sm, int64_t x, int64_t w, int64_t count,
    struct wstat *ws)
{
	int64_t	 integ, act, rmax, bmax, specb, tightb;

	sched(sm, x - 1, x + w - 1, &integ, &act, &rmax, &bmax);
	specb = rmax * act / 60000 + bmax + 1;
	tightb = integ / 60000 + bmax + 1;
	ws->windows++;
	if (count > specb)
		ws->spec_viol++;
	if (count > tightb)
		ws->tight_viol++;
	if (count > ws->maxcount) {
		ws->maxcount = count;
		ws->maxat = x;
		ws->specb = specb;
		ws->tightb = tightb;
	}
}

/*
 * Checks every window of w ms that starts at an admission time and every
 * window that ends right after one (its last ms is an admission time).
 * adm_t[1..n] must be non-decreasing.
 */
static void
check_windows(const struct sim *sm, int64_t n, int64_t w, struct wstat *ws)
{
	int64_t	 i, j;

	memset(ws, 0, sizeof(*ws));
	/* Windows [adm_t[i], adm_t[i] + w). */
	for (i = 1, j = 1; i <= n; i++) {
		if (i > 1 && adm_t[i] == adm_t[i - 1])
			continue;
		while (j <= n && adm_t[j] < adm_t[i] + w)
			j++;
		check_window(sm, adm_t[i], w, j - i, ws);
	}
	/* Windows [adm_t[j] - w + 1, adm_t[j] + 1). */
	for (j = 1, i = 1; j <= n; j++) {
		if (j < n && adm_t[j + 1] == adm_t[j])
			continue;
		while (adm_t[i] < adm_t[j] - w + 1)
			i++;
		check_window(sm, adm_t[j] - w + 1, w, j - i + 1, ws);
	}
}

/* Admissions with time in [from, to) ms. */
static int64_t
count_adm(const struct sim *sm, int64_t from, int64_t to)
{
	int64_t	 n, c = 0;

	for (n = 1; n <= sm->issued && n <= SIM_MAXN; n++)
		if (adm_t[n] >= from && adm_t[n] < to)
			c++;
	return c;
}

/* Runs the checks every scenario shares, a few assertions each. */
static void
report_sim(const struct sim *sm)
{
	static const int64_t	 ws_s[] = { 1, 10, 60, 600 };
	struct wstat		 ws;
	size_t			 i;
	int64_t			 n;

	n = min64(sm->issued, SIM_MAXN);
	ok(sm->issued > 0 && sm->issued < SIM_MAXN && sm->gaps == 0,
	    "%s: %zu arrivals, numbers 1..%lld issued without gaps",
	    sm->name, sm->narr, (long long)sm->issued);
	ok(sm->issued + sm->rejected == (int64_t)sm->narr &&
	    sm->badrej == 0, "%s: every arrival joined or was refused while "
	    "paused (%lld refused)", sm->name, (long long)sm->rejected);
	is_int(sm->carry_viol, 0, "%s: the floor never carries more than "
	    "the allowance before a change", sm->name);
	is_int(sm->backward, 0, "%s: serving never decreased over %lld "
	    "steps", sm->name, (long long)sm->steps);
	is_int(sm->jumps, 0, "%s: serving continuous across %zu control "
	    "events", sm->name, sm->nev);
	is_int(sm->unadmitted, 0, "%s: everyone admitted by the end (max "
	    "wait %lld.%03lld s)", sm->name, (long long)(sm->maxwait / 1000),
	    (long long)(sm->maxwait % 1000));
	is_int(sm->fifo, 0, "%s: FIFO, admission time non-decreasing in "
	    "number", sm->name);
	if (sm->fifo != 0 || sm->unadmitted != 0)
		return;
	for (i = 0; i < sizeof(ws_s) / sizeof(ws_s[0]); i++) {
		check_windows(sm, n, ws_s[i] * 1000, &ws);
		is_int(ws.spec_viol, 0, "%s: W=%lld s: max admissions %lld "
		    "(window at %lld ms) <= SPEC bound %lld; %lld windows",
		    sm->name, (long long)ws_s[i], (long long)ws.maxcount,
		    (long long)ws.maxat, (long long)ws.specb,
		    (long long)ws.windows);
		is_int(ws.tight_viol, 0, "%s: W=%lld s: every window within "
		    "the rate-integral bound (%lld at the max)", sm->name,
		    (long long)ws_s[i], (long long)ws.tightb);
	}
}

static struct sim	 sm;

/*
 * The total-active-users cap (adm_cap_limit()).  Exact values for the
 * README's example and the edges, then for many random settings: the
 * limited segment keeps floor(r * D / 60000) + burst + 1 <= cap (the
 * token bucket's bound), lowers nothing it need not, and leaves a rate
 * of at least 1 whenever cap >= adm_cap_min().
 */
static void
test_cap(void)
{
	struct adm_change	 c;
	struct adm_queue	 v;
	uint64_t		 seed = 0x7c0ffee5eed5ULL;
	int64_t			 cap, s, b, r0, bad = 0, i;
	int			 lo;

	is_int(adm_cap_min(600), 22, "cap_min(600 s) = 2 * 10 + 2");
	is_int(adm_cap_min(61), 6, "cap_min(61 s) = 2 * 2 + 2");
	is_int(adm_cap_min(1), 4, "cap_min(1 s) = 4");
	c = (struct adm_change){ .rate = 500, .burst = 0,
	    .active = ADM_SEG_FIFO };
	lo = adm_cap_limit(1000, 600, &c);
	ok(lo == 1 && c.rate == 91 && c.burst == 83 &&
	    c.active == ADM_SEG_FIFO, "cap 1000, 600 s, rate 500: rate 91, "
	    "burst 83 (the default of 500) kept explicit (got %d %lld %lld)",
	    lo, (long long)c.rate, (long long)c.burst);
	c = (struct adm_change){ .rate = 60, .burst = 0,
	    .active = ADM_SEG_FIFO };
	ok(adm_cap_limit(1000, 600, &c) == 0 && c.rate == 60 &&
	    c.burst == 0, "a rate within the cap is left as it is");
	c = (struct adm_change){ .rate = 600, .burst = 5000,
	    .active = ADM_SEG_FIFO };
	lo = adm_cap_limit(22, 600, &c);
	ok(lo == 1 && c.burst == 10 && c.rate == 1, "the least cap for 600 "
	    "s: burst 10, rate 1 (got %lld %lld)", (long long)c.burst,
	    (long long)c.rate);
	c = (struct adm_change){ .rate = 600, .burst = 0,
	    .active = ADM_SEG_PASS };
	lo = adm_cap_limit(300, 120, &c);
	ok(lo == 1 && c.active == ADM_SEG_FIFO && c.rate == 99 &&
	    c.burst == 100, "passthrough under a cap of 300 per 120 s: fifo "
	    "at 99 a minute, burst 100 (got %d %lld %lld)", c.active,
	    (long long)c.rate, (long long)c.burst);
	c = (struct adm_change){ .rate = 600, .burst = 0,
	    .active = ADM_SEG_HOLD };
	ok(adm_cap_limit(300, 120, &c) == 0 && c.rate == 600 &&
	    c.active == ADM_SEG_HOLD, "hold (and paused) admit nobody: "
	    "unchanged");
	c = (struct adm_change){ .rate = 600, .burst = 0,
	    .active = ADM_SEG_FIFO };
	ok(adm_cap_limit(0, 120, &c) == 0 && c.rate == 600, "cap 0: none");
	for (i = 0; i < 200000; i++) {
		s = 1 + (int64_t)(rnd(&seed) % 86400);
		cap = adm_cap_min(s) + (int64_t)(rnd(&seed) %
		    (uint64_t)(i % 2 ? 100 : ADM_CAP_MAX - adm_cap_min(s) + 1));
		r0 = 1 + (int64_t)(rnd(&seed) % ADM_RATE_MAX);
		c.rate = r0;
		c.burst = (int64_t)(rnd(&seed) % 3) == 0 ? 0 :
		    (int64_t)(rnd(&seed) % ADM_BURST_MAX);
		c.active = ADM_SEG_FIFO;
		memset(&v, 0, sizeof(v));
		v.rate_per_minute = c.rate;
		v.burst = c.burst;
		b = adm_burst(&v);
		(void)adm_cap_limit(cap, s, &c);
		v.rate_per_minute = c.rate;
		v.burst = c.burst;
		if (c.rate < 1 || c.rate > r0 || adm_burst(&v) > b ||
		    c.rate * s / 60 + adm_burst(&v) + 1 > cap)
			bad++;
	}
	is_int(bad, 0, "200000 random caps: floor(r * D / 60000) + burst + "
	    "1 <= cap, rate >= 1, nothing raised");
}

/*
 * (a) Steady Poisson arrivals of 5/s (300/min) at r=600/min for 2 h:
 * nobody waits.
 */
static void
sim_steady(void)
{
	uint64_t	 seed = 0xa5a5a5a5deadbeefULL;

	memset(&sm, 0, sizeof(sm));
	sm.name = "steady 300/min at r=600";
	sm.rate = 600;
	sm.end = 7200000 + 1000;
	/* e^-5 */
	gen_poisson(&sm, &seed, 0, 7200000, 0.006737946999085467);
	run_sim(&sm);
	report_sim(&sm);
	is_int(sm.maxwait, 0, "%s: every visitor admitted at its join",
	    sm.name);
}

/*
 * (b) Spikes of 20,000 arrivals within 10 s every hour, over a
 * background of 0.5/s, at r=600.  Until the first spike has drained,
 * number n > 100 is admitted exactly at T + (n - 100) * 100 ms, T the
 * first join (one number per 100 ms).
 */
static void
sim_spikes(void)
{
	uint64_t	 seed = 0x0123456789abcdefULL;
	int64_t		 n, bad = 0, pred, t0;

	memset(&sm, 0, sizeof(sm));
	sm.name = "spikes at r=600";
	sm.rate = 600;
	sm.end = 4 * 3600000;
	gen_spike(&sm, &seed, 0, 10000, 20000);
	gen_spike(&sm, &seed, 3600000, 10000, 20000);
	gen_spike(&sm, &seed, 7200000, 10000, 20000);
	/* e^-0.5 */
	gen_poisson(&sm, &seed, 0, 3 * 3600000, 0.6065306597126334);
	run_sim(&sm);
	report_sim(&sm);
	t0 = join_t[1];
	for (n = 1; n <= 20000; n++) {
		/*
		 * Number n > 100 needs the growth (one per 100 ms after the
		 * first 100) and the lagging cap: L at the start of the tick
		 * before must count n - 100, i.e. from the second tick start
		 * after number n - 100 joined.
		 */
		pred = n <= 100 ? join_t[n] :
		    max64(max64(join_t[n], t0 + (n - 100) * 100),
		    (join_t[n - 100] / ADM_TICK_MS + 2) * ADM_TICK_MS);
		if (adm_t[n] != pred)
			bad++;
	}
	is_int(bad, 0, "%s: numbers 1..20000 admitted exactly at max(join, "
	    "T + (n-100)*100 ms, the lagging cap); #20000 at %lld ms",
	    sm.name, (long long)adm_t[20000]);
}

/*
 * (c) Rate changes in the middle of spikes: 600 -> 60 -> 3000, and in a
 * second spike 3000 -> 600 -> 60 -> 3000.  In the first spike, the
 * r=60 phase admits exactly one per second and the r=3000 phase one per
 * 20 ms.
 */
static void
sim_rates(void)
{
	uint64_t	 seed = 0xfeedfacecafebeefULL;
	int64_t		 c1, c2;

	memset(&sm, 0, sizeof(sm));
	sm.name = "rate changes mid-spike";
	sm.rate = 600;
	sm.end = 2 * 3600000;
	gen_spike(&sm, &seed, 0, 10000, 20000);
	gen_spike(&sm, &seed, 3600000, 10000, 20000);
	gen_poisson(&sm, &seed, 0, 6600000, 0.6065306597126334);
	add_ev(&sm, 5000, SIM_RATE, 60);
	add_ev(&sm, 120000, SIM_RATE, 3000);
	add_ev(&sm, 3000000, SIM_RATE, 3000);	/* idle, unchanged */
	add_ev(&sm, 3602000, SIM_RATE, 600);
	add_ev(&sm, 3700000, SIM_RATE, 60);
	add_ev(&sm, 3800000, SIM_RATE, 3000);
	run_sim(&sm);
	report_sim(&sm);
	c1 = count_adm(&sm, 10000, 120000);
	c2 = count_adm(&sm, 130000, 190000);
	ok(c1 == 110 && c2 == 3000, "%s: admissions in [10 s, 120 s) at "
	    "r=60: %lld (want 110); in [130 s, 190 s) at r=3000: %lld "
	    "(want 3000)", sm.name, (long long)c1, (long long)c2);
}

/*
 * (d) Pauses and resumes in the middle of spikes at r=600.  Nobody is
 * admitted strictly inside a pause, exactly the arrivals during pauses
 * are refused, and after a resume serving grows one per 100 ms again.
 */
static void
sim_pauses(void)
{
	static const int64_t	 pz[][2] = {
		{ 30000, 90000 }, { 200000, 200500 }, { 1000000, 1300000 },
		{ 3601000, 3700000 }, { 3705000, 3705300 },
	};
	uint64_t		 seed = 0x1badb002c0ffee11ULL;
	int64_t			 inside = 0, refused = 0, c, n;
	size_t			 i, k;

	memset(&sm, 0, sizeof(sm));
	sm.name = "pauses mid-spike";
	sm.rate = 600;
	sm.end = 3 * 3600000;
	gen_spike(&sm, &seed, 0, 10000, 20000);
	gen_spike(&sm, &seed, 3600000, 10000, 20000);
	gen_poisson(&sm, &seed, 0, 2 * 3600000, 0.6065306597126334);
	for (i = 0; i < sizeof(pz) / sizeof(pz[0]); i++) {
		add_ev(&sm, pz[i][0], SIM_PAUSE, 0);
		add_ev(&sm, pz[i][1], SIM_RESUME, 0);
	}
	run_sim(&sm);
	report_sim(&sm);
	/* arr_t is sorted by run_sim() now. */
	for (i = 0; i < sizeof(pz) / sizeof(pz[0]); i++) {
		/* A pause holds from ADM_TICK_MS after it is made. */
		for (k = 0; k < sm.narr; k++)
			if (arr_t[k] >= pz[i][0] + ADM_TICK_MS &&
			    arr_t[k] < pz[i][1] + ADM_TICK_MS)
				refused++;
		for (n = 1; n <= sm.issued; n++)
			if (adm_t[n] > pz[i][0] + ADM_TICK_MS &&
			    adm_t[n] < pz[i][1] + ADM_TICK_MS)
				inside++;
	}
	is_int(sm.rejected, refused, "%s: refused exactly the %lld "
	    "arrivals during pauses", sm.name, (long long)refused);
	is_int(inside, 0, "%s: no admission strictly inside a pause",
	    sm.name);
	c = count_adm(&sm, 90001 + ADM_TICK_MS, 150001 + ADM_TICK_MS);
	is_int(c, 600, "%s: a minute after the resume took effect: 600 "
	    "admissions at r=600", sm.name);
}

/*
 * (e) Rate cuts and raises while the queue is idle (serving on the
 * clamp above L) and while it is busy: serving never goes backward (the
 * floor), nobody is admitted out of order, and the bound holds with the
 * burst term taken over the schedule so far.  The cut to 60 at 600 s
 * leaves serving at L + 100; the spike at 1200 s gets what is left of
 * those 100 numbers at once and then one per second.
 */
static void
sim_idle_cuts(void)
{
	uint64_t	 seed = 0x5eed5eed5eed5eedULL;
	int64_t		 c, first, l600;

	memset(&sm, 0, sizeof(sm));
	sm.name = "rate cuts on idle and busy queues";
	sm.rate = 600;
	sm.end = 2 * 3600000;
	/* e^-0.05: one arrival per 20 s on average, an idle queue. */
	gen_poisson(&sm, &seed, 0, 6600000, 0.951229424500714);
	gen_spike(&sm, &seed, 1200000, 1, 1000);
	gen_spike(&sm, &seed, 3000000, 10000, 1000);
	add_ev(&sm, 600000, SIM_RATE, 60);	/* idle: floor above L */
	add_ev(&sm, 1800000, SIM_RATE, 6000);	/* idle: raise */
	add_ev(&sm, 2400000, SIM_RATE, 6);	/* idle: cut to 6 */
	add_ev(&sm, 3005000, SIM_RATE, 600);	/* busy: raise */
	add_ev(&sm, 3010000, SIM_RATE, 60);	/* busy: cut */
	add_ev(&sm, 3200000, SIM_PAUSE, 0);
	add_ev(&sm, 3300000, SIM_RESUME, 0);
	run_sim(&sm);
	report_sim(&sm);
	/*
	 * The floor set at 600 s is L(600 s) + 100; background joins since
	 * took some of it; the spike at 1200 s (numbers from "first") gets
	 * the rest at once, exactly up to the floor.
	 */
	for (l600 = 0; l600 < sm.issued && join_t[l600 + 1] < 600000;
	    l600++)
		;
	for (first = 1; first <= sm.issued && join_t[first] < 1200000;
	    first++)
		;
	c = count_adm(&sm, 1200000, 1200001);
	ok(c == l600 + 100 - first + 1 && c > 50, "%s: at 1200 s the spike "
	    "gets the rest of the floor at once: %lld = L(600 s) %lld + 100 "
	    "- %lld joined since", sm.name, (long long)c, (long long)l600,
	    (long long)(first - 1 - l600));
	c = count_adm(&sm, 1201000, 1261000);
	is_int(c, 60, "%s: then one per second at r=60 (%lld in 60 s)",
	    sm.name, (long long)c);
	ok(first > 1, "%s: background joins before the spike (%lld)",
	    sm.name, (long long)(first - 1));
}

/*
 * (f) A total-active-users cap of 300 per session of 120 s on a queue
 * of r=600 (adm_cap_limit(): r=99, burst 100): a spike of 5,000 and a
 * background of 0.5/s; no 120 s window holds more than 300 admissions,
 * and the busiest comes close (the cap binds, not the rate).
 */
static void
sim_cap(void)
{
	struct adm_change	 c = { .rate = 600, .burst = 0,
	    .active = ADM_SEG_FIFO };
	struct wstat		 ws;
	uint64_t		 seed = 0x5e55109e0ca9ULL;

	(void)adm_cap_limit(300, 120, &c);
	memset(&sm, 0, sizeof(sm));
	sm.name = "a cap of 300 per 120 s at r=600";
	sm.rate = c.rate;
	sm.burst = c.burst;
	sm.end = 7200000;
	gen_spike(&sm, &seed, 0, 10000, 5000);
	/* e^-0.5 */
	gen_poisson(&sm, &seed, 0, 3600000, 0.6065306597126334);
	run_sim(&sm);
	report_sim(&sm);
	check_windows(&sm, min64(sm.issued, SIM_MAXN), 120000, &ws);
	ok(ws.maxcount <= 300 && ws.maxcount >= 290, "%s: at most %lld "
	    "admissions in a 120 s window (cap 300)", sm.name,
	    (long long)ws.maxcount);
}

int
main(void)
{

	test_burst();
	test_serving();
	test_lag();
	test_join();
	test_lease();
	test_status();
	test_schedule();
	test_random();
	test_copies_agree(0x51ed2701u, 0);
	test_copies_agree(0x7a3d0c55u, 1);
	test_claim();
	test_claim_random();
	test_claim_window_change();
	test_opening();
	test_cap();
	sim_steady();
	sim_spikes();
	sim_rates();
	sim_pauses();
	sim_idle_cuts();
	sim_cap();
	return done_testing();
}
