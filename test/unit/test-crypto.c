/*
 * test-crypto.c - unit tests for fcgi-app/lib/crypto.c: base64url (RFC 4648
 * vectors in the URL alphabet and strict refusal of everything else),
 * HMAC-SHA256 (RFC 4231), AES-256-GCM seal/unseal, ct_equal, wipe and
 * the master key file.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "crypto.h"
#include "tap.h"

/* Encode n bytes of s and compare with want; free the result. */
static void
enc_is(const void *s, size_t n, const char *want)
{
	char	*got = crypto_b64url_encode(s, n);

	is_str(got, want, "crypto_b64url_encode(%zu bytes) = \"%s\"", n, want);
	free(got);
}

/* Decode text and compare with the n bytes of want. */
static void
dec_is(const char *text, const void *want, size_t n)
{
	unsigned char	 out[64];
	int64_t		 got;

	memset(out, 0xa5, sizeof(out));
	got = crypto_b64url_decode(text, strlen(text), out, sizeof(out));
	is_int(got, (int64_t)n, "crypto_b64url_decode(\"%s\") length", text);
	ok(got == (int64_t)n && memcmp(out, want, n) == 0,
	    "crypto_b64url_decode(\"%s\") bytes", text);
}

/* Decoding len bytes of text must fail with -1. */
static void
dec_bad(const char *text, size_t len, const char *what)
{
	unsigned char	 out[64];

	is_int(crypto_b64url_decode(text, len, out, sizeof(out)), -1,
	    "b64url_decode refuses %s", what);
}

