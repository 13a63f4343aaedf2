/*
 * token.c - the access token (an HS256 JWT signed through libjwt and
 * verified here from the raw bytes, SPEC section 5, CASES C03/C05/C07)
 * and the visitor ticket (SPEC section 4).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <jwt.h>

#include "crypto.h"
#include "jsonbody.h"
#include "log.h"
#include "token.h"

#define TTL_MAX		86400
/* Latest time claim we read: 9999-12-31T23:59:59Z.  Keeps exp + L sane. */
#define TIME_MAX	INT64_C(253402300799)
#define TICKET_MAC_LEN	16
#define TICKET_LABEL	"aq-ticket"

static const char *const reasons[TOKEN__MAX] = {
	"valid",		/* TOKEN_VALID */
	"malformed",		/* TOKEN_MALFORMED */
	"bad_alg",		/* TOKEN_BAD_ALG */
	"bad_signature",	/* TOKEN_BAD_SIGNATURE */
	"malformed_claim",	/* TOKEN_MALFORMED_CLAIM */
	"expired",		/* TOKEN_EXPIRED */
	"not_yet_valid",	/* TOKEN_NOT_YET_VALID */
	"wrong_queue",		/* TOKEN_WRONG_QUEUE */
	"wrong_issuer",		/* TOKEN_WRONG_ISSUER */
};

/*
 * The API string of reason r; a value outside the enum reads as
 * "malformed" so that nothing unknown is ever taken for valid.
 */
const char *
token_reason_str(enum token_reason r)
{
	if ((int)r < 0 || r >= TOKEN__MAX)
		return reasons[TOKEN_MALFORMED];
	return reasons[r];
}

/*
 * Build the token with libjwt, which writes the header
 * {"alg":"HS256","typ":"JWT"} itself: the claims of token_sign(), with
 * jti (NULL: none) and "bypass": true when bypass.  Returns the string
 * from jwt_encode_str(), which the caller releases with free(), or NULL.
 */
static char *
sign(const char *slug, const void *key, size_t keylen, int64_t qnr,
    int64_t now_s, int64_t ttl_s, int bypass, const char *jti)
{
	jwt_t	*jwt = NULL;
	char	*out = NULL;
	int	 er;

	if (slug == NULL || *slug == '\0' || key == NULL || keylen == 0 ||
	    keylen > INT_MAX || qnr < 0 || now_s < 0 || ttl_s < 1 ||
	    ttl_s > TTL_MAX || now_s > TIME_MAX - ttl_s ||
	    qnr > LONG_MAX || now_s + ttl_s > LONG_MAX) {
		log_warnx("token_sign: invalid arguments");
		return NULL;
	}
	if ((er = jwt_new(&jwt)) != 0) {
		errno = er;
		log_warn("jwt_new");
		return NULL;
	}
	if ((er = jwt_set_alg(jwt, JWT_ALG_HS256, key, (int)keylen)) != 0 ||
	    (er = jwt_add_grant(jwt, "iss", TOKEN_ISSUER)) != 0 ||
	    (er = jwt_add_grant(jwt, "aud", slug)) != 0 ||
	    (er = jwt_add_grant_int(jwt, "qnr", (long)qnr)) != 0 ||
	    (er = jwt_add_grant_int(jwt, "iat", (long)now_s)) != 0 ||
	    (er = jwt_add_grant_int(jwt, "exp", (long)(now_s + ttl_s))) != 0 ||
	    (jti != NULL && (er = jwt_add_grant(jwt, "jti", jti)) != 0) ||
	    (bypass && (er = jwt_add_grant_bool(jwt, "bypass", 1)) != 0)) {
		errno = er;
		log_warn("token_sign: libjwt");
		goto out;
	}
	if ((out = jwt_encode_str(jwt)) == NULL)
		log_warn("jwt_encode_str");
out:
	jwt_free(jwt);
	return out;
}

char *
token_sign(const char *slug, const void *key, size_t keylen, int64_t qnr,
    int64_t now_s, int64_t ttl_s, int bypass)
{
	char	 jti[TOKEN_JTI_MAX];

	if (slug == NULL || snprintf(jti, sizeof(jti), "%s:%lld", slug,
	    (long long)qnr) >= (int)sizeof(jti)) {
		log_warnx("token_sign: slug too long");
		return NULL;
	}
	return sign(slug, key, keylen, qnr, now_s, ttl_s, bypass,
	    bypass ? NULL : jti);
}

char *
token_sign_bypass(const char *slug, const void *key, size_t keylen,
    int64_t now_s, int64_t ttl_s, const char *jti)
{
	if (jti == NULL || strlen(jti) >= TOKEN_JTI_MAX) {
		log_warnx("token_sign_bypass: no jti");
		return NULL;
	}
	return sign(slug, key, keylen, 0, now_s, ttl_s, 1, jti);
}

/*
 * Read a time claim name of claims into *out: required says whether a
 * missing one is an error.  Returns 1 if set, 0 if absent and optional,
 * -1 when missing (and required) or not an integer in [0, TIME_MAX].
 */
