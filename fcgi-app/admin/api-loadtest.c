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
	size_t			 len;

	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if ((slug = jsonbody_get_str(body, "queue", &len)) == NULL ||
	    len != strlen(slug) || len == 0) {
		bad(r, "queue", "queue is required: the slug of a test "
		    "queue.");
		goto out;
	}
	if ((profile = jsonbody_get_str(body, "profile", &len)) == NULL ||
	    len != strlen(profile)) {
		bad(r, "profile", "profile is required: mix, status or join.");
		goto out;
	}
	if (jsonbody_get_int(body, "ratePerSecond", 1, INT64_MAX / 1000000,
	    &rate) != 0) {
		bad(r, "ratePerSecond", "ratePerSecond is required: an "
		    "integer, requests per second.");
		goto out;
	}
	if (jsonbody_get_int(body, "durationSeconds", 1, INT64_MAX / 1000,
	    &dur) != 0) {
		bad(r, "durationSeconds", "durationSeconds is required: an "
		    "integer, seconds.");
		goto out;
	}
	if (lt_ask(r->db, r->cfg, &r->who, slug, profile, rate, dur, &id,
	    &err) != APP_OK) {
		answer(r, &err);
		goto out;
	}
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
