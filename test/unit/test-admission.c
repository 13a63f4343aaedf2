/*
 * test-admission.c - the admission model (SPEC section 3): exact values of
 * the formulas, the join statement's mirror, status estimates, continuity
 * across rate changes and pauses, and a simulation over hours of synthetic
 * arrivals that checks monotonicity, FIFO and the admission bound.
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
}

/* Returns 1 when both states hold the same values, else 0. */
static int
sameq(const struct adm_queue *x, const struct adm_queue *y)
{

	return x->rate_per_minute == y->rate_per_minute &&
	    x->burst == y->burst && x->anchor_number == y->anchor_number &&
	    x->anchor_time_ms == y->anchor_time_ms &&
	    x->last_number == y->last_number && x->skip == y->skip &&
	    x->active == y->active;
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
	q.rate_per_minute = 1;
	is_int(adm_burst(&q), 1, "burst r=1 -> 1");
	q.rate_per_minute = 6;
	is_int(adm_burst(&q), 1, "burst r=6 -> 1");
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
	is_int(adm_serving(&q, 60999), 70, "serving at 60999 ms = 70");

	/* r=7: floor(7 * dt / 60000). */
	q.rate_per_minute = 7;
	is_int(adm_serving(&q, 8571), 10, "r=7 at 8571 ms = 10");
	is_int(adm_serving(&q, 8572), 11, "r=7 at 8572 ms = 11");

	/* Clamp L + burst. */
	mkq(&q, 60, 0, 10, 0, 20, 0, 1);
	is_int(adm_serving(&q, 19999), 29, "below clamp: 29");
	is_int(adm_serving(&q, 20000), 30, "reaches clamp L+burst = 30");
	is_int(adm_serving(&q, 60000), 30, "clamped at L+burst = 30");
	q.burst = 3;
	is_int(adm_serving(&q, 60000), 23, "configured burst 3: clamp 23");

	/* Paused: frozen at A + skip. */
	mkq(&q, 60, 0, 10, 0, 1000, 3, 0);
	is_int(adm_serving(&q, 0), 13, "paused at T = A + skip");
	is_int(adm_serving(&q, 60000), 13, "paused after 60 s still 13");
	is_int(adm_serving(&q, NOW0), 13, "paused after years still 13");
	q.last_number = 5;
	q.burst = 1;
	is_int(adm_serving(&q, 60000), 6, "paused and clamped: L+burst = 6");

	/* Clock behind T counts as no time passed. */
	mkq(&q, 60, 0, 10, 100000, 1000, 0, 1);
	is_int(adm_serving(&q, 0), 10, "clock 100 s behind T: A");
	is_int(adm_serving(&q, 99999), 10, "clock 1 ms behind T: A");
	is_int(adm_serving(&q, INT64_MIN), 10, "clock at INT64_MIN: A");

	/* Skip adds. */
	mkq(&q, 60, 0, 10, 0, 1000, 5, 1);
	is_int(adm_serving(&q, 60000), 75, "skip 5 adds: 75");
	q.last_number = 60;
	is_int(adm_serving(&q, 60000), 70, "skip still clamped at L+burst");

	/* Never below 0. */
	mkq(&q, 60, 0, -50, 0, 0, 0, 0);
	is_int(adm_serving(&q, 0), 0, "never below 0");

	/* Huge dt is clamped to ADM_DT_MAX_MS, without overflow. */
	mkq(&q, ADM_RATE_MAX, ADM_BURST_MAX, 0, 0, P53, 0, 1);
	is_int(adm_serving(&q, INT64_MAX), 16666666666666LL,
	    "now=INT64_MAX: dt clamped, 10^6*10^12/60000");
	is_int(adm_serving(&q, ADM_DT_MAX_MS + 12345), 16666666666666LL,
	    "dt just above ADM_DT_MAX_MS clamped");
	is_int(adm_serving(&q, ADM_DT_MAX_MS - 1), 16666666666650LL,
	    "dt just below ADM_DT_MAX_MS not clamped");
	q.anchor_time_ms = INT64_MIN;
	is_int(adm_serving(&q, INT64_MAX), 16666666666666LL,
	    "T=INT64_MIN, now=INT64_MAX: no overflow");
	mkq(&q, ADM_RATE_MAX, ADM_BURST_MAX, P53, 0, P53, 0, 1);
	is_int(adm_serving(&q, ADM_DT_MAX_MS), P53 + ADM_BURST_MAX,
	    "numbers near 2^53: clamp 2^53 + 10^6");
	mkq(&q, ADM_RATE_MAX, 0, P53, 0, 3 * P53, P53, 1);
	is_int(adm_serving(&q, INT64_MAX), 2 * P53 + 16666666666666LL,
	    "A=2^53, skip=2^53, max dt: exact");
}

