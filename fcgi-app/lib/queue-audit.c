/*
 * queue-audit.c - who may change a queue, and the record of what was
 * changed: the reasons an operation gives (struct qops_err), the
 * principal's scope, the audit log's rows, the API keys and the audit
 * log's reading (queue-ops.h; the helpers shared with queue-ops.c in
 * queue-audit.h).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "crypto.h"
#include "db.h"
#include "queue-audit.h"
#include "queue-fields.h"

static const struct {
	const char	*code;
	const char	*text;
	int		 status;
} reasons[QOPS_R__MAX] = {
	/* QOPS_R_OK */
	{ "ok", "done", 200 },
	/* QOPS_R_MISSING */
	{ "missing_value", "a required setting is missing", 422 },
	/* QOPS_R_INVALID */
	{ "invalid_value", "a setting has an invalid value", 422 },
	/* QOPS_R_SLUG */
	{ "invalid_slug", "the slug must be 1-63 of a-z 0-9 -, starting "
	    "with a letter or digit", 422 },
	/* QOPS_R_EXISTS */
	{ "queue_exists", "a queue with this slug exists", 409 },
	/* QOPS_R_NOT_FOUND */
	{ "queue_not_found", "no such queue", 404 },
	/* QOPS_R_UNAVAILABLE */
	{ "service_unavailable", "the database does not answer", 503 },
	/* QOPS_R_INTERNAL */
	{ "internal_error", "the operation failed (see the log)", 500 },
	/* QOPS_R_FORBIDDEN */
	{ "forbidden", "this credential may not do this", 403 },
	/* QOPS_R_KEY_NOT_FOUND */
	{ "key_not_found", "no such API key", 404 },
	/* QOPS_R_UNICODE */
	{ "invalid_unicode", "a text setting is not valid UTF-8", 400 },
};

const char *
qops_reason_code(enum qops_reason r)
{
	return r < QOPS_R__MAX ? reasons[r].code : "internal_error";
}

const char *
qops_reason_text(enum qops_reason r)
{
	return reasons[r < QOPS_R__MAX ? r : QOPS_R_INTERNAL].text;
}

int
qops_reason_status(enum qops_reason r)
{
	return r < QOPS_R__MAX ? reasons[r].status : 500;
}

const char *
qops_warning_code(unsigned int bit)
{
	return bit == QOPS_W_TARGET_OUTSIDE ? "target_outside_domains" :
	    bit == QOPS_W_RATE_LIMITED ? "rate_limited_by_total_active_users" :
	    "unknown";
}

const char *
qops_warning_text(unsigned int bit)
{
	return bit == QOPS_W_TARGET_OUTSIDE ? "the target URL is not on one "
	    "of the shop domains" : bit == QOPS_W_RATE_LIMITED ? "the "
	    "admission rate or burst was lowered (or passthrough paced) so "
	    "that admissions within a session duration stay within "
	    "totalActiveUsers" : "unknown warning";
}

void
qops_err_init(struct qops_err *err)
{
	err->reason = QOPS_R_OK;
	err->field = -1;
	err->warnings = 0;
}

enum app_err
qops_refuse(struct qops_err *err, enum app_err er, enum qops_reason r,
    int f)
{
	err->reason = r;
	err->field = f;
	return er;
}

enum app_err
qops_failed(struct qops_err *err, enum app_err er)
{
	switch (er) {
	case APP_OK:
		err->reason = QOPS_R_OK;
		break;
	case APP_NOTFOUND:
		err->reason = QOPS_R_NOT_FOUND;
		break;
	case APP_DB_DOWN:
		err->reason = QOPS_R_UNAVAILABLE;
		break;
	default:
		err->reason = QOPS_R_INTERNAL;
		break;
	}
	return er;
}

void
qops_secret_free(char *secret)
{
	if (secret == NULL)
		return;
	crypto_wipe(secret, strlen(secret));
	free(secret);
}

/* Whether who names someone who may ask for changes.  Returns 1 or 0. */
static int
known(const struct principal *who)
{
	return who != NULL && who->kind != PRINCIPAL_NONE;
}

int
qops_in_scope(const struct principal *who, int64_t queue_id)
{
	if (!known(who))
		return 0;
	if (who->kind != PRINCIPAL_KEY)
		return 1;
	/* -1: the queue is not known yet; the row's id is checked later. */
	return queue_id == -1 || (who->queue_id > 0 &&
	    queue_id == who->queue_id);
}

int
qops_may_manage(const struct principal *who)
{
	return known(who) && who->kind != PRINCIPAL_KEY;
}

enum app_err
qops_forbid(struct qops_err *err)
{
	return qops_refuse(err, APP_INVALID, QOPS_R_FORBIDDEN, -1);
}

const char *
qops_principal_kind(const struct principal *who)
{
	if (who == NULL)
		return "none";
	switch (who->kind) {
	case PRINCIPAL_USER:
		return "user";
	case PRINCIPAL_KEY:
		return "key";
	case PRINCIPAL_CLI:
		return "cli";
	case PRINCIPAL_WORKER:
		return "worker";
	case PRINCIPAL_NONE:
		break;
	}
	return "none";
}

