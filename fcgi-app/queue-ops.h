/*
 * queue-ops.h - what an operator does to queues: create, update, pause,
 * resume, change the rate, rotate the signing secret, list, delete, and
 * the validators of a queue's settings.  The operator CLI calls these; the
 * admin API and the worker will call the same.  Nothing here prints:
 * every operation returns an enum app_err and fills a struct qops_err
 * with a machine-readable reason, the field at fault and warnings.
 */
#ifndef QUEUE_OPS_H
#define QUEUE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "db.h"
#include "principal.h"

struct cfg;
struct json_object;

/*
 * The settings an operator gives.  To add one: a value here, a member of
 * struct qops_spec, a row of the field table in queue-ops.c, its column in
 * the queue statements of db.c.
 */
enum qops_field {
	QOPS_F_NAME,		/* display name */
	QOPS_F_TARGET,		/* target URL; "" = none */
	QOPS_F_DOMAINS,		/* shop domains list */
	QOPS_F_RATE,		/* visitors per minute */
	QOPS_F_BURST,		/* burst allowance; 0 = default */
	QOPS_F_TOKEN_TTL,	/* token lifetime, seconds */
	QOPS_F_CLAIM_WINDOW,	/* claim window after admission, seconds */
	QOPS_F_HEADER_IMAGE,	/* waiting room header image (https); "" none */
	QOPS_F_DISPLAY_NAME,	/* shown to visitors; "" = the name */
	QOPS_F_MESSAGE,		/* waiting room message, plain text */
	QOPS_F_ACCENT,		/* accent colour "#rrggbb"; "" = default */
	QOPS_F_JSON_STATUS,	/* JSON mode: status of a queued answer */
	QOPS_F_JSON_COOKIE,	/* JSON mode: cookie name suffix; "" slug */
	QOPS_F_OPENS_AT,	/* scheduled opening, Unix ms (draw.h) */
	QOPS_F_ABANDON,		/* abandonment detection on (1) or off (0) */
	QOPS_F_ABANDON_GRACE,	/* its grace period, seconds */
	QOPS_F__MAX
};

#define QOPS_BIT(f)	(1u << (f))

/*
 * A create or update request: only the fields whose QOPS_BIT is in set
 * are used.  Strings are borrowed: they must outlive the call.
 */
struct qops_spec {
	unsigned int	 set;
	const char	*name;
	const char	*target_url;
	const char	*shop_domains;
	int64_t		 rate;
	int64_t		 burst;
	int64_t		 token_ttl_s;
	int64_t		 claim_window_s;
	const char	*header_image_url;
	const char	*display_name;
	const char	*message;
	const char	*accent;
	int64_t		 json_queued_status;
	const char	*json_cookie;
	int64_t		 opens_at_ms;
	int64_t		 abandon;
	int64_t		 abandon_grace_s;
};

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

/*
 * Names of a field: its command-line option without "--" ("token-ttl")
 * and its API key ("tokenTtlSeconds"); and what a valid value is ("an
 * integer from 1 to 86400").  Static strings.  Can't fail.
 */
const char	*qops_field_opt(enum qops_field);
const char	*qops_field_key(enum qops_field);
const char	*qops_field_rule(enum qops_field);

/* The field whose option name (or API key) is name, or -1. */
int		 qops_field_find(const char *name);

/*
 * Set field f of *spec from text (integers: decimal, parse_int64 rules,
 * within the field's range; strings: borrowed as they are, checked by
 * qops_create / qops_update).  Returns APP_OK, or APP_INVALID with
 * err->field f and err->reason QOPS_R_UNICODE for a text that is not
 * well-formed UTF-8 (utf8_chars()), else QOPS_R_INVALID.
 */
enum app_err	 qops_spec_set(struct qops_spec *, enum qops_field f,
		    const char *text, struct qops_err *err);

/*
 * Validators.  qops_name_valid: 1 to NAME_MAX_CHARS characters of UTF-8,
 * not blank, no control characters (C0, DEL, C1), no bidirectional
 * embedding, override or isolate, no line or paragraph separator.
 * qops_target_valid: an absolute http(s) URL of printable ASCII, at most
 * URL_MAX bytes, with a host and no userinfo (credentials would be
 * handed to every visitor).  Return 1 or 0.
 */
int		 qops_name_valid(const char *name);
int		 qops_target_valid(const char *url);

/*
 * Validators of what visitors see.  qops_image_valid: "" or an absolute
 * https URL as qops_target_valid (the page's CSP allows its origin).
 * qops_message_valid: at most LOOK_MESSAGE_MAX characters of UTF-8,
 * control characters refused except line breaks (LF, CR LF), and what
 * qops_name_valid refuses beyond them.
 * qops_accent_valid: "" or "#rrggbb" (hex digits of either case; stored
 * in lower case).  qops_json_status_valid: 200, 202 or 429.  Return 1
 * or 0.
 */
int		 qops_image_valid(const char *url);
int		 qops_message_valid(const char *text);
int		 qops_accent_valid(const char *colour);
int		 qops_json_status_valid(int64_t status);

/*
 * qops_json_cookie_valid: "" or 1-32 characters of A-Z a-z 0-9 _ -
 * (a cookie name token of RFC 6265, section 4.1.1).  Returns 1 or 0.
 */