static void
test_init(void)
{
	struct adm_queue	 q;

	adm_init(&q, 600, 0, NOW0);
	ok(q.rate_per_minute == 600 && q.burst == 0 &&
	    q.anchor_number == 100 && q.anchor_time_ms == NOW0 &&
	    q.last_number == 0 && q.skip == 0 && q.active == 1,
	    "init r=600: A=100, T=now, L=0, skip=0, active");
	is_int(adm_serving(&q, NOW0), 100, "new queue serving = burst");
	adm_init(&q, 600, 7, NOW0);
	is_int(q.anchor_number, 7, "init with burst 7: A=7");
	adm_init(&q, 0, 0, NOW0);
	is_int(q.rate_per_minute, ADM_RATE_MIN, "init rate 0 clamped to 1");
	adm_init(&q, 5000000, 0, NOW0);
	is_int(q.rate_per_minute, ADM_RATE_MAX, "init rate 5e6 clamped");
	/* Waiting: L - serving, never below 0 (serving runs ahead). */
	adm_init(&q, 60, 2, NOW0);
	is_int(adm_waiting(&q, NOW0), 0, "new queue: nobody waiting");
	q.last_number = 5;
	is_int(adm_waiting(&q, NOW0), 3, "L 5, serving 2: 3 waiting");
	is_int(adm_waiting(&q, NOW0 + 2000), 1, "2 s later at 1/s: 1");
	is_int(adm_waiting(&q, NOW0 + 60000), 0, "a minute later: 0");
}

/* A cancelled opening: the queue is as new at the cancel instant. */
static void
test_cancel_opening(void)
{
	struct adm_queue	 q, fresh;

	adm_init(&q, 600, 7, NOW0);
	adm_arm_opening(&q, NOW0 + 3600000);
	is_int(adm_serving(&q, NOW0 + 1000), 0, "armed: serving held at 0");
	ok(adm_prequeue(&q, NOW0 + 1000), "armed: the pre-queue collects");
	adm_cancel_opening(&q, NOW0 + 1000);
	ok(!adm_prequeue(&q, NOW0 + 1000) && q.opens_at_ms == 0 &&
	    q.draw_open == 0, "cancelled: no opening, no pre-queue");
	adm_init(&fresh, 600, 7, NOW0 + 1000);
	is_int(adm_serving(&q, NOW0 + 1000), 7, "cancelled: serving = burst");
	is_int(adm_serving(&q, NOW0 + 61000), adm_serving(&fresh,
	    NOW0 + 61000), "cancelled: a minute later as a new queue");
	is_int(adm_join(&q, NOW0 + 1000), 1, "cancelled: number 1");
	ok(adm_serving(&q, NOW0 + 1000) >= 1, "cancelled: 1 is admitted");
}

