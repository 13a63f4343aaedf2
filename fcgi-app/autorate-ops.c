/*
 * autorate-ops.c - the auto-rate operations (see autorate.h): settings
 * with one field table for the CLI and the API, the one-time test,
 * enabling, the log.  Time is the database's (qops_now()).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admission.h"
#include "aqueue.h"
#include "autorate.h"
#include "db.h"
#include "db-worker.h"
#include "health.h"
#include "log.h"
#include "principal.h"
#include "queue-ops.h"

enum ar_type { T_INT, T_BOOL, T_STR };

struct ar_fdef {
	const char	*opt;	/* CLI option without "--" */
	const char	*key;	/* API key */
	enum ar_type	 type;
	int64_t		 min, max;
	const char	*rule;
};

static const struct ar_fdef fields[AR_F__MAX] = {
	[AR_F_URL] = { "health-url", "healthUrl", T_STR, 0, 0,
	    "an http(s) URL of the shop's health endpoint, at most 2048 "
	    "bytes, not a private or loopback address unless "
	    "allowPrivateNetwork" },
	[AR_F_ALLOW_PRIVATE] = { "allow-private", "allowPrivateNetwork",
	    T_BOOL, 0, 1, "true or false" },
	[AR_F_INTERVAL] = { "interval", "intervalSeconds", T_INT, 2, 3600,
	    "an integer from 2 to 3600" },
	[AR_F_RULES] = { "rules", "rules", T_STR, 0, 0,
	    "rules \"path op number\" separated by commas, op one of < <= "
	    "> >=, at most 16" },
	[AR_F_MIN] = { "min", "minRate", T_INT, ADM_RATE_MIN, ADM_RATE_MAX,
	    "an integer from 1 to 1000000, at most maxRate" },
	[AR_F_MAX] = { "max", "maxRate", T_INT, ADM_RATE_MIN, ADM_RATE_MAX,
	    "an integer from 1 to 1000000, at least minRate" },
	[AR_F_STEP] = { "step", "raiseStep", T_INT, 1, ADM_RATE_MAX,
	    "an integer from 1 to 1000000" },
	[AR_F_CUT] = { "cut", "cutPercent", T_INT, 1, 90,
	    "an integer from 1 to 90" },
	[AR_F_COOLDOWN] = { "cooldown", "cooldownSeconds", T_INT, 0, 86400,
	    "an integer from 0 to 86400" },
	[AR_F_BAND] = { "band", "hysteresisPercent", T_INT, 0, 50,
	    "an integer from 0 to 50" },
	[AR_F_FAILURES] = { "failures", "failuresBeforeMin", T_INT, 1, 1000,
	    "an integer from 1 to 1000" },
	[AR_F_DRY_RUN] = { "dry-run", "dryRun", T_BOOL, 0, 1,
	    "true or false" },
};

const char *
ar_field_opt(enum ar_field f)
{
	return f < AR_F__MAX ? fields[f].opt : "";
}

const char *
ar_field_key(enum ar_field f)
{
	return f < AR_F__MAX ? fields[f].key : "";
}

const char *
ar_field_rule(enum ar_field f)
{
	return f < AR_F__MAX ? fields[f].rule : "";
}

int
ar_field_find(const char *name)
{
	int	 i;

	for (i = 0; i < AR_F__MAX; i++)
		if (strcmp(name, fields[i].opt) == 0 ||
		    strcmp(name, fields[i].key) == 0)
			return i;
	return -1;
}

void
ar_settings_default(struct ar_settings *s, int64_t queue_id)
{
	memset(s, 0, sizeof(*s));
	s->queue_id = queue_id;
	s->interval_s = 10;
	s->rate_min = 1;
	s->rate_max = 1000;
	s->step = 10;
	s->cut_pct = 20;
	s->cooldown_s = 60;
	s->band_pct = 10;
	s->failures_to_min = 3;
}

void
ar_settings_ctl(const struct ar_settings *s, struct ar_ctl *c)
{
	c->rate_min = s->rate_min;
	c->rate_max = s->rate_max;
	c->step = s->step;
	c->cut_pct = s->cut_pct;
	c->cooldown_ms = s->cooldown_s * 1000;
	c->failures_to_min = s->failures_to_min;
}

