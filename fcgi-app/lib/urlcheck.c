/*
 * urlcheck.c - return-URL validation against a queue's shop domains, CORS
 * origin matching, and appending the token parameter to a URL.
 *
 * Everything here is a hand-written parser of a deliberately small URL
 * subset: what a browser's location.href looks like for an allowed shop.
 * Whatever falls outside that subset is rejected, never repaired.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aqueue.h"
#include "urlcheck.h"

/* Separators between shop domain entries in a list. */
#define DOMAIN_SEPS	", \t\r\n"

/* Longest serialised origin: "https://" host ":" 65535, plus NUL. */
#define ORIGIN_MAX	(sizeof("https://") - 1 + 253 + sizeof(":65535"))

/*
 * ASCII lower case of c (an unsigned char value); locale-independent.
 * Can't fail.
 */
static int
lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Whether c is an ASCII decimal digit.  Can't fail. */
static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Whether c is an ASCII hexadecimal digit (either case).  Can't fail. */
static int
is_xdigit(int c)
{
	return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f');
}

/*
 * Whether the scheme prefix at s (len bytes) is "http://" or "https://",
 * compared case-insensitively.  On a match, writes the lower-case scheme
 * name into scheme (at least 6 bytes) and returns the length of the prefix
 * including "://"; returns 0 otherwise.
 */
static size_t
scheme_parse(const char *s, size_t len, char *scheme)
{
	static const char *const schemes[] = { "https", "http" };
	size_t			 i, j, n;

	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		n = strlen(schemes[i]);
		if (len < n + 3)
			continue;
		for (j = 0; j < n; j++)
			if (lower((unsigned char)s[j]) != schemes[i][j])
				break;
		if (j < n || memcmp(s + n, "://", 3) != 0)
			continue;
		memcpy(scheme, schemes[i], n + 1);
		return n + 3;
	}
	return 0;
}

/*
 * Whether s (len bytes) is an IPv4 address in canonical dotted-quad form:
 * four decimal parts 0..255, no leading zeros, nothing else.  Returns 1 if
 * so, 0 otherwise.
 */
static int
ipv4_canonical(const char *s, size_t len)
{
	size_t	 i = 0, start;
	int	 parts, v;

	for (parts = 0; parts < 4; parts++) {
		if (parts > 0) {
			if (i >= len || s[i] != '.')
				return 0;
			i++;
		}
		start = i;
		v = 0;
		while (i < len && is_digit((unsigned char)s[i]) &&
		    i - start < 3)
			v = v * 10 + (s[i++] - '0');
		if (i == start || v > 255)
			return 0;
		if (s[start] == '0' && i - start > 1)
			return 0;
	}
	return i == len;
}

/*
 * Validate the host s (len bytes) and write it lower-cased and
 * NUL-terminated into buf (at least 254 bytes).  A host is a DNS name of
 * labels [A-Za-z0-9-] (1..63 octets, not starting or ending with '-'; at
 * most 253 octets in all; no empty label, so no trailing dot), or an IPv4
 * literal.  A name whose last label looks numeric (all digits, or "0x"
 * with hex digits, which a browser would parse as IPv4) must be a
 * canonical dotted quad.  Returns 0 on success, -1 if invalid (buf is
 * then unspecified).
 */
static int
host_parse(const char *s, size_t len, char *buf)
{
	size_t	 i, label = 0, last;
	int	 c, numeric;

	if (len == 0 || len > 253)
		return -1;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '.') {
			if (i == label || buf[i - 1] == '-')
				return -1;
			label = i + 1;
		} else {
			if (c == '-' && i == label)
				return -1;
			if (c != '-' && !is_digit(c) &&
			    !(lower(c) >= 'a' && lower(c) <= 'z'))
				return -1;
			if (i - label >= 63)
				return -1;
		}
		buf[i] = (char)lower(c);
	}
	buf[len] = '\0';
	if (label == len || buf[len - 1] == '-')
		return -1;
	last = label;

	/* Does the last label make a browser parse the host as IPv4? */
	numeric = 1;
	if (len - last >= 2 && buf[last] == '0' && buf[last + 1] == 'x') {
		for (i = last + 2; i < len; i++)
			if (!is_xdigit((unsigned char)buf[i]))
				numeric = 0;
	} else {
		for (i = last; i < len; i++)
			if (!is_digit((unsigned char)buf[i]))
				numeric = 0;
	}
	if (numeric && !ipv4_canonical(buf, len))
		return -1;
	return 0;
}

