/*
 * api-admin.c - the REST admin API: queues ("sites"), their state, API
 * keys and the audit log as JSON.  Scope, validation and the audit log
 * are the queue operations' (queue-ops.c), the same as for the CLI and
 * the console.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admin-user.h"
#include "admission.h"
#include "api-admin.h"
#include "aqueue.h"
#include "cfg.h"
#include "db-console.h"
#include "db-stats.h"
#include "extern.h"
#include "instance.h"
#include "jsonbody.h"
#include "queue-ops.h"

#define PAGE_DEF	50	/* rows of a list page by default */
#define PAGE_MAX	100	/* rows of a list page at most */
#define ID_MAX		4294967295LL	/* INT UNSIGNED */

/* Add member key = v to o (v NULL: JSON null). */
static void
put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

/*
 * Answer the failure of a queue operation by its reason's code
 * (http_err_by_code()): 422 with the field's API name and its rule,
 * 403, 404, 409, 503 (with Retry-After) or 500, as
 * {"error","message"[,"field"]}.  Can't fail.
 */
static void
qops_answer(struct req *r, const struct qops_err *err)
{
	const char	*key;
	char		*msg;
	enum http_err	 he = http_err_by_code(qops_reason_code(err->reason));

	if (he == ERR_INTERNAL || he == ERR_DB_DOWN) {
		http_app_err(r, he);
		return;
	}
	if (err->field < 0) {
		http_app_errf(r, he, "%s", qops_reason_text(err->reason));
		return;
	}
	key = qops_field((enum qops_field)err->field)->key;
	msg = err->reason == QOPS_R_MISSING ?
	    xasprintf("%s is required: %s", key,
	    qops_field((enum qops_field)err->field)->rule) :
	    err->reason == QOPS_R_UNICODE ?
	    xasprintf("%s is not valid UTF-8", key) :
	    xasprintf("%s must be %s", key,
	    qops_field((enum qops_field)err->field)->rule);
	http_app_err_field(r, he, key, msg);
	free(msg);
}

/* 422 for a field outside the field table (e.g. slug, active). */
static void
field_error(struct req *r, const char *field, const char *msg)
{
	http_app_err_field(r, ERR_INVALID_VALUE, field, msg);
}

/* Send o with status and release it; 500 when o is NULL. */
static void
send_json(struct req *r, int status, struct json_object *o)
{
	if (o == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	http_json(r, status, o);
	json_object_put(o);
}

/*
 * The row id in the route's ":id" segment, or -1 when it is not a
 * decimal id.  Can't fail.
 */
static int64_t
route_id(const struct req *r)
{
	int64_t	 id;

	if (parse_int64(r->arg, 1, ID_MAX, &id) == -1)
		return -1;
	return id;
}

int
api_site_load(struct req *r, struct queue **out)
{
	struct qops_err	 err;
	int64_t		 id = route_id(r);

	*out = NULL;
	if (id > 0 && !qops_in_scope(&r->who, id)) {
		http_app_err(r, ERR_FORBIDDEN);
		return -1;
	}
	if (id < 0) {
		http_app_err(r, ERR_QUEUE_NOT_FOUND);
		return -1;
	}
	if (qops_get_id(r->db, id, out, &err) != APP_OK) {
		qops_answer(r, &err);
		return -1;
	}
	return 0;
}

/* Answer the site of the route's ":id" as it is now (200). */
static void
site_answer(struct req *r, int status)
{
	struct queue	*q;

	if (api_site_load(r, &q) == -1)
		return;
	send_json(r, status, qops_site_json(r->db, q, qops_now(r->db)));
	qops_queue_free(q);
}

/*
 * The page size and cursor of a list request: limit 1..PAGE_MAX
 * (PAGE_DEF when absent), cursor a row id (0 when absent).  Returns 0,
 * or -1 after answering 400.
 */
static int
page_args(struct req *r, int64_t *limit, int64_t *cursor)
{
	struct field_val	*l = &r->fields[FIELD_LIMIT];
	struct field_val	*c = &r->fields[FIELD_CURSOR];

	*limit = PAGE_DEF;
	*cursor = 0;
	if (l->state == FIELD_BAD || (l->state == FIELD_OK &&
	    parse_int64(l->val, 1, PAGE_MAX, limit) == -1)) {
		http_app_errf(r, ERR_INVALID_LIMIT, "limit must be a whole "
		    "number from 1 to %d.", PAGE_MAX);
		return -1;
	}
	if (c->state == FIELD_BAD || (c->state == FIELD_OK &&
	    parse_int64(c->val, 1, INT64_MAX, cursor) == -1)) {
		http_app_err(r, ERR_INVALID_CURSOR);
		return -1;
	}
	return 0;
}

/* The "next" cursor: id as a string, or null when no page follows. */
static struct json_object *
next_json(int more, int64_t id)
{
	char	 buf[24];

	if (!more)
		return NULL;
	snprintf(buf, sizeof(buf), "%lld", (long long)id);
	return json_object_new_string(buf);
}

/* GET /sites: the queues r->who may see, a page at a time. */
static void
sites_list(struct req *r)
{
	struct json_object	*o, *a;
	struct queue		**qs = NULL, *q = NULL;
	struct qops_err		 err;
	enum app_err		 er;
	int64_t			 limit, cursor, now;
	size_t			 n = 0, i;

	if (page_args(r, &limit, &cursor) == -1)
		return;
	if (r->who.kind == PRINCIPAL_KEY) {
		/* A key sees at most its own queue. */
		er = cursor >= r->who.queue_id ? APP_NOTFOUND :
		    qops_get_id(r->db, r->who.queue_id, &q, &err);
		if (er == APP_OK) {
			qs = &q;
			n = 1;
		} else if (er != APP_NOTFOUND) {
			qops_answer(r, &err);
			return;
		}
	} else if (db_queue_list_page(r->db, cursor, limit + 1, &qs, &n) !=
	    APP_OK) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	now = qops_now(r->db);
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n && i < (size_t)limit; i++)
		json_object_array_add(a, qops_site_json(r->db, qs[i], now));
	put(o, "sites", a);
	put(o, "next", next_json(n > (size_t)limit,
	    n > (size_t)limit ? qs[limit - 1]->id : 0));
	if (q != NULL)
		qops_queue_free(q);
	else
		qops_list_free(qs, n);
	send_json(r, 200, o);
}

