/*
 * page-audit.c - who may act and what was done: a queue's API keys
 * (made, shown once, revoked) and the audit log with its filters.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "console.h"
#include "db-console.h"
#include "extern.h"
#include "fields.h"
#include "log.h"
#include "page-console.h"
#include "queue-ops.h"

void
console_utc_text(int64_t ms, char *buf, size_t n)
{
	time_t		 t = (time_t)(ms / 1000);
	struct tm	 tm;

	if (ms <= 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, n, "-");
}

void
console_figure(struct buf *b, const char *id, const char *label,
    const char *text, const char *unit)
{
	html_raw(b, "<div><dt>");
	html_text(b, label);
	html_raw(b, "</dt><dd id=\"");
	html_attr(b, id);
	html_raw(b, "\">");
	html_text(b, text);
	html_raw(b, "</dd>");
	if (unit != NULL) {
		html_raw(b, "<dd class=\"unit\">");
		html_text(b, unit);
		html_raw(b, "</dd>");
	}
	html_raw(b, "</div>");
}

void
console_chart_head(struct buf *head, struct req *r)
{
	html_raw(head, "<link rel=\"stylesheet\" href=\"");
	req_static_url(head, r);
	html_raw(head, "/uPlot.min.css\"><script defer src=\"");
	req_static_url(head, r);
	html_raw(head, "/uPlot.iife.min.js\"></script><script defer src=\"");
	req_static_url(head, r);
	html_raw(head, "/console.js\"></script>");
}

void
console_field_label(struct buf *b, const char *prefix, const struct fld *f)
{
	html_raw(b, "<label for=\"");
	html_attr(b, prefix);
	html_attr(b, f->opt);
	html_raw(b, "\">");
	html_text(b, f->label);
	if (f->unit != NULL) {
		html_raw(b, " (");
		html_text(b, f->unit);
		html_raw(b, ")");
	}
	html_raw(b, "</label>");
}

/* The keys page of queue q, with a key just made shown once. */
static void
keys_page(struct req *r, int status, const struct queue *q,
    const char *made, const char *msg)
{
	struct buf	 b = { NULL, 0, 0 };
	struct api_key	*k = NULL;
	struct qops_err	 err;
	size_t		 n = 0, i;
	char		 t1[40], t2[40], num[32];
	enum app_err	 er;

	if ((er = qops_key_list(r->db, q->slug, &k, &n, &err, &r->who)) !=
	    APP_OK) {
		console_op_failed(r, er, &err);
		return;
	}
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\">");
		html_text(&b, msg);
		html_raw(&b, "</p>");
	}
	if (made != NULL) {
		html_raw(&b, "<p role=\"status\">The key was created. It is "
		    "shown only this once; store it now (for example as a "
		    "GitHub Actions secret):</p><p><code id=\"new-key\" "
		    "class=\"secret\">");
		html_text(&b, made);
		html_raw(&b, "</code></p>");
	}
	html_raw(&b, "<p>API keys of <strong>");
	html_text(&b, q->slug);
	html_raw(&b, "</strong> &middot; <a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "\">Dashboard</a>. A key reads and changes this queue "
	    "only.</p><form method=\"post\" action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/keys\" class=\"settings\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p class=\"field\"><label for=\"key-name\">Name of "
	    "the new key</label><input id=\"key-name\" name=\"name\" "
	    "required maxlength=\"200\" aria-describedby=\"h-key-name\">"
	    "<small id=\"h-key-name\">What uses it, e.g. "
	    "&ldquo;github-actions&rdquo;</small></p><p><button "
	    "type=\"submit\">Create key</button></p></form>");
	html_raw(&b, "<div class=\"scroll\" " SCROLL("API keys")
	    "><table id=\"keys\"><caption>Keys"
	    "</caption><thead><tr><th scope=\"col\">Name</th>"
	    "<th scope=\"col\">Key starts</th><th scope=\"col\">Created</th>"
	    "<th scope=\"col\">Last used</th><th scope=\"col\">State</th>"
	    "<th scope=\"col\"><span class=\"vh\">Actions</span></th>"
	    "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		console_utc_text(k[i].created_ms, t1, sizeof(t1));
		console_utc_text(k[i].last_used_ms, t2, sizeof(t2));
		html_raw(&b, "<tr><th scope=\"row\">");
		html_text_auto(&b, k[i].name);
		html_raw(&b, "</th><td><code>");
		html_text(&b, k[i].prefix);
		html_raw(&b, "&hellip;</code></td><td>");
		html_text(&b, t1);
		html_raw(&b, "</td><td>");
		html_text(&b, t2);
		html_raw(&b, "</td><td>");
		html_text(&b, k[i].revoked_ms != 0 ? "revoked" : "active");
		html_raw(&b, "</td><td>");
		if (k[i].revoked_ms == 0) {
			snprintf(num, sizeof(num), "%lld",
			    (long long)k[i].id);
			html_raw(&b, "<form method=\"post\" "
			    "action=\"/admin/keys/");
			html_attr(&b, num);
			html_raw(&b, "/revoke\">");
			console_csrf_field(r, &b);
			html_raw(&b, "<button type=\"submit\">Revoke<span "
			    "class=\"vh\"> ");
			html_text_auto(&b, k[i].name);
			html_raw(&b, "</span></button></form>");
		}
		html_raw(&b, "</td></tr>");
	}
	html_raw(&b, "</tbody></table></div>");
	console_page(r, status, "API keys", NULL, &b);
	buf_free(&b);
	free(k);
}

