/*
 * loadtest-ops.c - asking for a load test and showing one, for the API
 * and the CLI alike (see loadtest.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "db-loadtest.h"
#include "db-stats.h"
#include "isotime.h"
#include "loadtest.h"
#include "principal.h"
#include "queue-audit.h"
#include "queue-ops.h"

enum app_err
lt_refuse(struct lt_err *err, enum app_err er, int status, const char *code,
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
		return lt_refuse(err, er, 503, "service_unavailable", NULL,
		    "The database does not answer; try again.");
	return lt_refuse(err, er, 500, "internal_error", NULL,
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
		return lt_refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "An API key cannot run load tests; sign in to the "
		    "console.");
	if ((er = qops_get(db, slug, &q, &qe)) != APP_OK) {
		if (er == APP_NOTFOUND)
			return lt_refuse(err, er, 404, "queue_not_found",
			    "queue", "No queue with this slug.");
		return failed(err, er);
	}
	if (!qops_in_scope(who, q->id)) {
		qops_queue_free(q);
		return lt_refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "This queue is outside your scope.");
	}
	if ((field = lt_check(c, profile, rate, duration_s, &rule)) != NULL) {
		qops_queue_free(q);
		return lt_refuse(err, APP_INVALID, 422, "invalid_value", field,
		    "%s", rule);
	}
	if (!q->load_test_queue) {
		qops_queue_free(q);
		return lt_refuse(err, APP_INVALID, 422, "not_a_test_queue",
		    "queue", "Load tests run only against a test queue "
		    "(loadTestQueue on); this one serves visitors.");
	}
	if (c->loadtest_url[0] == '\0') {
		qops_queue_free(q);
		return lt_refuse(err, APP_INVALID, 409,
		    "load_tests_unavailable", NULL, "Load tests are off in "
		    "this installation: set loadtest-url (the room's address "
		    "as the worker reaches it) in the configuration.");
	}
	*queue_id = q->id;
	qops_queue_free(q);
	return APP_OK;
}

/* A pending run of queue qid (not a replay) asked for by who, in *r. */
static void
run_init(struct lt_run *r, int64_t qid, const char *profile, int64_t rate,
    int64_t duration_s, const struct principal *who)
{
	memset(r, 0, sizeof(*r));
	r->queue_id = qid;
	snprintf(r->profile, sizeof(r->profile), "%s", profile);
	r->rate = rate;
	r->duration_s = duration_s;
	snprintf(r->requested_by, sizeof(r->requested_by), "%s", who->name);
	r->replay_speed_milli = 1000;
	r->replay_volume_milli = 1000;
}

enum app_err
lt_insert_run(struct db *db, int64_t qid, const char *profile, int64_t rate,
    int64_t duration_s, const struct principal *who, int64_t *id)
{
	struct lt_run	 r;

	run_init(&r, qid, profile, rate, duration_s, who);
	return db_lt_insert(db, &r, id);
}

/*
 * Insert run r of queue slug and its audit row "loadtest.start" (after,
 * released here, gets the id) in one transaction.  Sets *id (0 on
 * failure).  Returns APP_OK, or an error with *err set.
 */
