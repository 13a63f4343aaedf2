/*
 * db.h - the database: one MariaDB/MySQL connection per process, every
 * statement prepared once per connection from the table in db-stmt.c, strict
 * sql_mode and utf8mb4 set at every connect, reconnect after a lost
 * connection.  No SQL text is ever built from input.
 */
#ifndef DB_H
#define DB_H

#include <stddef.h>
#include <stdint.h>

#include "admission.h"
#include "aqueue.h"
#include "queue-fields.h"

struct cfg;
struct db;

/*
 * Rows of queue_served one db_served_add() writes: the statement in
 * db-stmt.c's table has that many (and the first tokens are held in
 * batches of it, fairness.c).
 */
#define SERVED_BATCH	64

/*
 * Whether s is a well-formed slug: 1 to SLUG_MAX bytes of [a-z0-9-],
 * starting with [a-z0-9], not "healthz".  Returns 1 or 0.
 */
int	 db_queue_slug_valid(const char *s);

/*
 * Allocate a handle for the configured database; nothing is connected
 * until the first statement runs.  Returns the handle (never NULL;
 * exits on allocation failure); release with db_close().
 */
struct db *db_open(const struct cfg *);

/*
 * Count this handle's connections in the installation's budget
 * (db-max-connections, db-slots.h): a place is taken before each
 * connect and given back when the connection closes; with none free,
 * a statement fails at once with APP_DB_DOWN (db_last_errno() 1203, as
 * MariaDB's own per-user limit) and the next one looks again.  For the
 * FastCGI processes and the worker daemon.  Can't fail.
 */
void	 db_use_budget(struct db *);

/*
 * Bound the server-side time of every statement of this handle's
 * sessions (from the next connect on): lock waits to db-lock-timeout
 * seconds, a whole statement to db-statement-timeout-ms (MariaDB), both
 * below the client's db-timeout, so the server gives up first and a
 * statement reported as failed never commits later.  For the visitor
 * path; the operator CLI keeps the server's defaults (migrations may
 * take long).  Can't fail.
 */
void	 db_limit_statements(struct db *);

/*
 * Non-blocking mode, for the pool's processes (call before the first
 * statement): every call on the database ends with its caller's time
 * (db_deadline(), else db_statement_ms() per statement), through
 * MariaDB's non-blocking API and poll(2), however the server or the
 * network hang.  Answered as APP_DB_DOWN then, a statement is not cut
 * off: it stays in flight and is finished between requests
 * (db_idle()), its late result dropped, a join's outcome kept
 * (db_late_join()); meanwhile the connection takes nothing else (a new
 * statement waits for it within its own time, but not at all once it
 * has been in flight half a second), and after a minute without an
 * answer it is closed.  Inside a transaction, and for connects, the
 * connection is closed instead (the server rolls back).  The CLI and the
 * worker keep the blocking calls with db-timeout.  Can't fail.
 */
void	 db_nonblocking(struct db *);

/*
 * The time of each statement when no deadline is set: ms (0: db-timeout
 * seconds, the default).  Can't fail.
 */
void	 db_statement_ms(struct db *, int64_t ms);

/*
 * From now on, until the next call, the database calls of this handle
 * together may take ms milliseconds (0: each statement its own time,
 * see db_statement_ms()).  Returns the deadline in force before, for
 * db_deadline_restore().  Effective in non-blocking mode; in blocking
 * mode only the join's server-side bound follows it.  Can't fail.
 */
int64_t	 db_deadline(struct db *, int64_t ms);
void	 db_deadline_restore(struct db *, int64_t saved);

/*
 * Milliseconds left of the caller's time (db_deadline()), or the time of
 * one statement when none is set.  Can't fail.
 */
int64_t	 db_time_left_ms(struct db *);

/*
 * Time spent waiting for something else than the database (a client's
 * request body) does not count against the deadline: what
 * db_deadline_pause() returns before, passed to db_deadline_resume()
 * after, moves the deadline in force later by the time in between.
 * Can't fail.
 */
int64_t	 db_deadline_pause(const struct db *);
void	 db_deadline_resume(struct db *, int64_t paused);

/*
 * Whether a statement given up on is still in flight (non-blocking
 * mode).  Then db_inflight_fd() returns the connection's socket and the
 * poll(2) events it waits for (*events), for a loop that waits for
 * other things too; it returns -1 when nothing is in flight.
 */
int	 db_inflight(const struct db *);
int	 db_inflight_fd(const struct db *, short *events);