static void
test_join(void)
{
	struct adm_queue	 q, before;
	struct adm_status	 st;
	int64_t			 i, n, bad;

	/* A new queue admits the first burst joiners at once. */
	adm_init(&q, 600, 0, NOW0);
	bad = 0;
	for (i = 1; i <= 100; i++) {
		n = adm_join(&q, NOW0);
		adm_status(&q, n, NOW0, &st);
		if (n != i || !st.admitted)
			bad++;
	}
	is_int(bad, 0, "new queue r=600: joiners 1..100 admitted at once");
	n = adm_join(&q, NOW0);
	adm_status(&q, n, NOW0, &st);
	ok(n == 101 && !st.admitted && st.serving == 100 && st.ahead == 0,
	    "joiner 101 waits (serving 100, ahead 0)");
	n = adm_join(&q, NOW0);
	adm_status(&q, n, NOW0, &st);
	ok(n == 102 && st.ahead == 1 && st.wait_s == 1,
	    "joiner 102: ahead 1, wait 1 s");
	is_int(adm_serving(&q, NOW0 + 99), 100, "99 ms later: still 100");
	is_int(adm_serving(&q, NOW0 + 100), 101, "100 ms later: 101");
	is_int(adm_serving(&q, NOW0 + 200), 102, "200 ms later: 102");
	is_int(adm_serving(&q, NOW0 + 60000), 202,
	    "60 s later: clamped to L + burst = 202");

	/* Re-anchor when the clamp is the smaller term. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 60000);
	ok(n == 6 && q.anchor_number == 15 && q.anchor_time_ms == 60000 &&
	    q.last_number == 6,
	    "clamp smaller (70 > 15): A := L+burst = 15, T := now");
	is_int(adm_serving(&q, 60000), 15, "serving after re-anchor 15");
	is_int(adm_serving(&q, 61000), 16,
	    "1 s later 16: idle credit forgotten (not 71)");

	is_int(adm_join_growth(&q, 60000), 9,
	    "growth report after it: 15 - 6 = 9");
	is_int(adm_join_growth(&q, 62000), 11, "2 s later: 11");
	mkq(&q, 60, 0, 10, 0, 3000020, 0, 1);
	is_int(adm_join_growth(&q, 0), ADM_GROWTH_MIN,
	    "3 million behind: clamped to -2^20 (understates)");
	mkq(&q, 60, 0, 3000020, 0, 10, 0, 1);
	is_int(adm_join_growth(&q, 0), ADM_GROWTH_MAX,
	    "3 million ahead: clamped to 2^20 - 1");

	/* Equal terms also re-anchor. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 5000);
	ok(n == 6 && q.anchor_number == 15 && q.anchor_time_ms == 5000,
	    "equal terms (15 = 15): A = 15, T := now");

	/* Growth term smaller: no re-anchor. */
	mkq(&q, 60, 0, 10, 0, 5, 0, 1);
	n = adm_join(&q, 4999);
	ok(n == 6 && q.anchor_number == 10 && q.anchor_time_ms == 0,
	    "growth smaller (14 < 15): A and T unchanged");

	/* With skip: A := L + burst - skip. */
	mkq(&q, 60, 0, 10, 0, 5, 3, 1);
	n = adm_join(&q, 1999);
	ok(n == 6 && q.anchor_number == 10 && q.anchor_time_ms == 0,
	    "skip 3, growth 14 < 15: unchanged");
	mkq(&q, 60, 0, 10, 0, 5, 3, 1);
	n = adm_join(&q, 2000);
	ok(n == 6 && q.anchor_number == 12 && q.anchor_time_ms == 2000,
	    "skip 3, growth 15 >= 15: A = 12, T := now");
	is_int(adm_serving(&q, 2000), 15, "serving continuous at 15");

	/* Paused: returns 0, state unchanged. */
	mkq(&q, 60, 0, 10, 0, 5, 3, 0);
	before = q;
	n = adm_join(&q, 60000);
	ok(n == 0 && sameq(&q, &before), "paused: join returns 0, q unchanged");

	/* Numbers are 1, 2, 3, ... without gaps, at random times. */
	{
		uint64_t	 seed = 12345;
		int64_t		 t = NOW0, s0, s1;

		adm_init(&q, 60, 0, t);
		bad = 0;
		for (i = 1; i <= 5000; i++) {
			t += rnd_below(&seed, 3000);
			s0 = adm_serving(&q, t);
			n = adm_join(&q, t);
			s1 = adm_serving(&q, t);
			if (n != i || s0 != s1)
				bad++;
		}
		is_int(bad, 0, "5000 joins: numbers 1..5000, serving "
		    "unchanged by each join");
	}
}

