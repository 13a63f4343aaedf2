/*
 * page-pow.c - GET /queue/<slug>/pow and the join's check of a proof of
 * work (see page-pow.h).  The challenge's key derives from the master
 * key (pow_key()), so every process and host of the installation makes
 * and checks the same, also after a restart.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "extern.h"
#include "page-pow.h"
#include "pow-used.h"
#include "pow.h"

/* Seconds an entry of the single-use record outlives its challenge. */
#define USED_MARGIN_MS	5000

/*
 * A fresh challenge of the route's queue into out
 * (POW_CHALLENGE_LEN + 1 bytes).  Returns 0, or -1.
 */
static int
fresh(struct req *r, char *out)
{
	uint8_t	 key[POW_KEY_LEN];
	int	 rc = -1;

	if (pow_key(r->cfg->master_key, sizeof(r->cfg->master_key), key) ==
	    0)
		rc = pow_challenge_make(key, r->qe->q->id, r->now_ms,
		    (int)r->qe->q->pow_bits, out);
	crypto_wipe(key, sizeof(key));
	return rc;
}

/* Add a fresh challenge's members to o.  Returns 0, or -1. */
static int
add_challenge(struct req *r, struct json_object *o)
{
	char	 ch[POW_CHALLENGE_LEN + 1];

	if (fresh(r, ch) == -1)
		return -1;
	json_object_object_add(o, "challenge", json_object_new_string(ch));
	json_object_object_add(o, "bits",
	    json_object_new_int((int)r->qe->q->pow_bits));
	json_object_object_add(o, "expiresInSeconds",
	    json_object_new_int(POW_TTL_S));
	json_object_object_add(o, "algorithm",
	    json_object_new_string("sha256"));
	return 0;
}

void
page_pow(struct req *r)
{
	const struct queue	*q = r->qe->q;
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "queue", json_object_new_string(q->slug));
	json_object_object_add(o, "enabled",
	    json_object_new_boolean(q->pow_enabled != 0));
	if (q->pow_enabled && add_challenge(r, o) == -1) {
		http_app_err(r, ERR_INTERNAL);
		json_object_put(o);
		return;
	}
	http_json(r, 200, o);
	json_object_put(o);
}

void
page_pow_refuse(struct req *r, enum pow_verdict v)
{
	struct json_object	*x = json_object_new_object();

	json_object_object_add(x, "queue",
	    json_object_new_string(r->qe->q->slug));
	if (add_challenge(r, x) == -1) {
		http_app_err(r, ERR_INTERNAL);
		json_object_put(x);
		return;
	}
	/* Each refusal's row has the verdict's code (pow_code()). */
	http_app_err_with(r, http_err_by_code(pow_code(v < POW__MAX &&
	    v != POW_OK ? v : POW_INVALID)), NULL, x);
	json_object_put(x);
}

/*
 * Judge body's "pow" member (pow.h's order up to the work).  Returns the
 * verdict; on POW_OK *c is the challenge.
 */
static enum pow_verdict
judge(struct req *r, struct json_object *body, struct pow_challenge *c)
{
	struct json_object	*p, *ch, *no;
	uint8_t			 key[POW_KEY_LEN];
	enum pow_verdict	 v;

	memset(c, 0, sizeof(*c));
	if (body == NULL || !json_object_object_get_ex(body, "pow", &p))
		return POW_REQUIRED;
	/* Only challenge and nonce are read: never a hash or bits sent. */
	if (!json_object_is_type(p, json_type_object) ||
	    !json_object_object_get_ex(p, "challenge", &ch) ||
	    !json_object_object_get_ex(p, "nonce", &no) ||
	    !json_object_is_type(ch, json_type_string) ||
	    !json_object_is_type(no, json_type_string))
		return POW_MALFORMED;
	if (pow_key(r->cfg->master_key, sizeof(r->cfg->master_key), key) ==
	    -1)
		return POW_INVALID;
	v = pow_check(key, r->qe->q->id, r->now_ms,
	    json_object_get_string(ch), (size_t)json_object_get_string_len(ch),
	    json_object_get_string(no), (size_t)json_object_get_string_len(no),
	    c);
	crypto_wipe(key, sizeof(key));
	return v;
}

int
page_pow_join(struct req *r, struct json_object *body,
    struct pow_challenge *c)
{
	enum pow_verdict	 v;

	if ((v = judge(r, body, c)) != POW_OK) {
		page_pow_refuse(r, v);
		return -1;
	}
	switch (pow_used_reserve(c, c->issued_ms + (int64_t)POW_TTL_S * 1000 +
	    USED_MARGIN_MS, r->now_ms)) {
	case POW_USED_FRESH:
		return 0;
	case POW_USED_SPENT:
		page_pow_refuse(r, POW_USED);
		return -1;
	case POW_USED_FULL:
		break;
	}
	http_app_err(r, ERR_BUSY);
	return -1;
}
