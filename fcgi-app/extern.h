/*
 * extern.h - internal interfaces of the FastCGI program (aqueue-fcgi):
 * the request, the response writer, the queue cache, HTML and templates.
 */
#ifndef EXTERN_H
#define EXTERN_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcgiapp.h>

#include "admission.h"
#include "aqueue.h"
#include "db.h"
#include "principal.h"
#include "urlcheck.h"

struct admin_session;
struct cfg;
struct json_object;

/* A growable byte buffer for response bodies. */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* Append bytes / a string / formatted text.  Exit on out of memory. */
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_puts(struct buf *, const char *);
void	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 buf_free(struct buf *);

enum method {
	METHOD_GET,
	METHOD_HEAD,
	METHOD_POST,
	METHOD_PATCH,
	METHOD_DELETE,
	METHOD_OPTIONS,
	METHOD_OTHER,
	METHOD__MAX
};

/* Query-string inputs, declared before any handler sees them. */
enum field {
	FIELD_NUMBER,	/* "number": a waiting number */
	FIELD_TOKEN,	/* "token": an access token to verify */
	FIELD_RETURN,	/* "return": a return URL */
	FIELD_CODE,	/* "code": a VIP bypass code (not yet used) */
	FIELD_LANG,	/* "lang": the page's language, chosen by the visitor */
	FIELD_LIMIT,	/* "limit": admin lists, rows per page */
	FIELD_CURSOR,	/* "cursor": admin lists, the page after */
	FIELD_ACTOR,	/* "actor": audit filter */
	FIELD_ACTION,	/* "action": audit filter */
	FIELD_SINCE,	/* "since": audit filter, Unix ms */
	FIELD_UNTIL,	/* "until": audit filter, Unix ms */
	FIELD_QUEUE,	/* "queue": console audit filter, a slug */
	FIELD__MAX
};

enum field_state {
	FIELD_ABSENT = 0,	/* not in the query */
	FIELD_OK,		/* once, decoded, no NUL, not too long */
	FIELD_BAD		/* repeated, NUL byte, or over its limit */
};

struct field_val {
	enum field_state	 state;
	char			*val;	/* decoded, when FIELD_OK */
	size_t			 len;
};

/* A token bucket (qcache.c): tokens left, and when last refilled. */
struct qbucket {
	double	 tokens;
	int64_t	 at_ms;
};

/* A queue as the cache holds it, with its secrets opened. */
struct qentry {
	char			 slug[SLUG_MAX + 1];
	struct queue		*q;		/* the row; NULL: slot free */
	struct shop_domains	 domains;	/* parsed shop domains */
	char			 secret[SECRET_LEN + 1];
	uint8_t			 ticket_key[TICKET_KEY_LEN];
	int64_t			 loaded_ms;	/* full row read at */
	int64_t			 state_ms;	/* admission state read at */
	int64_t			 issued;	/* highest number this
						   process issued */
	int64_t			 used_ms;	/* last use, for eviction */
	int64_t			 retry_ms;	/* no re-read before (failed) */
	uint64_t		 retry_answers;	/* ... unless db_answers()
						   moved on from this */
	struct qbucket		 forced;	/* this queue's forced reads */
	uint8_t			 draw_seed[32];	/* the opening's draw seed */
	int			 have_draw_seed;	/* draw_seed is set */
};

/* Bytes of an install's URL prefix ("/warteraum"), with the NUL. */
#define REQ_BASE_MAX	128

/* One request being answered. */
struct req {
	FCGX_Request		*fcgx;
	const struct cfg	*cfg;
	struct db		*db;
	enum method		 method;
	const char		*method_name;
	char			 path[512];	/* routed on: see req_path() */
	const char		*origin;	/* HTTP_ORIGIN or NULL */
	const char		*accept;	/* HTTP_ACCEPT or NULL */
	int64_t			 now_ms;
	struct field_val	 fields[FIELD__MAX];
	char			*body;		/* NUL-terminated copy */
	size_t			 bodylen;
	struct qentry		*qe;		/* the route's queue */
	struct buf		 hdrs;		/* extra response headers */
	int			 responded;
	int			 stale;		/* qe could not be re-read */
	int			 status;	/* HTTP status sent, or 0 */
	struct admin_session	*session;	/* console session, or NULL */
	struct principal	 who;		/* admin routes: who asks */
	char			 arg[SLUG_MAX + 1];	/* the route's
					   ":name" segment, or "" */
	char			 base[REQ_BASE_MAX];	/* URL prefix or "" */
};

