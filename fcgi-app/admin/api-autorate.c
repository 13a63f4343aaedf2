/*
 * api-autorate.c - a queue's auto-rate in the REST admin API, under
 * /api/admin/queue/sites/<id>/autorate: the settings (GET, PATCH, with
 * "enabled"), the one-time test of the health URL (POST .../test) and
 * the decision log (GET .../log?limit=N); and the queue's fairness
 * report (GET /sites/<id>/fairness, .../fairness.csv).  Validation,
 * scope and the audit log are the auto-rate operations'
 * (autorate-ops.c), the same as for the CLI.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "api-autorate.h"
#include "aqueue.h"
#include "autorate.h"
#include "cfg.h"
#include "crypto.h"
#include "extern.h"
#include "fairness.h"
#include "gate.h"
#include "queue-ops.h"

#define ID_MAX		4294967295LL	/* INT UNSIGNED */

/*
 * Answer a failed auto-rate operation by its code (http_err_by_code())
 * as {"error","message"[,"field"]}; 503 with Retry-After when the
 * database does not answer.
 */
static void
ar_answer(struct req *r, const struct ar_err *err)
{
	if (err->status == 503) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	http_app_err_field(r, http_err_by_code(err->code), err->field >= 0 ?
	    ar_field((enum ar_field)err->field)->key : NULL, err->message);
}

/*
 * The slug of the route's ":id" queue, for r->who: 404 for a malformed
 * or unknown id, 403 for an API key of another queue.  Returns a new
 * string the caller frees, or NULL after answering; *idp is the id.
 */
static char *
site_slug_id(struct req *r, int64_t *idp)
{
	struct queue	*q = NULL;
	struct qops_err	 err;
	int64_t		 id;
	char		*slug;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1) {
		http_app_err(r, ERR_QUEUE_NOT_FOUND);
		return NULL;
	}
	if (!qops_in_scope(&r->who, id)) {
		http_app_err(r, ERR_FORBIDDEN);
		return NULL;
	}
	if (qops_get_id(r->db, id, &q, &err) != APP_OK) {
		http_app_err(r, err.reason == QOPS_R_UNAVAILABLE ? ERR_DB_DOWN :
		    err.reason == QOPS_R_NOT_FOUND ? ERR_QUEUE_NOT_FOUND :
		    ERR_INTERNAL);
		return NULL;
	}
	slug = xstrdup(q->slug);
	qops_queue_free(q);
	*idp = id;
	return slug;
}

/* site_slug_id() without the id. */
static char *
site_slug(struct req *r)
{
	int64_t	 id;

	return site_slug_id(r, &id);
}

