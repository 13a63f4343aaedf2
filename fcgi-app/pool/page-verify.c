/*
 * page-verify.c - GET /queue/<slug>/verify?token=…: server-side check of
 * an access token (signature, algorithm, issuer, audience, times).
 * Always 200 with {"valid": …}; every failure says why in "reason".
 */
#include "config.h"

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "page-verify.h"
#include "token.h"

void
page_verify(struct req *r)
{
	const struct qentry	*e = r->qe;
	struct field_val	*f = &r->fields[FIELD_TOKEN];
	struct json_object	*o = json_object_new_object();
	struct token_claims	 cl;
	enum token_reason	 why = TOKEN_MALFORMED;

	if (f->state == FIELD_OK)
		why = token_verify(f->val, f->len, e->q->slug, e->secret,
		    SECRET_LEN, r->now_ms / 1000, r->cfg->token_leeway_s,
		    &cl);
	json_object_object_add(o, "valid",
	    json_object_new_boolean(why == TOKEN_VALID));
	if (why == TOKEN_VALID) {
		json_object_object_add(o, "number",
		    json_object_new_int64(cl.qnr));
		json_object_object_add(o, "expiresAt",
		    json_object_new_int64(cl.exp));
		if (cl.bypass)
			json_object_object_add(o, "bypass",
			    json_object_new_boolean(1));
	} else
		json_object_object_add(o, "reason",
		    json_object_new_string(token_reason_str(why)));
	http_json(r, 200, o);
	json_object_put(o);
}
