/*
 * console-loadtest.c - the console's load tests (see
 * console-loadtest.h): the form that asks for a run against a test
 * queue, the runs kept, and one run's figures with its per-second
 * chart (throughput against latency, uPlot), refreshed while it runs.
 * A run is asked for through lt_ask(), audited as the logged-in user.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admin-user.h"
#include "aqueue.h"
#include "cfg.h"
#include "console-loadtest.h"
#include "console.h"
#include "db-loadtest.h"
#include "extern.h"
#include "loadtest.h"
#include "log.h"
#include "page-console.h"
#include "queue-ops.h"

#define LIST_ROWS	50

/* printf into a small buffer and write it as text. */
static void
text_f(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
text_f(struct buf *b, const char *fmt, ...)
{
	char	 t[96];
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	html_text(b, t);
}

/* One run's row of the list. */
static void
run_row(struct buf *b, const struct lt_run *l)
{
	char	 id[24];

	snprintf(id, sizeof(id), "%lld", (long long)l->id);
	html_raw(b, "<tr><th scope=\"row\"><a href=\"/admin/loadtests/");
	html_attr(b, id);
	html_raw(b, "\">");
	html_text(b, id);
	html_raw(b, "</a></th><td>");
	html_text(b, l->slug);
	html_raw(b, "</td><td>");
	html_text(b, l->profile);
	html_raw(b, "</td><td class=\"num\">");
	text_f(b, "%lld/s for %lld s", (long long)l->rate,
	    (long long)l->duration_s);
	html_raw(b, "</td><td>");
	html_text(b, l->status);
	html_raw(b, "</td><td class=\"num\">");
	text_f(b, "%lld", (long long)l->sent);
	html_raw(b, "</td><td class=\"num\">");
	text_f(b, "%lld", (long long)l->errors);
	html_raw(b, "</td><td class=\"num\">");
	text_f(b, "%.2f ms", (double)l->p95_us / 1000.0);
	html_raw(b, "</td><td>");
	html_text(b, l->flagged ? "flagged" : "");
	html_raw(b, "</td></tr>");
}

/* The form: a test queue, a profile, a rate and a duration. */
static void
ask_form(struct req *r, struct buf *b)
{
	struct queue	**qs = NULL;
	struct qops_err	 err;
	size_t		 n = 0, i, tests = 0;

	if (qops_list(r->db, &qs, &n, &err) != APP_OK)
		n = 0;
	html_raw(b, "<form method=\"post\" action=\"/admin/loadtests\" "
	    "class=\"settings\" id=\"loadtest-form\">");
	console_csrf_field(r, b);
	html_raw(b, "<p class=\"field\"><label for=\"lt-queue\">Test queue"
	    "</label><select id=\"lt-queue\" name=\"queue\" required "
	    "aria-describedby=\"h-lt-queue\">");
	for (i = 0; i < n; i++) {
		if (!qs[i]->load_test_queue)
			continue;
		tests++;
		html_raw(b, "<option value=\"");
		html_attr(b, qs[i]->slug);
		html_raw(b, "\">");
		html_text(b, qs[i]->slug);
		html_raw(b, "</option>");
	}
	html_raw(b, "</select><small id=\"h-lt-queue\">");
	html_text(b, tests == 0 ? "No test queue yet: turn on \"Test queue "
	    "for load tests\" in a queue's settings (never a queue that "
	    "serves visitors)." : "Only queues flagged as test queues; a "
	    "load test takes numbers on it.");
	html_raw(b, "</small></p><p class=\"field\"><label for=\"lt-profile\">"
	    "Profile</label><select id=\"lt-profile\" name=\"profile\" "
	    "aria-describedby=\"h-lt-profile\"><option value=\"mix\">mix"
	    "</option><option value=\"status\">status</option><option "
	    "value=\"join\">join</option></select><small id=\"h-lt-profile\">"
	    "mix: visitors who join, poll at the room's interval and claim "
	    "a token once admitted; status: one number's status; join: "
	    "numbers</small></p><p class=\"field\"><label for=\"lt-rate\">"
	    "Rate (requests per second)</label><input id=\"lt-rate\" "
	    "name=\"rate\" inputmode=\"numeric\" required value=\"50\" "
	    "aria-describedby=\"h-lt-rate\"><small id=\"h-lt-rate\">");
	text_f(b, "1 to %lld, sent at a fixed rate whatever the answers do",
	    (long long)r->cfg->loadtest_max_rate);
	html_raw(b, "</small></p><p class=\"field\"><label for=\"lt-dur\">"
	    "Duration (seconds)</label><input id=\"lt-dur\" name=\"duration\""
	    " inputmode=\"numeric\" required value=\"30\" "
	    "aria-describedby=\"h-lt-dur\"><small id=\"h-lt-dur\">");
	text_f(b, "1 to %lld", (long long)r->cfg->loadtest_max_duration_s);
	html_raw(b, "</small></p><p><button type=\"submit\">Start load test"
	    "</button></p></form>");
	qops_list_free(qs, n);
}

/* The list page, with msg (a refusal) shown first. */
static void
list_page(struct req *r, int status, const char *msg)
{
	struct buf	 b = { NULL, 0, 0 };
	struct lt_run	*l = NULL;
	size_t		 n = 0, i;
	enum app_err	 er;

	if ((er = db_lt_list(r->db, 0, LIST_ROWS, &l, &n)) != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\">");
		html_text(&b, msg);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<p>A load test sends requests to a test queue through "
	    "the web server, at a fixed rate (an open loop: a slow answer "
	    "does not slow the sender, so its latency shows), from a worker "
	    "of this installation. A run whose p95 or error rate is clearly "
	    "worse than the comparable earlier runs (same queue, profile, "
	    "rate and duration: above their median plus three median "
	    "absolute deviations and 20&nbsp;%) is flagged.</p>");
	ask_form(r, &b);
	html_raw(&b, "<div class=\"scroll\" " SCROLL("Load tests")
	    "><table id=\"loadtests\"><caption>Runs, newest first</caption>"
	    "<thead><tr><th scope=\"col\">Run</th><th scope=\"col\">Queue"
	    "</th><th scope=\"col\">Profile</th><th scope=\"col\" "
	    "class=\"num\">Load</th><th scope=\"col\">Status</th>"
	    "<th scope=\"col\" class=\"num\">Sent</th><th scope=\"col\" "
	    "class=\"num\">Errors</th><th scope=\"col\" class=\"num\">p95"
	    "</th><th scope=\"col\">Regression</th></tr></thead><tbody>");
	for (i = 0; i < n; i++)
		run_row(&b, &l[i]);
	html_raw(&b, "</tbody></table></div>");
	console_page(r, status, "Load tests", NULL, &b);
	buf_free(&b);
	free(l);
}