/* RFC 4648 vectors, URL alphabet, strict refusals, round trips. */
static void
test_b64url(void)
{
	static const unsigned char	 url1[] = { 0xfb, 0xef, 0xbe };
	static const unsigned char	 url2[] = { 0xff, 0xff, 0xff };
	static const unsigned char	 url3[] = { 0xfb, 0xff };
	static const unsigned char	 url4[] = { 0xff };
	unsigned char			 big[1000], back[1000], out[8];
	char				*s;
	size_t				 n;
	int				 all;

	/* RFC 4648 section 10, padding removed. */
	enc_is("", 0, "");
	enc_is("f", 1, "Zg");
	enc_is("fo", 2, "Zm8");
	enc_is("foo", 3, "Zm9v");
	enc_is("foob", 4, "Zm9vYg");
	enc_is("fooba", 5, "Zm9vYmE");
	enc_is("foobar", 6, "Zm9vYmFy");
	/* Bytes that hit '+' and '/' in the standard alphabet. */
	enc_is(url1, sizeof(url1), "----");
	enc_is(url2, sizeof(url2), "____");
	enc_is(url3, sizeof(url3), "-_8");
	enc_is(url4, sizeof(url4), "_w");

	dec_is("", "", 0);
	dec_is("Zg", "f", 1);
	dec_is("Zm8", "fo", 2);
	dec_is("Zm9v", "foo", 3);
	dec_is("Zm9vYg", "foob", 4);
	dec_is("Zm9vYmE", "fooba", 5);
	dec_is("Zm9vYmFy", "foobar", 6);
	dec_is("----", url1, sizeof(url1));
	dec_is("____", url2, sizeof(url2));
	dec_is("-_8", url3, sizeof(url3));
	dec_is("_w", url4, sizeof(url4));

	dec_bad("Zg==", 4, "'=' padding");
	dec_bad("Zm8=", 4, "one '=' of padding");
	dec_bad("Zg=", 3, "partial padding");
	dec_bad("++++", 4, "'+' (standard alphabet)");
	dec_bad("////", 4, "'/' (standard alphabet)");
	dec_bad("Zm9v+A", 6, "a trailing '+'");
	dec_bad("Zm 9v", 5, "an inner space");
	dec_bad(" Zm9v", 5, "a leading space");
	dec_bad("Zm9v\n", 5, "a trailing newline");
	dec_bad("Zm9v\t", 5, "a trailing tab");
	dec_bad("Zm\0v", 4, "an embedded NUL");
	dec_bad("Zm9v%", 5, "'%'");
	dec_bad("Zm9.", 4, "'.'");
	dec_bad("Zm9\xc3\xa9", 5, "non-ASCII bytes");
	dec_bad("Z", 1, "length 1");
	dec_bad("Zm9vY", 5, "length 5 (1 mod 4)");
	dec_bad("Zm9vYmFyZ", 9, "length 9 (1 mod 4)");
	dec_bad("Zh", 2, "non-zero unused bits (\"Zh\")");
	dec_bad("Zm9", 3, "non-zero unused bits (\"Zm9\")");
	dec_bad("_x", 2, "non-zero unused bits (\"_x\")");
	is_int(crypto_b64url_decode(NULL, 4, out, sizeof(out)), -1,
	    "b64url_decode refuses NULL text");

	/* Capacity: exactly enough passes, one byte less fails. */
	is_int(crypto_b64url_decode("Zm9vYmFy", 8, out, 6), 6,
	    "b64url_decode fits in exactly 6 bytes");
	is_int(crypto_b64url_decode("Zm9vYmFy", 8, out, 5), -1,
	    "b64url_decode refuses output capacity 5 for 6 bytes");
	is_int(crypto_b64url_decode("Zm9vYmE", 7, out, 4), -1,
	    "b64url_decode refuses output capacity 4 for 5 bytes");
	is_int(crypto_b64url_decode("", 0, NULL, 0), 0,
	    "b64url_decode of empty text is 0 bytes");

	/* Round trips of every length 0..300, across the decode chunks. */
	for (n = 0; n < sizeof(big); n++)
		big[n] = (unsigned char)(n * 7 + 3);
	all = 1;
	for (n = 0; n <= 300; n++) {
		s = crypto_b64url_encode(big, n);
		if (s == NULL || strlen(s) != (4 * n + 2) / 3 ||
		    crypto_b64url_decode(s, strlen(s), back, sizeof(back)) !=
		    (int64_t)n || memcmp(back, big, n) != 0 ||
		    strpbrk(s, "+/=") != NULL)
			all = 0;
		free(s);
	}
	ok(all, "b64url round trip for every length 0..300");
	ok(crypto_random(big, sizeof(big)) == 0, "crypto_random 1000 bytes");
	s = crypto_b64url_encode(big, sizeof(big));
	ok(s != NULL && strlen(s) == 1334, "1000 random bytes give 1334 "
	    "characters");
	is_int(crypto_b64url_decode(s, strlen(s), back, sizeof(back)), 1000,
	    "1000 random bytes decode back to 1000");
	ok(memcmp(back, big, sizeof(big)) == 0,
	    "1000 random bytes round trip exactly");
	free(s);
}

