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

struct cfg;

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
 * err->reason QOPS_R_INVALID and err->field f.
 */
enum app_err	 qops_spec_set(struct qops_spec *, enum qops_field f,
		    const char *text, struct qops_err *err);

/*
 * Validators.  qops_name_valid: 1 to NAME_MAX_CHARS characters of UTF-8,
 * not blank, no control characters.  qops_target_valid: an absolute
 * http(s) URL of printable ASCII, at most URL_MAX bytes, with a host and
 * no userinfo (credentials would be handed to every visitor).  Return 1
 * or 0.
 */
int		 qops_name_valid(const char *name);
int		 qops_target_valid(const char *url);

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
		    char **secret, int64_t *id, struct qops_err *err);

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
		    const struct qops_spec *spec, struct qops_err *err);

/*
 * State changes on the locked row, re-anchored through the admission
 * module at qops_now(): pause (a paused queue stays as it is), resume (a
 * running one stays as it is), set the rate (ADM_RATE_MIN..ADM_RATE_MAX,
 * else APP_INVALID).  Return APP_OK, APP_NOTFOUND, APP_INVALID,
 * APP_DB_DOWN or APP_DB; nothing is written on failure.
 */
enum app_err	 qops_pause(struct db *, const char *slug,
		    struct qops_err *err);
enum app_err	 qops_resume(struct db *, const char *slug,
		    struct qops_err *err);
enum app_err	 qops_set_rate(struct db *, const char *slug, int64_t rate,
		    struct qops_err *err);

/*
 * Give queue slug a new signing secret (tokens signed with the old one
 * stop verifying).  On APP_OK *secret is the new secret; free it with
 * qops_secret_free().  Errors as qops_pause, and APP_CRYPTO.
 */
enum app_err	 qops_rotate_secret(struct db *, const struct cfg *c,
		    const char *slug, char **secret, struct qops_err *err);

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
		    struct qops_err *err);

#endif /* QUEUE_OPS_H */
