/*
 * page-console.c - the console's queue pages: the list, create and edit
 * forms generated from the queue-ops field table, the state actions
 * (pause, resume, rate, secret rotation), and the live dashboard with
 * its JSON (figures from queue_stats and instance only).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "admin-user.h"
#include "admission.h"
#include "aqueue.h"
#include "autorate.h"
#include "cfg.h"
#include "console.h"
#include "db-stats.h"
#include "db-worker.h"
#include "extern.h"
#include "instance.h"
#include "log.h"
#include "fields.h"
#include "queue-fields.h"
#include "queue-ops.h"

#define SERIES_MS	(30 * 60 * 1000)	/* the chart's history */
#define TEXT_MAX	8200			/* a field's text */

/* A table that may scroll sideways: reachable by keyboard (WCAG 2.1.1). */
#define SCROLL(label)	"tabindex=\"0\" role=\"region\" aria-label=\"" \
			    label " (scrolls sideways)\""

/* The console's label of field f, from the field table. */
static const char *
field_label(enum qops_field f)
{
	return f < QOPS_F__MAX ? queue_fields[f].label : "";
}

/* Answer an operation's failure as a page (or JSON for the live part). */
static void
op_failed(struct req *r, enum app_err er, const struct qops_err *err)
{
	struct buf	 b = { NULL, 0, 0 };
	int		 status = qops_reason_status(err->reason);

	if (er == APP_DB_DOWN) {
		http_db_down(r);
		return;
	}
	html_raw(&b, "<p class=\"error\" role=\"alert\">");
	html_text(&b, qops_reason_text(err->reason));
	if (err->field >= 0) {
		html_raw(&b, ": ");
		html_text(&b, field_label((enum qops_field)err->field));
		html_raw(&b, " must be ");
		html_text(&b, qops_field_rule((enum qops_field)err->field));
	}
	html_raw(&b, ".</p><p><a href=\"/admin/\">Back to the queues</a>"
	    "</p>");
	console_page(r, status, "Not done", NULL, &b);
	buf_free(&b);
}

/* The id, name and help reference of field opt's control, into b. */
static void
field_attrs(struct buf *b, const char *opt, int bad)
{
	html_raw(b, " id=\"f-");
	html_attr(b, opt);
	html_raw(b, "\" name=\"");
	html_attr(b, opt);
	html_raw(b, "\" aria-describedby=\"h-");
	html_attr(b, opt);
	html_raw(b, "\"");
	if (bad)
		html_raw(b, " aria-invalid=\"true\"");
}

/* One <option> of a <select>: value v, shown as label, chosen or not. */
static void
option(struct buf *b, const char *v, const char *label, int chosen)
{
	html_raw(b, "<option value=\"");
	html_attr(b, v);
	html_raw(b, chosen ? "\" selected>" : "\">");
	html_text(b, label);
	html_raw(b, "</option>");
}

/*
 * The control of field row f (its ctl) named opt with value text into b,
 * marked when bad.
 */
static void
field_control(struct buf *b, const struct fld *f, const char *opt,
    const char *text, int bad)
{
	static const char *const statuses[] = { "200", "202", "429" };
	char	 num[80];
	size_t	 i;

	switch (f->ctl) {
	case FLD_CTL_TEXTAREA:
		/*
		 * Line breaks kept: a text area (a newline after the start
		 * tag, since HTML drops the first one of its content).
		 */
		html_raw(b, "<textarea rows=\"4\"");
		field_attrs(b, opt, bad);
		html_raw(b, ">\n");
		html_text(b, text);
		html_raw(b, "</textarea>");
		return;
	case FLD_CTL_CHECKBOX:
		/* A select, so that "off" is sent as a value of its own. */
		html_raw(b, "<select");
		field_attrs(b, opt, bad);
		html_raw(b, ">");
		option(b, "on", "on", strcmp(text, "on") == 0);
		option(b, "off", "off", strcmp(text, "on") != 0);
		html_raw(b, "</select>");
		return;
	case FLD_CTL_STATUS:
		html_raw(b, "<select");
		field_attrs(b, opt, bad);
		html_raw(b, ">");
		for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
			option(b, statuses[i], statuses[i],
			    strcmp(text, statuses[i]) == 0);
		html_raw(b, "</select>");
		return;
	default:
		break;
	}
	html_raw(b, "<input");
	field_attrs(b, opt, bad);
	if (f->ctl == FLD_CTL_NUMBER) {
		snprintf(num, sizeof(num), " type=\"number\" min=\"%lld\" "
		    "max=\"%lld\" step=\"1\"", (long long)f->min,
		    (long long)f->max);
		html_raw(b, num);
	} else if (f->ctl == FLD_CTL_URL)
		html_raw(b, " type=\"url\"");
	if (f->def == NULL)
		html_raw(b, " required");
	html_raw(b, " value=\"");
	html_attr(b, text);
	html_raw(b, "\">");
}