/* Fill *err; returns er. */
static enum app_err
fail(struct ar_err *err, enum app_err er, const char *code, int field,
    int status, const char *msg)
{
	err->code = code;
	err->field = field;
	err->status = status;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return er;
}

/* The error of a failed database or lookup call. */
static enum app_err
db_fail(struct ar_err *err, enum app_err er)
{
	switch (er) {
	case APP_NOTFOUND:
		return fail(err, er, "queue_not_found", -1, 404,
		    "There is no queue with this slug.");
	case APP_DB_DOWN:
		return fail(err, er, "unavailable", -1, 503,
		    "The database does not answer; try again.");
	default:
		return fail(err, er, "internal", -1, 500,
		    "Internal error (logged).");
	}
}

/*
 * Whether who may act on queue_id (qops_in_scope(): a console user or
 * the CLI on every queue, an API key on its own, the worker).  Returns
 * APP_OK, or APP_INVALID with code "forbidden" (403).
 */
static enum app_err
scope(const struct principal *who, int64_t queue_id, struct ar_err *err)
{
	if (who == NULL || who->kind == PRINCIPAL_NONE ||
	    !qops_in_scope(who, queue_id))
		return fail(err, APP_INVALID, "forbidden", -1, 403,
		    "This API key belongs to another queue.");
	return APP_OK;
}

/* The settings of s as audited: what an operator sets, no state. */
static struct json_object *
audit_json(const struct ar_settings *s)
{
	struct json_object	*o = ar_settings_json(s, NULL);

	if (o == NULL)
		return NULL;
	json_object_object_del(o, "testedMs");
	json_object_object_del(o, "testResult");
	json_object_object_del(o, "lastPollMs");
	json_object_object_del(o, "failuresInARow");
	return o;
}

/*
 * One audit row: who did action on queue slug, with the settings before
 * and after.  Inside the caller's transaction.  Returns APP_OK, APP_DB,
 * APP_DB_DOWN or APP_ENOMEM.
 */
static enum app_err
audit(struct db *db, const struct principal *who, const char *slug,
    const char *action, const struct ar_settings *before,
    const struct ar_settings *after)
{
	struct audit_entry	*e;
	struct json_object	*b, *a;
	enum app_err		 er = APP_ENOMEM;

	b = audit_json(before);
	a = audit_json(after);
	if ((e = calloc(1, sizeof(*e))) != NULL && b != NULL && a != NULL) {
		snprintf(e->actor_kind, sizeof(e->actor_kind), "%s",
		    qops_principal_kind(who));
		e->actor_id = who->id;
		snprintf(e->actor_name, sizeof(e->actor_name), "%s",
		    who->name);
		e->queue_id = after->queue_id;
		snprintf(e->queue_slug, sizeof(e->queue_slug), "%s", slug);
		snprintf(e->action, sizeof(e->action), "%s", action);
		e->before_json = (char *)(uintptr_t)
		    json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE);
		e->after_json = (char *)(uintptr_t)
		    json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE);
		snprintf(e->client_addr, sizeof(e->client_addr), "%s",
		    who->addr);
		er = db_audit_insert(db, e);
	}
	free(e);
	json_object_put(b);
	json_object_put(a);
	return er;
}

/*
 * Save s and audit the change in one transaction.  Returns APP_OK or
 * the database's error (err filled; nothing written).
 */
static enum app_err
save_audited(struct db *db, const struct principal *who, const char *slug,
    const char *action, const struct ar_settings *old,
    const struct ar_settings *s, int enable_only, struct ar_err *err)
{
	enum app_err	 er;

	if ((er = db_begin(db)) != APP_OK)
		return db_fail(err, er);
	er = enable_only ? db_ar_enable(db, s->queue_id, s->enabled,
	    s->updated_ms) : db_ar_save(db, s);
	if (er == APP_OK)
		er = audit(db, who, slug, action, old, s);
	if (er == APP_OK)
		er = db_commit(db);
	if (er != APP_OK) {
		db_rollback(db);
		return db_fail(err, er);
	}
	return APP_OK;
}