static void
test_status(void)
{
	struct adm_queue	 q;
	struct adm_status	 st;

	/*
	 * r=60, serving 100 at T.  The wait is the time until serving
	 * reaches the number: ceil((number - serving) * 60 / r).
	 */
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);
	adm_status(&q, 106, NOW0, &st);
	ok(st.serving == 100 && st.ahead == 5 && !st.admitted &&
	    st.wait_s == 6 && st.retry_after_s == 2,
	    "r=60 number 106: ahead 5, wait 6 s, retry 2");
	adm_status(&q, 100, NOW0, &st);
	ok(st.admitted && st.ahead == 0 && st.wait_s == 0 &&
	    st.retry_after_s == ADM_RETRY_MIN_S, "number 100: admitted");
	adm_status(&q, 1, NOW0, &st);
	ok(st.admitted && st.ahead == 0 && st.retry_after_s == 2,
	    "number 1: admitted, ahead 0");
	adm_status(&q, 101, NOW0, &st);
	ok(!st.admitted && st.ahead == 0 && st.wait_s == 1 &&
	    st.retry_after_s == 2, "number 101: next, ahead 0, wait 1 s");
	adm_status(&q, 101, NOW0 + 999, &st);
	ok(!st.admitted && st.wait_s == 1, "999 ms later: still 1 s");
	adm_status(&q, 251, NOW0, &st);
	ok(st.ahead == 150 && st.wait_s == 151 && st.retry_after_s == 15,
	    "number 251: ahead 150, wait 151 s, retry 15");
	adm_status(&q, 1101, NOW0, &st);
	ok(st.ahead == 1000 && st.wait_s == 1001 && st.retry_after_s == 30,
	    "number 1101: ahead 1000, wait 1001 s, retry 30 (max)");
	adm_status(&q, 106, NOW0 + 5000, &st);
	ok(st.serving == 105 && st.ahead == 0 && !st.admitted &&
	    st.wait_s == 1, "5 s later number 106 is next, wait 1 s");
	adm_status(&q, 106, NOW0 + 6000, &st);
	ok(st.admitted && st.retry_after_s == 2, "6 s later admitted");

	/* At 1/min the next number waits a minute, not "0 s". */
	mkq(&q, 1, 0, 10, NOW0, 20, 0, 1);
	adm_status(&q, 11, NOW0, &st);
	ok(!st.admitted && st.ahead == 0 && st.wait_s == 60 &&
	    st.retry_after_s == 6, "r=1 next in line: wait 60 s, retry 6");
	adm_status(&q, 12, NOW0, &st);
	ok(st.ahead == 1 && st.wait_s == 120, "r=1 ahead 1: wait 120 s");

	/* Paused: nobody knows when it resumes. */
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 0);
	adm_status(&q, 101, NOW0, &st);
	ok(!st.admitted && st.ahead == 0 && st.wait_s == -1 &&
	    st.retry_after_s == ADM_RETRY_PAUSED_S,
	    "paused, next in line: wait unknown (-1), retry 10");
	adm_status(&q, 5000, NOW0 + 3600000, &st);
	ok(st.serving == 100 && st.wait_s == -1 &&
	    st.retry_after_s == ADM_RETRY_PAUSED_S,
	    "paused an hour, far back: wait unknown, retry 10");
	adm_status(&q, 100, NOW0, &st);
	ok(st.admitted && st.wait_s == 0 && st.retry_after_s == 2,
	    "paused, admitted number: wait 0, retry 2");
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);

	q.rate_per_minute = 7;
	adm_status(&q, 102, NOW0, &st);
	ok(st.ahead == 1 && st.wait_s == 18,
	    "r=7 ahead 1: wait ceil(2 * 60 / 7) = 18");
	adm_status(&q, 115, NOW0, &st);
	ok(st.ahead == 14 && st.wait_s == 129 && st.retry_after_s == 12,
	    "r=7 ahead 14: wait ceil(15 * 60 / 7) = 129 s, retry 12");
	q.rate_per_minute = ADM_RATE_MAX;
	adm_status(&q, 102, NOW0, &st);
	is_int(st.wait_s, 1, "r=10^6 ahead 1: wait 1 s (ceil)");
	adm_status(&q, 100 + 1000000, NOW0, &st);
	is_int(st.wait_s, 60, "r=10^6, 10^6 to go: wait 60 s");
	adm_status(&q, 100 + 1000001, NOW0, &st);
	is_int(st.wait_s, 61, "r=10^6, 10^6 + 1 to go: wait 61 s");
	q.rate_per_minute = 1;
	adm_status(&q, INT64_MAX, NOW0, &st);
	ok(st.ahead == INT64_MAX - 101 && st.wait_s == INT64_MAX &&
	    st.retry_after_s == 30, "number INT64_MAX, r=1: wait saturates");

	is_int(adm_retry_after(-5), 2, "retry(-5) = 2");
	is_int(adm_retry_after(0), 2, "retry(0) = 2");
	is_int(adm_retry_after(29), 2, "retry(29) = 2");
	is_int(adm_retry_after(30), 3, "retry(30) = 3");
	is_int(adm_retry_after(155), 15, "retry(155) = 15");
	is_int(adm_retry_after(299), 29, "retry(299) = 29");
	is_int(adm_retry_after(300), 30, "retry(300) = 30");
	is_int(adm_retry_after(INT64_MAX), 30, "retry(INT64_MAX) = 30");
}

