/*
 * bypass.c - VIP bypass codes: the operations of the console, the API
 * and the CLI, and their audit rows (see bypass.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "bypass.h"
#include "crypto.h"
#include "db.h"
#include "principal.h"
#include "queue-fields.h"
#include "queue-ops.h"

/* Fill *err; returns er. */
static enum app_err
fail(struct bypass_err *err, enum app_err er, int status, const char *code,
    const char *field, const char *msg)
{
	err->status = status;
	err->code = code;
	err->field = field;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return er;
}

/* The refusal of a database or lookup error er. */
static enum app_err
db_fail(struct bypass_err *err, enum app_err er)
{
	switch (er) {
	case APP_NOTFOUND:
		return fail(err, er, 404, "not_found", NULL,
		    "No such queue or code.");
	case APP_DB_DOWN:
		return fail(err, er, 503, "service_unavailable", NULL,
		    "The database does not answer; try again.");
	default:
		return fail(err, er, 500, "internal_error", NULL,
		    "Internal error (logged).");
	}
}

/* Whether who may manage codes: a console user or the CLI. */
static enum app_err
may(const struct principal *who, struct bypass_err *err)
{
	memset(err, 0, sizeof(*err));
	if (who == NULL || who->kind == PRINCIPAL_NONE ||
	    who->kind == PRINCIPAL_KEY)
		return fail(err, APP_INVALID, 403, "forbidden", NULL,
		    "Bypass codes are managed from the console or the CLI, "
		    "never with an API key.");
	return APP_OK;
}

int
bypass_hash(const char *code, size_t len, uint8_t hash[BYPASS_HASH_LEN])
{
	if (len > BYPASS_CODE_MAX)
		len = BYPASS_CODE_MAX;
	return crypto_sha256(code, len, hash);
}

const char *
bypass_state(const struct bypass_code *c)
{
	if (c->disabled)
		return "disabled";
	if (c->expires_ms != 0 && c->expires_ms <= c->now_ms)
		return "expired";
	if (c->use_limit != 0 && c->uses >= c->use_limit)
		return "used_up";
	return "active";
}

/* A time in Unix ms, null for 0. */
static struct json_object *
ms_json(int64_t ms)
{
	return ms == 0 ? NULL : json_object_new_int64(ms);
}

struct json_object *
bypass_json(const struct bypass_code *c)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(c->id));
	json_object_object_add(o, "siteId",
	    json_object_new_int64(c->queue_id));
	json_object_object_add(o, "slug", json_object_new_string(c->slug));
	json_object_object_add(o, "label", json_object_new_string(c->label));
	json_object_object_add(o, "useLimit", ms_json(c->use_limit));
	json_object_object_add(o, "uses", json_object_new_int64(c->uses));
	json_object_object_add(o, "expiresAt", ms_json(c->expires_ms));
	json_object_object_add(o, "enabled",
	    json_object_new_boolean(!c->disabled));
	json_object_object_add(o, "state",
	    json_object_new_string(bypass_state(c)));
	json_object_object_add(o, "createdAt", ms_json(c->created_ms));
	return o;
}