/* The refusal of field f's value. */
static enum app_err
bad_field(struct ar_err *err, enum ar_field f, const char *why)
{
	char	 msg[256];

	snprintf(msg, sizeof(msg), "%s: %s.", fields[f].key,
	    why != NULL ? why : fields[f].rule);
	return fail(err, APP_INVALID, f == AR_F_URL ? "invalid_health_url" :
	    f == AR_F_RULES ? "invalid_rules" : "invalid_value", (int)f, 422,
	    msg);
}

enum app_err
ar_field_set(struct ar_settings *s, unsigned int *set, enum ar_field f,
    const char *text, struct ar_err *err)
{
	const struct ar_fdef	*d;
	int64_t			 v, *dst = NULL;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	if (f >= AR_F__MAX || text == NULL)
		return fail(err, APP_INVALID, "invalid_value", -1, 422,
		    "Unknown field.");
	d = &fields[f];
	if (utf8_chars(text, strlen(text)) < 0)
		return bad_field(err, f, "not valid UTF-8");
	switch (f) {
	case AR_F_URL:
		if (strlen(text) >= sizeof(s->url))
			return bad_field(err, f, "longer than 2048 bytes");
		snprintf(s->url, sizeof(s->url), "%s", text);
		break;
	case AR_F_RULES:
		if (strlen(text) >= sizeof(s->rules))
			return bad_field(err, f, "longer than 2048 bytes");
		snprintf(s->rules, sizeof(s->rules), "%s", text);
		break;
	case AR_F_ALLOW_PRIVATE: dst = &s->allow_private; break;
	case AR_F_INTERVAL: dst = &s->interval_s; break;
	case AR_F_MIN: dst = &s->rate_min; break;
	case AR_F_MAX: dst = &s->rate_max; break;
	case AR_F_STEP: dst = &s->step; break;
	case AR_F_CUT: dst = &s->cut_pct; break;
	case AR_F_COOLDOWN: dst = &s->cooldown_s; break;
	case AR_F_BAND: dst = &s->band_pct; break;
	case AR_F_FAILURES: dst = &s->failures_to_min; break;
	case AR_F_DRY_RUN: dst = &s->dry_run; break;
	default: break;
	}
	if (dst != NULL) {
		if (d->type == T_BOOL && (strcmp(text, "true") == 0 ||
		    strcmp(text, "on") == 0))
			v = 1;
		else if (d->type == T_BOOL && (strcmp(text, "false") == 0 ||
		    strcmp(text, "off") == 0))
			v = 0;
		else if (parse_int64(text, d->min, d->max, &v) == -1)
			return bad_field(err, f, NULL);
		*dst = v;
	}
	*set |= AR_BIT(f);
	return APP_OK;
}

/*
 * Read queue slug's row and its auto-rate settings (defaults when none)
 * into *s, and the queue's rate into *rate when not NULL.
 */
static enum app_err
load(struct db *db, const char *slug, struct ar_settings *s,
    int64_t *rate, int *found, struct ar_err *err)
{
	struct queue	*q = NULL;
	enum app_err	 er;
	int		 f = 0;

	if ((er = db_queue_get(db, slug, &q)) != APP_OK)
		return db_fail(err, er);
	ar_settings_default(s, q->id);
	if (rate != NULL)
		*rate = adm_settled_rate(&q->adm);
	er = db_ar_get(db, q->id, s, &f);
	db_queue_free(q);
	if (er != APP_OK)
		return db_fail(err, er);
	if (found != NULL)
		*found = f;
	return APP_OK;
}

enum app_err
arops_get(struct db *db, const char *slug, struct ar_settings *out,
    struct ar_err *err)
{
	memset(err, 0, sizeof(*err));
	err->field = -1;
	return load(db, slug, out, NULL, NULL, err);
}

