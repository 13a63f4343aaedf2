/*
 * pow.h - proof of work before a join (SPEC section 9, CASES C26,
 * C42-C44).  A challenge is made and signed by the server: the queue's
 * id, the issue time, the difficulty in bits and 16 random bytes, with
 * an HMAC-SHA256 over those fields, each length-prefixed, under a key
 * derived from the installation's master key (every process and host
 * of an installation has it, across restarts); text: base64url of the
 * fields and the MAC.  A solution is a nonce (1 to POW_NONCE_MAX
 * printable ASCII characters) such that SHA-256(challenge "." nonce)
 * begins with that many zero bits, recomputed here: the client's hash,
 * bits or expiry, whatever it sends, are never read.  A challenge lives
 * POW_TTL_S seconds and is spent once (pow-used.h).  Nothing about the
 * client (address, headers, cookies) is part of it, so a second tab, a
 * changed address or another host all work.
 */
#ifndef POW_H
#define POW_H

#include <stddef.h>
#include <stdint.h>

#define POW_BITS_MIN	8	/* queue setting powBits, inclusive */
#define POW_BITS_MAX	24
#define POW_BITS_DEF	15
#define POW_TTL_S	300	/* a challenge's life, seconds */
#define POW_NONCE_MAX	64	/* characters of a nonce */
#define POW_CHALLENGE_MAX 256	/* longer is malformed, not only invalid */
#define POW_RANDOM_LEN	16	/* random bytes of a challenge */
#define POW_KEY_LEN	32	/* the challenges' HMAC key, bytes */
/* The text of a challenge: base64url of 34 bytes of fields + 32 of MAC. */
#define POW_CHALLENGE_LEN 88

/* What the server made, read back from a valid challenge. */
struct pow_challenge {
	int64_t	 queue_id;
	int64_t	 issued_ms;	/* Unix ms, the server's (database's) clock */
	int	 bits;
	uint8_t	 random[POW_RANDOM_LEN];
};

/*
 * The verdicts of a submitted solution, in the order they are checked
 * (CASES C26); each is its own 428 error code (pow_code()).
 */
enum pow_verdict {
	POW_OK = 0,
	POW_REQUIRED,		/* "pow_required": no "pow" in the body */
	POW_MALFORMED,		/* "pow_malformed": not an object, or
				   challenge / nonce not strings of their
				   allowed length and characters */
	POW_INVALID,		/* "challenge_invalid": not one we made
				   (MAC, format), or tampered with */
	POW_MISMATCH,		/* "challenge_mismatch": another queue's */
	POW_EXPIRED,		/* "challenge_expired": older than the TTL */
	POW_INSUFFICIENT,	/* "insufficient_work": too few zero bits */
	POW_USED,		/* "challenge_used": spent already */
	POW__MAX
};

/* The error code of v ("pow_required", ...).  Static.  Can't fail. */
const char	*pow_code(enum pow_verdict v);

/*
 * The number of leading zero bits of a SHA-256 digest (0 to 256), bit
 * by bit (never hex digits).  Can't fail.
 */
int	 pow_leading_zero_bits(const uint8_t hash[32]);

/*
 * Whether hash begins with at least d zero bits: 1 or 0; d 0 always
 * holds, d 256 only for the all-zero hash; -1 for d below 0 or above
 * 256.
 */
int	 pow_meets(const uint8_t hash[32], int d);

/*
 * The challenges' key into key[POW_KEY_LEN]: HMAC-SHA256 of a fixed
 * label under the master key, so that every process and host with the
 * same master key has the same.  Returns 0, or -1 (logged).
 */
int	 pow_key(const uint8_t *master, size_t masterlen,
	    uint8_t key[POW_KEY_LEN]);

/*
 * Make a challenge for queue_id at now_ms with bits (POW_BITS_MIN to
 * POW_BITS_MAX) into out (POW_CHALLENGE_LEN + 1 bytes, NUL-terminated).
 * Returns 0, or -1 (random source or MAC failed, bits out of range).
 */
int	 pow_challenge_make(const uint8_t key[POW_KEY_LEN], int64_t queue_id,
	    int64_t now_ms, int bits, char *out);

/*
 * Judge a solution to queue_id at now_ms: challenge (clen bytes) and
 * nonce (nlen bytes), in the order of enum pow_verdict from
 * POW_MALFORMED to POW_INSUFFICIENT (the single-use mark is the
 * caller's, pow-used.h).  On POW_OK, and from POW_MISMATCH on, *out
 * holds the challenge's fields.  Can't fail.
 */
enum pow_verdict pow_check(const uint8_t key[POW_KEY_LEN], int64_t queue_id,
	    int64_t now_ms, const char *challenge, size_t clen,
	    const char *nonce, size_t nlen, struct pow_challenge *out);

/*
 * Whether nonce (nlen bytes) is a nonce's form: 1 to POW_NONCE_MAX
 * characters 0x21 to 0x7e.  Returns 1 or 0.
 */
int	 pow_nonce_ok(const char *nonce, size_t nlen);

#endif /* POW_H */
