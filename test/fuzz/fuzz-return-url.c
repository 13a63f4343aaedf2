/*
 * fuzz-return-url.c - return-URL validation (CASES C09, C10): a shop
 * domain list before the first NUL byte of the input, a URL after it;
 * the list parsed (url_shop_domains_parse()), the URL judged as a return
 * URL, an origin and a target, the token appended.  An accepted return
 * URL is http(s), has no userinfo and is accepted again as it is.
 */
#include "config.h"

#include "fuzz.h"
#include "urlcheck.h"

static struct shop_domains	 d;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s = fuzz_str(data, size), *u, *ok, *again, *with;

	fuzz_split(s, size, &u);
	if (url_shop_domains_parse(s, &d) == -1 &&
	    url_shop_domains_parse("shop.example, http://127.0.0.1:8080",
	    &d) == -1)
		abort();
	if ((ok = url_return_check(u, &d)) != NULL) {
		if (strncmp(ok, "http://", 7) != 0 &&
		    strncmp(ok, "https://", 8) != 0)
			abort();
		if ((again = url_return_check(ok, &d)) == NULL)
			abort();
		free(again);
		free(ok);
	}
	(void)url_origin_allowed(u, &d);
	(void)url_target_valid(u);
	(void)url_token_param_name(u, strlen(u));
	if ((with = url_append_param(u, "aditus_queue_token", "a.b.c")) !=
	    NULL)
		free(with);
	free(s);
	return 0;
}