static int
time_claim(struct json_object *claims, const char *name, int required,
    int64_t *out)
{
	int	 rc;

	rc = jsonbody_get_int(claims, name, 0, TIME_MAX, out);
	if (rc == 0)
		return 1;
	if (rc == -1 && !required)
		return 0;
	return -1;
}

/*
 * Whether the decoded header object names exactly HS256.  A header
 * without "alg", or with one that is not the string "HS256" byte for
 * byte (case, NUL and all), gives TOKEN_BAD_ALG.  A non-string "typ" or
 * any "crit" (we understand no extensions, RFC 7515 4.1.11) gives
 * TOKEN_MALFORMED.  Returns TOKEN_VALID when the header is acceptable.
 */
static enum token_reason
check_header(struct json_object *hdr)
{
	struct json_object	*v;
	const char		*alg;
	size_t			 alglen;

	if (!json_object_is_type(hdr, json_type_object))
		return TOKEN_MALFORMED;
	alg = jsonbody_get_str(hdr, "alg", &alglen);
	if (alg == NULL || alglen != 5 || memcmp(alg, "HS256", 5) != 0)
		return TOKEN_BAD_ALG;
	if (json_object_object_get_ex(hdr, "typ", &v) &&
	    !json_object_is_type(v, json_type_string))
		return TOKEN_MALFORMED;
	if (json_object_object_get_ex(hdr, "crit", NULL))
		return TOKEN_MALFORMED;
	return TOKEN_VALID;
}

/*
 * The claims checks of token_verify(), in the order its contract gives,
 * on the parsed payload.  Fills *out on TOKEN_VALID.
 */
