/*
 * loadtest-ops.c - asking for a load test and showing one, for the API
 * and the CLI alike (see loadtest.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cfg.h"
#include "db.h"
#include "db-loadtest.h"
#include "isotime.h"
#include "loadtest.h"
#include "principal.h"
#include "queue-audit.h"
#include "queue-ops.h"

/* Refuse with status, code, field and a message.  Returns er. */
static enum app_err
refuse(struct lt_err *err, enum app_err er, int status, const char *code,
    const char *field, const char *fmt, ...)
{
	va_list	 ap;

	err->status = status;
	err->code = code;
	err->field = field;
	va_start(ap, fmt);
	(void)vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return er;
}

/* Refuse for a database failure er. */
static enum app_err
failed(struct lt_err *err, enum app_err er)
{
	if (er == APP_DB_DOWN)
		return refuse(err, er, 503, "service_unavailable", NULL,
		    "The database does not answer; try again.");
	return refuse(err, er, 500, "internal_error", NULL,
	    "Internal error.");
}

enum app_err
lt_check_ask(struct db *db, const struct cfg *c,
    const struct principal *who, const char *slug, const char *profile,
    int64_t rate, int64_t duration_s, int64_t *queue_id, struct lt_err *err)
{
	struct queue		*q = NULL;
	struct qops_err		 qe;
	const char		*field, *rule;
	enum app_err		 er;

	memset(err, 0, sizeof(*err));
	*queue_id = 0;
	if (who->kind == PRINCIPAL_KEY)
		return refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "An API key cannot run load tests; sign in to the "
		    "console.");
	if ((er = qops_get(db, slug, &q, &qe)) != APP_OK) {
		if (er == APP_NOTFOUND)
			return refuse(err, er, 404, "queue_not_found", "queue",
			    "No queue with this slug.");
		return failed(err, er);
	}
	if (!qops_in_scope(who, q->id)) {
		qops_queue_free(q);
		return refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "This queue is outside your scope.");
	}
	if ((field = lt_check(c, profile, rate, duration_s, &rule)) != NULL) {
		qops_queue_free(q);
		return refuse(err, APP_INVALID, 422, "invalid_value", field,
		    "%s", rule);
	}
	if (!q->load_test_queue) {
		qops_queue_free(q);
		return refuse(err, APP_INVALID, 422, "not_a_test_queue",
		    "queue", "Load tests run only against a test queue "
		    "(loadTestQueue on); this one serves visitors.");
	}
	if (c->loadtest_url[0] == '\0') {
		qops_queue_free(q);
		return refuse(err, APP_INVALID, 409, "load_tests_unavailable",
		    NULL, "Load tests are off in this installation: set "
		    "loadtest-url (the room's address as the worker reaches "
		    "it) in the configuration.");
	}
	*queue_id = q->id;
	qops_queue_free(q);
	return APP_OK;
}

enum app_err
lt_ask(struct db *db, const struct cfg *c, const struct principal *who,
    const char *slug, const char *profile, int64_t rate, int64_t duration_s,
    int64_t *id, struct lt_err *err)
{
	struct json_object	*after;
	enum app_err		 er;
	int64_t			 qid;

	*id = 0;
	if ((er = lt_check_ask(db, c, who, slug, profile, rate, duration_s,
	    &qid, err)) != APP_OK)
		return er;
	after = json_object_new_object();
	json_object_object_add(after, "profile",
	    json_object_new_string(profile));
	json_object_object_add(after, "ratePerSecond",
	    json_object_new_int64(rate));
	json_object_object_add(after, "durationSeconds",
	    json_object_new_int64(duration_s));
	if ((er = db_begin(db)) == APP_OK &&
	    (er = db_lt_insert(db, qid, profile, rate, duration_s,
	    who->name, id)) == APP_OK) {
		json_object_object_add(after, "id", json_object_new_int64(*id));
		if ((er = qops_audit_write(db, who, qid, slug,
		    "loadtest.start", NULL, after)) == APP_OK)
			er = db_commit(db);
	}
	if (er != APP_OK) {
		db_rollback(db);
		*id = 0;
	}
	json_object_put(after);
	return er == APP_OK ? APP_OK : failed(err, er);
}

