/*
 * admin-user.h - console users: names, Argon2id password hashes
 * (Debian's libargon2, RFC 9106), log-in with throttling per user name
 * and per client address (state in the database, so every process
 * agrees), server-side sessions and their CSRF tokens.  The operator
 * CLI and the console both go through here.
 */
#ifndef ADMIN_USER_H
#define ADMIN_USER_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "db-console.h"

struct cfg;
struct db;
struct principal;

#define ADMIN_PASSWORD_MIN	12	/* bytes */
#define ADMIN_PASSWORD_MAX	1024	/* bytes */
#define ADMIN_SID_LEN		43	/* cookie value: base64url, 32 bytes */

/*
 * Whether name is a valid user name: 1 to ADMIN_NAME_MAX characters of
 * [A-Za-z0-9._@-].  Returns 1 or 0.
 */
int	 admin_name_valid(const char *name);

/*
 * Whether pw is acceptable as a new password: ADMIN_PASSWORD_MIN to
 * ADMIN_PASSWORD_MAX bytes.  Returns 1 or 0.
 */
int	 admin_password_valid(const char *pw);

/*
 * Hash pw with Argon2id under the config's argon2-t-cost, argon2-m-cost
 * and argon2-parallelism, a fresh 16-byte salt and a 32-byte tag, into
 * out (encoded "$argon2id$v=19$m=...", NUL-terminated).  Returns APP_OK,
 * APP_CRYPTO (libargon2 or the random source failed, logged).
 */
enum app_err admin_hash(const struct cfg *, const char *pw,
	    char out[ADMIN_HASH_MAX + 1]);

/*
 * Whether pw matches the encoded hash (libargon2's argon2id_verify,
 * which compares in constant time), checked in a thread of its own at
 * the lowest CPU priority, so that log-ins never slow the visitors'
 * requests.  A malformed hash never matches.  Returns 1 or 0.
 */
int	 admin_verify(const char *encoded, const char *pw);

/*
 * The changes of users below write their audit row (user-audit.h:
 * "user_add", "user_passwd", "user_disable", "user_enable", made by
 * who) in the change's transaction; the hash is made before it begins.
 */

/*
 * Create user name with password pw.  Returns APP_OK (sets *id),
 * APP_INVALID (bad name, bad password, or the name exists: *why says
 * which, "name", "password" or "exists"), APP_CRYPTO, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err admin_user_add(struct db *, const struct cfg *,
	    const char *name, const char *pw, int64_t *id, const char **why,
	    const struct principal *who);

/*
 * Give user name a new password, and end every session of the user.
 * Returns APP_OK, APP_NOTFOUND, APP_INVALID (bad password), APP_CRYPTO,
 * APP_DB or APP_DB_DOWN.
 */
enum app_err admin_user_passwd(struct db *, const struct cfg *,
	    const char *name, const char *pw, const struct principal *who);

/*
 * Disable (disabled 1: no log-in, every session ended) or enable user
 * name.  A console user (who of kind PRINCIPAL_USER) cannot disable
 * themself: that is APP_INVALID, and nothing is written.  Returns
 * APP_OK, APP_NOTFOUND, APP_INVALID, APP_DB or APP_DB_DOWN.
 */
enum app_err admin_user_disable(struct db *, const char *name,
	    int disabled, const struct principal *who);

/* What a log-in attempt came to. */
enum admin_login {
	ADMIN_LOGIN_OK,		/* session created */
	ADMIN_LOGIN_BAD,	/* wrong name or password (counted) */
	ADMIN_LOGIN_THROTTLED,	/* too many failures: not even checked */
	ADMIN_LOGIN_BUSY	/* every hash slot held: not checked */
};

/*
 * Log user name in with pw from client address addr.  First the
 * throttles of login-guard.h, from the failures in the database, before
 * any hash: a refused attempt is not checked, *result
 * ADMIN_LOGIN_THROTTLED and *retry_s the seconds until it would be
 * taken.  Then the hash, in one of the pool's login-hashes slots
 * (gate.h): none free gives ADMIN_LOGIN_BUSY at once (*retry_s 1).  A
 * wrong name or password (or a disabled user) is recorded as a failure
 * of the name (lower case) from addr (the same time is spent hashing
 * either way) and gives ADMIN_LOGIN_BAD.  On success the name's
 * failures from addr are forgotten, a session is stored (SHA-256 of a
 * 32-byte random id) and sid receives the id for the cookie, *s the
 * session (with its CSRF token).  Every outcome but BUSY writes its
 * audit row ("login", "login_failed", "login_throttled", with the
 * reason).  Returns APP_OK (see *result), APP_CRYPTO, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err admin_login(struct db *, const struct cfg *, const char *name,
	    const char *pw, const char *addr, enum admin_login *result,
	    int64_t *retry_s, char sid[ADMIN_SID_LEN + 1],
	    struct admin_session *s);

/*
 * The live session whose cookie value is sid: not past session-idle
 * since its last request nor session-max since the log-in, its user
 * enabled.  Marks it used now.  Returns APP_OK (*s filled),
 * APP_NOTFOUND (no such live session, or sid malformed), APP_DB or
 * APP_DB_DOWN.
 */
enum app_err admin_session_check(struct db *, const struct cfg *,
	    const char *sid, struct admin_session *s);

/*
 * Log out: end every session of the user whose session sid is (on
 * every device), audited ("logout") with the client address addr.
 * Returns APP_OK (also when sid is no live session), APP_DB or
 * APP_DB_DOWN.
 */
enum app_err admin_logout(struct db *, const struct cfg *, const char *sid,
	    const char *addr);

/*
 * Whether token is the CSRF token of session s, compared in constant
 * time.  Returns 1 or 0 (also for NULL or a token of another length).
 */
int	 admin_csrf_ok(const struct admin_session *s, const char *token);

/*
 * User u as the admin API and the CLI show it: id, name, disabled,
 * createdAt (Unix ms), never the password hash.  A new object; NULL
 * when memory ran out.
 */
struct json_object;
struct json_object *admin_user_json(const struct admin_user *u);

#endif /* ADMIN_USER_H */