static enum token_reason
check_claims(struct json_object *claims, const char *slug, int64_t now_s,
    int64_t leeway_s, struct token_claims *out)
{
	struct json_object	*v;
	const char		*iss, *aud, *jti;
	size_t			 isslen, audlen, jtilen = 0;
	int64_t			 qnr, iat, exp, nbf;
	int			 has_nbf, bypass = 0;

	if (!json_object_is_type(claims, json_type_object))
		return TOKEN_MALFORMED;
	iss = jsonbody_get_str(claims, "iss", &isslen);
	aud = jsonbody_get_str(claims, "aud", &audlen);
	if (iss == NULL || aud == NULL)
		return TOKEN_MALFORMED_CLAIM;
	/* jti is optional and not checked: kept when it fits. */
	jti = jsonbody_get_str(claims, "jti", &jtilen);
	if (jsonbody_get_int(claims, "qnr", 0, INT64_MAX, &qnr) != 0 ||
	    time_claim(claims, "iat", 1, &iat) != 1 ||
	    time_claim(claims, "exp", 1, &exp) != 1 ||
	    (has_nbf = time_claim(claims, "nbf", 0, &nbf)) == -1)
		return TOKEN_MALFORMED_CLAIM;
	if (json_object_object_get_ex(claims, "bypass", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return TOKEN_MALFORMED_CLAIM;
		bypass = json_object_get_boolean(v) ? 1 : 0;
	}
	if (isslen != strlen(TOKEN_ISSUER) ||
	    memcmp(iss, TOKEN_ISSUER, isslen) != 0)
		return TOKEN_WRONG_ISSUER;
	if (slug == NULL || audlen != strlen(slug) ||
	    memcmp(aud, slug, audlen) != 0)
		return TOKEN_WRONG_QUEUE;
	if (now_s >= exp + leeway_s)
		return TOKEN_EXPIRED;
	if ((has_nbf && now_s < nbf - leeway_s) || iat > now_s + leeway_s)
		return TOKEN_NOT_YET_VALID;
	if (out != NULL) {
		out->qnr = qnr;
		out->iat = iat;
		out->exp = exp;
		out->bypass = bypass;
		out->jti[0] = '\0';
		if (jti != NULL && jtilen < sizeof(out->jti) &&
		    memchr(jti, '\0', jtilen) == NULL) {
			memcpy(out->jti, jti, jtilen);
			out->jti[jtilen] = '\0';
		}
	}
	return TOKEN_VALID;
}

/*
 * See token.h for the order of the checks.  libjwt is not used here:
 * jwt_decode() reads the algorithm from the token itself and checks no
 * claims, so the compact form is split, decoded and parsed by hand with
 * crypto_b64url_decode() and jsonbody_parse_strict().
 */
enum token_reason
token_verify(const char *token, size_t len, const char *slug,
    const void *key, size_t keylen, int64_t now_s, int64_t leeway_s,
    struct token_claims *out)
{
	unsigned char		 hbuf[TOKEN_MAX], pbuf[TOKEN_MAX];
	unsigned char		 sig[TOKEN_MAX];
	uint8_t			 mac[HMAC_LEN];
	struct json_object	*hdr = NULL, *claims = NULL;
	const char		*dot1 = NULL, *dot2 = NULL;
	size_t			 i, hlen, plen, slen, dots;
	int64_t			 hn, pn, sn;
	enum token_reason	 r;

	if (token == NULL || len == 0 || len > TOKEN_MAX)
		return TOKEN_MALFORMED;
	for (i = 0, dots = 0; i < len; i++) {
		unsigned char c = (unsigned char)token[i];

		if (c == '.') {
			if (++dots == 1)
				dot1 = token + i;
			else
				dot2 = token + i;
		} else if (!((c >= 'A' && c <= 'Z') ||
		    (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_'))
			return TOKEN_MALFORMED;
	}
	if (dots != 2)
		return TOKEN_MALFORMED;
	hlen = (size_t)(dot1 - token);
	plen = (size_t)(dot2 - dot1 - 1);
	slen = len - hlen - plen - 2;
	if (hlen == 0 || plen == 0)
		return TOKEN_MALFORMED;
	if ((hn = crypto_b64url_decode(token, hlen, hbuf, sizeof(hbuf))) <= 0 ||
	    (pn = crypto_b64url_decode(dot1 + 1, plen, pbuf,
	    sizeof(pbuf))) <= 0 ||
	    (sn = crypto_b64url_decode(dot2 + 1, slen, sig, sizeof(sig))) < 0)
		return TOKEN_MALFORMED;

	if ((hdr = jsonbody_parse_strict((const char *)hbuf,
	    (size_t)hn)) == NULL)
		return TOKEN_MALFORMED;
	r = check_header(hdr);
	json_object_put(hdr);
	if (r != TOKEN_VALID)
		return r;

	if (key == NULL || keylen == 0 || sn != HMAC_LEN)
		return TOKEN_BAD_SIGNATURE;
	if (crypto_hmac_sha256(key, keylen, token, hlen + 1 + plen, mac) == -1)
		return TOKEN_BAD_SIGNATURE;
	if (!crypto_ct_equal(mac, sig, HMAC_LEN))
		return TOKEN_BAD_SIGNATURE;

	if ((claims = jsonbody_parse_strict((const char *)pbuf,
	    (size_t)pn)) == NULL)
		return TOKEN_MALFORMED;
	if (leeway_s < 0)
		leeway_s = 0;
	else if (leeway_s > LEEWAY_MAX)
		leeway_s = LEEWAY_MAX;
	r = check_claims(claims, slug, now_s, leeway_s, out);
	json_object_put(claims);
	return r;
}

/*
 * The 16-byte ticket MAC of (slug, number) into mac.  Returns 0, or -1
 * when the slug is empty or longer than 255 bytes or HMAC fails.
 */
static int
ticket_mac(const void *key, size_t keylen, const char *slug, int64_t number,
    uint8_t mac[HMAC_LEN])
{
	unsigned char	 msg[sizeof(TICKET_LABEL) + 1 + 255 + 8];
	size_t		 slen, n, i;
	uint64_t	 u = (uint64_t)number;
	int		 rc;

	if (key == NULL || keylen == 0 || slug == NULL)
		return -1;
	slen = strlen(slug);
	if (slen == 0 || slen > 255)
		return -1;
	/* sizeof includes the label's NUL: that is the 0x00 separator. */
	memcpy(msg, TICKET_LABEL, sizeof(TICKET_LABEL));
	n = sizeof(TICKET_LABEL);
	msg[n++] = (unsigned char)slen;
	memcpy(msg + n, slug, slen);
	n += slen;
	for (i = 0; i < 8; i++)
		msg[n++] = (unsigned char)(u >> (56 - 8 * i));
	rc = crypto_hmac_sha256(key, keylen, msg, n, mac);
	return rc;
}

/*
 * Write the ticket of (slug, number) into out; see token.h.  Returns 0,
 * or -1 (out is then the empty string).
 */
int
token_ticket_make(const void *key, size_t keylen, const char *slug,
    int64_t number, char out[TICKET_LEN + 1])
{
	uint8_t	 mac[HMAC_LEN];
	char	*s;

	out[0] = '\0';
	if (ticket_mac(key, keylen, slug, number, mac) == -1)
		return -1;
	s = crypto_b64url_encode(mac, TICKET_MAC_LEN);
	crypto_wipe(mac, sizeof(mac));
	if (s == NULL)
		return -1;
	if (strlen(s) != TICKET_LEN) {
		free(s);
		return -1;
	}
	memcpy(out, s, TICKET_LEN + 1);
	crypto_wipe(s, TICKET_LEN);
	free(s);
	return 0;
}

/*
 * Compute the expected ticket and compare: the length is public, the
 * content is compared with crypto_ct_equal().  Returns 1 on a match, else 0.
 */
int
token_ticket_check(const void *key, size_t keylen, const char *slug,
    int64_t number, const char *ticket)
{
	char	 want[TICKET_LEN + 1];
	int	 eq;

	if (ticket == NULL)
		return 0;
	if (token_ticket_make(key, keylen, slug, number, want) == -1)
		return 0;
	eq = strnlen(ticket, TICKET_LEN + 1) == TICKET_LEN &&
	    crypto_ct_equal(want, ticket, TICKET_LEN);
	crypto_wipe(want, sizeof(want));
	return eq;
}
