/*
 * autorate.c - auto-rate rules, the judging of a health sample and the
 * controller (no I/O here; see autorate-ops.c for the operations).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "autorate.h"
#include "jsonbody.h"

static const char *const op_text[AR_OP__MAX] = { "<", "<=", ">", ">=" };

/*
 * Write d in the shortest of %.15g, %.16g, %.17g that reads back as d
 * (0.8, not 0.80000000000000004).  Can't fail.
 */
static void
num_text(double d, char *buf, size_t size)
{
	int	 prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

/* Whether c may be part of a path segment. */
static int
seg_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/*
 * Parse one rule of len bytes at s into *r.  Returns 0, or -1 with *why.
 */
static int
rule_parse(const char *s, size_t len, struct ar_rule *r, const char **why)
{
	char		 num[64];
	const char	*e = s + len, *p = s;
	size_t		 n, seg = 0;
	char		*end;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	for (n = 0; p < e && (seg_char((unsigned char)*p) || *p == '.');
	    p++, n++) {
		if (n + 1 >= sizeof(r->path)) {
			*why = "a rule's path is too long";
			return -1;
		}
		if (*p == '.') {
			if (seg == 0) {
				*why = "a rule's path has an empty segment";
				return -1;
			}
			seg = 0;
		} else
			seg++;
		r->path[n] = *p;
	}
	r->path[n] = '\0';
	if (n == 0 || seg == 0) {
		*why = "a rule must start with a path such as responseTimeMs "
		    "or metrics.cpuLoad";
		return -1;
	}
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (e - p >= 3 && memcmp(p, "\xe2\x89\xa4", 3) == 0) {
		r->op = AR_LE;
		p += 3;
	} else if (e - p >= 3 && memcmp(p, "\xe2\x89\xa5", 3) == 0) {
		r->op = AR_GE;
		p += 3;
	} else if (p < e && (*p == '<' || *p == '>')) {
		int lt = *p == '<';
		p++;
		if (p < e && *p == '=') {
			r->op = lt ? AR_LE : AR_GE;
			p++;
		} else
			r->op = lt ? AR_LT : AR_GT;
	} else {
		*why = "a rule's operator must be <, <=, >, >=, \xe2\x89\xa4 "
		    "or \xe2\x89\xa5";
		return -1;
	}
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	n = (size_t)(e - p);
	if (n == 0 || n >= sizeof(num) ||
	    strspn(p, "0123456789.eE+-") < n) {
		*why = "a rule's threshold must be a decimal number";
		return -1;
	}
	memcpy(num, p, n);
	num[n] = '\0';
	errno = 0;
	r->threshold = strtod(num, &end);
	if (errno != 0 || *end != '\0' || !isfinite(r->threshold) ||
	    !(num[0] == '-' || (num[0] >= '0' && num[0] <= '9'))) {
		*why = "a rule's threshold must be a finite decimal number";
		return -1;
	}
	return 0;
}

int
ar_rules_parse(const char *text, struct ar_rules *out, const char **why)
{
	const char	*p = text, *e;
	size_t		 len;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (text == NULL)
		return 0;
	while (*p != '\0') {
		len = strcspn(p, ",;\n");
		e = p;
		while (e < p + len && (*e == ' ' || *e == '\t' || *e == '\r'))
			e++;
		if (e < p + len) {
			if (out->n == AR_RULES_MAX) {
				*why = "at most 16 rules";
				return -1;
			}
			if (rule_parse(p, len, &out->r[out->n], why) == -1)
				return -1;
			out->n++;
		}
		p += len;
		if (*p != '\0')
			p++;
	}
	return 0;
}

void
ar_rules_format(const struct ar_rules *rs, char *buf, size_t size)
{
	size_t	 i, n = 0;
	int	 w;
	char	 num[32];

	if (size == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < rs->n && n < size; i++) {
		num_text(rs->r[i].threshold, num, sizeof(num));
		w = snprintf(buf + n, size - n, "%s%s %s %s",
		    i > 0 ? ", " : "", rs->r[i].path, op_text[rs->r[i].op],
		    num);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

const char *
ar_state_name(enum ar_state s)
{
	static const char *const names[AR_STATE__MAX] = {
		"healthy", "band", "unhealthy", "unknown" };

	return s < AR_STATE__MAX ? names[s] : "unknown";
}

const char *
ar_action_name(enum ar_action a)
{
	static const char *const names[AR_A__MAX] = {
		"hold", "raise", "cut", "freeze", "min", "clamp" };

	return a < AR_A__MAX ? names[a] : "hold";
}

/*
 * Walk v: count scalar leaves into *leaves and find keys that hold '.'
 * (they would make dotted paths ambiguous).  Returns the reason of the
 * first problem, or NULL.  Recursion is bounded by the parse depth.
 */
static const char *
walk(struct json_object *v, size_t *leaves)
{
	const char	*r;
	size_t		 i, n;

	switch (json_object_get_type(v)) {
	case json_type_object: {
		json_object_object_foreach(v, key, m) {
			if (strchr(key, '.') != NULL)
				return "path_collision";
			if ((r = walk(m, leaves)) != NULL)
				return r;
		}
		return NULL;
	}
	case json_type_array:
		n = json_object_array_length(v);
		for (i = 0; i < n; i++)
			if ((r = walk(json_object_array_get_idx(v, i),
			    leaves)) != NULL)
				return r;
		return NULL;
	default:
		if (++*leaves > AR_LEAVES_MAX)
			return "too_many_fields";
		return NULL;
	}
}

/*
 * Find path in doc.  Returns 1 and sets *out (NULL for a JSON null) or
 * 0 when some segment is missing.
 */
static int
find_path(struct json_object *doc, const char *path,
    struct json_object **out)
{
	char			 seg[AR_PATH_MAX];
	const char		*p = path;
	struct json_object	*cur = doc;
	size_t			 n;
	int64_t			 idx;

	while (*p != '\0') {
		n = strcspn(p, ".");
		memcpy(seg, p, n);
		seg[n] = '\0';
		p += n;
		if (*p == '.')
			p++;
		if (json_object_is_type(cur, json_type_object)) {
			if (!json_object_object_get_ex(cur, seg, &cur))
				return 0;
		} else if (json_object_is_type(cur, json_type_array)) {
			if (parse_int64(seg, 0, INT32_MAX, &idx) == -1 ||
			    (size_t)idx >= json_object_array_length(cur))
				return 0;
			cur = json_object_array_get_idx(cur, (size_t)idx);
		} else
			return 0;
	}
	*out = cur;
	return 1;
}

/* A metric's value, kept exact: an integer or a finite double. */
struct numval {
	int		 kind;	/* 0 int64, 1 uint64 > INT64_MAX, 2 double */
	int64_t		 i;
	uint64_t	 u;
	double		 d;
};

/*
 * The number at v, exactly: integers (also beyond 2^53, and unsigned
 * above INT64_MAX) and finite doubles.  Returns NULL and sets *out, or
 * the reason it is unknown ("not_numeric", "non_finite").
 */
static const char *
number_of(struct json_object *v, struct numval *out)
{
	memset(out, 0, sizeof(*out));
	switch (json_object_get_type(v)) {
	case json_type_int:
		out->i = json_object_get_int64(v);
		if (out->i == INT64_MAX &&
		    json_object_get_uint64(v) > (uint64_t)INT64_MAX) {
			out->kind = 1;
			out->u = json_object_get_uint64(v);
		}
		return NULL;
	case json_type_double:
		out->kind = 2;
		out->d = json_object_get_double(v);
		return isfinite(out->d) ? NULL : "non_finite";
	default:
		return "not_numeric";
	}
}

/*
 * Compare v with the finite double t exactly (no rounding of a large
 * integer to a double): -1 when v < t, 0 when equal, 1 when v > t.
 */
static int
cmp_num(const struct numval *v, double t)
{
	double	 fl;
	int64_t	 fi;

	switch (v->kind) {
	case 2:
		return v->d < t ? -1 : v->d > t;
	case 1:		/* above 2^63 - 1; doubles from 2^63 are integers */
		if (t < 9223372036854775808.0)
			return 1;
		if (t >= 18446744073709551616.0)
			return -1;
		return v->u < (uint64_t)t ? -1 : v->u > (uint64_t)t;
	default:
		if (t >= 9223372036854775808.0)
			return -1;
		if (t < -9223372036854775808.0)
			return 1;
		fl = floor(t);
		fi = (int64_t)fl;
		if (v->i != fi)
			return v->i < fi ? -1 : 1;
		return t > fl ? -1 : 0;
	}
}

/* Whether "v op t" holds. */
static int
holds(const struct numval *v, enum ar_op op, double t)
{
	int	 c = cmp_num(v, t);

	switch (op) {
	case AR_LT:
		return c < 0;
	case AR_LE:
		return c <= 0;
	case AR_GT:
		return c > 0;
	case AR_GE:
		return c >= 0;
	default:
		return 0;
	}
}

/* Set the rule text of ev from r. */
static void
set_rule(struct ar_eval *ev, const struct ar_rule *r)
{
	char	 num[32];

	num_text(r->threshold, num, sizeof(num));
	snprintf(ev->rule, sizeof(ev->rule), "%s %s %s", r->path,
	    op_text[r->op], num);
}

void
ar_judge(const struct ar_rules *rs, int64_t band_pct, int64_t response_ms,
    const char *body, size_t len, struct ar_eval *ev)
{
	struct json_tokener	*tok = NULL;
	struct json_object	*doc = NULL, *v, *sample;
	enum json_tokener_error	 te;
	const char		*why = NULL, *s;
	struct numval		 val;
	double			 t, m;
	size_t			 i, leaves = 0;
	int			 need_json = 0, broken = -1, band = -1;

	ev->state = AR_UNKNOWN;
	ev->reason = "invalid_json";
	ev->rule[0] = '\0';
	ev->response_ms = response_ms;
	snprintf(ev->sample, sizeof(ev->sample), "{}");
	for (i = 0; i < rs->n; i++)
		if (strcmp(rs->r[i].path, AR_RESPONSE_TIME) != 0)
			need_json = 1;
	if (need_json) {
		if ((tok = json_tokener_new_ex(AR_DEPTH)) == NULL)
			return;
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		if (len <= INT32_MAX)
			doc = json_tokener_parse_ex(tok, body, (int)len);
		te = json_tokener_get_error(tok);
		if (te == json_tokener_error_depth)
			why = "too_deep";
		else if (doc == NULL || te != json_tokener_success ||
		    json_tokener_get_parse_end(tok) != len)
			why = "invalid_json";
		else if (!jsonbody_names_unique(body, len, doc))
			why = "path_collision";
		else
			why = walk(doc, &leaves);
		json_tokener_free(tok);
		if (why != NULL) {
			ev->reason = why;
			json_object_put(doc);
			return;
		}
	}
	if ((sample = json_object_new_object()) == NULL) {
		json_object_put(doc);
		return;
	}
	for (i = 0; i < rs->n && why == NULL; i++) {
		const struct ar_rule *r = &rs->r[i];

		if (strcmp(r->path, AR_RESPONSE_TIME) == 0) {
			memset(&val, 0, sizeof(val));
			val.i = response_ms;
			json_object_object_add(sample, r->path,
			    json_object_new_int64(response_ms));
		} else if (!find_path(doc, r->path, &v)) {
			why = "missing_path";
		} else if ((why = number_of(v, &val)) == NULL) {
			json_object_object_add(sample, r->path,
			    json_object_get(v));
		}
		if (why != NULL) {
			set_rule(ev, r);
			break;
		}
		t = r->threshold;
		m = fabs(t) * (double)band_pct / 100.0;
		if (!holds(&val, r->op, t)) {
			if (broken < 0)
				broken = (int)i;
		} else if (!holds(&val, r->op, r->op <= AR_LE ? t - m :
		    t + m)) {
			if (band < 0)
				band = (int)i;
		}
	}
	s = json_object_to_json_string_ext(sample, JSON_C_TO_STRING_PLAIN);
	if (s != NULL && strlen(s) < sizeof(ev->sample))
		snprintf(ev->sample, sizeof(ev->sample), "%s", s);
	json_object_put(sample);
	json_object_put(doc);
	if (why != NULL) {
		ev->reason = why;
		return;
	}
	if (broken >= 0) {
		ev->state = AR_BROKEN;
		ev->reason = "rule_broken";
		set_rule(ev, &rs->r[broken]);
	} else if (band >= 0) {
		ev->state = AR_BAND;
		ev->reason = "in_band";
		set_rule(ev, &rs->r[band]);
	} else {
		ev->state = AR_HEALTHY;
		ev->reason = "ok";
	}
}

enum ar_action
ar_decide(const struct ar_ctl *c, struct ar_mem *m, enum ar_state st,
    int64_t now, int64_t rate, int64_t *new_rate)
{
	int64_t	 cut;

	*new_rate = rate;
	if (st == AR_UNKNOWN) {
		m->failures++;
		m->since_ms = 0;
		if (m->failures >= c->failures_to_min && rate != c->rate_min) {
			*new_rate = c->rate_min;
			m->change_ms = now;
			return AR_A_MIN;
		}
		if (rate < c->rate_min || rate > c->rate_max) {
			*new_rate = rate < c->rate_min ? c->rate_min :
			    c->rate_max;
			m->change_ms = now;
			return AR_A_CLAMP;
		}
		return AR_A_FREEZE;
	}
	m->failures = 0;
	if (rate < c->rate_min || rate > c->rate_max) {
		*new_rate = rate < c->rate_min ? c->rate_min : c->rate_max;
		m->change_ms = now;
		m->since_ms = 0;
		return AR_A_CLAMP;
	}
	switch (st) {
	case AR_BROKEN:
		m->since_ms = 0;
		if (m->cut_ms != 0 && now - m->cut_ms < c->cooldown_ms)
			return AR_A_HOLD;
		cut = (rate * c->cut_pct + 99) / 100;
		if (cut < 1)
			cut = 1;
		*new_rate = rate - cut < c->rate_min ? c->rate_min :
		    rate - cut;
		if (*new_rate == rate)
			return AR_A_HOLD;
		m->cut_ms = m->change_ms = now;
		return AR_A_CUT;
	case AR_BAND:
		m->since_ms = 0;
		return AR_A_HOLD;
	default:
		if (m->since_ms == 0)
			m->since_ms = now;
		if (now - m->since_ms < c->cooldown_ms ||
		    (m->change_ms != 0 && now - m->change_ms < c->cooldown_ms))
			return AR_A_HOLD;
		*new_rate = rate + c->step > c->rate_max ? c->rate_max :
		    rate + c->step;
		if (*new_rate == rate)
			return AR_A_HOLD;
		m->change_ms = m->since_ms = now;
		return AR_A_RAISE;
	}
}
