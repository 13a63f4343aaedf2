/*
 * test-lang.c - Accept-Language negotiation (CASES C14): every listed
 * header gives exactly the listed language; plus the page's own choice.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "lang.h"
#include "tap.h"

static void
pick_is(const char *h, const char *want)
{
	is_str(lang_code(lang_pick(h)), want,
	    "Accept-Language \"%.40s%s\" -> %s", h == NULL ? "(none)" : h,
	    h != NULL && strlen(h) > 40 ? "…" : "", want);
}

int
main(void)
{
	char		*big;
	size_t		 i;
	enum lang	 l;

	/* The table of CASES C14. */
	pick_is("de-DE,de;q=0.9,en;q=0.8", "de");
	pick_is("en-GB,de;q=0", "en");
	pick_is("de;q=0,en;q=0", "en");
	pick_is("fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5", "de");
	pick_is("*;q=0.5, de;q=0", "en");
	pick_is("DE", "de");
	pick_is("de;q=0.000, en;q=0.001", "en");
	pick_is("en;q=0.8, de;q=0.8", "en");
	pick_is("de;q=abc, en", "en");
	pick_is("de;q=1.5, en;q=0.5", "en");
	pick_is("de;q=-1, en", "en");
	pick_is(";;;,,,", "en");
	pick_is("", "en");
	pick_is(NULL, "en");
	pick_is("de-", "en");
	pick_is("-de", "en");
	big = xmalloc(8 * 1024 + 1);
	for (i = 0; i + 1 < 8 * 1024; i += 2)
		memcpy(big + i, "a,", 2);
	big[8 * 1024] = '\0';
	pick_is(big, "en");
	free(big);

	/* Boundaries of the same rules. */
	pick_is("dek, de-CH;q=0.5", "de");
	pick_is("dek", "en");
	pick_is("delete", "en");
	pick_is("de-CH", "de");
	pick_is("de;q=0.8, en;q=0.9", "en");
	pick_is("de;q=0.8, en;q=0.8, *", "de");
	pick_is("*", "en");
	pick_is("fr, *;q=0.1, en;q=0", "de");
	pick_is("de ; q=0.5 , en ; q=0.4", "de");
	pick_is("de;q=0.5000", "en");
	pick_is("de;q=1.0, en", "de");
	pick_is("de;q=1.001", "en");
	pick_is("de;Q=0.9", "de");
	pick_is("de-ch-1996", "de");
	pick_is("deutschland", "en");
	pick_is("d3", "en");

	/* The page's own choice. */
	is_int(lang_parse("de", &l), 0, "?lang=de accepted");
	is_int(l, LANG_DE, "?lang=de is German");
	is_int(lang_parse("en", &l), 0, "?lang=en accepted");
	is_int(l, LANG_EN, "?lang=en is English");
	is_int(lang_parse("DE", &l), -1, "?lang=DE refused");
	is_int(lang_parse("fr", &l), -1, "?lang=fr refused");
	is_int(lang_parse(NULL, &l), -1, "no ?lang refused");
	for (i = 0; i < MSG__MAX; i++)
		ok(strlen(lang_msg(LANG_DE, (enum msg)i)) > 0 &&
		    strlen(lang_msg(LANG_EN, (enum msg)i)) > 0,
		    "message %zu exists in both languages", i);
	return done_testing();
}
