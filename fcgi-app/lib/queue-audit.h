/*
 * queue-audit.h - who may change a queue, and the record of what was
 * changed (queue-audit.c): the reasons an operation gives (struct
 * qops_err, used by queue-ops.h), the principal's scope, the audit
 * log's rows and its reading, the API keys.  The helpers at the end are
 * for queue-ops.c only.
 */
#ifndef QUEUE_AUDIT_H
#define QUEUE_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "db.h"
#include "principal.h"

struct json_object;

/* Why an operation failed; QOPS_R_OK on success. */
enum qops_reason {
	QOPS_R_OK = 0,		/* nothing wrong */
	QOPS_R_MISSING,		/* a required field is absent (field set) */
	QOPS_R_INVALID,		/* a field's value is refused (field set) */
	QOPS_R_SLUG,		/* the slug is malformed */
	QOPS_R_EXISTS,		/* create: the slug is taken */
	QOPS_R_NOT_FOUND,	/* no queue with this slug */
	QOPS_R_UNAVAILABLE,	/* the database does not answer */
	QOPS_R_INTERNAL,	/* database, crypto or memory failure, logged */
	QOPS_R_FORBIDDEN,	/* the principal may not do this (403) */
	QOPS_R_KEY_NOT_FOUND,	/* no API key with this id (404) */
	QOPS_R_UNICODE,		/* a text is not UTF-8 (field set; 400) */
	QOPS_R__MAX
};

/* Things that are allowed but probably not meant (bits of warnings). */
#define QOPS_W_TARGET_OUTSIDE	0x1u	/* target host not a shop domain */
#define QOPS_W_RATE_LIMITED	0x2u	/* the cap on active users lowered it */

/* The outcome of an operation besides its enum app_err. */
struct qops_err {
	enum qops_reason reason;
	int		 field;		/* enum qops_field at fault, or -1 */
	unsigned int	 warnings;	/* QOPS_W_* bits, also on success */
};

/*
 * Machine-readable code of a reason, e.g. "invalid_value",
 * "queue_not_found" (the "error" of an API answer), its human text, and
 * the HTTP status an API answers with (422 for field errors, 404, 409,
 * 503, 500).  Static strings.  Can't fail.
 */
const char	*qops_reason_code(enum qops_reason);
const char	*qops_reason_text(enum qops_reason);
int		 qops_reason_status(enum qops_reason);

/* Code and human text of a warning bit (e.g. "target_outside_domains"). */
const char	*qops_warning_code(unsigned int bit);
const char	*qops_warning_text(unsigned int bit);

/* Wipe and free a secret or key returned here.  Accepts NULL. */
void		 qops_secret_free(char *secret);

/* Whether who may act on queue queue_id (see above).  Returns 1 or 0. */
int		 qops_in_scope(const struct principal *who, int64_t queue_id);

#define QOPS_KEY_PREFIX		"qak_"
#define QOPS_KEY_RANDOM		32	/* random bytes of a key */
#define QOPS_KEY_SHOWN		12	/* bytes of a key kept as prefix */

/*
 * Make an API key named name (qops_name_valid(); else QOPS_R_INVALID
 * with field QOPS_F_NAME) for queue slug: "qak_" and the base64url text
 * of QOPS_KEY_RANDOM random bytes.  Only its SHA-256 is stored.  On
 * APP_OK *key is the key (shown once; free with qops_secret_free()) and
 * *id its row id.  Refused to API keys.  Errors: APP_INVALID,
 * APP_NOTFOUND, APP_DB_DOWN, APP_DB, APP_CRYPTO.
 */
enum app_err	 qops_key_create(struct db *, const char *slug,
		    const char *name, char **key, int64_t *id,
		    struct qops_err *err, const struct principal *who);

/*
 * The API keys of queue slug (NULL: of every queue), revoked ones too,
 * by id: *out a new array of *n rows the caller frees with free().
 * Refused to API keys.  Errors: APP_INVALID (forbidden), APP_NOTFOUND,
 * APP_DB_DOWN, APP_DB, APP_ENOMEM.
 */
