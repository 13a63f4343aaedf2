/*
 * routes.c - the route table: /queue/healthz and /queue/<slug>[/<page>],
 * method checks (404 and 405 before any handler runs), the queue look-up,
 * CORS per queue (exact origin match, CASES C12), then dispatch.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "jsonbody.h"
#include "token.h"
#include "log.h"
#include "page-gateway.h"
#include "page-info.h"
#include "page-join.h"
#include "page-room.h"
#include "page-status.h"
#include "page-token.h"
#include "page-verify.h"

enum page {
	PAGE_ROOM,
	PAGE_JOIN,
	PAGE_STATUS,
	PAGE_TOKEN,
	PAGE_ENTER,
	PAGE_VERIFY,
	PAGE_INFO,
	PAGE__MAX
};

typedef void (*page_fn)(struct req *);

#define M(x)	(1u << (x))

static const char *const pages[PAGE__MAX] = {
	"",		/* PAGE_ROOM: /queue/<slug> */
	"join",		/* PAGE_JOIN */
	"status",	/* PAGE_STATUS */
	"token",	/* PAGE_TOKEN */
	"enter",	/* PAGE_ENTER */
	"verify",	/* PAGE_VERIFY */
	"info",		/* PAGE_INFO */
};

static const page_fn handlers[PAGE__MAX] = {
	page_room,	/* PAGE_ROOM */
	page_join,	/* PAGE_JOIN */
	page_status,	/* PAGE_STATUS */
	page_token,	/* PAGE_TOKEN */
	page_gateway,	/* PAGE_ENTER */
	page_verify,	/* PAGE_VERIFY */
	page_info,	/* PAGE_INFO */
};

static const unsigned int methods[PAGE__MAX] = {
	M(METHOD_GET) | M(METHOD_HEAD),	/* PAGE_ROOM */
	M(METHOD_POST),			/* PAGE_JOIN */
	M(METHOD_GET) | M(METHOD_HEAD),	/* PAGE_STATUS */
	M(METHOD_POST),			/* PAGE_TOKEN */
	M(METHOD_GET) | M(METHOD_HEAD),	/* PAGE_ENTER */
	M(METHOD_GET) | M(METHOD_HEAD),	/* PAGE_VERIFY */
	M(METHOD_GET) | M(METHOD_HEAD),	/* PAGE_INFO */
};

static const char *const allow[PAGE__MAX] = {
	"GET, HEAD",	/* PAGE_ROOM */
	"POST",		/* PAGE_JOIN */
	"GET, HEAD",	/* PAGE_STATUS */
	"POST",		/* PAGE_TOKEN */
	"GET, HEAD",	/* PAGE_ENTER */
	"GET, HEAD",	/* PAGE_VERIFY */
	"GET, HEAD",	/* PAGE_INFO */
};

static struct tmpl *room_tmpl;

int
routes_init(const struct cfg *c)
{
	if ((room_tmpl = tmpl_load(c->templates_dir,
	    "waiting-room.html")) == NULL)
		return -1;
	return 0;
}

void
routes_free(void)
{
	tmpl_free(room_tmpl);
	room_tmpl = NULL;
}

const struct tmpl *
routes_room_tmpl(void)
{
	return room_tmpl;
}

/*
 * Split path "/queue/<slug>[/<page>]" into slug (copied; left empty when
 * longer than SLUG_MAX, so that it fails slug_valid() and answers
 * queue_not_found) and page.  Returns the page, or PAGE__MAX when no
 * route matches.
 */
static enum page
route(const char *path, char slug[SLUG_MAX + 1])
{
	const char	*p, *s;
	size_t		 n, i;

	if (strncmp(path, "/queue/", 7) != 0)
		return PAGE__MAX;
	p = path + 7;
	s = strchr(p, '/');
	n = s != NULL ? (size_t)(s - p) : strlen(p);
	if (n == 0)
		return PAGE__MAX;
	if (n > SLUG_MAX)
		n = 0;
	memcpy(slug, p, n);
	slug[n] = '\0';
	if (s == NULL || s[1] == '\0')
		return PAGE_ROOM;
	for (i = 1; i < PAGE__MAX; i++)
		if (strcmp(s + 1, pages[i]) == 0)
			return (enum page)i;
	return PAGE__MAX;
}

/*
 * Whether method m equals one item of list ("GET, HEAD"): whole items
 * only, so "" or "ET" never match.  Returns 1 or 0.
 */
