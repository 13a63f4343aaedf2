/*
 * console-instances.c - the running instances in the console (see
 * console-instances.h): the pools and workers of table instance as two
 * tables, for the instances page and the queue dashboard alike;
 * static/console.js instanceTables() redraws them from the same JSON.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "console-instances.h"
#include "console.h"
#include "db-stats.h"
#include "extern.h"
#include "instance.h"
#include "isotime.h"
#include "page-console.h"
#include "queue-ops.h"

/* Member k of o as an integer (0 when absent). */
static int64_t
int_of(struct json_object *o, const char *k)
{
	struct json_object	*v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) :
	    0;
}

/* Member k of o as a string ("" when absent). */
static const char *
str_of(struct json_object *o, const char *k)
{
	struct json_object	*v;

	return json_object_object_get_ex(o, k, &v) ?
	    json_object_get_string(v) : "";
}

/* A cell of the number text, right-aligned. */
static void
num_cell(struct buf *b, const char *text)
{
	html_raw(b, "<td class=\"num\">");
	html_text(b, text);
	html_raw(b, "</td>");
}

/* A time cell: "YYYY-MM-DD HH:MM:SS UTC (7 min ago)". */
static void
when_cell(struct buf *b, int64_t ms, int64_t now_ms)
{
	char	 t[40], age[ISO_DURATION_LEN + 1];

	console_utc_text(ms, t, sizeof(t));
	iso_duration_text(ms > 0 ? (now_ms - ms) / 1000 : -1, age,
	    sizeof(age));
	html_raw(b, "<td>");
	html_text(b, t);
	html_raw(b, " (");
	html_text(b, age);
	html_raw(b, " ago)</td>");
}

/* "pool host 1234": an instance as the rates table names its row. */
static void
instance_name(struct buf *b, struct json_object *o)
{
	char	 pid[32];

	snprintf(pid, sizeof(pid), "%lld", (long long)int_of(o, "pid"));
	html_text(b, str_of(o, "kind"));
	html_text(b, " ");
	html_text(b, str_of(o, "host"));
	html_text(b, " ");
	html_text(b, pid);
}