static enum app_err
insert_audited(struct db *db, const struct principal *who,
    const struct lt_run *r, const char *slug, struct json_object *after,
    int64_t *id, struct lt_err *err)
{
	enum app_err	 er;

	if ((er = db_begin(db)) == APP_OK &&
	    (er = db_lt_insert(db, r, id)) == APP_OK) {
		json_object_object_add(after, "id", json_object_new_int64(*id));
		if ((er = qops_audit_write(db, who, r->queue_id, slug,
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

enum app_err
lt_ask(struct db *db, const struct cfg *c, const struct principal *who,
    const char *slug, const char *profile, int64_t rate, int64_t duration_s,
    int64_t *id, struct lt_err *err)
{
	struct json_object	*after;
	struct lt_run		 r;
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
	run_init(&r, qid, profile, rate, duration_s, who);
	return insert_audited(db, who, &r, slug, after, id, err);
}

void
lt_put_time(struct json_object *o, const char *key, int64_t ms)
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
lt_json_head(int64_t id, const char *slug, const char *profile,
    int64_t rate, int64_t duration_s)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "queue", json_object_new_string(slug));
	json_object_object_add(o, "profile", json_object_new_string(profile));
	json_object_object_add(o, "ratePerSecond", json_object_new_int64(rate));
	json_object_object_add(o, "durationSeconds",
	    json_object_new_int64(duration_s));
	return o;
}

struct json_object *
lt_run_json(const struct lt_run *r, const struct lt_second *s, size_t n)
{
	struct json_object	*o, *lat, *a, *e;
	size_t			 i;
	double			 secs = (double)r->elapsed_ms / 1000.0;

	if ((o = lt_json_head(r->id, r->slug, r->profile, r->rate,
	    r->duration_s)) == NULL)
		return NULL;
	json_object_object_add(o, "status", json_object_new_string(r->status));
	json_object_object_add(o, "requestedBy",
	    json_object_new_string(r->requested_by));
	json_object_object_add(o, "runner", json_object_new_string(r->runner));
	lt_put_time(o, "createdAt", r->created_ms);
	lt_put_time(o, "startedAt", r->started_ms);
	lt_put_time(o, "finishedAt", r->finished_ms);
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
	e = r->served_by[0] != '\0' ?
	    json_tokener_parse(r->served_by) : NULL;
	json_object_object_add(o, "servedBy", e != NULL ? e :
	    json_object_new_array());
	if (r->replay_queue_id > 0) {
		e = json_object_new_object();
		json_object_object_add(e, "queue",
		    json_object_new_string(r->replay_slug));
		lt_put_time(e, "from", r->replay_from_ms);
		lt_put_time(e, "to", r->replay_to_ms);
		json_object_object_add(e, "speed",
		    num3((double)r->replay_speed_milli / 1000.0));
		json_object_object_add(e, "volume",
		    num3((double)r->replay_volume_milli / 1000.0));
		json_object_object_add(o, "replay", e);
	} else
		json_object_object_add(o, "replay", NULL);
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

int
lt_replay_load(struct db *db, const struct lt_run *r, size_t max_joins,
    int64_t **due_us, size_t *njoins, int64_t *duration_ms, int64_t *peak)
{
	struct stats_row	*s = NULL;
	int64_t			*t = NULL, *iss = NULL;
	size_t			 n = 0, m = 0, i;
	int			 rc = -1;

	*due_us = NULL;
	*njoins = 0;
	if (db_stats_series(db, r->replay_queue_id, r->replay_from_ms, &s,
	    &n) != APP_OK)
		return -3;
	if ((t = try_reallocarray(NULL, n + 1, sizeof(*t))) != NULL &&
	    (iss = try_reallocarray(NULL, n + 1, sizeof(*iss))) != NULL) {
		for (i = 0; i < n; i++)
			if (s[i].sampled_ms >= r->replay_from_ms &&
			    s[i].sampled_ms <= r->replay_to_ms) {
				t[m] = s[i].sampled_ms;
				iss[m++] = s[i].issued;
			}
		rc = lt_replay_plan(t, iss, m,
		    (double)r->replay_speed_milli / 1000.0,
		    (double)r->replay_volume_milli / 1000.0, max_joins, due_us,
		    njoins, duration_ms, peak);
	}
	free(t);
	free(iss);
	free(s);
	return rc;
}

enum app_err
lt_ask_replay(struct db *db, const struct cfg *c,
    const struct principal *who, const char *slug, const char *src,
    int64_t from_ms, int64_t to_ms, int64_t speed_milli,
    int64_t volume_milli, int64_t *id, struct lt_err *err)
{
	struct lt_run		 r;
	struct queue		*q = NULL;
	struct qops_err		 qe;
	int64_t			*due = NULL, dur_ms, peak;
	size_t			 njoins = 0;
	enum app_err		 er;
	int			 rc;

	*id = 0;
	memset(&r, 0, sizeof(r));
	if ((er = lt_check_ask(db, c, who, slug, "mix", 1, 1, &r.queue_id,
	    err)) != APP_OK)
		return er;
	if (src == NULL || (er = qops_get(db, src, &q, &qe)) != APP_OK) {
		if (src == NULL || er == APP_NOTFOUND)
			return lt_refuse(err, APP_NOTFOUND, 404,
			    "queue_not_found", "replay.queue", "replay.queue: "
			    "no queue with this slug.");
		return failed(err, er);
	}
	r.replay_queue_id = q->id;
	snprintf(r.replay_slug, sizeof(r.replay_slug), "%s", q->slug);
	qops_queue_free(q);
	if (!qops_in_scope(who, r.replay_queue_id))
		return lt_refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "replay.queue is outside your scope.");
	if (to_ms <= from_ms)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.to", "replay.to must be after replay.from.");
	if (speed_milli < 1 || speed_milli > LT_SCALE_MAX)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.speed", "replay.speed must be from 0.001 to 1000 "
		    "(times faster than the event).");
	if (volume_milli < 1 || volume_milli > LT_SCALE_MAX)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.volume", "replay.volume must be from 0.001 to "
		    "1000 (times the event's joins).");
	r.replay_from_ms = from_ms;
	r.replay_to_ms = to_ms;
	r.replay_speed_milli = speed_milli;
	r.replay_volume_milli = volume_milli;
	rc = lt_replay_load(db, &r, (size_t)(c->loadtest_max_rate *
	    c->loadtest_max_duration_s), &due, &njoins, &dur_ms, &peak);
	free(due);
	if (rc == -3)
		return failed(err, APP_DB_DOWN);
	if (rc == -2)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.volume", "The replay would send more joins than "
		    "loadtest-max-rate times loadtest-max-duration: lower "
		    "replay.volume or shorten the window.");
	if (rc == -1 || njoins == 0)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.from", "%s has %s in this window (the worker "
		    "samples every queue every stats-interval-ms and keeps "
		    "the samples stats-retention seconds).", r.replay_slug,
		    rc == 0 ? "no join" : "fewer than two samples");
	r.duration_s = (dur_ms + 999) / 1000;
	if (r.duration_s < 1)
		r.duration_s = 1;
	if (r.duration_s > c->loadtest_max_duration_s)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.speed", "The replay would last %lld s, more than "
		    "loadtest-max-duration (%lld s): raise replay.speed or "
		    "shorten the window.", (long long)r.duration_s,
		    (long long)c->loadtest_max_duration_s);
	if (peak > c->loadtest_max_rate)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "replay.volume", "The replay's busiest second would send "
		    "%lld joins, more than loadtest-max-rate (%lld): lower "
		    "replay.volume or replay.speed.", (long long)peak,
		    (long long)c->loadtest_max_rate);
	r.rate = peak > 0 ? peak : 1;
	snprintf(r.profile, sizeof(r.profile), "replay");
	snprintf(r.requested_by, sizeof(r.requested_by), "%s", who->name);
	return insert_audited(db, who, &r, slug, lt_run_json(&r, NULL, 0),
	    id, err);
}

int
lt_header_token(const uint8_t *master_key, char *out, size_t len)
{
	static const char	 msg[] = "aditus-queue load test";
	uint8_t			 mac[HMAC_LEN];
	char			*b;
	int			 rc = -1;

	if (crypto_hmac_sha256(master_key, MASTER_KEY_LEN, msg,
	    sizeof(msg) - 1, mac) == -1 ||
	    (b = crypto_b64url_encode(mac, sizeof(mac))) == NULL)
		return -1;
	if (strlen(b) < len) {
		memcpy(out, b, strlen(b) + 1);
		rc = 0;
	}
	free(b);
	crypto_wipe(mac, sizeof(mac));
	return rc;
}