static void
test_continuity(void)
{
	struct adm_queue	 q;
	int64_t			 t, s, s2, bad, badf, drops, ops, i;
	uint64_t		 seed = 0x9e3779b97f4a7c15ULL;

	/* A long queue: A=100, T=0, r=600, L=10000. */
	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	t = NOW0 + 12345;
	s = adm_serving(&q, t);
	is_int(s, 223, "r=600 at 12345 ms: 100 + floor(123.45) = 223");
	adm_set_rate(&q, 60, t);
	is_int(adm_serving(&q, t), 223, "set rate 600 -> 60: still 223");
	is_int(adm_serving(&q, t + 999), 223, "+999 ms at 60/min: 223");
	is_int(adm_serving(&q, t + 1000), 224, "+1000 ms at 60/min: 224");
	t += 1500;
	adm_set_rate(&q, 3000, t);
	is_int(adm_serving(&q, t), 224, "set rate 60 -> 3000: still 224");
	is_int(adm_serving(&q, t + 20), 225, "+20 ms at 3000/min: 225");
	t += 30;
	s = adm_serving(&q, t);
	adm_pause(&q, t);
	is_int(adm_serving(&q, t), s, "pause: serving unchanged (225)");
	is_int(adm_serving(&q, t + 3600000), s, "1 h paused: frozen");
	adm_resume(&q, t + 3600000);
	t += 3600000;
	is_int(adm_serving(&q, t), s, "resume: continues from frozen value");
	is_int(adm_serving(&q, t + 19), s, "resume +19 ms: frozen value");
	is_int(adm_serving(&q, t + 20), s + 1, "resume +20 ms: +1");
	is_int(adm_serving(&q, t + 60000), s + 3000,
	    "resume +60 s at 3000/min: +3000");
	adm_set_rate(&q, 0, t);
	is_int(q.rate_per_minute, ADM_RATE_MIN, "set rate 0 clamped to 1");
	adm_set_rate(&q, INT64_MAX, t);
	is_int(q.rate_per_minute, ADM_RATE_MAX, "set rate huge clamped");

	/* adm_reanchor moves A and T, not serving. */
	mkq(&q, 60, 0, 10, 0, 1000, 4, 1);
	adm_reanchor(&q, 30500);
	ok(q.anchor_number == 40 && q.anchor_time_ms == 30500 &&
	    adm_serving(&q, 30500) == 44,
	    "reanchor at 30.5 s: A = 44 - skip = 40, T = now");

	/*
	 * Lowering the rate lowers the default burst and so the clamp
	 * L + burst.  On an idle queue serving sits on the old clamp; the
	 * floor keeps it there (SPEC section 3: never backward, also above
	 * L), and growth goes on from it once joins have used it up.
	 */
	adm_init(&q, 600, 0, NOW0);
	t = NOW0 + 60000;
	s = adm_serving(&q, t);
	adm_set_rate(&q, 60, t);
	s2 = adm_serving(&q, t);
	ok(s == 100 && s2 == 100 && q.floor == 100, "idle queue, rate 600 "
	    "-> 60: serving %lld -> %lld (floor 100 over the new clamp 10)",
	    (long long)s, (long long)s2);
	is_int(adm_serving(&q, t + 3600000), 100,
	    "an hour later, still idle: 100 (neither back nor on)");
	t += 3600000;
	bad = 0;
	for (i = 1; i <= 100; i++)
		if (adm_join(&q, t) != i || adm_serving(&q, t) != 100)
			bad++;
	is_int(bad, 0, "joins 1..100 at once: numbers 1..100, all "
	    "admitted by the floor, serving stays 100");
	ok(q.anchor_number == 100 && q.anchor_time_ms == t,
	    "the first join re-anchored on the floor: A = 100, T = now");
	is_int(adm_join(&q, t), 101, "join 101 ...");
	is_int(adm_serving(&q, t), 100, "... waits: serving 100");
	is_int(adm_serving(&q, t + 999), 100, "+999 ms: 100");
	is_int(adm_serving(&q, t + 1000), 101,
	    "+1 s: 101 (grows on from the floor at 60/min)");

	/* Busy queue: a rate cut changes the pace, not serving. */
	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	s = adm_serving(&q, NOW0 + 1000);
	adm_set_rate(&q, 60, NOW0 + 1000);
	ok(s == 110 && adm_serving(&q, NOW0 + 1000) == 110 &&
	    adm_serving(&q, NOW0 + 2000) == 111,
	    "busy queue, rate 600 -> 60 at 110: 110, then +1 per second");

	/*
	 * Random states and operations: serving after the operation equals
	 * serving before, always (also rate cuts on idle queues), frozen
	 * while paused, growing while active, also across a join.
	 */
	bad = badf = drops = ops = 0;
	for (i = 0; i < 200000; i++) {
		int64_t	 now, op, s3;

		mkq(&q, 1 + rnd_below(&seed, ADM_RATE_MAX),
		    rnd_below(&seed, 4) == 0 ? 1 + rnd_below(&seed, 1000) : 0,
		    rnd_below(&seed, (int64_t)1 << 40),
		    NOW0 + rnd_below(&seed, 86400000),
		    rnd_below(&seed, (int64_t)1 << 40),
		    rnd_below(&seed, 1000), (int)rnd_below(&seed, 2));
		if (rnd_below(&seed, 2))
			q.last_number = q.anchor_number +
			    rnd_below(&seed, 2000000);
		if (rnd_below(&seed, 3) == 0)
			q.floor = q.last_number + rnd_below(&seed, 200000);
		now = q.anchor_time_ms + rnd_below(&seed, 86400000) - 1000;
		s = adm_serving(&q, now);
		op = rnd_below(&seed, 5);
		if (op == 0)
			adm_set_rate(&q, 1 + rnd_below(&seed, ADM_RATE_MAX),
			    now);
		else if (op == 1)
			adm_pause(&q, now);
		else if (op == 2)
			adm_resume(&q, now);
		else if (op == 3)
			adm_reanchor(&q, now);
		else
			adm_set_rate(&q, q.rate_per_minute *
			    (1 + rnd_below(&seed, 5)), now);
		s2 = adm_serving(&q, now);
		if (s2 != s)
			bad++;
		if (s2 < s)
			drops++;
		/* Frozen while paused, growing while active. */
		if (!q.active && adm_serving(&q, now + 3600000) != s2)
			badf++;
		if (q.active && adm_serving(&q, now + 3600000) < s2)
			badf++;
		/* A join right after leaves serving where it was. */
		s3 = adm_serving(&q, now + 5);
		if (adm_join(&q, now + 5) != 0 &&
		    adm_serving(&q, now + 5) != s3)
			badf++;
		ops++;
	}
	is_int(bad, 0, "%lld random rate/pause/resume/reanchor: serving "
	    "after == serving before (%lld went backward)", (long long)ops,
	    (long long)drops);
	is_int(badf, 0, "... frozen while paused, growing while active, and "
	    "unchanged by a join");
}

