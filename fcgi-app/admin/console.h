/*
 * console.h - the operator console under /admin/: log-in and log-out,
 * the gate before every console route (a live session, session.h, and
 * the CSRF token of every state-changing request) and the page shell;
 * the queue pages are page-console.h's.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

struct buf;
struct req;

#define CONSOLE_LOGIN_COOKIE	"aq_login"	/* the log-in form's token */
#define CONSOLE_CSRF_FIELD	"csrf"		/* form field */

/*
 * Before a console route's handler: find the live session of the
 * request's cookie (session_find()) and attach it to r->session; for any
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
 * A short page of status saying text (escaped) as an alert, with a link
 * back to the queues, titled title ("Not done" for a refused change).
 * Can't fail (a page that cannot be built is answered 500).
 */
void	 console_refusal(struct req *r, int status, const char *title,
	    const char *text);

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

#endif /* CONSOLE_H */