/* Add member key = v (NULL: JSON null) to o.  Returns 0 or -1. */
static int
add(struct json_object *o, const char *key, struct json_object *v)
{
	return json_object_object_add(o, key, v);
}

/* The compact JSON text of o (owned by o), or NULL for NULL. */
static const char *
json_text(struct json_object *o)
{
	return o == NULL ? NULL : json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

enum app_err
qops_audit_write(struct db *db, const struct principal *who,
    int64_t queue_id, const char *slug, const char *action,
    struct json_object *before, struct json_object *after)
{
	struct audit_entry	*e;
	enum app_err		 er;

	if ((e = try_calloc(1, sizeof(*e))) == NULL)
		return APP_ENOMEM;
	snprintf(e->actor_kind, sizeof(e->actor_kind), "%s",
	    qops_principal_kind(who));
	e->actor_id = who->id;
	snprintf(e->actor_name, sizeof(e->actor_name), "%s", who->name);
	e->queue_id = queue_id;
	snprintf(e->queue_slug, sizeof(e->queue_slug), "%s",
	    slug != NULL ? slug : "");
	snprintf(e->action, sizeof(e->action), "%s", action);
	e->before_json = (char *)(uintptr_t)json_text(before);
	e->after_json = (char *)(uintptr_t)json_text(after);
	snprintf(e->client_addr, sizeof(e->client_addr), "%s", who->addr);
	er = db_audit_insert(db, e);
	free(e);
	return er;
}

/* qops_audit_write() for queue q (NULL: none). */
static enum app_err
audit_row(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, struct json_object *before, struct json_object *after)
{
	return qops_audit_write(db, who, q != NULL ? q->id : 0,
	    q != NULL ? q->slug : NULL, action, before, after);
}

enum app_err
qops_audit(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, const struct queue *before,
    const struct queue *after)
{
	struct json_object	*b = NULL, *a = NULL;
	enum app_err		 er = APP_ENOMEM;

	if ((before == NULL || (b = qops_queue_fields(before)) != NULL) &&
	    (after == NULL || (a = qops_queue_fields(after)) != NULL))
		er = audit_row(db, who, q, action, b, a);
	json_object_put(b);
	json_object_put(a);
	return er;
}

enum app_err
qops_audit_change(struct db *db, const struct principal *who,
    const struct queue *q, const char *action, struct json_object *before,
    int no_values)
{
	struct json_object	*now, *b, *a, *v;
	enum app_err		 er = APP_ENOMEM;
	int			 changed = 0;

	if (no_values)
		return audit_row(db, who, q, action, NULL, NULL);
	if ((now = qops_queue_fields(q)) == NULL)
		return APP_ENOMEM;
	b = json_object_new_object();
	a = json_object_new_object();
	if (b == NULL || a == NULL)
		goto out;
	json_object_object_foreach(before, key, old) {
		if (!json_object_object_get_ex(now, key, &v))
			continue;
		if (strcmp(json_text(old) != NULL ? json_text(old) : "null",
		    json_text(v) != NULL ? json_text(v) : "null") == 0)
			continue;
		changed = 1;
		add(b, key, old == NULL ? NULL : json_object_get(old));
		add(a, key, v == NULL ? NULL : json_object_get(v));
	}
	er = changed ? audit_row(db, who, q, action, b, a) : APP_OK;
out:
	json_object_put(now);
	json_object_put(b);
	json_object_put(a);
	return er;
}

/*
 * Audit action on API key k of queue q with the JSON texts before and
 * after built from k's id, name and revoked flag.  Returns as
 * audit_row().
 */
static enum app_err
audit_key(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, int64_t key_id, const char *name, int was_revoked)
{
	struct json_object	*b = NULL, *a;
	enum app_err		 er = APP_ENOMEM;

	if ((a = json_object_new_object()) == NULL)
		return APP_ENOMEM;
	add(a, "keyId", json_object_new_int64(key_id));
	add(a, "name", json_object_new_string(name));
	if (was_revoked != -1) {
		if ((b = json_object_new_object()) == NULL)
			goto out;
		add(b, "keyId", json_object_new_int64(key_id));
		add(b, "name", json_object_new_string(name));
		add(b, "revoked", json_object_new_boolean(was_revoked));
		add(a, "revoked", json_object_new_boolean(1));
	}
	er = audit_row(db, who, q, action, b, a);
out:
	json_object_put(b);
	json_object_put(a);
	return er;
}

enum app_err
qops_key_create(struct db *db, const char *slug, const char *name,
    char **key, int64_t *id, struct qops_err *err,
    const struct principal *who)
{
	struct queue	*q = NULL;
	uint8_t		 raw[QOPS_KEY_RANDOM], hash[KEY_HASH_LEN];
	char		*b64, prefix[QOPS_KEY_SHOWN + 1];
	enum app_err	 er;

	qops_err_init(err);
	*key = NULL;
	*id = 0;
	if (!qops_may_manage(who))
		return qops_forbid(err);
	if (!qops_name_valid(name))
		return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_NAME);
	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (b64 = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return qops_failed(err, APP_CRYPTO);
	crypto_wipe(raw, sizeof(raw));
	*key = xasprintf("%s%s", QOPS_KEY_PREFIX, b64);
	qops_secret_free(b64);
	snprintf(prefix, sizeof(prefix), "%s", *key);
	if (crypto_sha256(*key, strlen(*key), hash) == -1) {
		er = APP_CRYPTO;
		goto out;
	}
	if ((er = db_begin(db)) != APP_OK)
		goto out;
	if ((er = db_queue_get_locked(db, slug, &q)) == APP_OK &&
	    (er = db_key_insert(db, q->id, name, hash, prefix, id)) ==
	    APP_OK &&
	    (er = audit_key(db, who, q, "key_create", *id, name, -1)) ==
	    APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
out:
	db_queue_free(q);
	if (er != APP_OK) {
		qops_secret_free(*key);
		*key = NULL;
		*id = 0;
		return qops_failed(err, er);
	}
	return APP_OK;
}

enum app_err
qops_key_list(struct db *db, const char *slug, struct api_key **out,
    size_t *n, struct qops_err *err, const struct principal *who)
{
	struct queue	*q = NULL;
	int64_t		 queue_id = 0;
	enum app_err	 er;

	qops_err_init(err);
	*out = NULL;
	*n = 0;
	if (!qops_may_manage(who))
		return qops_forbid(err);
	if (slug != NULL) {
		if ((er = db_queue_get(db, slug, &q)) != APP_OK)
			return qops_failed(err, er);
		queue_id = q->id;
		db_queue_free(q);
	}
	return qops_failed(err, db_key_list(db, queue_id, out, n));
}

enum app_err
qops_key_revoke(struct db *db, int64_t id, struct qops_err *err,
    const struct principal *who)
{
	struct api_key	 k;
	struct queue	*q = NULL;
	enum app_err	 er;

	qops_err_init(err);
	if (!qops_may_manage(who))
		return qops_forbid(err);
	if ((er = db_begin(db)) != APP_OK)
		return qops_failed(err, er);
	if ((er = db_key_get_locked(db, id, &k)) != APP_OK)
		goto out;
	if (k.revoked_ms != 0) {
		db_rollback(db);
		return APP_OK;
	}
	if ((er = db_queue_get(db, k.queue_slug, &q)) == APP_OK &&
	    (er = db_key_revoke(db, id)) == APP_OK &&
	    (er = audit_key(db, who, q, "key_revoke", id, k.name, 0)) ==
	    APP_OK)
		er = db_commit(db);
out:
	db_queue_free(q);
	if (er != APP_OK) {
		db_rollback(db);
		if (er == APP_NOTFOUND)
			return qops_refuse(err, er, QOPS_R_KEY_NOT_FOUND, -1);
	}
	return qops_failed(err, er);
}

enum app_err
qops_audit_list(struct db *db, const struct audit_filter *f,
    struct audit_entry **out, size_t *n, struct qops_err *err,
    const struct principal *who)
{
	struct audit_filter	 g = *f;

	qops_err_init(err);
	*out = NULL;
	*n = 0;
	if (!known(who) || (who->kind == PRINCIPAL_KEY &&
	    (f->queue_id <= 0 || !qops_in_scope(who, f->queue_id))))
		return qops_forbid(err);
	if (g.limit < 1)
		g.limit = 1;
	if (g.limit > 1000)
		g.limit = 1000;
	return qops_failed(err, db_audit_list(db, &g, out, n));
}


/* A time in Unix ms, null for 0 (never). */
static struct json_object *
ms_json(int64_t ms)
{
	return ms == 0 ? NULL : json_object_new_int64(ms);
}

struct json_object *
qops_key_json(const struct api_key *k)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	add(o, "id", json_object_new_int64(k->id));
	add(o, "siteId", json_object_new_int64(k->queue_id));
	add(o, "slug", json_object_new_string(k->queue_slug));
	add(o, "name", json_object_new_string(k->name));
	add(o, "prefix", json_object_new_string(k->prefix));
	add(o, "createdAt", ms_json(k->created_ms));
	add(o, "lastUsedAt", ms_json(k->last_used_ms));
	add(o, "revokedAt", ms_json(k->revoked_ms));
	return o;
}

struct json_object *
qops_audit_json(const struct audit_entry *e)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	add(o, "id", json_object_new_int64(e->id));
	add(o, "at", json_object_new_int64(e->at_ms));
	add(o, "actorKind", json_object_new_string(e->actor_kind));
	add(o, "actor", json_object_new_string(e->actor_name));
	add(o, "siteId", e->queue_id != 0 ?
	    json_object_new_int64(e->queue_id) : NULL);
	add(o, "slug", e->queue_slug[0] != '\0' ?
	    json_object_new_string(e->queue_slug) : NULL);
	add(o, "action", json_object_new_string(e->action));
	add(o, "before", e->before_json != NULL ?
	    json_tokener_parse(e->before_json) : NULL);
	add(o, "after", e->after_json != NULL ?
	    json_tokener_parse(e->after_json) : NULL);
	add(o, "clientAddr", json_object_new_string(e->client_addr));
	return o;
}