static int
method_listed(const char *list, const char *m)
{
	size_t		 n = strlen(m), len;
	const char	*p = list;

	if (n == 0)
		return 0;
	while (*p != '\0') {
		len = strcspn(p, ",");
		if (len == n && strncmp(p, m, n) == 0)
			return 1;
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

/*
 * CORS for a visitor endpoint (CASES C12): Vary: Origin always; the
 * origin echoed only on an exact match with the queue's shop domains;
 * never "*", never credentials.  Preflights are answered here.
 * Returns 1 when the request was answered (a preflight), else 0.
 */
static int
cors(struct req *r, enum page pg)
{
	const char	*want;
	int		 ok = origin_allowed(r->origin, &r->qe->domains);

	if (r->method != METHOD_OPTIONS) {
		if (ok)
			http_header(r, "Access-Control-Allow-Origin", "%s",
			    r->origin);
		return 0;
	}
	want = FCGX_GetParam("HTTP_ACCESS_CONTROL_REQUEST_METHOD",
	    r->fcgx->envp);
	if (r->origin == NULL || want == NULL) {
		http_header(r, "Allow", "%s, OPTIONS", allow[pg]);
		http_send(r, 204, NULL, NULL, 0);
		return 1;
	}
	if (!ok) {
		http_error(r, 403, "origin_not_allowed",
		    "This origin may not call this waiting room.");
		return 1;
	}
	if (!method_listed(allow[pg], want)) {
		http_header(r, "Allow", "%s, OPTIONS", allow[pg]);
		http_error(r, 405, "method_not_allowed",
		    "This endpoint takes %s.", allow[pg]);
		return 1;
	}
	http_header(r, "Access-Control-Allow-Origin", "%s", r->origin);
	http_header(r, "Access-Control-Allow-Methods", "%s", allow[pg]);
	http_header(r, "Access-Control-Allow-Headers", "content-type");
	http_header(r, "Access-Control-Max-Age", "600");
	http_send(r, 204, NULL, NULL, 0);
	return 1;
}

/*
 * The queue could not be read (database down, or too many unseen slugs
 * this second).  A person gets a page, not JSON: the gateway sends the
 * visitor to the waiting room (new entries pause, SPEC section 10), and
 * the waiting room answers a small page that reloads itself.  API calls
 * get 503 JSON with Retry-After.
 */
static void
unavailable(struct req *r, enum page pg, const char *slug, enum app_err er)
{
	static const char page[] = "<!doctype html>\n<html lang=\"en\">"
	    "<head><meta charset=\"utf-8\"><meta name=\"viewport\" "
	    "content=\"width=device-width, initial-scale=1\">"
	    "<meta http-equiv=\"refresh\" content=\"5\">"
	    "<title>Waiting room</title></head><body><main>"
	    "<h1>Please wait a moment</h1><p role=\"status\">The waiting "
	    "room is briefly unavailable. This page tries again by itself "
	    "in a few seconds; keep it open.</p></main></body></html>\n";
	struct buf	 loc = { NULL, 0, 0 };

	if (pg == PAGE_ENTER && r->method == METHOD_GET) {
		buf_printf(&loc, "/queue/%s", slug);
		http_redirect(r, loc.p);
		buf_free(&loc);
		return;
	}
	if (pg == PAGE_ROOM) {
		http_header(r, "Retry-After", "5");
		http_send(r, 503, "text/html; charset=utf-8", page,
		    sizeof(page) - 1);
		return;
	}
	if (er == APP_BUSY)
		http_busy(r);
	else
		http_db_down(r);
}

/* GET /queue/healthz: liveness, no database. */
static void
healthz(struct req *r)
{
	static const char body[] = "{\"status\":\"ok\"}";

	if (r->method != METHOD_GET && r->method != METHOD_HEAD) {
		http_header(r, "Allow", "GET, HEAD");
		http_error(r, 405, "method_not_allowed",
		    "This endpoint takes GET, HEAD.");
		return;
	}
	http_send(r, 200, "application/json; charset=utf-8", body,
	    sizeof(body) - 1);
}

void
route_request(FCGX_Request *fr, const struct cfg *c, struct db *db)
{
	struct req	 r;
	char		 slug[SLUG_MAX + 1];
	enum page	 pg;
	enum app_err	 er;

	req_init(&r, fr, c, db);
	if (strcmp(r.path, "/queue/healthz") == 0) {
		healthz(&r);
		goto out;
	}
	/* Every answer under /queue/<slug>/ depends on the Origin. */
	if (strncmp(r.path, "/queue/", 7) == 0)
		http_header(&r, "Vary", "Origin");
	if ((pg = route(r.path, slug)) == PAGE__MAX) {
		http_error(&r, 404, "not_found", "No such endpoint.");
		goto out;
	}
	if (r.method != METHOD_OPTIONS &&
	    (methods[pg] & M(r.method)) == 0) {
		http_header(&r, "Allow", "%s, OPTIONS", allow[pg]);
		http_error(&r, 405, "method_not_allowed",
		    "This endpoint takes %s.", allow[pg]);
		goto out;
	}
	if (!slug_valid(slug)) {
		http_error(&r, 404, "queue_not_found", "No such queue.");
		goto out;
	}
	er = qcache_get(&r, slug, &r.qe);
	if (er == APP_NOTFOUND) {
		http_error(&r, 404, "queue_not_found", "No such queue.");
		goto out;
	}
	if (er == APP_DB_DOWN || er == APP_DB || er == APP_BUSY) {
		unavailable(&r, pg, slug, er);
		goto out;
	}
	if (er != APP_OK) {
		http_error(&r, 500, "internal_error", "Internal error.");
		goto out;
	}
	if (cors(&r, pg))
		goto out;
	(*handlers[pg])(&r);
out:
	if (!r.responded)
		http_error(&r, 500, "internal_error", "Internal error.");
	req_free(&r);
}

int
status_fill(struct json_object *o, const struct qentry *e, int64_t number,
    int64_t now, int with_active)
{
	struct adm_status	 st;

	adm_status(&e->q->adm, number, now, &st);
	if (with_active)
		json_object_object_add(o, "active",
		    json_object_new_boolean(e->q->adm.active));
	json_object_object_add(o, "number", json_object_new_int64(number));
	json_object_object_add(o, "serving",
	    json_object_new_int64(st.serving));
	json_object_object_add(o, "ahead", json_object_new_int64(st.ahead));
	json_object_object_add(o, "admitted",
	    json_object_new_boolean(st.admitted));
	/* null while paused: nobody knows when the queue resumes. */
	json_object_object_add(o, "estimatedWaitSeconds", st.wait_s < 0 ?
	    NULL : json_object_new_int64(st.wait_s));
	json_object_object_add(o, "retryAfterSeconds",
	    json_object_new_int(st.retry_after_s));
	return st.retry_after_s;
}

int
body_json(struct req *r, struct json_object **out, int required)
{
	enum body_err	 be;
	const char	*ct;

	*out = NULL;
	switch ((be = req_read_body(r))) {
	case BODY_OK:
		break;
	case BODY_LENGTH_REQUIRED:
		http_error(r, 411, "length_required",
		    "A request body needs a Content-Length.");
		return -1;
	case BODY_BAD_LENGTH:
		http_error(r, 400, "invalid_content_length",
		    "Content-Length is not a plain decimal number.");
		return -1;
	case BODY_TOO_LARGE:
		http_error(r, 413, "body_too_large",
		    "The request body is larger than %lld bytes.",
		    (long long)r->cfg->max_body);
		return -1;
	case BODY_INCOMPLETE:
		http_error(r, 400, "incomplete_body",
		    "The request body is shorter than its Content-Length.");
		return -1;
	case BODY_NOMEM:
		http_error(r, 500, "internal_error", "Out of memory.");
		return -1;
	}
	if (r->bodylen == 0 && !required)
		return 0;
	ct = FCGX_GetParam("CONTENT_TYPE", r->fcgx->envp);
	if (r->bodylen > 0 && !req_is_json(ct)) {
		http_error(r, 415, "unsupported_media_type",
		    "Send the body as application/json.");
		return -1;
	}
	if ((*out = json_parse_strict(r->body, r->bodylen)) == NULL ||
	    !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		http_error(r, 400, "invalid_json",
		    "The body must be one strict JSON object.");
		return -1;
	}
	return 0;
}

char *
issue_token(struct req *r, int64_t number)
{
	const struct qentry	*e = r->qe;

	return token_sign(e->q->slug, e->secret, SECRET_LEN, number,
	    r->now_ms / 1000, e->q->token_ttl_s, 0);
}

int
admitted_now(struct req *r, int64_t number, int trusted, int *admitted)
{
	struct qentry	*e = r->qe;
	enum app_err	 er;
	int		 done;

	*admitted = 0;
	if (number > e->q->adm.last_number) {
		er = qcache_refresh(r, e, !trusted, &done);
		if (er == APP_BUSY) {
			http_busy(r);
			return -1;
		}
		if (er == APP_DB_DOWN || er == APP_DB) {
			http_db_down(r);
			return -1;
		}
		if (number > e->q->adm.last_number) {
			http_error(r, 404, "number_not_found",
			    "This number has not been issued.");
			return -1;
		}
	}
	*admitted = number <= adm_serving(&e->q->adm, r->now_ms);
	return 0;
}

enum app_err
queue_join(struct req *r, int64_t *number, int *admitted)
{
	struct qentry		*e = r->qe;
	enum app_err		 er;
	int64_t			 growth = 0;
	int			 done;

	*admitted = 0;
	er = db_queue_join(r->db, e->q->id, DB_NOW, number, admitted,
	    &growth);
	if (er == APP_NOTFOUND) {
		/* Paused (or gone): look again to say which. */
		er = qcache_refresh(r, e, 0, &done);
		if (er == APP_OK)
			return e->q->adm.active ? APP_NOTFOUND : APP_INVALID;
		return er == APP_NOTFOUND ? APP_NOTFOUND : APP_DB_DOWN;
	}
	if (er != APP_OK)
		return APP_DB_DOWN;
	/*
	 * The statement said what the row is now (number, growth term,
	 * admitted): the cache takes it without a second round trip.
	 */
	r->now_ms = db_clock_ms(r->db);
	qcache_note_join(e, *number, *admitted, growth, r->now_ms);
	return APP_OK;
}
