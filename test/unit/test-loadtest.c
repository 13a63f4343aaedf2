/*
 * test-loadtest.c - the load tests' pure parts (loadtest.c): the
 * log-linear histogram (bucket edges, percentiles against a sorted
 * array of the same values, never below the true value and at most
 * 1/64 above), the request check against the installation's limits,
 * and the regression rule (median + 3 MAD and 20 %, at least three
 * earlier runs, an absolute floor) with exact values.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "loadtest.h"
#include "tap.h"

static void
test_buckets(void)
{
	size_t		 i, bad = 0;
	uint64_t	 v;

	/* Below 128 every value has a bucket of its own. */
	is_int(lt_hist_bucket(0), 0, "bucket of 0");
	is_int(lt_hist_bucket(127), 127, "bucket of 127");
	is_int(lt_hist_bucket_high(127), 127, "127 holds only 127");
	/* 128..129 share one (7 significant bits: steps of 2 from 128). */
	is_int(lt_hist_bucket(128), 128, "bucket of 128");
	is_int(lt_hist_bucket(129), 128, "129 with 128");
	is_int(lt_hist_bucket(130), 129, "130 next");
	is_int(lt_hist_bucket_high(128), 129, "bucket 128 ends at 129");
	is_int(lt_hist_bucket(256), 192, "256: the next octave");
	is_int(lt_hist_bucket_high(192), 259, "256's bucket ends at 259");
	is_int(lt_hist_bucket((UINT64_C(1) << 40) - 1), LT_HIST_BUCKETS - 1,
	    "the largest value: the last bucket");
	is_int(lt_hist_bucket(UINT64_C(1) << 50), LT_HIST_BUCKETS - 1,
	    "a larger one is clamped");
	/* Every bucket's values map back to it and its width is <= 1/64. */
	for (i = 1; i < LT_HIST_BUCKETS; i++) {
		v = lt_hist_bucket_high(i - 1) + 1;
		if (lt_hist_bucket(v) != i ||
		    lt_hist_bucket(lt_hist_bucket_high(i)) != i ||
		    (lt_hist_bucket_high(i) - v) * 64 > v)
			bad++;
	}
	is_int(bad, 0, "buckets are contiguous, each within 1/64");
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_percentiles(void)
{
	static struct lt_hist	 h, g;
	static uint64_t		 v[10000];
	static const unsigned	 pm[] = { 1, 500, 950, 990, 999, 1000 };
	uint64_t		 got, want;
	size_t			 i, k, n = sizeof(v) / sizeof(v[0]), bad = 0;
	unsigned		 seed = 7;

	lt_hist_reset(&h);
	is_int(lt_hist_permille(&h, 500), 0, "an empty histogram: 0");
	lt_hist_add(&h, 1000);
	is_int(lt_hist_permille(&h, 990), 1000, "one value: itself (max)");
	lt_hist_reset(&h);
	for (i = 1; i <= 100; i++)
		lt_hist_add(&h, i);
	is_int(lt_hist_permille(&h, 500), 50, "1..100: median 50");
	is_int(lt_hist_permille(&h, 950), 95, "1..100: p95 95");
	is_int(lt_hist_permille(&h, 990), 99, "1..100: p99 99");
	is_int(lt_hist_permille(&h, 1000), 100, "1..100: max 100");
	/* Random latencies from 50 us to about 2 s, log-spread. */
	lt_hist_reset(&h);
	lt_hist_reset(&g);
	for (i = 0; i < n; i++) {
		v[i] = 50 + ((uint64_t)rand_r(&seed) % 1000) *
		    ((uint64_t)1 << (rand_r(&seed) % 12));
		if (i % 2 == 0)
			lt_hist_add(&h, v[i]);
		else
			lt_hist_add(&g, v[i]);
	}
	lt_hist_merge(&h, &g);
	is_int(h.total, n, "merged: every value counted");
	qsort(v, n, sizeof(v[0]), cmp_u64);
	is_int(h.max, v[n - 1], "merged: the largest value");
	for (k = 0; k < sizeof(pm) / sizeof(pm[0]); k++) {
		want = v[(n * pm[k] + 999) / 1000 - 1];
		got = lt_hist_permille(&h, pm[k]);
		if (got < want || (got - want) * 64 > want) {
			bad++;
			diag("permille %u: got %llu, true %llu", pm[k],
			    (unsigned long long)got, (unsigned long long)want);
		}
	}
	is_int(bad, 0, "percentiles within 1/64 above the true value");
}

