/*
 * wrappers.c - allocation wrappers (x*: exit on failure, try_*: return
 * NULL), the clock, strict integer parsing, rounding for display and the
 * UTF-8 check.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aqueue.h"
#include "log.h"

static void
oom(void)
{
	log_warnx("out of memory");
	exit(1);
}

void *
xmalloc(size_t n)
{
	void	*p = malloc(n == 0 ? 1 : n);

	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void	*p = calloc(n == 0 ? 1 : n, sz == 0 ? 1 : sz);

	if (p == NULL)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*p;

	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void *
try_malloc(size_t n)
{
	return malloc(n == 0 ? 1 : n);
}

void *
try_calloc(size_t n, size_t size)
{
	return calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
}

void *
try_realloc(void *p, size_t n)
{
	return realloc(p, n == 0 ? 1 : n);
}

void *
try_reallocarray(void *p, size_t n, size_t size)
{
	return reallocarray(p, n == 0 ? 1 : n, size == 0 ? 1 : size);
}

char *
try_strdup(const char *s)
{
	return strdup(s);
}

char *
try_strndup(const char *s, size_t n)
{
	return strndup(s, n);
}

int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
mono_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
sleep_ms(int64_t ms)
{
	struct timespec	 ts, rem;

	if (ms <= 0)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &rem) == -1 && errno == EINTR)
		ts = rem;
}

int
parse_int64(const char *str, int64_t min, int64_t max, int64_t *out)
{
	const char	*p = str;
	char		*end;
	long long	 v;

	if (str == NULL || *str == '\0')
		return -1;
	if (*p == '-') {
		if (min >= 0)
			return -1;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	if (*p == '0' && p[1] != '\0')
		return -1;
	if (*p == '0' && p != str)	/* "-0" */
		return -1;
	errno = 0;
	v = strtoll(str, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

double
round_tenths(double x)
{
	return x <= 0 ? 0.0 : (double)(int64_t)(x * 10.0 + 0.5) / 10.0;
}

/*
 * See aqueue.h.  Each lead byte says how many continuation bytes follow
 * and the range the first of them must lie in (the rest are 80..BF):
 * E0 needs A0..BF (else overlong), ED 80..9F (else a surrogate), F0
 * 90..BF (else overlong), F4 80..8F (else above U+10FFFF); C0, C1 and
 * F5..FF never start a character.
 */
int64_t
utf8_chars(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, k;
	int64_t			 n = 0;
	unsigned char		 c, lo, hi;

	while (i < len) {
		c = p[i++];
		lo = 0x80;
		hi = 0xbf;
		if (c < 0x80)
			k = 0;
		else if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else
			return -1;
		if (len - i < k)
			return -1;
		for (; k > 0; k--, i++) {
			if (p[i] < lo || p[i] > hi)
				return -1;
			lo = 0x80;
			hi = 0xbf;
		}
		n++;
	}
	return n;
}