/* Answer the settings of slug (200). */
static void
settings_answer(struct req *r, const char *slug)
{
	struct ar_settings	 s;
	struct ar_err		 err;
	struct json_object	*o;

	if (arops_get(r->db, slug, &s, &err) != APP_OK) {
		ar_answer(r, &err);
		return;
	}
	if ((o = ar_settings_json(&s, slug)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	http_json(r, 200, o);
	json_object_put(o);
}

void
api_autorate_get(struct req *r)
{
	char	*slug;

	if ((slug = site_slug(r)) == NULL)
		return;
	settings_answer(r, slug);
	free(slug);
}

/*
 * The text of JSON value v for field f: strings as they are (rules also
 * as an array of strings, joined by ", "), integers in decimal,
 * booleans "true"/"false".  Returns a new string the caller frees, or
 * NULL when v has the wrong type.
 */
static char *
field_text(enum ar_field f, struct json_object *v)
{
	struct json_object	*e;
	char			*s, *t;
	size_t			 i, n;

	if (f == AR_F_URL || f == AR_F_RULES) {
		if (json_object_is_type(v, json_type_string))
			return xstrdup(json_object_get_string(v));
		if (f != AR_F_RULES || !json_object_is_type(v,
		    json_type_array))
			return NULL;
		s = xstrdup("");
		n = json_object_array_length(v);
		for (i = 0; i < n; i++) {
			e = json_object_array_get_idx(v, i);
			if (!json_object_is_type(e, json_type_string)) {
				free(s);
				return NULL;
			}
			t = xasprintf("%s%s%s", s, i > 0 ? ", " : "",
			    json_object_get_string(e));
			free(s);
			s = t;
		}
		return s;
	}
	if (f == AR_F_ALLOW_PRIVATE || f == AR_F_DRY_RUN)
		return json_object_is_type(v, json_type_boolean) ?
		    xstrdup(json_object_get_boolean(v) ? "true" : "false") :
		    NULL;
	if (!json_object_is_type(v, json_type_int))
		return NULL;
	return xasprintf("%lld", (long long)json_object_get_int64(v));
}

/*
 * Whether the fields in bits of in change what the last test covered
 * (URL, rules in normal form, private network) of slug's settings:
 * answers 409 test_required and returns 1 if so, 500/503 and -1 when
 * the settings cannot be read, 0 when nothing tested changes.
 */
static int
changes_tested(struct req *r, const char *slug, const struct ar_settings *in,
    unsigned int bits)
{
	struct ar_settings	 cur;
	struct ar_rules		 rs;
	struct ar_err		 err;
	const char		*why;
	char			 norm[sizeof(cur.rules)];

	if (arops_get(r->db, slug, &cur, &err) != APP_OK) {
		ar_answer(r, &err);
		return -1;
	}
	snprintf(norm, sizeof(norm), "%s", in->rules);
	if ((bits & AR_BIT(AR_F_RULES)) &&
	    ar_rules_parse(in->rules, &rs, &why) == 0)
		ar_rules_format(&rs, norm, sizeof(norm));
	if (((bits & AR_BIT(AR_F_URL)) && strcmp(in->url, cur.url) != 0) ||
	    ((bits & AR_BIT(AR_F_RULES)) && strcmp(norm, cur.rules) != 0) ||
	    ((bits & AR_BIT(AR_F_ALLOW_PRIVATE)) &&
	    in->allow_private != cur.allow_private)) {
		http_app_err(r, ERR_TEST_REQUIRED);
		return 1;
	}
	return 0;
}

void
api_autorate_patch(struct req *r)
{
	struct json_object	*body = NULL, *v;
	struct ar_settings	 in;
	struct ar_err		 err;
	enum http_err		 he;
	unsigned int		 bits = 0;
	char			*slug, *text, msg[200];
	int			 f, enabled = -1;

	if ((slug = site_slug(r)) == NULL)
		return;
	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		goto out;
	}
	memset(&in, 0, sizeof(in));
	for (f = 0; f < AR_F__MAX; f++) {
		if (!json_object_object_get_ex(body,
		    ar_field((enum ar_field)f)->key, &v))
			continue;
		if ((text = field_text((enum ar_field)f, v)) == NULL) {
			snprintf(msg, sizeof(msg), "%s: %s.",
			    ar_field((enum ar_field)f)->key,
			    ar_field((enum ar_field)f)->rule);
			err.code = f == AR_F_URL ? "invalid_health_url" :
			    f == AR_F_RULES ? "invalid_rules" :
			    "invalid_value";
			err.field = f;
			err.status = 422;
			snprintf(err.message, sizeof(err.message), "%s", msg);
			ar_answer(r, &err);
			goto out;
		}
		if (ar_field_set(&in, &bits, (enum ar_field)f, text, &err) !=
		    APP_OK) {
			free(text);
			ar_answer(r, &err);
			goto out;
		}
		free(text);
	}
	if (json_object_object_get_ex(body, "enabled", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			err.code = "invalid_value";
			err.field = -1;
			err.status = 422;
			snprintf(err.message, sizeof(err.message),
			    "enabled: true or false.");
			ar_answer(r, &err);
			goto out;
		}
		enabled = json_object_get_boolean(v);
	}
	/*
	 * Enabling together with a new URL, rules or network setting can
	 * never pass (the change drops the test): refuse it before writing
	 * anything.
	 */
	if (enabled == 1 && (bits & (AR_BIT(AR_F_URL) | AR_BIT(AR_F_RULES) |
	    AR_BIT(AR_F_ALLOW_PRIVATE))) != 0 &&
	    changes_tested(r, slug, &in, bits) != 0)
		goto out;
	if (bits != 0 && arops_set(r->db, slug, &in, bits, &err, &r->who) !=
	    APP_OK) {
		ar_answer(r, &err);
		goto out;
	}
	if (enabled >= 0 && arops_enable(r->db, slug, enabled, &err,
	    &r->who) != APP_OK) {
		ar_answer(r, &err);
		goto out;
	}
	settings_answer(r, slug);
out:
	json_object_put(body);
	free(slug);
}

/*
 * The longest a test's request to the shop may take in the pool: far
 * below request-timeout, so that a slow or silent health URL holds a
 * worker only briefly (the worker's own polls keep health-timeout-ms).
 */
#define TEST_TIMEOUT_MS		1500
#define TEST_CONNECT_MS		1000

enum app_err
api_autorate_run_test(struct req *r, const char *slug, struct ar_eval *ev,
    struct ar_err *err)
{
	struct cfg	 c = *r->cfg;
	enum app_err	 er;

	/* The copy needs no key. */
	crypto_wipe(c.master_key, sizeof(c.master_key));
	/* One test at a time in the pool, each within a bound. */
	if (!gate_enter(GATE_HEALTH))
		return APP_BUSY;
	if (c.health_timeout_ms > TEST_TIMEOUT_MS)
		c.health_timeout_ms = TEST_TIMEOUT_MS;
	if (c.health_connect_timeout_ms > TEST_CONNECT_MS)
		c.health_connect_timeout_ms = TEST_CONNECT_MS;
	er = arops_test(r->db, &c, slug, ev, err, &r->who);
	gate_leave(GATE_HEALTH);
	return er;
}

void
api_autorate_test(struct req *r)
{
	struct ar_eval		 ev;
	struct ar_err		 err;
	struct json_object	*o = NULL;
	enum http_err		 he;
	enum app_err		 er;
	char			*slug;

	/* No parameters: a body, when sent, is one JSON object (ignored). */
	if ((he = req_body_json(r, &o, 0)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	json_object_put(o);
	if ((slug = site_slug(r)) == NULL)
		return;
	er = api_autorate_run_test(r, slug, &ev, &err);
	free(slug);
	if (er == APP_BUSY) {
		http_app_err(r, ERR_BUSY);
		return;
	}
	if (er != APP_OK) {
		ar_answer(r, &err);
		return;
	}
	if ((o = ar_eval_json(&ev)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	json_object_object_add(o, "passed",
	    json_object_new_boolean(ev.state != AR_UNKNOWN));
	http_json(r, 200, o);
	json_object_put(o);
}

void
api_autorate_log(struct req *r)
{
	struct field_val	*l = &r->fields[FIELD_LIMIT];
	struct json_object	*a, *o;
	struct ar_err		 err;
	int64_t			 limit = 50;
	char			*slug;

	if (l->state == FIELD_BAD || (l->state == FIELD_OK &&
	    parse_int64(l->val, 1, 1000, &limit) == -1)) {
		http_app_errf(r, ERR_INVALID_LIMIT, "limit must be a whole "
		    "number from 1 to 1000.");
		return;
	}
	if ((slug = site_slug(r)) == NULL)
		return;
	if (arops_log(r->db, slug, limit, &a, &err) != APP_OK) {
		free(slug);
		ar_answer(r, &err);
		return;
	}
	free(slug);
	o = json_object_new_object();
	json_object_object_add(o, "log", a);
	http_json(r, 200, o);
	json_object_put(o);
}

/* A period bound of the query: absent or empty is 0; -1 when bad. */
static int
period_bound(const struct field_val *f, int64_t min, int64_t *v)
{
	*v = 0;
	if (f->state == FIELD_ABSENT || (f->state == FIELD_OK &&
	    f->val[0] == '\0'))
		return 0;
	if (f->state == FIELD_BAD)
		return -1;
	return parse_int64(f->val, min, INT64_MAX, v);
}

int
api_fair_period(const struct req *r, int64_t *since, int64_t *until)
{
	if (period_bound(&r->fields[FIELD_SINCE], 0, since) == -1 ||
	    period_bound(&r->fields[FIELD_UNTIL], 1, until) == -1 ||
	    (*until > 0 && *until <= *since)) {
		*since = *until = 0;
		return -1;
	}
	return 0;
}

/* The fairness report of the route's queue as JSON or CSV. */
static void
fairness(struct req *r, int as_csv)
{
	struct json_object	*o;
	int64_t			 id, since, until;
	enum app_err		 er;
	char			*slug, *csv;

	if (api_fair_period(r, &since, &until) == -1) {
		http_app_err(r, ERR_INVALID_PERIOD);
		return;
	}
	if ((slug = site_slug_id(r, &id)) == NULL)
		return;
	er = fair_report(r->db, id, slug, since, until, &o);
	free(slug);
	if (er != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	if (!as_csv) {
		http_json(r, 200, o);
		json_object_put(o);
		return;
	}
	csv = fair_csv(o);
	json_object_put(o);
	if (csv == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	http_send(r, 200, "text/csv; charset=utf-8", csv, strlen(csv));
	free(csv);
}

void
api_fairness(struct req *r)
{
	fairness(r, 0);
}

void
api_fairness_csv(struct req *r)
{
	fairness(r, 1);
}
