/*
 * routes.c - routing only: one table of (methods, path pattern, auth kind,
 * flags, handler) for every endpoint, then in this order: 404 for a path
 * no route matches, 405 (with Allow) for a method none takes, the queue
 * look-up for routes under /queue/<slug>, CORS per queue (exact origin
 * match, CASES C12; preflights answered here), dispatch.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api-admin.h"
#include "api-autorate.h"
#include "api-bypass.h"
#include "api-loadtest.h"
#include "api-template.h"
#include "aqueue.h"
#include "auth.h"
#include "cfg.h"
#include "console-autorate.h"
#include "console-bypass.h"
#include "console-loadtest.h"
#include "console-fairness.h"
#include "console-instances.h"
#include "console-users.h"
#include "console-template.h"
#include "console.h"
#include "extern.h"
#include "instance.h"
#include "lang.h"
#include "log.h"
#include "page-bypass.h"
#include "page-console.h"
#include "page-gateway.h"
#include "page-heartbeat.h"
#include "page-info.h"
#include "page-join.h"
#include "page-metrics.h"
#include "page-pow.h"
#include "page-renew.h"
#include "page-room.h"
#include "page-status.h"
#include "page-token.h"
#include "page-verify.h"
#include "statedoc.h"

/*
 * Who may call a route, checked by route_request() before the handler
 * runs.
 */
enum auth {
	AUTH_NONE,	/* public: visitor endpoints, liveness, metrics */
	AUTH_SESSION,	/* console session cookie + CSRF token:
			   console_auth() */
	AUTH_ADMIN	/* an API key or a console session: auth_admin() */
};

/* What route_request() does before the handler. */
#define RF_QUEUE	0x01	/* look up :slug, answer 404 / 503 itself */
#define RF_CORS		0x02	/* per-queue CORS, preflights answered */
#define RF_VARY_ORIGIN	0x04	/* Vary: Origin on every answer */
#define RF_STALE_OK	0x08	/* with the DB down, answer from the old row */
#define RF_WRITES	0x10	/* may write (operator changes): pool_wait() */
#define RF_NO_KEY	0x20	/* AUTH_ADMIN, but never with an API key */
/*
 * Can take a number (a write too): the handler asks req_take_number()
 * where it would take one, so that one rule decides on every such path.
 */
#define RF_TAKES_NUMBER	0x40
#define RF_QUICK	0x80	/* from the cache: db-status-timeout-ms */
/* A person opens it: an unknown queue gets a page (unknown.html). */
#define RF_PAGE		0x100
/* Its queue cannot be read: a GET goes to the room (the gateway). */
#define RF_DOWN_TO_ROOM	0x200
/* Its queue cannot be read: the unavailable page (the room). */
#define RF_DOWN_PAGE	0x400
/* Takes a number only in JSON mode (the room: page_room_is_json()). */
#define RF_JSON_TAKES	0x800
/*
 * Its form carries a custom template: the body may be as large as
 * BIG_BODY_MAX (a template of ROOM_TMPL_MAX bytes, form-encoded, each
 * byte "%XX" at worst) even when max-body is lower.
 */
#define RF_BIG_BODY	0x1000
#define BIG_BODY_MAX	(3 * ROOM_TMPL_MAX + 4096)

typedef void (*route_fn)(struct req *);

#define M(x)	(1u << (x))

/*
 * One route: a method mask, a path pattern, who may call it, what to do
 * before the handler, and the handler.  A pattern is matched segment by
 * segment; ":slug" (or any ":name") matches one non-empty segment and
 * is copied to the request's slug (an over-long one is left empty, so it
 * answers queue_not_found).  A trailing "/" on the request path is
 * ignored only for patterns that end in a ":name" (/queue/<slug>/ is the
 * room).
 * Earlier routes win, so literal paths come before patterns.
 */
struct route {
	unsigned int	 methods;
	const char	*pattern;
	enum auth	 auth;
	unsigned int	 flags;
	route_fn	 handler;
};

