/*
 * console-bypass.c - the console's page of VIP bypass codes (see
 * console-bypass.h).  Every change goes through bypass.h, audited as the
 * logged-in user.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admin-user.h"
#include "aqueue.h"
#include "bypass.h"
#include "console-bypass.h"
#include "console.h"
#include "crypto.h"
#include "extern.h"
#include "isotime.h"
#include "log.h"
#include "page-console.h"

/* A refusal of bypass.h as a page (the database's as 503). */
static void
failed(struct req *r, const struct bypass_err *err)
{
	if (err->status == 503)
		http_app_err(r, ERR_DB_DOWN);
	else
		console_refusal(r, err->status, "Not done", err->message);
}

/* One row of the codes' table, with its actions. */
static void
code_row(struct req *r, struct buf *b, const struct bypass_code *c)
{
	char	 t[40], num[32];
	int	 on = !c->disabled;

	html_raw(b, "<tr><th scope=\"row\">");
	html_text_auto(b, c->label);
	html_raw(b, "</th><td class=\"num\">");
	snprintf(num, sizeof(num), "%lld", (long long)c->uses);
	html_text(b, num);
	html_raw(b, "</td><td class=\"num\">");
	if (c->use_limit > 0)
		snprintf(num, sizeof(num), "%lld", (long long)c->use_limit);
	else
		snprintf(num, sizeof(num), "none");
	html_text(b, num);
	html_raw(b, "</td><td>");
	console_utc_text(c->expires_ms, t, sizeof(t));
	html_text(b, c->expires_ms > 0 ? t : "never");
	html_raw(b, "</td><td>");
	html_text(b, bypass_state(c));
	html_raw(b, "</td><td>");
	snprintf(num, sizeof(num), "%lld", (long long)c->id);
	html_raw(b, "<form method=\"post\" action=\"/admin/bypass/");
	html_attr(b, num);
	html_raw(b, on ? "/disable\">" : "/enable\">");
	console_csrf_field(r, b);
	html_raw(b, on ? "<button type=\"submit\">Disable" :
	    "<button type=\"submit\">Enable");
	html_raw(b, "<span class=\"vh\"> ");
	html_text(b, c->label);
	html_raw(b, "</span></button></form><form method=\"post\" "
	    "action=\"/admin/bypass/");
	html_attr(b, num);
	html_raw(b, "/delete\">");
	console_csrf_field(r, b);
	html_raw(b, "<button type=\"submit\">Delete<span class=\"vh\"> ");
	html_text(b, c->label);
	html_raw(b, "</span></button></form></td></tr>");
}

/*
 * The page of queue slug's codes, with a code just made (made, its
 * link) shown once, or a refusal's message.
 */
static void
codes_page(struct req *r, int status, const char *slug, const char *made,
    const char *msg)
{
	struct buf		 b = { NULL, 0, 0 };
	struct bypass_code	*c = NULL;
	struct bypass_err	 err;
	size_t			 n = 0, i;

	if (bypass_list(r->db, slug, &c, &n, &err, &r->who) != APP_OK) {
		failed(r, &err);
		return;
	}
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\">");
		html_text(&b, msg);
		html_raw(&b, "</p>");
	}
	if (made != NULL) {
		html_raw(&b, "<p role=\"status\">The code was created. It is "
		    "shown only this once; share it, or the link, now:</p>"
		    "<p><code id=\"new-code\" class=\"secret\">");
		html_text(&b, made);
		html_raw(&b, "</code></p><p><code id=\"new-link\" "
		    "class=\"secret\">");
		html_text(&b, r->base);
		html_text(&b, "/queue/");
		html_text(&b, slug);
		html_text(&b, "/enter?code=");
		html_text(&b, made);
		html_raw(&b, "</code></p>");
	}
	html_raw(&b, "<p>VIP bypass codes of <strong>");
	html_text(&b, slug);
	html_raw(&b, "</strong> &middot; <a href=\"/admin/queue/");
	html_url_arg(&b, slug);
	html_raw(&b, "\">Dashboard</a>. A code sends its holder straight to "
	    "the shop, outside the admission rate, through the gateway link "
	    "with <code>?code=</code>.</p><form method=\"post\" "
	    "action=\"/admin/queue/");
	html_url_arg(&b, slug);
	html_raw(&b, "/bypass\" class=\"settings\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p class=\"field\"><label for=\"bp-label\">Label"
	    "</label><input id=\"bp-label\" name=\"label\" required "
	    "maxlength=\"200\" aria-describedby=\"h-bp-label\"><small "
	    "id=\"h-bp-label\">Who it is for, e.g. &ldquo;press&rdquo;"
	    "</small></p><p class=\"field\"><label for=\"bp-uses\">Use "
	    "limit</label><input id=\"bp-uses\" name=\"uses\" "
	    "inputmode=\"numeric\" aria-describedby=\"h-bp-uses\"><small "
	    "id=\"h-bp-uses\">1 to 1000000 uses, or empty for no limit"
	    "</small></p><p class=\"field\"><label for=\"bp-expires\">"
	    "Expires</label><input id=\"bp-expires\" name=\"expires\" "
	    "aria-describedby=\"h-bp-expires\"><small id=\"h-bp-expires\">"
	    "A time with its zone, e.g. 2026-12-24T18:00:00Z, or empty for "
	    "never</small></p><p><button type=\"submit\">Create code"
	    "</button></p></form>");
	html_raw(&b, "<div class=\"scroll\" " SCROLL("Bypass codes")
	    "><table id=\"codes\"><caption>Codes</caption><thead><tr>"
	    "<th scope=\"col\">Label</th><th scope=\"col\" class=\"num\">"
	    "Uses</th><th scope=\"col\" class=\"num\">Limit</th>"
	    "<th scope=\"col\">Expires</th><th scope=\"col\">State</th>"
	    "<th scope=\"col\"><span class=\"vh\">Actions</span></th>"
	    "</tr></thead><tbody>");
	for (i = 0; i < n; i++)
		code_row(r, &b, &c[i]);
	html_raw(&b, "</tbody></table></div>");
	console_page(r, status, "VIP bypass codes", NULL, &b);
	buf_free(&b);
	free(c);
}

