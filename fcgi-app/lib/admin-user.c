/*
 * admin-user.c - console users, log-in, sessions, CSRF tokens.
 */
#include "config.h"

#include <sys/resource.h>

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <argon2.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "admin-user.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "gate.h"
#include "log.h"
#include "login-guard.h"
#include "principal.h"
#include "user-audit.h"

#define SALT_LEN	16
#define TAG_LEN		32

int
admin_name_valid(const char *name)
{
	size_t	 i;

	if (name == NULL || name[0] == '\0')
		return 0;
	for (i = 0; name[i] != '\0'; i++) {
		if (i >= ADMIN_NAME_MAX)
			return 0;
		if (!isalnum((unsigned char)name[i]) &&
		    strchr("._@-", name[i]) == NULL)
			return 0;
	}
	return 1;
}

int
admin_password_valid(const char *pw)
{
	size_t	 n = pw != NULL ? strlen(pw) : 0;

	return n >= ADMIN_PASSWORD_MIN && n <= ADMIN_PASSWORD_MAX;
}

enum app_err
admin_hash(const struct cfg *c, const char *pw, char out[ADMIN_HASH_MAX + 1])
{
	uint8_t	 salt[SALT_LEN];
	size_t	 need;
	int	 rc;

	need = argon2_encodedlen((uint32_t)c->argon2_t_cost,
	    (uint32_t)c->argon2_m_cost, (uint32_t)c->argon2_parallelism,
	    SALT_LEN, TAG_LEN, Argon2_id);
	if (need > ADMIN_HASH_MAX + 1 || crypto_random(salt, sizeof(salt))) {
		log_warnx("argon2: no salt or hash too long");
		return APP_CRYPTO;
	}
	rc = argon2id_hash_encoded((uint32_t)c->argon2_t_cost,
	    (uint32_t)c->argon2_m_cost, (uint32_t)c->argon2_parallelism,
	    pw, strlen(pw), salt, sizeof(salt), TAG_LEN, out,
	    ADMIN_HASH_MAX + 1);
	if (rc != ARGON2_OK) {
		log_warnx("argon2: %s", argon2_error_message(rc));
		return APP_CRYPTO;
	}
	return APP_OK;
}

/* One Argon2id check: its input and its answer. */
struct verify_job {
	const char	*encoded;
	const char	*pw;
	int		 ok;
};

/*
 * The check at the lowest CPU priority (nice 19 for this thread only,
 * setpriority(2) on Linux takes a thread id), so that a flood of log-ins
 * never slows the visitors' requests the other processes answer.
 */
static void *
verify_low(void *arg)
{
	struct verify_job	*j = arg;

	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
	j->ok = argon2id_verify(j->encoded, j->pw, strlen(j->pw)) ==
	    ARGON2_OK;
	return NULL;
}

int
admin_verify(const char *encoded, const char *pw)
{
	struct verify_job	 j = { encoded, pw, 0 };
	pthread_t		 t;

	if (strncmp(encoded, "$argon2id$", 10) != 0)
		return 0;
	/* Without a thread, the check runs here at the usual priority. */
	if (pthread_create(&t, NULL, verify_low, &j) != 0)
		j.ok = argon2id_verify(encoded, pw, strlen(pw)) == ARGON2_OK;
	else
		(void)pthread_join(t, NULL);
	return j.ok;
}

/*
 * Run the change of user u (by id) that do() makes, with its audit row
 * (action, by who), in one transaction.  Returns APP_OK or the failing
 * call's error (nothing written then).
 */
static enum app_err
audited(struct db *db, const struct principal *who, const char *action,
    int64_t id, const char *name, enum app_err (*change)(struct db *,
    int64_t, const void *), const void *arg)
{
	enum app_err	 er;

	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = change(db, id, arg)) == APP_OK &&
	    (er = user_audit(db, who, action, id, name, NULL)) == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	return er;
}

/* What admin_user_add() inserts: the name and the hash. */
struct user_new {
	const char	*name;
	const char	*hash;
	int64_t		*id;
};

/* audited()'s change of admin_user_add(). */
static enum app_err
do_add(struct db *db, int64_t unused, const void *arg)
{
	const struct user_new	*u = arg;

	(void)unused;
	return db_admin_user_insert(db, u->name, u->hash, u->id);
}

/* audited()'s change of admin_user_passwd(): the hash, no sessions. */
static enum app_err
do_passwd(struct db *db, int64_t id, const void *arg)
{
	enum app_err	 er;

	if ((er = db_admin_user_set_hash(db, id, arg)) != APP_OK)
		return er;
	return db_admin_session_end_user(db, id);
}

/* audited()'s change of admin_user_disable(); arg: "1" or "0". */
static enum app_err
do_disable(struct db *db, int64_t id, const void *arg)
{
	const char	*v = arg;
	enum app_err	 er;

	if ((er = db_admin_user_set_disabled(db, id, v[0] == '1')) != APP_OK)
		return er;
	return v[0] == '1' ? db_admin_session_end_user(db, id) : APP_OK;
}