void
console_loadtests(struct req *r)
{
	struct lt_err	 err;
	char		*queue, *profile, *rate, *dur, loc[64];
	int64_t		 rv = 0, dv = 0, id;

	if (r->method != METHOD_POST) {
		list_page(r, 200, NULL);
		return;
	}
	queue = req_form(r, "queue");
	profile = req_form(r, "profile");
	rate = req_form(r, "rate");
	dur = req_form(r, "duration");
	if (rate == NULL || parse_int64(rate, 1, INT64_MAX / 1000000, &rv) ==
	    -1)
		rv = 0;
	if (dur == NULL || parse_int64(dur, 1, INT64_MAX / 1000, &dv) == -1)
		dv = 0;
	if (lt_ask(r->db, r->cfg, &r->who, queue != NULL ? queue : "",
	    profile != NULL ? profile : "", rv, dv, &id, &err) != APP_OK) {
		if (err.status == 503)
			http_app_err(r, ERR_DB_DOWN);
		else if (err.status == 500)
			http_app_err(r, ERR_INTERNAL);
		else
			list_page(r, err.status, err.message);
	} else {
		log_info("console: %s asked for load test %lld",
		    r->session->user, (long long)id);
		snprintf(loc, sizeof(loc), "/admin/loadtests/%lld",
		    (long long)id);
		console_redirect(r, loc);
	}
	free(queue);
	free(profile);
	free(rate);
	free(dur);
}

/* The figures of run l (ids the page's script updates). */
static void
figures(struct buf *b, const struct lt_run *l)
{
	char	 t[64], u[64];
	double	 secs = (double)l->elapsed_ms / 1000.0;

	html_raw(b, "<dl class=\"figures\">");
	console_figure(b, "lt-status", "Status", l->status, NULL);
	snprintf(t, sizeof(t), "%.1f", secs > 0 ? (double)l->sent / secs :
	    0.0);
	snprintf(u, sizeof(u), "per second (asked: %lld)",
	    (long long)l->rate);
	console_figure(b, "lt-achieved", "Achieved rate", t, u);
	snprintf(t, sizeof(t), "%lld", (long long)l->sent);
	console_figure(b, "lt-sent", "Requests sent", t, NULL);
	snprintf(t, sizeof(t), "%.2f", l->sent > 0 ? 100.0 *
	    (double)l->errors / (double)l->sent : 0.0);
	console_figure(b, "lt-errors", "Errors", t, "%");
	snprintf(t, sizeof(t), "%.2f", (double)l->p50_us / 1000.0);
	console_figure(b, "lt-p50", "p50", t, "ms");
	snprintf(t, sizeof(t), "%.2f", (double)l->p95_us / 1000.0);
	console_figure(b, "lt-p95", "p95", t, "ms");
	snprintf(t, sizeof(t), "%.2f", (double)l->p99_us / 1000.0);
	console_figure(b, "lt-p99", "p99", t, "ms");
	console_figure(b, "lt-flag", "Regression", l->flagged ?
	    l->flag_reason : "none", NULL);
	html_raw(b, "</dl>");
}