void
console_queue_keys(struct req *r)
{
	struct queue	*q;
	struct qops_err	 err;
	char		*name, *key = NULL;
	int64_t		 id;
	enum app_err	 er;

	if ((q = console_route_queue(r)) == NULL)
		return;
	if (r->method != METHOD_POST) {
		keys_page(r, 200, q, NULL, NULL);
		qops_queue_free(q);
		return;
	}
	name = req_form(r, "name");
	er = qops_key_create(r->db, q->slug, name != NULL ? name : "", &key,
	    &id, &err, &r->who);
	if (er == APP_OK) {
		log_info("console: %s created API key %lld of %s",
		    r->session->user, (long long)id, q->slug);
		keys_page(r, 201, q, key, NULL);
	} else if (er == APP_INVALID && err.reason != QOPS_R_FORBIDDEN)
		keys_page(r, 422, q, NULL, "The name must be 1-200 "
		    "characters, not blank, without control characters.");
	else
		console_op_failed(r, er, &err);
	qops_secret_free(key);
	free(name);
	qops_queue_free(q);
}

void
console_key_revoke(struct req *r)
{
	struct qops_err	 err;
	struct api_key	*k = NULL;
	size_t		 n = 0, i;
	int64_t		 id;
	char		 loc[128];
	enum app_err	 er;

	if (parse_int64(r->arg, 1, INT64_MAX, &id) == -1) {
		http_app_err(r, ERR_KEY_NOT_FOUND);
		return;
	}
	/* Back to the key's queue afterwards. */
	snprintf(loc, sizeof(loc), "/admin/");
	if (qops_key_list(r->db, NULL, &k, &n, &err, &r->who) == APP_OK)
		for (i = 0; i < n; i++)
			if (k[i].id == id)
				snprintf(loc, sizeof(loc),
				    "/admin/queue/%s/keys", k[i].queue_slug);
	free(k);
	if ((er = qops_key_revoke(r->db, id, &err, &r->who)) != APP_OK) {
		console_op_failed(r, er, &err);
		return;
	}
	log_info("console: %s revoked API key %lld", r->session->user,
	    (long long)id);
	console_redirect(r, loc);
}

/* The audit actions, for the filter. */
static const char *const audit_actions[] = {
	"create", "update", "pause", "resume", "set_rate", "rotate_secret",
	"delete", "key_create", "key_revoke", "user_add", "user_passwd",
	"user_disable", "user_enable", "login", "login_failed",
	"login_throttled", "logout", "bypass_create", "bypass_disable",
	"bypass_enable", "bypass_delete", "bypass_refused"
};

/* A query field's value, or "" when absent or bad. */
static const char *
qfield(const struct req *r, enum field f)
{
	return r->fields[f].state == FIELD_OK ? r->fields[f].val : "";
}

