/*
 * test-token.c - unit tests for fcgi-app/lib/token.c: libjwt-signed tokens
 * verify, and every input of CASES C03, C05 and C07 (verify part) gets
 * its exact reason; the ticket matches an independent HMAC.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <jwt.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "aqueue.h"
#include "crypto.h"
#include "jsonbody.h"
#include "token.h"
#include "tap.h"

#define NOW		INT64_C(1700000000)
#define SALE_KEY	"sale-secret-0123456789abcdefghijklmnop"
#define VIP_KEY		"vip-secret-0123456789abcdefghijklmnopq"
#define TICKET_KEY	"ticket-key-for-sale"

enum sig { SIG_HS256, SIG_HS512, SIG_EMPTY, SIG_JUNK };

/*
 * Build a compact token by hand: b64url(header) "." b64url(payload) "."
 * and a signature over the first two parts made with OpenSSL's HMAC()
 * (SHA-256 or SHA-512) under key, or nothing, or 256 bytes of junk.
 * Returns a new string, to be freed.
 */
static char *
forge(const char *header, const char *payload, const char *key,
    enum sig sig)
{
	unsigned char	 mac[EVP_MAX_MD_SIZE];
	unsigned int	 maclen = 0;
	char		*h, *p, *s, *signing, *tok;

	h = crypto_b64url_encode(header, strlen(header));
	p = crypto_b64url_encode(payload, strlen(payload));
	signing = xasprintf("%s.%s", h, p);
	switch (sig) {
	case SIG_HS256:
		HMAC(EVP_sha256(), key, (int)strlen(key),
		    (unsigned char *)signing, strlen(signing), mac, &maclen);
		break;
	case SIG_HS512:
		HMAC(EVP_sha512(), key, (int)strlen(key),
		    (unsigned char *)signing, strlen(signing), mac, &maclen);
		break;
	case SIG_EMPTY:
		maclen = 0;
		break;
	case SIG_JUNK:
		memset(mac, 0x42, sizeof(mac));
		maclen = sizeof(mac);
		break;
	}
	s = crypto_b64url_encode(mac, maclen);
	tok = xasprintf("%s.%s", signing, s);
	free(h);
	free(p);
	free(s);
	free(signing);
	return tok;
}

/* The valid claims of C03/C05 for queue sale at NOW, as JSON. */
static char *
claims_ok(void)
{
	return xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"iat\":%lld,\"exp\":%lld}", (long long)NOW,
	    (long long)(NOW + 600));
}

/* Verify tok for sale with sale's key at now with leeway. */
static enum token_reason
vfy(const char *tok, int64_t now, int64_t leeway)
{
	return token_verify(tok, strlen(tok), "sale", SALE_KEY,
	    strlen(SALE_KEY), now, leeway, NULL);
}

/* Forge an HS256 token with header and payload, check its reason. */
static void
forged_is(const char *header, const char *payload, enum sig sig,
    int64_t leeway, enum token_reason want, const char *what)
{
	char	*tok = forge(header, payload, SALE_KEY, sig);

	is_str(token_reason_str(vfy(tok, NOW, leeway)),
	    token_reason_str(want), "%s", what);
	free(tok);
}

/* Every reason string of the API. */
static void
test_reason_str(void)
{
	is_str(token_reason_str(TOKEN_VALID), "valid", "reason valid");
	is_str(token_reason_str(TOKEN_MALFORMED), "malformed", "malformed");
	is_str(token_reason_str(TOKEN_BAD_ALG), "bad_alg", "bad_alg");
	is_str(token_reason_str(TOKEN_BAD_SIGNATURE), "bad_signature",
	    "bad_signature");
	is_str(token_reason_str(TOKEN_MALFORMED_CLAIM), "malformed_claim",
	    "malformed_claim");
	is_str(token_reason_str(TOKEN_EXPIRED), "expired", "expired");
	is_str(token_reason_str(TOKEN_NOT_YET_VALID), "not_yet_valid",
	    "not_yet_valid");
	is_str(token_reason_str(TOKEN_WRONG_QUEUE), "wrong_queue",
	    "wrong_queue");
	is_str(token_reason_str(TOKEN_WRONG_ISSUER), "wrong_issuer",
	    "wrong_issuer");
	is_str(token_reason_str(TOKEN__MAX), "malformed",
	    "an out-of-range reason reads as malformed");
}

/* Decode part (of len bytes) of a token and parse it as strict JSON. */
static struct json_object *
part_json(const char *part, size_t len)
{
	char	 buf[TOKEN_MAX];
	int64_t	 n;

	if ((n = crypto_b64url_decode(part, len, buf, sizeof(buf))) < 0)
		return NULL;
	return jsonbody_parse_strict(buf, (size_t)n);
}

