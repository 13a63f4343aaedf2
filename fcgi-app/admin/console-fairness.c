/*
 * console-fairness.c - the console's fairness report of a queue
 * (/admin/queue/<slug>/fairness: fair_report()'s numbers as tables and
 * a chart of admissions per minute against the rate), and the
 * scheduled opening on the queue's dashboard (the countdown, the seed's
 * published hash, after the draw the seed and the command that checks
 * it), with the values /info publishes (draw_info_json()).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "api-autorate.h"
#include "aqueue.h"
#include "console-fairness.h"
#include "console.h"
#include "crypto.h"
#include "draw.h"
#include "extern.h"
#include "fairness.h"
#include "isotime.h"
#include "page-console.h"
#include "queue-ops.h"

/* Member key of o, or NULL (absent or null). */
static struct json_object *
member(struct json_object *o, const char *key)
{
	struct json_object	*v = NULL;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* JSON text of v ("null" for NULL); json-c owns it. */
static const char *
json_text(struct json_object *v)
{
	return v != NULL ? json_object_to_json_string(v) : "null";
}

/*
 * A number v as text into buf (n bytes): whole numbers plain, others to
 * at most 3 decimals without trailing zeros, "-" for NULL.  Returns buf.
 */
static const char *
num_text(struct json_object *v, char *buf, size_t n)
{
	size_t	 k;

	if (v == NULL)
		snprintf(buf, n, "-");
	else if (!json_object_is_type(v, json_type_double))
		snprintf(buf, n, "%s", json_object_to_json_string(v));
	else {
		snprintf(buf, n, "%.3f", json_object_get_double(v));
		k = strlen(buf);
		while (k > 0 && buf[k - 1] == '0')
			buf[--k] = '\0';
		if (k > 0 && buf[k - 1] == '.')
			buf[--k] = '\0';
	}
	return buf;
}

/*
 * One row of the summary: <tr><th>label</th><td id data-value=JSON>
 * text</td></tr>; text NULL: v as JSON ("-" for null).
 */
static void
summary_row(struct buf *b, const char *id, const char *label,
    struct json_object *v, const char *text)
{
	char	 t[64];

	html_raw(b, "<tr><th scope=\"row\">");
	html_text(b, label);
	html_raw(b, "</th><td id=\"");
	html_attr(b, id);
	html_raw(b, "\" data-value=\"");
	html_attr(b, json_text(v));
	html_raw(b, "\">");
	html_text(b, text != NULL ? text : num_text(v, t, sizeof(t)));
	html_raw(b, "</td></tr>");
}

/* A time row: Unix ms v as UTC text ("-" for null). */
static void
time_row(struct buf *b, const char *id, const char *label,
    struct json_object *v)
{
	char	 t[64];

	console_utc_text(v != NULL ? json_object_get_int64(v) : 0, t,
	    sizeof(t));
	summary_row(b, id, label, v, t);
}

/* A wait row: seconds v in words and exactly ("-" for null). */
static void
wait_row(struct buf *b, const char *id, const char *label,
    struct json_object *v)
{
	char	 words[ISO_DURATION_LEN + 1], t[ISO_DURATION_LEN + 64];
	char	 n[48];

	if (v == NULL) {
		summary_row(b, id, label, v, "-");
		return;
	}
	iso_duration_text((int64_t)json_object_get_double(v), words,
	    sizeof(words));
	snprintf(t, sizeof(t), "%s (%s s)", words,
	    num_text(v, n, sizeof(n)));
	summary_row(b, id, label, v, t);
}

/* The period form, with the bounds asked (0: empty). */
static void
period_form(struct buf *b, const struct queue *q, int64_t since,
    int64_t until)
{
	char	 num[32];

	html_raw(b, "<form method=\"get\" class=\"period\" "
	    "action=\"/admin/queue/");
	html_url_arg(b, q->slug);
	html_raw(b, "/fairness\"><p id=\"period-help\">The period in Unix "
	    "milliseconds, as <code>aqueuectl report --since --until</code> "
	    "and the API take it; empty for everything retained.</p><p>"
	    "<label for=\"since\">From (Unix ms)</label> <input id=\"since\" "
	    "name=\"since\" inputmode=\"numeric\" pattern=\"[0-9]*\" "
	    "aria-describedby=\"period-help\" value=\"");
	num[0] = '\0';
	if (since > 0)
		snprintf(num, sizeof(num), "%lld", (long long)since);
	html_attr(b, num);
	html_raw(b, "\"> <label for=\"until\">Until (Unix ms)</label> "
	    "<input id=\"until\" name=\"until\" inputmode=\"numeric\" "
	    "pattern=\"[0-9]*\" aria-describedby=\"period-help\" value=\"");
	num[0] = '\0';
	if (until > 0)
		snprintf(num, sizeof(num), "%lld", (long long)until);
	html_attr(b, num);
	html_raw(b, "\"> <button type=\"submit\">Show</button></p></form>");
}

/* The summary table of report o. */
static void
summary(struct buf *b, struct json_object *o)
{
	struct json_object	*w = member(o, "waitSeconds");

	html_raw(b, "<table id=\"fair-summary\"><caption>Summary"
	    "</caption><tbody>");
	time_row(b, "f-since", "Period from", member(o, "since"));
	time_row(b, "f-until", "Period until", member(o, "until"));
	time_row(b, "f-from", "First sample", member(o, "from"));
	time_row(b, "f-to", "Last sample", member(o, "to"));
	summary_row(b, "f-samples", "Samples", member(o, "samples"), NULL);
	summary_row(b, "f-served", "Numbers served (first token)",
	    member(o, "served"), NULL);
	summary_row(b, "f-inversions", "Served out of join order "
	    "(inversions)", member(o, "inversions"), NULL);
	/* A random order: its blocks' own inversions are the draw's. */
	if (member(o, "randomOrder") != NULL) {
		summary_row(b, "f-random-from", "Random order from number",
		    member(member(o, "randomOrder"), "from"), NULL);
		summary_row(b, "f-random-block", "Random order block size "
		    "(numbers)", member(member(o, "randomOrder"),
		    "blockSize"), NULL);
		summary_row(b, "f-random-within", "Inversions within random "
		    "blocks (by the order's rule)", member(member(o,
		    "randomOrder"), "inversionsWithinBlocks"), NULL);
	}
	summary_row(b, "f-wait-count", "Numbers with a wait",
	    member(w, "count"), NULL);
	wait_row(b, "f-wait-p50", "Wait, 50th percentile", member(w, "p50"));
	wait_row(b, "f-wait-p90", "Wait, 90th percentile", member(w, "p90"));
	wait_row(b, "f-wait-p99", "Wait, 99th percentile", member(w, "p99"));
	summary_row(b, "f-adm-rate", "Admissions per minute (average)",
	    member(o, "admissionsPerMinute"), NULL);
	summary_row(b, "f-conf-rate", "Configured rate per minute "
	    "(average)", member(o, "configuredRatePerMinute"), NULL);
	html_raw(b, "</tbody></table>");
}

/*
 * The chart (console.js draws it from the table's data-* attributes)
 * and its text alternative, the table of admissions per minute.
 */
static void
minutes(struct buf *b, struct json_object *o)
{
	struct json_object	*a = member(o, "minutes"), *m;
	size_t			 n, i;
	char			 t[64], v[48];

	n = a != NULL ? json_object_array_length(a) : 0;
	html_raw(b, "<h3>Admissions per minute against the rate</h3>");
	if (n == 0) {
		html_raw(b, "<p id=\"fair-empty\">No two samples in this "
		    "period: nothing to chart.</p>");
		return;
	}
	html_raw(b, "<figure><div id=\"fair-chart\" role=\"img\" "
	    "aria-label=\"Chart: admissions per minute against the "
	    "configured rate; the table below holds the same numbers\">"
	    "</div><figcaption>Admissions per minute (derived from the "
	    "samples) and the configured rate per minute. The table "
	    "&ldquo;Admissions per minute&rdquo; below is its text "
	    "alternative.</figcaption></figure>");
	snprintf(t, sizeof(t), "%zu", n);
	html_raw(b, "<details id=\"fair-minutes-box\"><summary>Admissions "
	    "per minute as a table (");
	html_text(b, t);
	html_raw(b, " minutes)</summary><div class=\"scroll\" "
	    SCROLL("Admissions per minute") "><table id=\"fair-minutes\">"
	    "<caption>Admissions per minute</caption><thead><tr>"
	    "<th scope=\"col\">Minute (UTC)</th><th scope=\"col\">Admitted"
	    "</th><th scope=\"col\">Configured rate</th></tr></thead>"
	    "<tbody>");
	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(a, i);
		console_utc_text(json_object_get_int64(member(m, "minute")), t,
		    sizeof(t));
		html_raw(b, "<tr data-minute=\"");
		html_attr(b, json_text(member(m, "minute")));
		html_raw(b, "\" data-admitted=\"");
		html_attr(b, json_text(member(m, "admitted")));
		html_raw(b, "\" data-rate=\"");
		html_attr(b, json_text(member(m, "ratePerMinute")));
		html_raw(b, "\"><th scope=\"row\">");
		html_text(b, t);
		html_raw(b, "</th><td class=\"num\">");
		html_text(b, num_text(member(m, "admitted"), v, sizeof(v)));
		html_raw(b, "</td><td class=\"num\">");
		html_text(b, num_text(member(m, "ratePerMinute"), v,
		    sizeof(v)));
		html_raw(b, "</td></tr>");
	}
	html_raw(b, "</tbody></table></div></details>");
}

