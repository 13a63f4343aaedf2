/*
 * token.h - the access token (SPEC section 5): an HS256 JWT (RFC 7519,
 * RFC 7515) with claims iss = "aditus-queue", aud = queue slug, qnr =
 * admitted number, jti = "<slug>:<number>" (one per admitted number, so a
 * shop can refuse a second use), iat, exp, and bypass = true for VIP
 * tokens.  Signing
 * goes through libjwt; verification pins HS256 from the raw header before
 * trusting anything (CASES C03) and checks every claim itself, since
 * libjwt 1.10 validates no claims (CASES C05).  Also the visitor ticket:
 * a MAC over (slug, number) proving ownership of a number (SPEC section 4).
 */
#ifndef TOKEN_H
#define TOKEN_H

#include <stddef.h>
#include <stdint.h>

#define TOKEN_ISSUER	"aditus-queue"
#define TOKEN_MAX	4096	/* longest token we look at, bytes */
#define LEEWAY_MAX	30	/* seconds */
#define TICKET_LEN	22	/* base64url of a 16-byte MAC */
#define TOKEN_JTI_MAX	96	/* "<slug>:<number>" and its NUL, bytes */

/* Why a token is not valid; the strings are the API's "reason" values. */
enum token_reason {
	TOKEN_VALID = 0,
	TOKEN_MALFORMED,	/* "malformed": not a JWT we can read */
	TOKEN_BAD_ALG,		/* "bad_alg": header alg is not exactly HS256 */
	TOKEN_BAD_SIGNATURE,	/* "bad_signature" */
	TOKEN_MALFORMED_CLAIM,	/* "malformed_claim": missing or mistyped */
	TOKEN_EXPIRED,		/* "expired": now >= exp + leeway */
	TOKEN_NOT_YET_VALID,	/* "not_yet_valid": nbf or iat in the future */
	TOKEN_WRONG_QUEUE,	/* "wrong_queue": aud is not the slug */
	TOKEN_WRONG_ISSUER,	/* "wrong_issuer" */
	TOKEN__MAX
};

/* API string of a reason, e.g. "bad_alg".  Can't fail. */
const char *token_reason_str(enum token_reason);

struct token_claims {
	int64_t	 qnr;		/* admitted number */
	int64_t	 iat;		/* issued at, Unix seconds */
	int64_t	 exp;		/* expires at, Unix seconds */
	int	 bypass;	/* 1 for a VIP bypass token */
	char	 jti[TOKEN_JTI_MAX];	/* "" when none or longer */
};

/*
 * Sign a token for queue slug with the queue's secret (key bytes = the
 * secret string as shown to the operator), number qnr, issued at now_s,
 * valid for ttl_s seconds (1..86400), with "bypass": true when bypass.
 * A regular token carries jti "<slug>:<qnr>" (RFC 7519 4.1.7): every
 * token for the same admitted number has the same jti.
 * Returns the compact JWT the caller frees, or NULL on failure (logged).
 */
char	*token_sign(const char *slug, const void *key, size_t keylen,
	    int64_t qnr, int64_t now_s, int64_t ttl_s, int bypass);

/*
 * Sign a VIP bypass token for queue slug (SPEC section 5): the claims of
 * token_sign() with qnr 0 (it stands for no number), "bypass": true and
 * its own jti (a value unique to this redemption, below TOKEN_JTI_MAX
 * bytes), so that a shop that refuses a second use of a jti still lets
 * each redemption in once.  Returns the JWT the caller frees, or NULL
 * (logged).
 */
char	*token_sign_bypass(const char *slug, const void *key, size_t keylen,
	    int64_t now_s, int64_t ttl_s, const char *jti);

/*
 * Verify a compact JWT for queue slug at now_s with leeway_s (0..LEEWAY_MAX)
 * seconds.  Order: shape and base64url (malformed) -> header JSON with
 * "alg" exactly "HS256" (bad_alg) -> HMAC-SHA256 signature compared in
 * constant time (bad_signature) -> claims JSON: iss, aud strings; qnr,
 * iat, exp and, when present, nbf JSON integers (malformed_claim) -> iss
 * (wrong_issuer) -> aud == slug (wrong_queue) -> now >= exp + leeway
 * (expired) -> now < nbf - leeway or iat > now + leeway (not_yet_valid).
 * JSON is parsed strictly (see jsonbody.h).  On TOKEN_VALID fills *out
 * when out is not NULL.  Never allocates memory the caller must free.
 */
enum token_reason token_verify(const char *token, size_t len,
	    const char *slug, const void *key, size_t keylen,
	    int64_t now_s, int64_t leeway_s, struct token_claims *out);

/*
 * The ticket for (slug, number) under a queue's ticket key: the first 16
 * bytes of HMAC-SHA256(key, "aq-ticket" 0x00 len(slug) as 1 byte || slug
 * || number as 8 bytes big-endian), base64url, written NUL-terminated into
 * out[TICKET_LEN + 1].  Returns 0, or -1 on failure.
 */
int	 token_ticket_make(const void *key, size_t keylen, const char *slug,
	    int64_t number, char out[TICKET_LEN + 1]);

/*
 * Whether ticket (any length, may be NULL) is the ticket of (slug,
 * number), compared in constant time.  Returns 1 if so, else 0.
 */
int	 token_ticket_check(const void *key, size_t keylen, const char *slug,
	    int64_t number, const char *ticket);

#endif /* TOKEN_H */
