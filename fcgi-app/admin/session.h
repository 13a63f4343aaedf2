/*
 * session.h - the console session of a request: its cookie, its live
 * row (admin-user.h), the principal it makes, and the CSRF token a
 * change needs.  Under the console (console.c) and the admin API's
 * authentication (auth.c), which both ask here.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stddef.h>

#include "aqueue.h"

struct req;

#define SESSION_COOKIE		"aq_session"	/* the session id */
#define SESSION_CSRF_HEADER	"HTTP_X_CSRF_TOKEN"	/* X-CSRF-Token */

/*
 * The value of cookie name in the request's Cookie header into out of
 * size n (RFC 6265 section 5.4 cookie-string: "a=b; c=d"; the first
 * pair with the name).  Returns 1 when found and it fits, else 0.
 */
int	 session_cookie(const struct req *r, const char *name, char *out,
	    size_t n);

/*
 * The client's address for throttling, the session row and the audit
 * log: REMOTE_ADDR, or "" when absent or longer than ADMIN_ADDR_MAX.
 * Belongs to the request.  Can't fail.
 */
const char *session_client_addr(const struct req *r);

/*
 * Find the live session of the request's session cookie and attach it:
 * r->session (valid until the next request) and r->who (the user,
 * PRINCIPAL_USER, every queue).  Returns APP_OK, APP_NOTFOUND (no
 * cookie, or no live session: r->session NULL) or APP_DB_DOWN (the
 * database does not answer, or failed).  Sends nothing.
 */
enum app_err session_find(struct req *r);

/*
 * The session half of the admin API's authentication (auth_admin()):
 * when the request carries a live console session (session_find()),
 * r->who is the user and, for any method but GET and HEAD, the
 * session's CSRF token must be in the X-CSRF-Token header.  Returns 1
 * (r->who set), 0 (no live session: the caller answers 401), or -1
 * after answering (403 csrf_failed, 503).
 */
int	 session_api(struct req *r);

#endif /* SESSION_H */
