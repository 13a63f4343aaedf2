/*
 * console.h - the operator console under /admin/: log-in and log-out,
 * the session check before every console route (and the CSRF token of
 * every state-changing request), the page shell, and the pages.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stddef.h>

struct buf;
struct req;

#define CONSOLE_COOKIE		"aq_session"	/* the session id */
#define CONSOLE_LOGIN_COOKIE	"aq_login"	/* the log-in form's token */
#define CONSOLE_CSRF_FIELD	"csrf"		/* form field */
#define CONSOLE_CSRF_HEADER	"HTTP_X_CSRF_TOKEN"	/* X-CSRF-Token */

/*
 * Before a console route's handler: find the live session of the
 * request's cookie (admin-user.h) and attach it to r->session; for any
 * method but GET and HEAD, read the body and require the session's
 * CSRF token in the form field "csrf" or the X-CSRF-Token header, and
 * form text that is UTF-8.  Answers itself and returns 0 when there is
 * no session (a page: 303 to /admin/login; JSON: 401 not_logged_in), a
 * bad token (403 csrf_failed), a name or value that decodes to bytes
 * that are not UTF-8 (400 invalid_unicode) or the database does not
 * answer (503).  Returns 1 when the handler may run.
 */
int	 console_auth(struct req *r);

/*
 * The session half of the admin API's authentication (auth_admin()):
 * when the request carries a live console session cookie, set r->who to
 * the user (PRINCIPAL_USER, every queue) and, for any method but GET and
 * HEAD, require the session's CSRF token in the X-CSRF-Token header.
 * Returns 1 (r->who set), 0 (no live session: the caller answers 401),
 * or -1 after answering (403 csrf_failed, 503).
 */
int	 console_api_session(struct req *r);

/*
 * The value of cookie name in the request's Cookie header into out of
 * size n (RFC 6265 section 5.4 cookie-string: "a=b; c=d").  Returns 1
 * when found and it fits, else 0.
 */
int	 console_cookie(const struct req *r, const char *name, char *out,
	    size_t n);

/*
 * Send a console page: the shell templates/admin.html with title, the
 * navigation (with the log-out form) when logged in, extra head markup
 * (NULL: none; our own markup) and the main content body (our own
 * markup, built with the escaping writers), with status.  The markup
 * writes the console's URLs from the root (="/admin...); under a path
 * prefix (r->base) every such attribute value gets the prefix, so the
 * pages need not know it.  Escaped values cannot hold that pattern (a
 * quote is written as &quot;).
 */
void	 console_page(struct req *r, int status, const char *title,
	    const char *head, const struct buf *body);

/*
 * Answer 303 See Other to path, a console path from the root (e.g.
 * "/admin/queue/sale"), under the install's URL prefix.
 */
void	 console_redirect(struct req *r, const char *path);

/* The hidden CSRF field of the session's forms, into b. */
void	 console_csrf_field(struct req *r, struct buf *b);

/* GET and POST /admin/login; POST /admin/logout. */
void	 console_login(struct req *);
void	 console_logout(struct req *);

/* page-console.c: the queue pages. */
void	 console_home(struct req *);		/* GET /admin/ */
void	 console_queue_new(struct req *);	/* GET /admin/queues/new */
void	 console_queue_create(struct req *);	/* POST /admin/queues */
void	 console_queue(struct req *);		/* GET /admin/queue/:slug */
void	 console_queue_edit(struct req *);	/* GET/POST .../edit */
void	 console_queue_action(struct req *);	/* POST .../pause etc. */
void	 console_queue_live(struct req *);	/* GET .../live (JSON) */
void	 console_queue_keys(struct req *);	/* GET/POST .../keys */
void	 console_key_revoke(struct req *);	/* POST .../keys/:id/revoke */
void	 console_audit(struct req *);		/* GET /admin/audit */
void	 console_live_list(struct req *);	/* GET /admin/live (JSON) */

/* page-metrics.c: GET /metrics. */
void	 page_metrics(struct req *);

#endif /* CONSOLE_H */
