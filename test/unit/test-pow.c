/*
 * test-pow.c - the proof of work (pow.c, pow-used.c): the leading zero
 * bits of a digest bit by bit (CASES C26's table), the challenge's
 * binding (queue, time, bits, random, each length-prefixed under the
 * MAC), every verdict in its order, the regression of CASES C42 (a
 * client's hash, bits or expiry are never read: the check takes none,
 * and a nonce one bit short fails), and the single-use record across
 * processes.
 */
#include "config.h"

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto.h"
#include "pow-used.h"
#include "pow.h"
#include "tap.h"

static uint8_t	 key[POW_KEY_LEN];

/* A digest whose first bytes are b[0..n), the rest 0xff. */
static void
digest(uint8_t h[32], const uint8_t *b, size_t n)
{
	memset(h, 0xff, 32);
	memcpy(h, b, n);
}

static void
test_bits(void)
{
	static const struct {
		uint8_t	 b[4];
		int	 zeros;
		int	 d20, d21;
	} t[] = {
		{ { 0x00, 0x00, 0x0f, 0xff }, 20, 1, 0 },
		{ { 0x00, 0x00, 0x08, 0x00 }, 20, 1, 0 },
		{ { 0x00, 0x00, 0x07, 0xff }, 21, 1, 1 },
		{ { 0x00, 0x00, 0x1f, 0xff }, 19, 0, 0 },
	};
	uint8_t	 h[32];
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		digest(h, t[i].b, 4);
		is_int(pow_leading_zero_bits(h), t[i].zeros,
		    "%02x %02x %02x %02x: %d zero bits", t[i].b[0], t[i].b[1],
		    t[i].b[2], t[i].b[3], t[i].zeros);
		is_int(pow_meets(h, 20), t[i].d20, "... d=20");
		is_int(pow_meets(h, 21), t[i].d21, "... d=21");
	}
	memset(h, 0, 32);
	h[4] = 0xff;
	ok(pow_leading_zero_bits(h) >= 32, "00 00 00 00: at least 32");
	is_int(pow_meets(h, 20), 1, "... d=20");
	is_int(pow_meets(h, 21), 1, "... d=21");
	is_int(pow_meets(h, 0), 1, "d=0: always");
	digest(h, (const uint8_t *)"\xff", 1);
	is_int(pow_meets(h, 0), 1, "d=0 on 0 zero bits");
	is_int(pow_meets(h, 256), 0, "d=256: not this one");
	memset(h, 0, 32);
	is_int(pow_leading_zero_bits(h), 256, "all zero: 256");
	is_int(pow_meets(h, 256), 1, "d=256: only the all-zero hash");
	is_int(pow_meets(h, 257), -1, "d=257: error");
	is_int(pow_meets(h, -1), -1, "d=-1: error");
	/* One bit in the middle of the second byte. */
	digest(h, (const uint8_t *)"\x00\x10", 2);
	is_int(pow_leading_zero_bits(h), 11, "00 10: 11 bits, not 8 or 12");
}

/* SHA-256(challenge "." nonce) zero bits. */
static int
zeros_of(const char *ch, const char *nonce)
{
	char	 buf[512];
	uint8_t	 h[32];

	snprintf(buf, sizeof(buf), "%s.%s", ch, nonce);
	if (crypto_sha256(buf, strlen(buf), h) == -1)
		return -1;
	return pow_leading_zero_bits(h);
}

/*
 * A nonce for ch: exactly zeros zero bits (exact 1), or at least zeros.
 * Into out (32 bytes).
 */
static void
find(const char *ch, int zeros, int exact, char out[32])
{
	long	 i;
	int	 z;

	for (i = 0;; i++) {
		snprintf(out, 32, "%ld", i);
		z = zeros_of(ch, out);
		if (exact ? z == zeros : z >= zeros)
			return;
	}
}