/*
 * Fill *spec from the members of body named like fields of the table;
 * other members are ignored.  Returns 0, or -1 after answering 422.
 */
static int
spec_from_body(struct req *r, struct json_object *body,
    struct qops_spec *spec)
{
	struct json_object	*v;
	struct qops_err		 err;
	int			 f;

	memset(spec, 0, sizeof(*spec));
	for (f = 0; f < QOPS_F__MAX; f++) {
		if (!json_object_object_get_ex(body,
		    qops_field((enum qops_field)f)->key, &v))
			continue;
		if (qops_spec_json(spec, (enum qops_field)f, v, &err) !=
		    APP_OK) {
			qops_answer(r, &err);
			return -1;
		}
	}
	return 0;
}

/* POST /sites: create a queue (console session only). */
static void
site_create(struct req *r)
{
	struct json_object	*body = NULL, *v, *o;
	struct qops_spec	 spec;
	struct qops_err		 err;
	struct queue		*q = NULL;
	const char		*slug = NULL;
	char			*secret = NULL;
	enum http_err		 he;
	int64_t			 id;

	if (r->who.kind == PRINCIPAL_KEY) {
		http_app_errf(r, ERR_FORBIDDEN, "An API key cannot create "
		    "queues; sign in to the console.");
		return;
	}
	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if (json_object_object_get_ex(body, "slug", &v) &&
	    json_object_is_type(v, json_type_string))
		slug = json_object_get_string(v);
	if (slug == NULL) {
		field_error(r, "slug", "slug is required: 1-63 of a-z 0-9 -, "
		    "starting with a letter or digit");
		goto out;
	}
	if (spec_from_body(r, body, &spec) == -1)
		goto out;
	if (qops_create(r->db, r->cfg, slug, &spec, &secret, &id, &err,
	    &r->who) != APP_OK) {
		if (err.reason == QOPS_R_SLUG)
			field_error(r, "slug", qops_reason_text(err.reason));
		else
			qops_answer(r, &err);
		goto out;
	}
	if (qops_get_id(r->db, id, &q, &err) != APP_OK) {
		qops_answer(r, &err);
		goto out;
	}
	o = json_object_new_object();
	put(o, "site", qops_site_json(r->db, q, qops_now(r->db)));
	put(o, "secret", json_object_new_string(secret));
	send_json(r, 201, o);
out:
	qops_secret_free(secret);
	qops_queue_free(q);
	json_object_put(body);
}

void
api_sites(struct req *r)
{
	if (r->method == METHOD_POST)
		site_create(r);
	else
		sites_list(r);
}

void
api_site_get(struct req *r)
{
	site_answer(r, 200);
}