void
console_queue_bypass(struct req *r)
{
	struct bypass_err	 err;
	char			*label = NULL, *uses = NULL, *exp = NULL;
	char			*code = NULL;
	int64_t			 limit = 0, expires = 0, id;
	enum app_err		 er;

	if (r->method != METHOD_POST) {
		codes_page(r, 200, r->arg, NULL, NULL);
		return;
	}
	label = req_form(r, "label");
	uses = req_form(r, "uses");
	exp = req_form(r, "expires");
	if (uses != NULL && uses[0] != '\0' &&
	    parse_int64(uses, 1, BYPASS_USES_MAX, &limit) == -1) {
		codes_page(r, 422, r->arg, NULL, "The use limit must be a "
		    "whole number from 1 to 1000000, or empty.");
		goto out;
	}
	if (exp != NULL && exp[0] != '\0' &&
	    iso_time_parse(exp, &expires) == -1) {
		codes_page(r, 422, r->arg, NULL, "The expiry must be a time "
		    "with its zone, e.g. 2026-12-24T18:00:00Z, or empty.");
		goto out;
	}
	er = bypass_create(r->db, r->arg, label != NULL ? label : "", limit,
	    expires, &code, &id, &err, &r->who);
	if (er == APP_OK) {
		log_info("console: %s created bypass code %lld of %s",
		    r->session->user, (long long)id, r->arg);
		codes_page(r, 201, r->arg, code, NULL);
	} else if (err.status == 422)
		codes_page(r, 422, r->arg, NULL, err.message);
	else
		failed(r, &err);
out:
	if (code != NULL)
		crypto_wipe(code, strlen(code));
	free(code);
	free(label);
	free(uses);
	free(exp);
}

void
console_bypass_action(struct req *r)
{
	struct bypass_err	 err;
	char			 slug[SLUG_MAX + 1], loc[128];
	const char		*op;
	int64_t			 id;
	enum app_err		 er;

	if (parse_int64(r->arg, 1, INT64_MAX, &id) == -1) {
		http_app_errf(r, ERR_NOT_FOUND, "No such code.");
		return;
	}
	op = strrchr(r->path, '/');
	slug[0] = '\0';
	if (op != NULL && strcmp(op, "/delete") == 0)
		er = bypass_delete(r->db, id, slug, &err, &r->who);
	else
		er = bypass_set_enabled(r->db, id, op != NULL &&
		    strcmp(op, "/enable") == 0, slug, &err, &r->who);
	if (er != APP_OK) {
		failed(r, &err);
		return;
	}
	log_info("console: %s changed bypass code %lld (%s)",
	    r->session->user, (long long)id, op != NULL ? op + 1 : "");
	snprintf(loc, sizeof(loc), "/admin/queue/%s/bypass", slug);
	console_redirect(r, loc);
}