void
console_instances_tables(struct buf *b, struct json_object *list,
    int64_t now_ms)
{
	struct json_object	*o, *rps, *v;
	size_t			 i, n = json_object_array_length(list);
	int			 e;
	char			 num[64];

	html_raw(b, "<div class=\"scroll\" " SCROLL("Running instances")
	    "><table id=\"instances\"><caption>Processes</caption><thead><tr>"
	    "<th scope=\"col\">Kind</th><th scope=\"col\">Host</th>"
	    "<th scope=\"col\" class=\"num\">PID</th><th scope=\"col\" "
	    "class=\"num\">Processes</th><th scope=\"col\" class=\"num\">"
	    "Busy</th><th scope=\"col\" class=\"num\">CPU %</th>"
	    "<th scope=\"col\" class=\"num\">RSS KiB</th><th scope=\"col\">"
	    "Started</th><th scope=\"col\">Last report</th></tr></thead>"
	    "<tbody>");
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(list, i);
		html_raw(b, "<tr><td>");
		html_text(b, str_of(o, "kind"));
		if (json_object_object_get_ex(o, "leader", &v) &&
		    json_object_get_boolean(v))
			html_text(b, " (leader)");
		html_raw(b, "</td><td>");
		html_text(b, str_of(o, "host"));
		html_raw(b, "</td>");
		snprintf(num, sizeof(num), "%lld", (long long)int_of(o, "pid"));
		num_cell(b, num);
		snprintf(num, sizeof(num), "%lld",
		    (long long)int_of(o, "workers"));
		num_cell(b, num);
		snprintf(num, sizeof(num), "%lld",
		    (long long)int_of(o, "busy"));
		num_cell(b, num);
		json_object_object_get_ex(o, "cpuPct", &v);
		snprintf(num, sizeof(num), "%.1f", json_object_get_double(v));
		num_cell(b, num);
		snprintf(num, sizeof(num), "%lld",
		    (long long)int_of(o, "rssKb"));
		num_cell(b, num);
		when_cell(b, int_of(o, "startedMs"), now_ms);
		when_cell(b, int_of(o, "seenMs"), now_ms);
		html_raw(b, "</tr>");
	}
	html_raw(b, "</tbody></table></div>");

	/* Requests per second: a row per instance, a column per kind. */
	html_raw(b, "<div class=\"scroll\" " SCROLL("Requests per second")
	    "><table id=\"instance-rates\" data-kinds=\"");
	for (e = 0; e < INST_EP__MAX; e++)
		if (e != INST_EP_HEALTHZ) {
			html_attr(b, instance_ep_name((enum inst_ep)e));
			html_raw(b, e + 1 < INST_EP__MAX ? " " : "");
		}
	html_raw(b, "\"><caption>Requests per second by kind</caption>"
	    "<thead><tr><th scope=\"col\">Instance</th>");
	for (e = 0; e < INST_EP__MAX; e++)
		if (e != INST_EP_HEALTHZ) {
			html_raw(b, "<th scope=\"col\" class=\"num\">");
			html_text(b, instance_ep_name((enum inst_ep)e));
			html_raw(b, " /s</th>");
		}
	html_raw(b, "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(list, i);
		html_raw(b, "<tr><th scope=\"row\">");
		instance_name(b, o);
		html_raw(b, "</th>");
		if (!json_object_object_get_ex(o, "requestsPerSecond", &rps))
			rps = NULL;
		for (e = 0; e < INST_EP__MAX; e++) {
			if (e == INST_EP_HEALTHZ)
				continue;
			if (rps == NULL || !json_object_object_get_ex(rps,
			    instance_ep_name((enum inst_ep)e), &v))
				v = NULL;
			snprintf(num, sizeof(num), "%.2f", v != NULL ?
			    json_object_get_double(v) : 0.0);
			num_cell(b, num);
		}
		html_raw(b, "</tr>");
	}
	html_raw(b, "</tbody></table></div>");
}

/*
 * The live instances and the database's now as {"nowMs", "instances"}
 * (instance_rows_json()).  Returns a new object the caller puts, or
 * NULL with the error in *er.
 */
static struct json_object *
instances_json(struct req *r, enum app_err *er)
{
	struct instance_row	*inst = NULL;
	struct json_object	*o;
	size_t			 n = 0;

	if ((*er = db_instance_list(r->db, r->cfg->instance_stale_ms, &inst,
	    &n)) != APP_OK)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "nowMs",
	    json_object_new_int64(qops_now(r->db)));
	json_object_object_add(o, "instances", instance_rows_json(inst, n));
	free(inst);
	return o;
}

void
console_instances(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct json_object	*o, *list, *now;
	enum app_err		 er;

	if ((o = instances_json(r, &er)) == NULL) {
		http_app_err(r, http_err_of(er));
		return;
	}
	json_object_object_get_ex(o, "instances", &list);
	json_object_object_get_ex(o, "nowMs", &now);
	html_raw(&head, "<script defer src=\"");
	req_static_url(&head, r);
	html_raw(&head, "/console.js\"></script>");
	html_raw(&b, "<section id=\"instance-list\" "
	    "data-live=\"/admin/instances/live\"><p>The FastCGI pools and "
	    "background workers that report themselves (one that stops "
	    "reporting drops out after instance-stale-ms), with their "
	    "requests per second since their previous report. Updated every "
	    "3 s; without JavaScript, reload the page.</p>");
	console_instances_tables(&b, list, json_object_get_int64(now));
	html_raw(&b, "</section>");
	console_page(r, 200, "Running instances", head.p, &b);
	buf_free(&b);
	buf_free(&head);
	json_object_put(o);
}

void
console_instances_live(struct req *r)
{
	struct json_object	*o;
	enum app_err		 er;

	if ((o = instances_json(r, &er)) == NULL) {
		http_app_err(r, http_err_of(er));
		return;
	}
	http_json(r, 200, o);
	json_object_put(o);
}