static void	 healthz(struct req *);

#define VISITOR	(RF_QUEUE | RF_CORS | RF_VARY_ORIGIN)
#define GH	(M(METHOD_GET) | M(METHOD_HEAD))
#define P	M(METHOD_POST)
/* Admin routes are never answered inside another request's wait. */
#define ADMIN	RF_WRITES

static const struct route routes[] = {
	{ GH, "/queue/healthz",		AUTH_NONE, 0,	    healthz },
	/* The room's page; its JSON mode takes a number (takes_number()). */
	{ GH, "/queue/:slug",		AUTH_NONE, VISITOR | RF_TAKES_NUMBER |
	    RF_PAGE | RF_DOWN_PAGE | RF_JSON_TAKES, page_room },
	{ P,  "/queue/:slug/join",	AUTH_NONE, VISITOR | RF_TAKES_NUMBER,
	    page_join },
	{ GH, "/queue/:slug/status",	AUTH_NONE, VISITOR | RF_STALE_OK,
	    page_status },
	{ P,  "/queue/:slug/token",	AUTH_NONE, VISITOR, page_token },
	/* Session renewal: a token for a token, never a number. */
	{ P,  "/queue/:slug/renew",	AUTH_NONE, VISITOR, page_renew },
	{ GH, "/queue/:slug/enter",	AUTH_NONE, VISITOR | RF_TAKES_NUMBER |
	    RF_PAGE | RF_DOWN_TO_ROOM, page_gateway },
	{ GH, "/queue/:slug/verify",	AUTH_NONE, VISITOR | RF_QUICK,
	    page_verify },
	{ GH, "/queue/:slug/info",	AUTH_NONE, VISITOR | RF_STALE_OK,
	    page_info },
	/* The operator console (console.c, page-console.c). */
	{ GH | P, "/admin/login",	AUTH_NONE, ADMIN,   console_login },
	{ P,  "/admin/logout",		AUTH_SESSION, ADMIN, console_logout },
	{ GH, "/admin/",		AUTH_SESSION, ADMIN, console_home },
	{ GH, "/admin/queues/new",	AUTH_SESSION, ADMIN,
	    console_queue_new },
	{ P,  "/admin/queues",		AUTH_SESSION, ADMIN,
	    console_queue_create },
	{ GH, "/admin/queue/:slug",	AUTH_SESSION, ADMIN, console_queue },
	{ GH | P, "/admin/queue/:slug/edit", AUTH_SESSION, ADMIN,
	    console_queue_edit },
	{ GH, "/admin/queue/:slug/live", AUTH_SESSION, ADMIN,
	    console_queue_live },
	{ GH, "/admin/queue/:slug/fairness", AUTH_SESSION, ADMIN,
	    console_queue_fairness },
	{ P,  "/admin/queue/:slug/pause", AUTH_SESSION, ADMIN,
	    console_queue_action },
	{ P,  "/admin/queue/:slug/resume", AUTH_SESSION, ADMIN,
	    console_queue_action },
	{ P,  "/admin/queue/:slug/rate", AUTH_SESSION, ADMIN,
	    console_queue_action },
	{ P,  "/admin/queue/:slug/rotate", AUTH_SESSION, ADMIN,
	    console_queue_action },
	{ GH | P, "/admin/queue/:slug/keys", AUTH_SESSION, ADMIN,
	    console_queue_keys },
	{ P,  "/admin/keys/:id/revoke", AUTH_SESSION, ADMIN,
	    console_key_revoke },
	{ GH | P, "/admin/queue/:slug/bypass", AUTH_SESSION, ADMIN,
	    console_queue_bypass },
	{ GH | P, "/admin/queue/:slug/autorate", AUTH_SESSION, ADMIN,
	    console_queue_autorate },
	{ GH | P, "/admin/queue/:slug/template", AUTH_SESSION,
	    ADMIN | RF_BIG_BODY, console_queue_template },
	{ P,  "/admin/bypass/:id/enable", AUTH_SESSION, ADMIN,
	    console_bypass_action },
	{ P,  "/admin/bypass/:id/disable", AUTH_SESSION, ADMIN,
	    console_bypass_action },
	{ P,  "/admin/bypass/:id/delete", AUTH_SESSION, ADMIN,
	    console_bypass_action },
	{ GH, "/admin/audit",		AUTH_SESSION, ADMIN, console_audit },
	/* Console users (console-users.c): the same changes as the CLI. */
	{ GH | P, "/admin/users",	AUTH_SESSION, ADMIN, console_users },
	{ P,  "/admin/users/disable",	AUTH_SESSION, ADMIN,
	    console_user_action },
	{ P,  "/admin/users/enable",	AUTH_SESSION, ADMIN,
	    console_user_action },
	{ P,  "/admin/users/password",	AUTH_SESSION, ADMIN,
	    console_user_action },
	/* Running instances (console-instances.c). */
	{ GH, "/admin/instances",	AUTH_SESSION, ADMIN,
	    console_instances },
	{ GH | P, "/admin/loadtests",	AUTH_SESSION, ADMIN,
	    console_loadtests },
	{ GH, "/admin/loadtests/:id",	AUTH_SESSION, ADMIN,
	    console_loadtest },
	{ GH, "/admin/loadtests/:id/live", AUTH_SESSION, ADMIN,
	    api_loadtest },
	{ GH, "/admin/instances/live",	AUTH_SESSION, ADMIN,
	    console_instances_live },
	{ GH, "/admin/live",		AUTH_SESSION, ADMIN,
	    console_live_list },
	/* Prometheus (page-metrics.c); its own address/token check. */
	{ GH, "/metrics",		AUTH_NONE, 0,	    page_metrics },
	/* The admin API (api-admin.c); a ":name" segment is r->arg. */
	{ GH | P, "/api/admin/queue/sites", AUTH_ADMIN, ADMIN, api_sites },
	{ GH, "/api/admin/queue/audit",	AUTH_ADMIN, ADMIN | RF_NO_KEY,
	    api_audit },
	{ GH, "/api/admin/instances",	AUTH_ADMIN, ADMIN | RF_NO_KEY,
	    api_instances },
	{ GH, "/api/admin/users",	AUTH_ADMIN, ADMIN | RF_NO_KEY,
	    api_users },
	{ GH, "/api/admin/queue/sites/:id", AUTH_ADMIN, ADMIN, api_site_get },
	{ M(METHOD_PATCH), "/api/admin/queue/sites/:id", AUTH_ADMIN, ADMIN,
	    api_site_patch },
	{ M(METHOD_DELETE), "/api/admin/queue/sites/:id", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_site_delete },
	{ P, "/api/admin/queue/sites/:id/pause", AUTH_ADMIN, ADMIN,
	    api_site_pause },
	{ P, "/api/admin/queue/sites/:id/resume", AUTH_ADMIN, ADMIN,
	    api_site_resume },
	{ P, "/api/admin/queue/sites/:id/rotate-secret", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_site_rotate },
	{ GH | P, "/api/admin/queue/sites/:id/keys", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_site_keys },
	{ GH, "/api/admin/queue/sites/:id/audit", AUTH_ADMIN, ADMIN,
	    api_site_audit },
	{ M(METHOD_DELETE), "/api/admin/queue/keys/:id", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_key_revoke },
	/* Auto-rate of a queue (api-autorate.c). */
	{ GH, "/api/admin/queue/sites/:id/autorate", AUTH_ADMIN, ADMIN,
	    api_autorate_get },
	{ M(METHOD_PATCH), "/api/admin/queue/sites/:id/autorate", AUTH_ADMIN,
	    ADMIN, api_autorate_patch },
	{ P, "/api/admin/queue/sites/:id/autorate/test", AUTH_ADMIN, ADMIN,
	    api_autorate_test },
	{ GH, "/api/admin/queue/sites/:id/autorate/log", AUTH_ADMIN, ADMIN,
	    api_autorate_log },
	/* VIP bypass codes (api-bypass.c): a console session only. */
	{ GH | P, "/api/admin/queue/sites/:id/bypass-codes", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_bypass_codes },
	{ M(METHOD_PATCH) | M(METHOD_DELETE),
	    "/api/admin/queue/bypass-codes/:id", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_bypass_code },
	/* Load tests (api-loadtest.c): a console session only. */
	{ GH | P, "/api/admin/loadtests", AUTH_ADMIN, ADMIN | RF_NO_KEY,
	    api_loadtests },
	{ GH, "/api/admin/loadtests/:id", AUTH_ADMIN, ADMIN | RF_NO_KEY,
	    api_loadtest },
	{ GH | P, "/api/admin/loadtest-schedules", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_loadtest_schedules },
	{ M(METHOD_DELETE), "/api/admin/loadtest-schedules/:id", AUTH_ADMIN,
	    ADMIN | RF_NO_KEY, api_loadtest_schedule },
	/* A queue's custom template (api-template.c): a key may too. */
	{ GH | M(METHOD_PUT) | M(METHOD_DELETE),
	    "/api/admin/queue/sites/:id/template", AUTH_ADMIN, ADMIN,
	    api_template },
	{ GH, "/api/admin/queue/sites/:id/fairness", AUTH_ADMIN, ADMIN,
	    api_fairness },
	{ GH, "/api/admin/queue/sites/:id/fairness.csv", AUTH_ADMIN, ADMIN,
	    api_fairness_csv },
	{ GH, "/queue/:slug/state.json", AUTH_NONE, VISITOR | RF_STALE_OK,
	    page_state },
	{ GH, "/queue/:slug/embed.js",	AUTH_NONE, VISITOR | RF_STALE_OK,
	    page_embed },
	{ P,  "/queue/:slug/heartbeat",	AUTH_NONE, VISITOR, page_heartbeat },
	/* A VIP bypass code redeemed (page-bypass.c); it admits. */
	{ P,  "/queue/:slug/bypass",	AUTH_NONE, VISITOR | RF_TAKES_NUMBER,
	    page_bypass },
	/* Proof of work's challenge (page-pow.c), from the cached row. */
	{ GH, "/queue/:slug/pow",	AUTH_NONE, VISITOR | RF_QUICK,
	    page_pow },
};

