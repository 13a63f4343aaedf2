/*
 * db-bypass.h - rows of bypass_code and bypass_failure (migrations
 * 0071, 0072): VIP bypass codes by the SHA-256 of their text, their
 * redemption in one statement, and the failures per client address.
 * Times are the database's clock, Unix ms.  Used through bypass.h.
 */
#ifndef DB_BYPASS_H
#define DB_BYPASS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "queue-fields.h"

struct db;

#define BYPASS_HASH_LEN	32	/* SHA-256 of a code's text */

/* One code, as read (never its text: only its hash is stored). */
struct bypass_code {
	int64_t	 id;
	int64_t	 queue_id;
	char	 slug[SLUG_MAX + 1];
	char	 label[NAME_MAX_CHARS * 4 + 1];
	int64_t	 use_limit;	/* 0: none */
	int64_t	 uses;
	int64_t	 expires_ms;	/* 0: never */
	int64_t	 disabled;
	int64_t	 created_ms;
	int64_t	 now_ms;	/* the database's now at the read */
};

/*
 * Insert a code of queue queue_id with label, hash, use_limit (0: none)
 * and expires_ms (0: never), created now.  Sets *id.  Returns APP_OK,
 * APP_INVALID (the hash exists), APP_NOTFOUND (no such queue), APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_bypass_insert(struct db *, int64_t queue_id,
	    const char *label, const uint8_t hash[BYPASS_HASH_LEN],
	    int64_t use_limit, int64_t expires_ms, int64_t *id);

/*
 * The codes of queue queue_id by id: *out a new array of *n (NULL when
 * none), freed with free().  APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err db_bypass_list(struct db *, int64_t queue_id,
	    struct bypass_code **out, size_t *n);

/*
 * Code id into *out, its row locked (inside a transaction).  APP_OK,
 * APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_bypass_get_locked(struct db *, int64_t id,
	    struct bypass_code *out);

/* Set code id disabled (1) or not; delete it.  APP_OK, APP_DB(_DOWN). */
enum app_err db_bypass_set_disabled(struct db *, int64_t id, int disabled);
enum app_err db_bypass_delete(struct db *, int64_t id);

/*
 * Take one use of the code of queue queue_id whose text hashes to hash,
 * when it is enabled, unexpired and below its limit, in one statement:
 * *taken 1, else 0.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_bypass_redeem(struct db *, int64_t queue_id,
	    const uint8_t hash[BYPASS_HASH_LEN], int *taken);

/*
 * The code of queue queue_id whose text hashes to hash into *out:
 * *found 1, or 0 when there is none.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_bypass_why(struct db *, int64_t queue_id,
	    const uint8_t hash[BYPASS_HASH_LEN], struct bypass_code *out,
	    int *found);

/*
 * Failures from addr within the last window_ms: *count, the oldest
 * one's time *oldest_ms (0 when none), the database's *now_ms.  Record
 * one now; purge those older than window_ms.  Return APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_bypass_fail_count(struct db *, const char *addr,
	    int64_t window_ms, int64_t *count, int64_t *oldest_ms,
	    int64_t *now_ms);
enum app_err db_bypass_fail(struct db *, const char *addr);
enum app_err db_bypass_fail_purge(struct db *, int64_t window_ms);

#endif /* DB_BYPASS_H */