/*
 * The inputs of every field of the table a form sets (not those an
 * action changes: pause and resume), prefilled from q (NULL: a new
 * queue, with the rows' defaults), with the field at fault (bad >= 0)
 * marked and its rule shown.
 */
static void
field_inputs(struct buf *b, const struct queue *q, int bad,
    const struct req *r, int use_form)
{
	const struct fld	*f;
	char			 text[TEXT_MAX];
	char			*given;
	size_t			 i;

	for (i = 0; i < QOPS_F__MAX; i++) {
		f = &queue_fields[i];
		if (f->flags & FLD_ACTION)
			continue;
		text[0] = '\0';
		if (use_form && r->body != NULL &&
		    (given = console_form(r, f->opt)) != NULL) {
			snprintf(text, sizeof(text), "%s", given);
			free(given);
		} else if (q != NULL)
			(void)qops_field_text(q, (enum qops_field)i, text,
			    sizeof(text));
		else if (f->def != NULL && f->type != FLD_TIME)
			snprintf(text, sizeof(text), "%s", f->def);
		html_raw(b, "<p class=\"field\"><label for=\"f-");
		html_attr(b, f->opt);
		html_raw(b, "\">");
		html_text(b, f->label);
		if (f->unit != NULL) {
			html_raw(b, " (");
			html_text(b, f->unit);
			html_raw(b, ")");
		}
		html_raw(b, "</label>");
		field_control(b, f, f->opt, text, (int)i == bad);
		html_raw(b, "<small id=\"h-");
		html_attr(b, f->opt);
		html_raw(b, "\"");
		if ((int)i == bad)
			html_raw(b, " class=\"error\"");
		html_raw(b, ">");
		html_text(b, (int)i == bad ? "Invalid: must be " : "");
		html_text(b, f->rule);
		html_raw(b, "</small></p>");
	}
}

/*
 * Read every field given in the form into spec: an empty value of a row
 * without a default (name, rate) or of a number leaves the field out; an
 * empty text or time means none.  The strings are stored in held[]
 * (freed by the caller).  Returns APP_OK or APP_INVALID with err set.
 */
static enum app_err
form_spec(struct req *r, struct qops_spec *spec, char *held[QOPS_F__MAX],
    struct qops_err *err)
{
	const struct fld	*f;
	size_t			 i;
	enum app_err		 er;

	memset(spec, 0, sizeof(*spec));
	for (i = 0; i < QOPS_F__MAX; i++)
		held[i] = NULL;
	for (i = 0; i < QOPS_F__MAX; i++) {
		f = &queue_fields[i];
		if (f->flags & FLD_ACTION)
			continue;
		if ((held[i] = console_form(r, f->opt)) == NULL)
			continue;
		if (held[i][0] == '\0' && (f->def == NULL ||
		    f->type == FLD_INT || f->type == FLD_BOOL))
			continue;
		if ((er = qops_spec_set(spec, (enum qops_field)i, held[i],
		    err)) != APP_OK)
			return er;
	}
	return APP_OK;
}

