/*
 * fuzz-token.c - token verification (token_verify(), CASES C03, C05,
 * C07): any bytes give one of the reasons, and a valid verdict only for
 * an unexpired token of this queue (the seeds hold one signed here).
 */
#include "config.h"

#include "fuzz.h"
#include "token.h"

#define KEY	"fuzz-secret-0123456789abcdef-0123456789abc"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct token_claims	 c;
	enum token_reason	 r;

	r = token_verify((const char *)data, size, "sale", KEY,
	    sizeof(KEY) - 1, 1800000000, 0, &c);
	if (r >= TOKEN__MAX)
		abort();
	/* Valid means unexpired for this queue. */
	if (r == TOKEN_VALID && (c.exp <= 1800000000 || c.qnr < 0))
		abort();
	return 0;
}
