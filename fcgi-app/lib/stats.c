/*
 * stats.c - one sample per queue into queue_stats, by the holder of
 * the sampler's named lock.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "admission.h"
#include "db.h"
#include "db-stats.h"
#include "stats.h"

enum app_err
stats_try_lock(struct db *db, int *held)
{
	return db_named_lock(db, STATS_LOCK, held);
}

double
stats_inflow(int64_t issued_then, int64_t then_ms, int64_t issued_now,
    int64_t now_ms)
{
	if (now_ms <= then_ms || issued_now <= issued_then)
		return 0.0;
	return (double)(issued_now - issued_then) * 60000.0 /
	    (double)(now_ms - then_ms);
}

enum app_err
stats_sample_queue(struct db *db, const struct queue *q, int64_t now)
{
	const struct adm_queue	*a = &q->adm;
	struct stats_row	 r;
	int64_t			 then_issued = 0, then_ms = 0;
	int			 found;
	enum app_err		 er;

	memset(&r, 0, sizeof(r));
	r.queue_id = q->id;
	r.sampled_ms = now;
	r.issued = a->last_number;
	r.serving = adm_serving(a, now);
	r.waiting = r.issued > r.serving ? r.issued - r.serving : 0;
	r.rate_per_minute = adm_rate_at(a, now);
	r.active = adm_active_at(a, now);
	er = db_stats_prev(db, r.queue_id, now - 60000, &then_issued,
	    &then_ms, &found);
	if (er != APP_OK)
		return er;
	r.inflow_per_min = found ? stats_inflow(then_issued, then_ms,
	    r.issued, now) : 0.0;
	return db_stats_insert(db, &r);
}

enum app_err
stats_prune(struct db *db, int64_t now, int64_t retention_ms,
    int64_t prune_max)
{
	int64_t		 deleted;
	enum app_err	 er;

	if (retention_ms > 0 && (er = db_prune(db, DB_PRUNE_STATS,
	    now - retention_ms, prune_max, &deleted)) != APP_OK)
		return er;
	return db_instance_purge(db, STATS_INSTANCE_PURGE_MS);
}

enum app_err
stats_sample(struct db *db, int64_t retention_ms, int64_t prune_max,
    size_t *sampled)
{
	struct queue	**qs = NULL;
	size_t		 n = 0, i, done = 0;
	int64_t		 now;
	enum app_err	 er;

	if (sampled != NULL)
		*sampled = 0;
	if ((er = db_now_ms(db, &now)) != APP_OK)
		return er;
	if ((er = db_queue_list(db, &qs, &n)) != APP_OK)
		return er;
	for (i = 0; i < n; i++) {
		if ((er = stats_sample_queue(db, qs[i], now)) != APP_OK)
			goto out;
		done++;
	}
	er = stats_prune(db, now, retention_ms, prune_max);
out:
	db_queue_list_free(qs, n);
	if (sampled != NULL)
		*sampled = done;
	return er;
}