/* req.c */
/*
 * Fill *r from the FastCGI parameters of fr: method, path, origin, and
 * the declared query fields (undeclared ones dropped).  Can't fail;
 * a path too long for r->path leaves it empty (then: 404).
 */
void	 req_init(struct req *r, FCGX_Request *fr, const struct cfg *,
	    struct db *);
/*
 * Append static-url as an HTML attribute value: a relative one ("static")
 * is under the install's prefix (r->base + "/static"), whatever page
 * links it, so that the room and the console under /warteraum/admin/...
 * both find /warteraum/static; an absolute path or URL as it is.
 */
void	 req_static_url(struct buf *out, const struct req *r);
/* Release what req_init and the handlers allocated. */
void	 req_free(struct req *r);
/*
 * The path a request is routed on, into buf of size sz, derived by
 * req_route_path() from fr's parameters and the base-path set with
 * req_set_base_path(); empty when it does not fit (then: 404).
 * Can't fail.
 */
void	 req_path(FCGX_Request *fr, char *buf, size_t sz);

/*
 * The parameters a web server may put the request's path in (CGI/1.1,
 * RFC 3875 section 4.1.5 and 4.1.13; REQUEST_URI and lighttpd's
 * REDIRECT_URI are common extensions).  NULL: not sent.
 */
struct req_paths {
	const char	*request_uri;	/* as the client sent it, raw */
	const char	*redirect_uri;	/* lighttpd: the rewritten URI */
	const char	*script_name;
	const char	*path_info;	/* decoded */
};

/*
 * Derive the route path and the install's URL prefix from p, the same
 * way behind every server.  With base_path set (the "base-path" key,
 * e.g. "/warteraum"; "" or NULL: unset) and REQUEST_URI beginning with
 * it at a segment boundary, the route is the rest of REQUEST_URI and the
 * prefix is base_path.  Otherwise the route is the first of REQUEST_URI,
 * REDIRECT_URI, SCRIPT_NAME + PATH_INFO and PATH_INFO (each up to '?')
 * whose first segment is one the program answers under (queue, api,
 * admin, metrics), else REQUEST_URI (then: 404); the prefix is what
 * REQUEST_URI holds before that route, when it ends with it and is a
 * plain path (see req_base_valid), else "".  path gets the route (size
 * psz), base the prefix (size bsz).  Returns 0, or -1 when the route
 * did not fit (path is then "").  Can't fail otherwise.
 */
int	 req_route_path(const struct req_paths *p, const char *base_path,
	    char *path, size_t psz, char *base, size_t bsz);

/*
 * Whether s[0..n) may be an install's URL prefix: "/" followed by
 * segments of letters, digits and "-._~" separated by single "/", no
 * "." or ".." segment, no trailing "/", fewer than REQ_BASE_MAX bytes.
 * It is written into links and Location headers, so nothing else (no
 * "//host", no quotes) gets through.  Returns 1 or 0.
 */
int	 req_base_valid(const char *s, size_t n);

/*
 * Set the configured URL prefix (the "base-path" key; "" for none) that
 * req_path() and req_init() use (copied; one longer than REQ_BASE_MAX
 * counts as none).  Can't fail.
 */
void	 req_set_base_path(const char *s);
/* The method named m (REQUEST_METHOD; NULL gives METHOD_OTHER). */
enum method req_method_of(const char *m);

/*
 * Decode the query string qs into fields[] by the declared names (see
 * enum field); values are percent-decoded once ('+' is a space).  A
 * field given twice, or holding a NUL byte, or longer than 16 KiB, is
 * FIELD_BAD.  Exposed for the unit tests.  Can't fail.
 */
void	 req_parse_query(const char *qs, struct field_val fields[FIELD__MAX]);