/* A 400 page (or JSON) for a bad period. */
static void
bad_period(struct req *r, const struct queue *q)
{
	struct buf	 b = { NULL, 0, 0 };

	if (r->accept != NULL && strstr(r->accept, "application/json") !=
	    NULL && strstr(r->accept, "text/html") == NULL) {
		http_app_err(r, ERR_INVALID_PERIOD);
		return;
	}
	html_raw(&b, "<h2>Fairness report</h2><p class=\"error\" "
	    "role=\"alert\" id=\"period-error\">The period is not valid: "
	    "&ldquo;From&rdquo; and &ldquo;Until&rdquo; are Unix times in "
	    "milliseconds (whole numbers, each given once), and "
	    "&ldquo;Until&rdquo; comes after &ldquo;From&rdquo;. Nothing "
	    "was read.</p>");
	period_form(&b, q, 0, 0);
	console_page(r, 400, "Fairness report", NULL, &b);
	buf_free(&b);
}

void
console_queue_fairness(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct json_object	*o;
	struct queue		*q;
	int64_t			 since, until;
	enum app_err		 er;

	if ((q = console_route_queue(r)) == NULL)
		return;
	if (api_fair_period(r, &since, &until) == -1) {
		bad_period(r, q);
		qops_queue_free(q);
		return;
	}
	if ((er = fair_report(r->db, q->id, q->slug, since, until, &o)) !=
	    APP_OK) {
		qops_queue_free(q);
		http_app_err(r, http_err_of(er));
		return;
	}
	console_chart_head(&head, r);
	html_raw(&b, "<section id=\"fairness\" aria-labelledby=\"fair-h\">"
	    "<h2 id=\"fair-h\">Fairness report: ");
	html_text_auto(&b, q->name);
	html_raw(&b, " <small>(");
	html_text(&b, q->slug);
	html_raw(&b, ")</small></h2><p><a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "\">Back to the dashboard</a></p><p>How fair the queue "
	    "was: numbers served out of join order, the wait from join to "
	    "admission, and admissions per minute against the configured "
	    "rate (the numbers of <code>aqueuectl report</code>).</p>");
	period_form(&b, q, since, until);
	summary(&b, o);
	minutes(&b, o);
	html_raw(&b, "</section>");
	console_page(r, 200, "Fairness report", head.p, &b);
	buf_free(&b);
	buf_free(&head);
	json_object_put(o);
	qops_queue_free(q);
}