/*
 * Between requests: take whatever has arrived for the statement in
 * flight, waiting for more at most wait_ms (0: not at all); close its
 * connection after a minute without an answer (logged).  Can't fail.
 */
void	 db_idle(struct db *, int64_t wait_ms);

/*
 * How many calls the database has answered on this handle so far (on
 * any connection): a reader that gave up can tell whether the database
 * has answered anything since.  Can't fail.
 */
uint64_t db_answers(const struct db *);

/*
 * Which session the handle is connected with: a number that changes
 * with every new connection, 0 while there is none.  A named lock lives
 * as long as one session, so a holder whose number changed holds
 * nothing any more.  Can't fail.
 */
uint64_t db_session(const struct db *);

/* Disconnect and free.  Accepts NULL. */
void	 db_close(struct db *);

/*
 * Close the connection when it is idle (nothing in flight, no
 * transaction), giving back its place in the budget; the next statement
 * connects again.  Returns 1 when it was closed, 0 when there was none
 * or it was busy.
 */
int	 db_release(struct db *);

/*
 * Connect now if not connected (after a failed attempt, further attempts
 * are held off for one second).  Returns APP_OK or APP_DB_DOWN.
 */
enum app_err db_ensure(struct db *);

/* The raw connection, for the CLI's migrations.  NULL if not connected. */
struct st_mysql *db_mysql(struct db *);

/*
 * Run one query of static SQL text (migrations only; never with input in
 * it).  Returns APP_OK, APP_DB (logged) or APP_DB_DOWN.
 */
enum app_err db_exec_static(struct db *, const char *sql);

/*
 * Begin, commit, roll back a transaction on this connection.  Return
 * APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_begin(struct db *);
enum app_err db_commit(struct db *);
void	 db_rollback(struct db *);

/*
 * Look a queue up by slug.  On APP_OK *out is a new row the caller frees
 * with db_queue_free().  Returns APP_NOTFOUND when no such queue, APP_DB
 * or APP_DB_DOWN on failure (then *out is NULL).
 */
enum app_err db_queue_get(struct db *, const char *slug, struct queue **out);

/*
 * Same as db_queue_get, but locks the row (SELECT ... FOR UPDATE) inside
 * the caller's transaction.
 */
enum app_err db_queue_get_locked(struct db *, const char *slug,
	    struct queue **out);

/*
 * Read only the admission state of queue id into *adm.  Returns APP_OK,
 * APP_NOTFOUND, APP_DB or APP_DB_DOWN.  Like db_queue_get(), it also
 * learns the database's clock (see db_clock_ms()).
 */
enum app_err db_queue_state(struct db *, int64_t id, struct adm_queue *adm);

/* db_queue_state() with the row locked (inside a transaction). */
enum app_err db_queue_state_locked(struct db *, int64_t id,
	    struct adm_queue *adm);

/*
 * Begin a transaction, lock queue id's row and read its admission state
 * into adm and the database's now (Unix ms) into *now.  Returns APP_OK
 * with the transaction open (the caller commits or rolls back), or
 * APP_NOTFOUND, APP_DB or APP_DB_DOWN with it rolled back.
 */
enum app_err db_queue_state_begin(struct db *, int64_t id,
		    struct adm_queue *adm, int64_t *now);

/* Pass as a time to have the database stamp its own clock. */
#define DB_NOW	(-1)

/* The configuration db was opened with (db_open()).  Can't fail. */
const struct cfg *db_config(const struct db *);

/*
 * Issue the next number of queue id in one atomic statement (adm_join()
 * is the rule it mirrors) at now_ms, or at the database's clock when
 * now_ms is DB_NOW (production; an explicit time is for the tests).  It
 * takes effect only while the database's clock is within the caller's
 * time (db_deadline(), as db_clock_ms() estimates it): a statement the
 * server gets to later (a lock held long, a server stopped meanwhile)
 * issues nothing, and answers APP_DB_DOWN.  One whose answer comes after
 * the caller's time is APP_DB_DOWN too; its outcome is learnt later
 * (db_late_join()).  On APP_OK sets *number (1 to ADM_NUMBER_MAX) and
 * *admitted (1 when the number is admitted at that instant, else 0),
 * both from the statement itself.  Returns APP_NOTFOUND when the
 * statement matched no row: the queue is paused or gone, or a scheduled
 * change is due (nothing changed; see db_queue_materialize()), APP_DB
 * (also for an answer without a number) or APP_DB_DOWN on failure.
 * Retried (at most DB_JOIN_RETRIES times) only when the statement
 * certainly did not take effect: the connection was gone before the
 * statement was sent (found dead, or CR_SERVER_GONE_ERROR 2006 on
 * sending), or the server rolled it back as a deadlock victim or a
 * Galera certification failure (ER_LOCK_DEADLOCK 1213).  Never retried
 * after an error that leaves it open whether the update ran: a
 * connection lost while the statement was in flight (CR_SERVER_LOST
 * 2013, ER_CONNECTION_KILLED 1927: the server may have committed just
 * before; the number, if any, is then skipped, never issued twice), nor
 * after a lock wait or statement timeout (ER_LOCK_WAIT_TIMEOUT 1205,
 * ER_STATEMENT_TIMEOUT 1969: rolled back, but a retry would wait again).
 */
