/*
 * join-void.c - numbers issued for joins that were answered 503 (see
 * join-void.h).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "admission.h"
#include "aqueue.h"
#include "db.h"
#include "instance.h"
#include "join-void.h"
#include "log.h"

/*
 * Voids whose place could not be given back yet (another change of the
 * queue was still scheduled, or the database did not answer): retried
 * between requests (visitor_join_late()).
 */
#define VOID_RETRY_MAX	64
static struct {
	int64_t	 queue_id;
	int64_t	 number;
} retry[VOID_RETRY_MAX];
static size_t	 nretry;

/*
 * Give the place of a voided number of queue queue_id back: skip + 1,
 * scheduled like every admission change (admission.h), in one
 * transaction with the row locked.  Returns APP_OK, APP_BUSY (another
 * change is still scheduled: try again later), APP_NOTFOUND, APP_DB or
 * APP_DB_DOWN.
 */
static enum app_err
give_back(struct db *db, int64_t queue_id)
{
	struct queue		 q;
	struct adm_change	 c;
	int64_t			 now;
	enum app_err		 er;

	memset(&q, 0, sizeof(q));
	q.id = queue_id;
	if ((er = db_queue_state_begin(db, queue_id, &q.adm, &now)) !=
	    APP_OK)
		return er;
	adm_change_init(&q.adm, now, &c);
	c.skip++;
	if (adm_schedule(&q.adm, now, &c) == -1) {
		er = APP_BUSY;
		goto out;
	}
	if ((er = db_queue_set_state(db, &q)) == APP_OK)
		er = db_commit(db);
out:
	if (er != APP_OK)
		db_rollback(db);
	return er;
}

enum app_err
visitor_join_void(struct db *db, int64_t queue_id, int64_t number)
{
	enum app_err	 er;

	instance_join_voided(queue_id);
	log_warnx("join: queue %lld: number %lld was issued after its join "
	    "had been answered 503; voided, its place given back",
	    (long long)queue_id, (long long)number);
	if ((er = give_back(db, queue_id)) == APP_OK ||
	    er == APP_NOTFOUND)
		return er;
	if (nretry < VOID_RETRY_MAX) {
		retry[nretry].queue_id = queue_id;
		retry[nretry++].number = number;
		log_info("join: queue %lld: the place of voided number %lld "
		    "is given back later (error %d)", (long long)queue_id,
		    (long long)number, (int)er);
	} else
		log_warnx("join: queue %lld: the place of voided number "
		    "%lld was not given back (error %d)",
		    (long long)queue_id, (long long)number, (int)er);
	return er;
}

void
visitor_join_late(struct db *db)
{
	struct db_late_join	 l;
	size_t			 i, keep;
	enum app_err		 er;

	while (db_late_join(db, &l)) {
		if (!l.unknown && l.count > 1) {
			log_warnx("join: queue %lld: a lease of %lld numbers "
			    "(to %lld) was issued after its join had been "
			    "answered 503; unused", (long long)l.queue_id,
			    (long long)l.count, (long long)l.number);
			join_unused_note(l.queue_id, l.count);
			continue;
		}
		if (!l.unknown) {
			(void)visitor_join_void(db, l.queue_id, l.number);
			continue;
		}
		instance_join_unknown();
		log_warnx("join: queue %lld: the connection broke before the "
		    "outcome of a join answered 503 arrived; up to %lld "
		    "number(s) may have been issued", (long long)l.queue_id,
		    (long long)l.count);
	}
	/* Places not given back yet: once more, when the database may. */
	for (i = keep = 0; i < nretry; i++) {
		if (db_inflight(db) ||
		    ((er = give_back(db, retry[i].queue_id)) != APP_OK &&
		    er != APP_NOTFOUND))
			retry[keep++] = retry[i];
		else
			log_info("join: queue %lld: the place of voided "
			    "number %lld given back", (long long)
			    retry[i].queue_id, (long long)retry[i].number);
	}
	nretry = keep;
}

/* Unused lease numbers not written yet, per queue. */
static struct {
	int64_t	 queue_id;
	int64_t	 k;
} unused[JOIN_UNUSED_MAX];
static size_t	 nunused;

void
join_unused_note(int64_t queue_id, int64_t k)
{
	size_t	 i;

	for (i = 0; i < nunused; i++)
		if (unused[i].queue_id == queue_id) {
			unused[i].k += k;
			return;
		}
	if (nunused == JOIN_UNUSED_MAX) {
		log_warnx("join: queue %lld: %lld unused numbers of a lease "
		    "not counted (too many queues waiting)",
		    (long long)queue_id, (long long)k);
		return;
	}
	unused[nunused].queue_id = queue_id;
	unused[nunused++].k = k;
}

void
join_unused_flush(struct db *db)
{
	size_t	 i, keep;
	int	 failed = 0;

	if (nunused == 0 || db_inflight(db))
		return;
	for (i = keep = 0; i < nunused; i++) {
		/* Failed once: the rest waits for the next call. */
		if (failed) {
			unused[keep++] = unused[i];
			continue;
		}
		if (db_queue_unused_add(db, unused[i].queue_id,
		    unused[i].k) == APP_OK) {
			log_debug("join: queue %lld: %lld unused numbers of "
			    "a lease", (long long)unused[i].queue_id,
			    (long long)unused[i].k);
			continue;
		}
		failed = 1;
		/*
		 * Given up on while in flight, the write may still be
		 * applied: never sent again, so that the numbers are never
		 * counted twice (at worst serving admits nobody at them, as
		 * for a visitor who left).
		 */
		if (db_inflight(db))
			log_warnx("join: queue %lld: the count of %lld unused "
			    "numbers of a lease was given up on; not sent "
			    "again", (long long)unused[i].queue_id,
			    (long long)unused[i].k);
		else
			unused[keep++] = unused[i];
	}
	nunused = keep;
}

int
join_unused_pending(void)
{
	return nunused > 0;
}
