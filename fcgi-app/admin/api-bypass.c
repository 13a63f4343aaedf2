/*
 * api-bypass.c - VIP bypass codes in the REST admin API (see
 * api-bypass.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "api-bypass.h"
#include "aqueue.h"
#include "bypass.h"
#include "crypto.h"
#include "extern.h"
#include "isotime.h"
#include "jsonbody.h"
#include "queue-ops.h"

#define ID_MAX		4294967295LL	/* INT UNSIGNED */

/*
 * Answer a refusal of bypass.h by its code (http_err_by_code()) as
 * {"error","message"[,"field"]}; 503 with Retry-After when the database
 * does not answer.
 */
static void
answer(struct req *r, const struct bypass_err *err)
{
	if (err->status == 503) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	http_app_err_field(r, http_err_by_code(err->code), err->field,
	    err->message);
}

/* 422 for field f with message m.  Returns nothing. */
static void
bad(struct req *r, const char *f, const char *m)
{
	struct bypass_err	 err;

	memset(&err, 0, sizeof(err));
	err.status = 422;
	err.code = "invalid_value";
	err.field = f;
	snprintf(err.message, sizeof(err.message), "%s", m);
	answer(r, &err);
}

/*
 * The slug of the route's ":id" queue into slug: 404 for a malformed or
 * unknown id.  Returns 0, or -1 after answering.
 */
static int
site_slug(struct req *r, char slug[SLUG_MAX + 1])
{
	struct queue	*q = NULL;
	struct qops_err	 err;
	int64_t		 id;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1) {
		http_app_err(r, ERR_QUEUE_NOT_FOUND);
		return -1;
	}
	if (qops_get_id(r->db, id, &q, &err) != APP_OK) {
		if (err.reason == QOPS_R_UNAVAILABLE)
			http_app_err(r, ERR_DB_DOWN);
		else if (err.reason == QOPS_R_NOT_FOUND)
			http_app_err(r, ERR_QUEUE_NOT_FOUND);
		else
			http_app_err(r, ERR_INTERNAL);
		return -1;
	}
	snprintf(slug, SLUG_MAX + 1, "%s", q->slug);
	qops_queue_free(q);
	return 0;
}

/* POST: a new code from body.  Answers. */
static void
create(struct req *r, const char *slug, struct json_object *body)
{
	struct json_object	*v, *o;
	struct bypass_err	 err;
	struct bypass_code	 c;
	const char		*label;
	char			*code = NULL, link[512];
	int64_t			 limit = 0, expires = 0, id;
	size_t			 len;

	label = jsonbody_get_str(body, "label", &len);
	if (label == NULL || len != strlen(label)) {
		bad(r, "label", "label: a string of 1-200 characters.");
		return;
	}
	if (json_object_object_get_ex(body, "uses", &v) && v != NULL &&
	    (!json_object_is_type(v, json_type_int) ||
	    (limit = json_object_get_int64(v)) < 1 ||
	    limit > BYPASS_USES_MAX)) {
		bad(r, "uses", "uses: a whole number from 1 to 1000000, or "
		    "null for no limit.");
		return;
	}
	if (json_object_object_get_ex(body, "expiresAt", &v) && v != NULL &&
	    !(json_object_is_type(v, json_type_int) &&
	    (expires = json_object_get_int64(v)) > 0) &&
	    !(json_object_is_type(v, json_type_string) &&
	    iso_time_parse(json_object_get_string(v), &expires) == 0)) {
		bad(r, "expiresAt", "expiresAt: Unix milliseconds or ISO 8601 "
		    "with a zone, in the future, or null for never.");
		return;
	}
	if (bypass_create(r->db, slug, label, limit, expires, &code, &id,
	    &err, &r->who) != APP_OK) {
		answer(r, &err);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.id = id;
	snprintf(c.slug, sizeof(c.slug), "%s", slug);
	snprintf(c.label, sizeof(c.label), "%s", label);
	c.use_limit = limit;
	c.expires_ms = expires;
	c.now_ms = r->now_ms;
	o = bypass_json(&c);
	json_object_object_add(o, "code", json_object_new_string(code));
	snprintf(link, sizeof(link), "%s/queue/%s/enter?code=%s", r->base,
	    slug, code);
	json_object_object_add(o, "link", json_object_new_string(link));
	http_json(r, 201, o);
	json_object_put(o);
	crypto_wipe(code, strlen(code));
	free(code);
}

void
api_bypass_codes(struct req *r)
{
	struct json_object	*body = NULL, *o, *a;
	struct bypass_code	*c = NULL;
	struct bypass_err	 err;
	enum http_err		 he;
	char			 slug[SLUG_MAX + 1];
	size_t			 n = 0, i;

	if (site_slug(r, slug) == -1)
		return;
	if (r->method == METHOD_POST) {
		if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
			http_app_err(r, he);
			return;
		}
		create(r, slug, body);
		json_object_put(body);
		return;
	}
	if (bypass_list(r->db, slug, &c, &n, &err, &r->who) != APP_OK) {
		answer(r, &err);
		return;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, bypass_json(&c[i]));
	json_object_object_add(o, "codes", a);
	http_json(r, 200, o);
	json_object_put(o);
	free(c);
}

void
api_bypass_code(struct req *r)
{
	struct json_object	*body = NULL, *v;
	struct bypass_code	*c = NULL;
	struct bypass_err	 err;
	enum http_err		 he;
	char			 slug[SLUG_MAX + 1];
	int64_t			 id;
	size_t			 n = 0, i;
	enum app_err		 er;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1) {
		http_app_errf(r, ERR_NOT_FOUND, "No such code.");
		return;
	}
	if (r->method == METHOD_DELETE) {
		if (bypass_delete(r->db, id, slug, &err, &r->who) != APP_OK)
			answer(r, &err);
		else
			http_send(r, 204, NULL, NULL, 0);
		return;
	}
	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if (!json_object_object_get_ex(body, "enabled", &v) ||
	    !json_object_is_type(v, json_type_boolean)) {
		bad(r, "enabled", "enabled: true or false.");
		goto out;
	}
	if ((er = bypass_set_enabled(r->db, id, json_object_get_boolean(v),
	    slug, &err, &r->who)) != APP_OK) {
		answer(r, &err);
		goto out;
	}
	if (bypass_list(r->db, slug, &c, &n, &err, &r->who) != APP_OK) {
		answer(r, &err);
		goto out;
	}
	for (i = 0; i < n && c[i].id != id; i++)
		continue;
	if (i == n)
		http_app_errf(r, ERR_NOT_FOUND, "No such code.");
	else {
		v = bypass_json(&c[i]);
		http_json(r, 200, v);
		json_object_put(v);
	}
	free(c);
out:
	json_object_put(body);
}