/* libjwt-signed tokens: verify, claims, header, signature. */
static void
test_sign(void)
{
	struct token_claims	 c;
	struct json_object	*hdr, *pl;
	jwt_t			*jwt = NULL;
	uint8_t			 mac[HMAC_LEN], sig[64];
	const char		*dot1, *dot2;
	char			*tok;
	size_t			 len;

	tok = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 42, NOW, 600, 0);
	ok(tok != NULL, "token_sign gives a token");
	if (tok == NULL)
		return;
	memset(&c, 0, sizeof(c));
	is_str(token_reason_str(token_verify(tok, strlen(tok), "sale",
	    SALE_KEY, strlen(SALE_KEY), NOW, 0, &c)), "valid",
	    "the libjwt token verifies");
	is_int(c.qnr, 42, "qnr read back");
	is_int(c.iat, NOW, "iat read back");
	is_int(c.exp, NOW + 600, "exp read back");
	is_int(c.bypass, 0, "bypass read back as 0");
	is_str(c.jti, "sale:42", "jti read back (renewal keeps it)");

	/* The header is HS256 and the claims are what the SPEC lists. */
	dot1 = strchr(tok, '.');
	dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;
	ok(dot2 != NULL && strchr(dot2 + 1, '.') == NULL,
	    "the token has three parts");
	if (dot2 == NULL) {
		free(tok);
		return;
	}
	hdr = part_json(tok, (size_t)(dot1 - tok));
	is_str(jsonbody_get_str(hdr, "alg", NULL), "HS256", "header alg HS256");
	is_str(jsonbody_get_str(hdr, "typ", NULL), "JWT", "header typ JWT");
	json_object_put(hdr);
	pl = part_json(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	is_str(jsonbody_get_str(pl, "iss", NULL), "aditus-queue", "claim iss");
	is_str(jsonbody_get_str(pl, "aud", NULL), "sale", "claim aud");
	ok(pl != NULL && !json_object_object_get_ex(pl, "bypass", NULL),
	    "no bypass claim on a normal token");
	is_str(jsonbody_get_str(pl, "jti", NULL), "sale:42",
	    "claim jti = slug:number");
	json_object_put(pl);

	/* The signature is HMAC-SHA256 over "header.payload". */
	HMAC(EVP_sha256(), SALE_KEY, (int)strlen(SALE_KEY),
	    (const unsigned char *)tok, (size_t)(dot2 - tok), mac, NULL);
	len = strlen(dot2 + 1);
	is_int(crypto_b64url_decode(dot2 + 1, len, sig, sizeof(sig)), HMAC_LEN,
	    "the signature is 32 bytes");
	ok(memcmp(sig, mac, HMAC_LEN) == 0,
	    "the signature is the independent HMAC-SHA256");

	/* libjwt itself accepts it with the key (never without one). */
	is_int(jwt_decode(&jwt, tok, (const unsigned char *)SALE_KEY,
	    (int)strlen(SALE_KEY)), 0, "libjwt verifies the token");
	ok(jwt != NULL && jwt_get_alg(jwt) == JWT_ALG_HS256,
	    "libjwt sees HS256");
	jwt_free(jwt);

	is_str(token_reason_str(token_verify(tok, strlen(tok), "sale",
	    VIP_KEY, strlen(VIP_KEY), NOW, 0, NULL)), "bad_signature",
	    "another key gives bad_signature");
	is_str(token_reason_str(token_verify(tok, strlen(tok), "sale",
	    NULL, 0, NOW, 0, NULL)), "bad_signature",
	    "no key gives bad_signature");
	is_str(token_reason_str(vfy(tok, NOW + 599, 0)), "valid",
	    "valid one second before exp");
	is_str(token_reason_str(vfy(tok, NOW + 600, 0)), "expired",
	    "expired at exp");
	free(tok);

	tok = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 7, NOW, 60, 1);
	memset(&c, 0, sizeof(c));
	is_str(tok == NULL ? NULL : token_reason_str(token_verify(tok,
	    strlen(tok), "sale", SALE_KEY, strlen(SALE_KEY), NOW, 0, &c)),
	    "valid", "a bypass token verifies");
	is_int(c.bypass, 1, "bypass read back as 1");
	is_int(c.qnr, 7, "bypass token qnr");
	is_int(c.exp, NOW + 60, "bypass token exp");
	free(tok);

	/* A VIP code's token: bypass, qnr 0, the jti it was given. */
	tok = token_sign_bypass("sale", SALE_KEY, strlen(SALE_KEY), NOW, 60,
	    "sale:bypass:abc");
	memset(&c, 0, sizeof(c));
	is_str(tok == NULL ? NULL : token_reason_str(token_verify(tok,
	    strlen(tok), "sale", SALE_KEY, strlen(SALE_KEY), NOW, 0, &c)),
	    "valid", "a code's bypass token verifies");
	is_int(c.bypass, 1, "... bypass");
	is_int(c.qnr, 0, "... qnr 0: no number");
	is_str(c.jti, "sale:bypass:abc", "... its jti read back");
	if (tok != NULL) {
		const char		*d1 = strchr(tok, '.');
		const char		*d2 = d1 != NULL ? strchr(d1 + 1, '.') :
					    NULL;
		struct json_object	*jp = d2 == NULL ? NULL :
					    part_json(d1 + 1,
					    (size_t)(d2 - d1 - 1));

		is_str(jsonbody_get_str(jp, "jti", NULL), "sale:bypass:abc",
		    "... its own jti");
		json_object_put(jp);
	}
	free(tok);
	ok(token_sign_bypass("sale", SALE_KEY, strlen(SALE_KEY), NOW, 60,
	    NULL) == NULL, "no jti: refused");

	/* Two tokens for one number share the jti; another number not. */
	{
		char	*t1, *t2, *t3;
		const char *d;
		struct json_object *p1, *p2, *p3;

		t1 = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 9, NOW,
		    600, 0);
		t2 = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 9,
		    NOW + 100, 600, 0);
		t3 = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 10, NOW,
		    600, 0);
		p1 = p2 = p3 = NULL;
		if (t1 != NULL && t2 != NULL && t3 != NULL) {
			d = strchr(t1, '.') + 1;
			p1 = part_json(d, (size_t)(strchr(d, '.') - d));
			d = strchr(t2, '.') + 1;
			p2 = part_json(d, (size_t)(strchr(d, '.') - d));
			d = strchr(t3, '.') + 1;
			p3 = part_json(d, (size_t)(strchr(d, '.') - d));
		}
		is_str(jsonbody_get_str(p1, "jti", NULL), "sale:9",
		    "number 9: jti sale:9");
		is_str(jsonbody_get_str(p2, "jti", NULL), "sale:9",
		    "number 9 again, later: the same jti");
		is_str(jsonbody_get_str(p3, "jti", NULL), "sale:10",
		    "number 10: jti sale:10");
		is_str(t2 == NULL ? NULL : token_reason_str(vfy(t2, NOW + 100,
		    0)), "valid", "a token with jti verifies");
		json_object_put(p1);
		json_object_put(p2);
		json_object_put(p3);
		free(t1);
		free(t2);
		free(t3);
	}

	ok(token_sign("sale", SALE_KEY, strlen(SALE_KEY), 1, NOW, 0, 0) ==
	    NULL, "token_sign refuses ttl 0");
	ok(token_sign("sale", SALE_KEY, strlen(SALE_KEY), 1, NOW, 86401,
	    0) == NULL, "token_sign refuses ttl 86401");
	ok(token_sign("sale", NULL, 0, 1, NOW, 600, 0) == NULL,
	    "token_sign refuses no key");
	ok(token_sign(NULL, SALE_KEY, strlen(SALE_KEY), 1, NOW, 600, 0) ==
	    NULL, "token_sign refuses no slug");
}