#define DB_JOIN_RETRIES	3
enum app_err db_queue_join(struct db *, int64_t id, int64_t now_ms,
	    int64_t *number, int *admitted);

/*
 * Number blocks: a lease of n numbers of queue id at once
 * (STMT_QUEUE_LEASE, adm_lease(); n <= 1 is db_queue_join()), on the
 * same terms as db_queue_join(): *last gets the lease's last number
 * L + n (its first is *last - n + 1), *admitted whether the first is
 * admitted at that instant.  APP_NOTFOUND also when the row takes no lease
 * (adm_lease_ok(): then a plain join is the way).  A lease answered too
 * late comes back through db_late_join() with its count.
 */
enum app_err db_queue_lease(struct db *, int64_t id, int64_t now_ms,
	    int64_t n, int64_t *last, int *admitted);

/*
 * Numbers of a lease handed to nobody: k >= 1 more of queue id, to be
 * passed over (db_queue_unused_fold()) and counted for good
 * (lease_unused_total).  One statement, no lock held after it.
 * Returns APP_OK (also when the queue is gone), APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_unused_add(struct db *, int64_t id, int64_t k);

/*
 * The ids of up to max (<= 64) queues with unused lease numbers not yet
 * passed over and neither paused nor on hold, into ids; *n their
 * count.  db_queue_unused_fold(): in a transaction of its own, on queue
 * id's locked row, raise skip by its
 * unused numbers as a scheduled change (adm_schedule(): serving passes
 * them a tick later, never backward) and take them off the count; *k
 * gets how many (0: none).  Nothing while the queue is paused or on
 * hold when the skip would begin (nobody may be admitted then: the
 * count waits); in passthrough, within an open random order, and with
 * abandonment detection on (it counts them once its grace has passed),
 * they are taken off the count without a skip.  APP_BUSY: another
 * change is still scheduled (nothing changed; try again later).  Both
 * return APP_OK, APP_DB or APP_DB_DOWN (APP_NOTFOUND: no row).
 */
enum app_err db_queue_unused_due(struct db *, int64_t *ids, size_t max,
		    size_t *n);
enum app_err db_queue_unused_fold(struct db *, int64_t id, int64_t *k);

/*
 * A join whose caller gave up on it (answered 503) and whose outcome
 * came later (non-blocking mode, see db_nonblocking()).
 */
struct db_late_join {
	int64_t	 queue_id;
	int64_t	 number;	/* issued all the same, or 0: none */
	int64_t	 count;		/* numbers: 1, or a lease's (number is
				   its last) */
	int	 unknown;	/* the connection broke first: unknown */
};

/*
 * Take the oldest late join outcome into *out.  Returns 1, or 0 when
 * there is none.  Only outcomes that issued a number or are unknown are
 * kept.  Can't fail.
 */
int	 db_late_join(struct db *, struct db_late_join *out);

/*
 * The database's clock, Unix ms (SELECT NOW(3)), into *out; also learns
 * this process's offset to it.  Use it to stamp operator changes, so
 * that every host agrees on T whatever its own clock says.  Returns
 * APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_now_ms(struct db *, int64_t *out);

/*
 * The database's clock as this process estimates it, Unix ms: our clock
 * plus the offset learnt from the last read that returned the server's
 * NOW(3) (state reads, db_now_ms()), exact to half that round trip; our
 * own clock before any such read, or when db is NULL.  Never steps back
 * by less than a second between calls.  Can't fail.
 */
int64_t	 db_clock_ms(struct db *);

