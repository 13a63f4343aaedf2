/*
 * api-loadtest.c - load tests in the REST admin API (see
 * api-loadtest.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "api-loadtest.h"
#include "aqueue.h"
#include "db-loadtest.h"
#include "extern.h"
#include "isotime.h"
#include "jsonbody.h"
#include "loadtest.h"
#include "queue-ops.h"

#define ID_MAX		4294967295LL	/* INT UNSIGNED */
#define LIST_DEF	20
#define LIST_MAX	100

/* Answer refusal err as {"error","message"[,"field"]}. */
static void
answer(struct req *r, const struct lt_err *err)
{
	if (err->status == 503) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	if (err->status == 500) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	http_app_err_field(r, http_err_by_code(err->code), err->field,
	    err->message);
}

/* 422 invalid_value for field f with message m. */
static void
bad(struct req *r, const char *f, const char *m)
{
	http_app_err_field(r, ERR_INVALID_VALUE, f, m);
}

/*
 * A time member of o: Unix ms (an integer) or ISO 8601 with a zone.
 * Returns 0 with *ms, or -1.
 */
static int
time_member(struct json_object *o, const char *name, int64_t *ms)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, name, &v))
		return -1;
	if (json_object_is_type(v, json_type_int))
		return (*ms = json_object_get_int64(v)) > 0 ? 0 : -1;
	if (json_object_is_type(v, json_type_string))
		return iso_time_parse(json_object_get_string(v), ms);
	return -1;
}

/*
 * A scale member of o (a number, default 1) in thousandths: *milli.
 * Returns 0, or -1 when it is not a number from 0.001 to 1000.
 */