/* The per-second table: the chart's text alternative. */
static void
seconds_table(struct buf *b, const struct lt_second *s, size_t n)
{
	size_t	 i;

	html_raw(b, "<div class=\"scroll\" " SCROLL("Seconds") "><table "
	    "id=\"lt-seconds\"><caption>Each second</caption><thead><tr>"
	    "<th scope=\"col\" class=\"num\">Second</th><th scope=\"col\" "
	    "class=\"num\">Sent</th><th scope=\"col\" class=\"num\">OK</th>"
	    "<th scope=\"col\" class=\"num\">Errors</th><th scope=\"col\" "
	    "class=\"num\">p50 (ms)</th><th scope=\"col\" class=\"num\">p95 "
	    "(ms)</th><th scope=\"col\" class=\"num\">p99 (ms)</th></tr>"
	    "</thead><tbody>");
	for (i = 0; i < n; i++) {
		html_raw(b, "<tr><td class=\"num\">");
		text_f(b, "%lld", (long long)s[i].sec);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%lld", (long long)s[i].sent);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%lld", (long long)s[i].ok);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%lld", (long long)s[i].errors);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%.2f", (double)s[i].p50_us / 1000.0);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%.2f", (double)s[i].p95_us / 1000.0);
		html_raw(b, "</td><td class=\"num\">");
		text_f(b, "%.2f", (double)s[i].p99_us / 1000.0);
		html_raw(b, "</td></tr>");
	}
	html_raw(b, "</tbody></table></div>");
}

/* The pool processes that answered (the run's servedBy), once done. */
static void
served_table(struct buf *b, const struct lt_run *l)
{
	struct json_object	*a, *e, *v;
	size_t			 i, n;

	if (l->served_by[0] == '\0' ||
	    (a = json_tokener_parse(l->served_by)) == NULL)
		return;
	n = json_object_is_type(a, json_type_array) ?
	    json_object_array_length(a) : 0;
	html_raw(b, "<div class=\"scroll\" " SCROLL("Served by") "><table "
	    "id=\"lt-served\"><caption>Served by (see <a href=\"/admin/"
	    "instances\">Instances</a>)</caption><thead><tr><th scope=\"col\">"
	    "Pool process</th><th scope=\"col\" class=\"num\">Requests</th>"
	    "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		html_raw(b, "<tr><td>");
		if (json_object_object_get_ex(e, "instance", &v))
			html_text(b, json_object_get_string(v));
		html_raw(b, "</td><td class=\"num\">");
		if (json_object_object_get_ex(e, "requests", &v))
			text_f(b, "%lld", (long long)json_object_get_int64(v));
		html_raw(b, "</td></tr>");
	}
	html_raw(b, "</tbody></table></div>");
	json_object_put(a);
}

void
console_loadtest(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct lt_run		 l;
	struct lt_second	*s = NULL;
	char			 id[24], t[40];
	size_t			 n = 0;
	int64_t			 v;
	enum app_err		 er;

	if (parse_int64(r->arg, 1, INT64_MAX, &v) == -1 ||
	    (er = db_lt_get(r->db, v, &l)) == APP_NOTFOUND) {
		http_app_err(r, ERR_LOADTEST_NOT_FOUND);
		return;
	}
	if (er != APP_OK || (er = db_lt_seconds(r->db, v, &s, &n)) !=
	    APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	snprintf(id, sizeof(id), "%lld", (long long)l.id);
	html_raw(&b, "<section id=\"loadtest\" data-live=\"/admin/"
	    "loadtests/");
	html_attr(&b, id);
	html_raw(&b, "/live\"><p>Load test ");
	html_text(&b, id);
	html_raw(&b, ": <strong>");
	html_text(&b, l.profile);
	html_raw(&b, "</strong> on <a href=\"/admin/queue/");
	html_url_arg(&b, l.slug);
	html_raw(&b, "\">");
	html_text(&b, l.slug);
	html_raw(&b, "</a>, ");
	text_f(&b, "%lld requests per second for %lld s", (long long)l.rate,
	    (long long)l.duration_s);
	html_raw(&b, "; asked for by ");
	html_text(&b, l.requested_by);
	console_utc_text(l.created_ms, t, sizeof(t));
	html_raw(&b, " at ");
	html_text(&b, t);
	if (l.error[0] != '\0') {
		html_raw(&b, ". <span class=\"error\">");
		html_text(&b, l.error);
		html_raw(&b, "</span>");
	}
	html_raw(&b, ". <a href=\"/admin/loadtests\">All load tests</a>."
	    "</p>");
	figures(&b, &l);
	html_raw(&b, "<figure><div id=\"lt-chart\" class=\"chart\" "
	    "role=\"img\" aria-label=\"Throughput (answers per second) and "
	    "p95 latency of each second; the table below has the same "
	    "values\"></div><figcaption>Throughput against latency, each "
	    "second</figcaption></figure>");
	seconds_table(&b, s, n);
	served_table(&b, &l);
	html_raw(&b, "</section>");
	console_chart_head(&head, r);
	console_page(r, 200, "Load test", head.p, &b);
	buf_free(&head);
	buf_free(&b);
	free(s);
}