/* Add key = ISO 8601 of ms (0: null) to o. */
static void
put_time(struct json_object *o, const char *key, int64_t ms)
{
	char	 buf[40];

	if (ms <= 0) {
		json_object_object_add(o, key, NULL);
		return;
	}
	iso_time_format(ms, buf, sizeof(buf));
	json_object_object_add(o, key, json_object_new_string(buf));
}

/* A number written with three decimals (json-c writes 17 digits). */
static struct json_object *
num3(double d)
{
	char	 buf[48];

	(void)snprintf(buf, sizeof(buf), "%.3f", d);
	return json_object_new_double_s(d, buf);
}

/* Microseconds as milliseconds, to the microsecond. */
static struct json_object *
ms_of(int64_t us)
{
	return num3((double)us / 1000.0);
}

struct json_object *
lt_run_json(const struct lt_run *r, const struct lt_second *s, size_t n)
{
	struct json_object	*o, *lat, *a, *e;
	size_t			 i;
	double			 secs = (double)r->elapsed_ms / 1000.0;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "queue", json_object_new_string(r->slug));
	json_object_object_add(o, "profile",
	    json_object_new_string(r->profile));
	json_object_object_add(o, "ratePerSecond",
	    json_object_new_int64(r->rate));
	json_object_object_add(o, "durationSeconds",
	    json_object_new_int64(r->duration_s));
	json_object_object_add(o, "status", json_object_new_string(r->status));
	json_object_object_add(o, "requestedBy",
	    json_object_new_string(r->requested_by));
	json_object_object_add(o, "runner", json_object_new_string(r->runner));
	put_time(o, "createdAt", r->created_ms);
	put_time(o, "startedAt", r->started_ms);
	put_time(o, "finishedAt", r->finished_ms);
	json_object_object_add(o, "elapsedSeconds", num3(secs));
	json_object_object_add(o, "sent", json_object_new_int64(r->sent));
	json_object_object_add(o, "ok", json_object_new_int64(r->ok));
	json_object_object_add(o, "errors", json_object_new_int64(r->errors));
	e = json_object_new_object();
	json_object_object_add(e, "join", json_object_new_int64(r->joins));
	json_object_object_add(e, "status", json_object_new_int64(r->polls));
	json_object_object_add(e, "token", json_object_new_int64(r->claims));
	json_object_object_add(o, "requests", e);
	json_object_object_add(o, "errorRate", json_object_new_double(
	    r->sent > 0 ? (double)r->errors / (double)r->sent : 0.0));
	json_object_object_add(o, "achievedRatePerSecond",
	    num3(secs > 0 ? (double)r->sent / secs : 0.0));
	lat = json_object_new_object();
	json_object_object_add(lat, "p50", ms_of(r->p50_us));
	json_object_object_add(lat, "p95", ms_of(r->p95_us));
	json_object_object_add(lat, "p99", ms_of(r->p99_us));
	json_object_object_add(o, "latencyMs", lat);
	json_object_object_add(o, "flagged",
	    json_object_new_boolean(r->flagged != 0));
	json_object_object_add(o, "flagReason",
	    json_object_new_string(r->flag_reason));
	json_object_object_add(o, "error", json_object_new_string(r->error));
	if (s == NULL)
		return o;
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "second",
		    json_object_new_int64(s[i].sec));
		json_object_object_add(e, "sent",
		    json_object_new_int64(s[i].sent));
		json_object_object_add(e, "ok", json_object_new_int64(s[i].ok));
		json_object_object_add(e, "errors",
		    json_object_new_int64(s[i].errors));
		json_object_object_add(e, "p50Ms", ms_of(s[i].p50_us));
		json_object_object_add(e, "p95Ms", ms_of(s[i].p95_us));
		json_object_object_add(e, "p99Ms", ms_of(s[i].p99_us));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "series", a);
	return o;
}
