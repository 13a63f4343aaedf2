/*
 * urlcheck.h - return-URL validation against a queue's shop domains, CORS
 * origin matching, and appending the token parameter to a URL.
 *
 * A shop domain entry is "host" or "host:port" (meaning https only), or
 * "http://host[:port]" / "https://host[:port]" (that scheme only).  Hosts
 * are lower-case DNS names (labels of [a-z0-9-], not starting or ending
 * with '-', at most 63 octets each, at most 253 in all) or IPv4 literals.
 * The default port of the scheme (80, 443) is normalised away.
 * Matching is exact on (scheme, host, port): no prefix, suffix or
 * substring match, no wildcards.
 */
#ifndef URLCHECK_H
#define URLCHECK_H

#include <stddef.h>

#define URL_MAX		2048	/* longest URL we accept, bytes */
#define TOKEN_PARAM	"aditus_queue_token"	/* the token's URL parameter */
#define DOMAINS_MAX	32	/* shop domain entries per queue */

struct shop_origin {
	char	 scheme[6];	/* "http" or "https" */
	char	 host[254];	/* lower case */
	int	 port;		/* explicit port, or 0 for the default */
};

struct shop_domains {
	size_t			 n;
	struct shop_origin	 o[DOMAINS_MAX];
};

/*
 * Parse a list of shop domain entries separated by commas, newlines or
 * spaces (empty entries skipped) into *out.  Returns 0 on success, -1 if
 * any entry is malformed or too long (a host over 253 octets, a label over
 * 63), or there are more than DOMAINS_MAX; *out is then unspecified.
 * An empty list is valid (n = 0).
 */
int	 url_shop_domains_parse(const char *list, struct shop_domains *out);

/*
 * Validate a return URL (already percent-decoded exactly once, as it came
 * out of the query string).  Rules (see CASES C09, C10):
 * - at most URL_MAX bytes; no control characters, no white space, no
 *   backslash anywhere, and no encoded "%5C", "%09", "%0A", "%0D" (any
 *   case) left in it;
 * - absolute, scheme "http" or "https" (case-insensitive) followed by
 *   "://"; relative references are invalid;
 * - no userinfo ('@' in the authority);
 * - host (lower-cased) and port equal to one entry of *d, and the
 *   scheme equal to that entry's scheme;
 * - no TOKEN_PARAM parameter already in its query (any case).
 * Returns a newly allocated normalised URL (scheme and host lower case,
 * default port removed, path/query/fragment unchanged; "/" as path when
 * none was given) that the caller frees, or NULL when invalid or out of
 * memory.
 */
char	*url_return_check(const char *url, const struct shop_domains *d);

/*
 * Whether url is usable as a queue's target URL: at most URL_MAX bytes
 * of printable ASCII without white space, backslash, '"', '<' or '>'
 * (RFC 3986 section 2; never raw in a WHATWG-serialised URL), no
 * encoded backslash or white space, scheme http or https, a host of
 * letters, digits, '-' and '.' (no IPv6 literal, no userinfo, no
 * percent-escape) and an optional port from 1 to 65535.  Returns 1 or 0.
 */
int	 url_target_valid(const char *url);

/*
 * Whether the Origin header value equals, exactly (RFC 6454 serialisation:
 * scheme "://" host [":" port], no path, no trailing slash), the origin of
 * one entry of *d.  The default port must not be written out.
 * Returns 1 if allowed, 0 otherwise (also for NULL or empty origin).
 */
int	 url_origin_allowed(const char *origin, const struct shop_domains *d);

/*
 * Append "name=value" to url's query: before any '#fragment', with '?'
 * when the URL has no query, with '&' otherwise (no '&' after a trailing
 * '?' or '&').  value must already be URL-safe (a JWT is).  Returns a new
 * string the caller frees, or NULL on allocation failure.
 * Example: https://s.example/c?step=2#cart + t=X
 *          -> https://s.example/c?step=2&t=X#cart
 */
char	*url_append_param(const char *url, const char *name,
	    const char *value);

/*
 * Whether a query parameter name, as written in a URL (raw, len bytes),
 * is read as TOKEN_PARAM by a shop's parser: percent-decoded (until
 * stable), '+' as a space, ASCII case ignored, leading white space
 * dropped, ' ' and '.' read as '_', and "[..." ignored (PHP's rules for
 * $_GET names; WHATWG URLSearchParams decodes the same way).  Returns 1
 * if so, 0 if not, -1 when out of memory.  url_return_check() refuses a
 * return URL holding such a parameter (before '#'; '&' and ';' both
 * separate parameters).
 */