static void
test_challenge(void)
{
	struct pow_challenge	 c;
	char			 a[POW_CHALLENGE_LEN + 1];
	char			 b[POW_CHALLENGE_LEN + 1];
	char			 t[POW_CHALLENGE_LEN + 1];
	char			 n[32], n2[32], longn[80];
	int64_t			 now = 1800000000000LL;
	uint8_t			 other[POW_KEY_LEN];
	enum pow_verdict	 v;

	is_int(pow_challenge_make(key, 7, now, 16, a), 0, "made");
	is_int((long long)strlen(a), POW_CHALLENGE_LEN, "88 characters");
	ok(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_") == POW_CHALLENGE_LEN, "base64url, no '.'");
	is_int(pow_challenge_make(key, 7, now, 16, b), 0, "another");
	ok(strcmp(a, b) != 0, "each challenge its own random");
	is_int(pow_challenge_make(key, 7, now, 7, t), -1, "bits 7 refused");
	is_int(pow_challenge_make(key, 7, now, 25, t), -1,
	    "bits 25 refused");

	find(a, 16, 0, n);
	is_int(pow_check(key, 7, now + 1000, a, strlen(a), n, strlen(n), &c),
	    POW_OK, "a solved challenge");
	is_int(c.bits, 16, "its bits, as signed");
	is_int(c.queue_id, 7, "its queue");
	is_int(c.issued_ms, now, "its issue time");
	/* The same body again passes the check: the record spends it. */
	is_int(pow_check(key, 7, now + 2000, a, strlen(a), n, strlen(n), &c),
	    POW_OK, "the check alone is stateless");
	/* A's nonce does not solve B (the hash covers the challenge). */
	if (zeros_of(b, n) < 16)
		is_int(pow_check(key, 7, now, b, strlen(b), n, strlen(n), &c),
		    POW_INSUFFICIENT, "A's nonce with B: insufficient_work");
	/* One bit short: 15 zero bits at 16. */
	find(a, 15, 1, n2);
	is_int(pow_check(key, 7, now, a, strlen(a), n2, strlen(n2), &c),
	    POW_INSUFFICIENT, "one bit short: insufficient_work");
	/* Nothing but challenge and nonce goes in: 0 zero bits fail. */
	find(a, 0, 1, n2);
	is_int(pow_check(key, 7, now, a, strlen(a), n2, strlen(n2), &c),
	    POW_INSUFFICIENT, "0 zero bits: insufficient_work");
	is_int(pow_check(key, 8, now, a, strlen(a), n, strlen(n), &c),
	    POW_MISMATCH, "another queue: challenge_mismatch");
	is_int(pow_check(key, 7, now + 300000, a, strlen(a), n, strlen(n),
	    &c), POW_OK, "at 300 s: still valid");
	is_int(pow_check(key, 7, now + 300001, a, strlen(a), n, strlen(n),
	    &c), POW_EXPIRED, "after 300 s: challenge_expired");
	/* Tampered: every character changed in turn breaks the MAC. */
	memcpy(t, a, sizeof(t));
	t[30] = t[30] == 'A' ? 'B' : 'A';
	is_int(pow_check(key, 7, now, t, strlen(t), n, strlen(n), &c),
	    POW_INVALID, "an edited character: challenge_invalid");
	memcpy(t, a, sizeof(t));
	/* bits live in byte 17: characters 22-23 of the text. */
	t[23] = t[23] == 'B' ? 'C' : 'B';
	is_int(pow_check(key, 7, now, t, strlen(t), n, strlen(n), &c),
	    POW_INVALID, "edited difficulty: challenge_invalid");
	memset(other, 0x5a, sizeof(other));
	is_int(pow_check(other, 7, now, a, strlen(a), n, strlen(n), &c),
	    POW_INVALID, "another installation's key: challenge_invalid");
	is_int(pow_check(key, 7, now, "c", 1, "n", 1, &c), POW_INVALID,
	    "\"c\": challenge_invalid");
	is_int(pow_check(key, 7, now, a, strlen(a) - 1, n, strlen(n), &c),
	    POW_INVALID, "cut short: challenge_invalid");
	/* Malformed: lengths and characters. */
	memset(longn, '1', 65);
	longn[65] = '\0';
	is_int(pow_check(key, 7, now, a, strlen(a), longn, 65, &c),
	    POW_MALFORMED, "a 65-character nonce: pow_malformed");
	longn[64] = '\0';
	v = pow_check(key, 7, now, a, strlen(a), longn, 64, &c);
	ok(v == POW_OK || v == POW_INSUFFICIENT,
	    "64 characters: judged on the work (%s)", pow_code(v));
	is_int(pow_check(key, 7, now, a, strlen(a), "", 0, &c),
	    POW_MALFORMED, "an empty nonce: pow_malformed");
	is_int(pow_check(key, 7, now, a, strlen(a), "a b", 3, &c),
	    POW_MALFORMED, "a space: pow_malformed");
	is_int(pow_check(key, 7, now, a, strlen(a), "\xc3\xa9", 2, &c),
	    POW_MALFORMED, "non-ASCII: pow_malformed");
	is_int(pow_check(key, 7, now, "", 0, n, strlen(n), &c),
	    POW_MALFORMED, "an empty challenge: pow_malformed");
	is_int(pow_check(key, 7, now, "x\0y", 3, n, strlen(n), &c),
	    POW_MALFORMED, "a NUL in the challenge: pow_malformed");
	is_str(pow_code(POW_INSUFFICIENT), "insufficient_work", "code");
	is_str(pow_code(POW_USED), "challenge_used", "code");
	is_str(pow_code(POW_REQUIRED), "pow_required", "code");
}

static void
test_key(void)
{
	uint8_t	 m1[32], m2[32], k1[POW_KEY_LEN], k2[POW_KEY_LEN];

	memset(m1, 1, sizeof(m1));
	memset(m2, 2, sizeof(m2));
	is_int(pow_key(m1, sizeof(m1), k1), 0, "key from the master key");
	is_int(pow_key(m1, sizeof(m1), k2), 0, "again");
	ok(memcmp(k1, k2, sizeof(k1)) == 0,
	    "the same master key, the same key (every process, every host, "
	    "every start)");
	is_int(pow_key(m2, sizeof(m2), k2), 0, "another master key");
	ok(memcmp(k1, k2, sizeof(k1)) != 0, "another key");
	ok(memcmp(k1, m1, sizeof(k1)) != 0, "not the master key itself");
}

/* A challenge of random r (its first byte b, then a counter). */
static void
mk(struct pow_challenge *c, uint8_t b, uint64_t k)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->random, &k, 8);
	c->random[8] = b;
}

