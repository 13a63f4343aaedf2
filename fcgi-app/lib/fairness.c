/*
 * fairness.c - the fairness report (see fairness.h).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "db.h"
#include "db-worker.h"
#include "fairness.h"
#include "log.h"

struct samples {
	struct fair_sample	*v;
	size_t			 n, cap;
};

struct served {
	int64_t		*num;
	size_t		 n, cap;
};

/* Append to a growing array of elements of size sz; -1 out of memory. */
static int
grow(void **v, size_t *n, size_t *cap, size_t sz)
{
	void	*nv;

	if (*n < *cap)
		return 0;
	*cap = *cap == 0 ? 256 : *cap * 2;
	if ((nv = try_malloc(*cap * sz)) == NULL)
		return -1;
	if (*n > 0)
		memcpy(nv, *v, *n * sz);
	free(*v);
	*v = nv;
	return 0;
}

static int
sample_row(const struct fair_sample *s, void *arg)
{
	struct samples	*a = arg;

	if (grow((void **)&a->v, &a->n, &a->cap, sizeof(*a->v)) == -1)
		return -1;
	a->v[a->n] = *s;
	/* Counts never go down; a sample that does (a clock step) is held. */
	if (a->n > 0 && a->v[a->n].issued < a->v[a->n - 1].issued)
		a->v[a->n].issued = a->v[a->n - 1].issued;
	if (a->n > 0 && a->v[a->n].serving < a->v[a->n - 1].serving)
		a->v[a->n].serving = a->v[a->n - 1].serving;
	a->n++;
	return 0;
}

static int
served_row(int64_t number, int64_t served_ms, void *arg)
{
	struct served	*a = arg;

	(void)served_ms;
	if (grow((void **)&a->num, &a->n, &a->cap, sizeof(*a->num)) == -1)
		return -1;
	a->num[a->n++] = number;
	return 0;
}

/* The admitted count of sample s: min(serving, issued). */
static int64_t
admitted(const struct fair_sample *s)
{
	return s->serving < s->issued ? s->serving : s->issued;
}

/*
 * The time count reached n, linear between samples: *i is the first
 * sample with count >= n (advanced, never moved back: n rises).
 * Returns -1 when n was reached before the first sample or not yet.
 */
static double
reached(const struct samples *s, size_t *i, int64_t n, int adm)
{
	int64_t	 c0, c1;

	while (*i < s->n && (adm ? admitted(&s->v[*i]) : s->v[*i].issued) < n)
		(*i)++;
	if (*i == 0 || *i >= s->n)
		return -1;
	c0 = adm ? admitted(&s->v[*i - 1]) : s->v[*i - 1].issued;
	c1 = adm ? admitted(&s->v[*i]) : s->v[*i].issued;
	return (double)s->v[*i - 1].t_ms + (double)(n - c0) *
	    (double)(s->v[*i].t_ms - s->v[*i - 1].t_ms) / (double)(c1 - c0);
}

static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int64_t
fair_inversions(int64_t *v, int64_t *tmp, size_t n)
{
	size_t	 h, i, j, k;
	int64_t	 inv;

	if (n < 2)
		return 0;
	h = n / 2;
	inv = fair_inversions(v, tmp, h) + fair_inversions(v + h, tmp, n - h);
	for (i = 0, j = h, k = 0; i < h && j < n; )
		if (v[j] < v[i]) {
			inv += (int64_t)(h - i);
			tmp[k++] = v[j++];
		} else
			tmp[k++] = v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
	return inv;
}

/* x rounded to 3 decimals as JSON. */
static struct json_object *
num(double x)
{
	return json_object_new_double(round(x * 1000.0) / 1000.0);
}

/* Add the wait percentiles of the samples' numbers to o. */
static int
add_waits(struct json_object *o, const struct samples *s)
{
	struct json_object	*w;
	double			*v = NULL, j, a;
	int64_t			 first, last, n, stride;
	size_t			 cnt = 0, ij = 0, ia = 0, k;
	static const double	 ps[3] = { 0.50, 0.90, 0.99 };
	static const char *const names[3] = { "p50", "p90", "p99" };

	if ((w = json_object_new_object()) == NULL)
		return -1;
	json_object_object_add(o, "waitSeconds", w);
	first = s->n > 0 ? s->v[0].issued + 1 : 1;
	last = s->n > 0 ? admitted(&s->v[s->n - 1]) : 0;
	stride = last - first + 1 > FAIR_WAITS_MAX ?
	    (last - first) / FAIR_WAITS_MAX + 1 : 1;
	if (last >= first &&
	    (v = try_malloc((size_t)((last - first) / stride + 1) *
	    sizeof(*v))) == NULL)
		return -1;
	for (n = first; n <= last; n += stride) {
		if ((j = reached(s, &ij, n, 0)) < 0 ||
		    (a = reached(s, &ia, n, 1)) < 0)
			continue;
		v[cnt++] = a > j ? (a - j) / 1000.0 : 0.0;
	}
	/* No numbers: v is NULL, which qsort() must not be given. */
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), cmp_double);
	json_object_object_add(w, "count", json_object_new_int64((int64_t)cnt));
	for (k = 0; k < 3; k++)
		json_object_object_add(w, names[k], cnt == 0 ? NULL :
		    num(v[(size_t)ceil(ps[k] * (double)cnt) - 1]));
	free(v);
	return 0;
}

