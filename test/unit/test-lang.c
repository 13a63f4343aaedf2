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
	char		*big, *dir;
	const char	*src;
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
	/* "*" (q=1) prefers any language not named: the first such. */
	pick_is("de;q=0.8, en;q=0.8, *", "es");
	pick_is("de;q=0.8, en;q=0.8, *;q=0.5", "de");
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
	is_int(lang_parse("ar", &l), 0, "?lang=ar accepted");
	is_int(l, LANG_AR, "?lang=ar is Arabic");
	is_int(lang_parse("zh", &l), 0, "?lang=zh accepted");
	is_int(l, LANG_ZH, "?lang=zh is Chinese");

	/* The four further languages, chosen by the browser. */
	pick_is("es-ES,es;q=0.9,en;q=0.5", "es");
	pick_is("it-CH", "it");
	pick_is("ar-EG,ar;q=0.9", "ar");
	pick_is("zh-CN,zh;q=0.9,en;q=0.3", "zh");
	pick_is("zh;q=0, ar;q=0.2, it;q=0.3", "it");
	is_str(lang_dir(LANG_AR), "rtl", "Arabic is right to left");
	is_str(lang_dir(LANG_DE), "ltr", "German is left to right");
	is_str(lang_dir(LANG_ZH), "ltr", "Chinese is left to right");

	/* The catalogs: every message in every language. */
	is_str(lang_msg(LANG_EN, MSG_ROOM), "", "no catalog read: empty");
	src = getenv("srcdir") != NULL ? getenv("srcdir") : ".";
	dir = xasprintf("%s/templates", src);
	is_int(lang_load(dir), 0, "the shipped catalogs load");
	for (l = 0; l < LANG__MAX; l++)
		for (i = 0; i < MSG__MAX; i++)
			ok(strlen(lang_msg(l, (enum msg)i)) > 0,
			    "%s: message %s", lang_code(l),
			    lang_msg_name((enum msg)i));
	is_str(lang_msg(LANG_DE, MSG_YOUR_NUMBER), "Ihre Nummer",
	    "German text from de.txt");
	is_str(lang_msg(LANG_AR, MSG_YOUR_NUMBER), "رقمك",
	    "Arabic text from ar.txt");
	is_str(lang_msg(LANG_EN, MSG_MINUTES), "{lo}–{hi} min",
	    "English range text");
	is_int(lang_load("/nonexistent"), -1, "no English catalog: refused");
	is_str(lang_msg(LANG_DE, MSG_YOUR_NUMBER), "Ihre Nummer",
	    "a refused load keeps the catalogs in use");
	free(dir);
	return done_testing();
}
