/*
 * console.c - the console's gate (a live session, session.c, and the
 * CSRF token of every change), log-in and log-out, and the page shell.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin-user.h"
#include "aqueue.h"
#include "cfg.h"
#include "console.h"
#include "crypto.h"
#include "extern.h"
#include "log.h"
#include "session.h"

/*
 * Whether the request came over plain http from loopback to a loopback
 * host: then (only) the cookies go without Secure, so that the local
 * stack works without TLS.
 */
static int
plain_loopback(const struct req *r)
{
	struct fetch_meta	 m;
	const char		*a;

	a = req_remote_addr(r);
	req_fetch_meta(r, &m);
	if (strcmp(m.scheme, "https") == 0 || a == NULL)
		return 0;
	if (strncmp(a, "127.", 4) != 0 && strcmp(a, "::1") != 0)
		return 0;
	return m.host != NULL && (strncmp(m.host, "127.", 4) == 0 ||
	    strncmp(m.host, "localhost", 9) == 0 ||
	    strncmp(m.host, "[::1]", 5) == 0);
}

/*
 * Set-Cookie name=value for the console (max_age < 0: session cookie).
 * Path is the install's root (RFC 6265 section 5.1.4), so that the
 * session reaches both the console and the admin API (which takes it
 * with the CSRF header), under a path prefix too; r->base holds only
 * plain path characters (req_base_valid()).
 */
static void
set_cookie(struct req *r, const char *name, const char *value,
    long max_age)
{
	char	 age[32] = "";

	if (max_age >= 0)
		snprintf(age, sizeof(age), "; Max-Age=%ld", max_age);
	http_header(r, "Set-Cookie", "%s=%s; Path=%s/; HttpOnly%s; "
	    "SameSite=Strict%s", name, value, r->base,
	    plain_loopback(r) ? "" : "; Secure", age);
}

/* Whether the request prefers JSON (API-style callers, the live part). */
static int
wants_json(const struct req *r)
{
	size_t	 n = strlen(r->path);

	return (n >= 5 && strcmp(r->path + n - 5, "/live") == 0) ||
	    (r->accept != NULL && strstr(r->accept, "application/json") !=
	    NULL && strstr(r->accept, "text/html") == NULL);
}

/* A small error page (or JSON) for err, saying text. */
static void
console_fail(struct req *r, enum http_err err, const char *text)
{
	int	 status = http_err_status(err);

	if (wants_json(r)) {
		http_app_errf(r, err, "%s", text);
		return;
	}
	console_refusal(r, status, status == 403 ? "Refused" : "Error",
	    text);
}

void
console_refusal(struct req *r, int status, const char *title,
    const char *text)
{
	struct buf	 b = { NULL, 0, 0 };

	html_raw(&b, "<p class=\"error\" role=\"alert\">");
	html_text(&b, text);
	html_raw(&b, "</p><p><a href=\"/admin/\">Back to the queues</a></p>");
	console_page(r, status, title, NULL, &b);
	buf_free(&b);
}

int
console_auth(struct req *r)
{
	char		*tok;
	const char	*hdr;
	enum app_err	 er;
	enum http_err	 he;
	int		 ok;

	if ((er = session_find(r)) == APP_DB_DOWN) {
		http_app_err(r, ERR_DB_DOWN);
		return 0;
	}
	if (er != APP_OK) {
		if (wants_json(r) || (r->method != METHOD_GET &&
		    r->method != METHOD_HEAD)) {
			http_app_err(r, ERR_NOT_LOGGED_IN);
			return 0;
		}
		console_redirect(r, "/admin/login");
		return 0;
	}
	if (r->method == METHOD_GET || r->method == METHOD_HEAD)
		return 1;
	if ((he = req_read_body(r)) != ERR_OK) {
		http_app_err(r, he);
		return 0;
	}
	hdr = req_param(r, SESSION_CSRF_HEADER);
	if (hdr != NULL)
		ok = admin_csrf_ok(r->session, hdr);
	else {
		tok = req_form(r, CONSOLE_CSRF_FIELD);
		ok = admin_csrf_ok(r->session, tok);
		free(tok);
	}
	if (!ok) {
		console_fail(r, ERR_CSRF, "This form is out of date or did not "
		    "come from the console (CSRF token missing or wrong). "
		    "Reload the page and try again.");
		return 0;
	}
	if (!req_form_utf8(r)) {
		console_fail(r, ERR_INVALID_UNICODE, "The form holds text "
		    "that is not UTF-8; nothing was changed.");
		return 0;
	}
	return 1;
}

