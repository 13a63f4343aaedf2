/*
 * pow.c - the proof of work's challenges and their check (see pow.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "log.h"
#include "pow.h"

/* The fields' bytes: version, queue id, issue time, bits, random. */
#define FIELDS_LEN	(1 + 8 + 8 + 1 + POW_RANDOM_LEN)
#define RAW_LEN		(FIELDS_LEN + HMAC_LEN)
#define CH_VERSION		1

/* The label the key is derived with, and the MAC's domain. */
static const char key_label[] = "aditus-queue proof-of-work key v1";
static const char mac_label[] = "aditus-queue challenge v1";

static const char *const codes[POW__MAX] = {
	"ok",			/* POW_OK */
	"pow_required",		/* POW_REQUIRED */
	"pow_malformed",	/* POW_MALFORMED */
	"challenge_invalid",	/* POW_INVALID */
	"challenge_mismatch",	/* POW_MISMATCH */
	"challenge_expired",	/* POW_EXPIRED */
	"insufficient_work",	/* POW_INSUFFICIENT */
	"challenge_used",	/* POW_USED */
};

const char *
pow_code(enum pow_verdict v)
{
	return v < POW__MAX ? codes[v] : "challenge_invalid";
}

int
pow_leading_zero_bits(const uint8_t hash[32])
{
	int	 n = 0, i;
	uint8_t	 b;

	for (i = 0; i < 32; i++) {
		if (hash[i] == 0) {
			n += 8;
			continue;
		}
		for (b = hash[i]; (b & 0x80) == 0; b = (uint8_t)(b << 1))
			n++;
		break;
	}
	return n;
}

int
pow_meets(const uint8_t hash[32], int d)
{
	if (d < 0 || d > 256)
		return -1;
	return pow_leading_zero_bits(hash) >= d;
}

int
pow_key(const uint8_t *master, size_t masterlen, uint8_t key[POW_KEY_LEN])
{
	if (crypto_hmac_sha256(master, masterlen, key_label,
	    sizeof(key_label) - 1, key) == -1) {
		log_warnx("pow: no key");
		return -1;
	}
	return 0;
}

/* Write v big-endian into p[0..8). */
static void
be64(uint8_t *p, int64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--) {
		p[i] = (uint8_t)((uint64_t)v & 0xff);
		v = (int64_t)((uint64_t)v >> 8);
	}
}

/* Read p[0..8) big-endian. */
static int64_t
rd64(const uint8_t *p)
{
	uint64_t	 v = 0;
	int		 i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return (int64_t)v;
}

/* Append the field f[0..n) with its 4-byte length to m at *len. */
static void
lp(uint8_t *m, size_t *len, const void *f, size_t n)
{
	m[(*len)++] = (uint8_t)(n >> 24);
	m[(*len)++] = (uint8_t)(n >> 16);
	m[(*len)++] = (uint8_t)(n >> 8);
	m[(*len)++] = (uint8_t)n;
	memcpy(m + *len, f, n);
	*len += n;
}

/*
 * The MAC of the fields f[0..FIELDS_LEN): over the domain label and
 * each field length-prefixed (no two different field lists read the
 * same).  Returns 0 or -1.
 */
static int
fields_mac(const uint8_t key[POW_KEY_LEN], const uint8_t *f,
    uint8_t mac[HMAC_LEN])
{
	/* The label and five fields, each after its 4-byte length. */
	uint8_t	 m[sizeof(mac_label) - 1 + 6 * 4 + FIELDS_LEN];
	size_t	 len = 0;

	lp(m, &len, mac_label, sizeof(mac_label) - 1);
	lp(m, &len, f, 1);			/* version */
	lp(m, &len, f + 1, 8);			/* queue id */
	lp(m, &len, f + 9, 8);			/* issued */
	lp(m, &len, f + 17, 1);			/* bits */
	lp(m, &len, f + 18, POW_RANDOM_LEN);	/* random */
	return crypto_hmac_sha256(key, POW_KEY_LEN, m, len, mac);
}

int
pow_challenge_make(const uint8_t key[POW_KEY_LEN], int64_t queue_id,
    int64_t now_ms, int bits, char *out)
{
	uint8_t	 raw[RAW_LEN];
	char	*t;

	out[0] = '\0';
	if (bits < POW_BITS_MIN || bits > POW_BITS_MAX)
		return -1;
	raw[0] = CH_VERSION;
	be64(raw + 1, queue_id);
	be64(raw + 9, now_ms);
	raw[17] = (uint8_t)bits;
	if (crypto_random(raw + 18, POW_RANDOM_LEN) == -1 ||
	    fields_mac(key, raw, raw + FIELDS_LEN) == -1)
		return -1;
	if ((t = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return -1;
	if (strlen(t) != POW_CHALLENGE_LEN) {
		free(t);
		return -1;
	}
	memcpy(out, t, POW_CHALLENGE_LEN + 1);
	free(t);
	return 0;
}

int
pow_nonce_ok(const char *nonce, size_t nlen)
{
	size_t	 i;

	if (nonce == NULL || nlen == 0 || nlen > POW_NONCE_MAX)
		return 0;
	for (i = 0; i < nlen; i++)
		if ((unsigned char)nonce[i] < 0x21 ||
		    (unsigned char)nonce[i] > 0x7e)
			return 0;
	return 1;
}

enum pow_verdict
pow_check(const uint8_t key[POW_KEY_LEN], int64_t queue_id, int64_t now_ms,
    const char *challenge, size_t clen, const char *nonce, size_t nlen,
    struct pow_challenge *out)
{
	uint8_t		 raw[RAW_LEN + 1], mac[HMAC_LEN], hash[SHA256_LEN];
	uint8_t		 msg[POW_CHALLENGE_LEN + 1 + POW_NONCE_MAX];
	int64_t		 n;

	memset(out, 0, sizeof(*out));
	if (challenge == NULL || clen == 0 || clen > POW_CHALLENGE_MAX ||
	    memchr(challenge, '\0', clen) != NULL || !pow_nonce_ok(nonce, nlen))
		return POW_MALFORMED;
	/* One of ours: the exact length, base64url, our version, our MAC. */
	if (clen != POW_CHALLENGE_LEN ||
	    (n = crypto_b64url_decode(challenge, clen, raw, sizeof(raw))) !=
	    RAW_LEN || raw[0] != CH_VERSION ||
	    fields_mac(key, raw, mac) == -1 ||
	    !crypto_ct_equal(mac, raw + FIELDS_LEN, HMAC_LEN))
		return POW_INVALID;
	out->queue_id = rd64(raw + 1);
	out->issued_ms = rd64(raw + 9);
	out->bits = raw[17];
	memcpy(out->random, raw + 18, POW_RANDOM_LEN);
	/* Signed by us with bits in range: anything else was never made. */
	if (out->bits < POW_BITS_MIN || out->bits > POW_BITS_MAX)
		return POW_INVALID;
	if (out->queue_id != queue_id)
		return POW_MISMATCH;
	if (now_ms - out->issued_ms > (int64_t)POW_TTL_S * 1000)
		return POW_EXPIRED;
	/* The work: recomputed over the challenge as sent, the bits as
	 * signed. */
	memcpy(msg, challenge, clen);
	msg[clen] = '.';
	memcpy(msg + clen + 1, nonce, nlen);
	if (crypto_sha256(msg, clen + 1 + nlen, hash) == -1 ||
	    pow_meets(hash, out->bits) != 1)
		return POW_INSUFFICIENT;
	return POW_OK;
}
