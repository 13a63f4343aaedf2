/*
 * console.c - the console's sessions, CSRF tokens, log-in and log-out,
 * and the page shell.
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
#include "principal.h"

/* The session of the request being answered (one at a time). */
static struct admin_session	 cur_session;

int
console_cookie(const struct req *r, const char *name, char *out, size_t n)
{
	const char	*h = FCGX_GetParam("HTTP_COOKIE", r->fcgx->envp);
	const char	*p, *v;
	size_t		 nl = strlen(name), vl;

	if (h == NULL)
		return 0;
	for (p = h; *p != '\0'; ) {
		p += strspn(p, " ;");
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			v = p + nl + 1;
			vl = strcspn(v, ";");
			while (vl > 0 && v[vl - 1] == ' ')
				vl--;
			if (vl >= n)
				return 0;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return 1;
		}
		p += strcspn(p, ";");
	}
	return 0;
}

/* A hex digit's value, or -1. */
static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode len bytes of a form value into a new string.  NULL for a NUL
 * byte, a bad escape or out of memory.
 */
static char *
form_decode(const char *s, size_t len)
{
	char	*out, *o;
	size_t	 i;
	int	 hi, lo;

	if ((out = try_malloc(len + 1)) == NULL)
		return NULL;
	for (i = 0, o = out; i < len; i++) {
		if (s[i] == '+')
			*o++ = ' ';
		else if (s[i] == '%') {
			if (i + 2 >= len) {
				free(out);
				return NULL;
			}
			hi = hexval((unsigned char)s[i + 1]);
			lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				free(out);
				return NULL;
			}
			*o++ = (char)(hi * 16 + lo);
			i += 2;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}

char *
console_form(const struct req *r, const char *name)
{
	const char	*p, *end, *eq, *amp, *hit = NULL;
	size_t		 nl = strlen(name), hitlen = 0;

	if (r->body == NULL)
		return NULL;
	p = r->body;
	end = r->body + r->bodylen;
	while (p < end) {
		amp = memchr(p, '&', (size_t)(end - p));
		if (amp == NULL)
			amp = end;
		eq = memchr(p, '=', (size_t)(amp - p));
		if (eq != NULL && (size_t)(eq - p) == nl &&
		    memcmp(p, name, nl) == 0) {
			if (hit != NULL)
				return NULL;	/* given twice */
			hit = eq + 1;
			hitlen = (size_t)(amp - hit);
		}
		p = amp + 1;
	}
	if (hit == NULL)
		return NULL;
	return form_decode(hit, hitlen);
}

/*
 * Whether every name and value of the form body (read before) that
 * decodes (form_decode()) is well-formed UTF-8: the HTML standard's
 * application/x-www-form-urlencoded parser reads the bytes as UTF-8, and
 * anything else would be stored as it came.  Returns 1 if so (also with
 * no body), 0 if not.
 */
static int
form_utf8(const struct req *r)
{
	const char	*p, *end, *amp;
	char		*d;
	int		 ok = 1;

	if (r->body == NULL)
		return 1;
	p = r->body;
	end = r->body + r->bodylen;
	while (p < end && ok) {
		amp = memchr(p, '&', (size_t)(end - p));
		if (amp == NULL)
			amp = end;
		/* Name and value together: '=' is ASCII either way. */
		if ((d = form_decode(p, (size_t)(amp - p))) != NULL) {
			ok = utf8_chars(d, strlen(d)) >= 0;
			free(d);
		}
		p = amp + 1;
	}
	return ok;
}

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

	a = FCGX_GetParam("REMOTE_ADDR", r->fcgx->envp);

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

/* The client's address, for throttling and the session row. */
static const char *
client_addr(const struct req *r)
{
	const char	*a = FCGX_GetParam("REMOTE_ADDR", r->fcgx->envp);

	return a != NULL && strlen(a) <= ADMIN_ADDR_MAX ? a : "";
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

/* A small error page (or JSON) with status, code and text. */
static void
console_fail(struct req *r, int status, const char *code, const char *text)
{
	struct buf	 b = { NULL, 0, 0 };

	if (wants_json(r)) {
		http_error(r, status, code, "%s", text);
		return;
	}
	html_raw(&b, "<p class=\"error\" role=\"alert\">");
	html_text(&b, text);
	html_raw(&b, "</p><p><a href=\"/admin/\">Back to the queues</a></p>");
	console_page(r, status, status == 403 ? "Refused" : "Error", NULL,
	    &b);
	buf_free(&b);
}

/* The console user as the principal of the request's changes. */
static void
set_who(struct req *r)
{
	memset(&r->who, 0, sizeof(r->who));
	r->who.kind = PRINCIPAL_USER;
	r->who.id = r->session->user_id;
	snprintf(r->who.name, sizeof(r->who.name), "%s", r->session->user);
	snprintf(r->who.addr, sizeof(r->who.addr), "%s", client_addr(r));
}

int
console_api_session(struct req *r)
{
	char		 sid[ADMIN_SID_LEN + 2];
	enum app_err	 er;

	r->session = NULL;
	if (!console_cookie(r, CONSOLE_COOKIE, sid, sizeof(sid)))
		return 0;
	er = admin_session_check(r->db, r->cfg, sid, &cur_session);
	if (er == APP_DB_DOWN || er == APP_DB) {
		http_db_down(r);
		return -1;
	}
	if (er != APP_OK)
		return 0;
	r->session = &cur_session;
	set_who(r);
	if (r->method == METHOD_GET || r->method == METHOD_HEAD)
		return 1;
	if (!admin_csrf_ok(r->session, FCGX_GetParam(CONSOLE_CSRF_HEADER,
	    r->fcgx->envp))) {
		http_error(r, 403, "csrf_failed", "A console session's "
		    "change needs its CSRF token in X-CSRF-Token.");
		return -1;
	}
	return 1;
}

int
console_auth(struct req *r)
{
	char		 sid[ADMIN_SID_LEN + 2];
	char		*tok;
	const char	*hdr;
	enum app_err	 er;
	enum body_err	 be;
	int		 ok;

	r->session = NULL;
	if (!console_cookie(r, CONSOLE_COOKIE, sid, sizeof(sid)))
		sid[0] = '\0';
	er = admin_session_check(r->db, r->cfg, sid, &cur_session);
	if (er == APP_DB_DOWN || er == APP_DB) {
		http_db_down(r);
		return 0;
	}
	if (er != APP_OK) {
		if (wants_json(r) || (r->method != METHOD_GET &&
		    r->method != METHOD_HEAD)) {
			http_error(r, 401, "not_logged_in",
			    "Log in to the console first.");
			return 0;
		}
		console_redirect(r, "/admin/login");
		return 0;
	}
	r->session = &cur_session;
	set_who(r);
	if (r->method == METHOD_GET || r->method == METHOD_HEAD)
		return 1;
	if ((be = req_read_body(r)) != BODY_OK) {
		http_error(r, be == BODY_TOO_LARGE ? 413 : 400, "bad_body",
		    "The request body could not be read.");
		return 0;
	}
	hdr = FCGX_GetParam(CONSOLE_CSRF_HEADER, r->fcgx->envp);
	if (hdr != NULL)
		ok = admin_csrf_ok(r->session, hdr);
	else {
		tok = console_form(r, CONSOLE_CSRF_FIELD);
		ok = admin_csrf_ok(r->session, tok);
		free(tok);
	}
	if (!ok) {
		console_fail(r, 403, "csrf_failed", "This form is out of date "
		    "or did not come from the console (CSRF token missing or "
		    "wrong). Reload the page and try again.");
		return 0;
	}
	if (!form_utf8(r)) {
		console_fail(r, 400, "invalid_unicode", "The form holds text "
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
		html_attr(out, s->r->cfg->static_url);
		break;
	case 2:
		if (s->r->session == NULL)
			break;
		html_raw(out, "<nav aria-label=\"Console\"><ul>"
		    "<li><a href=\"/admin/\">Queues</a></li>"
		    "<li><a href=\"/admin/queues/new\">New queue</a></li>"
		    "<li><a href=\"/admin/audit\">Audit log</a></li>"
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
	const struct tmpl	*t = routes_tmpl("admin.html");
	struct buf		 out = { NULL, 0, 0 };
	struct shell		 s = { r, title, head, body };

	if (t == NULL) {
		http_error(r, 500, "internal_error", "Internal error.");
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
	if (!console_cookie(r, CONSOLE_LOGIN_COOKIE, tok, sizeof(tok)) ||
	    strlen(tok) != ADMIN_SID_LEN) {
		if (crypto_random(raw, sizeof(raw)) == -1 ||
		    (t = crypto_b64url_encode(raw, sizeof(raw))) == NULL) {
			http_error(r, 500, "internal_error",
			    "Internal error.");
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
	enum body_err		 be;
	enum app_err		 er;
	char			 sid[ADMIN_SID_LEN + 1];
	char			 ctok[ADMIN_SID_LEN + 2];
	char			*name = NULL, *pw = NULL, *tok = NULL;
	int64_t			 retry;

	if (r->method != METHOD_POST) {
		login_form(r, 200, NULL, NULL);
		return;
	}
	if ((be = req_read_body(r)) != BODY_OK) {
		http_error(r, be == BODY_TOO_LARGE ? 413 : 400, "bad_body",
		    "The request body could not be read.");
		return;
	}
	tok = console_form(r, CONSOLE_CSRF_FIELD);
	if (tok == NULL || strlen(tok) != ADMIN_SID_LEN ||
	    !console_cookie(r, CONSOLE_LOGIN_COOKIE, ctok, sizeof(ctok)) ||
	    strlen(ctok) != ADMIN_SID_LEN ||
	    !crypto_ct_equal(tok, ctok, ADMIN_SID_LEN)) {
		free(tok);
		login_form(r, 403, "This form is out of date or did not come "
		    "from the console. Please log in again.", NULL);
		return;
	}
	free(tok);
	if (!form_utf8(r)) {
		login_form(r, 400, "Enter your user name and password as "
		    "UTF-8 text.", NULL);
		return;
	}
	name = console_form(r, "user");
	pw = console_form(r, "password");
	if (name == NULL || pw == NULL || name[0] == '\0' ||
	    strlen(pw) > ADMIN_PASSWORD_MAX) {
		login_form(r, 400, "Enter your user name and password.",
		    name);
		goto out;
	}
	er = admin_login(r->db, r->cfg, name, pw, client_addr(r), &res,
	    &retry, sid, &s);
	if (er == APP_DB_DOWN || er == APP_DB) {
		http_db_down(r);
		goto out;
	}
	if (er != APP_OK) {
		http_error(r, 500, "internal_error", "Internal error.");
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
	log_info("console: %s logged in from %s", s.user, client_addr(r));
	set_cookie(r, CONSOLE_LOGIN_COOKIE, "", 0);
	set_cookie(r, CONSOLE_COOKIE, sid, -1);
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

	if (!console_cookie(r, CONSOLE_COOKIE, sid, sizeof(sid)))
		sid[0] = '\0';
	if ((er = admin_logout(r->db, r->cfg, sid, client_addr(r))) !=
	    APP_OK) {
		http_db_down(r);
		return;
	}
	if (r->session != NULL)
		log_info("console: %s logged out", r->session->user);
	set_cookie(r, CONSOLE_COOKIE, "", 0);
	console_redirect(r, "/admin/login");
}
