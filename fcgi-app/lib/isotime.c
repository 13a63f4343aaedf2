/*
 * isotime.c - times as people and the API write them: Unix milliseconds
 * or ISO 8601 (RFC 3339) in, RFC 3339 in UTC out, durations in words
 * (see isotime.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "aqueue.h"
#include "isotime.h"

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, H. Hinnant). */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t	 era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n decimal digits at s into *v.  Returns 0 or -1. */
static int
digits(const char *s, int n, int64_t *v)
{
	int	 i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int
iso_time_parse(const char *t, int64_t *ms)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30,
	    31, 30, 31 };
	int64_t		 y, mo, d, h, mi, sec = 0, frac = 0, zh, zm, v;
	size_t		 len;
	int		 sign, n;

	if (t == NULL)
		return -1;
	len = strlen(t);
	if (len > 0 && strspn(t, "0123456789") == len)
		return parse_int64(t, 0, 253402300799999LL, ms);
	if (len < 17 || digits(t, 4, &y) || t[4] != '-' ||
	    digits(t + 5, 2, &mo) || t[7] != '-' || digits(t + 8, 2, &d) ||
	    (t[10] != 'T' && t[10] != 't') || digits(t + 11, 2, &h) ||
	    t[13] != ':' || digits(t + 14, 2, &mi))
		return -1;
	t += 16;
	if (*t == ':') {
		if (digits(t + 1, 2, &sec))
			return -1;
		t += 3;
		if (*t == '.') {
			t++;
			for (n = 0; t[n] >= '0' && t[n] <= '9'; n++)
				if (n < 3)
					frac = frac * 10 + (t[n] - '0');
			if (n == 0)
				return -1;
			for (; n < 3; n++)
				frac *= 10;
			t += strspn(t, "0123456789");
		}
	}
	if (*t == 'Z' || *t == 'z') {
		zh = zm = 0;
		sign = 1;
		t++;
	} else if (*t == '+' || *t == '-') {
		sign = *t == '-' ? -1 : 1;
		if (digits(t + 1, 2, &zh) || t[3] != ':' ||
		    digits(t + 4, 2, &zm) || zh > 23 || zm > 59)
			return -1;
		t += 6;
	} else
		return -1;
	if (*t != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > mdays[mo - 1] || (mo == 2 && d == 29 && !(y % 4 == 0 &&
	    (y % 100 != 0 || y % 400 == 0))) || h > 23 || mi > 59 ||
	    sec > 59)
		return -1;
	v = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + sec;
	v -= sign * (zh * 3600 + zm * 60);
	if (v < 0)
		return -1;
	*ms = v * 1000 + frac;
	return 0;
}

void
iso_time_format(int64_t ms, char *buf, size_t sz)
{
	struct tm	 tm;
	time_t		 s = (time_t)(ms / 1000);

	memset(&tm, 0, sizeof(tm));
	gmtime_r(&s, &tm);
	snprintf(buf, sz, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

void
iso_duration_text(int64_t s, char *buf, size_t sz)
{
	int64_t	 d, h, m;

	if (s < 0)
		snprintf(buf, sz, "-");
	else if (s < 60)
		snprintf(buf, sz, "under 1 min");
	else if (s < 3600)
		snprintf(buf, sz, "%lld min", (long long)(s / 60));
	else if (s < 86400) {
		h = s / 3600;
		m = s % 3600 / 60;
		if (m == 0)
			snprintf(buf, sz, "%lld h", (long long)h);
		else
			snprintf(buf, sz, "%lld h %lld min", (long long)h,
			    (long long)m);
	} else {
		d = s / 86400;
		h = s % 86400 / 3600;
		if (h == 0)
			snprintf(buf, sz, "%lld d", (long long)d);
		else
			snprintf(buf, sz, "%lld d %lld h", (long long)d,
			    (long long)h);
	}
}