/*
 * Parse the port s (len bytes): 1..5 digits, no leading zero, value
 * 1..65535.  Returns the port, or -1 if invalid.
 */
static int
port_parse(const char *s, size_t len)
{
	size_t	 i;
	int	 v = 0;

	if (len == 0 || len > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < len; i++) {
		if (!is_digit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 65535 ? v : -1;
}

/*
 * Parse the authority "host[:port]" s (len bytes) into o, whose scheme is
 * already set.  The scheme's default port is stored as 0.  No userinfo,
 * no IPv6 literal, no percent-escapes (the host character set excludes
 * them).  Returns 0 on success, -1 if invalid.
 */
static int
authority_parse(const char *s, size_t len, struct shop_origin *o)
{
	const char	*colon;
	size_t		 hlen;
	int		 port = 0, dflt;

	colon = memchr(s, ':', len);
	hlen = colon == NULL ? len : (size_t)(colon - s);
	if (host_parse(s, hlen, o->host) == -1)
		return -1;
	if (colon != NULL &&
	    (port = port_parse(colon + 1, len - hlen - 1)) == -1)
		return -1;
	dflt = strcmp(o->scheme, "https") == 0 ? 443 : 80;
	o->port = port == dflt ? 0 : port;
	return 0;
}

/*
 * Write the RFC 6454 serialisation of o (scheme "://" host [":" port])
 * into buf of size sz (at least ORIGIN_MAX).  Returns the length written.
 */
static size_t
origin_format(const struct shop_origin *o, char *buf, size_t sz)
{
	int	 n;

	if (o->port != 0)
		n = snprintf(buf, sz, "%s://%s:%d", o->scheme, o->host,
		    o->port);
	else
		n = snprintf(buf, sz, "%s://%s", o->scheme, o->host);
	return n < 0 ? 0 : (size_t)n;
}

/*
 * Whether o equals (scheme, host, port) one entry of d.  Returns 1 if so,
 * 0 otherwise.
 */
static int
origin_listed(const struct shop_origin *o, const struct shop_domains *d)
{
	size_t	 i;

	for (i = 0; i < d->n; i++)
		if (strcmp(o->scheme, d->o[i].scheme) == 0 &&
		    strcmp(o->host, d->o[i].host) == 0 &&
		    o->port == d->o[i].port)
			return 1;
	return 0;
}

/*
 * Whether s (len bytes) still holds one of the escapes "%5C", "%09",
 * "%0A", "%0D" (any case) that a later decoder or the browser would turn
 * into a backslash or white space.  Returns 1 if so, 0 otherwise.
 */
static int
bad_escape(const char *s, size_t len)
{
	static const char *const bad[] = { "5c", "09", "0a", "0d" };
	size_t			 i, j;

	for (i = 0; i + 2 < len; i++) {
		if (s[i] != '%')
			continue;
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			if (lower((unsigned char)s[i + 1]) == bad[j][0] &&
			    lower((unsigned char)s[i + 2]) == bad[j][1])
				return 1;
	}
	return 0;
}

/*
 * Parse one shop domain entry s (len bytes): "host[:port]" (https), or
 * "http://" / "https://" (any case) followed by "host[:port]", into o.
 * Returns 0 on success, -1 if malformed (path, query, userinfo, wildcard,
 * bad host or port, or another scheme).
 */
static int
entry_parse(const char *s, size_t len, struct shop_origin *o)
{
	size_t	 n;

	if ((n = scheme_parse(s, len, o->scheme)) == 0)
		memcpy(o->scheme, "https", sizeof("https"));
	return authority_parse(s + n, len - n, o);
}

int
url_shop_domains_parse(const char *list, struct shop_domains *out)
{
	const char	*p;
	size_t		 len;

	if (out == NULL)
		return -1;
	out->n = 0;
	if (list == NULL)
		return 0;
	for (p = list; ; p += len) {
		p += strspn(p, DOMAIN_SEPS);
		if (*p == '\0')
			break;
		len = strcspn(p, DOMAIN_SEPS);
		if (out->n == DOMAINS_MAX)
			return -1;
		if (entry_parse(p, len, &out->o[out->n]) == -1)
			return -1;
		out->n++;
	}
	return 0;
}

/* Value of hex digit c (either case), or -1.  Can't fail. */
static int
hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Percent-decode s in place, once ('+' left alone); returns the new
 * length.  A '%' not followed by two hex digits stays as it is.
 */
static size_t
pct_decode_once(char *s, size_t len)
{
	size_t	 i, j;
	int	 hi, lo;

	for (i = j = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			s[j++] = (char)(hi << 4 | lo);
			i += 2;
		} else
			s[j++] = s[i];
	}
	return j;
}

/*
 * Whether the parameter name raw (len bytes, as written in a query) is
 * read as TOKEN_PARAM by some shop's parser.  The name is percent-decoded
 * until nothing changes (a parser decodes once; decoding more only
 * refuses more), '+' read as a space, and then compared the way the
 * lenient parsers read names: ASCII case ignored, leading white space
 * dropped and ' ' and '.' read as '_' (PHP's $_GET), anything from '['
 * on ignored (PHP arrays "name[]").  Returns 1 if so, 0 if not, -1 when
 * out of memory (the caller refuses the URL).
 */
int
url_token_param_name(const char *raw, size_t len)
{
	static const char	 want[] = TOKEN_PARAM;
	char			*s;
	size_t			 n, prev, i, k;
	int			 c, match;

	if ((s = try_malloc(len + 1)) == NULL)
		return -1;
	memcpy(s, raw, len);
	n = len;
	do {
		prev = n;
		n = pct_decode_once(s, n);
	} while (n != prev);
	for (i = 0; i < n && (s[i] == ' ' || s[i] == '+' || s[i] == '\t' ||
	    s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f');
	    i++)
		;
	match = 1;
	for (k = 0; match && i < n && s[i] != '['; i++, k++) {
		c = lower((unsigned char)s[i]);
		if (c == ' ' || c == '+' || c == '.')
			c = '_';
		if (k >= sizeof(want) - 1 || c != want[k])
			match = 0;
	}
	if (k != sizeof(want) - 1)
		match = 0;
	free(s);
	return match;
}

/*
 * Whether the query of rest (path, query, fragment of a URL) already
 * holds a parameter that a shop reads as TOKEN_PARAM (see
 * url_token_param_name(); '&' and ';' both separate parameters, as some
 * parsers split on either): a crafted link could otherwise make the
 * shop see two tokens (CASES C07 treats that as invalid) and send an
 * admitted visitor back to the queue.  Returns 1 if so (or when out of
 * memory), else 0.
 */
static int
has_token_param(const char *rest, size_t rlen)
{
	const char	*q, *end, *p, *seg;
	size_t		 nlen;

	end = memchr(rest, '#', rlen);
	if (end == NULL)
		end = rest + rlen;
	if ((q = memchr(rest, '?', (size_t)(end - rest))) == NULL)
		return 0;
	for (seg = q + 1; seg <= end; seg = p + 1) {
		for (p = seg; p < end && *p != '&' && *p != ';'; p++)
			;
		for (nlen = 0; seg + nlen < p && seg[nlen] != '='; nlen++)
			;
		if (url_token_param_name(seg, nlen) != 0)
			return 1;
		if (p == end)
			break;
	}
	return 0;
}

/*
 * Whether byte c may stand raw in a URL we accept or hand on: printable
 * ASCII without white space, backslash, '"', '<' and '>' (a serialised
 * URL never holds these raw: the WHATWG URL Standard percent-encodes
 * them in every component, and RFC 3986 excludes them).  Returns 1 or 0.
 */
static int
url_char_ok(int c)
{
	return c > 0x20 && c < 0x7f && c != '\\' && c != '"' && c != '<' &&
	    c != '>';
}

int
url_target_valid(const char *url)
{
	struct shop_origin	 o;
	size_t			 len, i, n, alen;

	if (url == NULL)
		return 0;
	len = strnlen(url, URL_MAX + 1);
	if (len == 0 || len > URL_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (!url_char_ok((unsigned char)url[i]))
			return 0;
	if (bad_escape(url, len))
		return 0;
	if ((n = scheme_parse(url, len, o.scheme)) == 0)
		return 0;
	alen = strcspn(url + n, "/?#");
	if (memchr(url + n, '@', alen) != NULL ||
	    memchr(url + n, '%', alen) != NULL)
		return 0;
	return authority_parse(url + n, alen, &o) == 0;
}

char *
url_return_check(const char *url, const struct shop_domains *d)
{
	struct shop_origin	 o;
	char			 org[ORIGIN_MAX];
	const char		*auth, *rest;
	char			*res;
	size_t			 len, i, n, alen, olen, rlen, slash;

	if (url == NULL || d == NULL)
		return NULL;
	len = strnlen(url, URL_MAX + 1);
	if (len == 0 || len > URL_MAX)
		return NULL;

	/*
	 * Printable ASCII only: this rejects control characters, white
	 * space and raw non-ASCII bytes (a browser's href never holds
	 * them), and backslashes.
	 */
	for (i = 0; i < len; i++)
		if (!url_char_ok((unsigned char)url[i]))
			return NULL;
	if (bad_escape(url, len))
		return NULL;

	if ((n = scheme_parse(url, len, o.scheme)) == 0)
		return NULL;
	auth = url + n;
	alen = strcspn(auth, "/?#");
	if (memchr(auth, '@', alen) != NULL ||
	    memchr(auth, '%', alen) != NULL)
		return NULL;
	if (authority_parse(auth, alen, &o) == -1)
		return NULL;
	if (!origin_listed(&o, d))
		return NULL;

	rest = auth + alen;
	rlen = len - (size_t)(rest - url);
	if (has_token_param(rest, rlen))
		return NULL;
	slash = rest[0] == '/' ? 0 : 1;
	olen = origin_format(&o, org, sizeof(org));
	if ((res = try_malloc(olen + slash + rlen + 1)) == NULL)
		return NULL;
	memcpy(res, org, olen);
	if (slash)
		res[olen] = '/';
	memcpy(res + olen + slash, rest, rlen + 1);
	return res;
}

int
url_origin_allowed(const char *origin, const struct shop_domains *d)
{
	char	 org[ORIGIN_MAX];
	size_t	 i;

	if (origin == NULL || *origin == '\0' || d == NULL)
		return 0;
	for (i = 0; i < d->n; i++) {
		origin_format(&d->o[i], org, sizeof(org));
		if (strcmp(origin, org) == 0)
			return 1;
	}
	return 0;
}

char *
url_append_param(const char *url, const char *name, const char *value)
{
	const char	*frag, *sep;
	char		*res, *p;
	size_t		 ulen, qlen, slen, nlen, vlen;

	ulen = strlen(url);
	nlen = strlen(name);
	vlen = strlen(value);
	frag = strchr(url, '#');
	qlen = frag == NULL ? ulen : (size_t)(frag - url);
	if (memchr(url, '?', qlen) == NULL)
		sep = "?";
	else if (url[qlen - 1] == '?' || url[qlen - 1] == '&')
		sep = "";
	else
		sep = "&";
	slen = strlen(sep);

	if (nlen > SIZE_MAX / 4 || vlen > SIZE_MAX / 4 || ulen > SIZE_MAX / 4)
		return NULL;
	if ((res = try_malloc(ulen + slen + nlen + 1 + vlen + 1)) == NULL)
		return NULL;
	p = res;
	memcpy(p, url, qlen);
	p += qlen;
	memcpy(p, sep, slen);
	p += slen;
	memcpy(p, name, nlen);
	p += nlen;
	*p++ = '=';
	memcpy(p, value, vlen);
	p += vlen;
	memcpy(p, url + qlen, ulen - qlen + 1);
	return res;
}

/*
 * Whether the header value v (may be NULL) holds word, ASCII case
 * ignored, as a whole token (delimited by anything that is not a letter,
 * digit or '-').  Returns 1 or 0.
 */
static int
has_word(const char *v, const char *word)
{
	size_t	 n = strlen(word), i;
	int	 c;

	if (v == NULL)
		return 0;
	for (i = 0; v[i] != '\0'; i++) {
		if (strncasecmp(v + i, word, n) != 0)
			continue;
		c = i == 0 ? ' ' : lower((unsigned char)v[i - 1]);
		if (is_digit(c) || (c >= 'a' && c <= 'z') || c == '-')
			continue;
		c = lower((unsigned char)v[i + n]);
		if (c != '\0' && (is_digit(c) || (c >= 'a' && c <= 'z') ||
		    c == '-'))
			continue;
		return 1;
	}
	return 0;
}

/*
 * Whether v (may be NULL) is present and, without surrounding white
 * space, not exactly want.  Returns 1 or 0.
 */
static int
present_not(const char *v, const char *want)
{
	size_t	 n;

	if (v == NULL)
		return 0;
	v += strspn(v, " \t");
	n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (n == 0)
		return 0;
	return n != strlen(want) || strncmp(v, want, n) != 0;
}

/*
 * Whether m says prefetch or prerender: any non-blank Sec-Purpose
 * (Fetch standard: "prefetch", "prefetch;prerender", ...), Purpose or
 * X-Purpose "prefetch", "preview" or "prerender", X-Moz "prefetch".
 * Returns 1 or 0.
 */
static int
speculative(const struct fetch_meta *m)
{
	if (m->sec_purpose != NULL && m->sec_purpose[strspn(m->sec_purpose,
	    " \t")] != '\0')
		return 1;
	return has_word(m->purpose, "prefetch") ||
	    has_word(m->purpose, "preview") ||
	    has_word(m->purpose, "prerender") ||
	    has_word(m->x_purpose, "prefetch") ||
	    has_word(m->x_purpose, "preview") ||
	    has_word(m->x_moz, "prefetch");
}

/*
 * Whether v (may be NULL) is, without surrounding white space, exactly
 * want.  Returns 1 or 0.
 */
static int
header_is(const char *v, const char *want)
{
	return v != NULL && v[strspn(v, " \t")] != '\0' &&
	    !present_not(v, want);
}

int
url_fetch_is_deliberate(const struct fetch_meta *m)
{
	if (m == NULL || speculative(m))
		return 0;
	if (present_not(m->mode, "navigate") ||
	    present_not(m->dest, "document"))
		return 0;
	return 1;
}

/*
 * Whether origin is this request's own origin: "scheme://host" with the
 * Host header's value (ASCII case ignored) and the request's scheme; or,
 * when the browser says Sec-Fetch-Site: same-origin, with either scheme
 * (TLS may end in front of the web server, which then sees http).
 * Returns 1 or 0.
 */
static int
same_origin(const struct fetch_meta *m)
{
	const char	*o = m->origin, *auth;
	char		 scheme[6];
	size_t		 n;

	if (m->host == NULL || *m->host == '\0')
		return 0;
	if ((n = scheme_parse(o, strlen(o), scheme)) == 0)
		return 0;
	auth = o + n;
	if (strcasecmp(auth, m->host) != 0)
		return 0;
	if (m->scheme != NULL && strcmp(scheme, m->scheme) == 0)
		return 1;
	return m->site != NULL && strcmp(m->site, "same-origin") == 0;
}

int
url_fetch_origin_ok(const struct fetch_meta *m, const struct shop_domains *d)
{
	if (m == NULL || d == NULL)
		return 0;
	if (m->origin != NULL && *m->origin != '\0') {
		if (url_origin_allowed(m->origin, d))
			return 1;
		return same_origin(m);
	}
	/* No Origin: only a browser's own word can make it foreign. */
	return m->site == NULL || strcmp(m->site, "cross-site") != 0;
}

enum url_take
url_take_number(const struct fetch_meta *m, const struct shop_domains *d,
    enum url_take_kind kind)
{
	int	 nav;

	if (m == NULL || d == NULL)
		return URL_TAKE_FOREIGN;
	/* A top-level navigation, as far as the browser says. */
	nav = kind == URL_TAKE_NAVIGATION && !present_not(m->mode,
	    "navigate") && !present_not(m->dest, "document");
	if (((m->origin != NULL && *m->origin != '\0') || !nav) &&
	    !url_fetch_origin_ok(m, d))
		return URL_TAKE_FOREIGN;
	if (m->head || speculative(m) || header_is(m->mode, "no-cors"))
		return URL_TAKE_NOT_DELIBERATE;
	if (kind == URL_TAKE_NAVIGATION && !nav)
		return URL_TAKE_NOT_DELIBERATE;
	return URL_TAKE_OK;
}
