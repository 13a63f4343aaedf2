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
#include "room-tmpl.h"
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
	METHOD_PUT,
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
	uint8_t			 order_key[32];	/* the random order's
						   key (draw_order_key()) */
	/*
	 * The queue's custom template, read with the row's first room
	 * page after each read of the row (page-room.c), so that it
	 * follows every change as the row does: tmpl_read 1 once read,
	 * tmpl NULL for the default page.
	 */
	char			*tmpl;
	size_t			 tmpl_len;
	int			 tmpl_read;
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
	char			 path[512];	/* routed on: see req_peek() */
	const char		*origin;	/* HTTP_ORIGIN or NULL */
	/* X-Aqueue-Loadtest (a load test's token), or NULL */
	const char		*loadtest;
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
	int64_t			 body_max;	/* above max-body for this
						   route (bytes), or 0 */
};

/*
 * Every error a request can be answered with: one row each in http.c's
 * table (status, code, default message), answered by http_app_err() as
 * {"error": code, "message": text}.  The request layer's helpers return
 * these (ERR_OK = 0: nothing to answer); library functions return enum
 * app_err, mapped by http_err_of(), and name their failures by code
 * (http_err_by_code()).  Adding an error: a value here, its row in
 * http.c (codes are unique; test-req checks the table).
 */
