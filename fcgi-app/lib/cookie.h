/*
 * cookie.h - reading a Cookie request header (RFC 6265 section 5.4 as a
 * server sees it), by the rules of CASES C15: pairs split on ';', each on
 * its first '=' only (values may hold '='), pairs without '=' skipped,
 * surrounding spaces and tabs trimmed from name and value, one pair of
 * surrounding double quotes stripped from the value; the order of pairs
 * is not reliable, so every pair with the name is offered, and the caller
 * accepts the first that it finds valid.  At most COOKIE_MAX bytes of
 * the header are looked at.
 */
#ifndef COOKIE_H
#define COOKIE_H

#include <stddef.h>

#define COOKIE_MAX	8192	/* bytes of a Cookie header looked at */

/*
 * Call ok(value, len, arg) for each value of cookie name in header (NULL:
 * none), in header order, until it returns non-zero.  value is not
 * NUL-terminated; empty values are offered too.  Returns 1 when ok
 * accepted one, else 0.  Can't fail.
 */
int	 cookie_find(const char *header, const char *name,
	    int (*ok)(const char *value, size_t len, void *arg), void *arg);

#endif /* COOKIE_H */