static int
scale_member(struct json_object *o, const char *name, int64_t *milli)
{
	struct json_object	*v;
	double			 d;

	*milli = 1000;
	if (!json_object_object_get_ex(o, name, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return -1;
	d = json_object_get_double(v);
	if (!(d >= 0.001 && d <= 1000.0))
		return -1;
	*milli = (int64_t)(d * 1000.0 + 0.5);
	return 0;
}

/*
 * POST with profile "replay": {queue, profile, replay: {queue, from, to,
 * speed?, volume?}}.  Sets *id, or answers and returns -1.
 */
static int
ask_replay(struct req *r, struct json_object *body, const char *slug,
    int64_t *id)
{
	struct json_object	*rp;
	struct lt_err		 err;
	const char		*src;
	int64_t			 from, to, speed, volume;
	size_t			 len;

	if (!json_object_object_get_ex(body, "replay", &rp) ||
	    !json_object_is_type(rp, json_type_object)) {
		bad(r, "replay", "replay is required with profile replay: "
		    "{queue, from, to, speed, volume}.");
		return -1;
	}
	if ((src = jsonbody_get_str(rp, "queue", &len)) == NULL ||
	    len != strlen(src) || len == 0) {
		bad(r, "replay.queue", "replay.queue is required: the slug of "
		    "the queue whose event is replayed.");
		return -1;
	}
	if (time_member(rp, "from", &from) == -1 ||
	    time_member(rp, "to", &to) == -1) {
		bad(r, time_member(rp, "from", &from) == -1 ? "replay.from" :
		    "replay.to", "replay.from and replay.to are required: Unix "
		    "ms or ISO 8601 with a zone.");
		return -1;
	}
	if (scale_member(rp, "speed", &speed) == -1 ||
	    scale_member(rp, "volume", &volume) == -1) {
		bad(r, scale_member(rp, "speed", &speed) == -1 ?
		    "replay.speed" : "replay.volume", "replay.speed and "
		    "replay.volume are numbers from 0.001 to 1000 (default "
		    "1).");
		return -1;
	}
	if (lt_ask_replay(r->db, r->cfg, &r->who, slug, src, from, to, speed,
	    volume, id, &err) != APP_OK) {
		answer(r, &err);
		return -1;
	}
	return 0;
}

/*
 * The members every request for a run has: queue and profile into
 * *slug and *profile (owned by body).  Returns 0, or -1 after answering
 * 422 naming the member.
 */
static int
run_head(struct req *r, struct json_object *body, const char **slug,
    const char **profile)
{
	size_t	 len;

	if ((*slug = jsonbody_get_str(body, "queue", &len)) == NULL ||
	    len != strlen(*slug) || len == 0) {
		bad(r, "queue", "queue is required: the slug of a test "
		    "queue.");
		return -1;
	}
	if ((*profile = jsonbody_get_str(body, "profile", &len)) == NULL ||
	    len != strlen(*profile)) {
		bad(r, "profile", "profile is required: mix, status, join or "
		    "replay.");
		return -1;
	}
	return 0;
}

/*
 * ratePerSecond and durationSeconds into *rate and *dur.  Returns 0,
 * or -1 after answering 422 naming the member.
 */
static int
run_load(struct req *r, struct json_object *body, int64_t *rate,
    int64_t *dur)
{
	if (jsonbody_get_int(body, "ratePerSecond", 1, INT64_MAX / 1000000,
	    rate) != 0) {
		bad(r, "ratePerSecond", "ratePerSecond is required: an "
		    "integer, requests per second.");
		return -1;
	}
	if (jsonbody_get_int(body, "durationSeconds", 1, INT64_MAX / 1000,
	    dur) != 0) {
		bad(r, "durationSeconds", "durationSeconds is required: an "
		    "integer, seconds.");
		return -1;
	}
	return 0;
}

/* POST: ask for a run from the body.  Answers. */
static void
ask(struct req *r)
{
	struct json_object	*body = NULL, *o;
	struct lt_err		 err;
	struct lt_run		 run;
	const char		*slug, *profile;
	enum http_err		 he;
	int64_t			 rate, dur, id;

	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if (run_head(r, body, &slug, &profile) == -1)
		goto out;
	if (strcmp(profile, "replay") == 0) {
		if (ask_replay(r, body, slug, &id) == -1)
			goto out;
		goto made;
	}
	if (run_load(r, body, &rate, &dur) == -1)
		goto out;
	if (lt_ask(r->db, r->cfg, &r->who, slug, profile, rate, dur, &id,
	    &err) != APP_OK) {
		answer(r, &err);
		goto out;
	}
made:
	if (db_lt_get(r->db, id, &run) != APP_OK ||
	    (o = lt_run_json(&run, NULL, 0)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	http_json(r, 202, o);
	json_object_put(o);
out:
	json_object_put(body);
}

void
api_loadtests(struct req *r)
{
	struct json_object	*o, *a;
	struct lt_run		*runs = NULL;
	struct queue		*q = NULL;
	struct qops_err		 qe;
	struct field_val	*fq = &r->fields[FIELD_QUEUE];
	struct field_val	*fl = &r->fields[FIELD_LIMIT];
	int64_t			 limit = LIST_DEF, qid = 0;
	size_t			 n = 0, i;
	enum app_err		 er;

	if (r->method == METHOD_POST) {
		ask(r);
		return;
	}
	if (fl->state == FIELD_BAD || (fl->state == FIELD_OK &&
	    parse_int64(fl->val, 1, LIST_MAX, &limit) == -1)) {
		http_app_err(r, ERR_INVALID_LIMIT);
		return;
	}
	if (fq->state == FIELD_BAD) {
		http_app_err(r, ERR_INVALID_FILTER);
		return;
	}
	if (fq->state == FIELD_OK) {
		if ((er = qops_get(r->db, fq->val, &q, &qe)) != APP_OK) {
			http_app_err(r, er == APP_NOTFOUND ?
			    ERR_QUEUE_NOT_FOUND : er == APP_DB_DOWN ?
			    ERR_DB_DOWN : ERR_INTERNAL);
			return;
		}
		qid = q->id;
		qops_queue_free(q);
	}
	if ((er = db_lt_list(r->db, qid, limit, &runs, &n)) != APP_OK) {
		http_app_err(r, er == APP_DB_DOWN ? ERR_DB_DOWN :
		    ERR_INTERNAL);
		return;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, lt_run_json(&runs[i], NULL, 0));
	json_object_object_add(o, "loadtests", a);
	http_json(r, 200, o);
	json_object_put(o);
	free(runs);
}

void
api_loadtest(struct req *r)
{
	struct json_object	*o;
	struct lt_run		 run;
	struct lt_second	*s = NULL;
	int64_t			 id;
	size_t			 n = 0;
	enum app_err		 er;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1 ||
	    (er = db_lt_get(r->db, id, &run)) == APP_NOTFOUND) {
		http_app_err(r, ERR_LOADTEST_NOT_FOUND);
		return;
	}
	if (er == APP_OK)
		er = db_lt_seconds(r->db, id, &s, &n);
	if (er != APP_OK) {
		http_app_err(r, er == APP_DB_DOWN ? ERR_DB_DOWN :
		    ERR_INTERNAL);
		return;
	}
	if ((o = lt_run_json(&run, s, n)) == NULL)
		http_app_err(r, ERR_INTERNAL);
	else {
		http_json(r, 200, o);
		json_object_put(o);
	}
	free(s);
}

/* POST: a new schedule from the body.  Answers. */
static void
schedule_add(struct req *r)
{
	struct json_object	*body = NULL, *w, *o;
	struct lt_schedule	*all = NULL;
	struct lt_err		 err;
	const char		*slug, *profile, *zone = NULL;
	enum http_err		 he;
	int64_t			 rate, dur, every = 0, wd = -1, at = -1, id;
	size_t			 len, n = 0, i;

	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if (run_head(r, body, &slug, &profile) == -1 ||
	    run_load(r, body, &rate, &dur) == -1)
		goto out;
	if (json_object_object_get_ex(body, "everyMinutes", &w) &&
	    w != NULL) {
		if (jsonbody_get_int(body, "everyMinutes", 1, LT_EVERY_MAX,
		    &every) != 0) {
			bad(r, "everyMinutes", "everyMinutes must be an "
			    "integer from 1 to 40320 (four weeks).");
			goto out;
		}
	} else if (json_object_object_get_ex(body, "weekly", &w) &&
	    json_object_is_type(w, json_type_object)) {
		const char *day = jsonbody_get_str(w, "weekday", &len);

		wd = lt_weekday(day);
		at = lt_hhmm(jsonbody_get_str(w, "time", &len));
		zone = jsonbody_get_str(w, "timeZone", &len);
		if (zone != NULL && len != strlen(zone))
			zone = NULL;
	} else {
		bad(r, "everyMinutes", "everyMinutes (an interval) or weekly "
		    "{weekday, time, timeZone} is required.");
		goto out;
	}
	if (lt_schedule_add(r->db, r->cfg, &r->who, slug, profile, rate, dur,
	    every, wd, at, zone, &id, &err) != APP_OK) {
		answer(r, &err);
		goto out;
	}
	if (db_lts_list(r->db, &all, &n) != APP_OK) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	for (i = 0; i < n && all[i].id != id; i++)
		continue;
	if (i == n || (o = lt_schedule_json(&all[i])) == NULL)
		http_app_err(r, ERR_INTERNAL);
	else {
		http_json(r, 201, o);
		json_object_put(o);
	}
	free(all);
out:
	json_object_put(body);
}

void
api_loadtest_schedules(struct req *r)
{
	struct json_object	*o, *a;
	struct lt_schedule	*s = NULL;
	size_t			 n = 0, i;
	enum app_err		 er;

	if (r->method == METHOD_POST) {
		schedule_add(r);
		return;
	}
	if ((er = db_lts_list(r->db, &s, &n)) != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		if (qops_in_scope(&r->who, s[i].queue_id))
			json_object_array_add(a, lt_schedule_json(&s[i]));
	json_object_object_add(o, "schedules", a);
	http_json(r, 200, o);
	json_object_put(o);
	free(s);
}

void
api_loadtest_schedule(struct req *r)
{
	struct lt_err	 err;
	int64_t		 id;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1) {
		http_app_err(r, ERR_LOADTEST_NOT_FOUND);
		return;
	}
	if (lt_schedule_delete(r->db, &r->who, id, &err) != APP_OK)
		answer(r, &err);
	else
		http_send(r, 204, NULL, NULL, 0);
}
