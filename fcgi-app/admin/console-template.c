/*
 * console-template.c - the console's page of a queue's custom template
 * (see console-template.h).  Every change goes through tmpl-ops.h,
 * audited as the logged-in user.  The previews fill the template with
 * sample figures of each state, as the room page fills it (the same
 * escaping), in iframes with an empty sandbox: no script, no form, no
 * navigation, an origin of their own.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin-user.h"
#include "aqueue.h"
#include "console-template.h"
#include "console.h"
#include "extern.h"
#include "lang.h"
#include "log.h"
#include "queue-ops.h"
#include "tmpl-ops.h"

/* The states a preview shows, with their sample figures. */
static const struct preview {
	const char	*id;		/* of the figure */
	const char	*title;		/* the state's name */
	enum msg	 msg;		/* the status line */
	const char	*after;		/* after the message ("" none) */
	const char	*v[ROOM_VAR__MAX];	/* NULL: a dash */
} previews[] = {
	{ "queuing", "Queuing", MSG_QUEUED, "",
	    { "4\u20136 min", "58", "1042", "984", NULL,
	    "14:05\u201314:07" } },
	{ "admitted", "Admitted", MSG_TURN, "",
	    { "0 s", "0", "1042", "1050", NULL, "14:05" } },
	{ "paused", "Paused", MSG_PAUSED, "",
	    { NULL, "58", "1042", "984", NULL, NULL } },
	{ "hold", "Hold", MSG_HOLD, "",
	    { NULL, "58", "1042", "984", NULL, NULL } },
	{ "pre-open", "Pre-open", MSG_OPENS, " 12 min",
	    { NULL, NULL, "17", "0", NULL, NULL } },
	{ "full", "Full", MSG_FULL, "",
	    { NULL, NULL, NULL, "984", NULL, NULL } },
};

#define NPREVIEWS	(sizeof(previews) / sizeof(previews[0]))

/* The document of preview p of html (filled) into out. */
static void
preview_doc(struct req *r, struct buf *out, const struct queue *q,
    const char *html, size_t len, const struct preview *p)
{
	struct custom_vals	 cv;
	struct room_tmpl_err	 err;
	size_t			 i;

	memset(&cv, 0, sizeof(cv));
	for (i = 0; i < ROOM_VAR__MAX; i++)
		cv.v[i] = p->v[i];
	cv.v[ROOM_VAR_NAME] = q->display_name[0] != '\0' ?
	    q->display_name : q->name;
	html_raw(out, "<!doctype html><html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>");
	html_text(out, p->title);
	html_raw(out, "</title><link rel=\"stylesheet\" href=\"");
	req_static_url(out, r);
	html_raw(out, "/waiting-room.css\"></head><body><main id=\"room\">");
	if (custom_room_render(out, html, len, &cv, &err) == -1) {
		html_raw(out, "<p>");
		html_text(out, err.message);
		html_raw(out, "</p>");
	}
	html_raw(out, "<p id=\"state\" class=\"custom-state\">");
	html_text(out, lang_msg(LANG_EN, p->msg));
	html_text(out, p->after);
	html_raw(out, "</p></main></body></html>");
}

/* The previews of html, one figure each. */
static void
previews_html(struct req *r, struct buf *b, const struct queue *q,
    const char *html, size_t len)
{
	struct buf	 doc = { NULL, 0, 0 };
	size_t		 i;

	html_raw(b, "<h2 id=\"previews-h\">Previews</h2><p>The stored "
	    "template in each state, with sample figures; the page's status "
	    "line follows it.</p><div class=\"previews\">");
	for (i = 0; i < NPREVIEWS; i++) {
		doc.len = 0;
		preview_doc(r, &doc, q, html, len, &previews[i]);
		buf_add(&doc, "", 1);
		html_raw(b, "<figure class=\"preview\" id=\"preview-");
		html_attr(b, previews[i].id);
		html_raw(b, "\"><figcaption>");
		html_text(b, previews[i].title);
		html_raw(b, "</figcaption><iframe sandbox=\"\" title=\"");
		html_attr(b, "Preview: ");
		html_attr(b, previews[i].title);
		html_raw(b, "\" srcdoc=\"");
		html_attr(b, doc.p);
		html_raw(b, "\"></iframe></figure>");
	}
	html_raw(b, "</div>");
	buf_free(&doc);
}

/*
 * The page of queue slug's template: the refusal msg (NULL: none) or
 * the note done (NULL: none), the form holding text (NULL: the stored
 * template), the previews of the stored one.
 */