enum http_err {
	ERR_OK = 0,		/* not an error */
	ERR_INTERNAL,		/* 500 internal_error */
	ERR_DB_DOWN,		/* 503 service_unavailable, Retry-After */
	ERR_BUSY,		/* 503 busy (paced look-ups used up) */
	ERR_NOT_FOUND,		/* 404 not_found: no such endpoint */
	ERR_METHOD,		/* 405 method_not_allowed (the caller adds
				   Allow) */
	ERR_LENGTH_REQUIRED,	/* 411 length_required */
	ERR_BAD_LENGTH,		/* 400 invalid_content_length */
	ERR_TOO_LARGE,		/* 413 body_too_large (says max-body) */
	ERR_INCOMPLETE,		/* 400 incomplete_body */
	ERR_MEDIA_TYPE,		/* 415 unsupported_media_type */
	ERR_INVALID_JSON,	/* 400 invalid_json */
	ERR_INVALID_UNICODE,	/* 400 invalid_unicode */
	ERR_QUEUE_NOT_FOUND,	/* 404 queue_not_found */
	ERR_NUMBER_NOT_FOUND,	/* 404 number_not_found */
	ERR_KEY_NOT_FOUND,	/* 404 key_not_found */
	ERR_NO_TARGET,		/* 404 no_target_url */
	ERR_QUEUE_PAUSED,	/* 423 queue_paused */
	ERR_NOT_ADMITTED,	/* 425 not_admitted (the caller adds
				   Retry-After) */
	ERR_TICKET_EXPIRED,	/* 403 ticket_expired */
	ERR_INVALID_TICKET,	/* 403 invalid_ticket */
	ERR_INVALID_NUMBER,	/* 400 invalid_number */
	ERR_INVALID_RETURN,	/* 400 invalid_return_url */
	ERR_ORIGIN,		/* 403 origin_not_allowed */
	ERR_NOT_DELIBERATE,	/* 403 not_deliberate */
	ERR_FORBIDDEN,		/* 403 forbidden */
	ERR_MISSING_CREDENTIALS, /* 401 missing_credentials */
	ERR_INVALID_API_KEY,	/* 401 invalid_api_key */
	ERR_INVALID_TOKEN,	/* 401 invalid_token (metrics, renew) */
	ERR_NOT_LOGGED_IN,	/* 401 not_logged_in (console) */
	ERR_CSRF,		/* 403 csrf_failed */
	ERR_INVALID_LIMIT,	/* 400 invalid_limit */
	ERR_INVALID_CURSOR,	/* 400 invalid_cursor */
	ERR_INVALID_FILTER,	/* 400 invalid_filter */
	ERR_INVALID_PERIOD,	/* 400 invalid_period (fairness) */
	ERR_MISSING_VALUE,	/* 422 missing_value */
	ERR_INVALID_VALUE,	/* 422 invalid_value */
	ERR_INVALID_SLUG,	/* 422 invalid_slug */
	ERR_QUEUE_EXISTS,	/* 409 queue_exists */
	ERR_INVALID_HEALTH_URL,	/* 422 invalid_health_url (auto-rate) */
	ERR_INVALID_RULES,	/* 422 invalid_rules (auto-rate) */
	ERR_TEST_REQUIRED,	/* 409 test_required (auto-rate) */
	ERR_SETTINGS_CHANGED,	/* 409 settings_changed (auto-rate) */
	ERR_POW_REQUIRED,	/* 428 pow_required (proof of work; the
				   caller adds a fresh challenge) */
	ERR_POW_MALFORMED,	/* 428 pow_malformed */
	ERR_CHALLENGE_INVALID,	/* 428 challenge_invalid */
	ERR_CHALLENGE_MISMATCH,	/* 428 challenge_mismatch */
	ERR_CHALLENGE_EXPIRED,	/* 428 challenge_expired */
	ERR_INSUFFICIENT_WORK,	/* 428 insufficient_work */
	ERR_CHALLENGE_USED,	/* 428 challenge_used */
	ERR_INVALID_BODY,	/* 400 invalid_body (members missing) */
	ERR_INVALID_CODE,	/* 404 invalid_code (VIP bypass code) */
	ERR_TOO_MANY_ATTEMPTS,	/* 429 too_many_attempts (the caller adds
				   Retry-After) */
	ERR_TEMPLATE_TOO_LARGE,	/* 413 template_too_large */
	ERR_INVALID_TEMPLATE,	/* 422 invalid_template (reason, line) */
	ERR_TEMPLATE_NOT_FOUND,	/* 404 template_not_found */
	ERR_RENEWAL_OFF,	/* 403 renewal_disabled (session renewal) */
	ERR_BYPASS_NO_RENEW,	/* 403 bypass_not_renewed */
	ERR_NOT_TEST_QUEUE,	/* 422 not_a_test_queue (load tests) */
	ERR_LOADTESTS_OFF,	/* 409 load_tests_unavailable */
	ERR_LOADTEST_NOT_FOUND,	/* 404 load_test_not_found */
	ERR__MAX
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
 * What a request not yet answered is routed on, as req_init() derives
 * it: its path into buf of size sz (req_route_path() from fr's
 * parameters and the base-path set with req_set_base_path(); empty when
 * it does not fit: then 404), its method and its Accept header (NULL:
 * none; belongs to fr).  Can't fail.
 */
void	 req_peek(FCGX_Request *fr, char *buf, size_t sz, enum method *m,
	    const char **accept);

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
 * req_peek() and req_init() use (copied; one longer than REQ_BASE_MAX
 * counts as none).  Can't fail.
 */
void	 req_set_base_path(const char *s);
/* The method named m (REQUEST_METHOD; NULL gives METHOD_OTHER). */
enum method req_method_of(const char *m);

/*
 * Decode the query string qs into fields[] by the declared names (see
 * enum field); values are percent-decoded once, leniently
 * (req_pct_decode()).  A
 * field given twice, or holding a NUL byte, or longer than 16 KiB, is
 * FIELD_BAD.  Exposed for the unit tests.  Can't fail.
 */
void	 req_parse_query(const char *qs, struct field_val fields[FIELD__MAX]);

/*
 * Read the body per CONTENT_LENGTH (CASES C22): exactly that many bytes
 * (extra ones are never read), at most max-body bytes, into r->body
 * (NUL-terminated) and r->bodylen.  Without CONTENT_LENGTH the body must
 * be empty.  The pure decision on the header value is
 * req_content_length(); this function does the I/O on FastCGI stdin.
 * Returns ERR_OK, ERR_LENGTH_REQUIRED (bytes without a length),
 * ERR_BAD_LENGTH, ERR_TOO_LARGE (nothing read), ERR_INCOMPLETE (fewer
 * bytes than announced, or the connection went) or ERR_INTERNAL (out
 * of memory).  Sends nothing.
 */
enum http_err req_read_body(struct req *r);

/*
 * Judge a CONTENT_LENGTH value (NULL or "" = absent) against max.
 * Returns ERR_OK with *len set (0 when absent), ERR_BAD_LENGTH or
 * ERR_TOO_LARGE.  Accepts only digits, no sign, no spaces, no leading
 * zeros, at most max.  Can't fail.
 */
enum http_err req_content_length(const char *v, int64_t max, int64_t *len,
	    int *absent);

/*
 * Read the request body (req_read_body()) and, when there is one (or
 * required is set), parse it as one strict JSON object (CASES C17) of
 * Unicode text (jsonbody_parse()).  On success returns ERR_OK with *out
 * the object (NULL for an absent, not required body; the caller
 * releases it with json_object_put).  Otherwise *out is NULL and the
 * error is req_read_body()'s, ERR_MEDIA_TYPE (not application/json),
 * ERR_INVALID_JSON or ERR_INVALID_UNICODE.  Sends nothing.
 */
enum http_err req_body_json(struct req *r, struct json_object **out,
	    int required);

/*
 * Percent-decode s[0..len) once into a new string (application/
 * x-www-form-urlencoded: '+' is a space).  Lenient (strict 0, the query
 * string): a '%' not followed by two hex digits is kept as it is, and
 * %00 gives a NUL byte.  Strict (form bodies): either makes the whole
 * value refused.  *outlen gets the decoded length, which may be less
 * than strlen() of the result when it holds a NUL.  Returns the string
 * (the caller frees it), or NULL when refused or out of memory.
 */
char	*req_pct_decode(const char *s, size_t len, int strict,
	    size_t *outlen);

/*
 * Field name of the application/x-www-form-urlencoded request body
 * (read before), decoded strictly (req_pct_decode()).  Returns a new
 * string the caller frees, or NULL when absent, given twice, holding a
 * bad escape or a NUL byte, or out of memory.
 */
char	*req_form(const struct req *r, const char *name);

/*
 * 1 when name=value is in the form body at least once (whatever its
 * value: req_form() may still refuse it), 0 when not.
 */
int	 req_form_given(const struct req *r, const char *name);

/*
 * Whether every name and value of the form body (read before) that
 * decodes strictly is well-formed UTF-8: the HTML standard's
 * application/x-www-form-urlencoded parser reads the bytes as UTF-8, and
 * anything else would be stored as it came.  Returns 1 if so (also with
 * no body), 0 if not.
 */
int	 req_form_utf8(const struct req *r);

/*
 * The request's FastCGI parameter name (CGI/1.1 meta-variables; a
 * request header X-Foo is HTTP_X_FOO), or NULL when the web server did
 * not send it.  The string belongs to the request.  Every handler reads
 * headers through here (or the named accessors below).
 */
const char *req_param(const struct req *r, const char *name);

/*
 * The Authorization header: HTTP_AUTHORIZATION, else
 * REDIRECT_HTTP_AUTHORIZATION (Apache's rewrite work-around; CASES C01);
 * an empty value counts as absent.  Never the query string or the body.
 * NULL when there is none.
 */
const char *req_authorization(const struct req *r);

/* The client's address (REMOTE_ADDR), or NULL. */
const char *req_remote_addr(const struct req *r);

/*
 * Whether the request's CONTENT_TYPE is application/json, optionally
 * with parameters ("; charset=utf-8"), case-insensitive.  Returns 1/0.
 */
int	 req_is_json(const char *content_type);
/*
 * Whether content_type is the media type type (lower case, e.g.
 * "text/html"), optionally with parameters, case-insensitive (RFC 9110
 * section 8.3.1).  Returns 1 or 0.
 */
int	 req_content_is(const char *content_type, const char *type);

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
/* 302 to location (an absolute URL or a path we built). */
void	 http_redirect(struct req *, const char *location);

/*
 * Answer err with its row: status, {"error": code, "message": the
 * default message}.  The two 503s add Retry-After, drawn at random from
 * their range (see below) and repeated as "retryAfterSeconds";
 * ERR_TOO_LARGE names the configured max-body.  ERR_OK or a value out of
 * range answers ERR_INTERNAL.  Can't fail visibly (a broken connection
 * is logged by libfcgi).
 */
void	 http_app_err(struct req *, enum http_err err);
/* http_app_err() with a message of its own (one that carries a value). */
void	 http_app_errf(struct req *, enum http_err err, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/*
 * http_app_err() with message and a "field" member naming the input at
 * fault (field NULL: none).
 */
void	 http_app_err_field(struct req *, enum http_err err,
	    const char *field, const char *message);
/*
 * http_app_err() with a message of its own (NULL: the row's) and the
 * members of extra added to the body (NULL: none; not released).
 */
void	 http_app_err_with(struct req *, enum http_err err,
	    const char *message, struct json_object *extra);
/*
 * The answer to a library function's failure er: ERR_DB_DOWN for
 * APP_DB_DOWN, ERR_BUSY for APP_BUSY, ERR_INTERNAL for anything else
 * (also APP_OK).  Callers that know more (a missing row, a refused
 * value) answer that first.
 */
enum http_err http_err_of(enum app_err er);
/*
 * The error whose code is code (e.g. a queue operation's reason,
 * qops_reason_code()), or ERR_INTERNAL when no row has it.
 */
enum http_err http_err_by_code(const char *code);
/* The status, code and default message of err's row (ERR_INTERNAL's
   for a value out of range). */
int	 http_err_status(enum http_err err);
const char *http_err_code(enum http_err err);
const char *http_err_message(enum http_err err);
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

/*
 * Fresh and stale answers of one pool agree.  qcache_seen() records
 * what entry e, just read or still fresh, says at now (ms, the
 * database's clock): its serving number and numbers issued, in the
 * pool's shared record (instance_seen()).  qcache_stale_raise() raises
 * e, about to answer stale at now, to that record: numbers issued to
 * at least the most any process read (unless e's copy still counts a
 * draw's pre-queue from them), serving to at least the highest any
 * process answered (its floor; both true lower bounds), except while
 * an opening holds the queue; a scheduled change due by now is applied
 * first (as adm_serving() would).  The next read of the row replaces
 * all of it.  Can't fail.
 */
void	 qcache_seen(const struct qentry *e, int64_t now);
void	 qcache_stale_raise(struct qentry *e, int64_t now);

/* html.c - writers named for their context. */
void	 html_raw(struct buf *, const char *);	/* our own markup only */
void	 html_text(struct buf *, const char *);	/* escapes & < > */
void	 html_attr(struct buf *, const char *);	/* also " and ' */
/*
 * Text of an operator (a queue's or a key's name) in a span of its own
 * direction (dir="auto", HTML's first-strong-character rule), so that
 * a Latin name in a right-to-left page, or an Arabic one in the
 * console, keeps its own layout; escaped as html_text().
 */
void	 html_text_auto(struct buf *, const char *);
void	 html_url_arg(struct buf *, const char *);	/* percent-encodes */
/*
 * A query value (RFC 3986 section 3.4, as form-urlencoded parsers read
 * it): unreserved characters and "/?:@!$()*," kept, everything else
 * (notably & = + # % ;) as %XX, so a URL carried in it grows little.
 */
void	 html_query_value(struct buf *, const char *);

/* custom-room.c */
struct room_tmpl_err;
/*
 * The values of a custom template's variables (enum room_var of
 * room-tmpl.h), UTF-8; NULL shows as a dash (not known yet).  live: in
 * text, the values the page's script updates are written inside
 * <span data-aq-live="wait|position|number|serving|entry">.
 */
struct custom_vals {
	const char	*v[ROOM_VAR__MAX];
	int		 live;
};
/*
 * Fill custom template html[0..len) with the values of cv onto out,
 * each variable once, escaped for its context (text: html_text; quoted
 * attribute value: html_attr).  Returns 0, or -1 (out unchanged) with
 * *err filled when the template breaks a rule of room-tmpl.h.
 */
int	 custom_room_render(struct buf *out, const char *html, size_t len,
	    const struct custom_vals *cv, struct room_tmpl_err *err);

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

/* The templates the pages use, one file each (tmpl.c names them). */
enum tmpl_id {
	TMPL_ROOM,		/* waiting-room.html: page-room.c */
	TMPL_UNAVAILABLE,	/* unavailable.html: page_unavailable() */
	TMPL_UNKNOWN,		/* unknown.html: page_room_unknown() */
	TMPL_EMBED,		/* embed.js: page_embed() */
	TMPL_ADMIN,		/* admin.html: the console's page shell */
	TMPL_CUSTOM,		/* custom-room.html: a queue's template */
	TMPL__MAX
};
/*
 * Read every template of enum tmpl_id from dir, all or nothing.
 * Returns the set (the caller frees it with tmpl_set_free, or hands it
 * to tmpl_set_use), or NULL when any file could not be read (logged),
 * so that a reload can keep its old set until a new one is complete.
 */
struct tmpl_set;
struct tmpl_set *tmpl_set_load(const char *dir);
void	 tmpl_set_free(struct tmpl_set *);
/*
 * Make ts the set tmpl_get() answers from; the set in use before is
 * freed (NULL: none left).  Can't fail.
 */
void	 tmpl_set_use(struct tmpl_set *ts);
/* Template id of the set in use (owned by the set), or NULL if none. */
const struct tmpl *tmpl_get(enum tmpl_id id);

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
 * Check the config's base-path and load the templates (tmpl_set_load())
 * and the languages (lang_load()) from its templates-dir.  They replace
 * those in use only once both are complete: on failure the ones loaded
 * before stay in use.  Returns 0, or -1 (logged).
 */
int	 routes_init(const struct cfg *);
/* Release the templates (at exit).  Can't fail. */
void	 routes_free(void);

/* pool.c */
/*
 * Run the pre-forked pool on listen socket fd with config file conf
 * already loaded into *c: fork c->workers children (workers-min to
 * workers-max with those set: elastic.h), respawn dead ones,
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
 * How a worker waits for a slot: up to ms milliseconds, returning early
 * when wake_fd (an eventfd(2) semaphore, or -1) is posted, and
 * answering other requests meanwhile (pool_wait()).
 */
typedef void (*writers_wait_fn)(int ms, int wake_fd);
/*
 * Create the shared slots for requests inside a database write: one
 * fewer than workers (at least one), so one worker always stays free for
 * requests that need no database; waiting workers call wait (the pool
 * hands its pool_wait() down here, so that writers.c never calls up
 * into the pool).  Call in the master before forking.  Returns 0, or -1
 * (logged; then there is no limit).
 */
int	 writers_init(size_t workers, writers_wait_fn wait);
/*
 * Take a slot before a database write.  When every slot is taken,
 * waits (at most 500 ms, answering other requests meanwhile through
 * the wait function of writers_init()) for one to free up, unless the
 * holders have all been in the database for 500 ms or more (stuck: a
 * locked row, a hanging server).  Returns APP_OK (call writers_leave()
 * after the write; a write given up on keeps the slot until its
 * statement is done: see db_inflight()) or APP_BUSY (answer 503 busy
 * with Retry-After; nothing was written).  A worker that still holds
 * its slot gets APP_OK at once.  Without writers_init(), always APP_OK.
 */
enum app_err writers_enter(void);
/* Give back this worker's slot, if it holds one.  Can't fail. */
void	 writers_leave(void);
/* In the master: free the slots held by the dead worker pid. */
void	 writers_reap(pid_t pid);
/*
 * In the master of an elastic pool (elastic.h): workers processes run
 * now, so one fewer slots (at least one, at most writers_init()'s) are
 * taken from here on; a slot held beyond them is given back as usual.
 * Each slot more than before wakes one waiter, if any, to take it.
 * Can't fail.
 */
void	 writers_resize(size_t workers);

#endif /* EXTERN_H */
