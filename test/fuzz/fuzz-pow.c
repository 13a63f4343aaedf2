/*
 * fuzz-pow.c - a proof-of-work solution as a client sends it (pow.c):
 * the challenge before the first NUL byte of the input, the nonce after
 * it, judged by pow_check() in its order.  Nothing the fuzzer makes up
 * passes (the challenges are signed); a challenge made here, with a
 * fuzzed nonce, passes exactly when its hash has the bits.
 */
#include "config.h"

#include "crypto.h"
#include "fuzz.h"
#include "pow.h"

static uint8_t	 key[POW_KEY_LEN];
static char	 made[POW_CHALLENGE_LEN + 1];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pow_challenge	 c;
	enum pow_verdict	 v;
	char			*s = fuzz_str(data, size), *nonce;
	char			 msg[POW_CHALLENGE_LEN + 2 + POW_NONCE_MAX];
	uint8_t			 h[32];

	if (made[0] == '\0') {
		memset(key, 7, sizeof(key));
		if (pow_challenge_make(key, 1, 1000000, 8, made) == -1)
			abort();
	}
	fuzz_split(s, size, &nonce);
	v = pow_check(key, 1, 1000000, s, strlen(s), nonce, strlen(nonce),
	    &c);
	if (v == POW_OK && strcmp(s, made) != 0)
		abort();	/* a challenge we never made */
	v = pow_check(key, 1, 1000000, made, POW_CHALLENGE_LEN, nonce,
	    strlen(nonce), &c);
	if (pow_nonce_ok(nonce, strlen(nonce))) {
		snprintf(msg, sizeof(msg), "%s.%s", made, nonce);
		if (crypto_sha256(msg, strlen(msg), h) == -1)
			abort();
		if ((v == POW_OK) != (pow_leading_zero_bits(h) >= 8))
			abort();
	} else if (v != POW_MALFORMED)
		abort();
	free(s);
	return 0;
}