void
api_site_patch(struct req *r)
{
	struct json_object	*body = NULL, *v;
	struct qops_spec	 spec;
	struct qops_err		 err;
	struct queue		*q = NULL;
	enum http_err		 he;

	if (api_site_load(r, &q) == -1)
		return;
	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		goto out;
	}
	/* The slug names the queue for good: accepted only unchanged. */
	if (json_object_object_get_ex(body, "slug", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), q->slug) != 0)) {
		field_error(r, "slug", "slug cannot be changed; leave it out "
		    "or send it as it is");
		goto out;
	}
	/* Every field in one change: all of it, or nothing. */
	if (spec_from_body(r, body, &spec) == -1)
		goto out;
	if (spec.set != 0 &&
	    qops_update(r->db, q->slug, &spec, &err, &r->who) != APP_OK) {
		qops_answer(r, &err);
		goto out;
	}
	site_answer(r, 200);
out:
	json_object_put(body);
	qops_queue_free(q);
}

void
api_site_delete(struct req *r)
{
	struct queue	*q;
	struct qops_err	 err;

	if (api_site_load(r, &q) == -1)
		return;
	if (qops_delete(r->db, q->slug, &err, &r->who) != APP_OK)
		qops_answer(r, &err);
	else
		http_send(r, 204, NULL, NULL, 0);
	qops_queue_free(q);
}

/* What a state endpoint does. */
enum state_op { ST_PAUSE, ST_RESUME };

/* POST /sites/<id>/pause or /resume: answer the site after. */
/*
 * An action that takes no parameters: no body, or one JSON object (its
 * members ignored).  Returns 0, or -1 after answering 4xx (a malformed
 * body is refused before anything changes).
 */
static int
no_body(struct req *r)
{
	struct json_object	*body = NULL;
	enum http_err		 he;

	if ((he = req_body_json(r, &body, 0)) != ERR_OK) {
		http_app_err(r, he);
		return -1;
	}
	json_object_put(body);
	return 0;
}

static void
site_state(struct req *r, enum state_op op)
{
	struct queue	*q;
	struct qops_err	 err;
	enum app_err	 er;

	if (no_body(r) == -1 || api_site_load(r, &q) == -1)
		return;
	er = op == ST_PAUSE ? qops_pause(r->db, q->slug, &err, &r->who) :
	    qops_resume(r->db, q->slug, &err, &r->who);
	qops_queue_free(q);
	if (er != APP_OK)
		qops_answer(r, &err);
	else
		site_answer(r, 200);
}

void
api_site_pause(struct req *r)
{
	site_state(r, ST_PAUSE);
}

void
api_site_resume(struct req *r)
{
	site_state(r, ST_RESUME);
}

void
api_site_rotate(struct req *r)
{
	struct json_object	*o;
	struct queue		*q;
	struct qops_err		 err;
	char			*secret;

	if (no_body(r) == -1 || api_site_load(r, &q) == -1)
		return;
	if (qops_rotate_secret(r->db, r->cfg, q->slug, &secret, &err,
	    &r->who) != APP_OK)
		qops_answer(r, &err);
	else {
		o = json_object_new_object();
		put(o, "secret", json_object_new_string(secret));
		send_json(r, 200, o);
		qops_secret_free(secret);
	}
	qops_queue_free(q);
}

/* POST /sites/<id>/keys {"name"}: a new key, shown once (201). */
static void
key_create(struct req *r, const struct queue *q)
{
	struct json_object	*body = NULL, *o;
	struct api_key		*k = NULL;
	struct qops_err		 err;
	const char		*name;
	char			*key = NULL;
	size_t			 len, n, i;
	enum http_err		 he;
	int64_t			 id;

	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	name = jsonbody_get_str(body, "name", &len);
	if (name == NULL || len != strlen(name) || !qops_name_valid(name)) {
		field_error(r, "name", "name must be 1-200 characters of "
		    "UTF-8, not blank, without control characters");
		goto out;
	}
	if (qops_key_create(r->db, q->slug, name, &key, &id, &err,
	    &r->who) != APP_OK) {
		qops_answer(r, &err);
		goto out;
	}
	o = json_object_new_object();
	if (qops_key_list(r->db, q->slug, &k, &n, &err, &r->who) == APP_OK)
		for (i = 0; i < n; i++)
			if (k[i].id == id)
				put(o, "apiKey", qops_key_json(&k[i]));
	put(o, "key", json_object_new_string(key));
	send_json(r, 201, o);
	free(k);
out:
	qops_secret_free(key);
	json_object_put(body);
}

void
api_site_keys(struct req *r)
{
	struct json_object	*o, *a;
	struct api_key		*k = NULL;
	struct queue		*q;
	struct qops_err		 err;
	size_t			 n, i, shown = 0;
	int64_t			 limit, cursor;

	if (api_site_load(r, &q) == -1)
		return;
	if (r->method == METHOD_POST) {
		key_create(r, q);
		goto out;
	}
	if (page_args(r, &limit, &cursor) == -1)
		goto out;
	if (qops_key_list(r->db, q->slug, &k, &n, &err, &r->who) !=
	    APP_OK) {
		qops_answer(r, &err);
		goto out;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		if (k[i].id <= cursor)
			continue;
		if (shown == (size_t)limit)
			break;
		json_object_array_add(a, qops_key_json(&k[i]));
		shown++;
	}
	put(o, "keys", a);
	put(o, "next", next_json(i < n, i > 0 ? k[i - 1].id : 0));
	send_json(r, 200, o);
	free(k);
out:
	qops_queue_free(q);
}