int	 url_token_param_name(const char *raw, size_t len);

/*
 * The request headers that tell who made a request (Fetch Metadata
 * Request Headers, W3C; RFC 6454 Origin; Sec-Purpose from the Fetch
 * standard; the legacy Purpose, X-Purpose and X-Moz prefetch headers).
 * Every member may be NULL (header absent).
 */
struct fetch_meta {
	const char	*origin;	/* Origin */
	const char	*site;		/* Sec-Fetch-Site */
	const char	*mode;		/* Sec-Fetch-Mode */
	const char	*dest;		/* Sec-Fetch-Dest */
	const char	*sec_purpose;	/* Sec-Purpose */
	const char	*purpose;	/* Purpose */
	const char	*x_purpose;	/* X-Purpose */
	const char	*x_moz;		/* X-Moz */
	const char	*scheme;	/* this request's "http" / "https" */
	const char	*host;		/* Host, as sent ("host[:port]") */
	int		 head;		/* the request is a HEAD */
};

/*
 * Whether a GET is the visitor's own deliberate navigation, the only
 * kind of request that may take a number on the gateway: not a prefetch
 * or prerender (any Sec-Purpose; Purpose or X-Purpose "prefetch",
 * "preview" or "prerender"; X-Moz "prefetch"), and not a fetch that is
 * no top-level navigation (Sec-Fetch-Mode present and not "navigate", or
 * Sec-Fetch-Dest present and not "document").  A client that sends none
 * of these headers counts as deliberate.  Returns 1 or 0.
 */
int	 url_fetch_is_deliberate(const struct fetch_meta *m);

/*
 * Whether a state-changing request (POST /join) may come from where it
 * comes from: an Origin must be one of the queue's shop origins (exactly,
 * as url_origin_allowed()) or the request's own origin (scheme and Host);
 * without an Origin, only Sec-Fetch-Site "cross-site" refuses it.
 * Clients that send neither header are allowed.  Returns 1 if allowed,
 * 0 if not (answer 403 origin_not_allowed).
 */
int	 url_fetch_origin_ok(const struct fetch_meta *m,
	    const struct shop_domains *d);

/* What the deliberate-request rules say about taking a number. */
enum url_take {
	URL_TAKE_OK,		/* the visitor's own request: take one */
	URL_TAKE_FOREIGN,	/* another site's: 403 origin_not_allowed */
	URL_TAKE_NOT_DELIBERATE	/* nobody asked for it: no number */
};

/* How a route that takes a number is reached. */
enum url_take_kind {
	URL_TAKE_NAVIGATION,	/* a link the visitor follows (/enter) */
	URL_TAKE_FETCH		/* a script or an API client (/join, JSON
				   mode of the room) */
};

/*
 * The one rule of every path that takes a number (SPEC section 4: only
 * the visitor's own deliberate request takes one), for a request with
 * fetch metadata m to a queue with shop domains d, reached as kind:
 * - URL_TAKE_FOREIGN when url_fetch_origin_ok() refuses it: an Origin
 *   that is neither a shop origin nor the request's own, or no Origin
 *   and Sec-Fetch-Site "cross-site".  A top-level navigation of kind
 *   URL_TAKE_NAVIGATION without an Origin is exempt: following a link
 *   from a newsletter or another site is how the gateway is used (a
 *   browser sends no Origin on a GET navigation).
 * - else URL_TAKE_NOT_DELIBERATE for a HEAD, a prefetch or prerender
 *   (any Sec-Purpose; Purpose or X-Purpose "prefetch", "preview" or
 *   "prerender"; X-Moz "prefetch"), a Sec-Fetch-Mode "no-cors" request
 *   (its caller cannot read the answer, so the number would be lost:
 *   an image, a script tag, another site's simple request), and, for
 *   URL_TAKE_NAVIGATION, anything url_fetch_is_deliberate() calls no
 *   top-level navigation;
 * - else URL_TAKE_OK.  The queue's shop origins, same-origin requests
 *   and clients that send neither Origin nor fetch metadata (curl,
 *   scripts, API clients) take numbers.
 * Returns the verdict; URL_TAKE_FOREIGN when m or d is NULL.
 */
enum url_take url_take_number(const struct fetch_meta *m,
	    const struct shop_domains *d, enum url_take_kind kind);

#endif /* URLCHECK_H */
