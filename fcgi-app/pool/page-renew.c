/*
 * page-renew.c - POST /queue/<slug>/renew: session renewal.  With the
 * queue's sessionRenewal on, a valid, unexpired access token of this
 * queue (Authorization: Bearer <jwt>, RFC 6750 section 2.1, or the body
 * {"token": "<jwt>"}) is exchanged for a new one whose exp is now plus
 * the session duration (tokenTtlSeconds), signed as /token signs (HS256,
 * RFC 7519) with the same iss, aud, qnr, jti and bypass.
 *
 * Renewal off: 403 renewal_disabled, whatever the token.  A missing,
 * malformed, tampered, expired or foreign token: 401 invalid_token with
 * the reason /verify would give ("missing" for none), and a
 * WWW-Authenticate challenge (RFC 6750 section 3).  It reads no number
 * and writes nothing: no number is taken, no queue state changes, and
 * the fairness record and token counters stay as the first token left
 * them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "auth.h"
#include "cfg.h"
#include "extern.h"
#include "jsonbody.h"
#include "page-renew.h"
#include "token.h"

/*
 * The token of request r into *tok and *len (pointing into the header
 * or into body, which the caller releases): the Bearer credentials when
 * an Authorization header is sent, else the body's "token" string.
 * Returns ERR_OK (*tok NULL when there is none), or the error to answer
 * for a body that cannot be read.
 */
static enum http_err
renew_token(struct req *r, struct json_object **body, const char **tok,
    size_t *len)
{
	enum http_err	 er;

	*tok = NULL;
	*len = 0;
	switch (auth_bearer_parse(req_authorization(r), tok, len)) {
	case AUTH_CRED_BEARER:
		return ERR_OK;
	case AUTH_CRED_BAD:
		/* Another scheme: the same answer as a malformed token. */
		*tok = "";
		return ERR_OK;
	case AUTH_CRED_NONE:
		break;
	}
	if ((er = req_body_json(r, body, 0)) != ERR_OK)
		return er;
	if (*body != NULL) {
		*tok = jsonbody_get_str(*body, "token", len);
		if (*tok != NULL && *len != strlen(*tok))
			*tok = "";
	}
	return ERR_OK;
}

/* Answer 401 invalid_token with reason why.  Can't fail. */
static void
renew_refused(struct req *r, const char *why)
{
	struct json_object	*x = json_object_new_object();

	json_object_object_add(x, "reason", json_object_new_string(why));
	http_header(r, "WWW-Authenticate", "Bearer realm=\"aditus-queue\", "
	    "error=\"invalid_token\"");
	http_app_err_with(r, ERR_INVALID_TOKEN, "The token is not a valid, "
	    "unexpired token of this waiting room; \"reason\" says why.", x);
	json_object_put(x);
}

void
page_renew(struct req *r)
{
	const struct qentry	*e = r->qe;
	struct json_object	*body = NULL, *o;
	struct token_claims	 cl;
	enum token_reason	 why;
	enum http_err		 er;
	const char		*tok;
	char			*fresh;
	size_t			 len;
	int64_t			 now_s = r->now_ms / 1000;

	if (!e->q->session_renewal) {
		http_app_err(r, ERR_RENEWAL_OFF);
		return;
	}
	if ((er = renew_token(r, &body, &tok, &len)) != ERR_OK) {
		http_app_err(r, er);
		goto out;
	}
	if (tok == NULL) {
		renew_refused(r, "missing");
		goto out;
	}
	why = token_verify(tok, len, e->q->slug, e->secret, SECRET_LEN,
	    now_s, r->cfg->token_leeway_s, &cl);
	if (why != TOKEN_VALID) {
		renew_refused(r, token_reason_str(why));
		goto out;
	}
	/*
	 * A bypass code's limits (uses, expiry, disabling) hold when it is
	 * redeemed, and its pass does not name it: renewing the pass would
	 * outlive them, so it ends at its time (redeem again).
	 */
	if (cl.bypass) {
		http_app_err(r, ERR_BYPASS_NO_RENEW);
		goto out;
	}
	fresh = token_sign(e->q->slug, e->secret, SECRET_LEN, cl.qnr, now_s,
	    e->q->token_ttl_s, 0);
	if (fresh == NULL) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "queue", json_object_new_string(e->q->slug));
	json_object_object_add(o, "number", json_object_new_int64(cl.qnr));
	json_object_object_add(o, "token", json_object_new_string(fresh));
	json_object_object_add(o, "tokenType", json_object_new_string("JWT"));
	json_object_object_add(o, "expiresInSeconds",
	    json_object_new_int64(e->q->token_ttl_s));
	json_object_object_add(o, "expiresAt",
	    json_object_new_int64(now_s + e->q->token_ttl_s));
	http_header(r, "Cache-Control", "no-store");
	http_json(r, 200, o);
	json_object_put(o);
	free(fresh);
out:
	json_object_put(body);
}