/* CASES C03: every algorithm but exactly HS256 is bad_alg. */
static void
test_c03(void)
{
	char	*cl = claims_ok();

	forged_is("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", cl, SIG_HS256, 0,
	    TOKEN_VALID, "C03 positive control: hand-made HS256 is valid");
	forged_is("{\"alg\":\"none\",\"typ\":\"JWT\"}", cl, SIG_EMPTY, 0,
	    TOKEN_BAD_ALG, "C03 alg none, empty signature");
	forged_is("{\"alg\":\"NONE\"}", cl, SIG_EMPTY, 0, TOKEN_BAD_ALG,
	    "C03 alg NONE");
	forged_is("{\"alg\":\"None\"}", cl, SIG_EMPTY, 0, TOKEN_BAD_ALG,
	    "C03 alg None");
	forged_is("{\"alg\":\"HS512\"}", cl, SIG_HS512, 0, TOKEN_BAD_ALG,
	    "C03 alg HS512 signed with sale's secret");
	forged_is("{\"alg\":\"RS256\"}", cl, SIG_JUNK, 0, TOKEN_BAD_ALG,
	    "C03 alg RS256 with an arbitrary signature");
	/* The same kind. */
	forged_is("{\"alg\":\"none\"}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "alg none with a valid HS256 MAC");
	forged_is("{\"alg\":\"hs256\"}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "alg hs256 (case)");
	forged_is("{\"alg\":\"HS256 \"}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "alg with a trailing space");
	forged_is("{\"typ\":\"JWT\"}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "no alg");
	forged_is("{\"alg\":null}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "alg null");
	forged_is("{\"alg\":[\"HS256\"]}", cl, SIG_HS256, 0, TOKEN_BAD_ALG,
	    "alg as an array");
	forged_is("{\"alg\":\"RS256\",\"alg\":\"HS256\"}", cl, SIG_HS256, 0,
	    TOKEN_MALFORMED, "duplicate alg, last HS256: refused");
	forged_is("{\"alg\":\"HS256\",\"alg\":\"none\"}", cl, SIG_EMPTY, 0,
	    TOKEN_MALFORMED, "duplicate alg, last none: refused");
	forged_is("{\"alg\":\"HS256\\u0000\"}", cl, SIG_HS256, 0,
	    TOKEN_MALFORMED, "alg with an escaped NUL (strict parser)");
	forged_is("{\"alg\":\"HS256\",\"typ\":1}", cl, SIG_HS256, 0,
	    TOKEN_MALFORMED, "typ that is not a string");
	forged_is("{\"alg\":\"HS256\",\"crit\":[\"exp\"]}", cl, SIG_HS256, 0,
	    TOKEN_MALFORMED, "a crit header");
	forged_is("[\"HS256\"]", cl, SIG_HS256, 0, TOKEN_MALFORMED,
	    "a header that is not an object");
	forged_is("{'alg':'HS256'}", cl, SIG_HS256, 0, TOKEN_MALFORMED,
	    "a header in single quotes");
	forged_is("{\"alg\":\"HS256\"}x", cl, SIG_HS256, 0, TOKEN_MALFORMED,
	    "a header with trailing bytes");
	forged_is("{\"alg\":\"HS256\"}", cl, SIG_EMPTY, 0,
	    TOKEN_BAD_SIGNATURE, "HS256 with an empty signature");
	forged_is("{\"alg\":\"HS256\"}", cl, SIG_HS512, 0,
	    TOKEN_BAD_SIGNATURE, "HS256 with a 64-byte HMAC-SHA512");
	free(cl);
}

/* C05: the claims, with leeway 0 unless stated. */
/* CASES C05 (a)..(j) with exact reasons, and the leeway. */
static void
test_c05(void)
{
	static const char	*hs = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
	char			*p;
	long long		 now = (long long)NOW;

#define CLAIMS(want, what, ...) do {					\
	p = xasprintf(__VA_ARGS__);					\
	forged_is(hs, p, SIG_HS256, 0, want, what);			\
	free(p);							\
} while (0)
#define CLAIMS_L(leeway, want, what, ...) do {				\
	p = xasprintf(__VA_ARGS__);					\
	forged_is(hs, p, SIG_HS256, leeway, want, what);		\
	free(p);							\
} while (0)

	CLAIMS(TOKEN_MALFORMED_CLAIM, "C05 (a) no exp",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld}", now);
	CLAIMS(TOKEN_EXPIRED, "C05 (b) exp = now-1",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now - 1);
	CLAIMS(TOKEN_EXPIRED, "C05 (c) exp = now",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "C05 (d) exp as a string",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":\"4102444800\"}", now);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "C05 (e) exp as a real",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":4102444800.0}", now);
	CLAIMS(TOKEN_NOT_YET_VALID, "C05 (f) nbf = now+600",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":%lld}", now, now + 600,
	    now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "C05 (g) nbf as a string",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":\"0\"}", now, now + 600);
	CLAIMS(TOKEN_NOT_YET_VALID, "C05 (h) iat = now+3600",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now + 3600, now + 600);
	CLAIMS(TOKEN_WRONG_QUEUE, "C05 (i) aud vip",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"vip\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_WRONG_ISSUER, "C05 (j) iss other",
	    "{\"iss\":\"other\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);

	/* More of the kind: every required claim, every type. */
	CLAIMS(TOKEN_MALFORMED_CLAIM, "no iss",
	    "{\"aud\":\"sale\",\"qnr\":1,\"iat\":%lld,\"exp\":%lld}",
	    now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "no aud",
	    "{\"iss\":\"aditus-queue\",\"qnr\":1,\"iat\":%lld,"
	    "\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "no qnr",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"iat\":%lld,"
	    "\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "no iat",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"exp\":%lld}", now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "qnr as a string",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":\"1\","
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "qnr as a real",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1.0,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "negative qnr",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":-1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "iat as a real",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld.0,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "exp beyond int64",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":12345678901234567890}", now);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "exp true",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":true}", now);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "nbf null",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":null}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "aud as an array",
	    "{\"iss\":\"aditus-queue\",\"aud\":[\"sale\"],\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "iss as a number",
	    "{\"iss\":1,\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_MALFORMED_CLAIM, "bypass as a string",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"bypass\":\"true\"}", now, now + 600);
	CLAIMS(TOKEN_WRONG_QUEUE, "aud Sale (case)",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"Sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_WRONG_QUEUE, "aud sale2 (prefix)",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale2\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_WRONG_ISSUER, "iss aditus-queue2",
	    "{\"iss\":\"aditus-queue2\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_WRONG_ISSUER, "wrong issuer is checked before aud",
	    "{\"iss\":\"other\",\"aud\":\"vip\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_WRONG_QUEUE, "wrong queue is checked before exp",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"vip\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now - 1);
	CLAIMS(TOKEN_MALFORMED, "claims that are not an object",
	    "[%lld]", now);
	CLAIMS(TOKEN_MALFORMED, "claims with NaN",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":NaN,"
	    "\"iat\":%lld,\"exp\":%lld}", now, now + 600);
	CLAIMS(TOKEN_VALID, "nbf = now is valid",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":%lld}", now, now + 600, now);
	CLAIMS(TOKEN_VALID, "unknown claims are ignored",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"jti\":\"x\"}", now, now + 600);

	/* Leeway L = 30. */
	CLAIMS_L(30, TOKEN_VALID, "L=30: exp = now-L+1 accepted",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now - 600, now - 30 + 1);
	CLAIMS_L(30, TOKEN_EXPIRED, "L=30: exp = now-L rejected",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now - 600, now - 30);
	CLAIMS_L(30, TOKEN_VALID, "L=30: nbf = now+L accepted",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":%lld}", now, now + 600,
	    now + 30);
	CLAIMS_L(30, TOKEN_NOT_YET_VALID, "L=30: nbf = now+L+1 rejected",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld,\"nbf\":%lld}", now, now + 600,
	    now + 31);
	CLAIMS_L(30, TOKEN_VALID, "L=30: iat = now+L accepted",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now + 30, now + 600);
	CLAIMS_L(30, TOKEN_NOT_YET_VALID, "L=30: iat = now+L+1 rejected",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now + 31, now + 600);
	CLAIMS_L(0, TOKEN_NOT_YET_VALID, "L=0: iat = now+1 rejected",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now + 1, now + 600);
	CLAIMS_L(3600, TOKEN_EXPIRED, "leeway above 30 is held at 30",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now - 600, now - 30);
	CLAIMS_L(-5, TOKEN_EXPIRED, "a negative leeway is held at 0",
	    "{\"iss\":\"aditus-queue\",\"aud\":\"sale\",\"qnr\":1,"
	    "\"iat\":%lld,\"exp\":%lld}", now - 600, now);
#undef CLAIMS
#undef CLAIMS_L
}

