/*
 * qcache.c - this process's short-lived cache of queue rows, so that
 * status, info and verify answer without touching the database (SPEC
 * section 3).  A full row (with its secrets opened) is read at most once
 * per status-cache-ms; a forced read of the admission state happens
 * when a number above the cached last_number shows up.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "draw.h"
#include "extern.h"
#include "instance.h"
#include "log.h"

/*
 * Queues per process: the table grows as queues are seen, up to
 * QCACHE_MAX; past that the least recently used entry makes room.
 */
#define QCACHE_MAX		4096

/*
 * Database reads that an anonymous client can cause are paced per
 * process by token buckets: a number above the cached last number (may
 * be just issued by another process, may be invented), paced per queue
 * (FORCED_PER_S) and, across all queues, by FORCED_ALL_PER_S; and a slug
 * this process has not seen (may be a real queue, may be invented).  A
 * look-up that finds a real queue gives its token back: only invented
 * slugs use the budget, and real queues are read once, then kept.
 * Legit traffic needs few forced reads: one read covers every number
 * issued before it.
 */
#define FORCED_PER_S		50	/* forced state reads per queue */
#define FORCED_ALL_PER_S	200	/* forced state reads, all queues */
#define MISSES_PER_S		50	/* reads of unseen slugs per second */

#define RETRY_MS		1000	/* after a failed re-read of a row */

#define NEGATIVE_SIZE		64	/* remembered unknown slugs */

/*
 * The admission state is read again when older than this: well below
 * ADM_TICK_MS, the age at which a copy may no longer agree with the row
 * (admission.h).
 */
#define QCACHE_STATE_MS		(ADM_TICK_MS / 2)

struct negative {
	char	 slug[SLUG_MAX + 1];
	int64_t	 at_ms;
};

static struct qentry	**cache;	/* ncache entries, each its own */
static size_t		 ncache, capcache;
static struct negative	 negatives[NEGATIVE_SIZE];
static size_t		 negative_next;
static struct qbucket	 forced_bucket, miss_bucket;
static int		 frozen;	/* see qcache_freeze() */

/*
 * Whether request r is not to read e's row again yet: r has only a
 * cache reader's time for the database (db-status-timeout-ms: status,
 * info, verify, the poll document), a read of the row failed less than
 * RETRY_MS ago (the database is down, or hangs, or was just slow), and
 * the database has answered nothing since, or less than status-cache-ms
 * has passed (so that a late answer does not turn every poll into a
 * read).  Requests with more time (a join, a token) may try: once the
 * connection has a statement in flight for half a second they fail at
 * once anyway (db_nonblocking()).  Can't fail.
 */
static int
holding_off(const struct req *r, const struct qentry *e, int64_t now)
{
	int64_t	 since = now - e->retry_ms + RETRY_MS;
	int64_t	 gap = r->cfg->status_cache_ms;

	if (db_time_left_ms(r->db) > r->cfg->db_status_timeout_ms)
		return 0;
	if (now >= e->retry_ms || since < 0)
		return 0;
	return db_answers(r->db) == e->retry_answers || since < gap;
}

/* A read of e's row failed: hold further reads off (holding_off()). */
static void
hold_off(const struct req *r, struct qentry *e, int64_t now)
{
	e->retry_ms = now + RETRY_MS;
	e->retry_answers = db_answers(r->db);
}

/*
 * Take one token from b, refilled at rate per second up to rate tokens.
 * Returns 1 when one was taken, 0 when the bucket is empty.
 */
static int
bucket_take(struct qbucket *b, int rate, int64_t now)
{
	if (b->at_ms == 0 || now < b->at_ms)
		b->tokens = rate;
	else
		b->tokens += (double)(now - b->at_ms) * rate / 1000.0;
	if (b->tokens > rate)
		b->tokens = rate;
	b->at_ms = now;
	if (b->tokens < 1.0)
		return 0;
	b->tokens -= 1.0;
	return 1;
}

/* Empty entry e, wiping its secrets. */
static void
entry_clear(struct qentry *e)
{
	db_queue_free(e->q);
	free(e->tmpl);
	crypto_wipe(e->secret, sizeof(e->secret));
	crypto_wipe(e->ticket_key, sizeof(e->ticket_key));
	crypto_wipe(e->order_key, sizeof(e->order_key));
	memset(e, 0, sizeof(*e));
}

void
qcache_clear(void)
{
	size_t	 i;

	for (i = 0; i < ncache; i++) {
		entry_clear(cache[i]);
		free(cache[i]);
	}
	free(cache);
	cache = NULL;
	ncache = capcache = 0;
	memset(negatives, 0, sizeof(negatives));
}

void
qcache_freeze(int on)
{
	frozen = on;
}

