/*
 * test-draw.c - unit tests for fcgi-app/lib/draw.c and the scheduled opening
 * in admission.c: the permutation is a bijection for pre-queues of 1,
 * 2, 1,000 and 1,000,000; a fixed vector (the same that
 * tools/verify-draw.py prints); uniformity by chi-square over many
 * seeds; positions before and after the draw; the opening times; the
 * held serving number before the opening and the join that closes the
 * pre-queue.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "aqueue.h"
#include "draw.h"
#include "isotime.h"
#include "tap.h"

/*
 * Whether this runs under valgrind (its preload library is in the
 * environment): then the heavy cases (a million HMAC rounds, thousands
 * of seeds), which the native run of this program asserts, are left out
 * of the memory check, which would take many minutes for them.
 */
static int
under_valgrind(void)
{
	const char	*p = getenv("LD_PRELOAD");

	return p != NULL && strstr(p, "vgpreload") != NULL;
}

/* Seed number i: bytes 0..31 plus i in the first four. */
static void
seed_of(uint32_t i, uint8_t seed[DRAW_SEED_LEN])
{
	int	 k;

	for (k = 0; k < DRAW_SEED_LEN; k++)
		seed[k] = (uint8_t)k;
	seed[0] ^= (uint8_t)(i >> 24);
	seed[1] ^= (uint8_t)(i >> 16);
	seed[2] ^= (uint8_t)(i >> 8);
	seed[3] ^= (uint8_t)i;
}

/* Whether pi over [0, p) under seed hits every index exactly once. */
static void
bijection(int64_t p)
{
	uint8_t		 seed[DRAW_SEED_LEN], *seen;
	int64_t		 x, y, hits = 0, bad = 0;
	struct draw_ctx	*d;

	seed_of(7, seed);
	seen = calloc((size_t)p, 1);
	d = draw_ctx_new(seed);
	for (x = 0; x < p; x++) {
		y = draw_ctx_pi(d, p, x);
		if (y < 0 || y >= p || seen[y])
			bad++;
		else {
			seen[y] = 1;
			hits++;
		}
	}
	is_int(bad, 0, "P = %lld: no index out of range or hit twice",
	    (long long)p);
	is_int(hits, p, "P = %lld: every index hit once", (long long)p);
	is_int(draw_ctx_pi(d, p, p / 2), draw_pi(seed, p, p / 2),
	    "P = %lld: the keyed context and draw_pi() agree", (long long)p);
	draw_ctx_free(d);
	free(seen);
}

static void
test_bijection(void)
{
	bijection(1);
	bijection(2);
	bijection(3);
	bijection(1000);
	if (under_valgrind())
		printf("# under valgrind: P = 1000000 is checked natively\n");
	else
		bijection(1000000);
	is_int(draw_pi((const uint8_t *)"0123456789abcdef0123456789abcdef",
	    0, 0), -1, "P = 0 is refused");
	is_int(draw_pi((const uint8_t *)"0123456789abcdef0123456789abcdef",
	    5, 5), -1, "x = P is refused");
}

/*
 * The positions of numbers 1..10 under seed bytes 0..31 with P = 10,
 * as tools/verify-draw.py computes them (test/http checks the script
 * against the server too).
 */
static void
test_vector(void)
{
	static const int64_t	 want[10] = { 6, 2, 9, 1, 7, 3, 4, 10, 8,
	    5 };
	uint8_t			 seed[DRAW_SEED_LEN];
	char			 hex[DRAW_HASH_HEX + 1];
	int64_t			 n;

	seed_of(0, seed);
	for (n = 1; n <= 10; n++)
		is_int(draw_position(seed, 10, n), want[n - 1],
		    "vector: position of number %lld", (long long)n);
	is_int(draw_position(seed, 10, 11), 11, "number 11 > P keeps 11");
	is_int(draw_position(seed, 10, 0), -1, "number 0 is refused");
	is_int(draw_seed_hash(seed, hex), 0, "seed hash");
	is_str(hex, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b85"
	    "81bd710dd", "SHA-256 of bytes 0..31 (FIPS 180-4)");
}

/*
 * Over 4000 seeds, where number x (of P = 8) lands: each of the 64
 * cells expects 500.  Chi-square with (8 - 1)^2 = 49 degrees of
 * freedom: 85.35 is its 0.999 quantile.  And the first number of
 * P = 1000 over 2000 seeds lands in each tenth about 200 times (9
 * degrees of freedom, 0.999 quantile 27.88).
 */