#define ROUTES__MAX	(sizeof(routes) / sizeof(routes[0]))

int
routes_init(const struct cfg *c)
{
	struct tmpl_set	*ts;

	if (c->base_path[0] != '\0' &&
	    !req_base_valid(c->base_path, strlen(c->base_path))) {
		log_warnx("base-path %s: want a path like /warteraum (letters, "
		    "digits, -._~ between single slashes, no trailing slash)",
		    c->base_path);
		return -1;
	}
	/* Load the new set before dropping the old one. */
	if ((ts = tmpl_set_load(c->templates_dir)) == NULL)
		return -1;
	if (lang_load(c->templates_dir) == -1) {
		tmpl_set_free(ts);
		return -1;
	}
	tmpl_set_use(ts);
	req_set_base_path(c->base_path);
	return 0;
}

void
routes_free(void)
{
	tmpl_set_use(NULL);
}

/*
 * Whether path matches pattern (see struct route); on a match a ":slug"
 * segment is copied to slug (NUL-terminated; empty when longer than
 * SLUG_MAX).  Returns 1 or 0.
 */
static int
route_match(const char *pattern, const char *path, char slug[SLUG_MAX + 1])
{
	const char	*p = pattern, *s = path;
	size_t		 pn, sn;

	for (;;) {
		if (*p == '\0')
			return *s == '\0';
		if (*p != '/' || *s != '/')
			return 0;
		p++;
		s++;
		pn = strcspn(p, "/");
		sn = strcspn(s, "/");
		if (pn >= 2 && p[0] == ':') {
			if (sn == 0)
				return 0;
			if (sn > SLUG_MAX)
				sn = 0;
			memcpy(slug, s, sn);
			slug[sn] = '\0';
			sn = strcspn(s, "/");
			/* "/queue/<slug>/" is "/queue/<slug>". */
			if (p[pn] == '\0' && s[sn] == '/' && s[sn + 1] == '\0')
				return 1;
		} else if (pn != sn || strncmp(p, s, pn) != 0)
			return 0;
		p += pn;
		s += sn;
	}
}