/*
 * Prepare every statement of the table now, checking each one's
 * parameter count (see db_prepare_check()).  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_prepare_all(struct db *);

/*
 * Prepare sql and check that it takes exactly nparams parameters, as
 * every statement of the table is checked before its first use.  A
 * mismatch is logged and returns APP_DB (never a crash); APP_DB_DOWN
 * when not connected.  Exposed for the unit tests.
 */
enum app_err db_prepare_check(struct db *, const char *sql,
	    unsigned int nparams);

/*
 * Insert a new queue from q whole: the slug, the sealed keys, every
 * setting of the queue field table (queue-fields.h), the admission
 * state, the opening and its seed (an arming when there is a seed).
 * Values must have passed the table's validators.  Returns APP_OK and
 * sets q->id, APP_INVALID when the slug exists, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_insert(struct db *, struct queue *q);

/*
 * Write the admission state a change sets (rate, burst, anchor, active,
 * floor, claim window, skip, the scheduled change, the claim history)
 * of q->adm for q->id, stamped with the database's clock; never L or the
 * join's tick ring.  Use inside the transaction that locked the row.
 * Returns APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_set_state(struct db *, const struct queue *q);

/*
 * Write what the worker's seal of a random block changes (adm_seal()):
 * the admission state as db_queue_set_state() writes it, and L with the
 * join's tick ring.  Use inside the transaction that locked the row.
 * Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_seal(struct db *, const struct queue *q);

/*
 * The ids above after, in order, of up to max (<= 64) queues whose last
 * number lies inside a block of their random order that it does not
 * fill, and that admit (or have a change scheduled), into ids; *n their
 * count.  db_queue_seal_one(): when adm_seal_due() says so at the
 * database's now (a plain read first), in a transaction of its own,
 * lock queue id's row and seal that block; *to gets the new L, or 0
 * when nothing was sealed.
 * Both return APP_OK, APP_DB or APP_DB_DOWN (APP_NOTFOUND: no row).
 */
enum app_err db_queue_sealable(struct db *, int64_t after, int64_t *ids,
		    size_t max, size_t *n);
enum app_err db_queue_seal_one(struct db *, int64_t id, int64_t *to);

/*
 * Apply queue id's scheduled change once it is due, in a transaction of
 * its own (the join statement refuses to run while one is due: it
 * calls this and joins again): the claim history is folded in, then the
 * change applied (adm_materialize()); nothing when none is due.
 * Returns APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_materialize(struct db *, int64_t id);

/*
 * The ids of up to max queues whose scheduled change is due (at the
 * database's clock) into ids[], *n of them.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
#define QUEUE_DUE_MAX	64
enum app_err db_queue_due(struct db *, int64_t *ids, size_t max, size_t *n);

/* Write the sealed signing secret of q->id.  Returns as above. */
enum app_err db_queue_set_secret(struct db *, const struct queue *q);

/*
 * Every queue, ordered by slug.  On APP_OK *out is a new array of *n
 * rows (NULL when there are none) that the caller frees with
 * db_queue_list_free().  Returns APP_ENOMEM, APP_DB or APP_DB_DOWN on
 * failure (then *out is NULL and *n 0).
 */
enum app_err db_queue_list(struct db *, struct queue ***out, size_t *n);

/* Free what db_queue_list() returned.  Accepts NULL. */
void	 db_queue_list_free(struct queue **, size_t n);

/*
 * Write an operator's change of q->id whole, in one statement generated
 * from the queue field table: every setting stored by column, the
 * admission state as db_queue_set_state() writes it, the opening
 * (opens_at_ms, draw_open, draw_count) and the draw's seed and its hash
 * (none when q has none); arm 1 counts an arming of the opening.  Use
 * inside the transaction that locked the row.  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_queue_write(struct db *, const struct queue *q, int arm);

/*
 * Delete the queue with this slug.  Returns APP_OK, APP_NOTFOUND when
 * there is none, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_delete(struct db *, const char *slug);

/* Free a queue row.  Accepts NULL. */
void	 db_queue_free(struct queue *);

/*
 * Migrations bookkeeping: whether version v is recorded (sets *applied),
 * and record it.  Return APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_migration_applied(struct db *, int64_t v, int *applied);
enum app_err db_migration_record(struct db *, int64_t v, const char *name);

/*
 * Create the migrations table when missing (before the first migration).
 * Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_migration_table(struct db *);

/*
 * The character set the connection actually uses ("utf8mb4" when the
 * server took ours), or NULL when not connected.  Static storage.
 */