/* Verify len bytes of tok for sale; compare the reason with want. */
static void
raw_is(const char *tok, size_t len, const char *want, const char *what)
{
	is_str(token_reason_str(token_verify(tok, len, "sale", SALE_KEY,
	    strlen(SALE_KEY), NOW, 0, NULL)), want, "C07 %s", what);
}

/*
 * Replace the signature of tok by its first n bytes (zero bytes added
 * beyond 32), encoded canonically, and compare the reason with want.
 */
static void
resig(const char *tok, size_t n, const char *want, const char *what)
{
	unsigned char	 sig[64];
	const char	*dot = strrchr(tok, '.');
	char		*s, *t;

	memset(sig, 0, sizeof(sig));
	if (crypto_b64url_decode(dot + 1, strlen(dot + 1), sig, sizeof(sig)) !=
	    HMAC_LEN || n > sizeof(sig)) {
		ok(0, "C07 %s: decoding the signature", what);
		return;
	}
	s = crypto_b64url_encode(sig, n);
	t = xasprintf("%.*s.%s", (int)(dot - tok), tok, s);
	raw_is(t, strlen(t), want, what);
	free(s);
	free(t);
}

/* Index of c in the base64url alphabet, or -1. */
static int
b64idx(char c)
{
	static const char	 abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	const char		*p = strchr(abc, c);

	return p == NULL || c == '\0' ? -1 : (int)(p - abc);
}

