/*
 * db-console.h - rows of admin_user, admin_session and login_failure
 * (see
 * migrations/0020-0022).  Times are the database's clock, Unix ms;
 * durations are milliseconds.  Used through admin-user.h.
 */
#ifndef DB_CONSOLE_H
#define DB_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct db;

#define ADMIN_NAME_MAX	64	/* user name, bytes (ASCII) */
#define ADMIN_HASH_MAX	255	/* encoded Argon2id hash, bytes */
#define ADMIN_CSRF_LEN	43	/* base64url of 32 bytes */
#define ADMIN_ADDR_MAX	63	/* client address, bytes */

/* One row of admin_user. */
struct admin_user {
	int64_t	 id;
	char	 name[ADMIN_NAME_MAX + 1];
	char	 hash[ADMIN_HASH_MAX + 1];
	int64_t	 created_ms;
	int64_t	 disabled;
	int64_t	 last_login_ms;	/* db_admin_user_list() only; 0: none */
};

/* A live session and its user. */
struct admin_session {
	int64_t	 user_id;
	char	 user[ADMIN_NAME_MAX + 1];
	char	 csrf[ADMIN_CSRF_LEN + 1];
	int64_t	 created_ms;
	int64_t	 last_seen_ms;
};

/*
 * Insert user name with hash, created now.  Sets *id.  Returns APP_OK,
 * APP_INVALID (the name exists, in any case), APP_DB or APP_DB_DOWN.
 */
enum app_err db_admin_user_insert(struct db *, const char *name,
	    const char *hash, int64_t *id);

/* User name (any case) into *u.  APP_OK, APP_NOTFOUND, APP_DB(_DOWN). */
enum app_err db_admin_user_get(struct db *, const char *name,
	    struct admin_user *u);

/*
 * Every user by name, with the time of its newest log-in from the audit
 * log (last_login_ms, 0 when it has none): *out a new array of *n (NULL
 * when none), freed with free().  APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err db_admin_user_list(struct db *, struct admin_user **out,
	    size_t *n);

/* Set the hash / the disabled flag of user id.  APP_OK, APP_DB(_DOWN). */
enum app_err db_admin_user_set_hash(struct db *, int64_t id,
	    const char *hash);
enum app_err db_admin_user_set_disabled(struct db *, int64_t id,
	    int disabled);

/*
 * Sessions by the SHA-256 of their id (32 bytes): insert; get a live one
 * (idle_ms since the last request and max_ms since creation not yet
 * reached, user enabled; APP_NOTFOUND otherwise); touch (last seen now);
 * delete one; delete every one of a user; purge expired ones.  Return
 * APP_OK, APP_NOTFOUND (get), APP_DB or APP_DB_DOWN.
 */
enum app_err db_admin_session_insert(struct db *, const uint8_t hash[32],
	    int64_t user_id, const char *csrf, const char *addr);
enum app_err db_admin_session_get(struct db *, const uint8_t hash[32],
	    int64_t idle_ms, int64_t max_ms, struct admin_session *s);
enum app_err db_admin_session_touch(struct db *, const uint8_t hash[32]);
enum app_err db_admin_session_delete(struct db *, const uint8_t hash[32]);
enum app_err db_admin_session_end_user(struct db *, int64_t user_id);
enum app_err db_admin_session_purge(struct db *, int64_t idle_ms,
	    int64_t max_ms);

/* The failures of one attempt's name and address within the window. */
struct login_counts {
	int64_t	 pair;		/* the name from this address */
	int64_t	 pair_oldest;	/* ... the oldest one's time, Unix ms */
	int64_t	 addr;		/* from this address, any name */
	int64_t	 addr_oldest;
	int64_t	 user;		/* the name from any address */
	int64_t	 user_last;	/* ... the newest one's time */
	int64_t	 now;		/* the database's now, Unix ms */
};

/*
 * The failures of name (lower case) and addr within the last window_ms
 * into *n, in one read.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_login_stats(struct db *, const char *name, const char *addr,
	    int64_t window_ms, struct login_counts *n);

/* Record a failure now; purge failures older than window_ms; forget a
 * user's failures from one address.  Return APP_OK, APP_DB or
 * APP_DB_DOWN. */
enum app_err db_login_fail(struct db *, const char *user, const char *addr);
enum app_err db_login_purge(struct db *, int64_t window_ms);
enum app_err db_login_reset(struct db *, const char *user,
	    const char *addr);

#endif /* DB_CONSOLE_H */