/*
 * Write the methods of mask m as an Allow list ("GET, HEAD") into buf of
 * size n, in enum order.  Can't fail (truncates at n).
 */
static void
allow_list(unsigned int m, char *buf, size_t n)
{
	static const char *const names[METHOD__MAX] = {
		"GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS", "PUT",
		NULL
	};
	size_t	 i, len = 0;
	int	 w;

	buf[0] = '\0';
	for (i = 0; i < METHOD__MAX; i++) {
		if (names[i] == NULL || (m & M(i)) == 0)
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
		    names[i]);
		if (w < 0 || (size_t)w >= n - len)
			return;
		len += (size_t)w;
	}
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
cors(struct req *r, const char *allow)
{
	const char	*want;
	int		 ok = url_origin_allowed(r->origin, &r->qe->domains);

	if (r->method != METHOD_OPTIONS) {
		if (ok)
			http_header(r, "Access-Control-Allow-Origin", "%s",
			    r->origin);
		return 0;
	}
	want = req_param(r, "HTTP_ACCESS_CONTROL_REQUEST_METHOD");
	if (r->origin == NULL || want == NULL) {
		http_header(r, "Allow", "%s, OPTIONS", allow);
		http_send(r, 204, NULL, NULL, 0);
		return 1;
	}
	if (!ok) {
		http_app_errf(r, ERR_ORIGIN,
		    "This origin may not call this waiting room.");
		return 1;
	}
	if (!method_listed(allow, want)) {
		http_header(r, "Allow", "%s, OPTIONS", allow);
		http_app_errf(r, ERR_METHOD, "This endpoint takes %s.", allow);
		return 1;
	}
	http_header(r, "Access-Control-Allow-Origin", "%s", r->origin);
	http_header(r, "Access-Control-Allow-Methods", "%s", allow);
	http_header(r, "Access-Control-Allow-Headers", "content-type");
	http_header(r, "Access-Control-Max-Age", "600");
	http_send(r, 204, NULL, NULL, 0);
	return 1;
}