/*
 * The claim window: when a number was admitted, as the row can tell
 * (adm_admitted_at), and when its window has passed.
 */
static void
test_claim(void)
{
	struct adm_queue	 q;
	int64_t			 t, t1, at200, at223, k, j, bad, late;
	int64_t			 jt[40];

	/* A waiting number is admitted when serving reaches it. */
	mkq(&q, 60, 0, 100, NOW0, 1000, 0, 1);
	q.claim_window_s = 600;
	q.prev_rate = 60;
	is_int(adm_admitted_at(&q, 105), NOW0 + 5000, "r=60: 105 at T + 5 s");
	is_int(adm_admitted_at(&q, 101), NOW0 + 1000, "r=60: 101 at T + 1 s");
	q.rate_per_minute = 7;
	is_int(adm_admitted_at(&q, 101), NOW0 + 8572,
	    "r=7: 101 at T + ceil(60000 / 7) ms");
	q.rate_per_minute = 60;
	ok(!adm_claim_expired(&q, 105, NOW0 + 5000 + 599999),
	    "105: claimable 599.999 s after its admission");
	ok(adm_claim_expired(&q, 105, NOW0 + 5000 + 600000),
	    "105: expired 600 s after its admission");

	/* A rate cut moves no admission time, before or after it. */
	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	q.prev_rate = 600;
	q.claim_window_s = 600;
	at200 = adm_admitted_at(&q, 200);
	at223 = adm_admitted_at(&q, 223);
	ok(at200 == NOW0 + 10000 && at223 == NOW0 + 12300,
	    "r=600: 200 at T + 10 s, 223 at T + 12.3 s");
	adm_set_rate(&q, 60, NOW0 + 12345);
	ok(adm_admitted_at(&q, 200) == at200 &&
	    adm_admitted_at(&q, 223) == at223, "after a cut to 60 at "
	    "12.345 s: 200 and 223 keep their times (%lld, %lld)",
	    (long long)(adm_admitted_at(&q, 200) - NOW0),
	    (long long)(adm_admitted_at(&q, 223) - NOW0));
	is_int(adm_admitted_at(&q, 224), NOW0 + 13345,
	    "224: 1 s after the cut at the new rate");
	ok(!adm_claim_expired(&q, 200, NOW0 + 609999) &&
	    adm_claim_expired(&q, 200, NOW0 + 610000),
	    "200 expires exactly 600 s after 10 s, not after the cut");

	/* A pause neither extends nor shortens a window. */
	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	q.prev_rate = 600;
	q.claim_window_s = 600;
	adm_pause(&q, NOW0 + 12345);
	adm_resume(&q, NOW0 + 3600000);
	ok(adm_admitted_at(&q, 200) == NOW0 + 10000 &&
	    adm_admitted_at(&q, 223) == NOW0 + 12300, "paused at 12.345 s "
	    "for an hour: 200 and 223 keep 10 s and 12.3 s");
	ok(adm_claim_expired(&q, 200, NOW0 + 3600000),
	    "200 is expired at the resume (admitted an hour ago)");
	is_int(adm_admitted_at(&q, 224), NOW0 + 3600100,
	    "224: 100 ms after the resume");
	/* Rate changes while paused keep the remembered segment too. */
	mkq(&q, 600, 0, 100, NOW0, 10000, 0, 1);
	q.prev_rate = 600;
	adm_pause(&q, NOW0 + 12345);
	adm_set_rate(&q, 6, NOW0 + 20000);
	adm_resume(&q, NOW0 + 30000);
	ok(adm_admitted_at(&q, 200) == NOW0 + 10000 &&
	    adm_admitted_at(&q, 224) == NOW0 + 40000, "pause, cut to 6, "
	    "resume: 200 at 10 s, 224 at resume + 10 s");

	/*
	 * Below the rate (drained queue): admitted at the join.  With
	 * burst 1 the join's re-anchor gives the exact time; with the
	 * default burst the value lies (burst - 1) * 60 / r s early.
	 */
	adm_init(&q, 60, 1, NOW0);
	t = NOW0 + 3600000;
	is_int(adm_join(&q, t), 1, "idle an hour, join: number 1");
	is_int(adm_admitted_at(&q, 1), t, "burst 1: 1 admitted at its join");
	adm_init(&q, 60, 0, NOW0);
	is_int(adm_join(&q, t), 1, "default burst 10: number 1");
	is_int(adm_admitted_at(&q, 1), t - 9000,
	    "burst 10: 1 at its join - 9 s (the documented error)");
	ok(!adm_claim_expired(&q, 1, t + 590999) &&
	    adm_claim_expired(&q, 1, t + 591000),
	    "... so its window ends 591 s after the join");

	/*
	 * Sparse joins below the rate (one a minute at 60/min, burst 1)
	 * re-anchor each time, which alone would keep old numbers fresh.
	 * The checkpoint ends every window by 2 * 600 s + 60 s, and none
	 * before 600 s.
	 */
	adm_init(&q, 60, 1, NOW0);
	bad = late = 0;
	for (k = 1; k < 40; k++) {
		t1 = NOW0 + k * 60000;
		if (adm_join(&q, t1) != k)
			bad++;
		jt[k] = t1;
		for (j = 1; j <= k; j++) {
			if (t1 - jt[j] < 600000 &&
			    adm_claim_expired(&q, j, t1))
				bad++;
			if (t1 - jt[j] >= 1260000 &&
			    !adm_claim_expired(&q, j, t1))
				late++;
		}
	}
	is_int(bad, 0, "sparse joins: no window shorter than 600 s");
	is_int(late, 0, "sparse joins: every window over by 1260 s");
	ok(adm_claim_expired(&q, 1, NOW0 + 39 * 60000) &&
	    q.ck_expired >= 1, "number 1 expired via the checkpoint "
	    "(K0 = %lld)", (long long)q.ck_expired);
}