/* Add admissions per minute and the rate, by minute, to o. */
static int
add_minutes(struct json_object *o, const struct samples *s)
{
	struct json_object	*arr, *m;
	double			*adm = NULL, *rate = NULL, f, total_rate = 0;
	int64_t			 m0, nmin, a, b, lo, hi, k;
	size_t			 i;

	if ((arr = json_object_new_array()) == NULL)
		return -1;
	json_object_object_add(o, "minutes", arr);
	if (s->n < 2 || s->v[s->n - 1].t_ms <= s->v[0].t_ms) {
		json_object_object_add(o, "admissionsPerMinute", NULL);
		json_object_object_add(o, "configuredRatePerMinute", NULL);
		return 0;
	}
	m0 = s->v[0].t_ms / 60000 * 60000;
	nmin = (s->v[s->n - 1].t_ms - 1) / 60000 * 60000 / 60000 -
	    m0 / 60000 + 1;
	if (nmin > 100000)
		nmin = 100000;
	adm = try_malloc((size_t)nmin * sizeof(*adm));
	rate = try_malloc((size_t)nmin * sizeof(*rate));
	if (adm == NULL || rate == NULL) {
		free(adm);
		free(rate);
		return -1;
	}
	memset(adm, 0, (size_t)nmin * sizeof(*adm));
	memset(rate, 0, (size_t)nmin * sizeof(*rate));
	/* Each interval's admissions and rate spread over its minutes. */
	for (i = 1; i < s->n; i++) {
		a = s->v[i - 1].t_ms;
		b = s->v[i].t_ms;
		if (b <= a)
			continue;
		total_rate += (double)s->v[i - 1].rate * (double)(b - a);
		for (k = (a - m0) / 60000; k < nmin && m0 + k * 60000 < b;
		    k++) {
			lo = m0 + k * 60000;
			hi = lo + 60000;
			lo = a > lo ? a : lo;
			hi = b < hi ? b : hi;
			f = (double)(hi - lo) / (double)(b - a);
			adm[k] += f * (double)(admitted(&s->v[i]) -
			    admitted(&s->v[i - 1]));
			rate[k] += (double)s->v[i - 1].rate *
			    (double)(hi - lo) / 60000.0;
		}
	}
	for (k = 0; k < nmin; k++) {
		if ((m = json_object_new_object()) == NULL) {
			free(adm);
			free(rate);
			return -1;
		}
		json_object_object_add(m, "minute",
		    json_object_new_int64(m0 + k * 60000));
		json_object_object_add(m, "admitted", num(adm[k]));
		json_object_object_add(m, "ratePerMinute", num(rate[k]));
		json_object_array_add(arr, m);
	}
	f = (double)(s->v[s->n - 1].t_ms - s->v[0].t_ms);
	json_object_object_add(o, "admissionsPerMinute",
	    num((double)(admitted(&s->v[s->n - 1]) - admitted(&s->v[0])) *
	    60000.0 / f));
	json_object_object_add(o, "configuredRatePerMinute",
	    num(total_rate / f));
	free(adm);
	free(rate);
	return 0;
}

/* A served number with its block's first number (qsort). */
struct in_block {
	int64_t	 start;		/* the block's first number */
	size_t	 i;		/* its rank in the served order */
	int64_t	 num;		/* the number */
};