/* Check the whole of s.  Returns APP_OK or APP_INVALID (err filled). */
static enum app_err
check(struct ar_settings *s, struct ar_err *err)
{
	struct ar_rules	 rs;
	const char	*why;
	int		 i;

	for (i = 0; i < AR_F__MAX; i++) {
		const int64_t *v = NULL;
		switch (i) {
		case AR_F_INTERVAL: v = &s->interval_s; break;
		case AR_F_MIN: v = &s->rate_min; break;
		case AR_F_MAX: v = &s->rate_max; break;
		case AR_F_STEP: v = &s->step; break;
		case AR_F_CUT: v = &s->cut_pct; break;
		case AR_F_COOLDOWN: v = &s->cooldown_s; break;
		case AR_F_BAND: v = &s->band_pct; break;
		case AR_F_FAILURES: v = &s->failures_to_min; break;
		default: break;
		}
		if (v != NULL && (*v < fields[i].min || *v > fields[i].max))
			return bad_field(err, (enum ar_field)i, NULL);
	}
	if (s->rate_min > s->rate_max)
		return bad_field(err, AR_F_MIN, "must not be above maxRate");
	if (s->url[0] != '\0' &&
	    (why = health_url_check(s->url, (int)s->allow_private)) != NULL)
		return bad_field(err, AR_F_URL, why);
	if (ar_rules_parse(s->rules, &rs, &why) == -1)
		return bad_field(err, AR_F_RULES, why);
	ar_rules_format(&rs, s->rules, sizeof(s->rules));
	return APP_OK;
}

enum app_err
arops_set(struct db *db, const char *slug, const struct ar_settings *in,
    unsigned int set, struct ar_err *err, const struct principal *who)
{
	struct ar_settings	 s, old;
	enum app_err		 er;
	int			 i;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	if ((er = load(db, slug, &s, NULL, NULL, err)) != APP_OK)
		return er;
	if ((er = scope(who, s.queue_id, err)) != APP_OK)
		return er;
	old = s;
	for (i = 0; i < AR_F__MAX; i++) {
		if (!(set & AR_BIT(i)))
			continue;
		switch (i) {
		case AR_F_URL: memcpy(s.url, in->url, sizeof(s.url)); break;
		case AR_F_RULES:
			memcpy(s.rules, in->rules, sizeof(s.rules));
			break;
		case AR_F_ALLOW_PRIVATE: s.allow_private = in->allow_private;
			break;
		case AR_F_INTERVAL: s.interval_s = in->interval_s; break;
		case AR_F_MIN: s.rate_min = in->rate_min; break;
		case AR_F_MAX: s.rate_max = in->rate_max; break;
		case AR_F_STEP: s.step = in->step; break;
		case AR_F_CUT: s.cut_pct = in->cut_pct; break;
		case AR_F_COOLDOWN: s.cooldown_s = in->cooldown_s; break;
		case AR_F_BAND: s.band_pct = in->band_pct; break;
		case AR_F_FAILURES: s.failures_to_min = in->failures_to_min;
			break;
		case AR_F_DRY_RUN: s.dry_run = in->dry_run ? 1 : 0; break;
		}
	}
	s.allow_private = s.allow_private ? 1 : 0;
	if ((er = check(&s, err)) != APP_OK)
		return er;
	/* What was tested is no longer what would be polled. */
	if (strcmp(s.url, old.url) != 0 || strcmp(s.rules, old.rules) != 0 ||
	    s.allow_private != old.allow_private) {
		s.tested_ms = 0;
		s.tested_result[0] = '\0';
		if (s.enabled)
			log_info("autorate %s: turned off: the health URL or "
			    "rules changed and need a new test", slug);
		s.enabled = 0;
	}
	s.updated_ms = qops_now(db);
	if (s.updated_ms <= old.updated_ms)
		s.updated_ms = old.updated_ms + 1;
	return save_audited(db, who, slug, "autorate_update", &old, &s, 0,
	    err);
}

struct json_object *
ar_eval_json(const struct ar_eval *ev)
{
	struct json_object	*o, *sample;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "state",
	    json_object_new_string(ar_state_name(ev->state)));
	json_object_object_add(o, "reason",
	    json_object_new_string(ev->reason));
	json_object_object_add(o, "rule", ev->rule[0] != '\0' ?
	    json_object_new_string(ev->rule) : NULL);
	json_object_object_add(o, "responseTimeMs", ev->response_ms >= 0 ?
	    json_object_new_int64(ev->response_ms) : NULL);
	json_object_object_add(o, "httpStatus", ev->http_status > 0 ?
	    json_object_new_int(ev->http_status) : NULL);
	sample = json_tokener_parse(ev->sample);
	json_object_object_add(o, "sample", sample != NULL ? sample :
	    json_object_new_object());
	return o;
}

