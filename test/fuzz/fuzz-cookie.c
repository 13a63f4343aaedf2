/*
 * fuzz-cookie.c - a Cookie header (cookie_find(), CASES C15): the
 * cookie's name before the first NUL byte of the input, the header
 * after it.  Every value offered lies within the header.
 */
#include "config.h"

#include "cookie.h"
#include "fuzz.h"

struct seen {
	const char	*h;
	size_t		 n;
};

static int
check(const char *v, size_t len, void *arg)
{
	struct seen	*s = arg;

	if (v < s->h || v + len > s->h + s->n)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*s = fuzz_str(data, size), *h;
	struct seen	 seen;

	fuzz_split(s, size, &h);
	seen.h = h;
	seen.n = strlen(h);
	(void)cookie_find(h, s, check, &seen);
	(void)cookie_find(h, "aditus_wr_sale", check, &seen);
	free(s);
	return 0;
}
