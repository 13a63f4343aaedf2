/*
 * db-worker.h - the background worker's statements: the leader lock
 * and (appended below) what its jobs read and write.
 */
#ifndef DB_WORKER_H
#define DB_WORKER_H

#include "aqueue.h"

struct db;

/* The name of the MariaDB/MySQL named lock that makes a leader. */
#define DB_LEADER_LOCK	"aqueue-worker-leader"

/*
 * Try to take the leader lock on this connection without waiting
 * (GET_LOCK(name, 0)).  Sets *got to 1 when this session holds it now,
 * 0 when another session does.  Use a connection of its own: the lock
 * lives exactly as long as the session.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN (then *got is 0).
 */
enum app_err db_leader_get(struct db *, int *got);

/*
 * Whether this session still holds the leader lock: *held is 0 after a
 * reconnect (a new session holds nothing).  Returns APP_OK, APP_DB or
 * APP_DB_DOWN (then *held is 0: a lost connection is lost leadership).
 */
enum app_err db_leader_check(struct db *, int *held);

/* Release the lock (RELEASE_LOCK).  Returns APP_OK, APP_DB, APP_DB_DOWN. */
enum app_err db_leader_release(struct db *);

/* ---- auto-rate (struct ar_settings: autorate.h) ---- */
struct ar_settings;

/* One auto-rate decision for the log. */
struct ar_log_entry {
	int64_t		 queue_id;
	int64_t		 at_ms;		/* DB Unix ms */
	const char	*kind;		/* "poll" or "test" */
	int64_t		 dry_run;
	const char	*action;	/* ar_action_name() */
	const char	*state;		/* ar_state_name() */
	const char	*reason;
	const char	*rule;
	int64_t		 rate_before, rate_after;
	int64_t		 response_ms;	/* -1: no answer */
	const char	*sample;	/* JSON */
};

/*
 * The auto-rate row of queue_id into *out; *found 0 when there is none
 * (*out untouched).  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_ar_get(struct db *, int64_t queue_id,
	    struct ar_settings *out, int *found);

/*
 * Insert or replace the settings of s->queue_id (everything but the
 * controller's memory).  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_ar_save(struct db *, const struct ar_settings *s);

/* Write s->poll_ms and s->mem.  Returns APP_OK, APP_DB or APP_DB_DOWN. */
enum app_err db_ar_state(struct db *, const struct ar_settings *s);

/*
 * Record a passing test (tested_ms, its JSON result) unless the settings
 * changed since they were read (updated_ms differs): *applied 1 if
 * written.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_ar_tested(struct db *, int64_t queue_id, int64_t updated_ms,
	    int64_t tested_ms, const char *result, int *applied);

/* Set enabled (0/1) with updated_ms = now.  Returns as above. */
enum app_err db_ar_enable(struct db *, int64_t queue_id, int64_t on,
	    int64_t now);

/*
 * For each queue with auto-rate on, ordered by id: row(slug, settings,
 * arg), which returns 0 to go on or -1 to stop (APP_ENOMEM).  The slug
 * and settings are valid during the call only.  Returns APP_OK, APP_DB,
 * APP_DB_DOWN or APP_ENOMEM.
 */
enum app_err db_ar_list_enabled(struct db *,
	    int (*row)(const char *slug, const struct ar_settings *, void *),
	    void *arg);

/* Append an entry to the log.  Returns APP_OK, APP_DB or APP_DB_DOWN. */
enum app_err db_ar_log_add(struct db *, const struct ar_log_entry *e);

/*
 * The newest limit entries of queue_id's log, newest first: row(e, arg)
 * per entry (strings valid during the call), -1 stops (APP_ENOMEM).
 * Returns APP_OK, APP_DB, APP_DB_DOWN or APP_ENOMEM.
 */
enum app_err db_ar_log_list(struct db *, int64_t queue_id, int64_t limit,
	    int (*row)(const struct ar_log_entry *, void *), void *arg);

/* ---- the fairness report ---- */

/* A number's first token: its queue, number and when (DB Unix ms). */
struct served_row {
	int64_t	 queue_id, number, served_ms;
};

/*
 * Record that the n (1 to SERVED_BATCH) numbers of v got their first
 * token at their served_ms, in one statement; a number already recorded
 * keeps its first row.  Returns APP_OK, APP_INVALID (n out of range),
 * APP_DB or APP_DB_DOWN.
 */
enum app_err db_served_add(struct db *, const struct served_row *v,
	    size_t n);

/* One queue_stats sample as the fairness report reads it. */
struct fair_sample {
	int64_t	 t_ms, issued, serving, rate;
};

/*
 * Queue queue_id's samples from since_ms to until_ms (inclusive),
 * oldest first, and its served numbers in that time in the order they
 * were served: row(arg) per row with the values in *s or (number,
 * served_ms); -1 stops (APP_ENOMEM).  Return APP_OK, APP_DB,
 * APP_DB_DOWN or APP_ENOMEM.
 */
enum app_err db_fair_samples(struct db *, int64_t queue_id, int64_t since_ms,
	    int64_t until_ms, int (*row)(const struct fair_sample *, void *),
	    void *arg);
enum app_err db_fair_served(struct db *, int64_t queue_id, int64_t since_ms,
	    int64_t until_ms, int (*row)(int64_t number, int64_t served_ms,
	    void *), void *arg);

#endif /* DB_WORKER_H */