/* CASES C07, verify part: malformed and foreign tokens. */
static void
test_c07(void)
{
	static const char	 abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	char			*tok, *vip, *old, *two, *big, *t;
	size_t			 len;
	int			 i;

	tok = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 5, NOW, 600, 0);
	vip = token_sign("vip", VIP_KEY, strlen(VIP_KEY), 5, NOW, 600, 0);
	old = token_sign("sale", SALE_KEY, strlen(SALE_KEY), 5, NOW - 601,
	    600, 0);
	if (tok == NULL || vip == NULL || old == NULL) {
		ok(0, "token_sign for C07");
		free(tok);
		free(vip);
		free(old);
		return;
	}
	len = strlen(tok);

	raw_is("", 0, "malformed", "empty token");
	is_str(token_reason_str(token_verify(NULL, 0, "sale", SALE_KEY,
	    strlen(SALE_KEY), NOW, 0, NULL)), "malformed", "C07 no token");
	raw_is("123", 3, "malformed", "token=123");
	raw_is("%00", 3, "malformed", "token=%00 (undecoded)");
	raw_is("\0", 1, "malformed", "token=%00 (decoded: one NUL byte)");
	raw_is("x", 1, "malformed", "token=x");
	raw_is("a", 1, "malformed", "token=a");
	raw_is("b", 1, "malformed", "token=b");
	raw_is("a,b", 3, "malformed", "token=a,b (joined parameters)");
	raw_is("[]=x", 4, "malformed", "token[]=x");
	big = xmalloc(10240);
	memset(big, 'A', 10240);
	raw_is(big, 10240, "malformed", "10 KB of A");
	raw_is(big, TOKEN_MAX, "malformed", "TOKEN_MAX bytes of A");
	memcpy(big, tok, len);
	raw_is(big, TOKEN_MAX + 1, "malformed",
	    "a token followed by A up to TOKEN_MAX + 1 bytes");
	free(big);

	two = xasprintf("%s%s", tok, tok);
	raw_is(two, strlen(two), "malformed", "two tokens joined");
	free(two);
	two = xasprintf("%s.%s", tok, tok);
	raw_is(two, strlen(two), "malformed", "two tokens joined by a dot");
	free(two);
	two = xasprintf("%s,%s", tok, tok);
	raw_is(two, strlen(two), "malformed", "two tokens joined by a comma");
	free(two);

	raw_is(vip, strlen(vip), "bad_signature",
	    "a valid token for vip, verified for sale");
	is_str(token_reason_str(token_verify(vip, strlen(vip), "vip",
	    VIP_KEY, strlen(VIP_KEY), NOW, 0, NULL)), "valid",
	    "C07 the vip token is valid for vip");
	raw_is(old, strlen(old), "expired", "a sale token expired 1 s ago");
	raw_is(tok, len, "valid", "positive control");

	/* Shape: the same token, bent. */
	t = xasprintf("%s.", tok);
	raw_is(t, strlen(t), "malformed", "a trailing dot");
	free(t);
	t = xasprintf(" %s", tok);
	raw_is(t, strlen(t), "malformed", "a leading space");
	free(t);
	t = xasprintf("%s\n", tok);
	raw_is(t, strlen(t), "malformed", "a trailing newline");
	free(t);
	t = xasprintf("%s=", tok);
	raw_is(t, strlen(t), "malformed", "'=' after the signature");
	free(t);
	t = xasprintf("Bearer %s", tok);
	raw_is(t, strlen(t), "malformed", "a Bearer prefix");
	free(t);
	resig(tok, 31, "bad_signature", "signature of 31 bytes (canonical)");
	resig(tok, 33, "bad_signature", "signature of 33 bytes");
	resig(tok, 64, "bad_signature", "signature of 64 bytes");
	resig(tok, 32, "valid", "signature decoded and encoded again");
	raw_is(tok, len - 2, "malformed",
	    "signature cut by two characters (1 mod 4)");
	raw_is(tok, (size_t)(strrchr(tok, '.') - tok + 1), "bad_signature",
	    "signature removed, HS256 header");
	raw_is(tok, (size_t)(strrchr(tok, '.') - tok), "malformed",
	    "signature and its dot removed");
	raw_is("..", 2, "malformed", "two dots only");
	raw_is("a..", 3, "malformed", "empty payload");
	raw_is(".a.", 3, "malformed", "empty header");
	raw_is(strchr(tok, '.'), strlen(strchr(tok, '.')), "malformed",
	    "header removed");

	t = xstrdup(tok);
	/* One character of the signature changed (all 6 bits used). */
	t[len - 5] = t[len - 5] == 'A' ? 'B' : 'A';
	raw_is(t, len, "bad_signature", "one signature character changed");
	memcpy(t, tok, len);
	/* The last character's 2 unused bits set: same bytes, refused. */
	i = b64idx(t[len - 1]);
	t[len - 1] = abc[i ^ 1];
	raw_is(t, len, "malformed",
	    "non-canonical last signature character");
	memcpy(t, tok, len);
	/* A payload character changed: the MAC no longer matches. */
	i = (int)(strchr(tok, '.') - tok) + 3;
	t[i] = t[i] == 'A' ? 'B' : 'A';
	raw_is(t, len, "bad_signature", "one payload character changed");
	memcpy(t, tok, len);
	t[2] = '+';
	raw_is(t, len, "malformed", "'+' in the header");
	memcpy(t, tok, len);
	t[len - 3] = '/';
	raw_is(t, len, "malformed", "'/' in the signature");
	memcpy(t, tok, len);
	t[5] = '\0';
	raw_is(t, len, "malformed", "a NUL inside the token");
	free(t);

	is_str(token_reason_str(token_verify(tok, len, "sale", SALE_KEY,
	    strlen(SALE_KEY) - 1, NOW, 0, NULL)), "bad_signature",
	    "C07 key one byte short");
	is_str(token_reason_str(token_verify(tok, len, NULL, SALE_KEY,
	    strlen(SALE_KEY), NOW, 0, NULL)), "wrong_queue",
	    "C07 no slug");
	free(tok);
	free(vip);
	free(old);
}