static void
test_used(void)
{
	struct pow_challenge	 c, d;
	int64_t			 now = 1000000;
	int			 st, i, full = 0;
	pid_t			 pid;

	mk(&c, 1, 42);
	is_int(pow_used_reserve(&c, now + 300000, now), POW_USED_FRESH,
	    "without a pool: always fresh");
	is_int(pow_used_init(1024, NULL), 0, "a record of 1024");
	is_int(pow_used_reserve(&c, now + 300000, now), POW_USED_FRESH,
	    "reserved");
	is_int(pow_used_reserve(&c, now + 300000, now), POW_USED_SPENT,
	    "a second join under way: refused");
	pow_used_done(&c, 0);
	is_int(pow_used_reserve(&c, now + 300000, now), POW_USED_FRESH,
	    "given back (the join failed): usable again");
	pow_used_done(&c, 1);
	is_int(pow_used_reserve(&c, now + 300000, now + 1000),
	    POW_USED_SPENT, "spent: refused");
	/* In another process of the pool too. */
	if ((pid = fork()) == 0)
		_exit(pow_used_reserve(&c, now + 300000, now) ==
		    POW_USED_SPENT ? 0 : 1);
	waitpid(pid, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 9, 0,
	    "spent in another process too");
	mk(&d, 2, 43);
	if ((pid = fork()) == 0) {
		int r = pow_used_reserve(&d, now + 300000, now) ==
		    POW_USED_FRESH;

		pow_used_done(&d, 1);
		_exit(r ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 9, 0,
	    "spent by another process");
	is_int(pow_used_reserve(&d, now + 300000, now), POW_USED_SPENT,
	    "... refused here");
	/* Forgotten once expired (the check refuses it by age then). */
	is_int(pow_used_reserve(&c, now + 300000, now + 300000),
	    POW_USED_FRESH, "expired entries are room again");
	/* A full neighbourhood: the join is refused, never let through. */
	for (i = 0; i < 70; i++) {
		mk(&d, 3, 42 + (uint64_t)1024 * (uint64_t)(i + 1));
		if (pow_used_reserve(&d, now + 300000, now) ==
		    POW_USED_FULL) {
			full = 1;
			break;
		}
	}
	ok(full && i >= 60, "a full neighbourhood answers full (after %d)",
	    i);
}

int
main(void)
{
	memset(key, 0x42, sizeof(key));
	test_bits();
	test_key();
	test_challenge();
	test_used();
	return done_testing();
}
