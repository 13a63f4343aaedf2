/*
 * fuzz-lang.c - Accept-Language (lang_pick(), CASES C14) and the
 * visitor's ?lang= choice (lang_parse()).
 */
#include "config.h"

#include "fuzz.h"
#include "lang.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*s = fuzz_str(data, size);
	enum lang	 l;

	l = lang_pick(s);
	if (l >= LANG__MAX)
		abort();
	(void)lang_parse(s, &l);
	free(s);
	return 0;
}