/* Ticket value against an independent HMAC; ticket_check. */
static void
test_ticket(void)
{
	unsigned char	 msg[64], mac[EVP_MAX_MD_SIZE];
	unsigned char	 b64[64];
	char		 t[TICKET_LEN + 1], t2[TICKET_LEN + 1], bad[64];
	char		 longslug[300];
	unsigned int	 maclen;
	size_t		 n = 0, i;
	int		 k;

	is_int(token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), "sale", 42, t),
	    0, "ticket_make succeeds");
	is_int(strlen(t), TICKET_LEN, "ticket is 22 characters");
	is_str(t, "A6DjjSdMYwHc4LppdV4FiQ",
	    "ticket known answer (computed with Python hmac)");

	/* The same by hand with OpenSSL: "aq-ticket" 0 len slug number. */
	memcpy(msg, "aq-ticket", 9);
	n = 9;
	msg[n++] = 0;
	msg[n++] = 4;
	memcpy(msg + n, "sale", 4);
	n += 4;
	for (i = 0; i < 7; i++)
		msg[n++] = 0;
	msg[n++] = 42;
	HMAC(EVP_sha256(), TICKET_KEY, (int)strlen(TICKET_KEY), msg, n, mac,
	    &maclen);
	k = EVP_EncodeBlock(b64, mac, 16);
	for (i = 0; i < (size_t)k; i++) {
		if (b64[i] == '+')
			b64[i] = '-';
		else if (b64[i] == '/')
			b64[i] = '_';
		else if (b64[i] == '=')
			b64[i] = '\0';
	}
	is_str(t, (char *)b64, "ticket equals an independent OpenSSL HMAC");

	is_int(token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    t2), 0, "ticket_make again");
	is_str(t2, t, "ticket_make is deterministic");
	token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), "sale", 43, t2);
	ok(strcmp(t, t2) != 0, "another number gives another ticket");
	token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), "vip", 42, t2);
	ok(strcmp(t, t2) != 0, "another slug gives another ticket");
	token_ticket_make("other-key", 9, "sale", 42, t2);
	ok(strcmp(t, t2) != 0, "another key gives another ticket");

	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    t), 1, "ticket_check accepts the ticket");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 43,
	    t), 0, "ticket_check: wrong number");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", -42,
	    t), 0, "ticket_check: negated number");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "vip", 42, t),
	    0, "ticket_check: wrong slug");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sal", 42, t),
	    0, "ticket_check: slug prefix");
	is_int(token_ticket_check("other-key", 9, "sale", 42, t), 0,
	    "ticket_check: wrong key");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    NULL), 0, "ticket_check: NULL");
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    ""), 0, "ticket_check: empty");
	snprintf(bad, sizeof(bad), "%.*s", TICKET_LEN - 1, t);
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    bad), 0, "ticket_check: truncated");
	snprintf(bad, sizeof(bad), "%sA", t);
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    bad), 0, "ticket_check: one character appended");
	snprintf(bad, sizeof(bad), "%s", t);
	bad[10] = bad[10] == 'x' ? 'y' : 'x';
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    bad), 0, "ticket_check: one character changed");
	snprintf(bad, sizeof(bad), "%s", t);
	bad[TICKET_LEN - 1] = bad[TICKET_LEN - 1] == 'Q' ? 'R' : 'Q';
	is_int(token_ticket_check(TICKET_KEY, strlen(TICKET_KEY), "sale", 42,
	    bad), 0, "ticket_check: last character changed");
	is_int(token_ticket_check(NULL, 0, "sale", 42, t), 0,
	    "ticket_check: no key");

	memset(longslug, 'a', 256);
	longslug[256] = '\0';
	is_int(token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), longslug, 1,
	    t2), -1, "ticket_make refuses a 256-byte slug");
	longslug[255] = '\0';
	is_int(token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), longslug, 1,
	    t2), 0, "ticket_make takes a 255-byte slug");
	is_int(token_ticket_make(TICKET_KEY, strlen(TICKET_KEY), "", 1, t2), -1,
	    "ticket_make refuses an empty slug");
	is_int(token_ticket_make(NULL, 0, "sale", 1, t2), -1,
	    "ticket_make refuses no key");
}

