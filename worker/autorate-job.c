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
 * The poll under way: its queue, its sample so far and the fetch (NULL
 * when the rules did not parse: then it is judged without one).
 */
static struct ar_item		 cur;
static struct ar_eval		 cur_ev;
static struct ar_rules		 cur_rules;
static struct health_job	*cur_job;
static int			 cur_busy;

/*
 * Act on the sample of the poll under way (cur, cur_ev): step the
 * controller, set the rate unless dry-run, log the decision.  Returns
 * APP_OK or the database's error (the health answer's problems are
 * decisions, not errors).
 */
static enum app_err
decide_one(struct worker_ctx *w, struct ar_item *it, struct ar_eval *ev)
{
	struct ar_settings	*s = &it->s;
	struct ar_ctl		 ctl;
	struct ar_log_entry	 e;
	struct queue		*q = NULL;
	struct qops_err		 qerr;
	const char		*action;
	int64_t			 rate, nr, now;
	enum app_err		 er;

	if ((er = db_queue_get(w->db, it->slug, &q)) != APP_OK)
		return er;
	rate = adm_settled_rate(&q->adm);
	db_queue_free(q);
	now = db_clock_ms(w->db);
	ar_settings_ctl(s, &ctl);
	action = ar_action_name(ar_decide(&ctl, &s->mem, ev->state, now, rate,
	    &nr));
	if (nr != rate && !s->dry_run &&
	    qops_set_rate(w->db, it->slug, nr, &qerr, &w->who) != APP_OK) {
		log_warnx("autorate %s: setting the rate to %lld failed: %s",
		    it->slug, (long long)nr, qops_reason_code(qerr.reason));
		action = "failed";
		nr = rate;
	} else if (nr != rate && !s->dry_run &&
	    db_queue_get(w->db, it->slug, &q) == APP_OK) {
		/* The rate in effect: a total-active-users cap may lower it. */
		nr = adm_settled_rate(&q->adm);
		db_queue_free(q);
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
	e.state = ar_state_name(ev->state);
	e.reason = ev->reason;
	e.rule = ev->rule;
	e.rate_before = rate;
	e.rate_after = nr;
	e.response_ms = ev->response_ms;
	e.sample = ev->sample;
	log_info("autorate %s: %s%s %lld -> %lld (%s, %s%s%s) sample %s",
	    it->slug, s->dry_run ? "dry-run, would " : "", action,
	    (long long)rate, (long long)nr, e.state, ev->reason,
	    ev->rule[0] != '\0' ? ": " : "", ev->rule, ev->sample);
	return db_ar_log_add(w->db, &e);
}

/*
 * Begin the poll of it: its health URL's fetch (health_start()), or a
 * sample judged at once when the rules do not parse or the fetch could
 * not start.  Sets cur_busy.  Can't fail.
 */
static void
begin_one(struct worker_ctx *w, const struct ar_item *it)
{
	const char	*why;

	cur = *it;
	memset(&cur_ev, 0, sizeof(cur_ev));
	snprintf(cur_ev.sample, sizeof(cur_ev.sample), "{}");
	cur_job = NULL;
	cur_busy = 1;
	if (ar_rules_parse(cur.s.rules, &cur_rules, &why) == -1 ||
	    cur_rules.n == 0) {
		cur_ev.state = AR_UNKNOWN;
		cur_ev.reason = "invalid_rules";
		cur_ev.response_ms = -1;
		return;
	}
	cur_job = health_start(w->cfg, cur.s.url, (int)cur.s.allow_private,
	    &cur_ev);
}

/*
 * Move the poll under way on: its fetch one step (no waiting), and once
 * the answer is there (or there is none to wait for), judge it and act.
 * Returns APP_OK (also while the fetch is under way) or the database's
 * error of decide_one().
 */
static enum app_err
step_one(struct worker_ctx *w)
{
	char		*body = NULL;
	size_t		 len = 0;
	int		 result = -1;
	enum app_err	 er;

	if (cur_job != NULL) {
		if (!health_step(cur_job, &result, &body, &len, &cur_ev))
			return APP_OK;
		health_job_free(cur_job);
		cur_job = NULL;
		if (result == 0)
			ar_judge(&cur_rules, cur.s.band_pct,
			    cur_ev.response_ms, body, len, &cur_ev);
		free(body);
	}
	cur_busy = 0;
	er = decide_one(w, &cur, &cur_ev);
	/* Due again after its interval, counted from this poll. */
	if (next_due == 0 || cur.s.poll_ms + cur.s.interval_s * 1000 <
	    next_due)
		next_due = cur.s.poll_ms + cur.s.interval_s * 1000;
	return er;
}

/*
 * The auto-rate job, one bounded step at a time: a poll under way is
 * moved on (its fetch never waited for: a step ends at once while the
 * shop has not answered); else the enabled queues are listed and the
 * first whose interval has passed begins its poll.  Returns APP_OK or
 * the database's error.
 */
enum app_err
job_autorate(struct worker_ctx *w)
{
	struct ar_list	 l;
	enum app_err	 er;
	int64_t		 due, now;
	size_t		 i;

	if (cur_busy)
		return step_one(w);
	memset(&l, 0, sizeof(l));
	next_due = 0;
	if ((er = db_ar_list_enabled(w->db, collect, &l)) != APP_OK) {
		free(l.v);
		return er;
	}
	now = db_clock_ms(w->db);
	for (i = 0; i < l.n; i++) {
		due = l.v[i].s.poll_ms + l.v[i].s.interval_s * 1000;
		if (due <= now && !cur_busy) {
			begin_one(w, &l.v[i]);
			continue;
		}
		if (next_due == 0 || due < next_due)
			next_due = due;
	}
	free(l.v);
	/* Nothing to wait for (no fetch): judge it now. */
	if (cur_busy && cur_job == NULL)
		return step_one(w);
	return APP_OK;
}

/*
 * The next run: soon while a poll is under way (its fetch is looked at
 * every AUTORATE_STEP_MS), else the earliest poll due, but at least
 * every 5 seconds (newly enabled queues are seen within that).
 */
#define AUTORATE_STEP_MS	10
int64_t
job_autorate_next(struct worker_ctx *w)
{
	int64_t	 t = w->now_ms + 5000;

	if (cur_busy)
		return w->now_ms + AUTORATE_STEP_MS;
	return next_due != 0 && next_due < t ? next_due : t;
}

/* Drop a poll under way (a worker that stops or loses the lead). */
void
job_autorate_abort(void)
{
	if (cur_job != NULL)
		health_job_free(cur_job);
	cur_job = NULL;
	cur_busy = 0;
}