static void
test_check(void)
{
	struct cfg	 c;
	const char	*rule = NULL;

	memset(&c, 0, sizeof(c));
	c.loadtest_max_rate = 2000;
	c.loadtest_max_duration_s = 600;
	ok(lt_check(&c, "mix", 1, 1, &rule) == NULL, "mix 1/s 1 s");
	ok(lt_check(&c, "status", 2000, 600, &rule) == NULL, "the limits");
	ok(lt_check(&c, "join", 50, 30, &rule) == NULL, "join");
	is_str(lt_check(&c, "Mix", 1, 1, &rule), "profile", "case matters");
	is_str(lt_check(&c, "", 1, 1, &rule), "profile", "empty profile");
	is_str(lt_check(&c, NULL, 1, 1, &rule), "profile", "no profile");
	is_str(lt_check(&c, "mix", 0, 1, &rule), "ratePerSecond", "rate 0");
	is_str(lt_check(&c, "mix", 2001, 1, &rule), "ratePerSecond",
	    "rate above loadtest-max-rate");
	is_str(lt_check(&c, "mix", 10, 0, &rule), "durationSeconds",
	    "duration 0");
	is_str(lt_check(&c, "mix", 10, 601, &rule), "durationSeconds",
	    "duration above loadtest-max-duration");
	ok(rule != NULL && strstr(rule, "loadtest-max-duration") != NULL,
	    "the rule names the setting");
}

static void
test_regressed(void)
{
	int64_t	 p[LT_PRIOR_MAX], med;

	/* Fewer than three earlier runs: never flagged. */
	p[0] = 1000;
	p[1] = 1000;
	ok(!lt_regressed(p, 2, 1000000, 1000, &med), "two runs: no flag");
	/* 10, 11, 12, 13, 30 ms: median 12, MAD 1 -> above 15 and 14.4. */
	p[0] = 13000; p[1] = 10000; p[2] = 30000; p[3] = 12000; p[4] = 11000;
	ok(lt_regressed(p, 5, 15001, 1000, &med), "15.001 ms is flagged");
	is_int(med, 12000, "the median");
	p[0] = 13000; p[1] = 10000; p[2] = 30000; p[3] = 12000; p[4] = 11000;
	ok(!lt_regressed(p, 5, 15000, 1000, &med), "15 ms is not (= m+3MAD)");
	/* A noisy history: 10, 20, 30 ms (MAD 10): 45 ms is within. */
	p[0] = 10000; p[1] = 20000; p[2] = 30000;
	ok(!lt_regressed(p, 3, 45000, 1000, &med), "noisy: 45 ms not flagged");
	p[0] = 10000; p[1] = 20000; p[2] = 30000;
	ok(lt_regressed(p, 3, 50001, 1000, &med), "noisy: 50.001 ms flagged");
	/* Identical runs (MAD 0): the 20 % rule and the floor decide. */
	p[0] = p[1] = p[2] = 10000;
	ok(!lt_regressed(p, 3, 11999, 1000, &med), "+19.99 percent: no flag");
	p[0] = p[1] = p[2] = 10000;
	ok(lt_regressed(p, 3, 12000, 1000, &med), "+20 percent: flagged");
	p[0] = p[1] = p[2] = 1000;
	ok(!lt_regressed(p, 3, 1999, 1000, &med), "below the 1 ms floor");
	p[0] = p[1] = p[2] = 1000;
	ok(lt_regressed(p, 3, 2000, 1000, &med), "at the floor: flagged");
	/* Error rates: 0 errors before, one in a million now: no flag. */
	p[0] = p[1] = p[2] = 0;
	ok(!lt_regressed(p, 3, 1, LT_FLOOR_ERR_PPM, &med), "1 ppm: no flag");
	p[0] = p[1] = p[2] = 0;
	ok(lt_regressed(p, 3, 10000, LT_FLOOR_ERR_PPM, &med),
	    "1 percent: flagged");
}

