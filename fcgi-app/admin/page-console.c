/*
 * page-console.c - the console's queue pages: the list, the create and
 * edit forms generated from the queue-ops field table, and the state
 * actions (pause, resume, rate, secret rotation).  The dashboard is in
 * page-dashboard.c, the keys and the audit log in page-audit.c; the
 * helpers all three share are declared in page-console.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "console.h"
#include "db-console.h"
#include "extern.h"
#include "fields.h"
#include "log.h"
#include "page-console.h"
#include "queue-fields.h"
#include "queue-ops.h"

#define TEXT_MAX	8200			/* a field's text */

void
console_op_failed(struct req *r, enum app_err er, const struct qops_err *err)
{
	struct buf	 b = { NULL, 0, 0 };
	int		 status = qops_reason_status(err->reason);

	if (er == APP_DB_DOWN) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	html_raw(&b, "<p class=\"error\" role=\"alert\">");
	html_text(&b, qops_reason_text(err->reason));
	if (err->field >= 0) {
		html_raw(&b, ": ");
		html_text(&b, qops_field((enum qops_field)err->field)->label);
		html_raw(&b, " must be ");
		html_text(&b, qops_field((enum qops_field)err->field)->rule);
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
	static const char *const methods[] = { "fifo", "random",
	    "passthrough", "hold" };
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
	case FLD_CTL_METHOD:
		html_raw(b, "<select");
		field_attrs(b, opt, bad);
		html_raw(b, ">");
		for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
			option(b, methods[i], methods[i],
			    strcmp(text, methods[i]) == 0);
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
		    (given = req_form(r, f->opt)) != NULL) {
			snprintf(text, sizeof(text), "%s", given);
			free(given);
		} else if (q != NULL)
			(void)qops_field_text(q, (enum qops_field)i, text,
			    sizeof(text));
		else if (f->def != NULL && f->type != FLD_TIME)
			snprintf(text, sizeof(text), "%s", f->def);
		html_raw(b, "<p class=\"field\">");
		console_field_label(b, "f-", f);
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
		if ((held[i] = req_form(r, f->opt)) == NULL)
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

	slug = r->body != NULL ? req_form(r, "slug") : NULL;
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
	slug = req_form(r, "slug");
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
		console_op_failed(r, er, &err);
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
		console_op_failed(r, er, &err);
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
		html_text_auto(&b, qs[i]->name);
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
		html_text_auto(&b, qs[i]->name);
		html_raw(&b, "</span></a></td></tr>");
	}
	if (n > 0)
		html_raw(&b, "</tbody></table></div>");
	html_raw(&b, "</div>");
	html_raw(&head, "<script defer src=\"");
	req_static_url(&head, r);
	html_raw(&head, "/console.js\"></script>");
	console_page(r, 200, "Queues", head.p, &b);
	buf_free(&head);
	buf_free(&b);
	qops_list_free(qs, n);
}

struct queue *
console_route_queue(struct req *r)
{
	struct queue	*q = NULL;
	struct qops_err	 err;
	enum app_err	 er;

	if ((er = qops_get(r->db, r->arg, &q, &err)) != APP_OK) {
		console_op_failed(r, er, &err);
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
	html_raw(&b, "\">Dashboard</a> &middot; <a id=\"template-link\" "
	    "href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/template\">Waiting-room template</a></p><form "
	    "method=\"post\" action=\"/admin/queue/");
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

	if ((q = console_route_queue(r)) == NULL)
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
		console_op_failed(r, er, &err);
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
		v = req_form(r, "rate");
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
		http_app_err(r, ERR_NOT_FOUND);
		return;
	}
	if (er != APP_OK) {
		console_op_failed(r, er, &err);
		return;
	}
	log_info("console: %s: %s on %s", r->session->user, act, r->arg);
	snprintf(loc, sizeof(loc), "/admin/queue/%s", r->arg);
	console_redirect(r, loc);
}