enum app_err
admin_user_add(struct db *db, const struct cfg *c, const char *name,
    const char *pw, int64_t *id, const char **why,
    const struct principal *who)
{
	char		 hash[ADMIN_HASH_MAX + 1];
	struct user_new	 u = { name, hash, id };
	enum app_err	 er;

	*why = NULL;
	if (!admin_name_valid(name)) {
		*why = "name";
		return APP_INVALID;
	}
	if (!admin_password_valid(pw)) {
		*why = "password";
		return APP_INVALID;
	}
	if ((er = admin_hash(c, pw, hash)) != APP_OK)
		return er;
	/* The row's id is known after the insert: audit it after that. */
	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = do_add(db, 0, &u)) == APP_OK &&
	    (er = user_audit(db, who, "user_add", *id, name, NULL)) ==
	    APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	if (er == APP_INVALID)
		*why = "exists";
	return er;
}

enum app_err
admin_user_passwd(struct db *db, const struct cfg *c, const char *name,
    const char *pw, const struct principal *who)
{
	struct admin_user	 u;
	char			 hash[ADMIN_HASH_MAX + 1];
	enum app_err		 er;

	if ((er = db_admin_user_get(db, name, &u)) != APP_OK)
		return er;
	if (!admin_password_valid(pw))
		return APP_INVALID;
	if ((er = admin_hash(c, pw, hash)) != APP_OK)
		return er;
	return audited(db, who, "user_passwd", u.id, u.name, do_passwd, hash);
}

enum app_err
admin_user_disable(struct db *db, const char *name, int disabled,
    const struct principal *who)
{
	struct admin_user	 u;
	enum app_err		 er;

	if ((er = db_admin_user_get(db, name, &u)) != APP_OK)
		return er;
	/* A console user never locks themself out. */
	if (disabled && who != NULL && who->kind == PRINCIPAL_USER &&
	    who->id == u.id)
		return APP_INVALID;
	return audited(db, who, disabled ? "user_disable" : "user_enable",
	    u.id, u.name, do_disable, disabled ? "1" : "0");
}

/* SHA-256 of len bytes (OpenSSL EVP).  Returns 0, or -1. */
static int
sha256(const void *p, size_t len, uint8_t out[32])
{
	unsigned int	 n = 32;

	return EVP_Digest(p, len, out, &n, EVP_sha256(), NULL) == 1 &&
	    n == 32 ? 0 : -1;
}

/* The session id hash of a cookie value.  Returns 0, or -1 malformed. */
static int
sid_hash(const char *sid, uint8_t hash[32])
{
	uint8_t	 raw[32];

	if (sid == NULL || strlen(sid) != ADMIN_SID_LEN ||
	    crypto_b64url_decode(sid, ADMIN_SID_LEN, raw, sizeof(raw)) != 32)
		return -1;
	return sha256(raw, sizeof(raw), hash);
}

