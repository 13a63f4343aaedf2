/*
 * autorate-job.c - the auto-rate job of the leader: poll each enabled
 * queue's health URL when its interval has passed, judge the sample,
 * step the controller (autorate.h), apply the new rate through
 * qops_set_rate() (re-anchored, serving never backward) unless dry-run,
 * and log every decision with its sample and rule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autorate.h"
#include "db.h"
#include "db-worker.h"
#include "health.h"
#include "log.h"
#include "queue-ops.h"
#include "worker.h"

/* One enabled queue as listed. */
struct ar_item {
	char			 slug[SLUG_MAX + 1];
	struct ar_settings	 s;
};

struct ar_list {
	struct ar_item	*v;
	size_t		 n, cap;
};

/* The earliest poll due after the last run, DB Unix ms (0: now). */
static int64_t	 next_due;

/* db_ar_list_enabled() callback: append to the list. */
static int
collect(const char *slug, const struct ar_settings *s, void *arg)
{
	struct ar_list	*l = arg;
	struct ar_item	*nv;

	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 8 : l->cap * 2;
		if ((nv = try_malloc(l->cap * sizeof(*nv))) == NULL)
			return -1;
		if (l->n > 0)
			memcpy(nv, l->v, l->n * sizeof(*nv));
		free(l->v);
		l->v = nv;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	memcpy(l->v[l->n].slug, slug, strlen(slug) + 1);
	l->v[l->n].s = *s;
	l->n++;
	return 0;
}

/*
 * Poll one queue now and act on it.  Returns APP_OK or the database's
 * error (the health answer's problems are decisions, not errors).
 */
static enum app_err
poll_one(struct worker_ctx *w, struct ar_item *it)
{
	struct ar_settings	*s = &it->s;
	struct ar_rules		 rs;
	struct ar_eval		 ev;
	struct ar_ctl		 ctl;
	struct ar_log_entry	 e;
	struct queue		*q = NULL;
	struct qops_err		 qerr;
	const char		*why, *action;
	char			*body = NULL;
	size_t			 len = 0;
	int64_t			 rate, nr, now;
	enum app_err		 er;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.sample, sizeof(ev.sample), "{}");
	if (ar_rules_parse(s->rules, &rs, &why) == -1 || rs.n == 0) {
		ev.state = AR_UNKNOWN;
		ev.reason = "invalid_rules";
		ev.response_ms = -1;
	} else if (health_fetch(w->cfg, s->url, (int)s->allow_private, &body,
	    &len, &ev) == 0)
		ar_judge(&rs, s->band_pct, ev.response_ms, body, len, &ev);
	free(body);
	if ((er = db_queue_get(w->db, it->slug, &q)) != APP_OK)
		return er;
	rate = adm_settled_rate(&q->adm);
	db_queue_free(q);
	now = db_clock_ms(w->db);
	ar_settings_ctl(s, &ctl);
	action = ar_action_name(ar_decide(&ctl, &s->mem, ev.state, now, rate,
	    &nr));
	if (nr != rate && !s->dry_run &&
	    qops_set_rate(w->db, it->slug, nr, &qerr, &w->who) != APP_OK) {
		log_warnx("autorate %s: setting the rate to %lld failed: %s",
		    it->slug, (long long)nr, qops_reason_code(qerr.reason));
		action = "failed";
		nr = rate;
	}
	s->poll_ms = now;
	if ((er = db_ar_state(w->db, s)) != APP_OK)
		return er;
	memset(&e, 0, sizeof(e));
	e.queue_id = s->queue_id;
	e.at_ms = now;
	e.kind = "poll";
	e.dry_run = s->dry_run;
	e.action = action;
	e.state = ar_state_name(ev.state);
	e.reason = ev.reason;
	e.rule = ev.rule;
	e.rate_before = rate;
	e.rate_after = nr;
	e.response_ms = ev.response_ms;
	e.sample = ev.sample;
	log_info("autorate %s: %s%s %lld -> %lld (%s, %s%s%s) sample %s",
	    it->slug, s->dry_run ? "dry-run, would " : "", action,
	    (long long)rate, (long long)nr, e.state, ev.reason,
	    ev.rule[0] != '\0' ? ": " : "", ev.rule, ev.sample);
	return db_ar_log_add(w->db, &e);
}

/*
 * The auto-rate job: poll every enabled queue that is due, one after
 * the other (each fetch is bounded by health-timeout-ms).  Returns
 * APP_OK or the first database error (the others are still polled).
 */
enum app_err
job_autorate(struct worker_ctx *w)
{
	struct ar_list	 l;
	enum app_err	 er, first = APP_OK;
	int64_t		 due, now;
	size_t		 i;

	memset(&l, 0, sizeof(l));
	next_due = 0;
	if ((er = db_ar_list_enabled(w->db, collect, &l)) != APP_OK) {
		free(l.v);
		return er;
	}
	for (i = 0; i < l.n; i++) {
		now = db_clock_ms(w->db);
		due = l.v[i].s.poll_ms + l.v[i].s.interval_s * 1000;
		if (due <= now) {
			if ((er = poll_one(w, &l.v[i])) != APP_OK &&
			    first == APP_OK)
				first = er;
			due = l.v[i].s.poll_ms + l.v[i].s.interval_s * 1000;
		}
		if (next_due == 0 || due < next_due)
			next_due = due;
	}
	free(l.v);
	return first;
}

/*
 * The next run: the earliest poll due, but at least every 5 seconds
 * (newly enabled queues are seen within that).
 */
int64_t
job_autorate_next(struct worker_ctx *w)
{
	int64_t	 t = w->now_ms + 5000;

	return next_due != 0 && next_due < t ? next_due : t;
}