static void
test_schedules(void)
{
	/* Thursday 2026-12-03 15:00 UTC (16:00 in Madrid). */
	const int64_t	 a = 1796310000000LL;
	const char	*tz = getenv("TZ");
	char		 tz0[128];

	snprintf(tz0, sizeof(tz0), "%s", tz != NULL ? tz : "(unset)");

	ok(lt_zone_valid("Europe/Madrid") && lt_zone_valid("UTC") &&
	    lt_zone_valid("America/New_York"), "IANA zones of the system");
	ok(!lt_zone_valid("Mars/Olympus") && !lt_zone_valid("") &&
	    !lt_zone_valid(NULL) && !lt_zone_valid("../../etc/passwd") &&
	    !lt_zone_valid("/etc/localtime") && !lt_zone_valid("Europe") &&
	    !lt_zone_valid("Europe/") && !lt_zone_valid("Europe//Madrid") &&
	    !lt_zone_valid("Europe/Madrid\n") &&
	    !lt_zone_valid("Europe/Madrid;rm"), "no other names, no paths");
	is_int(lt_weekday("sunday"), 0, "sunday 0");
	is_int(lt_weekday("saturday"), 6, "saturday 6");
	is_int(lt_weekday("Monday"), -1, "Monday: lower case only");
	is_int(lt_hhmm("00:00"), 0, "00:00");
	is_int(lt_hhmm("23:59"), 1439, "23:59");
	is_int(lt_hhmm("24:00"), -1, "24:00 refused");
	is_int(lt_hhmm("9:00"), -1, "9:00 refused (HH:MM)");
	is_int(lt_hhmm("09:60"), -1, "09:60 refused");
	is_int(lt_hhmm(NULL), -1, "NULL refused");
	/* Exact values (Python's zoneinfo computed them). */
	is_int(lt_next_weekly(a, 1, 9 * 60, "Europe/Madrid"),
	    1796630400000LL, "Monday 09:00 Madrid: 2026-12-07T08:00Z");
	is_int(lt_next_weekly(a, 4, 16 * 60 + 30, "Europe/Madrid"),
	    1796311800000LL, "Thursday 16:30 Madrid: today, 15:30Z");
	is_int(lt_next_weekly(a, 4, 15 * 60 + 59, "Europe/Madrid"),
	    1796914740000LL, "Thursday 15:59 Madrid: passed, next week");
	is_int(lt_next_weekly(a, 4, 16 * 60, "Europe/Madrid"),
	    a + 7 * 86400000LL, "exactly now: next week (strictly after)");
	is_int(lt_next_weekly(a, 1, 9 * 60, "America/New_York"),
	    1796652000000LL, "Monday 09:00 New York: 14:00Z");
	is_int(lt_next_weekly(a, 4, 0, "UTC"), 1796860800000LL,
	    "Thursday 00:00 UTC: next week");
	/* Daylight saving time in Madrid, 2026. */
	is_int(lt_next_weekly(1774396800000LL, 0, 150, "Europe/Madrid"),
	    1774747800000LL, "29 March 02:30 does not exist: 01:30Z");
	is_int(lt_next_weekly(1792454400000LL, 0, 150, "Europe/Madrid"),
	    1792888200000LL, "25 October 02:30 twice: the first, 00:30Z");
	is_int(lt_next_weekly(a, 7, 0, "UTC"), -1, "weekday 7 refused");
	is_int(lt_next_weekly(a, 1, 1440, "UTC"), -1, "minute 1440 refused");
	is_int(lt_next_weekly(a, 1, 0, "Mars/Olympus"), -1, "unknown zone");
	tz = getenv("TZ");
	is_str(tz != NULL ? tz : "(unset)", tz0, "TZ as it was");
	/* Intervals: the next step, missed ones not made up. */
	is_int(lt_next_every(1000000, 1000001, 60), 1000000 + 3600000,
	    "due, now just after: one hour on");
	is_int(lt_next_every(1000000, 1000000 + 3 * 3600000 + 5, 60),
	    1000000 + 4 * 3600000, "three hours missed: the next step "
	    "after now, once");
}

