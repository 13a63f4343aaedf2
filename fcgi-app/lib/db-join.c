/*
 * db-join.c - the join increment: a visitor's number with one statement
 * (db_queue_join()), a number block's lease (db_queue_lease()), the
 * numbers of leases handed to nobody, and the late outcomes of joins
 * answered 503 (db_late_join()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-private.h"
#include "log.h"
#include "queue-fields.h"

/*
 * Below this much before its deadline an answer "no row changed" may
 * come from the deadline condition rather than from a paused queue
 * (our estimate of the database's clock is off by a millisecond or so).
 */
#define JOIN_LATE_SLACK_MS	100

/*
 * The number in a join's LAST_INSERT_ID(), 0 when it holds none:
 * number * 2 + admitted; see db-stmt.c.
 */
static int64_t
join_number(int64_t packed)
{
	return packed < 2 ? 0 : packed >> 1;
}

/*
 * The late outcome's tag of a join (db_track()): the queue id, and the
 * numbers a lease issues above LATE_COUNT_SHIFT (a queue id stays far
 * below 2^40).
 */
#define LATE_COUNT_SHIFT	40

/*
 * Run the join statement of n numbers of queue id at now: STMT_QUEUE_JOIN
 * for one, STMT_QUEUE_LEASE for more; see db_queue_join() for the
 * deadline, the retries and the answers.  On APP_OK *last gets the last
 * number issued and *admitted whether the first is admitted.
 */
static enum app_err
join_run(struct db *db, int64_t id, int64_t now, int64_t n,
    int64_t *last, int *admitted)
{
	enum stmt	 st = n > 1 ? STMT_QUEUE_LEASE : STMT_QUEUE_JOIN;
	MYSQL_BIND	 p[5];
	int64_t		 packed, left, until;
	enum app_err	 er;
	unsigned int	 e;
	int		 tries = 0;
	size_t		 k = 0;

	/*
	 * The server takes it up only until our time runs out: in its
	 * clock, as the last read taught us.
	 */
	if ((left = db_time_left_ms(db)) <= 0)
		return APP_DB_DOWN;
	until = db_clock_ms(db) + left;
	db_bind_now(&p[k++], &now);
	if (n > 1)
		db_bind_int(&p[k++], &n);
	db_bind_int(&p[k++], &id);
	db_bind_now(&p[k++], &now);
	db_bind_int(&p[k++], &until);
	/* Answered too late, its outcome is still wanted: see db_track(). */
	db_track(db, id | (n > 1 ? n << LATE_COUNT_SHIFT : 0));
	for (;;) {
		er = db_run(db, st, p, NULL, NULL);
		if (er == APP_OK)
			break;
		e = db_last_errno(db);
		if ((e != CR_SERVER_GONE_ERROR && e != ER_LOCK_DEADLOCK) ||
		    tries++ >= DB_JOIN_RETRIES) {
			db_track(db, 0);
			return er;
		}
		log_info("join: retrying after error %u (not applied)", e);
	}
	db_track(db, 0);
	if (db_affected(db, st) != 1) {
		if (db_clock_ms(db) >= until - JOIN_LATE_SLACK_MS) {
			log_info("join: the database got to it after its "
			    "deadline; nothing issued");
			return APP_DB_DOWN;
		}
		return APP_NOTFOUND;
	}
	/* number * 2 + admitted; see db-stmt.c. */
	packed = db_insert_id(db, st);
	if ((*last = join_number(packed)) == 0) {
		log_warnx("db join: statement returned no number");
		return APP_DB;
	}
	*admitted = (int)(packed & 1);
	return APP_OK;
}

enum app_err
db_queue_join(struct db *db, int64_t id, int64_t now, int64_t *number,
    int *admitted)
{
	return join_run(db, id, now, 1, number, admitted);
}

enum app_err
db_queue_lease(struct db *db, int64_t id, int64_t now, int64_t n,
    int64_t *last, int *admitted)
{
	return join_run(db, id, now, n, last, admitted);
}

enum app_err
db_queue_unused_add(struct db *db, int64_t id, int64_t k)
{
	MYSQL_BIND	 p[3];

	db_bind_int(&p[0], &k);
	db_bind_int(&p[1], &k);
	db_bind_int(&p[2], &id);
	return db_run(db, STMT_QUEUE_UNUSED_ADD, p, NULL, NULL);
}

enum app_err
db_queue_unused_due(struct db *db, int64_t *ids, size_t max, size_t *n)
{
	return db_queue_ids(db, STMT_QUEUE_UNUSED_DUE, NULL, ids, max, n);
}

enum app_err
db_queue_unused_fold(struct db *db, int64_t id, int64_t *k)
{
	struct queue		 q;
	struct adm_change	 c;
	MYSQL_BIND		 p[2], r[2];
	int64_t			 now, abandon = 0;
	int			 has = 0, seg;
	enum app_err		 er;

	*k = 0;
	memset(&q, 0, sizeof(q));
	q.id = id;
	if ((er = db_queue_state_begin(db, id, &q.adm, &now)) != APP_OK)
		return er;
	db_bind_int(&p[0], &id);
	db_bind_int(&r[0], k);
	db_bind_int(&r[1], &abandon);
	if ((er = db_run(db, STMT_QUEUE_UNUSED_GET, p, r, &has)) != APP_OK)
		goto fail;
	if (!has || *k <= 0) {
		*k = 0;
		db_rollback(db);
		return APP_OK;
	}
	/*
	 * Paused or on hold when the skip would begin, nobody may be
	 * admitted: the count waits for the queue to admit again.
	 */
	seg = adm_seg_at(&q.adm, now + ADM_TICK_MS);
	if (seg == ADM_SEG_PAUSED || seg == ADM_SEG_HOLD) {
		*k = 0;
		db_rollback(db);
		return APP_OK;
	}
	adm_change_init(&q.adm, now, &c);
	c.skip += *k;
	/*
	 * Only taken off the count (serving passes them as any other):
	 * in passthrough, where the rate does not count them; within an
	 * open random order, whose positions, not numbers, are admitted
	 * (they lie before it: no lease is taken within one); and with
	 * abandonment detection on, which counts them itself once its
	 * grace has passed (they never send a heartbeat), so that they are
	 * never skipped twice.
	 */
	if (seg != ADM_SEG_PASS && !adm_order_open(&q.adm) && !abandon) {
		if (adm_schedule(&q.adm, now, &c) == -1) {
			er = APP_BUSY;
			goto fail;
		}
		if ((er = db_queue_set_state(db, &q)) != APP_OK)
			goto fail;
	}
	db_bind_int(&p[0], k);
	db_bind_int(&p[1], &id);
	if ((er = db_run(db, STMT_QUEUE_UNUSED_SUB, p, NULL, NULL)) !=
	    APP_OK)
		goto fail;
	return db_commit(db);
fail:
	*k = 0;
	db_rollback(db);
	return er;
}

int
db_late_join(struct db *db, struct db_late_join *out)
{
	int64_t	 arg, affected, id;
	int	 unknown;

	while (db_late_take(db, &arg, &affected, &id, &unknown)) {
		out->queue_id = arg & (((int64_t)1 << LATE_COUNT_SHIFT) - 1);
		out->count = arg >> LATE_COUNT_SHIFT;
		if (out->count < 1)
			out->count = 1;
		out->unknown = unknown;
		out->number = unknown || affected != 1 ? 0 : join_number(id);
		if (out->unknown || out->number > 0)
			return 1;
	}
	return 0;
}