void
api_key_revoke(struct req *r)
{
	struct qops_err	 err;
	int64_t		 id = route_id(r);

	if (id < 0) {
		http_app_err(r, ERR_KEY_NOT_FOUND);
		return;
	}
	if (qops_key_revoke(r->db, id, &err, &r->who) != APP_OK)
		qops_answer(r, &err);
	else
		http_send(r, 204, NULL, NULL, 0);
}

/*
 * Answer the audit log of queue_id (0: every queue) with the filters of
 * the query (actor, action, since, until: Unix ms) a page at a time.
 */
static void
audit_answer(struct req *r, int64_t queue_id)
{
	struct audit_filter	 f;
	struct audit_entry	*e = NULL;
	struct json_object	*o, *a;
	struct qops_err		 err;
	size_t			 n, i;
	int64_t			 limit, cursor;

	if (page_args(r, &limit, &cursor) == -1)
		return;
	memset(&f, 0, sizeof(f));
	f.queue_id = queue_id;
	f.before_id = cursor;
	f.limit = limit + 1;
	if (r->fields[FIELD_ACTOR].state == FIELD_OK)
		f.actor = r->fields[FIELD_ACTOR].val;
	if (r->fields[FIELD_ACTION].state == FIELD_OK)
		f.action = r->fields[FIELD_ACTION].val;
	if (r->fields[FIELD_ACTOR].state == FIELD_BAD ||
	    r->fields[FIELD_ACTION].state == FIELD_BAD ||
	    r->fields[FIELD_SINCE].state == FIELD_BAD ||
	    r->fields[FIELD_UNTIL].state == FIELD_BAD ||
	    (r->fields[FIELD_SINCE].state == FIELD_OK &&
	    parse_int64(r->fields[FIELD_SINCE].val, 0, INT64_MAX,
	    &f.since_ms) == -1) ||
	    (r->fields[FIELD_UNTIL].state == FIELD_OK &&
	    parse_int64(r->fields[FIELD_UNTIL].val, 1, INT64_MAX,
	    &f.until_ms) == -1)) {
		http_app_err(r, ERR_INVALID_FILTER);
		return;
	}
	if (qops_audit_list(r->db, &f, &e, &n, &err, &r->who) != APP_OK) {
		qops_answer(r, &err);
		return;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n && i < (size_t)limit; i++)
		json_object_array_add(a, qops_audit_json(&e[i]));
	put(o, "entries", a);
	put(o, "next", next_json(n > (size_t)limit,
	    n > (size_t)limit ? e[limit - 1].id : 0));
	db_audit_list_free(e, n);
	send_json(r, 200, o);
}

void
api_site_audit(struct req *r)
{
	struct queue	*q;
	int64_t		 id;

	if (api_site_load(r, &q) == -1)
		return;
	id = q->id;
	qops_queue_free(q);
	audit_answer(r, id);
}

void
api_audit(struct req *r)
{
	audit_answer(r, 0);
}

void
api_instances(struct req *r)
{
	struct instance_row	*inst = NULL;
	struct json_object	*o;
	size_t			 n = 0;

	if (db_instance_list(r->db, r->cfg->instance_stale_ms, &inst, &n) !=
	    APP_OK) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	o = json_object_new_object();
	put(o, "instances", instance_rows_json(inst, n));
	free(inst);
	send_json(r, 200, o);
}

/* qsort(3) order of console users: by id, the order of the pages. */
static int
user_by_id(const void *a, const void *b)
{
	const struct admin_user	*x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

void
api_users(struct req *r)
{
	struct admin_user	*u = NULL;
	struct json_object	*o, *a;
	size_t			 n = 0, i, shown = 0;
	int64_t			 limit, cursor;

	if (page_args(r, &limit, &cursor) == -1)
		return;
	if (db_admin_user_list(r->db, &u, &n) != APP_OK) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	if (n > 1)
		qsort(u, n, sizeof(*u), user_by_id);
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		if (u[i].id <= cursor)
			continue;
		if (shown == (size_t)limit)
			break;
		json_object_array_add(a, admin_user_json(&u[i]));
		shown++;
	}
	put(o, "users", a);
	put(o, "next", next_json(i < n, i > 0 ? u[i - 1].id : 0));
	free(u);
	send_json(r, 200, o);
}