static void
held_free(char *held[QOPS_F__MAX])
{
	size_t	 f;

	for (f = 0; f < QOPS_F__MAX; f++)
		free(held[f]);
}

/* The create form (with the failure of a previous try, if any). */
static void
create_form(struct req *r, int status, const struct qops_err *err)
{
	struct buf	 b = { NULL, 0, 0 };
	char		*slug;

	slug = r->body != NULL ? console_form(r, "slug") : NULL;
	if (err != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\">");
		html_text(&b, qops_reason_text(err->reason));
		html_raw(&b, ".</p>");
	}
	html_raw(&b, "<form method=\"post\" action=\"/admin/queues\" "
	    "class=\"settings\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p class=\"field\"><label for=\"f-slug\">Slug (the "
	    "address: /queue/<i>slug</i>)</label><input id=\"f-slug\" "
	    "name=\"slug\" required maxlength=\"63\" "
	    "pattern=\"[a-z0-9][a-z0-9\\-]*\" aria-describedby=\"h-slug\"");
	if (err != NULL && (err->reason == QOPS_R_SLUG ||
	    err->reason == QOPS_R_EXISTS))
		html_raw(&b, " aria-invalid=\"true\"");
	html_raw(&b, " value=\"");
	html_attr(&b, slug != NULL ? slug : "");
	html_raw(&b, "\"><small id=\"h-slug\">1-63 of a-z 0-9 -, starting "
	    "with a letter or digit; cannot be changed later</small></p>");
	field_inputs(&b, NULL, err != NULL ? err->field : -1, r, 1);
	html_raw(&b, "<p><button type=\"submit\">Create queue</button></p>"
	    "</form>");
	console_page(r, status, "New queue", NULL, &b);
	buf_free(&b);
	free(slug);
}

void
console_queue_new(struct req *r)
{
	create_form(r, 200, NULL);
}

/* A page that shows a signing secret once. */
static void
secret_page(struct req *r, int status, const char *title, const char *slug,
    const char *secret, const char *what)
{
	struct buf	 b = { NULL, 0, 0 };

	html_raw(&b, "<p role=\"status\">");
	html_text(&b, what);
	html_raw(&b, "</p><p>Signing secret of <strong>");
	html_text(&b, slug);
	html_raw(&b, "</strong> (shown only this once; copy it into the "
	    "shop's configuration now):</p><p><code id=\"secret\" "
	    "class=\"secret\">");
	html_text(&b, secret);
	html_raw(&b, "</code></p><p><a href=\"/admin/queue/");
	html_url_arg(&b, slug);
	html_raw(&b, "\">Open the dashboard</a></p>");
	console_page(r, status, title, NULL, &b);
	buf_free(&b);
}

void
console_queue_create(struct req *r)
{
	struct qops_spec spec;
	struct qops_err	 err;
	char		*held[QOPS_F__MAX], *slug, *secret = NULL;
	int64_t		 id;
	enum app_err	 er;

	memset(&err, 0, sizeof(err));
	err.field = -1;
	slug = console_form(r, "slug");
	er = form_spec(r, &spec, held, &err);
	if (er == APP_OK)
		er = qops_create(r->db, r->cfg, slug != NULL ? slug : "",
		    &spec, &secret, &id, &err, &r->who);
	if (er == APP_OK) {
		log_info("console: %s created queue %s", r->session->user,
		    slug);
		secret_page(r, 201, "Queue created", slug, secret,
		    "The queue was created.");
	} else if (er == APP_INVALID)
		create_form(r, qops_reason_status(err.reason), &err);
	else
		op_failed(r, er, &err);
	qops_secret_free(secret);
	held_free(held);
	free(slug);
}

