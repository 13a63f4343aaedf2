/*
 * test-db.c - the database layer against a real MariaDB (the one test/run
 * starts; its config file is named by AQ_TEST_CONF, else the test is
 * skipped as a whole).  Checks that the join statement does exactly what
 * adm_join() does over many states, that utf8mb4 text round-trips
 * byte-exactly (CASES C25), that strict mode refuses over-long values
 * instead of truncating them, and that in non-blocking mode a statement
 * ends with its caller's time and is finished later: a join the server
 * gets to after its deadline issues nothing, one that issues a number
 * after its caller gave up is handed out to be voided (CASES C31).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mysql.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "db-private.h"
#include "dbtest.h"
#include "join-void.h"
#include "tap.h"

static uint64_t	 rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: deterministic test data. */
static uint64_t
next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static int64_t
pick(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

/* Whether two states hold the same values in every field. */
static int
same_state(const struct adm_queue *x, const struct adm_queue *y)
{
	return x->rate_per_minute == y->rate_per_minute &&
	    x->burst == y->burst && x->anchor_number == y->anchor_number &&
	    x->anchor_time_ms == y->anchor_time_ms &&
	    x->last_number == y->last_number && x->skip == y->skip &&
	    x->active == y->active && x->floor == y->floor &&
	    x->claim_window_s == y->claim_window_s && x->tick == y->tick &&
	    x->l_tick == y->l_tick && x->l_tick1 == y->l_tick1 &&
	    x->l_tick2 == y->l_tick2 && x->pend_at_ms == y->pend_at_ms &&
	    x->pend_rate == y->pend_rate && x->pend_burst == y->pend_burst &&
	    x->pend_active == y->pend_active &&
	    x->pend_skip == y->pend_skip && x->pend_floor == y->pend_floor &&
	    x->claim_grid == y->claim_grid &&
	    x->claim_front == y->claim_front &&
	    x->claim_front1 == y->claim_front1 &&
	    x->claim_dead == y->claim_dead &&
	    x->opens_at_ms == y->opens_at_ms &&
	    x->draw_open == y->draw_open && x->draw_count == y->draw_count &&
	    x->rand_from == y->rand_from && x->rand_to == y->rand_to &&
	    x->rand_block == y->rand_block;
}

/* Delete the test's queues (test only). */
static void
drop(MYSQL *my, const char *prefix)
{
	static const char sql[] = "DELETE FROM queue WHERE slug LIKE ?";
	MYSQL_STMT	*st = mysql_stmt_init(my);
	MYSQL_BIND	 b[1];
	char		 pat[80];
	unsigned long	 len;

	snprintf(pat, sizeof(pat), "%s%%", prefix);
	len = strlen(pat);
	memset(b, 0, sizeof(b));
	b[0].buffer_type = MYSQL_TYPE_STRING;
	b[0].buffer = pat;
	b[0].buffer_length = len;
	b[0].length = &len;
	if (st != NULL && mysql_stmt_prepare(st, sql, sizeof(sql) - 1) == 0 &&
	    mysql_stmt_bind_param(st, b) == 0)
		(void)mysql_stmt_execute(st);
	if (st != NULL)
		mysql_stmt_close(st);
}

/* A queue row with dummy sealed blobs (never opened here). */
static enum app_err
insert(struct db *db, struct queue *q, char *slug, const char *name)
{
	memset(q, 0, sizeof(*q));
	q->slug = slug;
	q->name = (char *)(uintptr_t)name;
	q->target_url = (char *)(uintptr_t)"https://shop.example/";
	q->shop_domains = (char *)(uintptr_t)"shop.example";
	q->token_ttl_s = 600;
	q->json_queued_status = 200;
	q->abandon_grace_s = 180;
	q->pow_bits = 15;
	q->method = (char *)(uintptr_t)"fifo";
	adm_init(&q->adm, 60, 0, 1000000);
	memset(q->secret_sealed, 1, 71);
	q->secret_sealed_len = 71;
	memset(q->ticket_key_sealed, 2, 60);
	q->ticket_key_sealed_len = 60;
	return db_queue_insert(db, q);
}

/*
 * A random admission state around now: any rate, burst, anchor (behind,
 * at or ahead of the clamp, held ahead by an opening), floor, skip, tick
 * ring, claim samples and scheduled change, within the row's CHECKs.
 */
static void
random_state(struct adm_queue *a, int64_t *now)
{
	int64_t	 base = 1700000000000LL, g, w;

	memset(a, 0, sizeof(*a));
	a->rate_per_minute = pick(0, 3) == 0 ? pick(1, 10) : pick(1, 1000000);
	a->burst = pick(0, 1) ? 0 : pick(1, 500);
	a->last_number = pick(0, 100000);
	a->skip = pick(0, 3) == 0 ? pick(0, a->last_number) : 0;
	a->anchor_number = a->last_number + pick(-5000, 600) - a->skip;
	a->anchor_time_ms = base + pick(0, 100000);
	/* Paused, fifo, or (queuing methods) hold, passthrough, random. */
	a->active = pick(0, 9) == 0 ? ADM_SEG_PAUSED : (int)pick(1, 4);
	a->rand_block = 1;
	/* A random order going on, or ended (any kind then), or none. */
	if (a->active == ADM_SEG_RANDOM || pick(0, 3) == 0) {
		a->rand_block = pick(0, 2) == 0 ? pick(1, 3) : pick(2, 400);
		a->rand_from = pick(1, a->last_number + 50);
		if (a->active != ADM_SEG_RANDOM && pick(0, 1))
			a->rand_to = a->rand_from + pick(0, 400) *
			    a->rand_block;
	}
	/* A floor above the clamp (after a rate cut), or none. */
	a->floor = pick(0, 2) == 0 ? a->last_number +
	    pick(0, 2 * adm_burst(a)) : pick(0, 1) ? 0 :
	    pick(0, a->last_number);
	a->claim_window_s = pick(0, 1) ? pick(1, 30) : pick(1, 86400);
	switch (pick(0, 4)) {
	case 0:	/* clock behind the anchor */
		*now = a->anchor_time_ms - pick(1, 5000);
		break;
	case 1:	/* exactly at the clamp */
		a->anchor_number = a->last_number + adm_burst(a) - a->skip;
		*now = a->anchor_time_ms;
		break;
	case 2:	/* years of idle time */
		*now = a->anchor_time_ms + pick(1, 3) * 100000000000LL;
		break;
	default:
		*now = a->anchor_time_ms + pick(0, 600000);
		break;
	}
	/* The tick ring: the last join 0..5 ticks before now's. */
	a->tick = *now / ADM_TICK_MS - pick(0, 5);
	a->l_tick = a->last_number - pick(0, 3) * pick(0, 50);
	if (a->l_tick < 0)
		a->l_tick = 0;
	a->l_tick1 = a->l_tick - pick(0, 40);
	if (a->l_tick1 < 0)
		a->l_tick1 = 0;
	a->l_tick2 = a->l_tick1 - pick(0, 40);
	if (a->l_tick2 < 0)
		a->l_tick2 = 0;
	/* The claim samples: 0..3 grid points behind now's. */
	w = a->claim_window_s * 1000 + ADM_CLAIM_SLACK_MS;
	g = *now / w;
	a->claim_grid = g - pick(0, 3);
	a->claim_front1 = pick(0, a->last_number);
	a->claim_front = a->claim_front1 + pick(0, a->last_number -
	    a->claim_front1);
	a->claim_dead = pick(0, 3) == 0 ? pick(0, a->claim_front1) : 0;
	/* A change scheduled ahead, or one that is due. */
	if (pick(0, 3) == 0) {
		a->pend_at_ms = *now + (pick(0, 1) ? pick(1, ADM_TICK_MS) :
		    -pick(0, 100));
		a->pend_rate = pick(1, 1000000);
		a->pend_burst = pick(0, 1) ? 0 : pick(1, 500);
		a->pend_active = pick(0, 3);
		a->pend_skip = a->skip + pick(0, 3);
		a->pend_floor = pick(0, a->last_number + 10);
	}
	/* A scheduled opening: collecting, just closing, held, or done. */
	if (pick(0, 3) == 0) {
		a->opens_at_ms = *now + pick(-400, 400);
		a->draw_open = pick(0, 2) != 0;
		a->draw_count = a->draw_open ? 0 : pick(0, a->last_number);
		if (a->draw_open && pick(0, 1)) {
			a->floor = pick(0, 1) ? 0 : adm_burst(a);
			a->anchor_number = a->floor - a->skip;
			a->anchor_time_ms = a->opens_at_ms + ADM_TICK_MS;
		}
	}
}

/* The join statement against adm_join() over random and edge states. */
static void
test_join_mirror(struct db *db, const char *prefix)
{
	struct queue		 q;
	struct adm_queue	 a, want, got;
	char			 slug[64];
	int64_t			 now = 0, number, n;
	int			 i, bad = 0, paused = 0, reanchored = 0;
	int			 admitted, wadm, nadm = 0, nwait = 0;
	int			 floored = 0, due = 0, folded = 0, closed = 0;
	int			 collecting = 0, shifted = 0, held = 0;
	int			 inblock = 0, leased = 0, noleases = 0;
	int64_t			 bs, bn, k;
	char			 sql[128];
	enum app_err		 er;

	snprintf(slug, sizeof(slug), "%smirror", prefix);
	is_int(insert(db, &q, slug, "mirror"), APP_OK, "insert queue row");
	/* The lease statement takes leases only where numberBlock is on. */
	snprintf(sql, sizeof(sql), "UPDATE queue SET number_block = 10 "
	    "WHERE id = %lld", (long long)q.id);
	is_int(mysql_query(db_mysql(db), sql), 0, "numberBlock 10");
	for (i = 0; i < 800 && bad < 5; i++) {
		random_state(&a, &now);
		/*
		 * One transaction per state: the row stays locked from the
		 * forced state to the read back, so that the stack's worker
		 * (which applies due changes and closes pre-queues at the
		 * real time) cannot touch it in between.
		 */
		if (db_begin(db) != APP_OK ||
		    dbtest_set_state(db_mysql(db), q.id, &a) == -1) {
			db_rollback(db);
			bad++;
			continue;
		}
		want = a;
		number = 0;
		admitted = -1;
		/* Every third state: a lease of 2 to 9 numbers. */
		if (i % 3 == 2) {
			k = 2 + i % 8;
			er = db_queue_lease(db, q.id, now, k, &number,
			    &admitted);
			n = adm_lease(&want, now, k, &wadm);
			if (n > 0)
				leased++;
			else if (n == 0 && a.active != 0)
				noleases++;
		} else {
			er = db_queue_join(db, q.id, now, &number, &admitted);
			n = adm_join(&want, now, &wadm);
		}
		if (n <= 0) {
			if (n < 0)
				due++;
			else if (a.active == 0)
				paused++;
			if (er != APP_NOTFOUND)
				bad++;
		} else if (er != APP_OK || number != n || admitted != wadm)
			bad++;
		else {
			if (admitted)
				nadm++;
			else
				nwait++;
			if (adm_held(&want, now))
				held++;
			if (want.floor > want.last_number - 1 +
			    adm_burst(&want))
				floored++;
			if (want.claim_grid != a.claim_grid)
				folded++;
			if (want.tick != a.tick)
				shifted++;
			if (a.draw_open && !want.draw_open)
				closed++;
			if (a.draw_open && want.draw_open)
				collecting++;
			if (adm_order_block(&want, n, &bs, &bn))
				inblock++;
		}
		if (db_queue_state(db, q.id, &got) != APP_OK) {
			db_rollback(db);
			bad++;
			continue;
		}
		db_commit(db);
		if (want.anchor_time_ms == now && a.anchor_time_ms != now)
			reanchored++;
		if (!same_state(&got, &want)) {
			printf("# state %d: A %lld T %lld L %lld skip %lld "
			    "r %lld b %lld now %lld: db A %lld T %lld L %lld "
			    "front %lld/%lld grid %lld tick %lld, model A "
			    "%lld T %lld L %lld front %lld/%lld grid %lld tick "
			    "%lld\n", i,
			    (long long)a.anchor_number,
			    (long long)a.anchor_time_ms,
			    (long long)a.last_number, (long long)a.skip,
			    (long long)a.rate_per_minute, (long long)a.burst,
			    (long long)now, (long long)got.anchor_number,
			    (long long)got.anchor_time_ms,
			    (long long)got.last_number,
			    (long long)got.claim_front,
			    (long long)got.claim_front1,
			    (long long)got.claim_grid, (long long)got.tick,
			    (long long)want.anchor_number,
			    (long long)want.anchor_time_ms,
			    (long long)want.last_number,
			    (long long)want.claim_front,
			    (long long)want.claim_front1,
			    (long long)want.claim_grid, (long long)want.tick);
			bad++;
		}
	}
	is_int(bad, 0, "join and lease statements == adm_join() and "
	    "adm_lease() over %d states: every field (claim samples, tick "
	    "ring too), the number and its admitted bit", i);
	ok(leased > 20, "leases of 2 to 9 numbers taken (%d)", leased);
	ok(noleases > 0, "leases refused where adm_lease_ok() says no, the "
	    "statement too (%d)", noleases);
	ok(paused > 0, "paused states covered (%d)", paused);
	ok(due > 0, "states with a change due covered (%d)", due);
	ok(reanchored > 0, "re-anchoring states covered (%d)", reanchored);
	ok(nadm > 0 && nwait > 0, "admitted (%d) and waiting (%d) joins "
	    "covered", nadm, nwait);
	ok(floored > 0, "floors above the clamp covered (%d)", floored);
	ok(folded > 0, "claim samples folded in (%d)", folded);
	ok(shifted > 0, "tick ring moved on (%d)", shifted);
	ok(held > 0, "joins held by an opening (%d)", held);
	ok(inblock > 0, "joins into a block of a random order (%d)", inblock);
	ok(closed > 0 && collecting > 0, "joins that close a pre-queue (%d) "
	    "and joins into one (%d) covered", closed, collecting);
}

/*
 * Time from the database: a join with DB_NOW stamps T with the server's
 * clock, and db_now_ms() reads the same clock.
 */
static void
test_db_time(struct db *db, const char *prefix)
{
	struct queue		 q;
	struct adm_queue	 a, got;
	char			 slug[64];
	int64_t			 t0 = 0, t1 = 0, number = 0;
	int			 admitted = -1;

	snprintf(slug, sizeof(slug), "%sdbtime", prefix);
	is_int(insert(db, &q, slug, "db time"), APP_OK, "insert queue row");
	/* Idle for years: the join re-anchors, so T := the join's now. */
	adm_init(&a, 60, 0, 1000000);
	ok(dbtest_set_state(db_mysql(db), q.id, &a) == 0, "old state set");
	is_int(db_now_ms(db, &t0), APP_OK, "db_now_ms");
	is_int(db_queue_join(db, q.id, DB_NOW, &number, &admitted),
	    APP_OK, "join at the database's clock");
	is_int(db_now_ms(db, &t1), APP_OK, "db_now_ms again");
	is_int(db_queue_state(db, q.id, &got), APP_OK, "state read");
	ok(number == 1 && admitted == 1 && got.anchor_number == 10,
	    "number 1, admitted, A = 0 + burst 10 (re-anchored on L + "
	    "burst)");
	ok(got.anchor_time_ms >= t0 && got.anchor_time_ms <= t1,
	    "T stamped by the server: %lld in [%lld, %lld]",
	    (long long)got.anchor_time_ms, (long long)t0, (long long)t1);
	ok(t0 > 1700000000000LL, "the server's clock is Unix ms (%lld)",
	    (long long)t0);
	ok(db_clock_ms(db) >= t1 - 1000 && db_clock_ms(db) <= t1 + 1000,
	    "our estimate of the server's clock is near it");
}

/*
 * Every statement of the table takes as many parameters as its caller
 * binds; a mismatch is an APP_DB error, not a crash.
 */
static void
test_param_counts(struct db *db)
{
	is_int(db_prepare_all(db), APP_OK,
	    "every statement's parameter count matches its binds");
	is_int(db_prepare_check(db, "SELECT ? + ?", 2), APP_OK,
	    "2 parameters, 2 binds: ok");
	is_int(db_prepare_check(db, "SELECT ? + ?", 3), APP_DB,
	    "2 parameters, 3 binds: APP_DB");
	is_int(db_prepare_check(db, "SELECT ? + ?", 1), APP_DB,
	    "2 parameters, 1 bind: APP_DB");
	is_int(db_prepare_check(db, "SELECT 1", 0), APP_OK,
	    "the connection is still usable");
}

/* C25: utf8mb4 names round-trip; over-long values are refused. */
static void
test_text(struct db *db, const char *prefix)
{
	/* "Sommer-Sale", a shopping cart emoji, "Groesse" with o-umlaut, sz */
	static const char	 name[] =
	    "Sommer-Sale \xf0\x9f\x9b\x92 Gr\xc3\xb6\xc3\x9f" "e";
	struct queue		 q, *got = NULL;
	char			 slug[64], longname[1024];

	snprintf(slug, sizeof(slug), "%sutf8", prefix);
	is_int(insert(db, &q, slug, name), APP_OK, "insert with emoji name");
	is_int(db_queue_get(db, slug, &got), APP_OK, "read it back");
	is_str(got != NULL ? got->name : NULL, name,
	    "name round-trips byte-exactly");
	db_queue_free(got);
	is_int(insert(db, &q, slug, name), APP_INVALID,
	    "a second queue with the same slug is refused");

	memset(longname, 'x', 201);
	longname[201] = '\0';
	snprintf(slug, sizeof(slug), "%slong", prefix);
	is_int(insert(db, &q, slug, longname), APP_DB,
	    "201-character name refused by strict mode, not truncated");
	is_int(db_queue_get(db, slug, &got), APP_NOTFOUND,
	    "nothing stored for the refused row");
	db_queue_free(got);
	is_int(db_queue_get(db, "Bad_Slug", &got), APP_NOTFOUND,
	    "malformed slug is not looked up");
}

/*
 * The database's clock as this process holds it: a sample with a long
 * round trip (a read delayed under load) does not move it, one that
 * contradicts it (the clock stepped, another node) does.  The samples
 * made up here have known round trips, so that the checks do not depend
 * on how fast this machine answers; the real ones are held to their own
 * error bounds (half a round trip, and milliseconds of rounding).
 */
static void
test_clock_filter(struct db *db)
{
	int64_t	 dbnow, off, t, rtt1, rtt2, d;

	t = now_us();
	is_int(db_now_ms(db, &dbnow), APP_OK, "clock: a real sample");
	rtt1 = now_us() - t;
	off = db_clock_ms(db) * 1000 - now_us();
	/* Round trip 0 at that offset: the best sample there is. */
	t = now_us();
	db_clock_sample(db, t, t + off);
	/* Round trip 80 ms, stamped 30 ms off: within +-41, not taken. */
	t = now_us();
	db_clock_sample(db, t - 80000, t - 40000 + off + 30000);
	d = db_clock_ms(db) - (now_us() + off) / 1000;
	ok(llabs(d) <= 2, "clock: a delayed sample does not move the "
	    "offset (%lld ms)", (long long)d);
	/* Five seconds off: the clock stepped; taken at once. */
	t = now_us();
	db_clock_sample(db, t - 80000, t - 40000 + off + 5000000);
	d = db_clock_ms(db) - (now_us() + off) / 1000;
	ok(llabs(d - 5000) <= 2, "clock: a contradicting sample is taken "
	    "(%lld ms)", (long long)d);
	/* And a real one puts it back (a step of more than a second). */
	t = now_us();
	is_int(db_now_ms(db, &dbnow), APP_OK, "clock: another real sample");
	rtt2 = now_us() - t;
	d = db_clock_ms(db) * 1000 - (now_us() + off);
	ok(llabs(d) <= rtt1 / 2 + rtt2 / 2 + 3000, "clock: back to the "
	    "database's clock (%lld us, round trips %lld and %lld us)",
	    (long long)d, (long long)rtt1, (long long)rtt2);
}

/* Sleep ms milliseconds. */
static void
nap(int64_t ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1)
		continue;
}

