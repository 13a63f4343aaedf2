/*
 * test-cookie.c - the Cookie header rules of CASES C15 (cookie.h): the
 * six shapes, and what the parser must never do.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "cookie.h"
#include "tap.h"

#define JWT	"eyJhbGciOiJIUzI1NiJ9.eyJxbnIiOjF9.c2ln"

/* Accepts the value JWT only; records every value offered. */
struct seen {
	char	 all[512];
	int	 n;
};

static int
want_jwt(const char *v, size_t len, void *arg)
{
	struct seen	*s = arg;
	size_t		 used = strlen(s->all);

	if (used + len + 2 < sizeof(s->all)) {
		memcpy(s->all + used, v, len);
		memcpy(s->all + used + len, "|", 2);
	}
	s->n++;
	return len == strlen(JWT) && memcmp(v, JWT, len) == 0;
}

static void
shape(const char *h, int want, const char *offered, const char *what)
{
	struct seen	 s = { "", 0 };

	is_int(cookie_find(h, "aditus_queue", want_jwt, &s), want, "%s", what);
	is_str(s.all, offered, "%s: values offered", what);
}

int
main(void)
{
	char	*big;
	size_t	 i, n;

	shape("flag; theme=a=b; aditus_queue=" JWT, 1, JWT "|",
	    "1 a pair without '=', a value with '='");
	shape("aditus_queue=; aditus_queue=" JWT, 1, "|" JWT "|",
	    "2 an empty duplicate first");
	shape("aditus_queue=old.jwt.x; aditus_queue=" JWT, 1,
	    "old.jwt.x|" JWT "|", "3 a stale duplicate first");
	shape("aditus_queue=\"" JWT "\"", 1, JWT "|", "4 quoted");
	shape("aditus_queue=" JWT, 1, JWT "|", "5 no space after the colon");
	shape("  aditus_queue \t=  " JWT "  ", 1, JWT "|",
	    "5 spaces around the name and '='");
	shape("theme=a=b", 0, "", "no such cookie");
	shape("aditus_queuex=" JWT "; xaditus_queue=" JWT, 0, "",
	    "names match exactly");
	shape("aditus_queue", 0, "", "a bare name is skipped");
	shape(";;;", 0, "", "only separators");
	shape("", 0, "", "empty header");
	shape("aditus_queue=\"", 0, "\"|", "one quote is not a pair");
	is_int(cookie_find(NULL, "aditus_queue", want_jwt, NULL), 0,
	    "no header");

	/* 6: a 16 KB header; the pass beyond the cap is not seen. */
	n = 16 * 1024;
	big = xmalloc(n + sizeof("; aditus_queue=" JWT));
	for (i = 0; i + 7 < n; i += 7)
		memcpy(big + i, "c=vvv; ", 7);
	memcpy(big + i, "aditus_queue=" JWT,
	    sizeof("aditus_queue=" JWT));
	{
		struct seen	 s = { "", 0 };

		is_int(cookie_find(big, "aditus_queue", want_jwt, &s), 0,
		    "6 the pass beyond 8 KiB is ignored");
		is_int(s.n, 0, "6 nothing offered");
	}
	/* ... and within the cap it is found. */
	memcpy(big + 7 * 100, "aditus_queue=" JWT,
	    sizeof("aditus_queue=" JWT));
	shape(big, 1, JWT "|", "6 the pass within 8 KiB, after 100 cookies");
	free(big);
	return done_testing();
}