/* Outcome of reading a request body (CASES C22). */
enum body_err {
	BODY_OK = 0,
	BODY_LENGTH_REQUIRED,	/* 411: bytes present, CONTENT_LENGTH absent */
	BODY_BAD_LENGTH,	/* 400: CONTENT_LENGTH not a plain decimal */
	BODY_TOO_LARGE,		/* 413: over max-body, nothing read */
	BODY_INCOMPLETE,	/* 400: fewer bytes than announced */
	BODY_NOMEM		/* 500 */
};

/*
 * Read the body per CONTENT_LENGTH: exactly that many bytes (extra ones
 * are never read), at most max bytes.  Without CONTENT_LENGTH the body
 * must be empty.  The pure decision on the header value is
 * req_content_length(); this function does the I/O on FastCGI stdin.
 */
enum body_err req_read_body(struct req *r);

/*
 * Judge a CONTENT_LENGTH value (NULL or "" = absent) against max.
 * Returns BODY_OK with *len set (0 when absent), BODY_BAD_LENGTH or
 * BODY_TOO_LARGE.  Accepts only digits, no sign, no spaces, no leading
 * zeros, at most max.  Can't fail.
 */
enum body_err req_content_length(const char *v, int64_t max, int64_t *len,
	    int *absent);

/*
 * Whether the request's CONTENT_TYPE is application/json, optionally
 * with parameters ("; charset=utf-8"), case-insensitive.  Returns 1/0.
 */
int	 req_is_json(const char *content_type);

/*
 * Fill *m with the request's Origin, fetch metadata and purpose headers,
 * its Host, its scheme ("https" when HTTPS is on or REQUEST_SCHEME says
 * so, else "http") and whether it is a HEAD.  The strings belong to the
 * request.  Can't fail.
 */
void	 req_fetch_meta(const struct req *r, struct fetch_meta *m);

/*
 * Whether this request may take a number of its route's queue, reached
 * as kind: url_take_number() over its fetch metadata and the queue's
 * shop domains.  Every path that takes a number asks this first, at the
 * point where it would take one (routes marked RF_TAKES_NUMBER in
 * routes.c).  Returns the verdict (URL_TAKE_FOREIGN without a queue).
 */
enum url_take req_take_number(const struct req *r, enum url_take_kind kind);

/* http.c */
/*
 * Add one response header line.  Values must not hold CR or LF: such a
 * header is dropped (logged).  Call before the response is sent.
 */
