/*
 * queue-ops.h - what an operator does to queues: create, update (every
 * setting of the field table, queue-fields.h), pause, resume, change the
 * rate, rotate the signing secret, list, delete (queue-ops.c); API keys
 * and the audit log (queue-audit.c).  The CLI, the admin API, the
 * console and the worker call the same.  Nothing here prints: every
 * operation returns an enum app_err and fills a struct qops_err with a
 * machine-readable reason, the field at fault and warnings.
 */
#ifndef QUEUE_OPS_H
#define QUEUE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "db.h"
#include "principal.h"
#include "queue-audit.h"
#include "queue-fields.h"

struct cfg;
struct json_object;

/*
 * Set field f of *spec from text (the CLI's and a console form's way:
 * fld_parse(), fields.h), checked by the field's row: integers decimal
 * within the row's range, yes/no as 1/0, true/false, on/off, yes/no,
 * times Unix ms or ISO 8601 ("none" or "" for none), texts borrowed as
 * they are (text must outlive spec's use).  Returns APP_OK, or
 * APP_INVALID with err->field f and err->reason QOPS_R_UNICODE for a
 * text that is not well-formed UTF-8, else QOPS_R_INVALID.
 */
enum app_err	 qops_spec_set(struct qops_spec *, enum qops_field f,
		    const char *text, struct qops_err *err);

/*
 * The same from a JSON value v (the admin API's way: fld_from_json()):
 * an integer field takes a JSON integer, a yes/no a boolean, a time an
 * integer, an ISO 8601 string or null (none), a text a string (the
 * target also null for none; borrowed from v).  Returns as
 * qops_spec_set().
 */
enum app_err	 qops_spec_json(struct qops_spec *, enum qops_field f,
		    struct json_object *v, struct qops_err *err);

/*
 * The time (Unix milliseconds) every operation of this module stamps its
 * changes with.  Can't fail.
 */
int64_t		 qops_now(struct db *);

/*
 * Every operation that changes something takes who (the principal
 * asking, see principal.h) as its last parameter: it is refused with
 * APP_INVALID and QOPS_R_FORBIDDEN when who is NULL or PRINCIPAL_NONE, or
 * an API key (PRINCIPAL_KEY) acts on a queue other than its own, or on
 * what no key may do (create, delete, rotate the secret, keys).  Each
 * change writes one audit_log row in the same transaction as the change:
 * who, the queue, the action ("create", "update", "pause", "resume",
 * "set_rate", "rotate_secret", "delete", "key_create", "key_revoke"),
 * the changed fields before and after as JSON objects keyed by the API
 * names (qops_field()->key), never secrets or key material.
 * A change that leaves every field as it was writes no row.
 */

/*
 * Create queue slug from spec (name and rate required; every other
 * setting takes its row's default, queue-fields.c) with a new signing
 * secret and ticket key, sealed under the master key of c, in one
 * statement.  On APP_OK *secret is the signing secret (shown once; free
 * it with qops_secret_free()) and *id the new row's id.  Errors:
 * APP_INVALID (QOPS_R_SLUG, QOPS_R_MISSING, QOPS_R_INVALID,
 * QOPS_R_EXISTS), APP_DB_DOWN, APP_DB, APP_CRYPTO, APP_ENOMEM; nothing is
 * written then.  err->warnings may hold QOPS_W_TARGET_OUTSIDE on
 * success.
 */
enum app_err	 qops_create(struct db *, const struct cfg *c,
		    const char *slug, const struct qops_spec *spec,
		    char **secret, int64_t *id, struct qops_err *err,
		    const struct principal *who);

/*
 * Change the fields given in spec of queue slug, every one of them in
 * one transaction on the locked row, written by one statement, with one
 * audit row ("update") naming every field that changed; or nothing,
 * when any field is refused.  Fields equal to the queue's are left out
 * (a form or a PATCH may send them all).  The admission settings (rate,
 * burst, active) change as one scheduled change (admission.h): serving
 * stays continuous, and the call returns once it is in effect.  The
 * target "" removes the target.
 *
 * Scheduled opening (QOPS_F_OPENS_AT): must lie in the future (database
 * clock), and can be set only on a queue that has issued no number yet
 * or whose pre-queue still collects before its opening; setting it
 * (again) re-arms the draw (a new seed, its hash published with the
 * arming).  Abandonment: QOPS_F_ABANDON turns detection on or off, the
 * grace period kept; a grace alone turns it on.
 *
 * Errors as qops_create (QOPS_R_NOT_FOUND instead of QOPS_R_EXISTS, with
 * APP_NOTFOUND).
 */
enum app_err	 qops_update(struct db *, const char *slug,
		    const struct qops_spec *spec, struct qops_err *err,
		    const struct principal *who);

/*
 * One field of qops_update() each, audited as "pause", "resume" and
 * "set_rate": pause (a paused queue stays as it is), resume (a running
 * one stays as it is), set the rate (ADM_RATE_MIN..ADM_RATE_MAX, else
 * APP_INVALID).  Return APP_OK, APP_NOTFOUND, APP_INVALID, APP_DB_DOWN
 * or APP_DB; nothing is written on failure.
 */
enum app_err	 qops_pause(struct db *, const char *slug,
		    struct qops_err *err, const struct principal *who);
enum app_err	 qops_resume(struct db *, const char *slug,
		    struct qops_err *err, const struct principal *who);
enum app_err	 qops_set_rate(struct db *, const char *slug, int64_t rate,
		    struct qops_err *err, const struct principal *who);

/*
 * Give queue slug a new signing secret (tokens signed with the old one
 * stop verifying).  On APP_OK *secret is the new secret; free it with
 * qops_secret_free().  Errors as qops_pause, and APP_CRYPTO.
 */
enum app_err	 qops_rotate_secret(struct db *, const struct cfg *c,
		    const char *slug, char **secret, struct qops_err *err,
		    const struct principal *who);

/*
 * Read queue slug.  On APP_OK *out is a new row the caller frees with
 * qops_queue_free().  Errors: APP_NOTFOUND, APP_DB_DOWN, APP_DB,
 * APP_ENOMEM (then *out is NULL).
 */
enum app_err	 qops_get(struct db *, const char *slug, struct queue **out,
		    struct qops_err *err);
void		 qops_queue_free(struct queue *);

/*
 * Every queue, ordered by slug: *out is a new array of *n rows (NULL when
 * there are none) the caller frees with qops_list_free().  Errors:
 * APP_DB_DOWN, APP_DB, APP_ENOMEM.
 */
enum app_err	 qops_list(struct db *, struct queue ***out, size_t *n,
		    struct qops_err *err);
void		 qops_list_free(struct queue **, size_t n);

/*
 * Delete queue slug with its numbers and secrets, for good.  Returns
 * APP_OK, APP_NOTFOUND, APP_DB_DOWN or APP_DB.
 */
enum app_err	 qops_delete(struct db *, const char *slug,
		    struct qops_err *err, const struct principal *who);

/*
 * The site object of q at now, as the admin API and the CLI show it:
 * the settings under their API names (qops_queue_fields()), id, slug,
 * the times of creation and of the last change (createdAt, updatedAt:
 * Unix ms), the live numbers (serving, lastNumber, waiting) and the
 * opening's state (draw_state_json()).  A new object; NULL when memory
 * ran out.
 */
struct json_object *qops_site_json(struct db *, const struct queue *q,
		    int64_t now);

/*
 * Read queue id, as qops_get() by slug (APP_NOTFOUND for none).
 */
enum app_err	 qops_get_id(struct db *, int64_t id, struct queue **out,
		    struct qops_err *err);

#endif /* QUEUE_OPS_H */
