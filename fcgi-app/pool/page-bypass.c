/*
 * page-bypass.c - a visitor redeems a VIP bypass code (see
 * page-bypass.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "bypass.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "extern.h"
#include "instance.h"
#include "jsonbody.h"
#include "log.h"
#include "page-bypass.h"
#include "token.h"

/* The client address the failures are counted by ("" when none). */
static const char *
client_addr(const struct req *r)
{
	const char	*a = req_remote_addr(r);

	return a != NULL && strlen(a) < 64 ? a : "";
}

/*
 * A bypass token for the route's queue: its own jti (the queue's slug,
 * "bypass" and 128 random bits), the queue's token lifetime.  Returns
 * the JWT (caller frees) or NULL (logged).
 */
static char *
bypass_token(struct req *r)
{
	const struct qentry	*e = r->qe;
	uint8_t			 raw[16];
	char			*rnd, jti[TOKEN_JTI_MAX], *tok;

	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (rnd = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return NULL;
	snprintf(jti, sizeof(jti), "%s:bypass:%s", e->q->slug, rnd);
	free(rnd);
	tok = token_sign_bypass(e->q->slug, e->secret, SECRET_LEN,
	    r->now_ms / 1000, e->q->token_ttl_s, jti);
	if (tok != NULL)
		instance_token_issued(e->q->id);
	return tok;
}

/*
 * The code did not redeem: look up why (the same query whatever the
 * reason), count the failure for addr and audit it with the reason.
 * Best effort: errors are logged, the answer stays the same.
 */
static void
refused(struct req *r, const uint8_t hash[BYPASS_HASH_LEN], const char *addr)
{
	struct bypass_code	 c;
	const char		*why = "unknown";
	int			 found = 0;

	if (db_bypass_why(r->db, r->qe->q->id, hash, &c, &found) != APP_OK)
		found = 0;
	if (found)
		why = bypass_state(&c);
	if (strcmp(why, "active") == 0)
		why = "raced";	/* taken up by others meanwhile */
	if (db_bypass_fail(r->db, addr) != APP_OK ||
	    bypass_audit_refused(r->db, found ? &c : NULL, r->qe->q->id,
	    r->qe->q->slug, why, addr) != APP_OK)
		log_warnx("bypass %s: a refusal was not recorded",
		    r->qe->q->slug);
	(void)db_bypass_fail_purge(r->db, r->cfg->bypass_window_s * 1000);
}

enum bypass_visit
page_bypass_redeem(struct req *r, const char *code, size_t len, char **token,
    int64_t *retry_s)
{
	uint8_t		 hash[BYPASS_HASH_LEN];
	const char	*addr = client_addr(r);
	int64_t		 n, oldest, now, win = r->cfg->bypass_window_s * 1000;
	int		 taken = 0;
	enum app_err	 er;

	*token = NULL;
	*retry_s = 0;
	/* The throttle first, the same for every code, valid or not. */
	er = db_bypass_fail_count(r->db, addr, win, &n, &oldest, &now);
	if (er != APP_OK)
		return BYPASS_VISIT_DOWN;
	if (n >= r->cfg->bypass_failures) {
		*retry_s = (oldest + win - now + 999) / 1000;
		if (*retry_s < 1)
			*retry_s = 1;
		return BYPASS_VISIT_THROTTLED;
	}
	if (bypass_hash(code, len, hash) == -1)
		return BYPASS_VISIT_ERROR;
	/* A write on the visitor path: within the pool's write slots. */
	if (writers_enter() != APP_OK)
		return BYPASS_VISIT_BUSY;
	er = db_bypass_redeem(r->db, r->qe->q->id, hash, &taken);
	if (er == APP_OK && !taken)
		refused(r, hash, addr);
	if (!db_inflight(r->db))
		writers_leave();
	if (er != APP_OK)
		return BYPASS_VISIT_DOWN;
	if (!taken)
		return BYPASS_VISIT_REFUSED;
	log_info("bypass %s: a code redeemed from %s", r->qe->q->slug, addr);
	if ((*token = bypass_token(r)) == NULL)
		return BYPASS_VISIT_ERROR;
	return BYPASS_VISIT_OK;
}

void
page_bypass(struct req *r)
{
	struct qentry		*e = r->qe;
	struct json_object	*body = NULL, *o;
	enum http_err		 he;
	enum url_take		 take;
	const char		*code;
	size_t			 len = 0;
	char			*tok = NULL;
	int64_t			 retry;

	/* Another site's page, or a prefetch, redeems nothing. */
	if ((take = req_take_number(r, URL_TAKE_FETCH)) != URL_TAKE_OK) {
		http_take_refused(r, take);
		return;
	}
	if ((he = req_body_json(r, &body, 1)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	code = jsonbody_get_str(body, "code", &len);
	if (code == NULL) {
		http_app_errf(r, ERR_INVALID_BODY, "The body must be "
		    "{\"code\": \"...\"} with the code as a string.");
		goto out;
	}
	if (!adm_active_at(&e->q->adm, r->now_ms)) {
		http_app_errf(r, ERR_QUEUE_PAUSED, "This waiting room is "
		    "paused: nobody is admitted right now.");
		goto out;
	}
	switch (page_bypass_redeem(r, code, len, &tok, &retry)) {
	case BYPASS_VISIT_OK:
		break;
	case BYPASS_VISIT_REFUSED:
		http_app_err(r, ERR_INVALID_CODE);
		goto out;
	case BYPASS_VISIT_THROTTLED:
		http_header(r, "Retry-After", "%lld", (long long)retry);
		http_app_errf(r, ERR_TOO_MANY_ATTEMPTS, "Too many codes that "
		    "admit nobody came from this address: wait and try "
		    "again.");
		goto out;
	case BYPASS_VISIT_BUSY:
		http_app_err(r, ERR_BUSY);
		goto out;
	case BYPASS_VISIT_DOWN:
		http_app_err(r, ERR_DB_DOWN);
		goto out;
	default:
		http_app_err(r, ERR_INTERNAL);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "queue", json_object_new_string(e->q->slug));
	json_object_object_add(o, "token", json_object_new_string(tok));
	json_object_object_add(o, "tokenType", json_object_new_string("JWT"));
	json_object_object_add(o, "expiresInSeconds",
	    json_object_new_int64(e->q->token_ttl_s));
	json_object_object_add(o, "targetUrl", e->q->target_url != NULL ?
	    json_object_new_string(e->q->target_url) : NULL);
	json_object_object_add(o, "bypass", json_object_new_boolean(1));
	http_json(r, 200, o);
	json_object_put(o);
out:
	if (tok != NULL)
		crypto_wipe(tok, strlen(tok));
	free(tok);
	json_object_put(body);
}