/*
 * The simulation.  Time is in ms; arrivals and control events are known
 * in advance, and the loop jumps from event to event, and while someone
 * waits, to the first ms at which serving reaches the next number (found
 * by galloping and bisection over adm_serving()).
 */
#define SIM_MAXN	200000		/* numbers per scenario */
#define SIM_REACH	(SIM_MAXN + 2000)	/* > max L + burst */
#define SIM_MAXEV	16
#define SIM_MAXSEG	(SIM_MAXEV + 1)

enum sim_op {
	SIM_RATE,		/* adm_set_rate() */
	SIM_PAUSE,		/* adm_pause() */
	SIM_RESUME		/* adm_resume() */
};

struct sim_ev {
	int64_t		 t;	/* ms since the scenario's start */
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
		s->start = sm->ev[i].t;
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
	size_t			 ai = 0, ei = 0;
	int64_t			 t = 0, s, prev = -1, nreach = 0, n, k;
	int64_t			 next, before, after;

	qsort(arr_t, sm->narr, sizeof(arr_t[0]), cmp64);
	build_segs(sm);
	adm_init(&q, sm->rate, sm->burst, NOW0);
	for (;;) {
		while (ei < sm->nev && sm->ev[ei].t == t) {
			before = adm_serving(&q, NOW0 + t);
			k = adm_burst(&q);
			if (sm->ev[ei].op == SIM_RATE)
				adm_set_rate(&q, sm->ev[ei].rate, NOW0 + t);
			else if (sm->ev[ei].op == SIM_PAUSE)
				adm_pause(&q, NOW0 + t);
			else
				adm_resume(&q, NOW0 + t);
			after = adm_serving(&q, NOW0 + t);
			if (after != before)
				sm->jumps++;
			/* Carried forward from the change before, at most. */
			if (sm->ncarry > 0)
				k = max64(k, sm->carry[sm->ncarry - 1]);
			if (q.floor - q.last_number > k)
				sm->carry_viol++;
			sm->carry_t[sm->ncarry] = t;
			sm->carry[sm->ncarry++] = max64(0, q.floor -
			    q.last_number);
			ei++;
		}
		while (ai < sm->narr && arr_t[ai] == t) {
			n = adm_join(&q, NOW0 + t);
			ai++;
			if (n == 0) {
				sm->rejected++;
				if (q.active)
					sm->badrej++;
				continue;
			}
			if (!q.active)
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
		pred = n <= 100 ? join_t[n] :
		    max64(join_t[n], t0 + (n - 100) * 100);
		if (adm_t[n] != pred)
			bad++;
	}
	is_int(bad, 0, "%s: numbers 1..20000 admitted exactly at max(join, "
	    "T + (n-100)*100 ms); #20000 at %lld ms", sm.name,
	    (long long)adm_t[20000]);
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
		{ 3601000, 3700000 }, { 3705000, 3705001 },
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
		for (k = 0; k < sm.narr; k++)
			if (arr_t[k] >= pz[i][0] && arr_t[k] < pz[i][1])
				refused++;
		for (n = 1; n <= sm.issued; n++)
			if (adm_t[n] > pz[i][0] && adm_t[n] < pz[i][1])
				inside++;
	}
	is_int(sm.rejected, refused, "%s: refused exactly the %lld "
	    "arrivals during pauses", sm.name, (long long)refused);
	is_int(inside, 0, "%s: no admission strictly inside a pause",
	    sm.name);
	c = count_adm(&sm, 90001, 150001);
	is_int(c, 600, "%s: (90 s, 150 s] after resume: 600 admissions at "
	    "r=600", sm.name);
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

int
main(void)
{

	test_burst();
	test_serving();
	test_init();
	test_cancel_opening();
	test_join();
	test_status();
	test_continuity();
	test_claim();
	sim_steady();
	sim_spikes();
	sim_rates();
	sim_pauses();
	sim_idle_cuts();
	return done_testing();
}
