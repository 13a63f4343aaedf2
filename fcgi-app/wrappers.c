/*
 * wrappers.c - allocation wrappers (x*: exit on failure, try_*: return
 * NULL), the clock, strict integer parsing and rounding for display.
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
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return p;
}

void *
try_malloc(size_t n)
{
	return malloc(n == 0 ? 1 : n);
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