void
console_csrf_field(struct req *r, struct buf *b)
{
	html_raw(b, "<input type=\"hidden\" name=\"" CONSOLE_CSRF_FIELD
	    "\" value=\"");
	html_attr(b, r->session != NULL ? r->session->csrf : "");
	html_raw(b, "\">");
}

/* What console_page() fills in. */
struct shell {
	struct req		*r;
	const char		*title;
	const char		*head;
	const struct buf	*body;
};

static const char *const shell_keys[] = {
	"title", "static", "nav", "head", "main"
};

static void
shell_hole(struct buf *out, size_t i, void *arg)
{
	struct shell	*s = arg;

	switch (i) {
	case 0:
		html_text(out, s->title);
		break;
	case 1:
		req_static_url(out, s->r);
		break;
	case 2:
		if (s->r->session == NULL)
			break;
		html_raw(out, "<nav aria-label=\"Console\"><ul>"
		    "<li><a href=\"/admin/\">Queues</a></li>"
		    "<li><a href=\"/admin/queues/new\">New queue</a></li>"
		    "<li><a href=\"/admin/audit\">Audit log</a></li>"
		    "<li><a href=\"/admin/users\">Users</a></li>"
		    "<li><a href=\"/admin/instances\">Instances</a></li>"
		    "<li><a href=\"/admin/loadtests\">Load tests</a></li>"
		    "</ul><form method=\"post\" action=\"/admin/logout\" "
		    "class=\"logout\"><span class=\"who\">");
		html_text(out, s->r->session->user);
		html_raw(out, "</span>");
		console_csrf_field(s->r, out);
		html_raw(out, "<button type=\"submit\">Log out</button>"
		    "</form></nav>");
		break;
	case 3:
		if (s->head != NULL)
			html_raw(out, s->head);
		break;
	case 4:
		if (s->body != NULL && s->body->len > 0)
			buf_add(out, s->body->p, s->body->len);
		break;
	}
}

/*
 * Put base (plain path characters, req_base_valid()) before every
 * attribute value of b's markup that starts with /admin, in place.
 */
static void
with_base(struct buf *b, const char *base)
{
	static const char	 pat[] = "=\"/admin";
	struct buf		 out = { NULL, 0, 0 };
	const char		*p, *end, *hit;

	if (b->p == NULL)
		return;
	p = b->p;
	end = b->p + b->len;
	while ((hit = memmem(p, (size_t)(end - p), pat,
	    sizeof(pat) - 1)) != NULL) {
		buf_add(&out, p, (size_t)(hit - p) + 2);
		buf_puts(&out, base);
		p = hit + 2;
	}
	buf_add(&out, p, (size_t)(end - p));
	buf_free(b);
	*b = out;
}

void
console_page(struct req *r, int status, const char *title, const char *head,
    const struct buf *body)
{
	const struct tmpl	*t = tmpl_get(TMPL_ADMIN);
	struct buf		 out = { NULL, 0, 0 };
	struct shell		 s = { r, title, head, body };

	if (t == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	tmpl_render(&out, t, shell_keys,
	    sizeof(shell_keys) / sizeof(shell_keys[0]), shell_hole, &s);
	if (r->base[0] != '\0')
		with_base(&out, r->base);
	http_send(r, status, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
}

void
console_redirect(struct req *r, const char *path)
{
	http_header(r, "Location", "%s%s", r->base, path);
	http_send(r, 303, NULL, NULL, 0);
}

/* The log-in form, with an optional message (role alert). */
static void
login_form(struct req *r, int status, const char *msg, const char *name)
{
	struct buf	 b = { NULL, 0, 0 };
	char		 tok[ADMIN_SID_LEN + 2];
	uint8_t		 raw[32];
	char		*t;

	/* Double-submit token against log-in CSRF (cookie = field). */
	if (!session_cookie(r, CONSOLE_LOGIN_COOKIE, tok, sizeof(tok)) ||
	    strlen(tok) != ADMIN_SID_LEN) {
		if (crypto_random(raw, sizeof(raw)) == -1 ||
		    (t = crypto_b64url_encode(raw, sizeof(raw))) == NULL) {
			http_app_err(r, ERR_INTERNAL);
			return;
		}
		snprintf(tok, sizeof(tok), "%s", t);
		free(t);
		set_cookie(r, CONSOLE_LOGIN_COOKIE, tok, -1);
	}
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\" "
		    "id=\"login-error\">");
		html_text(&b, msg);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<form method=\"post\" action=\"/admin/login\" "
	    "class=\"login\"><input type=\"hidden\" name=\"" CONSOLE_CSRF_FIELD
	    "\" value=\"");
	html_attr(&b, tok);
	html_raw(&b, "\"><p><label for=\"user\">User name</label>"
	    "<input id=\"user\" name=\"user\" autocomplete=\"username\" "
	    "required maxlength=\"64\" value=\"");
	html_attr(&b, name != NULL ? name : "");
	html_raw(&b, "\"></p><p><label for=\"password\">Password</label>"
	    "<input id=\"password\" name=\"password\" type=\"password\" "
	    "autocomplete=\"current-password\" required></p>"
	    "<p><button type=\"submit\">Log in</button></p></form>");
	console_page(r, status, "Log in", NULL, &b);
	buf_free(&b);
}