struct qentry *
qcache_stale(const char *slug)
{
	size_t	 i;

	for (i = 0; i < ncache; i++)
		if (cache[i]->q != NULL && strcmp(cache[i]->slug, slug) == 0)
			return cache[i];
	return NULL;
}

/*
 * A slot for a queue not in the cache: a new entry while the table is
 * below QCACHE_MAX, else the least recently used one (emptied).
 * Returns NULL when memory is short (then nothing changed).
 */
static struct qentry *
entry_new(void)
{
	struct qentry	**nc, *e;
	size_t		 i, ncap;

	if (ncache == QCACHE_MAX) {
		if (frozen)
			return NULL;
		e = cache[0];
		for (i = 1; i < ncache; i++)
			if (cache[i]->used_ms < e->used_ms)
				e = cache[i];
		entry_clear(e);
		return e;
	}
	if (ncache == capcache) {
		ncap = capcache == 0 ? 64 : capcache * 2;
		if (ncap > QCACHE_MAX)
			ncap = QCACHE_MAX;
		if ((nc = try_reallocarray(cache, ncap, sizeof(*nc))) == NULL)
			return NULL;
		cache = nc;
		capcache = ncap;
	}
	if ((e = try_calloc(1, sizeof(*e))) == NULL)
		return NULL;
	cache[ncache++] = e;
	return e;
}

/*
 * Open q's sealed secrets into e.  Returns APP_OK or APP_CRYPTO.
 */
static enum app_err
open_secrets(const struct cfg *c, struct qentry *e, const struct queue *q)
{
	char	 aad[SLUG_MAX + 32];
	int64_t	 n;

	snprintf(aad, sizeof(aad), "queue-secret:%s", q->slug);
	n = crypto_unseal(c->master_key, aad, q->secret_sealed,
	    q->secret_sealed_len, e->secret, SECRET_LEN);
	if (n != SECRET_LEN) {
		log_warnx("queue %s: signing secret does not open (wrong "
		    "master key?)", q->slug);
		return APP_CRYPTO;
	}
	e->secret[SECRET_LEN] = '\0';
	/* The draw's seed: none until the worker drew it. */
	e->have_draw_seed = q->draw_seed_sealed_len > 0 && draw_unseal(c,
	    q->slug, q->draw_seed_sealed, q->draw_seed_sealed_len,
	    e->draw_seed) == 0;
	if (draw_order_key(c, q->slug, e->order_key) == -1)
		return APP_CRYPTO;
	snprintf(aad, sizeof(aad), "queue-ticket-key:%s", q->slug);
	n = crypto_unseal(c->master_key, aad, q->ticket_key_sealed,
	    q->ticket_key_sealed_len, e->ticket_key, TICKET_KEY_LEN);
	if (n != TICKET_KEY_LEN) {
		log_warnx("queue %s: ticket key does not open", q->slug);
		return APP_CRYPTO;
	}
	return APP_OK;
}

/*
 * Whether slug is known not to exist (looked up within ttl_ms).  Slugs
 * that do not exist live in their own small table, so that invented ones
 * can never push real queues out of the cache.
 */
static int
negative_fresh(const char *slug, int64_t now, int64_t ttl_ms)
{
	size_t	 i;

	for (i = 0; i < NEGATIVE_SIZE; i++)
		if (strcmp(negatives[i].slug, slug) == 0)
			return now >= negatives[i].at_ms &&
			    now - negatives[i].at_ms < ttl_ms;
	return 0;
}

/* Remember that slug does not exist (round robin over the table). */
static void
negative_add(const char *slug, int64_t now)
{
	struct negative	*n = &negatives[negative_next++ % NEGATIVE_SIZE];

	snprintf(n->slug, sizeof(n->slug), "%s", slug);
	n->at_ms = now;
}

static enum app_err state_refresh(struct req *, struct qentry *);

