/*
 * auth.h - who is asking, for the admin routes: an API key (Authorization:
 * Bearer qak_..., RFC 6750 section 2.1) or a console session.  Resolved
 * in one place, by the router, before an admin handler runs.
 */
#ifndef AUTH_H
#define AUTH_H

#include <stddef.h>

struct req;

/* What auth_bearer_parse() found in an Authorization value. */
enum auth_cred {
	AUTH_CRED_NONE,		/* no header, or no credentials after it */
	AUTH_CRED_BEARER,	/* a Bearer token (not yet checked) */
	AUTH_CRED_BAD		/* another scheme, or a malformed token */
};

/*
 * Parse an Authorization header value (NULL = absent) as RFC 7235
 * section 2.1 credentials of the Bearer scheme (RFC 6750 section 2.1):
 * the scheme name compared without regard to case, then one or more
 * spaces, then a b64token (ALPHA DIGIT - . _ ~ + / then "=" padding);
 * optional white space (SP, HTAB) around the whole value is dropped, none
 * inside the token is taken.  On AUTH_CRED_BEARER *tok and *toklen point
 * into value.  "Bearer" with nothing after it is AUTH_CRED_NONE (missing
 * credentials); any other scheme, or a token with other characters, is
 * AUTH_CRED_BAD.  Can't fail.
 */
enum auth_cred auth_bearer_parse(const char *value, const char **tok,
	    size_t *toklen);

/*
 * Resolve who is asking an admin route into r->who: an API key from the
 * Authorization header (req_authorization(); looked up by its SHA-256;
 * revoked keys refused; its last use recorded at most once a minute),
 * else a console session.
 * Answers the request itself and returns -1 when nobody valid asks: 401
 * with "WWW-Authenticate: Bearer" and {"error":"missing_credentials"} or
 * {"error":"invalid_api_key"}, 503 when the database does not answer.
 * Returns 0 when r->who is set.
 */
int		 auth_admin(struct req *r);

#endif /* AUTH_H */
