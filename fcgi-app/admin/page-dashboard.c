/*
 * page-dashboard.c - a queue's live dashboard in the console: the page
 * with its figures and charts, and the JSON it polls (figures from
 * queue_stats and instance only); the live list of all queues.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "autorate.h"
#include "cfg.h"
#include "console-autorate.h"
#include "console-fairness.h"
#include "console-instances.h"
#include "console.h"
#include "db-stats.h"
#include "db-worker.h"
#include "extern.h"
#include "instance.h"
#include "isotime.h"
#include "page-console.h"
#include "queue-ops.h"

#define SERIES_MS	(30 * 60 * 1000)	/* the chart's history */

/* Seconds a newcomer waits at rate with waiting ahead; -1 paused. */
static int64_t
est_wait_s(int64_t waiting, int64_t rate, int active)
{
	if (!active || rate <= 0)
		return -1;
	return (waiting * 60 + rate - 1) / rate;
}

/*
 * The admission state of q as it will stand once a scheduled change is
 * in effect, in words: paused, or the queuing method's state.  Returns
 * a static string.
 */
static const char *
state_text(const struct queue *q)
{
	struct adm_queue	 s;

	adm_settled(&q->adm, &s);
	switch (s.active) {
	case ADM_SEG_PAUSED:
		return "Paused";
	case ADM_SEG_HOLD:
		return "On hold: joins wait, nobody new is admitted";
	case ADM_SEG_PASS:
		return "Passthrough: everyone is admitted as they join";
	case ADM_SEG_RANDOM:
		return "Running, in a random order within blocks";
	default:
		return "Running";
	}
}

/*
 * The live figures of queue q as JSON: the newest sample, the series
 * (time in seconds, waiting, inflow) of the last SERIES_MS, the live
 * instances, the database's now (nowMs, for their ages), the newest
 * entries of the auto-rate log (autorateLog, as the API's log).  Returns a
 * new object (the caller puts it), or NULL with the error in *er.
 */
static struct json_object *
live_json(struct req *r, const struct queue *q, enum app_err *er)
{
	struct json_object	*o, *s, *t, *w, *in, *arlog = NULL;
	struct stats_row	*rows = NULL, *last;
	struct instance_row	*inst = NULL;
	struct ar_settings	 ar;
	struct ar_err		 arerr;
	size_t			 n = 0, ni = 0, i;
	int64_t			 now = qops_now(r->db);
	int			 has_ar = 0;

	if ((*er = db_stats_series(r->db, q->id, now - SERIES_MS, &rows,
	    &n)) != APP_OK)
		return NULL;
	/* The cap: auto-rate's maximum while it steers (or dry-runs). */
	if ((*er = db_ar_get(r->db, q->id, &ar, &has_ar)) != APP_OK) {
		free(rows);
		return NULL;
	}
	if ((*er = arops_log(r->db, q->slug, CONSOLE_AR_LOG_ROWS, &arlog,
	    &arerr)) != APP_OK) {
		free(rows);
		return NULL;
	}
	if ((*er = db_instance_list(r->db, r->cfg->instance_stale_ms, &inst,
	    &ni)) != APP_OK) {
		json_object_put(arlog);
		free(rows);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "slug", json_object_new_string(q->slug));
	json_object_object_add(o, "name", json_object_new_string(q->name));
	last = n > 0 ? &rows[n - 1] : NULL;
	json_object_object_add(o, "sampledMs", last != NULL ?
	    json_object_new_int64(last->sampled_ms) : NULL);
	json_object_object_add(o, "active", json_object_new_boolean(
	    last != NULL ? last->active != 0 : adm_settled_active(&q->adm)));
	json_object_object_add(o, "stateText",
	    json_object_new_string(state_text(q)));
	json_object_object_add(o, "ratePerMinute", json_object_new_int64(
	    last != NULL ? last->rate_per_minute : adm_settled_rate(&q->adm)));
	json_object_object_add(o, "rateCap", has_ar && ar.enabled ?
	    json_object_new_int64(ar.rate_max) : NULL);
	json_object_object_add(o, "waiting", last != NULL ?
	    json_object_new_int64(last->waiting) : NULL);
	json_object_object_add(o, "serving", last != NULL ?
	    json_object_new_int64(last->serving) : NULL);
	json_object_object_add(o, "issued", last != NULL ?
	    json_object_new_int64(last->issued) : NULL);
	json_object_object_add(o, "inflowPerMinute", last != NULL ?
	    json_object_new_double(round_tenths(last->inflow_per_min)) :
	    NULL);
	if (last != NULL && est_wait_s(last->waiting,
	    last->rate_per_minute, (int)last->active) >= 0)
		json_object_object_add(o, "estimatedWaitSeconds",
		    json_object_new_int64(est_wait_s(last->waiting,
		    last->rate_per_minute, (int)last->active)));
	else
		json_object_object_add(o, "estimatedWaitSeconds", NULL);
	s = json_object_new_object();
	t = json_object_new_array();
	w = json_object_new_array();
	in = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object_array_add(t, json_object_new_double(
		    (double)rows[i].sampled_ms / 1000.0));
		json_object_array_add(w, json_object_new_int64(
		    rows[i].waiting));
		json_object_array_add(in, json_object_new_double(
		    round_tenths(rows[i].inflow_per_min)));
	}
	json_object_object_add(s, "t", t);
	json_object_object_add(s, "waiting", w);
	json_object_object_add(s, "inflow", in);
	json_object_object_add(o, "series", s);
	json_object_object_add(o, "instances", instance_rows_json(inst, ni));
	json_object_object_add(o, "nowMs", json_object_new_int64(now));
	json_object_object_add(o, "autorateLog", arlog);
	free(rows);
	free(inst);
	return o;
}

