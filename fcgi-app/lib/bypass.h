/*
 * bypass.h - VIP bypass codes of a queue (SPEC sections 4 and 9, CASES
 * C47): made, listed, disabled, enabled and deleted by a console user or
 * the CLI (never an API key), each change audited in its transaction;
 * a code is 128 random bits as base64url (22 characters), shown once and
 * stored as its SHA-256; it has a label, an optional use limit and an
 * optional expiry.  A visitor redeems one (page-bypass.c) for a token of
 * its own ("bypass": true and its own jti) that takes no regular slot.
 */
#ifndef BYPASS_H
#define BYPASS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "db-bypass.h"

struct db;
struct json_object;
struct principal;

#define BYPASS_RANDOM_LEN	16	/* random bytes of a code */
#define BYPASS_CODE_LEN		22	/* its text: base64url */
#define BYPASS_CODE_MAX		256	/* longer texts are hashed cut here */
#define BYPASS_USES_MAX		1000000	/* a use limit, at most */

/* Why an operation was refused: HTTP status, code, field, text. */
struct bypass_err {
	int		 status;	/* 403, 404, 422, 500, 503 */
	const char	*code;		/* e.g. "invalid_value" */
	const char	*field;		/* "label", "uses", "expiresAt" or
					   NULL */
	char		 message[200];
};

/*
 * The SHA-256 of a code's text (at most BYPASS_CODE_MAX bytes of it):
 * what is stored and looked up.  Returns 0, or -1.
 */
int	 bypass_hash(const char *code, size_t len,
	    uint8_t hash[BYPASS_HASH_LEN]);

/*
 * Make a code for queue slug with label (1-200 characters, as a queue's
 * name), use_limit (0: none, else 1 to BYPASS_USES_MAX) and expires_ms
 * (0: never, else a time after now), as who (a console user or the CLI;
 * an API key is refused, 403), audited "bypass_create".  On APP_OK
 * *code is the code's text (shown once; the caller wipes and frees it)
 * and *id its id.  Else APP_INVALID (*err), APP_NOTFOUND, APP_CRYPTO,
 * APP_DB or APP_DB_DOWN; nothing written.
 */
enum app_err bypass_create(struct db *, const char *slug, const char *label,
	    int64_t use_limit, int64_t expires_ms, char **code, int64_t *id,
	    struct bypass_err *err, const struct principal *who);

/*
 * The codes of queue slug (never their texts): *out a new array of *n,
 * freed with free().  Refused (403) for an API key.  Returns APP_OK,
 * APP_INVALID, APP_NOTFOUND, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err bypass_list(struct db *, const char *slug,
	    struct bypass_code **out, size_t *n, struct bypass_err *err,
	    const struct principal *who);

/*
 * Enable (enabled 1) or disable code id, or delete it, as who (never an
 * API key), audited "bypass_enable", "bypass_disable", "bypass_delete"
 * with the code before and after.  A change that changes nothing writes
 * nothing.  *slug_out (when not NULL, SLUG_MAX + 1 bytes) gets the
 * code's queue.  Returns APP_OK, APP_INVALID (*err), APP_NOTFOUND,
 * APP_DB or APP_DB_DOWN.
 */
enum app_err bypass_set_enabled(struct db *, int64_t id, int enabled,
	    char *slug_out, struct bypass_err *err,
	    const struct principal *who);
enum app_err bypass_delete(struct db *, int64_t id, char *slug_out,
	    struct bypass_err *err, const struct principal *who);

/*
 * A code as the API, the CLI and the console show it: id, siteId, slug,
 * label, useLimit (null: none), uses, expiresAt (null: never), enabled,
 * state ("active", "disabled", "expired", "used_up"), createdAt.  Never
 * the code.  A new object; NULL when memory ran out.
 */
struct json_object *bypass_json(const struct bypass_code *c);

/* The state of c at its read: "active", "disabled", ... as above. */
const char *bypass_state(const struct bypass_code *c);

/*
 * Write the audit row of a redemption refused for reason ("unknown",
 * "disabled", "expired", "used_up") of a code of queue c (NULL: no such
 * code, queue_id and slug of the visited queue) from address addr:
 * action "bypass_refused", actor "visitor".  Returns APP_OK, APP_ENOMEM,
 * APP_DB or APP_DB_DOWN.
 */
enum app_err bypass_audit_refused(struct db *, const struct bypass_code *c,
	    int64_t queue_id, const char *slug, const char *reason,
	    const char *addr);

#endif /* BYPASS_H */