static void
test_uniform(void)
{
	uint8_t		 seed[DRAW_SEED_LEN];
	int64_t		 cell[8][8], tenth[10];
	double		 chi = 0, d;
	uint32_t	 s;
	int		 x, y;
	struct draw_ctx	*dc;

	memset(cell, 0, sizeof(cell));
	for (s = 0; s < 4000; s++) {
		seed_of(1000 + s, seed);
		dc = draw_ctx_new(seed);
		for (x = 0; x < 8; x++)
			cell[x][draw_ctx_pi(dc, 8, x)]++;
		draw_ctx_free(dc);
	}
	for (x = 0; x < 8; x++)
		for (y = 0; y < 8; y++) {
			d = (double)cell[x][y] - 500.0;
			chi += d * d / 500.0;
		}
	printf("# chi-square P = 8: %.2f\n", chi);
	ok(chi < 85.35, "P = 8 over 4000 seeds: chi-square %.2f < 85.35",
	    chi);
	memset(tenth, 0, sizeof(tenth));
	for (s = 0; s < 2000; s++) {
		seed_of(90000 + s, seed);
		tenth[draw_pi(seed, 1000, 0) / 100]++;
	}
	chi = 0;
	for (x = 0; x < 10; x++) {
		d = (double)tenth[x] - 200.0;
		chi += d * d / 200.0;
	}
	printf("# chi-square P = 1000, first number: %.2f\n", chi);
	ok(chi < 27.88, "P = 1000, number 1 over 2000 seeds: chi-square "
	    "%.2f < 27.88", chi);
}

static void
test_queue_position(void)
{
	struct adm_queue	 q;
	uint8_t			 seed[DRAW_SEED_LEN];
	int64_t			 n, sum = 0, t = 1000000;

	seed_of(0, seed);
	memset(&q, 0, sizeof(q));
	is_int(draw_queue_position(&q, seed, 1, 3, t), 3,
	    "no opening: 3 is 3");
	q.opens_at_ms = t + 1000;
	q.draw_open = 1;
	q.last_number = 5;
	is_int(draw_queue_position(&q, seed, 1, 5, t), -1,
	    "collecting: 5 has no place yet");
	is_int(draw_queue_position(&q, seed, 1, 6, t), 6,
	    "collecting: 6 (not issued) is 6");
	is_int(draw_queue_position(&q, seed, 1, 5, t + 1000), -1,
	    "at the opening, while it holds: no place from this copy yet");
	for (n = 1; n <= 5; n++)
		sum += draw_queue_position(&q, seed, 1, n,
		    t + 1000 + ADM_TICK_MS);
	is_int(sum, -5, "the hold over, the row not closed in this copy: "
	    "no place yet (a join timed before the opening may still land)");
	q.draw_open = 0;
	q.draw_count = 5;
	q.last_number = 9;
	for (n = 1, sum = 0; n <= 5; n++)
		sum += draw_queue_position(&q, seed, 1, n, t + 2000);
	is_int(sum, 15, "closed: 1..5 take the places 1..5");
	is_int(draw_queue_position(&q, seed, 1, 6, t + 2000), 6,
	    "closed: 6 keeps 6");
	is_int(draw_queue_position(&q, seed, 0, 2, t + 2000), -1,
	    "drawn, no seed here: no place");
}

/*
 * The random order's positions (queuing method random): numbers 5..18
 * in blocks of 7 from 5, under key bytes 0..31, as an independent
 * Python computation gives them (tools/verify-draw.py's pi() under
 * each block's seed HMAC-SHA256(key, "aditus-random" || start)).
 */
static void
test_order_position(void)
{
	static const int64_t	 want[14] = { 5, 9, 11, 6, 8, 10, 7, 18, 12,
	    16, 13, 15, 14, 17 };
	struct adm_queue	 q;
	uint8_t			 key[DRAW_SEED_LEN];
	int64_t			 n;

	seed_of(0, key);
	memset(&q, 0, sizeof(q));
	q.rand_from = 5;
	q.rand_block = 7;
	for (n = 5; n <= 18; n++)
		is_int(draw_order_position(&q, key, n), want[n - 5],
		    "random order: position of number %lld", (long long)n);
	is_int(draw_order_position(&q, key, 4), 4, "before it: 4 is 4");
	is_int(draw_order_position(&q, key, 0), -1, "number 0 is refused");
	q.rand_to = 12;
	is_int(draw_order_position(&q, key, 12), 12, "ended: 12 is 12");
	is_int(draw_order_position(&q, key, 11), 7, "ended: 11's block "
	    "keeps its order");
}