/* A row of the opening's list: <div><dt>label</dt><dd>...; open. */
static void
opening_dt(struct buf *b, const char *label)
{
	html_raw(b, "<div><dt>");
	html_text(b, label);
	html_raw(b, "</dt><dd>");
}

void
console_opening(struct req *r, const struct queue *q, int64_t now,
    struct buf *b)
{
	struct json_object	*o, *hash, *seed, *pre, *in;
	uint8_t			 raw[DRAW_SEED_LEN];
	int			 have = 0;
	char			 t[64], iso[ISO_TIME_LEN + 1];
	char			 words[ISO_DURATION_LEN + 1], num[32];

	if (q->adm.opens_at_ms <= 0)
		return;
	/* The seed is opened only once /info publishes it too. */
	if (adm_prequeue_size(&q->adm, now) >= 0 &&
	    q->draw_seed_sealed_len > 0)
		have = draw_unseal(r->cfg, q->slug, q->draw_seed_sealed,
		    q->draw_seed_sealed_len, raw) == 0;
	o = json_object_new_object();
	draw_info_json(o, q, raw, have, now);
	crypto_wipe(raw, sizeof(raw));
	hash = member(o, "drawSeedSha256");
	seed = member(o, "drawSeed");
	pre = member(o, "preQueue");
	in = member(o, "opensInSeconds");
	console_utc_text(q->adm.opens_at_ms, t, sizeof(t));
	iso_time_format(q->adm.opens_at_ms, iso, sizeof(iso));
	html_raw(b, "<section id=\"opening\" aria-labelledby=\"opening-h\">"
	    "<h2 id=\"opening-h\">Scheduled opening</h2><dl "
	    "class=\"opening\">");
	opening_dt(b, "Opens at");
	html_raw(b, "<time id=\"opens-at\" datetime=\"");
	html_attr(b, iso);
	html_raw(b, "\">");
	html_text(b, t);
	html_raw(b, "</time></dd></div>");
	opening_dt(b, "Opens in");
	snprintf(num, sizeof(num), "%lld", (long long)(q->adm.opens_at_ms -
	    now));
	if (in != NULL && json_object_get_int64(in) > 0)
		iso_duration_text(json_object_get_int64(in), words,
		    sizeof(words));
	else
		snprintf(words, sizeof(words), "opened");
	html_raw(b, "<span id=\"opens-in\" role=\"timer\" "
	    "aria-live=\"off\" data-left-ms=\"");
	html_attr(b, num);
	html_raw(b, "\">");
	html_text(b, words);
	html_raw(b, "</span></dd></div>");
	opening_dt(b, "Pre-queue");
	html_raw(b, "<span id=\"pre-queue\">");
	if (pre == NULL)
		html_text(b, "open: every number joined before the opening "
		    "takes part in the draw");
	else {
		html_text(b, "closed: ");
		html_text(b, json_text(pre));
		html_text(b, " numbers drawn");
	}
	html_raw(b, "</span></dd></div>");
	opening_dt(b, "Published seed hash (SHA-256)");
	if (hash != NULL) {
		html_raw(b, "<code id=\"seed-hash\" class=\"hex\">");
		html_text(b, json_object_get_string(hash));
		html_raw(b, "</code>");
	} else
		html_raw(b, "<span id=\"seed-hash-none\">not drawn yet (the "
		    "background worker draws it within seconds)</span>");
	html_raw(b, "</dd></div>");
	if (seed != NULL && pre != NULL) {
		opening_dt(b, "Seed (published after the opening)");
		html_raw(b, "<code id=\"draw-seed\" class=\"hex\">");
		html_text(b, json_object_get_string(seed));
		html_raw(b, "</code></dd></div>");
	}
	html_raw(b, "</dl>");
	if (seed != NULL && pre != NULL && hash != NULL) {
		html_raw(b, "<p>Anyone can check the draw (every place with "
		    "its number; <code>--number N</code> for one) with "
		    "<code>tools/verify-draw.py</code>:</p><pre "
		    SCROLL("Verification command") "><code id=\"verify-cmd\">");
		html_text(b, "tools/verify-draw.py --seed ");
		html_text(b, json_object_get_string(seed));
		html_text(b, " --pre-queue ");
		html_text(b, json_text(pre));
		html_text(b, " --hash ");
		html_text(b, json_object_get_string(hash));
		html_text(b, " --order");
		html_raw(b, "</code></pre>");
	}
	html_raw(b, "</section>");
	json_object_put(o);
}