/*
 * The queue of a route with flags could not be read (database down, or
 * too many unseen slugs this second).  A person gets a page, not JSON:
 * the gateway (RF_DOWN_TO_ROOM) sends the visitor to the waiting room
 * (new entries pause, SPEC section 10), and the waiting room
 * (RF_DOWN_PAGE) answers a small page (templates/unavailable.html, in
 * the visitor's language) that reloads itself.  API calls get 503 JSON
 * with Retry-After.
 */
static void
unavailable(struct req *r, unsigned int flags, const char *slug,
    enum app_err er)
{
	struct buf	 loc = { NULL, 0, 0 };

	if ((flags & RF_DOWN_TO_ROOM) && r->method == METHOD_GET) {
		buf_printf(&loc, "%s/queue/%s", r->base, slug);
		http_redirect(r, loc.p);
		buf_free(&loc);
		return;
	}
	if (flags & RF_DOWN_PAGE) {
		page_unavailable(r, slug);
		return;
	}
	http_app_err(r, er == APP_BUSY ? ERR_BUSY : ERR_DB_DOWN);
}

/*
 * Whether the Accept header prefers an HTML page to JSON: it names
 * text/html, and application/json not before it (a browser's navigation
 * sends "text/html,...;q=0.9" and then any type at a lower q).
 * Returns 1 or 0.
 */
