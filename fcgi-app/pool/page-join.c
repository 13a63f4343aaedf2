/*
 * page-join.c - POST /queue/<slug>/join: issue the next number (the only
 * write on the visitor path) with its ticket, and say whether it is
 * admitted at once; when it is, the body carries the token too, so the
 * page needs no second request.
 */
#include "config.h"

#include <stdlib.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "extern.h"
#include "log.h"
#include "page-join.h"
#include "page-pow.h"
#include "pow-used.h"
#include "token.h"
#include "visitor.h"

void
page_join(struct req *r)
{
	struct qentry		*e = r->qe;
	struct json_object	*body = NULL, *o = NULL;
	enum url_take		 take;
	int64_t			 number = 0;
	char			 ticket[TICKET_LEN + 1], *token = NULL;
	int			 retry, admitted = 0, pow = 0;
	struct pow_challenge	 ch;
	enum http_err		 er;

	/*
	 * Another site's page may not make a visitor's browser join, and
	 * a prefetch or a request whose answer nobody reads takes nothing.
	 */
	if ((take = req_take_number(r, URL_TAKE_FETCH)) != URL_TAKE_OK) {
		http_take_refused(r, take);
		return;
	}
	if ((er = req_body_json(r, &body, 0)) != ERR_OK) {
		http_app_err(r, er);
		goto out;
	}
	/*
	 * Proof of work (queue setting): a valid, unspent solution before
	 * any number; the challenge is spent only when one is issued.
	 */
	if (e->q->pow_enabled) {
		if (page_pow_join(r, body, &ch) == -1)
			goto out;
		pow = 1;
	}
	er = visitor_join(r, &number, &admitted);
	if (pow)
		pow_used_done(&ch, er == ERR_OK);
	if (er != ERR_OK) {
		http_app_err(r, er);
		goto out;
	}
	if (token_ticket_make(e->ticket_key, TICKET_KEY_LEN, e->q->slug, number,
	    ticket) == -1) {
		log_warnx("join %s: no ticket for %lld", e->q->slug,
		    (long long)number);
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	if (admitted && (token = visitor_token(r, number)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "queue", json_object_new_string(e->q->slug));
	json_object_object_add(o, "name", json_object_new_string(e->q->name));
	json_object_object_add(o, "ticket", json_object_new_string(ticket));
	retry = visitor_status_fill(o, e, number, r->now_ms, 0,
	    admitted);
	if (admitted) {
		json_object_object_add(o, "token",
		    json_object_new_string(token));
		json_object_object_add(o, "tokenType",
		    json_object_new_string("JWT"));
		json_object_object_add(o, "expiresInSeconds",
		    json_object_new_int64(e->q->token_ttl_s));
		json_object_object_add(o, "targetUrl", e->q->target_url !=
		    NULL ? json_object_new_string(e->q->target_url) : NULL);
	}
	http_header(r, "Retry-After", "%d", retry);
	http_json(r, 200, o);
out:
	free(token);
	json_object_put(body);
	json_object_put(o);
}
