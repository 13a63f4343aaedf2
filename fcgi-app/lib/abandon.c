/*
 * abandon.c - the worker's abandonment job (see abandon.h).
 */
#include "config.h"

#include <stdlib.h>

#include "admission.h"
#include "aqueue.h"
#include "abandon.h"
#include "db.h"
#include "log.h"

enum app_err
abandon_queue(struct db *db, const char *slug, int64_t *added)
{
	struct queue		*q = NULL;
	struct abandon_marks	 m;
	int64_t			 now, g, cut, serving = 0, base, k3 = 0, k4 = 0;
	int64_t			 mark_ms, mark_n, present, junk, lo, hi;
	int			 found;
	struct adm_change	 ch;
	enum app_err		 er;

	*added = 0;
	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = db_queue_get_locked(db, slug, &q)) != APP_OK)
		goto out;
	if ((er = db_abandon_marks(db, q->id, &m)) != APP_OK ||
	    (er = db_now_ms(db, &now)) != APP_OK)
		goto out;
	if (m.grace_s <= 0 || !adm_active_at(&q->adm, now) ||
	    q->adm.draw_open)
		goto out;
	g = m.grace_s * 1000;
	cut = now - g;
	serving = adm_serving(&q->adm, now);
	base = serving > q->adm.draw_count ? serving : q->adm.draw_count;
	/*
	 * Inside a block of the random order, numbers above serving may
	 * hold admitted positions (and their visitors stop polling): only
	 * the numbers past the block count.
	 */
	if (adm_order_block(&q->adm, base, &lo, &hi) && base < lo + hi - 1)
		base = lo + hi - 1;
	/* Numbers looked at before, silent since: counted through rows. */
	if (m.done > base &&
	    (er = db_abandon_mark(db, q->id, base, m.done, cut, &k4)) !=
	    APP_OK)
		goto out;
	/* Numbers old enough to be looked at for the first time. */
	if ((er = db_issue_mark_add(db, q->id, now, q->adm.last_number,
	    g / ABANDON_MARKS_PER_GRACE)) != APP_OK ||
	    (er = db_issue_mark_get(db, q->id, cut, &mark_ms, &mark_n,
	    &found)) != APP_OK)
		goto out;
	if (found && (er = db_issue_mark_prune(db, q->id, mark_ms)) != APP_OK)
		goto out;
	lo = m.done > base ? m.done : base;
	hi = mark_n;
	if (hi > lo) {
		if ((er = db_abandon_present(db, q->id, lo, hi, cut,
		    &present)) != APP_OK ||
		    (er = db_abandon_mark(db, q->id, lo, hi, cut, &junk)) !=
		    APP_OK)
			goto out;
		k3 = hi - lo - present;
		if (k3 < 0)
			k3 = 0;
	}
	if (hi > m.done)
		m.done = hi;
	*added = k3 + k4;
	if (*added > 0) {
		/*
		 * Scheduled like every admission change (admission.h):
		 * serving jumps by the count ADM_TICK_MS from now, and no
		 * admission is revoked (the claim window of a number counts
		 * from its admission).  Another change still ahead: next
		 * cycle.
		 */
		adm_change_init(&q->adm, now, &ch);
		ch.skip += *added;
		if (adm_schedule(&q->adm, now, &ch) == -1) {
			er = APP_BUSY;
			goto out;
		}
		if ((er = db_queue_set_state(db, q)) != APP_OK)
			goto out;
	}
	if ((er = db_abandon_save(db, q->id, &m, *added)) != APP_OK ||
	    (er = db_presence_prune(db, q->id, serving)) != APP_OK)
		goto out;
	er = db_commit(db);
out:
	if (er != APP_OK) {
		db_rollback(db);
		*added = 0;
	} else if (*added > 0)
		log_info("abandon %s: %lld abandoned numbers skipped (serving "
		    "%lld -> %lld, %lld in all)", slug, (long long)*added,
		    (long long)serving,
		    (long long)adm_serving(&q->adm, q->adm.pend_at_ms),
		    (long long)(m.total + *added));
	else
		db_rollback(db);
	db_queue_free(q);
	return er;
}

enum app_err
abandon_job(struct db *db, const struct cfg *c, int64_t *abandoned)
{
	char		 (*slugs)[SLUG_MAX + 1];
	size_t		 n, i;
	int64_t		 k;
	enum app_err	 er, first = APP_OK;

	(void)c;
	*abandoned = 0;
	if ((slugs = try_malloc(ABANDON_QUEUES_MAX * sizeof(*slugs))) ==
	    NULL)
		return APP_ENOMEM;
	if ((er = db_abandon_queues(db, slugs, ABANDON_QUEUES_MAX, &n)) !=
	    APP_OK) {
		free(slugs);
		return er;
	}
	for (i = 0; i < n; i++) {
		if ((er = abandon_queue(db, slugs[i], &k)) != APP_OK) {
			log_warnx("abandon %s: not applied (error %d)",
			    slugs[i], (int)er);
			if (first == APP_OK)
				first = er;
			continue;
		}
		*abandoned += k;
	}
	free(slugs);
	return first;
}
