/*
 * aqueue.h - types and helpers shared by every aditus-queue program
 * (the FastCGI pool, the operator CLI and later the worker).
 */
#ifndef AQUEUE_H
#define AQUEUE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Errors passed up the call chain.  APP_OK is zero so that
 * "if ((er = f()) != APP_OK) return er;" reads naturally.
 */
enum app_err {
	APP_OK = 0,	/* success */
	APP_ENOMEM,	/* allocation failed */
	APP_SYSTEM,	/* a system call failed (errno logged) */
	APP_DB,		/* database error (logged where it happened) */
	APP_DB_DOWN,	/* database unreachable: answer 503, retry later */
	APP_NOTFOUND,	/* the row or object does not exist */
	APP_INVALID,	/* input failed validation */
	APP_CRYPTO,	/* a cryptographic operation failed */
	APP_BUSY,	/* a paced resource is used up: answer 503, retry */
	APP__MAX
};

/*
 * Allocation wrappers.  The x* family logs and exits on failure: use it at
 * start-up and for small fixed-size allocations.  The try_* family returns
 * NULL: use it for sizes a client controls.  Nothing else calls malloc.
 */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
char	*xstrdup(const char *);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list)
	    __attribute__((format(printf, 1, 0)));
void	*try_malloc(size_t);
void	*try_calloc(size_t, size_t);
void	*try_realloc(void *, size_t);
void	*try_reallocarray(void *, size_t, size_t);
char	*try_strdup(const char *);
char	*try_strndup(const char *, size_t);

/*
 * Wall-clock time in milliseconds since the Unix epoch (CLOCK_REALTIME).
 * Can't fail.
 */
int64_t	 now_ms(void);

/*
 * Milliseconds of CLOCK_MONOTONIC: the same clock in every process of a
 * host, never stepped; for intervals only.  Can't fail.
 */
int64_t	 mono_ms(void);

/* The same clock in microseconds.  Can't fail. */
int64_t	 now_us(void);

/*
 * Sleep ms milliseconds (nothing for ms <= 0), resuming after signals
 * until the time is up.  Can't fail.
 */
void	 sleep_ms(int64_t ms);

/*
 * Parse a decimal integer in [min, max] from the whole of str: digits only
 * (an optional leading '-' when min < 0), no sign '+', no white space, no
 * leading zeros (except "0" itself).  Returns 0 and sets *out on success,
 * -1 on any malformed or out-of-range input (then *out is unchanged).
 */
int	 parse_int64(const char *str, int64_t min, int64_t max, int64_t *out);

/*
 * x rounded to tenths for display (CPU shares, inflow per minute): 0.0
 * for x <= 0.  Can't fail.
 */
double	 round_tenths(double x);

/*
 * The number of characters of the len bytes at s when they are
 * well-formed UTF-8 (RFC 3629 section 4; Unicode, table 3-7 "Well-Formed
 * UTF-8 Byte Sequences"): no overlong form, no encoded surrogate
 * (U+D800 to U+DFFF), nothing above U+10FFFF, no sequence cut short.
 * A NUL byte is a character like any other here.  Returns the count, or
 * -1 when the bytes are not well-formed UTF-8.  Can't fail.
 */
int64_t	 utf8_chars(const char *s, size_t len);

#endif /* AQUEUE_H */
