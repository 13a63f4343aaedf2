/*
 * draw.c - the fair draw of a scheduled opening (see draw.h): the keyed
 * Feistel permutation, positions, the seed's sealing and hash, and the
 * worker's job that makes seeds and closes pre-queues.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "draw.h"
#include "isotime.h"
#include "log.h"

#define DRAW_LABEL	"aditus-draw"
#define DRAW_LABEL_LEN	11
#define DRAW_ORDER_LABEL	"aditus-random"
#define DRAW_ORDER_LABEL_LEN	13

/* Big-endian 8 bytes of v into p. */
static void
put_be64(uint8_t *p, uint64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--) {
		p[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

/* A keyed HMAC-SHA256 context, re-initialised for each message. */
struct draw_ctx {
	EVP_MAC		*mac;
	EVP_MAC_CTX	*ctx;
};

struct draw_ctx *
draw_ctx_new(const uint8_t seed[DRAW_SEED_LEN])
{
	struct draw_ctx	*d;
	OSSL_PARAM	 params[2];

	if ((d = try_malloc(sizeof(*d))) == NULL)
		return NULL;
	d->ctx = NULL;
	params[0] = OSSL_PARAM_construct_utf8_string("digest",
	    (char *)(uintptr_t)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if ((d->mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
	    (d->ctx = EVP_MAC_CTX_new(d->mac)) == NULL ||
	    EVP_MAC_init(d->ctx, seed, DRAW_SEED_LEN, params) != 1) {
		log_warnx("draw: HMAC-SHA256 set-up failed");
		draw_ctx_free(d);
		return NULL;
	}
	return d;
}

void
draw_ctx_free(struct draw_ctx *d)
{
	if (d == NULL)
		return;
	EVP_MAC_CTX_free(d->ctx);
	EVP_MAC_free(d->mac);
	free(d);
}

/*
 * Round function F_i(r) mod 2^h (see draw.h).  Returns 0 and sets *out,
 * or -1 when HMAC fails.
 */
static int
round_f(struct draw_ctx *d, int i, int64_t p, uint64_t r, int h,
    uint64_t *out)
{
	uint8_t		 msg[DRAW_LABEL_LEN + 1 + 8 + 8], mac[HMAC_LEN];
	uint64_t	 v = 0;
	size_t		 len = 0;
	int		 k;

	memcpy(msg, DRAW_LABEL, DRAW_LABEL_LEN);
	msg[DRAW_LABEL_LEN] = (uint8_t)i;
	put_be64(msg + DRAW_LABEL_LEN + 1, (uint64_t)p);
	put_be64(msg + DRAW_LABEL_LEN + 9, r);
	/* A NULL key re-initialises with the key already set. */
	if (EVP_MAC_init(d->ctx, NULL, 0, NULL) != 1 ||
	    EVP_MAC_update(d->ctx, msg, sizeof(msg)) != 1 ||
	    EVP_MAC_final(d->ctx, mac, &len, sizeof(mac)) != 1 ||
	    len != HMAC_LEN) {
		log_warnx("draw: HMAC-SHA256 failed");
		return -1;
	}
	for (k = 0; k < 8; k++)
		v = v << 8 | mac[k];
	*out = v & ((UINT64_C(1) << h) - 1);
	return 0;
}

/* One pass of the Feistel network over 2h bits.  Returns 0 or -1. */
static int
feistel(struct draw_ctx *d, int64_t p, int h, uint64_t x, uint64_t *out)
{
	uint64_t	 mask = (UINT64_C(1) << h) - 1, l, r, f, t;
	int		 i;

	l = x >> h;
	r = x & mask;
	for (i = 0; i < DRAW_ROUNDS; i++) {
		if (round_f(d, i, p, r, h, &f) == -1)
			return -1;
		t = l ^ f;
		l = r;
		r = t;
	}
	*out = l << h | r;
	return 0;
}

int64_t
draw_ctx_pi(struct draw_ctx *d, int64_t p, int64_t x)
{
	uint64_t	 y;
	int		 bits = 0, h;

	if (d == NULL || p < 1 || p > DRAW_P_MAX || x < 0 || x >= p)
		return -1;
	while ((UINT64_C(1) << bits) < (uint64_t)p)
		bits++;
	h = bits < 2 ? 1 : (bits + 1) / 2;
	/* Cycle walking: each step stays in the domain; ends inside [0, p). */
	y = (uint64_t)x;
	do {
		if (feistel(d, p, h, y, &y) == -1)
			return -1;
	} while (y >= (uint64_t)p);
	return (int64_t)y;
}

int64_t
draw_pi(const uint8_t seed[DRAW_SEED_LEN], int64_t p, int64_t x)
{
	struct draw_ctx	*d;
	int64_t		 y;

	if (p < 1 || p > DRAW_P_MAX || x < 0 || x >= p)
		return -1;
	if ((d = draw_ctx_new(seed)) == NULL)
		return -1;
	y = draw_ctx_pi(d, p, x);
	draw_ctx_free(d);
	return y;
}

int64_t
draw_position(const uint8_t seed[DRAW_SEED_LEN], int64_t p, int64_t n)
{
	int64_t	 i;

	if (n < 1)
		return -1;
	if (n > p)
		return n;
	if ((i = draw_pi(seed, p, n - 1)) < 0)
		return -1;
	return i + 1;
}

int64_t
draw_queue_position(const struct adm_queue *q, const uint8_t *seed,
    int have_seed, int64_t n, int64_t now)
{
	int64_t	 p = adm_prequeue_size(q, now);

	if (p < 0)
		return n <= q->last_number ? -1 : n;
	if (n > p)
		return n;
	if (!have_seed || seed == NULL)
		return -1;
	return draw_position(seed, p, n);
}

int64_t
draw_order_position(const struct adm_queue *q, const uint8_t *key,
    int64_t n)
{
	uint8_t	 msg[DRAW_ORDER_LABEL_LEN + 8], seed[HMAC_LEN];
	int64_t	 start, size, i;

	if (n < 1)
		return -1;
	if (!adm_order_block(q, n, &start, &size))
		return n;
	memcpy(msg, DRAW_ORDER_LABEL, DRAW_ORDER_LABEL_LEN);
	put_be64(msg + DRAW_ORDER_LABEL_LEN, (uint64_t)start);
	if (crypto_hmac_sha256(key, DRAW_SEED_LEN, msg, sizeof(msg),
	    seed) == -1) {
		log_warnx("HMAC-SHA256 failed");
		return -1;
	}
	i = draw_pi(seed, size, n - start);
	crypto_wipe(seed, sizeof(seed));
	return i < 0 ? -1 : start + i;
}

int
draw_order_key(const struct cfg *c, const char *slug,
    uint8_t key[DRAW_SEED_LEN])
{
	char	 msg[SLUG_MAX + 32];
	int	 n;

	n = snprintf(msg, sizeof(msg), "aditus-random-order:%s", slug);
	if (n < 0 || (size_t)n >= sizeof(msg) ||
	    crypto_hmac_sha256(c->master_key, MASTER_KEY_LEN, msg,
	    (size_t)n, key) == -1) {
		log_warnx("queue %s: no order key", slug);
		return -1;
	}
	return 0;
}

int
draw_seed_hash(const uint8_t seed[DRAW_SEED_LEN], char hex[DRAW_HASH_HEX + 1])
{
	uint8_t		 md[EVP_MAX_MD_SIZE];
	unsigned int	 len = 0, i;

	if (EVP_Digest(seed, DRAW_SEED_LEN, md, &len, EVP_sha256(), NULL) != 1
	    || len != 32) {
		log_warnx("SHA-256 failed");
		return -1;
	}
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int64_t
draw_seal(const struct cfg *c, const char *slug,
    const uint8_t seed[DRAW_SEED_LEN], uint8_t *out, size_t cap)
{
	char	 aad[SLUG_MAX + 32];

	snprintf(aad, sizeof(aad), "queue-draw-seed:%s", slug);
	return crypto_seal(c->master_key, aad, seed, DRAW_SEED_LEN, out, cap);
}

int
draw_unseal(const struct cfg *c, const char *slug, const uint8_t *in,
    size_t len, uint8_t seed[DRAW_SEED_LEN])
{
	char	 aad[SLUG_MAX + 32];

	snprintf(aad, sizeof(aad), "queue-draw-seed:%s", slug);
	return crypto_unseal(c->master_key, aad, in, len, seed,
	    DRAW_SEED_LEN) == DRAW_SEED_LEN ? 0 : -1;
}

#define SEEDLESS_MAX	64	/* armings given a seed per run */

int
draw_new_seed(const struct cfg *c, const char *slug, uint8_t *sealed,
    size_t cap, size_t *len, char hex[DRAW_HASH_HEX + 1])
{
	uint8_t	 seed[DRAW_SEED_LEN];
	int64_t	 n = -1;

	if (crypto_random(seed, sizeof(seed)) == 0 &&
	    draw_seed_hash(seed, hex) == 0)
		n = draw_seal(c, slug, seed, sealed, cap);
	crypto_wipe(seed, sizeof(seed));
	if (n < 0) {
		log_warnx("draw %s: no seed (randomness or sealing failed)",
		    slug);
		return -1;
	}
	*len = (size_t)n;
	return 0;
}

enum app_err
draw_job(struct db *db, const struct cfg *c, int64_t *next_ms, int *closed)
{
	struct draw_pending	 pend[SEEDLESS_MAX];
	uint8_t			 sealed[SEALED_MAX];
	char			 hex[DRAW_HASH_HEX + 1];
	size_t			 n, i, len;
	int64_t			 k;
	int			 stored;
	enum app_err		 er;

	*next_ms = 0;
	*closed = 0;
	if ((er = db_draw_seedless(db, pend, SEEDLESS_MAX, &n)) != APP_OK)
		return er;
	for (i = 0; i < n; i++) {
		if (draw_new_seed(c, pend[i].slug, sealed, sizeof(sealed),
		    &len, hex) == -1)
			return APP_CRYPTO;
		if ((er = db_draw_set_seed(db, pend[i].id, pend[i].arm, sealed,
		    len, hex, &stored)) != APP_OK)
			return er;
		if (stored)
			log_info("draw %s: seed drawn, sha256 %s", pend[i].slug,
			    hex);
	}
	if ((er = db_draw_close(db, &k)) != APP_OK)
		return er;
	if (k > 0)
		log_info("draw: %lld pre-queue(s) closed at the opening",
		    (long long)k);
	*closed = (int)k;
	return db_draw_next(db, next_ms);
}

void
draw_state_json(struct json_object *o, const struct queue *q, int64_t now)
{
	const struct adm_queue	*a = &q->adm;
	int64_t			 left, p;

	if (a->opens_at_ms <= 0)
		return;
	left = a->opens_at_ms > now ? (a->opens_at_ms - now + 999) / 1000 : 0;
	json_object_object_add(o, "opensInSeconds",
	    json_object_new_int64(left));
	json_object_object_add(o, "drawSeedSha256", q->draw_seed_hash[0] !=
	    '\0' ? json_object_new_string(q->draw_seed_hash) : NULL);
	if ((p = adm_prequeue_size(a, now)) >= 0)
		json_object_object_add(o, "preQueue",
		    json_object_new_int64(p));
}

void
draw_info_json(struct json_object *o, const struct queue *q,
    const uint8_t *seed, int have_seed, int64_t now)
{
	char	 t[ISO_TIME_LEN + 1];
	char	 hex[2 * DRAW_SEED_LEN + 1];
	int	 i;

	if (q->adm.opens_at_ms <= 0)
		return;
	iso_time_format(q->adm.opens_at_ms, t, sizeof(t));
	json_object_object_add(o, "opensAt", json_object_new_string(t));
	draw_state_json(o, q, now);
	if (adm_prequeue_size(&q->adm, now) < 0 || !have_seed ||
	    seed == NULL)
		return;
	for (i = 0; i < DRAW_SEED_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", seed[i]);
	json_object_object_add(o, "drawSeed", json_object_new_string(hex));
}