/* A name given twice in the header or the claims: malformed. */
static void
test_duplicates(void)
{
	char	*c, *d;

	c = claims_ok();
	forged_is("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", c, SIG_HS256, 0,
	    TOKEN_VALID, "control: a clean token is valid");
	forged_is("{\"alg\":\"none\",\"alg\":\"HS256\"}", c, SIG_HS256, 0,
	    TOKEN_MALFORMED, "alg twice in the header: malformed");
	forged_is("{\"alg\":\"HS256\",\"typ\":\"JWT\",\"typ\":\"JWT\"}",
	    c, SIG_HS256, 0, TOKEN_MALFORMED,
	    "typ twice in the header: malformed");
	d = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"qnr\":2,\"iat\":%lld,\"exp\":%lld}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\"}", d, SIG_HS256, 0, TOKEN_MALFORMED,
	    "qnr twice in the claims: malformed");
	free(d);
	d = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"other\","
	    "\"aud\":\"sale\",\"qnr\":1,\"iat\":%lld,\"exp\":%lld}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\"}", d, SIG_HS256, 0, TOKEN_MALFORMED,
	    "aud twice in the claims: malformed");
	free(d);
	d = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"iat\":%lld,\"exp\":1,\"exp\":%lld}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\"}", d, SIG_HS256, 0, TOKEN_MALFORMED,
	    "exp twice in the claims: malformed");
	free(d);
	free(c);
}