void
console_audit(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 };
	struct audit_filter	 f;
	struct audit_entry	*e = NULL;
	struct queue		**qs = NULL, *q = NULL;
	struct qops_err		 err;
	size_t			 n = 0, nq = 0, i;
	const char		*qslug = qfield(r, FIELD_QUEUE);
	const char		*actor = qfield(r, FIELD_ACTOR);
	const char		*action = qfield(r, FIELD_ACTION);
	char			 t[40], num[32];
	enum app_err		 er;

	memset(&f, 0, sizeof(f));
	f.limit = 51;
	if (r->fields[FIELD_CURSOR].state == FIELD_OK &&
	    parse_int64(r->fields[FIELD_CURSOR].val, 1, INT64_MAX,
	    &f.before_id) == -1)
		f.before_id = 0;
	if (qslug[0] != '\0') {
		if ((er = qops_get(r->db, qslug, &q, &err)) != APP_OK) {
			console_op_failed(r, er, &err);
			return;
		}
		f.queue_id = q->id;
		qops_queue_free(q);
	}
	if (actor[0] != '\0')
		f.actor = actor;
	if (action[0] != '\0')
		f.action = action;
	if ((er = qops_audit_list(r->db, &f, &e, &n, &err, &r->who)) !=
	    APP_OK || (er = qops_list(r->db, &qs, &nq, &err)) != APP_OK) {
		db_audit_list_free(e, n);
		console_op_failed(r, er, &err);
		return;
	}
	html_raw(&b, "<form method=\"get\" action=\"/admin/audit\" "
	    "class=\"filters\" role=\"search\"><p><label for=\"a-queue\">"
	    "Queue</label><select id=\"a-queue\" name=\"queue\">"
	    "<option value=\"\">All queues</option>");
	for (i = 0; i < nq; i++) {
		html_raw(&b, "<option value=\"");
		html_attr(&b, qs[i]->slug);
		html_raw(&b, strcmp(qs[i]->slug, qslug) == 0 ?
		    "\" selected>" : "\">");
		html_text(&b, qs[i]->slug);
		html_raw(&b, "</option>");
	}
	html_raw(&b, "</select></p><p><label for=\"a-actor\">Who</label>"
	    "<input id=\"a-actor\" name=\"actor\" value=\"");
	html_attr(&b, actor);
	html_raw(&b, "\"></p><p><label for=\"a-action\">Action</label>"
	    "<select id=\"a-action\" name=\"action\"><option value=\"\">"
	    "Any action</option>");
	for (i = 0; i < sizeof(audit_actions) / sizeof(audit_actions[0]);
	    i++) {
		html_raw(&b, "<option");
		html_raw(&b, strcmp(audit_actions[i], action) == 0 ?
		    " selected>" : ">");
		html_text(&b, audit_actions[i]);
		html_raw(&b, "</option>");
	}
	html_raw(&b, "</select></p><p><button type=\"submit\">Filter"
	    "</button></p></form>");
	html_raw(&b, "<div class=\"scroll\" " SCROLL("Audit log")
	    "><table id=\"audit\"><caption>"
	    "Changes, newest first</caption><thead><tr>"
	    "<th scope=\"col\">Time</th><th scope=\"col\">Who</th>"
	    "<th scope=\"col\">Queue</th><th scope=\"col\">Action</th>"
	    "<th scope=\"col\">Before</th><th scope=\"col\">After</th>"
	    "<th scope=\"col\">Address</th></tr></thead><tbody>");
	for (i = 0; i < n && i < 50; i++) {
		console_utc_text(e[i].at_ms, t, sizeof(t));
		html_raw(&b, "<tr><td>");
		html_text(&b, t);
		html_raw(&b, "</td><td>");
		html_text(&b, e[i].actor_kind);
		html_raw(&b, ": ");
		html_text_auto(&b, e[i].actor_name);
		html_raw(&b, "</td><td>");
		html_text(&b, e[i].queue_slug);
		html_raw(&b, "</td><td>");
		html_text(&b, e[i].action);
		html_raw(&b, "</td><td><code>");
		html_text(&b, e[i].before_json != NULL ? e[i].before_json :
		    "");
		html_raw(&b, "</code></td><td><code>");
		html_text(&b, e[i].after_json != NULL ? e[i].after_json : "");
		html_raw(&b, "</code></td><td>");
		html_text(&b, e[i].client_addr);
		html_raw(&b, "</td></tr>");
	}
	html_raw(&b, "</tbody></table></div>");
	if (n == 0)
		html_raw(&b, "<p>No changes match.</p>");
	if (n > 50) {
		snprintf(num, sizeof(num), "%lld", (long long)e[49].id);
		html_raw(&b, "<p><a href=\"/admin/audit?queue=");
		html_query_value(&b, qslug);
		html_raw(&b, "&amp;actor=");
		html_query_value(&b, actor);
		html_raw(&b, "&amp;action=");
		html_query_value(&b, action);
		html_raw(&b, "&amp;cursor=");
		html_raw(&b, num);
		html_raw(&b, "\">Older changes</a></p>");
	}
	console_page(r, 200, "Audit log", NULL, &b);
	buf_free(&b);
	db_audit_list_free(e, n);
	qops_list_free(qs, nq);
}