void
console_queue_live(struct req *r)
{
	struct json_object	*o;
	struct queue		*q;
	enum app_err		 er;

	if ((q = console_route_queue(r)) == NULL)
		return;
	if ((o = live_json(r, q, &er)) == NULL)
		http_app_err(r, http_err_of(er));
	else {
		http_json(r, 200, o);
		json_object_put(o);
	}
	qops_queue_free(q);
}

/* A figure of JSON value v ("-" for null). */
static void
figure(struct buf *b, const char *id, const char *label,
    struct json_object *v, const char *unit)
{
	console_figure(b, id, label, v != NULL ? json_object_to_json_string(v) :
	    "-", unit);
}

void
console_queue(struct req *r)
{
	/* The queue's other pages, linked below the actions. */
	static const struct {
		const char	*path, *label;
	} pages[] = {
		{ "/edit", "Edit settings and secret" },
		{ "/keys", "API keys" },
		{ "/bypass", "VIP bypass codes" },
		{ "/template", "Waiting-room template" },
		{ "/autorate", "Auto-rate" },
		{ "/fairness", "Fairness report" },
	};
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct json_object	*o, *v, *now;
	struct queue		*q;
	enum app_err		 er;
	char			 num[64], wait[ISO_DURATION_LEN + 1];
	size_t			 i;

	if ((q = console_route_queue(r)) == NULL)
		return;
	if ((o = live_json(r, q, &er)) == NULL) {
		qops_queue_free(q);
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	console_chart_head(&head, r);

	html_raw(&b, "<section id=\"dashboard\" data-live=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/live\" aria-labelledby=\"dash-h\"><h2 id=\"dash-h\">");
	html_text_auto(&b, q->name);
	html_raw(&b, " <small>(");
	html_text(&b, q->slug);
	html_raw(&b, ")</small></h2><p id=\"state\" role=\"status\">");
	html_text(&b, state_text(q));
	html_raw(&b, "</p><dl class=\"figures\">");
	json_object_object_get_ex(o, "waiting", &v);
	figure(&b, "waiting", "Waiting", v, "people");
	json_object_object_get_ex(o, "inflowPerMinute", &v);
	figure(&b, "inflow", "Inflow", v, "per minute");
	json_object_object_get_ex(o, "ratePerMinute", &v);
	figure(&b, "rate", "Admission rate", v, "per minute");
	json_object_object_get_ex(o, "rateCap", &v);
	figure(&b, "rate-cap", "Rate cap", v, NULL);
	/* In words, as console.js durationText() writes it live. */
	json_object_object_get_ex(o, "estimatedWaitSeconds", &v);
	iso_duration_text(v != NULL ? json_object_get_int64(v) : -1, wait,
	    sizeof(wait));
	console_figure(&b, "wait", "Estimated wait for a newcomer", wait, NULL);
	json_object_object_get_ex(o, "serving", &v);
	figure(&b, "serving", "Serving", v, NULL);
	json_object_object_get_ex(o, "issued", &v);
	figure(&b, "issued", "Issued", v, NULL);
	html_raw(&b, "</dl><figure><div id=\"chart\" role=\"img\" "
	    "aria-label=\"Waiting and inflow per minute over the last 30 "
	    "minutes\"></div><figcaption>Waiting (people) and inflow (new "
	    "visitors per minute), last 30 minutes; updated every 3 s."
	    "</figcaption></figure>");
	json_object_object_get_ex(o, "nowMs", &now);
	console_opening(r, q, json_object_get_int64(now), &b);
	/* Actions. */
	html_raw(&b, "<h2>Actions</h2><div class=\"actions\">"
	    "<form method=\"post\" action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/rate\">");
	console_csrf_field(r, &b);
	snprintf(num, sizeof(num), "%lld",
	    (long long)adm_settled_rate(&q->adm));
	html_raw(&b, "<label for=\"new-rate\">New admission rate (per "
	    "minute)</label> <input id=\"new-rate\" name=\"rate\" "
	    "type=\"number\" min=\"1\" max=\"1000000\" step=\"1\" required "
	    "value=\"");
	html_attr(&b, num);
	html_raw(&b, "\"> <button type=\"submit\">Set rate</button></form>"
	    "<form method=\"post\" action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, adm_settled_active(&q->adm) ? "/pause\">" : "/resume\">");
	console_csrf_field(r, &b);
	html_raw(&b, adm_settled_active(&q->adm) ?
	    "<button type=\"submit\">Pause</button>" :
	    "<button type=\"submit\">Resume</button>");
	html_raw(&b, "</form><p>");
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		html_raw(&b, "<a href=\"/admin/queue/");
		html_url_arg(&b, q->slug);
		html_raw(&b, pages[i].path);
		html_raw(&b, "\">");
		html_raw(&b, pages[i].label);
		html_raw(&b, "</a> &middot; ");
	}
	html_raw(&b, "<a href=\"/admin/audit?queue=");
	html_query_value(&b, q->slug);
	html_raw(&b, "\">Audit log</a></p></div>");
	/* Instances. */
	html_raw(&b, "<h2>Running instances</h2>");
	json_object_object_get_ex(o, "instances", &v);
	json_object_object_get_ex(o, "nowMs", &now);
	console_instances_tables(&b, v, json_object_get_int64(now));
	/* Auto-rate's decisions, redrawn from the same live JSON. */
	html_raw(&b, "<h2>Auto-rate decisions</h2>");
	json_object_object_get_ex(o, "autorateLog", &v);
	console_autorate_log_table(&b, v);
	html_raw(&b, "</section>");
	console_page(r, 200, "Dashboard", head.p, &b);
	buf_free(&b);
	buf_free(&head);
	json_object_put(o);
	qops_queue_free(q);
}

void
console_live_list(struct req *r)
{
	struct json_object	*o, *a, *x;
	struct queue		**qs = NULL;
	struct qops_err		 err;
	size_t			 n = 0, i;
	int64_t			 now, serving, waiting;
	enum app_err		 er;

	if ((er = qops_list(r->db, &qs, &n, &err)) != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	now = qops_now(r->db);
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		serving = adm_serving(&qs[i]->adm, now);
		waiting = adm_waiting(&qs[i]->adm, now);
		x = json_object_new_object();
		json_object_object_add(x, "slug",
		    json_object_new_string(qs[i]->slug));
		json_object_object_add(x, "active",
		    json_object_new_boolean(adm_settled_active(&qs[i]->adm)));
		json_object_object_add(x, "ratePerMinute",
		    json_object_new_int64(adm_settled_rate(&qs[i]->adm)));
		json_object_object_add(x, "waiting",
		    json_object_new_int64(waiting));
		json_object_object_add(x, "serving",
		    json_object_new_int64(serving));
		json_object_object_add(x, "issued",
		    json_object_new_int64(qs[i]->adm.last_number));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "queues", a);
	http_json(r, 200, o);
	json_object_put(o);
	qops_list_free(qs, n);
}