/*
 * Finish what is in flight on db (db_idle() between naps), for at most
 * ms.  Returns 1 when nothing is in flight any more.
 */
static int
settle(struct db *db, int64_t ms)
{
	int64_t	 end = now_ms() + ms;

	for (;;) {
		db_idle(db, 0);
		if (!db_inflight(db))
			return 1;
		if (now_ms() >= end)
			return 0;
		nap(10);
	}
}

/* Lock queue id's row in a transaction of holder.  Returns 0 or -1. */
static int
hold_row(struct db *holder, int64_t id)
{
	struct adm_queue	 a;

	if (db_begin(holder) != APP_OK)
		return -1;
	return db_queue_state_locked(holder, id, &a) == APP_OK ? 0 : -1;
}

/*
 * Non-blocking mode (db_nonblocking()) against a row another session
 * holds locked: every call ends with its caller's time; what was given
 * up on is finished later, the connection taking nothing else
 * meanwhile; a join the server gets to after its deadline issues
 * nothing (SYSDATE in its WHERE, read after the lock is granted); one
 * that issues a number after its caller gave up is handed out by
 * db_late_join() and voided by visitor_join_void(); a join whose
 * connection breaks is unknown.  The other session (holder) keeps the
 * blocking calls.
 */
static void
test_hang(const struct cfg *c, const char *prefix)
{
	struct db		*holder = db_open(c), *nb = db_open(c);
	struct db_late_join	 l;
	struct queue		 q;
	struct adm_queue	 a, b, st;
	char			 slug[64];
	int64_t			 t0, ms, number = 0, t;
	uint64_t		 answers;
	int			 admitted = 0;
	enum app_err		 er;

	db_nonblocking(nb);
	snprintf(slug, sizeof(slug), "%shang", prefix);
	is_int(insert(holder, &q, slug, "hang"), APP_OK, "insert queue row");
	(void)db_deadline(nb, 1000);
	is_int(db_queue_state(nb, q.id, &a), APP_OK, "non-blocking: a read");
	ok(db_answers(nb) > 0, "answers counted (%llu)",
	    (unsigned long long)db_answers(nb));

	/* 1. A join behind a held lock: 503 at its deadline, no number. */
	ok(hold_row(holder, q.id) == 0, "another session holds the row");
	(void)db_deadline(nb, 300);
	t0 = now_ms();
	er = db_queue_join(nb, q.id, DB_NOW, &number, &admitted);
	ms = now_ms() - t0;
	is_int(er, APP_DB_DOWN, "join behind the lock: APP_DB_DOWN");
	ok(ms >= 290 && ms < 1500, "... at its deadline (300 ms): %lld ms",
	    (long long)ms);
	ok(db_inflight(nb), "... and still in flight");
	(void)db_deadline(nb, 1000);
	t0 = now_ms();
	is_int(db_queue_state(nb, q.id, &b), APP_DB_DOWN,
	    "a read meanwhile: APP_DB_DOWN (the connection is busy)");
	ms = now_ms() - t0;
	ok(ms < 500, "... without waiting for the lock: %lld ms",
	    (long long)ms);
	nap(300);
	is_int(db_commit(holder), APP_OK, "the lock goes, after the deadline");
	ok(settle(nb, 5000), "the join is finished in the background");
	ok(!db_late_join(nb, &l), "taken up after its deadline: no number "
	    "to void");
	is_int(db_queue_state(holder, q.id, &b), APP_OK, "state read");
	is_int(b.last_number, a.last_number, "nothing issued");
	(void)db_deadline(nb, 1000);
	is_int(db_queue_join(nb, q.id, DB_NOW, &number, &admitted),
	    APP_OK, "the next join works");
	is_int(number, a.last_number + 1, "... with the next number");

	/*
	 * 2. The server's deadline later than ours (our estimate of its
	 * clock 5 s ahead): the join commits after we gave up, and its
	 * number is handed out to be voided.
	 */
	ok(hold_row(holder, q.id) == 0, "the row held again");
	t = now_us();
	db_clock_sample(nb, t, t + 5000000);
	(void)db_deadline(nb, 300);
	is_int(db_queue_join(nb, q.id, DB_NOW, &number, &admitted),
	    APP_DB_DOWN, "a join given up on");
	nap(200);
	is_int(db_commit(holder), APP_OK, "the lock goes");
	ok(settle(nb, 5000), "the join is finished in the background");
	ok(db_late_join(nb, &l) == 1 && !l.unknown && l.queue_id == q.id &&
	    l.number == a.last_number + 2, "its late number is handed out "
	    "(queue %lld number %lld unknown %d)", (long long)l.queue_id,
	    (long long)l.number, l.unknown);
	ok(!db_late_join(nb, &l), "... once");
	is_int(db_queue_state(holder, q.id, &a), APP_OK, "state read");
	(void)db_deadline(nb, 0);
	is_int(visitor_join_void(nb, q.id, a.last_number), APP_OK,
	    "the number is voided");
	is_int(db_queue_state(holder, q.id, &b), APP_OK, "state read");
	adm_settled(&b, &st);
	is_int(st.skip, a.skip + 1, "its place is given back: skip + 1, "
	    "scheduled a tick ahead");
	is_int(b.last_number, a.last_number, "no number taken by that");
	ok(adm_serving(&b, now_ms()) >= adm_serving(&a, now_ms()),
	    "serving never goes back");

	/* 3. A locking read given up on: its late rows are dropped. */
	ok(hold_row(holder, q.id) == 0, "the row held again");
	(void)db_deadline(nb, 200);
	answers = db_answers(nb);
	is_int(db_queue_state_locked(nb, q.id, &st), APP_DB_DOWN,
	    "a locking read given up on");
	ok(db_answers(nb) == answers, "no answer counted");
	is_int(db_commit(holder), APP_OK, "the lock goes");
	ok(settle(nb, 5000), "the read is finished in the background");
	ok(db_answers(nb) > answers, "its answer counted");
	(void)db_deadline(nb, 1000);
	is_int(db_queue_state(nb, q.id, &a), APP_OK, "the connection reads "
	    "again");
	is_int(a.last_number, b.last_number, "... the right row");

	/* 4. No time left: nothing is sent. */
	(void)db_deadline(nb, 1);
	nap(5);
	answers = db_answers(nb);
	is_int(db_queue_state(nb, q.id, &a), APP_DB_DOWN, "no time left: "
	    "APP_DB_DOWN");
	ok(!db_inflight(nb) && db_answers(nb) == answers, "... nothing sent");

	/* 5. The connection of a join in flight breaks: unknown. */
	ok(hold_row(holder, q.id) == 0, "the row held again");
	(void)db_deadline(nb, 200);
	is_int(db_queue_join(nb, q.id, DB_NOW, &number, &admitted),
	    APP_DB_DOWN, "a join given up on");
	ok(db_mysql(nb) != NULL && dbtest_kill(db_mysql(holder),
	    mysql_thread_id(db_mysql(nb))) == 0, "its session is killed");
	ok(settle(nb, 5000), "the broken connection is closed");
	ok(db_late_join(nb, &l) == 1 && l.unknown && l.queue_id == q.id,
	    "its outcome is unknown (queue %lld unknown %d)",
	    (long long)l.queue_id, l.unknown);
	db_rollback(holder);
	(void)db_deadline(nb, 1000);
	/* The voided place's change is due by now: applied first. */
	is_int(db_queue_materialize(nb, q.id), APP_OK, "a new connection "
	    "applies the change that is due");
	is_int(db_queue_join(nb, q.id, DB_NOW, &number, &admitted),
	    APP_OK, "a new connection joins");
	is_int(db_queue_state(holder, q.id, &b), APP_OK, "state read");
	is_int(number, b.last_number, "... with the last number");
	db_close(nb);
	db_close(holder);
}

int
main(void)
{
	const char	*conf = getenv("AQ_TEST_CONF");
	struct cfg	 c;
	struct db	*db;
	char		 prefix[32];

	if (conf == NULL || *conf == '\0') {
		printf("1..0 # SKIP AQ_TEST_CONF not set (run test/run)\n");
		return 0;
	}
	if (cfg_load(conf, &c) == -1) {
		ok(0, "config %s loads", conf);
		return done_testing();
	}
	db = db_open(&c);
	is_int(db_ensure(db), APP_OK, "connects to the test database");
	snprintf(prefix, sizeof(prefix), "tdb%lld-",
	    (long long)(now_ms() % 100000000));
	test_param_counts(db);
	test_join_mirror(db, prefix);
	test_db_time(db, prefix);
	test_clock_filter(db);
	test_text(db, prefix);
	test_hang(&c, prefix);
	if (db_mysql(db) != NULL)
		drop(db_mysql(db), prefix);
	db_close(db);
	cfg_free(&c);
	return done_testing();
}