enum app_err
qcache_get(struct req *r, const char *slug, struct qentry **out)
{
	struct qentry	*e;
	struct queue	*q = NULL;
	enum app_err	 er;
	int64_t		 now = r->now_ms, ttl = r->cfg->status_cache_ms;
	struct qbucket	 forced;
	int		 miss = 0;

	*out = NULL;
	e = qcache_stale(slug);
	/* Frozen: the entry stays as it is, however old (a write waits). */
	if (e != NULL && ((now - e->loaded_ms < ttl && now >= e->loaded_ms) ||
	    frozen)) {
		e->used_ms = now;
		*out = e;
		/*
		 * The admission state is used only while younger than
		 * ADM_TICK_MS (admission.h): read it again well before.
		 */
		if (now - e->state_ms >= QCACHE_STATE_MS ||
		    now < e->state_ms)
			return state_refresh(r, e);
		return APP_OK;
	}
	if (e == NULL) {
		if (negative_fresh(slug, now, ttl))
			return APP_NOTFOUND;
		/* Not seen lately: paced, so invented slugs cost little. */
		if (!bucket_take(&miss_bucket, MISSES_PER_S, now))
			return APP_BUSY;
		miss = 1;
	}
	/*
	 * The row could not be read lately (the database is down, or
	 * hangs on a lock): answer from the old one without waiting on
	 * the database again for a second.
	 */
	if (e != NULL && holding_off(r, e, now))
		return APP_DB_DOWN;
	er = db_queue_get(r->db, slug, &q);
	if ((er == APP_DB_DOWN || er == APP_DB) && e != NULL)
		hold_off(r, e, now);
	/* The read taught us the database's clock: take time from it. */
	if (er == APP_OK || er == APP_NOTFOUND)
		r->now_ms = db_clock_ms(r->db);
	if (er == APP_NOTFOUND) {
		if (e != NULL)
			entry_clear(e);		/* the queue was deleted */
		negative_add(slug, now);
		return APP_NOTFOUND;
	}
	if (er != APP_OK)
		return er;
	/* A real queue: its look-up does not count against the pace. */
	if (miss && miss_bucket.tokens + 1.0 <= MISSES_PER_S)
		miss_bucket.tokens += 1.0;
	if (e == NULL && (e = entry_new()) == NULL) {
		db_queue_free(q);
		return frozen ? APP_BUSY : APP_ENOMEM;
	}
	/* The queue's own pace of forced reads outlives a reload. */
	forced = e->forced;
	entry_clear(e);
	e->forced = forced;
	snprintf(e->slug, sizeof(e->slug), "%s", slug);
	if ((er = open_secrets(r->cfg, e, q)) != APP_OK ||
	    url_shop_domains_parse(q->shop_domains, &e->domains) == -1) {
		if (er == APP_OK)
			log_warnx("queue %s: bad shop domains", slug);
		db_queue_free(q);
		entry_clear(e);
		return APP_CRYPTO;
	}
	e->q = q;
	e->loaded_ms = e->state_ms = e->used_ms = now;
	*out = e;
	return APP_OK;
}

/*
 * Read e's admission state again for qcache_get(), unless the database
 * did not answer lately (qcache_refresh()'s hold-off: the caller then
 * answers from the old state, marked stale).  Returns as
 * qcache_refresh().
 */
static enum app_err
state_refresh(struct req *r, struct qentry *e)
{
	int	 done;

	return qcache_refresh(r, e, 0, &done);
}

enum app_err
qcache_refresh(struct req *r, struct qentry *e, int limited, int *done)
{
	struct adm_queue	 a;
	enum app_err		 er;
	int64_t			 now = r->now_ms;

	*done = 0;
	/* As in qcache_get(): no read while the database does not answer. */
	if (holding_off(r, e, now))
		return APP_DB_DOWN;
	if (limited) {
		if (!bucket_take(&e->forced, FORCED_PER_S, now))
			return APP_BUSY;
		if (!bucket_take(&forced_bucket, FORCED_ALL_PER_S, now)) {
			e->forced.tokens += 1.0;	/* not used after all */
			return APP_BUSY;
		}
	}
	if ((er = db_queue_state(r->db, e->q->id, &a)) != APP_OK) {
		if (er == APP_DB_DOWN || er == APP_DB)
			hold_off(r, e, now);
		return er;
	}
	r->now_ms = db_clock_ms(r->db);
	qcache_set_state(e, &a, now);
	*done = 1;
	return APP_OK;
}

void
qcache_note_issued(struct qentry *e, int64_t number)
{
	if (number > e->issued)
		e->issued = number;
}

void
qcache_set_state(struct qentry *e, const struct adm_queue *a, int64_t at)
{
	/* Never step back to an older state than the one cached. */
	if (a->last_number < e->q->adm.last_number)
		return;
	e->q->adm = *a;
	e->state_ms = at;
}

void
qcache_seen(const struct qentry *e, int64_t now)
{
	instance_seen(e->q->id, adm_serving(&e->q->adm, now),
	    e->q->adm.last_number);
}

void
qcache_stale_raise(struct qentry *e, int64_t now)
{
	struct adm_queue	*a = &e->q->adm;
	int64_t			 serving, last;

	instance_seen_get(e->q->id, &serving, &last);
	/* A change due by now would replace the floor: apply it first. */
	adm_fold(a, now);
	(void)adm_materialize(a, now);
	/*
	 * The numbers issued raise the cap of serving, except while the
	 * draw has not been closed in this copy: until then the pre-queue's
	 * size is its own count of numbers.
	 */
	if (last > a->last_number && !a->draw_open)
		a->last_number = last;
	/* Before an opening (as this copy has it) nobody is admitted. */
	if (serving > a->floor && !adm_held(a, now))
		a->floor = serving;
}

int64_t
qcache_issued(const struct qentry *e)
{
	return e->issued > e->q->adm.last_number ? e->issued :
	    e->q->adm.last_number;
}
