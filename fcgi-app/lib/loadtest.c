/*
 * loadtest.c - the load tests' histogram, their request check and the
 * regression rule (see loadtest.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "loadtest.h"

#define HIST_TOP	((UINT64_C(1) << 40) - 1)

size_t
lt_hist_bucket(uint64_t v)
{
	unsigned	 b, s;

	if (v > HIST_TOP)
		v = HIST_TOP;
	if (v < 2 * LT_HIST_SUB)
		return (size_t)v;
	b = 63u - (unsigned)__builtin_clzll(v);	/* 7 .. 39 */
	s = b - 6u;				/* 1 .. 33 */
	return 2 * LT_HIST_SUB + (size_t)(s - 1) * LT_HIST_SUB +
	    (size_t)((v >> s) - LT_HIST_SUB);
}

uint64_t
lt_hist_bucket_high(size_t i)
{
	unsigned	 s;
	uint64_t	 m;

	if (i < 2 * LT_HIST_SUB)
		return (uint64_t)i;
	i -= 2 * LT_HIST_SUB;
	s = (unsigned)(i / LT_HIST_SUB) + 1u;
	m = LT_HIST_SUB + (uint64_t)(i % LT_HIST_SUB);
	return ((m + 1) << s) - 1;
}

void
lt_hist_reset(struct lt_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void
lt_hist_add(struct lt_hist *h, uint64_t v)
{
	if (v > HIST_TOP)
		v = HIST_TOP;
	h->count[lt_hist_bucket(v)]++;
	h->total++;
	if (v > h->max)
		h->max = v;
}

void
lt_hist_merge(struct lt_hist *to, const struct lt_hist *from)
{
	size_t	 i;

	for (i = 0; i < LT_HIST_BUCKETS; i++)
		to->count[i] += from->count[i];
	to->total += from->total;
	if (from->max > to->max)
		to->max = from->max;
}

uint64_t
lt_hist_permille(const struct lt_hist *h, unsigned permille)
{
	uint64_t	 want, seen = 0, high;
	size_t		 i;

	if (h->total == 0)
		return 0;
	if (permille > 1000)
		permille = 1000;
	/* The rank of the value: ceil(total * permille / 1000), >= 1. */
	want = (h->total * permille + 999) / 1000;
	if (want == 0)
		want = 1;
	for (i = 0; i < LT_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want) {
			high = lt_hist_bucket_high(i);
			return high < h->max ? high : h->max;
		}
	}
	return h->max;
}

int
lt_profile_valid(const char *name)
{
	return strcmp(name, "mix") == 0 || strcmp(name, "status") == 0 ||
	    strcmp(name, "join") == 0;
}

const char *
lt_check(const struct cfg *c, const char *profile, int64_t rate,
    int64_t duration_s, const char **rule)
{
	if (profile == NULL || !lt_profile_valid(profile)) {
		*rule = "profile must be mix, status or join";
		return "profile";
	}
	if (rate < LT_RATE_MIN || rate > c->loadtest_max_rate) {
		*rule = "ratePerSecond must be an integer from 1 to this "
		    "installation's loadtest-max-rate (2000 unless set)";
		return "ratePerSecond";
	}
	if (duration_s < LT_DURATION_MIN ||
	    duration_s > c->loadtest_max_duration_s) {
		*rule = "durationSeconds must be an integer from 1 to this "
		    "installation's loadtest-max-duration (600 unless set)";
		return "durationSeconds";
	}
	return NULL;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of the n (> 0) values of v, which are sorted. */
static int64_t
median_of(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 == 1 ? v[n / 2] : v[n / 2 - 1] +
	    (v[n / 2] - v[n / 2 - 1]) / 2;
}

int
lt_regressed(int64_t *prior, size_t n, int64_t value, int64_t floor,
    int64_t *median)
{
	int64_t	 dev[LT_PRIOR_MAX], med, mad;
	size_t	 i;

	*median = 0;
	if (n < LT_PRIOR_MIN)
		return 0;
	if (n > LT_PRIOR_MAX)
		n = LT_PRIOR_MAX;
	med = median_of(prior, n);
	for (i = 0; i < n; i++)
		dev[i] = prior[i] > med ? prior[i] - med : med - prior[i];
	mad = median_of(dev, n);
	*median = med;
	return value > med + 3 * mad && value * 5 >= med * 6 &&
	    value - med >= floor;
}

int
lt_replay_plan(const int64_t *t_ms, const int64_t *issued, size_t n,
    double speed, double volume, size_t max_joins, int64_t **due_us,
    size_t *njoins, int64_t *duration_ms, int64_t *peak)
{
	int64_t		*v = NULL, *nv, start, len, sec, run = 0, best = 0;
	size_t		 i, k, c, cap = 0, m = 0, j;
	double		 acc = 0.0, d, total = 0.0;

	*due_us = NULL;
	*njoins = 0;
	*duration_ms = 0;
	*peak = 0;
	if (n < 2 || !(speed > 0.0) || !(volume > 0.0))
		return -1;
	/* The joins first: nothing is allocated for a plan too big. */
	for (i = 0; i + 1 < n; i++)
		if (t_ms[i + 1] > t_ms[i] && issued[i + 1] > issued[i])
			total += (double)(issued[i + 1] - issued[i]) * volume;
	if (total > (double)max_joins)
		return -2;
	for (i = 0; i + 1 < n; i++) {
		if (t_ms[i + 1] <= t_ms[i])
			continue;
		d = issued[i + 1] > issued[i] ?
		    (double)(issued[i + 1] - issued[i]) : 0.0;
		acc += d * volume;
		c = (size_t)acc;
		acc -= (double)c;
		start = (int64_t)((double)(t_ms[i] - t_ms[0]) * 1000.0 / speed);
		len = (int64_t)((double)(t_ms[i + 1] - t_ms[i]) * 1000.0 /
		    speed);
		if (m + c > cap) {
			cap = (m + c) * 2 + 16;
			if ((nv = try_reallocarray(v, cap, sizeof(*v))) ==
			    NULL) {
				free(v);
				return -1;
			}
			v = nv;
		}
		for (k = 0; k < c; k++)
			v[m++] = start + (int64_t)(((double)k + 0.5) *
			    (double)len / (double)c);
	}
	/* The busiest second: a window over the sorted due times. */
	for (i = 0, j = 0; i < m; i++) {
		sec = v[i] / 1000000;
		while (v[j] / 1000000 < sec)
			j++;
		run = (int64_t)(i - j + 1);
		if (run > best)
			best = run;
	}
	*due_us = v;
	*njoins = m;
	*duration_ms = (int64_t)((double)(t_ms[n - 1] - t_ms[0]) / speed);
	*peak = best;
	return 0;
}