/*
 * A header or claims that are not Unicode (an escaped unpaired
 * surrogate, bytes that are not UTF-8) fail verification as malformed,
 * even when correctly signed; a valid escaped pair does not.
 */
static void
test_unicode(void)
{
	char	*c;

	c = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"iat\":%lld,\"exp\":%lld,\"x\":\"\\ud83d\\ude00\"}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", c, SIG_HS256, 0,
	    TOKEN_VALID, "control: an escaped pair in a claim is valid");
	free(c);
	c = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"iat\":%lld,\"exp\":%lld,\"x\":\"\\ud800\"}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\"}", c, SIG_HS256, 0, TOKEN_MALFORMED,
	    "\\ud800 in a claim: malformed");
	free(c);
	c = xasprintf("{\"iss\":\"aditus-queue\",\"aud\":\"sale\","
	    "\"qnr\":1,\"iat\":%lld,\"exp\":%lld,\"x\":\"\xed\xa0\x80\"}",
	    (long long)NOW, (long long)(NOW + 600));
	forged_is("{\"alg\":\"HS256\"}", c, SIG_HS256, 0, TOKEN_MALFORMED,
	    "raw ED A0 80 in a claim: malformed");
	free(c);
	c = claims_ok();
	forged_is("{\"alg\":\"HS256\",\"typ\":\"J\\udc00\"}", c,
	    SIG_HS256, 0, TOKEN_MALFORMED, "\\udc00 in the header: malformed");
	forged_is("{\"alg\":\"HS256\",\"kid\":\"\xc0\xaf\"}", c,
	    SIG_HS256, 0, TOKEN_MALFORMED,
	    "overlong C0 AF in the header: malformed");
	free(c);
}

/* Runs every test; the exit status is TAP's. */
int
main(void)
{
	test_reason_str();
	test_sign();
	test_c03();
	test_c05();
	test_c07();
	test_ticket();
	test_duplicates();
	test_unicode();
	return done_testing();
}
