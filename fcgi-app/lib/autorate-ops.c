/*
 * autorate-ops.c - the auto-rate operations (see autorate.h): settings
 * with one field table for the CLI and the API, the one-time test,
 * enabling, the log.  Time is the database's (qops_now()).
 */
#include "config.h"

#include <stddef.h>
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
#include "fields.h"
#include "health.h"
#include "log.h"
#include "principal.h"
#include "queue-ops.h"

/* Offsets of member m in struct ar_settings (request and row alike). */
#define AR(m)	.off = offsetof(struct ar_settings, m), \
		.roff = offsetof(struct ar_settings, m)

/* The auto-rate settings: the field engine's table (fields.h). */
const struct fld autorate_fields[AR_F__MAX] = {
	[AR_F_URL] = {
		.key = "healthUrl", .opt = "health-url",
		.label = "Health URL", .ctl = FLD_CTL_URL, .type = FLD_BUF,
		AR(url), .size = sizeof(((struct ar_settings *)0)->url),
		.column = "health_url", .max = 2048, .def = "",
		.rule = "an http(s) URL of the shop's health endpoint, at "
		    "most 2048 bytes, not a private or loopback address "
		    "unless allowPrivateNetwork" },
	[AR_F_ALLOW_PRIVATE] = {
		.key = "allowPrivateNetwork", .opt = "allow-private",
		.label = "Allow a private network", .ctl = FLD_CTL_CHECKBOX,
		.type = FLD_BOOL, AR(allow_private),
		.column = "allow_private", .min = 0, .max = 1, .def = "false",
		.rule = "true or false; changed only from the console or "
		    "the CLI, never with an API key",
		.flags = FLD_WIDENS },
	[AR_F_INTERVAL] = {
		.key = "intervalSeconds", .opt = "interval",
		.label = "Poll interval", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AR(interval_s), .column = "interval_s",
		.min = 2, .max = 3600, .def = "10",
		.rule = "an integer from 2 to 3600", .unit = "seconds" },
	[AR_F_RULES] = {
		.key = "rules", .opt = "rules", .label = "Rules",
		.ctl = FLD_CTL_TEXT, .type = FLD_BUF, AR(rules),
		.size = sizeof(((struct ar_settings *)0)->rules),
		.column = "rules", .max = 2048, .def = "",
		.rule = "rules \"path op number\" separated by commas, op "
		    "one of < <= > >=, at most 16" },
	[AR_F_MIN] = {
		.key = "minRate", .opt = "min", .label = "Lowest rate",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AR(rate_min),
		.column = "rate_min", .min = ADM_RATE_MIN,
		.max = ADM_RATE_MAX, .def = "1",
		.rule = "an integer from 1 to 1000000, at most maxRate",
		.unit = "visitors per minute" },
	[AR_F_MAX] = {
		.key = "maxRate", .opt = "max", .label = "Highest rate",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AR(rate_max),
		.column = "rate_max", .min = ADM_RATE_MIN,
		.max = ADM_RATE_MAX, .def = "1000",
		.rule = "an integer from 1 to 1000000, at least minRate",
		.unit = "visitors per minute" },
	[AR_F_STEP] = {
		.key = "raiseStep", .opt = "step", .label = "Raise step",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AR(step),
		.column = "raise_step", .min = 1, .max = ADM_RATE_MAX,
		.def = "10", .rule = "an integer from 1 to 1000000",
		.unit = "visitors per minute" },
	[AR_F_CUT] = {
		.key = "cutPercent", .opt = "cut", .label = "Cut",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AR(cut_pct),
		.column = "cut_percent", .min = 1, .max = 90, .def = "20",
		.rule = "an integer from 1 to 90", .unit = "percent" },
	[AR_F_COOLDOWN] = {
		.key = "cooldownSeconds", .opt = "cooldown",
		.label = "Cool-down", .ctl = FLD_CTL_NUMBER, .type = FLD_INT,
		AR(cooldown_s), .column = "cooldown_s", .min = 0,
		.max = 86400, .def = "60",
		.rule = "an integer from 0 to 86400", .unit = "seconds" },
	[AR_F_BAND] = {
		.key = "hysteresisPercent", .opt = "band",
		.label = "Hysteresis band", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AR(band_pct), .column = "band_percent",
		.min = 0, .max = 50, .def = "10",
		.rule = "an integer from 0 to 50", .unit = "percent" },
	[AR_F_FAILURES] = {
		.key = "failuresBeforeMin", .opt = "failures",
		.label = "Failures before the lowest rate",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AR(failures_to_min),
		.column = "failures_to_min", .min = 1, .max = 1000,
		.def = "3", .rule = "an integer from 1 to 1000" },
	[AR_F_DRY_RUN] = {
		.key = "dryRun", .opt = "dry-run", .label = "Dry run",
		.ctl = FLD_CTL_CHECKBOX, .type = FLD_BOOL, AR(dry_run),
		.column = "dry_run", .min = 0, .max = 1, .def = "false",
		.rule = "true or false" },
};