/* RFC 4231 test case 2. */
static void
test_hmac(void)
{
	static const uint8_t	 want[HMAC_LEN] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e,
		0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
		0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
		0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	const char		*msg = "what do ya want for nothing?";
	uint8_t			 mac[HMAC_LEN];
	char			 hex[2 * HMAC_LEN + 1];
	size_t			 i;

	is_int(crypto_hmac_sha256("Jefe", 4, msg, strlen(msg), mac), 0,
	    "hmac_sha256 RFC 4231 case 2 succeeds");
	for (i = 0; i < HMAC_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	is_str(hex, "5bdcc146bf60754e6a042426089575c7"
	    "5a003f089d2739839dec58b964ec3843",
	    "hmac_sha256 RFC 4231 case 2 value");
	is_int(crypto_ct_equal(mac, want, HMAC_LEN), 1,
	    "ct_equal on the RFC 4231 MAC");
	crypto_hmac_sha256("Jefe", 4, msg, strlen(msg) - 1, mac);
	is_int(crypto_ct_equal(mac, want, HMAC_LEN), 0,
	    "a shorter message gives another MAC");
}

/* ct_equal on equal and unequal buffers. */
static void
test_ct_equal(void)
{
	is_int(crypto_ct_equal("abcdef", "abcdef", 6), 1, "ct_equal: equal");
	is_int(crypto_ct_equal("abcdef", "abcdeg", 6), 0,
	    "ct_equal: last differs");
	is_int(crypto_ct_equal("abcdef", "xbcdef", 6), 0,
	    "ct_equal: first differs");
	is_int(crypto_ct_equal("a", "b", 0), 1,
	    "ct_equal: zero length is equal");
}

/* seal/unseal round trip; any change to blob, aad or key fails. */
static void
test_seal(void)
{
	uint8_t		 key[MASTER_KEY_LEN], key2[MASTER_KEY_LEN];
	const char	*pt = "Zm9vYmFyc2VjcmV0LWZvci1zYWxl";
	unsigned char	 box[128], box2[128], open[128];
	size_t		 ptlen = strlen(pt);
	int64_t		 n, n2;

	memset(key, 0x11, sizeof(key));
	memset(key2, 0x11, sizeof(key2));
	key2[31] ^= 1;

	n = crypto_seal(key, "queue-secret:42", pt, ptlen, box, sizeof(box));
	is_int(n, (int64_t)ptlen + SEAL_OVERHEAD, "seal length is pt + 28");
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), (int64_t)ptlen, "unseal gives the plaintext length");
	ok(memcmp(open, pt, ptlen) == 0, "unseal gives the plaintext back");
	ok(memmem(box, (size_t)n, "Zm9vYmFy", 8) == NULL,
	    "the sealed blob does not hold the plaintext");

	n2 = crypto_seal(key, "queue-secret:42", pt, ptlen, box2, sizeof(box2));
	ok(n2 == n && memcmp(box, box2, (size_t)n) != 0,
	    "two seals of one plaintext differ (fresh nonce)");
	ok(memcmp(box, box2, 12) != 0, "two seals use different nonces");

	box[0] ^= 1;
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), -1, "unseal refuses a changed nonce");
	box[0] ^= 1;
	box[12] ^= 0x80;
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), -1, "unseal refuses a changed ciphertext byte");
	box[12] ^= 0x80;
	box[n - 1] ^= 1;
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), -1, "unseal refuses a changed tag");
	box[n - 1] ^= 1;
	is_int(crypto_unseal(key, "queue-secret:43", box, (size_t)n, open,
	    sizeof(open)), -1, "unseal refuses another aad");
	is_int(crypto_unseal(key, "", box, (size_t)n, open, sizeof(open)), -1,
	    "unseal refuses an empty aad");
	is_int(crypto_unseal(key2, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), -1, "unseal refuses another key");
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n - 1, open,
	    sizeof(open)), -1, "unseal refuses a truncated blob");
	is_int(crypto_unseal(key, "queue-secret:42", box, SEAL_OVERHEAD - 1,
	    open, sizeof(open)), -1, "unseal refuses a blob shorter than 28");
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    ptlen - 1), -1, "unseal refuses a too small output");
	is_int(crypto_unseal(key, "queue-secret:42", box, (size_t)n, open,
	    sizeof(open)), (int64_t)ptlen, "the restored blob opens again");
	is_int(crypto_seal(key, "a", pt, ptlen, box, ptlen + SEAL_OVERHEAD - 1),
	    -1, "seal refuses a too small output");

	n = crypto_seal(key, "empty", "", 0, box, sizeof(box));
	is_int(n, SEAL_OVERHEAD, "seal of nothing is 28 bytes");
	is_int(crypto_unseal(key, "empty", box, (size_t)n, open, sizeof(open)),
	    0, "unseal of a sealed nothing is 0 bytes");
	is_int(crypto_unseal(key, "other", box, (size_t)n, open, sizeof(open)),
	    -1, "a sealed nothing still binds the aad");
}

/*
 * Write text to a new temporary file with mode, returning its path in
 * path[64].  Returns 0 or -1.
 */