void
console_home(struct req *r)
{
	struct buf	 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct queue	**qs = NULL;
	struct qops_err	 err;
	size_t		 n = 0, i;
	int64_t		 now, serving, waiting;
	char		 num[256];
	enum app_err	 er;

	if ((er = qops_list(r->db, &qs, &n, &err)) != APP_OK) {
		op_failed(r, er, &err);
		return;
	}
	now = qops_now(r->db);
	html_raw(&b, "<p><a class=\"button\" href=\"/admin/queues/new\">"
	    "New queue</a></p><div id=\"queue-list\" "
	    "data-live=\"/admin/live\">");
	if (n == 0)
		html_raw(&b, "<p>No queues yet.</p>");
	else
		html_raw(&b, "<div class=\"scroll\" " SCROLL("Queues")
		    "><table id=\"queues\">"
		    "<caption>Queues</caption><thead><tr>"
		    "<th scope=\"col\">Name</th><th scope=\"col\">Slug</th>"
		    "<th scope=\"col\">State</th>"
		    "<th scope=\"col\" class=\"num\">Rate / min</th>"
		    "<th scope=\"col\" class=\"num\">Waiting</th>"
		    "<th scope=\"col\" class=\"num\">Serving</th>"
		    "<th scope=\"col\" class=\"num\">Issued</th>"
		    "<th scope=\"col\"><span class=\"vh\">Actions</span></th>"
		    "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		serving = adm_serving(&qs[i]->adm, now);
		waiting = adm_waiting(&qs[i]->adm, now);
		html_raw(&b, "<tr data-slug=\"");
		html_attr(&b, qs[i]->slug);
		html_raw(&b, "\"><th scope=\"row\"><a href=\"/admin/queue/");
		html_url_arg(&b, qs[i]->slug);
		html_raw(&b, "\">");
		html_text(&b, qs[i]->name);
		html_raw(&b, "</a></th><td>");
		html_text(&b, qs[i]->slug);
		html_raw(&b, adm_settled_active(&qs[i]->adm) ?
		    "</td><td data-col=\"state\">running" :
		    "</td><td data-col=\"state\">paused");
		snprintf(num, sizeof(num), "</td><td class=\"num\" "
		    "data-col=\"ratePerMinute\">%lld</td>"
		    "<td class=\"num\" data-col=\"waiting\">%lld</td>"
		    "<td class=\"num\" data-col=\"serving\">%lld</td>"
		    "<td class=\"num\" data-col=\"issued\">%lld</td>",
		    (long long)adm_settled_rate(&qs[i]->adm),
		    (long long)waiting, (long long)serving,
		    (long long)qs[i]->adm.last_number);
		html_raw(&b, num);
		html_raw(&b, "<td><a href=\"/admin/queue/");
		html_url_arg(&b, qs[i]->slug);
		html_raw(&b, "/edit\">Edit<span class=\"vh\"> ");
		html_text(&b, qs[i]->name);
		html_raw(&b, "</span></a></td></tr>");
	}
	if (n > 0)
		html_raw(&b, "</tbody></table></div>");
	html_raw(&b, "</div>");
	html_raw(&head, "<script defer src=\"");
	html_attr(&head, r->cfg->static_url);
	html_raw(&head, "/console.js\"></script>");
	console_page(r, 200, "Queues", head.p, &b);
	buf_free(&head);
	buf_free(&b);
	qops_list_free(qs, n);
}

/* Read the route's queue; answers itself and returns NULL on failure. */
static struct queue *
route_queue(struct req *r)
{
	struct queue	*q = NULL;
	struct qops_err	 err;
	enum app_err	 er;

	if ((er = qops_get(r->db, r->arg, &q, &err)) != APP_OK) {
		op_failed(r, er, &err);
		return NULL;
	}
	return q;
}