/* The out-parameters of lt_replay_plan() in test_replay(). */
#define P	&due, &n, &dur, &peak

static void
test_replay(void)
{
	const int64_t	 t[] = { 1000, 11000, 21000 };
	const int64_t	 iss[] = { 5, 45, 65 };
	const int64_t	 t2[] = { 0, 1000, 2000, 3000 };
	const int64_t	 iss2[] = { 0, 3, 6, 9 };
	const int64_t	 back[] = { 10, 4 };
	int64_t		*due = NULL, dur, peak;
	size_t		 n, i, bad = 0;

	/* 40 joins in 10 s, then 20 in 10 s, five times faster. */
	ok(lt_replay_plan(t, iss, 3, 5.0, 1.0, 1000, P) == 0,
	    "a plan");
	is_int(n, 60, "every join");
	is_int(dur, 4000, "20 s five times faster: 4 s");
	is_int(peak, 20, "the busiest second: 20 joins");
	is_int(due[0], 25000, "the first: half a step in");
	is_int(due[39], 1975000, "the 40th: the end of the first 2 s");
	is_int(due[40], 2050000, "the 41st: the second interval");
	is_int(due[59], 3950000, "the last");
	for (i = 1; i < n; i++)
		if (due[i] <= due[i - 1])
			bad++;
	is_int(bad, 0, "increasing");
	free(due);
	ok(lt_replay_plan(t, iss, 3, 1.0, 0.5, 1000, P) == 0 &&
	    n == 30 && dur == 20000 && peak == 2, "half the volume, real time: "
	    "30 joins in 20 s, 2 in the busiest second (%zu, %lld, %lld)", n,
	    (long long)dur, (long long)peak);
	free(due);
	/* Fractions carry: 3 joins a second at a quarter: 0.75, 1.5, 2.25. */
	ok(lt_replay_plan(t2, iss2, 4, 1.0, 0.25, 1000, P) ==
	    0 && n == 2 && due[0] == 1500000 && due[1] == 2500000,
	    "fractions carried over: 2 joins, at 1.5 s and 2.5 s");
	free(due);
	/* A number that went down (a reset) counts as no join. */
	ok(lt_replay_plan(t2, back, 2, 1.0, 1.0, 1000, P) ==
	    0 && n == 0, "a decrease: no join");
	free(due);
	ok(lt_replay_plan(t, iss, 1, 1.0, 1.0, 1000, P) == -1,
	    "one sample: no plan");
	ok(lt_replay_plan(t, iss, 3, 0.0, 1.0, 1000, P) == -1,
	    "speed 0: no plan");
	due = NULL;
	is_int(lt_replay_plan(t, iss, 3, 1.0, 1000.0, 59999, &due, &n, &dur,
	    &peak), -2, "60000 joins above 59999: refused");
	ok(due == NULL, "... with nothing allocated");
}

int
main(void)
{
	test_buckets();
	test_percentiles();
	test_check();
	test_regressed();
	test_schedules();
	test_replay();
	return done_testing();
}