static void
template_page(struct req *r, int status, const char *msg, const char *done,
    const char *text)
{
	struct buf	 b = { NULL, 0, 0 };
	struct queue	*q = NULL;
	struct qops_err	 qerr;
	struct tops_err	 err;
	char		*html = NULL, num[32];
	size_t		 len = 0;

	if (qops_get(r->db, r->arg, &q, &qerr) != APP_OK) {
		http_app_err(r, qerr.reason == QOPS_R_NOT_FOUND ?
		    ERR_QUEUE_NOT_FOUND : qerr.reason == QOPS_R_UNAVAILABLE ?
		    ERR_DB_DOWN : ERR_INTERNAL);
		return;
	}
	if (tops_get(r->db, r->arg, &html, &len, &err, &r->who) != APP_OK) {
		http_app_err(r, err.status == 503 ? ERR_DB_DOWN :
		    ERR_INTERNAL);
		qops_queue_free(q);
		return;
	}
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\" "
		    "id=\"template-error\">");
		html_text(&b, msg);
		html_raw(&b, " Nothing was stored.</p>");
	} else if (done != NULL) {
		html_raw(&b, "<p class=\"done\" role=\"status\">");
		html_text(&b, done);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<p>Waiting-room template of <strong>");
	html_text(&b, q->slug);
	html_raw(&b, "</strong> &middot; <a href=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/edit\">Edit settings</a> &middot; <a href=\"");
	html_attr(&b, r->base);
	html_raw(&b, "/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "\">Room page</a></p><p id=\"template-state\">");
	if (html != NULL) {
		snprintf(num, sizeof(num), "%zu", len);
		html_raw(&b, "The room shows this queue's own template (");
		html_text(&b, num);
		html_raw(&b, " bytes).");
	} else
		html_raw(&b, "The room shows the default page.");
	html_raw(&b, "</p><p>An HTML fragment of at most 51200 bytes: the "
	    "page keeps its head, styles, scripts and status line, and "
	    "shows the template in place of its figures. Variables: "
	    "<code>${waitTime}</code>, <code>${position}</code>, "
	    "<code>${number}</code>, <code>${serving}</code>, "
	    "<code>${name}</code>, <code>${eta}</code>, in text or in quoted "
	    "attribute values. No scripts, styles, frames, forms or event "
	    "handlers; links only to http, https and mailto.</p>"
	    "<form method=\"post\" action=\"/admin/queue/");
	html_url_arg(&b, q->slug);
	html_raw(&b, "/template\" class=\"settings\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p class=\"field\"><label for=\"tmpl-html\">Template "
	    "HTML</label><textarea id=\"tmpl-html\" name=\"html\" rows=\"16\" "
	    "cols=\"80\" spellcheck=\"false\" aria-describedby=\"h-tmpl\">");
	html_text(&b, text != NULL ? text : html != NULL ? html : "");
	html_raw(&b, "</textarea><small id=\"h-tmpl\">Paste the HTML; a "
	    "refusal names its line.</small></p><p><button type=\"submit\" "
	    "name=\"op\" value=\"save\">Save template</button></p></form>");
	if (html != NULL) {
		html_raw(&b, "<form method=\"post\" action=\"/admin/queue/");
		html_url_arg(&b, q->slug);
		html_raw(&b, "/template\">");
		console_csrf_field(r, &b);
		html_raw(&b, "<p><button type=\"submit\" name=\"op\" "
		    "value=\"reset\">Reset to the default page</button></p>"
		    "</form>");
		previews_html(r, &b, q, html, len);
	}
	console_page(r, status, "Waiting-room template", NULL, &b);
	buf_free(&b);
	free(html);
	qops_queue_free(q);
}

void
console_queue_template(struct req *r)
{
	struct tops_err	 err;
	char		*op = NULL, *html = NULL;
	enum app_err	 er;

	if (r->method != METHOD_POST) {
		template_page(r, 200, NULL, NULL, NULL);
		return;
	}
	op = req_form(r, "op");
	if (op != NULL && strcmp(op, "reset") == 0) {
		er = tops_reset(r->db, r->arg, &err, &r->who);
		if (er == APP_OK)
			log_info("console: %s reset the template of %s",
			    r->session->user, r->arg);
		if (er == APP_OK)
			template_page(r, 200, NULL, "The room shows the "
			    "default page again.", NULL);
		else
			template_page(r, err.status, err.message, NULL, NULL);
		goto out;
	}
	html = req_form(r, "html");
	if (html == NULL || html[0] == '\0') {
		template_page(r, 422, "The template is empty; to show the "
		    "default page, reset it.", NULL, "");
		goto out;
	}
	er = tops_put(r->db, r->arg, html, strlen(html), &err, &r->who);
	if (er == APP_OK) {
		log_info("console: %s stored a template of %s",
		    r->session->user, r->arg);
		template_page(r, 200, NULL, "Saved: the room shows this "
		    "template.", NULL);
	} else if (err.status == 413 || err.status == 422)
		template_page(r, err.status, err.message, NULL, html);
	else if (err.status == 503)
		http_app_err(r, ERR_DB_DOWN);
	else
		template_page(r, err.status, err.message, NULL, NULL);
out:
	free(op);
	free(html);
}