void	 http_header(struct req *, const char *name, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/*
 * Send a complete response: Status, Content-Type, security headers,
 * Cache-Control: no-store, the added headers, then body (skipped for
 * HEAD).  status is the HTTP status code; ctype may be NULL (no body).
 */
void	 http_send(struct req *, int status, const char *ctype,
	    const void *body, size_t len);
/* Send a JSON value (not released; the caller still owns it). */
void	 http_json(struct req *, int status, struct json_object *);
/*
 * Send {"error": code, "message": text}.  Every error goes through
 * here.  Returns nothing; can't fail visibly (a broken connection is
 * logged by libfcgi).
 */
void	 http_error(struct req *, int status, const char *code,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Send an error with a JSON object to merge into the body (may be NULL). */
void	 http_error_obj(struct req *, int status, const char *code,
	    const char *message, struct json_object *extra);
/* 302 to location (an absolute URL or a path we built). */
void	 http_redirect(struct req *, const char *location);
/*
 * Retry-After of a 503 is drawn at random from a range, so that clients
 * that saw the same failure do not come back in one wave: "busy" 1 or
 * 2 s, a database that does not answer 4 to 6 s (5 s +-30 %, whole
 * seconds).  The JSON body repeats it as retryAfterSeconds.
 */
#define HTTP_BUSY_RETRY_MIN_S	1
#define HTTP_BUSY_RETRY_MAX_S	2
#define HTTP_DOWN_RETRY_MIN_S	4
#define HTTP_DOWN_RETRY_MAX_S	6
/* 503 service_unavailable, for a database that does not answer. */
void	 http_db_down(struct req *);
/* 503 "busy", for paced look-ups used up. */
void	 http_busy(struct req *);
/*
 * The JSON answer of a request that may not take a number (v, from
 * req_take_number(), not URL_TAKE_OK): 403 origin_not_allowed for
 * another site's request, 403 not_deliberate for one nobody asked for
 * (prefetch, prerender, HEAD, no-cors).  Nothing is issued.
 */
void	 http_take_refused(struct req *, enum url_take v);
/*
 * A whole number of seconds drawn uniformly from [lo, hi] (lo when
 * hi <= lo, or when the random source fails).
 */
int	 http_retry_jitter(int lo, int hi);

/* qcache.c */
/*
 * The queue for slug from this process's cache, read again from the DB
 * when older than status-cache-ms.  On APP_OK *out points into the cache
 * (valid until the next qcache call).  Returns APP_NOTFOUND (also cached
 * for status-cache-ms), APP_DB_DOWN (the entry was stale and the DB does
 * not answer), APP_BUSY (a slug not cached, and this process already
 * read many unseen slugs this second: answer 503, retry), or APP_CRYPTO
 * (a secret did not open: wrong master key).
 */
enum app_err qcache_get(struct req *, const char *slug, struct qentry **out);

/*
 * Read the admission state of e again now.  With limited set (callers
 * that an anonymous client can trigger), reads are paced per process and
 * APP_BUSY says none was left this second (answer 503, retry; never
 * 404: the number may just have been issued).  *done tells whether it
 * was read.  Returns APP_OK, APP_BUSY, APP_DB_DOWN or APP_NOTFOUND.
 */
enum app_err qcache_refresh(struct req *, struct qentry *e, int limited,
	    int *done);

/*
 * This process issued number on e: status and tokens know it exists
 * without reading the row (qcache_issued()).  The cached admission state
 * is left as it was read: a join changes serving no sooner than
 * ADM_TICK_MS after it, by which time the state is read again
 * (admission.h).  Can't fail.
 */
void	 qcache_note_issued(struct qentry *e, int64_t number);

/*
 * The highest number e's queue is known to have issued: the cached L,
 * or a later number this process issued itself.  Can't fail.
 */
int64_t	 qcache_issued(const struct qentry *e);

/* Store a state just read from the DB (e.g. after a join). */
void	 qcache_set_state(struct qentry *e, const struct adm_queue *a,
	    int64_t at_ms);

/* Drop every entry (after SIGHUP). */
void	 qcache_clear(void);

/*
 * While on (a request is answered inside another one that holds a cache
 * entry), no entry is read again, emptied or given to another queue:
 * cached rows are used however old (a write waits at most half a second
 * for its slot), new queues are added, and a full cache answers
 * APP_BUSY instead of evicting.  Admission state reads
 * (qcache_refresh) still happen: they update a row in place.  Can't
 * fail.
 */
void	 qcache_freeze(int on);

/*
 * The cached entry for slug however old it is, or NULL when this process
 * never read that queue.  For answers that may come from an old row
 * while the database does not answer (status, info: SPEC section 10),
 * marked stale.  Valid until the next qcache call.
 */
struct qentry *qcache_stale(const char *slug);

/* html.c - writers named for their context. */
void	 html_raw(struct buf *, const char *);	/* our own markup only */
void	 html_text(struct buf *, const char *);	/* escapes & < > */
void	 html_attr(struct buf *, const char *);	/* also " and ' */
void	 html_url_arg(struct buf *, const char *);	/* percent-encodes */
/*
 * A query value (RFC 3986 section 3.4, as form-urlencoded parsers read
 * it): unreserved characters and "/?:@!$()*," kept, everything else
 * (notably & = + # % ;) as %XX, so a URL carried in it grows little.
 */
void	 html_query_value(struct buf *, const char *);

/* tmpl.c */
struct tmpl;
/*
 * Read template file name from dir into memory (at start-up).  Returns
 * the template, or NULL with a message logged.
 */
struct tmpl *tmpl_load(const char *dir, const char *name);
void	 tmpl_free(struct tmpl *);
/*
 * Write t to out, replacing each "@@key@@" whose key is in keys[0..n-1]
 * by calling cb(out, index, arg); the callback writes through the
 * escaping writers.  Unknown holes are written unchanged.
 */
void	 tmpl_render(struct buf *out, const struct tmpl *t,
	    const char *const *keys, size_t n,
	    void (*cb)(struct buf *, size_t, void *), void *arg);

/*
 * A registry of named templates: every file of names[0..n-1] read from
 * dir, all or nothing.  Returns the set (the caller frees it with
 * tmpl_set_free), or NULL when any file could not be read (logged), so
 * that a reload can keep its old set until a new one is complete.
 */
struct tmpl_set;
struct tmpl_set *tmpl_set_load(const char *dir, const char *const *names,
	    size_t n);
void	 tmpl_set_free(struct tmpl_set *);
/* The template called name in ts (owned by ts), or NULL if none. */
const struct tmpl *tmpl_set_get(const struct tmpl_set *ts,
	    const char *name);

/* routes.c */
/* Answer one accepted request.  Can't fail (errors become responses). */
void	 route_request(FCGX_Request *, const struct cfg *, struct db *);
/*
 * Whether fr is for a route that may write to the database: one that can
 * take a number (RF_TAKES_NUMBER: the join, the gateway, the room in
 * JSON mode) or an operator's route, decided from the same table
 * route_request() uses.  Returns 1 or 0.
 */
int	 route_writes(FCGX_Request *fr);
/*
 * Load the templates the pages need from the config's templates-dir.
 * The new set replaces the current one only once it is complete: on
 * failure the templates loaded before stay in use.  Returns 0, or -1
 * (logged).
 */
int	 routes_init(const struct cfg *);
void	 routes_free(void);

/*
 * The loaded template called name (one of the files routes_init()
 * reads, e.g. "waiting-room.html"; owned by the registry), or NULL.
 */
const struct tmpl *routes_tmpl(const char *name);

/* pool.c */
/*
 * Run the pre-forked pool on listen socket fd with config file conf
 * already loaded into *c: fork c->workers children, respawn dead ones,
 * SIGTERM/SIGINT drain and exit, SIGHUP or a change of the file re-read
 * conf and replace the children.  With workers = 0 this process answers
 * the requests itself (no master: for mod_fcgid).  Returns the exit
 * status for main().
 */
int	 pool_run(int fd, const char *conf, struct cfg *c);
/*
 * The program's argv, kept for a process without a master (workers =
 * 0) that starts again as itself when its configuration file changed.
 * Call before pool_run().  Can't fail.
 */
void	 pool_set_argv(char **argv);
/*
 * In a worker whose request waits for a database slot: wait up to ms
 * milliseconds for the next request on the listen socket and take it:
 * one that may write (a join, the gateway) is parked and answered after
 * the waiting one; any other is answered now, from a frozen cache (see
 * qcache_freeze).  Returns early, having read one post, when wake_fd
 * (an eventfd(2) semaphore, or -1 for none) is posted.  Outside a
 * worker it only waits for wake_fd.  Can't fail.
 */
void	 pool_wait(int ms, int wake_fd);

/* writers.c */
/*
 * Create the shared slots for requests inside a database write: one
 * fewer than workers (at least one), so one worker always stays free for
 * requests that need no database.  Call in the master before forking.
 * Returns 0, or -1 (logged; then there is no limit).
 */
int	 writers_init(size_t workers);
/*
 * Take a slot before a database write.  When every slot is taken,
 * waits (at most 500 ms, answering other requests meanwhile through
 * pool_wait()) for one to free up, unless the holders have all been in
 * the database for 500 ms or more (stuck: a locked row, a hanging
 * server).  Returns APP_OK (call writers_leave() after the write; a
 * write given up on keeps the slot until its statement is done: see
 * db_inflight()) or APP_BUSY (answer 503 busy with Retry-After; nothing
 * was written).  A worker that still holds its slot gets APP_OK at once.
 * Without writers_init(), always APP_OK.
 */
enum app_err writers_enter(void);
/* Give back this worker's slot, if it holds one.  Can't fail. */
void	 writers_leave(void);
/* In the master: free the slots held by the dead worker pid. */
void	 writers_reap(pid_t pid);

#endif /* EXTERN_H */