/* The edit form of q, with the failure of a previous try, if any. */
static void
edit_form(struct req *r, int status, const struct queue *q,
    const struct qops_err *err, const char *done)
{
	struct buf	 b = { NULL, 0, 0 };

	if (err != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\">");
		html_text(&b, qops_reason_text(err->reason));
		html_raw(&b, ".</p>");
	} else if (done != NULL) {
		html_raw(&b, "<p class=\"done\" role=\"status\">");
		html_text(&b, done);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<p>Queue <strong>");
	html_text(&b, q->slug);
	html_raw(&b, "</strong> &middot; <a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "\">Dashboard</a></p><form method=\"post\" "
	    "action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/edit\" class=\"settings\">");
	console_csrf_field(r, &b);
	field_inputs(&b, q, err != NULL ? err->field : -1, r, err != NULL);
	html_raw(&b, "<p><button type=\"submit\">Save</button></p></form>"
	    "<h2>Signing secret</h2><form method=\"post\" "
	    "action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/rotate\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p>A new secret is shown once; tokens signed with the "
	    "old one stop verifying.</p><p><button type=\"submit\">Rotate "
	    "the secret</button></p></form>");
	console_page(r, status, "Edit queue", NULL, &b);
	buf_free(&b);
}

void
console_queue_edit(struct req *r)
{
	struct queue	*q, *nq = NULL;
	struct qops_spec spec;
	struct qops_err	 err;
	char		*held[QOPS_F__MAX];
	enum app_err	 er;

	if ((q = route_queue(r)) == NULL)
		return;
	if (r->method != METHOD_POST) {
		edit_form(r, 200, q, NULL, NULL);
		qops_queue_free(q);
		return;
	}
	memset(&err, 0, sizeof(err));
	err.field = -1;
	er = form_spec(r, &spec, held, &err);
	if (er == APP_OK)
		er = qops_update(r->db, r->arg, &spec, &err, &r->who);
	if (er == APP_OK && qops_get(r->db, r->arg, &nq, &err) == APP_OK) {
		log_info("console: %s updated queue %s", r->session->user,
		    r->arg);
		edit_form(r, 200, nq, NULL, "Saved.");
	} else if (er == APP_INVALID)
		edit_form(r, qops_reason_status(err.reason), q, &err, NULL);
	else
		op_failed(r, er, &err);
	held_free(held);
	qops_queue_free(nq);
	qops_queue_free(q);
}

void
console_queue_action(struct req *r)
{
	struct qops_err	 err;
	const char	*act = strrchr(r->path, '/') + 1;
	char		*v, *secret = NULL, loc[128];
	int64_t		 rate;
	enum app_err	 er;

	memset(&err, 0, sizeof(err));
	err.field = -1;
	if (strcmp(act, "pause") == 0)
		er = qops_pause(r->db, r->arg, &err, &r->who);
	else if (strcmp(act, "resume") == 0)
		er = qops_resume(r->db, r->arg, &err, &r->who);
	else if (strcmp(act, "rate") == 0) {
		v = console_form(r, "rate");
		if (v == NULL || parse_int64(v, ADM_RATE_MIN, ADM_RATE_MAX,
		    &rate) == -1) {
			err.reason = QOPS_R_INVALID;
			err.field = QOPS_F_RATE;
			er = APP_INVALID;
		} else
			er = qops_set_rate(r->db, r->arg, rate, &err,
			    &r->who);
		free(v);
	} else if (strcmp(act, "rotate") == 0) {
		er = qops_rotate_secret(r->db, r->cfg, r->arg, &secret,
		    &err, &r->who);
		if (er == APP_OK) {
			log_info("console: %s rotated the secret of %s",
			    r->session->user, r->arg);
			secret_page(r, 200, "New signing secret", r->arg,
			    secret, "The secret was rotated.");
			qops_secret_free(secret);
			return;
		}
	} else {
		http_error(r, 404, "not_found", "No such endpoint.");
		return;
	}
	if (er != APP_OK) {
		op_failed(r, er, &err);
		return;
	}
	log_info("console: %s: %s on %s", r->session->user, act, r->arg);
	snprintf(loc, sizeof(loc), "/admin/queue/%s", r->arg);
	console_redirect(r, loc);
}

/* Seconds a newcomer waits at rate with waiting ahead; -1 paused. */
static int64_t
est_wait_s(int64_t waiting, int64_t rate, int active)
{
	if (!active || rate <= 0)
		return -1;
	return (waiting * 60 + rate - 1) / rate;
}