static int
wants_html(const char *accept)
{
	const char	*h, *j;

	if (accept == NULL || (h = strcasestr(accept, "text/html")) == NULL)
		return 0;
	j = strcasestr(accept, "application/json");
	return j == NULL || h < j;
}

/*
 * 404 for a queue that does not exist.  A browser opening a route a
 * person opens (RF_PAGE: the waiting room, the gateway link) gets a
 * small page in the site's style of answers (the slug shown only when it
 * is a valid one, HTML-escaped); everything else gets the JSON error.
 */
static void
queue_not_found(struct req *r, unsigned int flags, const char *slug)
{
	int		 page = (flags & RF_PAGE) != 0;

	if (page)
		http_header(r, "Vary", "Accept");
	if (!page || !wants_html(r->accept)) {
		http_app_err(r, ERR_QUEUE_NOT_FOUND);
		return;
	}
	/* A page in the visitor's language (page-room.c). */
	page_room_unknown(r, slug);
}

/*
 * How long route rt may wait for the database in all (the pool's
 * connections are non-blocking, see db_nonblocking()): what answers from
 * the cache (status, info, verify, the poll document) at most
 * db-status-timeout-ms, so that it never waits behind a hanging
 * database; the rest of the visitor path (join, token, the room, the
 * gateway) db-visitor-timeout-ms, so that its 503 goes out within about
 * a second; operators 0, i.e. db-timeout for each statement.
 */
static int64_t
db_budget_ms(const struct route *rt, const struct cfg *c)
{
	if (rt->flags & (RF_STALE_OK | RF_QUICK))
		return c->db_status_timeout_ms;
	if (rt->flags & RF_QUEUE)
		return c->db_visitor_timeout_ms;
	return 0;
}

/* GET /queue/healthz: liveness, no database. */
static void
healthz(struct req *r)
{
	static const char body[] = "{\"status\":\"ok\"}";

	http_send(r, 200, "application/json; charset=utf-8", body,
	    sizeof(body) - 1);
}

/*
 * Whether a request to route rt with Accept header accept (may be NULL)
 * can take a number: the route is marked RF_TAKES_NUMBER, and one marked
 * RF_JSON_TAKES (the room) only in JSON mode (the HTML page never takes
 * one).  Returns 1 or 0.
 */
static int
takes_number(const struct route *rt, const char *accept)
{
	if (!(rt->flags & RF_TAKES_NUMBER))
		return 0;
	return !(rt->flags & RF_JSON_TAKES) || page_room_is_json(accept);
}

int
route_writes(FCGX_Request *fr)
{
	char		 path[sizeof(((struct req *)0)->path)];
	char		 slug[SLUG_MAX + 1];
	const char	*accept;
	enum method	 m;
	size_t		 i;

	req_peek(fr, path, sizeof(path), &m, &accept);
	for (i = 0; i < ROUTES__MAX; i++)
		if ((routes[i].methods & M(m)) &&
		    route_match(routes[i].pattern, path, slug))
			return (routes[i].flags & RF_WRITES) != 0 ||
			    takes_number(&routes[i], accept);
	return 0;
}