/* What the audit keeps of a code: never its text nor its hash. */
static struct json_object *
audit_json(const struct bypass_code *c)
{
	struct json_object	*o;

	if (c == NULL || (o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "codeId", json_object_new_int64(c->id));
	json_object_object_add(o, "label", json_object_new_string(c->label));
	json_object_object_add(o, "useLimit", ms_json(c->use_limit));
	json_object_object_add(o, "uses", json_object_new_int64(c->uses));
	json_object_object_add(o, "expiresAt", ms_json(c->expires_ms));
	json_object_object_add(o, "enabled",
	    json_object_new_boolean(!c->disabled));
	return o;
}

/* The compact text of o (owned by o), or NULL. */
static const char *
text_of(struct json_object *o)
{
	return o == NULL ? NULL : json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * One audit row: actor (kind and name from who, or "visitor"), action
 * on the code of queue queue_id/slug, before and after (NULL: none).
 */
static enum app_err
audit(struct db *db, const struct principal *who, const char *kind,
    const char *action, int64_t queue_id, const char *slug,
    struct json_object *before, struct json_object *after)
{
	struct audit_entry	*e;
	enum app_err		 er;

	if ((e = try_calloc(1, sizeof(*e))) == NULL)
		return APP_ENOMEM;
	snprintf(e->actor_kind, sizeof(e->actor_kind), "%s", kind);
	e->actor_id = who->id;
	snprintf(e->actor_name, sizeof(e->actor_name), "%s", who->name);
	e->queue_id = queue_id;
	snprintf(e->queue_slug, sizeof(e->queue_slug), "%s", slug);
	snprintf(e->action, sizeof(e->action), "%s", action);
	e->before_json = (char *)(uintptr_t)text_of(before);
	e->after_json = (char *)(uintptr_t)text_of(after);
	snprintf(e->client_addr, sizeof(e->client_addr), "%s", who->addr);
	er = db_audit_insert(db, e);
	free(e);
	return er;
}

enum app_err
bypass_create(struct db *db, const char *slug, const char *label,
    int64_t use_limit, int64_t expires_ms, char **code, int64_t *id,
    struct bypass_err *err, const struct principal *who)
{
	struct bypass_code	 c;
	struct queue		*q = NULL;
	struct json_object	*a = NULL;
	uint8_t			 raw[BYPASS_RANDOM_LEN], hash[BYPASS_HASH_LEN];
	int64_t			 now;
	enum app_err		 er;

	*code = NULL;
	*id = 0;
	if ((er = may(who, err)) != APP_OK)
		return er;
	if (!qops_name_valid(label))
		return fail(err, APP_INVALID, 422, "invalid_value", "label",
		    "label: 1-200 characters of UTF-8, not blank, without "
		    "control characters.");
	if (use_limit < 0 || use_limit > BYPASS_USES_MAX)
		return fail(err, APP_INVALID, 422, "invalid_value", "uses",
		    "uses: a whole number from 1 to 1000000, or none.");
	now = qops_now(db);
	if (expires_ms < 0 || (expires_ms != 0 && expires_ms <= now))
		return fail(err, APP_INVALID, 422, "invalid_value",
		    "expiresAt", "expiresAt: a time in the future, or none.");
	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (*code = crypto_b64url_encode(raw, sizeof(raw))) == NULL ||
	    bypass_hash(*code, strlen(*code), hash) == -1) {
		crypto_wipe(raw, sizeof(raw));
		qops_secret_free(*code);
		*code = NULL;
		return fail(err, APP_CRYPTO, 500, "internal_error", NULL,
		    "No random code could be made (logged).");
	}
	crypto_wipe(raw, sizeof(raw));
	if ((er = db_begin(db)) != APP_OK)
		goto out;
	if ((er = db_queue_get_locked(db, slug, &q)) == APP_OK &&
	    (er = db_bypass_insert(db, q->id, label, hash, use_limit,
	    expires_ms, id)) == APP_OK) {
		memset(&c, 0, sizeof(c));
		c.id = *id;
		snprintf(c.label, sizeof(c.label), "%s", label);
		c.use_limit = use_limit;
		c.expires_ms = expires_ms;
		a = audit_json(&c);
		er = audit(db, who, qops_principal_kind(who), "bypass_create",
		    q->id, q->slug, NULL, a);
	}
	if (er == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
out:
	json_object_put(a);
	db_queue_free(q);
	if (er != APP_OK) {
		qops_secret_free(*code);
		*code = NULL;
		*id = 0;
		return db_fail(err, er);
	}
	return APP_OK;
}

enum app_err
bypass_list(struct db *db, const char *slug, struct bypass_code **out,
    size_t *n, struct bypass_err *err, const struct principal *who)
{
	struct queue	*q = NULL;
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	if ((er = may(who, err)) != APP_OK)
		return er;
	if ((er = db_queue_get(db, slug, &q)) != APP_OK)
		return db_fail(err, er);
	er = db_bypass_list(db, q->id, out, n);
	db_queue_free(q);
	return er == APP_OK ? APP_OK : db_fail(err, er);
}

/*
 * Change code id in one transaction: enable (op 1), disable (0) or
 * delete (-1), audited.  See bypass_set_enabled().
 */
static enum app_err
change(struct db *db, int64_t id, int op, char *slug_out,
    struct bypass_err *err, const struct principal *who)
{
	struct bypass_code	 c, after;
	struct json_object	*b = NULL, *a = NULL;
	const char		*action;
	enum app_err		 er;

	if ((er = may(who, err)) != APP_OK)
		return er;
	if ((er = db_begin(db)) != APP_OK)
		return db_fail(err, er);
	if ((er = db_bypass_get_locked(db, id, &c)) != APP_OK)
		goto out;
	if (slug_out != NULL)
		snprintf(slug_out, SLUG_MAX + 1, "%s", c.slug);
	if (op >= 0 && c.disabled == !op) {
		db_rollback(db);
		return APP_OK;		/* nothing changes: no row */
	}
	after = c;
	b = audit_json(&c);
	if (op < 0) {
		action = "bypass_delete";
		er = db_bypass_delete(db, id);
	} else {
		action = op ? "bypass_enable" : "bypass_disable";
		after.disabled = !op;
		a = audit_json(&after);
		er = db_bypass_set_disabled(db, id, !op);
	}
	if (er == APP_OK)
		er = audit(db, who, qops_principal_kind(who), action,
		    c.queue_id, c.slug, b, a);
	if (er == APP_OK)
		er = db_commit(db);
out:
	json_object_put(b);
	json_object_put(a);
	if (er != APP_OK) {
		db_rollback(db);
		return db_fail(err, er);
	}
	return APP_OK;
}

enum app_err
bypass_set_enabled(struct db *db, int64_t id, int enabled, char *slug_out,
    struct bypass_err *err, const struct principal *who)
{
	return change(db, id, enabled ? 1 : 0, slug_out, err, who);
}

enum app_err
bypass_delete(struct db *db, int64_t id, char *slug_out,
    struct bypass_err *err, const struct principal *who)
{
	return change(db, id, -1, slug_out, err, who);
}

enum app_err
bypass_audit_refused(struct db *db, const struct bypass_code *c,
    int64_t queue_id, const char *slug, const char *reason,
    const char *addr)
{
	struct principal	 who;
	struct json_object	*a;
	enum app_err		 er;

	memset(&who, 0, sizeof(who));
	snprintf(who.name, sizeof(who.name), "visitor");
	snprintf(who.addr, sizeof(who.addr), "%s", addr);
	if ((a = c != NULL ? audit_json(c) : json_object_new_object()) ==
	    NULL)
		return APP_ENOMEM;
	json_object_object_add(a, "reason", json_object_new_string(reason));
	er = audit(db, &who, "visitor", "bypass_refused", queue_id, slug,
	    NULL, a);
	json_object_put(a);
	return er;
}