/*
 * The live figures of queue q as JSON: the newest sample, the series
 * (time in seconds, waiting, inflow) of the last SERIES_MS, the live
 * instances.  Returns a new object (the caller puts it), or NULL with
 * the error in *er.
 */
static struct json_object *
live_json(struct req *r, const struct queue *q, enum app_err *er)
{
	struct json_object	*o, *s, *t, *w, *in;
	struct stats_row	*rows = NULL, *last;
	struct instance_row	*inst = NULL;
	struct ar_settings	 ar;
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
	if ((*er = db_instance_list(r->db, r->cfg->instance_stale_ms, &inst,
	    &ni)) != APP_OK) {
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

	if ((q = route_queue(r)) == NULL)
		return;
	if ((o = live_json(r, q, &er)) == NULL) {
		if (er == APP_DB_DOWN)
			http_db_down(r);
		else
			http_error(r, 500, "internal_error",
			    "Internal error.");
	} else {
		http_json(r, 200, o);
		json_object_put(o);
	}
	qops_queue_free(q);
}

/* One figure of the dashboard: <div><dt>label</dt><dd id=...>. */
static void
figure(struct buf *b, const char *id, const char *label,
    struct json_object *v, const char *unit)
{
	html_raw(b, "<div><dt>");
	html_text(b, label);
	html_raw(b, "</dt><dd id=\"");
	html_attr(b, id);
	html_raw(b, "\">");
	html_text(b, v != NULL ? json_object_to_json_string(v) : "-");
	html_raw(b, "</dd>");
	if (unit != NULL) {
		html_raw(b, "<dd class=\"unit\">");
		html_text(b, unit);
		html_raw(b, "</dd>");
	}
	html_raw(b, "</div>");
}

void
console_queue(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct json_object	*o, *v;
	struct queue		*q;
	enum app_err		 er;
	char			 num[64];

	if ((q = route_queue(r)) == NULL)
		return;
	if ((o = live_json(r, q, &er)) == NULL) {
		qops_queue_free(q);
		http_db_down(r);
		return;
	}
	html_raw(&head, "<link rel=\"stylesheet\" href=\"");
	html_attr(&head, r->cfg->static_url);
	html_raw(&head, "/uPlot.min.css\"><script defer src=\"");
	html_attr(&head, r->cfg->static_url);
	html_raw(&head, "/uPlot.iife.min.js\"></script><script defer src=\"");
	html_attr(&head, r->cfg->static_url);
	html_raw(&head, "/console.js\"></script>");

	html_raw(&b, "<section id=\"dashboard\" data-live=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/live\" aria-labelledby=\"dash-h\"><h2 id=\"dash-h\">");
	html_text(&b, q->name);
	html_raw(&b, " <small>(");
	html_text(&b, q->slug);
	html_raw(&b, ")</small></h2><p id=\"state\" role=\"status\">");
	html_text(&b, adm_settled_active(&q->adm) ? "Running" : "Paused");
	html_raw(&b, "</p><dl class=\"figures\">");
	json_object_object_get_ex(o, "waiting", &v);
	figure(&b, "waiting", "Waiting", v, "people");
	json_object_object_get_ex(o, "inflowPerMinute", &v);
	figure(&b, "inflow", "Inflow", v, "per minute");
	json_object_object_get_ex(o, "ratePerMinute", &v);
	figure(&b, "rate", "Admission rate", v, "per minute");
	json_object_object_get_ex(o, "rateCap", &v);
	figure(&b, "rate-cap", "Rate cap", v, NULL);
	json_object_object_get_ex(o, "estimatedWaitSeconds", &v);
	figure(&b, "wait", "Estimated wait for a newcomer", v, "seconds");
	json_object_object_get_ex(o, "serving", &v);
	figure(&b, "serving", "Serving", v, NULL);
	json_object_object_get_ex(o, "issued", &v);
	figure(&b, "issued", "Issued", v, NULL);
	html_raw(&b, "</dl><figure><div id=\"chart\" role=\"img\" "
	    "aria-label=\"Waiting and inflow per minute over the last 30 "
	    "minutes\"></div><figcaption>Waiting (people) and inflow (new "
	    "visitors per minute), last 30 minutes; updated every 3 s."
	    "</figcaption></figure>");
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
	html_raw(&b, "</form><p><a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/edit\">Edit settings and secret</a> &middot; "
	    "<a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/keys\">API keys</a> &middot; <a "
	    "href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/bypass\">VIP bypass codes</a> &middot; <a "
	    "href=\"/admin/audit?queue=");
	html_query_value(&b, q->slug);
	html_raw(&b, "\">Audit log</a></p></div>");
	/* Instances. */
	html_raw(&b, "<h2 id=\"inst-h\">Running instances</h2><div "
	    "class=\"scroll\" " SCROLL("Running instances")
	    "><table id=\"instances\" "
	    "aria-labelledby=\"inst-h\"><thead><tr><th scope=\"col\">Kind"
	    "</th><th scope=\"col\">Host</th><th scope=\"col\" "
	    "class=\"num\">PID</th><th scope=\"col\" class=\"num\">Workers"
	    "</th><th scope=\"col\" class=\"num\">Busy</th><th scope=\"col\" "
	    "class=\"num\">CPU %</th><th scope=\"col\" class=\"num\">RSS KiB"
	    "</th><th scope=\"col\">Requests / s</th></tr></thead><tbody>");
	json_object_object_get_ex(o, "instances", &v);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *io = json_object_array_get_idx(v, i), *f;
		static const char *const cols[] = { "kind", "host", "pid",
		    "workers", "busy", "cpuPct", "rssKb",
		    "requestsPerSecond" };
		html_raw(&b, "<tr>");
		for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			json_object_object_get_ex(io, cols[k], &f);
			html_raw(&b, k >= 2 && k <= 6 ? "<td class=\"num\">" :
			    "<td>");
			html_text(&b, json_object_get_type(f) ==
			    json_type_string ? json_object_get_string(f) :
			    json_object_to_json_string(f));
			html_raw(&b, "</td>");
		}
		html_raw(&b, "</tr>");
	}
	html_raw(&b, "</tbody></table></div></section>");
	console_page(r, 200, "Dashboard", head.p, &b);
	buf_free(&b);
	buf_free(&head);
	json_object_put(o);
	qops_queue_free(q);
}