enum app_err
arops_test(struct db *db, const struct cfg *c, const char *slug,
    struct ar_eval *ev, struct ar_err *err, const struct principal *who)
{
	struct ar_settings	 s;
	struct ar_rules		 rs;
	struct ar_log_entry	 e;
	struct json_object	*j;
	const char		*why, *txt;
	char			*body = NULL, result[1025];
	size_t			 len = 0;
	int64_t			 rate = 0, now;
	enum app_err		 er;
	int			 found = 0, applied = 0;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->sample, sizeof(ev->sample), "{}");
	if ((er = load(db, slug, &s, &rate, &found, err)) != APP_OK)
		return er;
	if ((er = scope(who, s.queue_id, err)) != APP_OK)
		return er;
	if (!found || s.url[0] == '\0')
		return fail(err, APP_INVALID, "invalid_health_url", AR_F_URL,
		    422, "healthUrl: set the health URL first.");
	if (ar_rules_parse(s.rules, &rs, &why) == -1 || rs.n == 0)
		return fail(err, APP_INVALID, "invalid_rules", AR_F_RULES,
		    422, "rules: set at least one rule first.");
	if (health_fetch(c, s.url, (int)s.allow_private, &body, &len, ev) ==
	    0)
		ar_judge(&rs, s.band_pct, ev->response_ms, body, len, ev);
	free(body);
	now = qops_now(db);
	memset(&e, 0, sizeof(e));
	e.queue_id = s.queue_id;
	e.at_ms = now;
	e.kind = "test";
	e.dry_run = s.dry_run;
	e.action = ev->state == AR_UNKNOWN ? "fail" : "pass";
	e.state = ar_state_name(ev->state);
	e.reason = ev->reason;
	e.rule = ev->rule;
	e.rate_before = e.rate_after = rate;
	e.response_ms = ev->response_ms;
	e.sample = ev->sample;
	if ((er = db_ar_log_add(db, &e)) != APP_OK)
		return db_fail(err, er);
	log_info("autorate %s: test %s: %s (%s%s%s) sample %s", slug,
	    e.action, e.state, ev->reason, ev->rule[0] != '\0' ? ", " : "",
	    ev->rule, ev->sample);
	if (ev->state == AR_UNKNOWN)
		return APP_OK;
	result[0] = '\0';
	if ((j = ar_eval_json(ev)) != NULL) {
		txt = json_object_to_json_string_ext(j,
		    JSON_C_TO_STRING_PLAIN);
		if (txt != NULL && strlen(txt) < sizeof(result))
			snprintf(result, sizeof(result), "%s", txt);
		json_object_put(j);
	}
	if ((er = db_ar_tested(db, s.queue_id, s.updated_ms, now, result,
	    &applied)) != APP_OK)
		return db_fail(err, er);
	if (!applied)
		return fail(err, APP_INVALID, "settings_changed", -1, 409,
		    "The settings changed during the test; test again.");
	return APP_OK;
}

enum app_err
arops_enable(struct db *db, const char *slug, int on, struct ar_err *err,
    const struct principal *who)
{
	struct ar_settings	 s, old;
	enum app_err		 er;
	int			 found = 0;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	if ((er = load(db, slug, &s, NULL, &found, err)) != APP_OK)
		return er;
	if ((er = scope(who, s.queue_id, err)) != APP_OK)
		return er;
	if (on && (!found || s.tested_ms == 0))
		return fail(err, APP_INVALID, "test_required", -1, 409,
		    "Auto-rate needs a passing test of the current health "
		    "URL and rules first.");
	if (!found || s.enabled == (on ? 1 : 0))
		return APP_OK;	/* as asked already */
	old = s;
	s.enabled = on ? 1 : 0;
	s.updated_ms = qops_now(db);
	if (s.updated_ms <= old.updated_ms)
		s.updated_ms = old.updated_ms + 1;
	if ((er = save_audited(db, who, slug, on ? "autorate_enable" :
	    "autorate_disable", &old, &s, 1, err)) != APP_OK)
		return er;
	log_info("autorate %s: %s", slug, on ? "enabled" : "disabled");
	return APP_OK;
}