void
console_login(struct req *r)
{
	struct admin_session	 s;
	enum admin_login	 res;
	enum http_err		 he;
	enum app_err		 er;
	char			 sid[ADMIN_SID_LEN + 1];
	char			 ctok[ADMIN_SID_LEN + 2];
	char			*name = NULL, *pw = NULL, *tok = NULL;
	int64_t			 retry;

	if (r->method != METHOD_POST) {
		login_form(r, 200, NULL, NULL);
		return;
	}
	if ((he = req_read_body(r)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	tok = req_form(r, CONSOLE_CSRF_FIELD);
	if (tok == NULL || strlen(tok) != ADMIN_SID_LEN ||
	    !session_cookie(r, CONSOLE_LOGIN_COOKIE, ctok, sizeof(ctok)) ||
	    strlen(ctok) != ADMIN_SID_LEN ||
	    !crypto_ct_equal(tok, ctok, ADMIN_SID_LEN)) {
		free(tok);
		login_form(r, 403, "This form is out of date or did not come "
		    "from the console. Please log in again.", NULL);
		return;
	}
	free(tok);
	if (!req_form_utf8(r)) {
		login_form(r, 400, "Enter your user name and password as "
		    "UTF-8 text.", NULL);
		return;
	}
	name = req_form(r, "user");
	pw = req_form(r, "password");
	if (name == NULL || pw == NULL || name[0] == '\0' ||
	    strlen(pw) > ADMIN_PASSWORD_MAX) {
		login_form(r, 400, "Enter your user name and password.",
		    name);
		goto out;
	}
	er = admin_login(r->db, r->cfg, name, pw, session_client_addr(r),
	    &res, &retry, sid, &s);
	if (er == APP_DB_DOWN || er == APP_DB) {
		http_app_err(r, ERR_DB_DOWN);
		goto out;
	}
	if (er != APP_OK) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	if (res == ADMIN_LOGIN_THROTTLED) {
		http_header(r, "Retry-After", "%lld", (long long)retry);
		login_form(r, 429, "Too many failed log-ins. Wait a while "
		    "and try again.", name);
		goto out;
	}
	if (res == ADMIN_LOGIN_BUSY) {
		http_header(r, "Retry-After", "%d", http_retry_jitter(
		    HTTP_BUSY_RETRY_MIN_S, HTTP_BUSY_RETRY_MAX_S));
		login_form(r, 503, "Many log-ins are being checked right "
		    "now. Try again in a moment.", name);
		goto out;
	}
	if (res != ADMIN_LOGIN_OK) {
		login_form(r, 401, "Wrong user name or password.", name);
		goto out;
	}
	log_info("console: %s logged in from %s", s.user,
	    session_client_addr(r));
	set_cookie(r, CONSOLE_LOGIN_COOKIE, "", 0);
	set_cookie(r, SESSION_COOKIE, sid, -1);
	crypto_wipe(sid, sizeof(sid));
	console_redirect(r, "/admin/");
out:
	if (pw != NULL)
		crypto_wipe(pw, strlen(pw));
	free(pw);
	free(name);
}

void
console_logout(struct req *r)
{
	char		 sid[ADMIN_SID_LEN + 2];
	enum app_err	 er;

	if (!session_cookie(r, SESSION_COOKIE, sid, sizeof(sid)))
		sid[0] = '\0';
	if ((er = admin_logout(r->db, r->cfg, sid, session_client_addr(r))) !=
	    APP_OK) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	if (r->session != NULL)
		log_info("console: %s logged out", r->session->user);
	set_cookie(r, SESSION_COOKIE, "", 0);
	console_redirect(r, "/admin/login");
}