const struct fld *
ar_field(enum ar_field f)
{
	return fld_at(autorate_fields, AR_F__MAX, (int)f);
}

int
ar_field_find(const char *name)
{
	return fld_find(autorate_fields, AR_F__MAX, name);
}

void
ar_settings_default(struct ar_settings *s, int64_t queue_id)
{
	size_t	 f;

	memset(s, 0, sizeof(*s));
	s->queue_id = queue_id;
	for (f = 0; f < AR_F__MAX; f++)
		(void)fld_parse(&autorate_fields[f], s,
		    autorate_fields[f].def);
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

/*
 * Whether who may make the change from old to s as far as the worker's
 * reach goes: an API key changes no FLD_WIDENS setting (the private
 * network), and while the private network is allowed it does not move
 * the health URL either (that would point the worker at another address
 * of that network).  Console users, the CLI and the worker may.
 * Returns APP_OK, or APP_INVALID with code "forbidden" (403).
 */
static enum app_err
key_reach(const struct principal *who, const struct ar_settings *old,
    const struct ar_settings *s, struct ar_err *err)
{
	size_t	 f;

	if (who == NULL || who->kind != PRINCIPAL_KEY)
		return APP_OK;
	for (f = 0; f < AR_F__MAX; f++)
		if ((autorate_fields[f].flags & FLD_WIDENS) &&
		    !fld_same(&autorate_fields[f], old, s))
			return fail(err, APP_INVALID, "forbidden", (int)f, 403,
			    "An API key cannot change allowPrivateNetwork: "
			    "use the console or the CLI.");
	if (s->allow_private && strcmp(s->url, old->url) != 0)
		return fail(err, APP_INVALID, "forbidden", AR_F_URL, 403,
		    "An API key cannot move the health URL while the "
		    "private network is allowed: use the console or the "
		    "CLI.");
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
	struct json_object	*b, *a;
	enum app_err		 er = APP_ENOMEM;

	b = audit_json(before);
	a = audit_json(after);
	if (b != NULL && a != NULL)
		er = qops_audit_write(db, who, after->queue_id, slug, action,
		    b, a);
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

	snprintf(msg, sizeof(msg), "%s: %s.", autorate_fields[f].key,
	    why != NULL ? why : autorate_fields[f].rule);
	return fail(err, APP_INVALID, f == AR_F_URL ? "invalid_health_url" :
	    f == AR_F_RULES ? "invalid_rules" : "invalid_value", (int)f, 422,
	    msg);
}

enum app_err
ar_field_set(struct ar_settings *s, unsigned int *set, enum ar_field f,
    const char *text, struct ar_err *err)
{
	enum fld_why	 why;

	memset(err, 0, sizeof(*err));
	err->field = -1;
	if (f >= AR_F__MAX || text == NULL)
		return fail(err, APP_INVALID, "invalid_value", -1, 422,
		    "Unknown field.");
	if ((why = fld_parse(&autorate_fields[f], s, text)) == FLD_UNICODE)
		return bad_field(err, f, "not valid UTF-8");
	if (why != FLD_OK)
		return bad_field(err, f, NULL);
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
	size_t		 f;

	for (f = 0; f < AR_F__MAX; f++)
		if (fld_check(&autorate_fields[f], s) != FLD_OK)
			return bad_field(err, (enum ar_field)f, NULL);
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
	for (i = 0; i < AR_F__MAX; i++)
		if ((set & AR_BIT(i)) &&
		    fld_copy(&autorate_fields[i], &s, in) == -1)
			return fail(err, APP_ENOMEM, "internal", -1, 500,
			    "Out of memory.");
	s.allow_private = s.allow_private ? 1 : 0;
	if ((er = key_reach(who, &old, &s, err)) != APP_OK)
		return er;
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
	size_t			 f;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (slug != NULL)
		json_object_object_add(o, "slug", json_object_new_string(slug));
	json_object_object_add(o, "enabled",
	    json_object_new_boolean(s->enabled != 0));
	for (f = 0; f < AR_F__MAX; f++)
		json_object_object_add(o, autorate_fields[f].key,
		    fld_to_json(&autorate_fields[f], s, FLD_AT_ROW));
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