const char *db_charset(struct db *);

/*
 * Read queue id (db_queue_get by id).  Returns as db_queue_get().
 */
enum app_err db_queue_get_id(struct db *, int64_t id, struct queue **out);

/*
 * At most limit (1..1000) queues with an id above after_id, by id: *out
 * a new array of *n rows for db_queue_list_free().  Returns as
 * db_queue_list().
 */
enum app_err db_queue_list_page(struct db *, int64_t after_id,
	    int64_t limit, struct queue ***out, size_t *n);

#define KEY_PREFIX_MAX	16	/* shown start of an API key, bytes */
#define KEY_HASH_LEN	32	/* SHA-256 of the whole key text */
#define AUDIT_JSON_MAX	65535	/* before_json, after_json (TEXT) */

/* One API key row (never the key itself). */
struct api_key {
	int64_t	 id;
	int64_t	 queue_id;
	char	 queue_slug[SLUG_MAX + 1];
	char	 name[NAME_MAX_CHARS * 4 + 1];
	char	 prefix[KEY_PREFIX_MAX + 1];
	int64_t	 created_ms;		/* DB time, Unix ms */
	int64_t	 last_used_ms;		/* 0 = never used */
	int64_t	 revoked_ms;		/* 0 = not revoked */
	int64_t	 db_now_ms;		/* the database's now at the read */
};

/*
 * Insert a key of queue queue_id with name, SHA-256 hash and prefix;
 * created now (DB time).  Sets *id.  Returns APP_OK, APP_INVALID (the
 * hash exists), APP_DB or APP_DB_DOWN.
 */
enum app_err db_key_insert(struct db *, int64_t queue_id, const char *name,
	    const uint8_t hash[KEY_HASH_LEN], const char *prefix,
	    int64_t *id);

/*
 * The keys of queue_id (0: every key), by id: *out a new array of *n
 * rows (NULL when none) the caller frees with free().  Returns APP_OK,
 * APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err db_key_list(struct db *, int64_t queue_id,
	    struct api_key **out, size_t *n);

/*
 * The key whose SHA-256 is hash, into *out (revoked ones too: the
 * caller decides).  Returns APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_key_by_hash(struct db *, const uint8_t hash[KEY_HASH_LEN],
	    struct api_key *out);

/*
 * Record the use of key id now, unless recorded within the last minute
 * (so at most one write per key and minute).  Returns APP_OK, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err db_key_touch(struct db *, int64_t id);

/*
 * Read key id and lock its row (in the caller's transaction); then
 * revoke it now.  Return APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_key_get_locked(struct db *, int64_t id, struct api_key *out);
enum app_err db_key_revoke(struct db *, int64_t id);

/*
 * When queue id was created and last changed by an operator (its newest
 * audit row; 0 when none), Unix ms, and how many numbers its leases
 * handed to nobody (number blocks: lease_unused_total).  Returns
 * APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err db_queue_times(struct db *, int64_t id, int64_t *created_ms,
	    int64_t *changed_ms, int64_t *unused);

/* One audit log row. */
struct audit_entry {
	int64_t	 id;
	int64_t	 at_ms;			/* DB time, Unix ms */
	char	 actor_kind[17];	/* "user", "key", "cli", "worker" */
	int64_t	 actor_id;		/* 0 = none */
	char	 actor_name[NAME_MAX_CHARS * 4 + 1];
	int64_t	 queue_id;		/* 0 = none */
	char	 queue_slug[SLUG_MAX + 1];	/* "" = none */
	char	 action[33];
	char	*before_json;		/* NULL = none; owned */
	char	*after_json;		/* NULL = none; owned */
	char	 client_addr[65];
};

/*
 * Append an audit row at the database's time, inside the caller's
 * transaction.  queue_id 0 and slug NULL for none; the JSON texts may
 * be NULL.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_audit_insert(struct db *, const struct audit_entry *e);

/* What db_audit_list() selects; 0 / NULL members select everything. */
struct audit_filter {
	int64_t		 queue_id;
	const char	*actor;		/* actor_name, exact */
	const char	*action;	/* exact */
	int64_t		 since_ms;	/* at_ms >= since_ms */
	int64_t		 until_ms;	/* at_ms < until_ms; 0 = open */
	int64_t		 before_id;	/* cursor: ids below; 0 = newest */
	int64_t		 limit;		/* 1..1000 */
};

