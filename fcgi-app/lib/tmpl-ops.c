/*
 * tmpl-ops.c - a queue's custom waiting-room template: the operations
 * of the console, the API and the CLI, and their audit rows (see
 * tmpl-ops.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "crypto.h"
#include "db.h"
#include "db-template.h"
#include "queue-audit.h"
#include "queue-fields.h"
#include "tmpl-ops.h"

/* Fill *err; returns er. */
static enum app_err
fail(struct tops_err *err, enum app_err er, int status, const char *code,
    const char *msg)
{
	err->status = status;
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return er;
}

/* The refusal of a database or look-up error er. */
static enum app_err
db_fail(struct tops_err *err, enum app_err er)
{
	switch (er) {
	case APP_NOTFOUND:
		return fail(err, er, 404, "queue_not_found", "No such queue.");
	case APP_DB_DOWN:
		return fail(err, er, 503, "service_unavailable",
		    "The database does not answer; try again.");
	case APP_ENOMEM:
	default:
		return fail(err, er, 500, "internal_error",
		    "Internal error (logged).");
	}
}

/* Whether who may act on queue q; else *err is the 403. */
static enum app_err
may(const struct principal *who, const struct queue *q,
    struct tops_err *err)
{
	if (!qops_in_scope(who, q->id))
		return fail(err, APP_INVALID, 403, "forbidden", "This key "
		    "belongs to another queue.");
	return APP_OK;
}

/*
 * What the audit keeps of a template: its size and SHA-256 (hex), never
 * the HTML.  NULL for none or when memory or hashing failed.
 */
static struct json_object *
audit_json(const char *html, size_t len)
{
	struct json_object	*o;
	uint8_t			 md[SHA256_LEN];
	char			 hex[2 * SHA256_LEN + 1];
	size_t			 i;

	if (html == NULL || crypto_sha256(html, len, md) == -1 ||
	    (o = json_object_new_object()) == NULL)
		return NULL;
	for (i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	json_object_object_add(o, "bytes", json_object_new_int64(
	    (int64_t)len));
	json_object_object_add(o, "sha256", json_object_new_string(hex));
	return o;
}

enum app_err
tops_get(struct db *db, const char *slug, char **html, size_t *len,
    struct tops_err *err, const struct principal *who)
{
	struct queue	*q = NULL;
	enum app_err	 er;
	int		 found;

	memset(err, 0, sizeof(*err));
	*html = NULL;
	*len = 0;
	if ((er = db_queue_get(db, slug, &q)) != APP_OK)
		return db_fail(err, er);
	if ((er = may(who, q, err)) == APP_OK &&
	    (er = db_template_get(db, q->id, html, len, &found)) != APP_OK)
		db_fail(err, er);
	db_queue_free(q);
	return er;
}

/*
 * In one transaction on queue slug (its row locked): store html[0..len)
 * (html not NULL) or delete the template, with the audit row when
 * something changed.
 */
static enum app_err
change(struct db *db, const char *slug, const char *html, size_t len,
    struct tops_err *err, const struct principal *who)
{
	struct queue		*q = NULL;
	struct json_object	*b = NULL, *a = NULL;
	char			*old = NULL;
	size_t			 oldlen = 0;
	int			 found = 0, deleted = 0;
	enum app_err		 er;

	if ((er = db_begin(db)) != APP_OK)
		return db_fail(err, er);
	if ((er = db_queue_get_locked(db, slug, &q)) != APP_OK)
		goto out;
	if ((er = may(who, q, err)) != APP_OK)
		goto out;
	if ((er = db_template_get(db, q->id, &old, &oldlen, &found)) != APP_OK)
		goto out;
	b = audit_json(old, oldlen);
	if (html != NULL) {
		er = db_template_put(db, q->id, html, len);
		a = audit_json(html, len);
	} else
		er = db_template_delete(db, q->id, &deleted);
	if (er == APP_OK && (html != NULL || deleted))
		er = qops_audit_write(db, who, q->id, q->slug, html != NULL ?
		    "template_put" : "template_reset", b, a);
	if (er == APP_OK)
		er = db_commit(db);
out:
	if (er != APP_OK) {
		db_rollback(db);
		if (err->status == 0)
			db_fail(err, er);
	}
	json_object_put(a);
	json_object_put(b);
	free(old);
	db_queue_free(q);
	return er;
}

enum app_err
tops_put(struct db *db, const char *slug, const char *html, size_t len,
    struct tops_err *err, const struct principal *who)
{
	struct room_tmpl_err	 te;

	memset(err, 0, sizeof(*err));
	if (len == 0)
		return fail(err, APP_INVALID, 422, "invalid_template", "The "
		    "template is empty; a reset goes back to the default "
		    "page.");
	if (room_tmpl_walk(html, len, NULL, &te) == -1) {
		err->reason = room_tmpl_code_name(te.code);
		err->line = te.line;
		return fail(err, APP_INVALID, te.code == ROOM_TMPL_TOO_LARGE ?
		    413 : 422, te.code == ROOM_TMPL_TOO_LARGE ?
		    "template_too_large" : "invalid_template", te.message);
	}
	return change(db, slug, html, len, err, who);
}

enum app_err
tops_reset(struct db *db, const char *slug, struct tops_err *err,
    const struct principal *who)
{
	memset(err, 0, sizeof(*err));
	return change(db, slug, NULL, 0, err, who);
}