void
route_request(FCGX_Request *fr, const struct cfg *c, struct db *db)
{
	struct req		 r;
	char			 slug[SLUG_MAX + 1], allow[64];
	const struct route	*rt = NULL;
	unsigned int		 methods = 0, flags = 0;
	size_t			 i;
	enum app_err		 er;
	enum inst_ep		 ep = INST_EP_OTHER;
	struct timespec		 t0, t1;
	int64_t			 saved = 0;
	int			 timed = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	instance_request_begin();
	req_init(&r, fr, c, db);
	slug[0] = '\0';
	/* The first route whose pattern matches and takes the method. */
	for (i = 0; i < ROUTES__MAX; i++) {
		if (!route_match(routes[i].pattern, r.path, slug))
			continue;
		if (methods == 0 && (routes[i].flags & RF_VARY_ORIGIN))
			http_header(&r, "Vary", "Origin");
		methods |= routes[i].methods;
		flags |= routes[i].flags;
		if (rt == NULL && (routes[i].methods & M(r.method)))
			rt = &routes[i];
		if (ep == INST_EP_OTHER || rt == &routes[i])
			ep = instance_ep_of(routes[i].pattern);
		/* Literal paths shadow the patterns after them. */
		if (strchr(routes[i].pattern, ':') == NULL)
			break;
	}
	if (methods == 0) {
		if (strncmp(r.path, "/queue/", 7) == 0)
			http_header(&r, "Vary", "Origin");
		http_app_err(&r, ERR_NOT_FOUND);
		goto out;
	}
	allow_list(methods, allow, sizeof(allow));
	if (rt == NULL && r.method == METHOD_OPTIONS) {
		/* A preflight is answered for the route it asks about. */
		for (i = 0; i < ROUTES__MAX && rt == NULL; i++)
			if (route_match(routes[i].pattern, r.path, slug))
				rt = &routes[i];
	}
	if (rt == NULL || (r.method == METHOD_OPTIONS &&
	    !(rt->flags & RF_CORS))) {
		if (!(flags & RF_CORS))
			http_header(&r, "Allow", "%s", allow);
		else
			http_header(&r, "Allow", "%s, OPTIONS", allow);
		http_app_errf(&r, ERR_METHOD, "This endpoint takes %s.", allow);
		goto out;
	}
	/* Restored at the end: this may be answered inside a wait. */
	saved = db_deadline(db, db_budget_ms(rt, c));
	timed = 1;
	if (rt->flags & RF_QUEUE) {
		if (!db_queue_slug_valid(slug)) {
			queue_not_found(&r, rt->flags, slug);
			goto out;
		}
		er = qcache_get(&r, slug, &r.qe);
		/*
		 * Status and info keep answering from the last row read,
		 * however old, while the database does not answer (SPEC
		 * section 10).
		 */
		if ((er == APP_DB_DOWN || er == APP_DB) &&
		    (rt->flags & RF_STALE_OK) &&
		    (r.qe = qcache_stale(slug)) != NULL) {
			qcache_stale_raise(r.qe, r.now_ms);
			r.stale = 1;
			er = APP_OK;
		} else if (er == APP_OK)
			qcache_seen(r.qe, r.now_ms);
		if (er == APP_NOTFOUND) {
			queue_not_found(&r, rt->flags, slug);
			goto out;
		}
		if (er == APP_DB_DOWN || er == APP_DB || er == APP_BUSY) {
			unavailable(&r, rt->flags, slug, er);
			goto out;
		}
		if (er != APP_OK) {
			http_app_err(&r, ERR_INTERNAL);
			goto out;
		}
	}
	memcpy(r.arg, slug, sizeof(r.arg));
	if (rt->flags & RF_BIG_BODY)
		r.body_max = BIG_BODY_MAX;
	if (rt->auth == AUTH_ADMIN) {
		if (auth_admin(&r) == -1)
			goto out;
		if ((rt->flags & RF_NO_KEY) && r.who.kind == PRINCIPAL_KEY) {
			http_app_errf(&r, ERR_FORBIDDEN, "An API key cannot "
			    "do this; sign in to the console.");
			goto out;
		}
	}
	if ((rt->flags & RF_CORS) && cors(&r, allow))
		goto out;
	/* Console routes: a live session, and CSRF for changes. */
	if (rt->auth == AUTH_SESSION && !console_auth(&r))
		goto out;
	(*rt->handler)(&r);
out:
	if (timed)
		db_deadline_restore(db, saved);
	if (!r.responded)
		http_app_err(&r, ERR_INTERNAL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	instance_request_end(ep, r.status,
	    (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000);
	req_free(&r);
}