static void
test_times(void)
{
	int64_t	 ms = 0;
	char	 buf[ISO_TIME_LEN + 1];

	is_int(iso_time_parse("2026-12-01T09:00:00Z", &ms), 0, "ISO Z");
	is_int(ms, 1796115600000LL, "ISO Z value");
	ms = 0;
	is_int(iso_time_parse("2026-12-01T10:00+01:00", &ms), 0,
	    "ISO +01:00 without seconds");
	is_int(ms, 1796115600000LL, "ISO +01:00 value");
	is_int(iso_time_parse("2026-12-01T08:59:59.5-00:00", &ms), 0,
	    "ISO with a fraction");
	is_int(ms, 1796115599500LL, "ISO fraction value");
	is_int(iso_time_parse("1796115600000", &ms), 0, "Unix ms");
	is_int(ms, 1796115600000LL, "Unix ms value");
	is_int(iso_time_parse("2026-12-01T09:00:00", &ms), -1,
	    "no zone: refused");
	is_int(iso_time_parse("2026-02-29T09:00:00Z", &ms), -1,
	    "29 February 2026: refused");
	is_int(iso_time_parse("2028-02-29T09:00:00Z", &ms), 0,
	    "29 February 2028: taken");
	is_int(iso_time_parse("2026-12-01 09:00:00Z", &ms), -1,
	    "space for T: refused");
	is_int(iso_time_parse("", &ms), -1, "empty: refused");
	is_int(iso_time_parse("-5", &ms), -1, "negative: refused");
	iso_time_format(1796115599500LL, buf, sizeof(buf));
	is_str(buf, "2026-12-01T08:59:59.500Z", "formatted");
}

static void
test_opening(void)
{
	struct adm_queue	 q;
	struct adm_change	 c;
	int64_t			 t0 = 1000000, open = t0 + 60000, n;
	int			 adm;

	adm_init_opening(&q, 60, 0, t0, open);
	is_int(adm_serving(&q, t0), 0, "created with an opening: serving 0");
	ok(adm_prequeue(&q, t0), "the pre-queue collects");
	for (n = 1; n <= 20; n++)
		is_int(adm_join(&q, t0 + n * 1000, &adm), n,
		    "pre-queue join %lld", (long long)n);
	is_int(adm_serving(&q, open - 1), 0, "serving 0 just before");
	is_int(q.draw_open, 1, "still collecting before the opening");
	is_int(adm_serving(&q, open + ADM_TICK_MS), 0,
	    "serving 0 at the opening + ADM_TICK_MS");
	is_int(adm_serving(&q, open + ADM_TICK_MS + 5000), 5,
	    "5 s later: 5 at 60/min");
	is_int(adm_join(&q, open + 5000, &adm), 21, "the first join after");
	is_int(q.draw_open, 0, "it closed the pre-queue");
	is_int(q.draw_count, 20, "P = 20");
	is_int(adm_join(&q, open + 6000, &adm), 22, "next join");
	is_int(q.draw_count, 20, "P stays 20");
	/* A rate change while collecting keeps serving held. */
	adm_init_opening(&q, 60, 0, t0, open);
	adm_change_init(&q, t0 + 1000, &c);
	c.rate = 120;
	adm_schedule(&q, t0 + 1000, &c);
	is_int(adm_serving(&q, open - 1), 0, "rate change: still 0");
	is_int(adm_serving(&q, open + ADM_TICK_MS + 1000), 2,
	    "then 120/min from the opening + ADM_TICK_MS");
	adm_change_init(&q, t0 + 2000, &c);
	c.active = 0;
	adm_schedule(&q, t0 + 2000, &c);
	adm_change_init(&q, t0 + 3000, &c);
	c.active = 1;
	adm_schedule(&q, t0 + 3000, &c);
	is_int(adm_serving(&q, open - 1), 0, "pause and resume: still 0");
	is_int(adm_serving(&q, open + ADM_TICK_MS + 1000), 2,
	    "and grows from the opening + ADM_TICK_MS");
}

int
main(void)
{
	test_bijection();
	test_vector();
	if (under_valgrind())
		printf("# under valgrind: uniformity is checked natively\n");
	else
		test_uniform();
	test_queue_position();
	test_order_position();
	test_times();
	test_opening();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
