/*
 * draw.h - the fair draw of a scheduled opening: the admission order of
 * the P pre-queue numbers is a permutation pi of [0, P) computed from a
 * secret 32-byte seed, O(1) per number, with no row per number.
 *
 * pi is a keyed Feistel network (Luby-Rackoff construction) over a
 * domain of 2^(2h) values, the smallest even power of two >= P, with
 * cycle walking (Black and Rogaway, "Ciphers with Arbitrary Finite
 * Domains", CT-RSA 2002) into [0, P): a bijection by construction.
 * Round i (0 <= i < DRAW_ROUNDS) maps (L, R) to (R, L xor F_i(R)) with
 *   F_i(R) = first 8 bytes, big-endian, of
 *            HMAC-SHA256(seed, "aditus-draw" || i || P || R) mod 2^h
 * where i is one byte and P and R are 8 bytes big-endian each (RFC 2104
 * HMAC, FIPS 180-4 SHA-256, both from OpenSSL).  x = L * 2^h + R.
 * tools/verify-draw.py computes the same with nothing but Python's
 * standard library.
 */
#ifndef DRAW_H
#define DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct adm_queue;
struct cfg;
struct db;

#define DRAW_SEED_LEN	32	/* secret seed, bytes */
#define DRAW_HASH_HEX	64	/* SHA-256 in hex, characters */
#define DRAW_ROUNDS	6	/* Feistel rounds */
#define DRAW_P_MAX	1099511627775LL	/* = ADM_NUMBER_MAX */

/*
 * pi(x) for 0 <= x < p, 1 <= p <= DRAW_P_MAX: the drawn index of the
 * x-th pre-queue number.  Returns a value in [0, p), or -1 on bad
 * arguments or when HMAC fails (logged).
 */
int64_t	 draw_pi(const uint8_t seed[DRAW_SEED_LEN], int64_t p, int64_t x);

/*
 * The same for many x under one seed: draw_ctx_new() keys HMAC once
 * (returns NULL on failure, logged; free with draw_ctx_free(), which
 * accepts NULL), draw_ctx_pi() is draw_pi() with it.
 */
struct draw_ctx;
struct draw_ctx	*draw_ctx_new(const uint8_t seed[DRAW_SEED_LEN]);
int64_t		 draw_ctx_pi(struct draw_ctx *, int64_t p, int64_t x);
void		 draw_ctx_free(struct draw_ctx *);

/*
 * The admission position of number (>= 1) on a queue whose draw is
 * done with p pre-queue numbers: pi(number - 1) + 1 for number <= p,
 * number itself for number > p (later joiners keep arrival order).
 * Returns -1 on failure (see draw_pi()).
 */
int64_t	 draw_position(const uint8_t seed[DRAW_SEED_LEN], int64_t p,
	    int64_t number);

/*
 * The position of number on queue q at now as a visitor's admission
 * uses it (P = adm_prequeue_size()):
 *   no opening, or number > P: number (later joiners keep arrival
 *     order)
 *   before the opening (P not known yet): -1 for a number already
 *     issued (a pre-queue number: its place is not drawn yet)
 *   number <= P: the drawn position, or -1 while this process has no
 *     seed (have_seed 0)
 * Returns the position (>= 1) or -1 (undetermined: never admitted).
 */
int64_t	 draw_queue_position(const struct adm_queue *q,
	    const uint8_t *seed, int have_seed, int64_t number, int64_t now);

/*
 * The position of number n (>= 1) in q's random order (queuing method
 * random; admission.h, adm_order_block()): with start and size its
 * block's first number and size, start + pi(n - start), pi as above
 * over [0, size) under the block's seed
 *   HMAC-SHA256(key, "aditus-random" || start)
 * (start 8 bytes big-endian), key the queue's order key; n itself
 * outside the random order.  Returns the position (>= 1), or -1 when
 * n < 1 or HMAC fails (logged).
 */
int64_t	 draw_order_position(const struct adm_queue *q, const uint8_t *key,
	    int64_t n);

/*
 * The order key of queue slug, DRAW_SEED_LEN bytes into key:
 * HMAC-SHA256(master key of c, "aditus-random-order:" || slug).  It is
 * never published: who knew it would know every block's order ahead.
 * Returns 0, or -1 when HMAC fails (logged).
 */
int	 draw_order_key(const struct cfg *c, const char *slug,
	    uint8_t key[DRAW_SEED_LEN]);

/*
 * Add what a scheduled opening publishes to o (info, status): opensAt
 * (ISO 8601), opensInSeconds (ceil, 0 once open), drawSeedSha256 (hex,
 * published when the opening is armed), and from the opening on, when
 * the pre-queue is closed, preQueue (P) and drawSeed (hex; only with
 * have_seed).  Nothing for a queue without an opening.  Can't fail.
 */
struct json_object;
struct queue;
void	 draw_info_json(struct json_object *o, const struct queue *q,
	    const uint8_t *seed, int have_seed, int64_t now_ms);

/*
 * Add the opening's state to o (the admin API's site, the CLI): what
 * draw_info_json() adds but the time itself and the seed.  Can't fail.
 */
void	 draw_state_json(struct json_object *o, const struct queue *q,
	    int64_t now_ms);

/* SHA-256 of the seed, as 64 lower-case hex digits and a NUL, into hex. */
int	 draw_seed_hash(const uint8_t seed[DRAW_SEED_LEN],
	    char hex[DRAW_HASH_HEX + 1]);

/*
 * Seal and open a seed with the master key of c, bound to the queue's
 * slug (additional data "queue-draw-seed:<slug>").  draw_seal writes at
 * most SEALED_MAX bytes and returns the sealed length or -1; draw_unseal
 * returns 0 or -1 (altered, wrong key).
 */
int64_t	 draw_seal(const struct cfg *c, const char *slug,
	    const uint8_t seed[DRAW_SEED_LEN], uint8_t *out, size_t cap);
int	 draw_unseal(const struct cfg *c, const char *slug,
	    const uint8_t *in, size_t len, uint8_t seed[DRAW_SEED_LEN]);

/*
 * A new seed for an arming of queue slug: 32 random bytes, sealed with
 * the master key of c into sealed (cap bytes; *len its length) and
 * their SHA-256 in hex into hex.  The clear seed is wiped.  Returns 0,
 * or -1 when randomness, hashing or sealing fails (logged).
 */
int	 draw_new_seed(const struct cfg *c, const char *slug,
	    uint8_t *sealed, size_t cap, size_t *len,
	    char hex[DRAW_HASH_HEX + 1]);

/*
 * The scheduled-opening job (background worker, leader only), at the
 * database's clock:
 *  1. every armed queue without a seed gets 32 random bytes, sealed,
 *     and their SHA-256 published (in one statement guarded by the arm
 *     counter, so that a re-arm in between keeps its own, new seed);
 *  2. every armed queue whose opening has passed closes its pre-queue
 *     (P := last_number, the same rule as the join statement's).
 * *next_ms receives the time of the next opening still ahead (database
 * clock, Unix ms) or 0 when there is none, for the caller's timer;
 * *closed the number of pre-queues closed.  Returns APP_OK, APP_DB,
 * APP_DB_DOWN, APP_CRYPTO or APP_ENOMEM.
 */
enum app_err draw_job(struct db *, const struct cfg *, int64_t *next_ms,
	    int *closed);

#endif /* DRAW_H */