enum app_err	 qops_key_list(struct db *, const char *slug,
		    struct api_key **out, size_t *n, struct qops_err *err,
		    const struct principal *who);

/*
 * Revoke API key id (already revoked: APP_OK, nothing written); the key
 * is refused from then on.  Refused to API keys.  Errors: APP_INVALID
 * (forbidden), APP_NOTFOUND (QOPS_R_KEY_NOT_FOUND), APP_DB_DOWN, APP_DB.
 */
enum app_err	 qops_key_revoke(struct db *, int64_t id,
		    struct qops_err *err, const struct principal *who);

/*
 * The audit rows filter f selects, newest first (see db_audit_list();
 * f->limit clamped to 1..1000).  An API key reads only its own queue's
 * rows: f->queue_id must be its queue, else QOPS_R_FORBIDDEN.  *out and
 * *n as db_audit_list(); free with db_audit_list_free().
 */
enum app_err	 qops_audit_list(struct db *, const struct audit_filter *f,
		    struct audit_entry **out, size_t *n,
		    struct qops_err *err, const struct principal *who);

/*
 * API key k and audit row e as the admin API and the CLI show them (new
 * objects; NULL when memory ran out): a key's id, siteId, slug, name,
 * prefix and times (createdAt, lastUsedAt, revokedAt: Unix ms or null),
 * never the key; a row's id, at (Unix ms), actorKind, actor, siteId,
 * slug, action, before, after and clientAddr.
 */
struct json_object *qops_key_json(const struct api_key *k);
struct json_object *qops_audit_json(const struct audit_entry *e);

/*
 * Write one audit row, inside the caller's transaction: who did action
 * on queue queue_id (0: none) named slug (NULL: none), with the JSON
 * objects before and after (NULL: none; owned by the caller).  The
 * auto-rate operations audit their settings with it.  Returns APP_OK,
 * APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err	 qops_audit_write(struct db *, const struct principal *who,
		    int64_t queue_id, const char *slug, const char *action,
		    struct json_object *before, struct json_object *after);

/*
 * The name of who's kind in the audit log: "user", "key", "cli",
 * "worker", "none".  Static string.
 */
const char	*qops_principal_kind(const struct principal *who);

/* ---- for queue-ops.c ------------------------------------------- */

/* Clear *err for a new operation.  Can't fail. */
void		 qops_err_init(struct qops_err *err);

/* Record reason r (and field f, or -1) in *err.  Returns er. */
enum app_err	 qops_refuse(struct qops_err *err, enum app_err er,
		    enum qops_reason r, int f);

/*
 * Record the reason that goes with er (a failure of the db or crypto
 * layer: APP_NOTFOUND, APP_DB_DOWN, else internal) in *err.  Returns er.
 */
enum app_err	 qops_failed(struct qops_err *err, enum app_err er);

/* Refuse with QOPS_R_FORBIDDEN.  Returns APP_INVALID. */
enum app_err	 qops_forbid(struct qops_err *err);

/*
 * Whether who may do what no API key may: create and delete queues,
 * rotate secrets, manage keys.  Returns 1 or 0.
 */
int		 qops_may_manage(const struct principal *who);

/*
 * Write the audit row of action on q with every setting of the rows
 * before and after (NULL: none), for creation and deletion, inside the
 * caller's transaction.  Returns APP_OK, APP_ENOMEM, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err	 qops_audit(struct db *, const struct principal *who,
		    const struct queue *q, const char *action,
		    const struct queue *before, const struct queue *after);

/*
 * Write the audit row of a change of q: the members of before
 * (qops_queue_fields() of the row before; owned by the caller) whose
 * value differs in q now, before and after, in one row.  Nothing is
 * written when none differs; with no_values (secret rotation) the row
 * is written without values.  Returns as qops_audit().
 */
enum app_err	 qops_audit_change(struct db *, const struct principal *who,
		    const struct queue *q, const char *action,
		    struct json_object *before, int no_values);

#endif /* QUEUE_AUDIT_H */
