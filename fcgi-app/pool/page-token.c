/*
 * page-token.c - POST /queue/<slug>/token {"number": N, "ticket": "…"
 * [, "return": url]}: exchange an admitted number for a signed access
 * token.  The ticket is checked first, so nothing about the number
 * leaks to someone who does not hold it; then admission (425 with the
 * same Retry-After as /status), then the claim window (403
 * ticket_expired: a ticket mints tokens only for a while after its
 * number was admitted).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "extern.h"
#include "jsonbody.h"
#include "page-token.h"
#include "token.h"
#include "visitor.h"

void
page_token(struct req *r)
{
	struct qentry		*e = r->qe;
	struct json_object	*body = NULL, *o = NULL, *rv;
	const char		*ticket, *ret;
	char			*target = NULL, *token = NULL;
	size_t			 len;
	int64_t			 number;
	struct adm_status	 st;
	enum http_err		 er;

	if (visitor_number_body(r, &body, &number, &ticket) == -1)
		goto out;
	if (ticket == NULL || !token_ticket_check(e->ticket_key,
	    TICKET_KEY_LEN, e->q->slug, number, ticket)) {
		http_app_err(r, ERR_INVALID_TICKET);
		goto out;
	}
	if (json_object_object_get_ex(body, "return", &rv) &&
	    !json_object_is_type(rv, json_type_null)) {
		ret = jsonbody_get_str(body, "return", &len);
		if (ret == NULL || len != strlen(ret) ||
		    (target = url_return_check(ret, &e->domains)) == NULL) {
			http_app_err(r, ERR_INVALID_RETURN);
			goto out;
		}
	}
	/* The claim rule (visitor_claim()): admitted, within its window. */
	if ((er = visitor_claim(r, number)) == ERR_NOT_ADMITTED) {
		(void)visitor_status(e, number, r->now_ms, &st);
		http_header(r, "Retry-After", "%d", st.retry_after_s);
	}
	if (er != ERR_OK) {
		http_app_err(r, er);
		goto out;
	}
	if ((token = visitor_token(r, number)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "queue", json_object_new_string(e->q->slug));
	json_object_object_add(o, "number", json_object_new_int64(number));
	json_object_object_add(o, "token", json_object_new_string(token));
	json_object_object_add(o, "tokenType", json_object_new_string("JWT"));
	json_object_object_add(o, "expiresInSeconds",
	    json_object_new_int64(e->q->token_ttl_s));
	json_object_object_add(o, "targetUrl", target != NULL ?
	    json_object_new_string(target) : e->q->target_url != NULL ?
	    json_object_new_string(e->q->target_url) : NULL);
	http_json(r, 200, o);
out:
	free(target);
	free(token);
	json_object_put(body);
	json_object_put(o);
}