/* 32 random bytes as base64url into out.  Returns 0, or -1. */
static int
random_token(char out[ADMIN_SID_LEN + 1])
{
	uint8_t	 raw[32];
	char	*s;

	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (s = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return -1;
	snprintf(out, ADMIN_SID_LEN + 1, "%s", s);
	crypto_wipe(s, strlen(s));
	free(s);
	crypto_wipe(raw, sizeof(raw));
	return 0;
}

/*
 * The principal of a log-in attempt: the console user name as tried
 * (kept only when it is a valid user name, else "(invalid)"), its id
 * (0 when unknown) and the client address.  Can't fail.
 */
static void
attempt_who(struct principal *who, const char *name,
    int64_t user_id, const char *addr)
{
	memset(who, 0, sizeof(*who));
	who->kind = PRINCIPAL_USER;
	who->id = user_id;
	snprintf(who->name, sizeof(who->name), "%s",
	    admin_name_valid(name) ? name : "(invalid)");
	snprintf(who->addr, sizeof(who->addr), "%s", addr);
}

/*
 * A hash of a random password under the current parameters, made once,
 * so that a name that does not exist costs the same time as a wrong
 * password.
 */
static const char *
dummy_hash(const struct cfg *c)
{
	static char	 hash[ADMIN_HASH_MAX + 1];
	char		 pw[ADMIN_SID_LEN + 1];

	if (hash[0] == '\0' && random_token(pw) == 0 &&
	    admin_hash(c, pw, hash) != APP_OK)
		hash[0] = '\0';
	return hash;
}

/* The audit log's reason of a throttled attempt. */
static const char *
guard_reason(enum login_guard v)
{
	switch (v) {
	case LOGIN_GUARD_PAIR:
		return "user_address_failures";
	case LOGIN_GUARD_ADDR:
		return "address_failures";
	case LOGIN_GUARD_PACE:
		return "user_pace";
	case LOGIN_GUARD_OK:
		break;
	}
	return "ok";
}

enum app_err
admin_login(struct db *db, const struct cfg *c, const char *name,
    const char *pw, const char *addr, enum admin_login *result,
    int64_t *retry_s, char sid[ADMIN_SID_LEN + 1], struct admin_session *s)
{
	struct admin_user	 u;
	struct principal	 who;
	char			 lname[ADMIN_NAME_MAX + 1];
	uint8_t			 hash[32];
	size_t			 i;
	int			 found, ok;
	enum login_guard	 v;
	enum app_err		 er;

	*result = ADMIN_LOGIN_BAD;
	*retry_s = 0;
	sid[0] = '\0';
	memset(s, 0, sizeof(*s));
	/* Failures are counted by the name as tried, in lower case. */
	for (i = 0; name[i] != '\0' && i < ADMIN_NAME_MAX; i++)
		lname[i] = (char)tolower((unsigned char)name[i]);
	lname[i] = '\0';
	attempt_who(&who, name, 0, addr);
	/* Every throttle before any hash (login-guard.h). */
	if ((er = login_guard_check(db, c, lname, addr, &v, retry_s)) !=
	    APP_OK)
		return er;
	if (v != LOGIN_GUARD_OK) {
		*result = ADMIN_LOGIN_THROTTLED;
		return user_audit(db, &who, "login_throttled", 0, who.name,
		    guard_reason(v));
	}
	found = 0;
	if (admin_name_valid(name)) {
		er = db_admin_user_get(db, name, &u);
		if (er != APP_OK && er != APP_NOTFOUND)
			return er;
		found = er == APP_OK && !u.disabled;
		if (er == APP_OK)
			who.id = u.id;
	}
	/* At most login-hashes at once in the pool; the rest at once. */
	if (!gate_enter(GATE_HASH)) {
		*result = ADMIN_LOGIN_BUSY;
		*retry_s = 1;
		return APP_OK;
	}
	if (found)
		ok = admin_verify(u.hash, pw);
	else {
		(void)admin_verify(dummy_hash(c), pw);
		ok = 0;
	}
	gate_leave(GATE_HASH);
	if (!ok) {
		if ((er = db_login_fail(db, lname, addr)) != APP_OK)
			return er;
		(void)db_login_purge(db, c->login_window_s * 1000);
		return user_audit(db, &who, "login_failed", who.id, who.name,
		    found ? "wrong_password" : who.id != 0 ? "disabled" :
		    "unknown_user");
	}
	if ((er = db_login_reset(db, lname, addr)) != APP_OK)
		return er;
	if (random_token(sid) == -1 || random_token(s->csrf) == -1 ||
	    sid_hash(sid, hash) == -1)
		return APP_CRYPTO;
	(void)db_admin_session_purge(db, c->session_idle_s * 1000,
	    c->session_max_s * 1000);
	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = db_admin_session_insert(db, hash, u.id, s->csrf, addr)) ==
	    APP_OK && (er = user_audit(db, &who, "login", u.id, u.name,
	    NULL)) == APP_OK)
		er = db_commit(db);
	if (er != APP_OK) {
		db_rollback(db);
		sid[0] = '\0';
		return er;
	}
	s->user_id = u.id;
	snprintf(s->user, sizeof(s->user), "%s", u.name);
	*result = ADMIN_LOGIN_OK;
	return APP_OK;
}

enum app_err
admin_session_check(struct db *db, const struct cfg *c, const char *sid,
    struct admin_session *s)
{
	uint8_t		 hash[32];
	enum app_err	 er;

	memset(s, 0, sizeof(*s));
	if (sid_hash(sid, hash) == -1)
		return APP_NOTFOUND;
	if ((er = db_admin_session_get(db, hash, c->session_idle_s * 1000,
	    c->session_max_s * 1000, s)) != APP_OK)
		return er;
	return db_admin_session_touch(db, hash);
}

enum app_err
admin_logout(struct db *db, const struct cfg *c, const char *sid,
    const char *addr)
{
	struct admin_session	 s;
	struct principal	 who;
	uint8_t			 hash[32];
	enum app_err		 er;

	if (sid_hash(sid, hash) == -1)
		return APP_OK;
	er = db_admin_session_get(db, hash, c->session_idle_s * 1000,
	    c->session_max_s * 1000, &s);
	if (er == APP_NOTFOUND)
		return db_admin_session_delete(db, hash);
	if (er != APP_OK)
		return er;
	attempt_who(&who, s.user, s.user_id, addr);
	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = db_admin_session_end_user(db, s.user_id)) == APP_OK &&
	    (er = user_audit(db, &who, "logout", s.user_id, s.user, NULL)) ==
	    APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	return er;
}

int
admin_csrf_ok(const struct admin_session *s, const char *token)
{
	if (token == NULL || strlen(token) != ADMIN_CSRF_LEN ||
	    strlen(s->csrf) != ADMIN_CSRF_LEN)
		return 0;
	return crypto_ct_equal(s->csrf, token, ADMIN_CSRF_LEN);
}

struct json_object *
admin_user_json(const struct admin_user *u)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	/* Never the password hash. */
	json_object_object_add(o, "id", json_object_new_int64(u->id));
	json_object_object_add(o, "name", json_object_new_string(u->name));
	json_object_object_add(o, "disabled",
	    json_object_new_boolean(u->disabled != 0));
	json_object_object_add(o, "createdAt", u->created_ms != 0 ?
	    json_object_new_int64(u->created_ms) : NULL);
	return o;
}