static int
keyfile(char path[64], const char *text, mode_t mode)
{
	int	 fd;
	size_t	 len = strlen(text);

	snprintf(path, 64, "/tmp/test-crypto-key.XXXXXX");
	if ((fd = mkstemp(path)) == -1)
		return -1;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, mode) == -1) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/* master_key_load on a file with text and mode; returns its result. */
static int
load(const char *text, mode_t mode, uint8_t key[MASTER_KEY_LEN])
{
	char	 path[64];
	int	 rc;

	if (keyfile(path, text, mode) == -1)
		return -99;
	rc = crypto_master_key_load(path, key);
	unlink(path);
	return rc;
}

/* master_key_load: modes, lengths, digits, missing files. */
static void
test_master_key(void)
{
	const char	*hex = "000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191a1b1c1d1e1f";
	char		 text[200];
	uint8_t		 key[MASTER_KEY_LEN], want[MASTER_KEY_LEN];
	size_t		 i;

	for (i = 0; i < MASTER_KEY_LEN; i++)
		want[i] = (uint8_t)i;

	snprintf(text, sizeof(text), "%s\n", hex);
	memset(key, 0, sizeof(key));
	is_int(load(text, 0600, key), 0, "master key 0600 with newline loads");
	ok(memcmp(key, want, sizeof(key)) == 0, "master key bytes are right");
	memset(key, 0, sizeof(key));
	is_int(load(hex, 0400, key), 0, "master key 0400 without newline");
	ok(memcmp(key, want, sizeof(key)) == 0, "master key bytes (0400)");
	snprintf(text, sizeof(text), "000102030405060708090A0B0C0D0E0F"
	    "101112131415161718191A1B1C1D1E1F\n");
	memset(key, 0, sizeof(key));
	is_int(load(text, 0600, key), 0, "master key in upper case loads");
	ok(memcmp(key, want, sizeof(key)) == 0, "master key bytes (upper)");

	snprintf(text, sizeof(text), "%s\n", hex);
	is_int(load(text, 0644, key), -1, "master key 0644 refused");
	is_int(load(text, 0640, key), -1, "master key 0640 refused");
	is_int(load(text, 0604, key), -1, "master key 0604 refused");
	is_int(load(text, 0610, key), -1, "master key 0610 refused");
	is_int(load(hex + 2, 0600, key), -1, "62 digits refused");
	snprintf(text, sizeof(text), "%s0\n", hex);
	is_int(load(text, 0600, key), -1, "65 digits refused");
	snprintf(text, sizeof(text), "%s\n\n", hex);
	is_int(load(text, 0600, key), -1, "two newlines refused");
	snprintf(text, sizeof(text), "%s\r\n", hex);
	is_int(load(text, 0600, key), -1, "CRLF refused");
	snprintf(text, sizeof(text), " %s", hex + 1);
	is_int(load(text, 0600, key), -1, "a space refused");
	snprintf(text, sizeof(text), "g%s", hex + 1);
	is_int(load(text, 0600, key), -1, "a non-hex digit refused");
	is_int(load("", 0600, key), -1, "an empty file refused");
	is_int(crypto_master_key_load("/nonexistent/aqueue.key", key), -1,
	    "a missing file refused");
	is_int(crypto_master_key_load("/tmp", key), -1, "a directory refused");
}

/* crypto_random and wipe. */
static void
test_misc(void)
{
	unsigned char	 a[32], b[32], z[32];

	is_int(crypto_random(a, sizeof(a)), 0, "crypto_random succeeds");
	is_int(crypto_random(b, sizeof(b)), 0, "crypto_random again");
	ok(memcmp(a, b, sizeof(a)) != 0, "two random draws differ");
	is_int(crypto_random(a, 0), 0, "crypto_random of 0 bytes");
	memset(z, 0, sizeof(z));
	crypto_wipe(a, sizeof(a));
	ok(memcmp(a, z, sizeof(a)) == 0, "wipe zeroes the buffer");
}

/* Runs every test; the exit status is TAP's. */
int
main(void)
{
	test_b64url();
	test_hmac();
	test_ct_equal();
	test_seal();
	test_master_key();
	test_misc();
	return done_testing();
}