/*
 * The audit rows f selects, newest first: *out a new array of *n rows
 * the caller frees with db_audit_list_free().  Returns APP_OK,
 * APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err db_audit_list(struct db *, const struct audit_filter *f,
	    struct audit_entry **out, size_t *n);
void	 db_audit_list_free(struct audit_entry *, size_t n);

/*
 * Let this connection go back to the first node of db-hosts (checked
 * before a statement, at most every few seconds, never inside a
 * transaction) while it is on a later one.  Only for callers that hold
 * no session state across statements (named locks, variables): the
 * pool's workers.  Can't fail.
 */
void	 db_allow_failback(struct db *);

/*
 * The db-hosts node (1 = the first) this connection talks to, or 0 when
 * not connected or db-hosts is not set.
 */
int	 db_node(const struct db *);

/*
 * Scheduled opening and abandonment (db-draw.c).  Each returns APP_OK,
 * APP_DB or APP_DB_DOWN unless said otherwise.
 */

/* A queue whose arming has no seed yet (db_draw_seedless()). */
struct draw_pending {
	int64_t	 id;
	int64_t	 arm;
	char	 slug[SLUG_MAX + 1];
};

/*
 * Up to max armed queues without a seed into out[], *n of them.
 */
enum app_err db_draw_seedless(struct db *, struct draw_pending *out,
	    size_t max, size_t *n);

/*
 * Store a seed (sealed) and its public hash for queue id, only while
 * its arming is still arm and it has no seed.  *stored: 1 or 0.
 */
enum app_err db_draw_set_seed(struct db *, int64_t id, int64_t arm,
	    const uint8_t *sealed, size_t len, const char *hash_hex,
	    int *stored);

/* Close every pre-queue whose opening has passed; *closed: how many. */
enum app_err db_draw_close(struct db *, int64_t *closed);

/* The next opening still ahead (Unix ms, database clock) or 0. */
enum app_err db_draw_next(struct db *, int64_t *next_ms);

/*
 * Record a heartbeat of number on queue id at the database's clock;
 * a row younger than coalesce_ms is left unchanged.
 */
enum app_err db_presence_seen(struct db *, int64_t id, int64_t number,
	    int64_t coalesce_ms);

/* The worker's abandonment bookkeeping of one queue (abandon.c). */
struct abandon_marks {
	int64_t	 grace_s;	/* abandon_grace_s */
	int64_t	 done;		/* numbers <= done were looked at */
	int64_t	 total;		/* numbers found abandoned so far */
};

/*
 * The slugs of queues with abandonment detection on, active and past
 * any pre-queue: up to max slugs into out[] (each SLUG_MAX + 1 bytes).
 */
enum app_err db_abandon_queues(struct db *, char (*out)[SLUG_MAX + 1],
	    size_t max, size_t *n);

/* Read queue id's marks (row locked: inside a transaction). */
enum app_err db_abandon_marks(struct db *, int64_t id,
	    struct abandon_marks *m);

/*
 * Presence rows of queue id for numbers in (lo, hi]: *n counts those
 * seen at or after since_ms (db_abandon_present) / marks those silent
 * since before since_ms and not counted yet as counted, *n how many
 * (db_abandon_mark).
 */
enum app_err db_abandon_present(struct db *, int64_t id, int64_t lo,
	    int64_t hi, int64_t since_ms, int64_t *n);
enum app_err db_abandon_mark(struct db *, int64_t id, int64_t lo,
	    int64_t hi, int64_t since_ms, int64_t *n);

/*
 * Issue marks of queue id: note (now_ms, last) unless a mark newer than
 * now_ms - every_ms exists; the newest mark at or before at_ms (*found
 * 0 when none; then *number 0); delete marks older than before_ms.
 */
enum app_err db_issue_mark_add(struct db *, int64_t id, int64_t now_ms,
	    int64_t last, int64_t every_ms);
enum app_err db_issue_mark_get(struct db *, int64_t id, int64_t at_ms,
	    int64_t *mark_ms, int64_t *number, int *found);
enum app_err db_issue_mark_prune(struct db *, int64_t id, int64_t before_ms);

/* Write queue id's done mark, adding added to its total. */
enum app_err db_abandon_save(struct db *, int64_t id,
	    const struct abandon_marks *m, int64_t added);


/* Delete presence rows of queue id for numbers <= upto (at most 10000). */
enum app_err db_presence_prune(struct db *, int64_t id, int64_t upto);

#endif /* DB_H */