static int
in_block_cmp(const void *a, const void *b)
{
	const struct in_block *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * *out: the report's "randomOrder" when a's queue has one, else NULL:
 * {"from","to",
 * "blockSize","inversionsWithinBlocks"}: the inversions of the served
 * order (num, n entries) between numbers of one block of the random
 * order, which its draw makes; the rest of the report's inversions lie
 * across blocks or outside the order, and so are bent order.  Returns 0
 * or -1 when out of memory.
 */
static int
random_order(const struct adm_queue *a, const int64_t *num, size_t n,
    struct json_object **out)
{
	struct json_object	*r;
	struct in_block		*v = NULL;
	int64_t			*run = NULL, *tmp = NULL, start, size;
	int64_t			 within = 0;
	size_t			 i, j, m = 0;

	*out = NULL;
	if (a->rand_from <= 0)
		return 0;
	if (n > 0 && ((v = try_malloc(n * sizeof(*v))) == NULL ||
	    (run = try_malloc(n * sizeof(*run))) == NULL ||
	    (tmp = try_malloc(n * sizeof(*tmp))) == NULL))
		goto fail;
	for (i = 0; i < n; i++)
		if (adm_order_block(a, num[i], &start, &size)) {
			v[m].start = start;
			v[m].i = i;
			v[m++].num = num[i];
		}
	if (m > 0)
		qsort(v, m, sizeof(*v), in_block_cmp);
	for (i = 0; i < m; i = j) {
		for (j = i; j < m && v[j].start == v[i].start; j++)
			run[j - i] = v[j].num;
		within += fair_inversions(run, tmp, j - i);
	}
	if ((r = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(r, "from", json_object_new_int64(a->rand_from));
	json_object_object_add(r, "to", a->rand_to > 0 ?
	    json_object_new_int64(a->rand_to) : NULL);
	json_object_object_add(r, "blockSize",
	    json_object_new_int64(a->rand_block));
	json_object_object_add(r, "inversionsWithinBlocks",
	    json_object_new_int64(within));
	*out = r;
	free(v);
	free(run);
	free(tmp);
	return 0;
fail:
	free(v);
	free(run);
	free(tmp);
	return -1;
}

enum app_err
fair_report(struct db *db, int64_t queue_id, const char *slug,
    int64_t since_ms, int64_t until_ms, struct json_object **out)
{
	struct samples		 s;
	struct served		 sv;
	struct json_object	*o = NULL, *ro = NULL;
	struct adm_queue	 adm;
	int64_t			*tmp = NULL, inv = 0, end;
	enum app_err		 er;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	memset(&sv, 0, sizeof(sv));
	end = until_ms > 0 ? until_ms : INT64_MAX;
	if ((er = db_fair_samples(db, queue_id, since_ms, end, sample_row,
	    &s)) != APP_OK ||
	    (er = db_fair_served(db, queue_id, since_ms, end, served_row,
	    &sv)) != APP_OK)
		goto out;
	er = APP_ENOMEM;
	if (sv.n > 0 && (tmp = try_malloc(sv.n * sizeof(*tmp))) == NULL)
		goto out;
	if ((er = db_queue_state(db, queue_id, &adm)) != APP_OK)
		goto out;
	er = APP_ENOMEM;
	/* Before fair_inversions() sorts the served order. */
	if (random_order(&adm, sv.num, sv.n, &ro) == -1)
		goto out;
	inv = fair_inversions(sv.num, tmp, sv.n);
	if ((o = json_object_new_object()) == NULL)
		goto out;
	json_object_object_add(o, "queue", json_object_new_string(slug));
	json_object_object_add(o, "since", since_ms > 0 ?
	    json_object_new_int64(since_ms) : NULL);
	json_object_object_add(o, "until", until_ms > 0 ?
	    json_object_new_int64(until_ms) : NULL);
	json_object_object_add(o, "from", s.n > 0 ?
	    json_object_new_int64(s.v[0].t_ms) : NULL);
	json_object_object_add(o, "to", s.n > 0 ?
	    json_object_new_int64(s.v[s.n - 1].t_ms) : NULL);
	json_object_object_add(o, "samples",
	    json_object_new_int64((int64_t)s.n));
	json_object_object_add(o, "served",
	    json_object_new_int64((int64_t)sv.n));
	json_object_object_add(o, "inversions", json_object_new_int64(inv));
	if (ro != NULL) {
		json_object_object_add(o, "randomOrder", ro);
		ro = NULL;
	}
	if (add_waits(o, &s) == -1 || add_minutes(o, &s) == -1) {
		json_object_put(o);
		o = NULL;
		goto out;
	}
	*out = o;
	er = APP_OK;
out:
	json_object_put(ro);
	free(tmp);
	free(s.v);
	free(sv.num);
	return er;
}

/* Append printf-style text to *buf (length *len); -1 out of memory. */
static int
cat(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cat(char **buf, size_t *len, const char *fmt, ...)
{
	va_list	 ap;
	char	 line[256], *nb;
	int	 w;

	va_start(ap, fmt);
	w = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(line))
		return -1;
	if ((nb = try_malloc(*len + (size_t)w + 1)) == NULL)
		return -1;
	if (*len > 0)
		memcpy(nb, *buf, *len);
	memcpy(nb + *len, line, (size_t)w + 1);
	free(*buf);
	*buf = nb;
	*len += (size_t)w;
	return 0;
}

/*
 * The JSON number or null member key of o as CSV text: "" for null,
 * doubles in %.15g (30, not 30.0).
 */
static void
val(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object	*v;

	buf[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return;
	if (json_object_is_type(v, json_type_double))
		snprintf(buf, size, "%.15g", json_object_get_double(v));
	else
		snprintf(buf, size, "%s", json_object_to_json_string_ext(v,
		    JSON_C_TO_STRING_PLAIN));
}

char *
fair_csv(struct json_object *rep)
{
	struct json_object	*w = NULL, *mins = NULL, *m;
	char			*buf = NULL, v[64], when[32];
	size_t			 len = 0, i, n;
	time_t			 t;
	struct tm		 tm;
	int			 bad = 0;

	bad |= cat(&buf, &len, "metric,minute,value\r\n");
	val(rep, "served", v, sizeof(v));
	bad |= cat(&buf, &len, "served,,%s\r\n", v);
	val(rep, "inversions", v, sizeof(v));
	bad |= cat(&buf, &len, "inversions,,%s\r\n", v);
	json_object_object_get_ex(rep, "waitSeconds", &w);
	val(w, "count", v, sizeof(v));
	bad |= cat(&buf, &len, "wait_count,,%s\r\n", v);
	val(w, "p50", v, sizeof(v));
	bad |= cat(&buf, &len, "wait_p50_s,,%s\r\n", v);
	val(w, "p90", v, sizeof(v));
	bad |= cat(&buf, &len, "wait_p90_s,,%s\r\n", v);
	val(w, "p99", v, sizeof(v));
	bad |= cat(&buf, &len, "wait_p99_s,,%s\r\n", v);
	val(rep, "admissionsPerMinute", v, sizeof(v));
	bad |= cat(&buf, &len, "admissions_per_minute,,%s\r\n", v);
	val(rep, "configuredRatePerMinute", v, sizeof(v));
	bad |= cat(&buf, &len, "configured_rate_per_minute,,%s\r\n", v);
	json_object_object_get_ex(rep, "minutes", &mins);
	n = mins != NULL ? json_object_array_length(mins) : 0;
	for (i = 0; i < n && !bad; i++) {
		m = json_object_array_get_idx(mins, i);
		val(m, "minute", v, sizeof(v));
		t = (time_t)(strtoll(v, NULL, 10) / 1000);
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:00Z", &tm);
		val(m, "admitted", v, sizeof(v));
		bad |= cat(&buf, &len, "admitted,%s,%s\r\n", when, v);
		val(m, "ratePerMinute", v, sizeof(v));
		bad |= cat(&buf, &len, "rate_per_minute,%s,%s\r\n", when, v);
	}
	if (bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Numbers this process recorded lately, direct-mapped by hash. */
#define SEEN_SLOTS	4096
static struct {
	int64_t	 queue_id, number;
} seen[SEEN_SLOTS];

/*
 * First tokens not written yet: one multi-row INSERT per SERVED_BATCH of
 * them, or once the oldest has waited FAIR_FLUSH_MS (after an answer, or
 * when the process waits for requests), so that a first token costs the
 * visitor's request no write of its own.
 */
static struct served_row	 pending[SERVED_BATCH];
static size_t			 npending;
static int64_t			 pending_ms;	/* the oldest's now_ms() */

void
fair_served_record(struct db *db, int64_t queue_id, int64_t number)
{
	size_t		 h;

	h = (size_t)(((uint64_t)queue_id * 0x9e3779b97f4a7c15ULL) ^
	    (uint64_t)number) % SEEN_SLOTS;
	if (seen[h].queue_id == queue_id && seen[h].number == number)
		return;
	if (db == NULL || db_mysql(db) == NULL)
		return;
	seen[h].queue_id = queue_id;
	seen[h].number = number;
	if (npending == 0)
		pending_ms = now_ms();
	pending[npending].queue_id = queue_id;
	pending[npending].number = number;
	pending[npending].served_ms = db_clock_ms(db);
	if (++npending == SERVED_BATCH)
		fair_served_flush(db, 1);
}

void
fair_served_flush(struct db *db, int force)
{
	enum app_err	 er;

	if (npending == 0 ||
	    (!force && now_ms() - pending_ms < FAIR_FLUSH_MS))
		return;
	if ((er = db_served_add(db, pending, npending)) != APP_OK)
		log_debug("served record of %zu numbers failed (%d)",
		    npending, (int)er);
	npending = 0;
}

int
fair_served_due_ms(void)
{
	int64_t	 left;

	if (npending == 0)
		return -1;
	left = pending_ms + FAIR_FLUSH_MS - now_ms();
	return left < 0 ? 0 : left > FAIR_FLUSH_MS ? FAIR_FLUSH_MS :
	    (int)left;
}
