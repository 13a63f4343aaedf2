/*
 * auth.c - resolve the principal of an admin request: API keys here; the
 * console session has its marked place in auth_admin().
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "aqueue.h"
#include "auth.h"
#include "crypto.h"
#include "db.h"
#include "extern.h"
#include "log.h"
#include "principal.h"
#include "queue-ops.h"
#include "session.h"

#define KEY_TOUCH_MS	60000	/* last use written at most this often */
#define KEY_TEXT_MAX	512	/* longer Bearer tokens are not our keys */

/* Whether c is optional white space (RFC 7230 OWS: SP, HTAB). */
static int
ows(int c)
{
	return c == ' ' || c == '\t';
}

/* Whether c may be in an RFC 6750 b64token (before the "=" padding). */
static int
b64token_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~' || c == '+' || c == '/';
}

enum auth_cred
auth_bearer_parse(const char *value, const char **tok, size_t *toklen)
{
	const char	*p, *end, *t;
	size_t		 n;

	*tok = NULL;
	*toklen = 0;
	if (value == NULL)
		return AUTH_CRED_NONE;
	p = value;
	end = value + strlen(value);
	while (p < end && ows((unsigned char)*p))
		p++;
	while (end > p && ows((unsigned char)end[-1]))
		end--;
	if (p == end)
		return AUTH_CRED_NONE;
	/* auth-scheme: a token, then 1*SP. */
	n = strcspn(p, " \t");
	if (p + n > end)
		n = (size_t)(end - p);
	if (n != 6 || strncasecmp(p, "Bearer", 6) != 0)
		return AUTH_CRED_BAD;
	p += n;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return AUTH_CRED_NONE;
	/* b64token: 1*( ALPHA DIGIT - . _ ~ + / ) *"=" (RFC 6750). */
	for (t = p; t < end && b64token_char((unsigned char)*t); t++)
		continue;
	if (t == p)
		return AUTH_CRED_BAD;
	while (t < end && *t == '=')
		t++;
	if (t != end)
		return AUTH_CRED_BAD;
	*tok = p;
	*toklen = (size_t)(end - p);
	return AUTH_CRED_BEARER;
}

/*
 * 401 err (a 401 row) with the Bearer challenge (RFC 6750 section 3)
 * and message msg (NULL: the row's).  Returns -1.
 */
static int
unauthorized(struct req *r, enum http_err err, const char *msg)
{
	http_header(r, "WWW-Authenticate", "Bearer");
	if (msg == NULL)
		http_app_err(r, err);
	else
		http_app_errf(r, err, "%s", msg);
	return -1;
}

/* Fill r->who's client address from REMOTE_ADDR.  Can't fail. */
static void
who_addr(struct req *r)
{
	const char	*a = req_remote_addr(r);

	snprintf(r->who.addr, sizeof(r->who.addr), "%s", a != NULL ? a : "");
}

/*
 * Copy the UTF-8 string src into dst of cap bytes, cut at a character
 * boundary when it does not fit.  Can't fail.
 */
static void
name_copy(char *dst, size_t cap, const char *src)
{
	size_t	 n = strlen(src);

	if (n >= cap) {
		n = cap - 1;
		/* Back to the first byte of a character. */
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * Check the API key tok[0..len) and set r->who from it.  Returns 0, or
 * -1 after answering (401 invalid_api_key, 503).
 */
static int
key_check(struct req *r, const char *tok, size_t len)
{
	struct api_key	 k;
	uint8_t		 hash[KEY_HASH_LEN];
	enum app_err	 er;
	size_t		 plen = strlen(QOPS_KEY_PREFIX);

	if (len < plen || len > KEY_TEXT_MAX ||
	    strncmp(tok, QOPS_KEY_PREFIX, plen) != 0)
		return unauthorized(r, ERR_INVALID_API_KEY, NULL);
	/* Stored and looked up only as its SHA-256, never the key. */
	if (crypto_sha256(tok, len, hash) == -1) {
		http_app_err(r, ERR_INTERNAL);
		return -1;
	}
	er = db_key_by_hash(r->db, hash, &k);
	if (er == APP_DB_DOWN || er == APP_DB) {
		http_app_err(r, ERR_DB_DOWN);
		return -1;
	}
	if (er != APP_OK)
		return unauthorized(r, ERR_INVALID_API_KEY, NULL);
	if (k.revoked_ms != 0)
		return unauthorized(r, ERR_INVALID_API_KEY,
		    "This API key has been revoked.");
	if (k.last_used_ms == 0 ||
	    k.db_now_ms - k.last_used_ms >= KEY_TOUCH_MS) {
		if (db_key_touch(r->db, k.id) != APP_OK)
			log_warnx("api key %lld: last use not recorded",
			    (long long)k.id);
	}
	memset(&r->who, 0, sizeof(r->who));
	r->who.kind = PRINCIPAL_KEY;
	r->who.id = k.id;
	r->who.queue_id = k.queue_id;
	name_copy(r->who.name, sizeof(r->who.name), k.name);
	who_addr(r);
	return 0;
}

int
auth_admin(struct req *r)
{
	const char	*tok;
	size_t		 len;

	memset(&r->who, 0, sizeof(r->who));
	switch (auth_bearer_parse(req_authorization(r), &tok, &len)) {
	case AUTH_CRED_BEARER:
		return key_check(r, tok, len);
	case AUTH_CRED_BAD:
		return unauthorized(r, ERR_INVALID_API_KEY,
		    "Send the API key as \"Authorization: Bearer qak_...\".");
	case AUTH_CRED_NONE:
		break;
	}
	/*
	 * No API key: a console session may ask instead (r->who becomes
	 * the user; a change needs the session's X-CSRF-Token).
	 */
	switch (session_api(r)) {
	case 1:
		return 0;
	case -1:
		return -1;
	default:
		break;
	}
	return unauthorized(r, ERR_MISSING_CREDENTIALS, NULL);
}