int		 qops_json_cookie_valid(const char *suffix);

/*
 * The shop domains list in its normal form: entries as parsed by
 * url_shop_domains_parse() (urlcheck.h), written "host[:port]" for https and
 * "http://host[:port]" for http, lower case, without the scheme's default
 * port, in the given order, duplicates dropped, separated by ",".
 * Returns a new string the caller frees ("" for an empty list), or NULL
 * when the list is malformed or memory ran out.
 */
char		*qops_domains_normalise(const char *list);

/*
 * Whether the target URL's scheme, host and port are one of the shop
 * domains in list.  Returns 1 or 0 (also 0 for a malformed argument).
 */
int		 qops_target_in_domains(const char *url, const char *list);

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
 * names (qops_field_key(), and "active"), never secrets or key material.
 * A change that leaves every field as it was writes no row.
 */

/*
 * Create queue slug from spec (name and rate required; target, domains,
 * burst and token TTL optional, defaults none, none, 0 and 600 s) with a
 * new signing secret and ticket key, sealed under the master key of c.
 * On APP_OK *secret is the signing secret (shown once; free it with
 * qops_secret_free()) and *id the new row's id.  Errors: APP_INVALID
 * (QOPS_R_SLUG, QOPS_R_MISSING, QOPS_R_INVALID, QOPS_R_EXISTS),
 * APP_DB_DOWN, APP_DB, APP_CRYPTO, APP_ENOMEM; nothing is written then.
 * err->warnings may hold QOPS_W_TARGET_OUTSIDE on success.
 */
enum app_err	 qops_create(struct db *, const struct cfg *c,
		    const char *slug, const struct qops_spec *spec,
		    char **secret, int64_t *id, struct qops_err *err,
		    const struct principal *who);

/*
 * Scheduled opening (QOPS_F_OPENS_AT): must lie in the future (database
 * clock), and can be set only on a queue that has issued no number yet
 * or whose pre-queue still collects before its opening; setting it
 * (again) re-arms the draw (a new seed, its hash published by the
 * worker).  Abandonment: QOPS_F_ABANDON 1 turns detection on with the
 * given grace (QOPS_F_ABANDON_GRACE, else the current one, else
 * ABANDON_GRACE_DEF_S), 0 turns it off; a grace alone turns it on.
 *
 * Change the fields given in spec of queue slug, in one transaction on
 * the locked row.  A rate or burst change re-anchors the admission state
 * at qops_now() first (serving stays continuous); the target "" removes
 * the target.  Errors as qops_create (QOPS_R_NOT_FOUND instead of
 * QOPS_R_EXISTS, with APP_NOTFOUND); nothing is written then.
 */
enum app_err	 qops_update(struct db *, const char *slug,
		    const struct qops_spec *spec, struct qops_err *err,
		    const struct principal *who);

/*
 * State changes on the locked row, re-anchored through the admission
 * module at qops_now(): pause (a paused queue stays as it is), resume (a
 * running one stays as it is), set the rate (ADM_RATE_MIN..ADM_RATE_MAX,
 * else APP_INVALID).  Return APP_OK, APP_NOTFOUND, APP_INVALID,
 * APP_DB_DOWN or APP_DB; nothing is written on failure.
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

/* Wipe and free a secret returned above.  Accepts NULL. */
void		 qops_secret_free(char *secret);

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
 * The settings of q as a new JSON object keyed by the API names of the
 * field table (qops_field_key()) plus "active": what the audit log
 * compares and what the admin API shows.  Never a secret.  Returns NULL
 * only when memory ran out.
 */
struct json_object *qops_queue_fields(const struct queue *q);

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
 * The name of who's kind in the audit log: "user", "key", "cli",
 * "worker", "none".  Static string.
 */
const char	*qops_principal_kind(const struct principal *who);

/*
 * The kind of value field f takes: an integer, a string, a yes/no
 * ("on"/"off", "true"/"false", "1"/"0"), a time (Unix ms or ISO 8601).
 * Each returns 1 or 0.
 */
int		 qops_field_is_int(enum qops_field f);
int		 qops_field_is_text(enum qops_field f);
int		 qops_field_is_bool(enum qops_field f);
int		 qops_field_is_time(enum qops_field f);

/*
 * Read queue id, as qops_get() by slug (APP_NOTFOUND for none).
 */
enum app_err	 qops_get_id(struct db *, int64_t id, struct queue **out,
		    struct qops_err *err);

/*
 * Whether field f takes an integer: returns 1 and sets *min and *max
 * (its range), or 0 for a text field.  Forms use it to pick the input.
 */
int		 qops_field_range(enum qops_field f, int64_t *min,
		    int64_t *max);

/*
 * Field f of queue q as text into buf of size n (what a form shows and
 * qops_spec_set() takes back): the integer in decimal, the string as
 * stored, "" for a missing target.  A field added to the table gets its
 * case here.  Returns 0, or -1 when it did not fit (buf is then "").
 */
int		 qops_field_text(const struct queue *q, enum qops_field f,
		    char *buf, size_t n);

#endif /* QUEUE_OPS_H */