/* Unix ms as "YYYY-MM-DD HH:MM:SS UTC" into buf (n >= 32); "-" for 0. */
static void
utc_text(int64_t ms, char *buf, size_t n)
{
	time_t		 t = (time_t)(ms / 1000);
	struct tm	 tm;

	if (ms <= 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, n, "-");
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
		op_failed(r, er, &err);
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
		utc_text(k[i].created_ms, t1, sizeof(t1));
		utc_text(k[i].last_used_ms, t2, sizeof(t2));
		html_raw(&b, "<tr><th scope=\"row\">");
		html_text(&b, k[i].name);
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
			html_text(&b, k[i].name);
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

	if ((q = route_queue(r)) == NULL)
		return;
	if (r->method != METHOD_POST) {
		keys_page(r, 200, q, NULL, NULL);
		qops_queue_free(q);
		return;
	}
	name = console_form(r, "name");
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
		op_failed(r, er, &err);
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
		http_error(r, 404, "key_not_found", "No such API key.");
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
		op_failed(r, er, &err);
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
			op_failed(r, er, &err);
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
		op_failed(r, er, &err);
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
		utc_text(e[i].at_ms, t, sizeof(t));
		html_raw(&b, "<tr><td>");
		html_text(&b, t);
		html_raw(&b, "</td><td>");
		html_text(&b, e[i].actor_kind);
		html_raw(&b, ": ");
		html_text(&b, e[i].actor_name);
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
		if (er == APP_DB_DOWN)
			http_db_down(r);
		else
			http_error(r, 500, "internal_error",
			    "Internal error.");
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
