/*
 * join-void.c - numbers issued for joins that were answered 503 (see
 * join-void.h).
 */
#include "config.h"

#include <stdint.h>

#include "admission.h"
#include "aqueue.h"
#include "db.h"
#include "instance.h"
#include "join-void.h"
#include "log.h"

enum app_err
visitor_join_void(struct db *db, int64_t queue_id, int64_t number)
{
	struct queue	*q = NULL;
	int64_t		 now;
	enum app_err	 er;

	instance_join_voided(queue_id);
	log_warnx("join: queue %lld: number %lld was issued after its join "
	    "had been answered 503; voided, its place given back",
	    (long long)queue_id, (long long)number);
	if ((er = db_begin(db)) != APP_OK)
		goto out;
	if ((er = db_queue_get_id_locked(db, queue_id, &q)) != APP_OK ||
	    (er = db_now_ms(db, &now)) != APP_OK)
		goto out;
	adm_reanchor(&q->adm, now);
	q->adm.skip++;
	if ((er = db_queue_set_state(db, q)) != APP_OK ||
	    (er = db_queue_set_skip(db, q)) != APP_OK)
		goto out;
	er = db_commit(db);
out:
	if (er != APP_OK) {
		db_rollback(db);
		log_warnx("join: queue %lld: the place of voided number %lld "
		    "was not given back (error %d)", (long long)queue_id,
		    (long long)number, (int)er);
	}
	db_queue_free(q);
	return er;
}

void
visitor_join_late(struct db *db)
{
	struct db_late_join	 l;

	while (db_late_join(db, &l)) {
		if (!l.unknown) {
			(void)visitor_join_void(db, l.queue_id, l.number);
			continue;
		}
		instance_join_unknown();
		log_warnx("join: queue %lld: the connection broke before the "
		    "outcome of a join answered 503 arrived; a number may "
		    "have been issued", (long long)l.queue_id);
	}
}