struct json_object *
ar_settings_json(const struct ar_settings *s, const char *slug)
{
	struct json_object	*o, *t;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (slug != NULL)
		json_object_object_add(o, "slug", json_object_new_string(slug));
	json_object_object_add(o, "enabled",
	    json_object_new_boolean(s->enabled != 0));
	json_object_object_add(o, "dryRun",
	    json_object_new_boolean(s->dry_run != 0));
	json_object_object_add(o, "healthUrl", json_object_new_string(s->url));
	json_object_object_add(o, "allowPrivateNetwork",
	    json_object_new_boolean(s->allow_private != 0));
	json_object_object_add(o, "intervalSeconds",
	    json_object_new_int64(s->interval_s));
	json_object_object_add(o, "rules", json_object_new_string(s->rules));
	json_object_object_add(o, "minRate",
	    json_object_new_int64(s->rate_min));
	json_object_object_add(o, "maxRate",
	    json_object_new_int64(s->rate_max));
	json_object_object_add(o, "raiseStep", json_object_new_int64(s->step));
	json_object_object_add(o, "cutPercent",
	    json_object_new_int64(s->cut_pct));
	json_object_object_add(o, "cooldownSeconds",
	    json_object_new_int64(s->cooldown_s));
	json_object_object_add(o, "hysteresisPercent",
	    json_object_new_int64(s->band_pct));
	json_object_object_add(o, "failuresBeforeMin",
	    json_object_new_int64(s->failures_to_min));
	json_object_object_add(o, "testedMs", s->tested_ms > 0 ?
	    json_object_new_int64(s->tested_ms) : NULL);
	t = s->tested_result[0] != '\0' ?
	    json_tokener_parse(s->tested_result) : NULL;
	json_object_object_add(o, "testResult", t);
	json_object_object_add(o, "lastPollMs", s->poll_ms > 0 ?
	    json_object_new_int64(s->poll_ms) : NULL);
	json_object_object_add(o, "failuresInARow",
	    json_object_new_int64(s->mem.failures));
	return o;
}

/* Append one log entry to the array arg. */
static int
log_row(const struct ar_log_entry *e, void *arg)
{
	struct json_object	*a = arg, *o, *sample;

	if ((o = json_object_new_object()) == NULL)
		return -1;
	json_object_object_add(o, "atMs", json_object_new_int64(e->at_ms));
	json_object_object_add(o, "kind", json_object_new_string(e->kind));
	json_object_object_add(o, "dryRun",
	    json_object_new_boolean(e->dry_run != 0));
	json_object_object_add(o, "action", json_object_new_string(e->action));
	json_object_object_add(o, "state", json_object_new_string(e->state));
	json_object_object_add(o, "reason", json_object_new_string(e->reason));
	json_object_object_add(o, "rule", e->rule[0] != '\0' ?
	    json_object_new_string(e->rule) : NULL);
	json_object_object_add(o, "rateBefore",
	    json_object_new_int64(e->rate_before));
	json_object_object_add(o, "rateAfter",
	    json_object_new_int64(e->rate_after));
	json_object_object_add(o, "responseTimeMs", e->response_ms >= 0 ?
	    json_object_new_int64(e->response_ms) : NULL);
	sample = json_tokener_parse(e->sample);
	json_object_object_add(o, "sample", sample != NULL ? sample :
	    json_object_new_object());
	return json_object_array_add(a, o) == 0 ? 0 : -1;
}

enum app_err
arops_log(struct db *db, const char *slug, int64_t limit,
    struct json_object **out, struct ar_err *err)
{
	struct ar_settings	 s;
	enum app_err		 er;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	*out = NULL;
	if (limit < 1 || limit > 1000)
		return fail(err, APP_INVALID, "invalid_value", -1, 422,
		    "limit: an integer from 1 to 1000.");
	if ((er = load(db, slug, &s, NULL, NULL, err)) != APP_OK)
		return er;
	if ((*out = json_object_new_array()) == NULL)
		return fail(err, APP_ENOMEM, "internal", -1, 500,
		    "Out of memory.");
	if ((er = db_ar_log_list(db, s.queue_id, limit, log_row, *out)) !=
	    APP_OK) {
		json_object_put(*out);
		*out = NULL;
		return db_fail(err, er);
	}
	return APP_OK;
}
