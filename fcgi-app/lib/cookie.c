/*
 * cookie.c - finding a cookie's values in a Cookie header (cookie.h).
 */
#include "config.h"

#include <string.h>

#include "cookie.h"

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

int
cookie_find(const char *h, const char *name,
    int (*ok)(const char *, size_t, void *), void *arg)
{
	const char	*p, *end, *semi, *eq, *k, *ke, *v, *ve;
	size_t		 nlen = strlen(name);

	if (h == NULL)
		return 0;
	end = h + strnlen(h, COOKIE_MAX);
	for (p = h; p < end; p = semi + 1) {
		if ((semi = memchr(p, ';', (size_t)(end - p))) == NULL)
			semi = end;
		if ((eq = memchr(p, '=', (size_t)(semi - p))) != NULL) {
			for (k = p; k < eq && blank(*k); k++)
				;
			for (ke = eq; ke > k && blank(ke[-1]); ke--)
				;
			for (v = eq + 1; v < semi && blank(*v); v++)
				;
			for (ve = semi; ve > v && blank(ve[-1]); ve--)
				;
			if (ve - v >= 2 && *v == '"' && ve[-1] == '"') {
				v++;
				ve--;
			}
			if ((size_t)(ke - k) == nlen &&
			    memcmp(k, name, nlen) == 0 &&
			    ok(v, (size_t)(ve - v), arg))
				return 1;
		}
		if (semi == end)
			break;
	}
	return 0;
}
