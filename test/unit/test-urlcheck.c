/*
 * test-urlcheck.c - unit tests for urlcheck.c: shop domain lists, return
 * URLs (CASES C09, C10), CORS origins (C12, C25) and appending the token.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "urlcheck.h"

#define JWT	"eyJhbGciOiJIUzI1NiJ9.eyJxbnIiOjF9.c2ln"

/* Fixtures: "shop.example www.shop.example" and "http://127.0.0.1:8080". */
static struct shop_domains	 shop;
static struct shop_domains	 local;

/*
 * Return s with control, non-ASCII and backslash bytes written as \xNN, so
 * that one assertion stays one TAP line.  The result lives in one of four
 * static buffers (long inputs are cut), or is "(null)".  Can't fail.
 */
static const char *
show(const char *s)
{
	static char	 bufs[4][256];
	static int	 next;
	char		*b;
	size_t		 n = 0;
	int		 c;

	if (s == NULL)
		return "(null)";
	b = bufs[next++ % 4];
	for (; *s != '\0' && n + 5 < sizeof(bufs[0]); s++) {
		c = (unsigned char)*s;
		if (c < 0x20 || c >= 0x7f || c == '\\')
			n += snprintf(b + n, sizeof(bufs[0]) - n, "\\x%02X",
			    c);
		else
			b[n++] = (char)c;
	}
	b[n] = '\0';
	return b;
}

/*
 * Check url_return_check(in, d) against want (NULL: must be rejected),
 * then free the result.
 */
static void
url_is(const struct shop_domains *d, const char *in, const char *want)
{
	char	*got;

	got = url_return_check(in, d);
	is_str(got, want, "url_return_check(\"%s\") -> %s", show(in),
	    want == NULL ? "NULL" : want);
	free(got);
}

/* Check that url_return_check(in, &shop) returns in unchanged. */
static void
url_same(const char *in)
{
	url_is(&shop, in, in);
}

/* Check that url_return_check(in, &shop) rejects in. */
static void
url_bad(const char *in)
{
	url_is(&shop, in, NULL);
}

/*
 * Check that url_return_check(in, &shop) gives norm and that the admitted
 * visitor's URL is then exactly landing.
 */
static void
url_lands(const char *in, const char *norm, const char *landing)
{
	char	*got, *land;

	got = url_return_check(in, &shop);
	is_str(got, norm, "url_return_check(\"%s\") -> %s", in, norm);
	if (got == NULL) {
		ok(0, "no landing URL for \"%s\"", in);
		return;
	}
	land = url_append_param(got, "aditus_queue_token", JWT);
	is_str(land, landing, "landing for \"%s\"", in);
	free(land);
	free(got);
}

/* Check url_append_param(url, "t", "X") against want. */
static void
append_is(const char *url, const char *want)
{
	char	*got;

	got = url_append_param(url, "t", "X");
	is_str(got, want, "url_append_param(\"%s\")", url);
	free(got);
}

/* Check that url_shop_domains_parse(list) fails. */
static void
domains_bad(const char *list)
{
	struct shop_domains	 d;

	is_int(url_shop_domains_parse(list, &d), -1,
	    "url_shop_domains_parse(\"%s\") refused", show(list));
}

/*
 * Check that url_shop_domains_parse(list) gives exactly one entry with the
 * given scheme, host and port.
 */
static void
domain_is(const char *list, const char *scheme, const char *host, int port)
{
	struct shop_domains	 d;
	int			 rc;

	memset(&d, 0, sizeof(d));
	rc = url_shop_domains_parse(list, &d);
	is_int(rc, 0, "url_shop_domains_parse(\"%s\") accepted", list);
	is_int(d.n, 1, "\"%s\": one entry", list);
	is_str(d.o[0].scheme, scheme, "\"%s\": scheme", list);
	is_str(d.o[0].host, host, "\"%s\": host", list);
	is_int(d.o[0].port, port, "\"%s\": port", list);
}

/* Shop domain list parsing, including C25's over-long entry. */
static void
test_domains(void)
{
	struct shop_domains	 d;
	char			 buf[2048];
	char			 label[70];
	size_t			 i;

	is_int(url_shop_domains_parse("", &d), 0, "empty list valid");
	is_int(d.n, 0, "empty list: n = 0");
	is_int(url_shop_domains_parse(" ,\n, \r\n ", &d), 0,
	    "separators only valid");
	is_int(d.n, 0, "separators only: n = 0");

	is_int(url_shop_domains_parse("shop.example, www.shop.example\n"
	    "http://127.0.0.1:8080", &d), 0, "three entries");
	is_int(d.n, 3, "three entries: n = 3");
	is_str(d.o[0].scheme, "https", "entry 0 scheme");
	is_str(d.o[0].host, "shop.example", "entry 0 host");
	is_int(d.o[0].port, 0, "entry 0 port");
	is_str(d.o[1].host, "www.shop.example", "entry 1 host");
	is_str(d.o[2].scheme, "http", "entry 2 scheme");
	is_str(d.o[2].host, "127.0.0.1", "entry 2 host");
	is_int(d.o[2].port, 8080, "entry 2 port");

	domain_is("SHOP.Example", "https", "shop.example", 0);
	domain_is("HTTPS://Shop.Example:443", "https", "shop.example", 0);
	domain_is("shop.example:443", "https", "shop.example", 0);
	domain_is("shop.example:80", "https", "shop.example", 80);
	domain_is("http://shop.example:80", "http", "shop.example", 0);
	domain_is("http://shop.example:443", "http", "shop.example", 443);
	domain_is("shop.example:8443", "https", "shop.example", 8443);
	domain_is("shop.example:65535", "https", "shop.example", 65535);
	domain_is("localhost:8080", "https", "localhost", 8080);
	domain_is("1.example", "https", "1.example", 0);
	domain_is("xn--bcher-kva.example", "https", "xn--bcher-kva.example",
	    0);
	domain_is("a-b.example", "https", "a-b.example", 0);
	domain_is("255.255.255.255", "https", "255.255.255.255", 0);
	domain_is("0.0.0.0", "https", "0.0.0.0", 0);

	/* Path, query, fragment, userinfo, wildcard, escapes. */
	domains_bad("shop.example/");
	domains_bad("https://shop.example/");
	domains_bad("https://shop.example/path");
	domains_bad("shop.example?x");
	domains_bad("shop.example#x");
	domains_bad("user@shop.example");
	domains_bad("https://user:pw@shop.example");
	domains_bad("*.shop.example");
	domains_bad("*");
	domains_bad("shop%2eexample");
	domains_bad("//shop.example");
	domains_bad("shop.example\\");
	/* Labels. */
	domains_bad("shop..example");
	domains_bad(".shop.example");
	domains_bad("shop.example.");
	domains_bad("-shop.example");
	domains_bad("shop-.example");
	domains_bad("shop.-example");
	domains_bad("shop.example-");
	domains_bad("shop_x.example");
	domains_bad("shop.exam\xc3\xa9ple");
	domains_bad("[::1]");
	domains_bad("[::1]:8080");
	/* Ports and schemes. */
	domains_bad("shop.example:");
	domains_bad("shop.example:0");
	domains_bad("shop.example:65536");
	domains_bad("shop.example:08443");
	domains_bad("shop.example:84a3");
	domains_bad("shop.example:443:443");
	domains_bad("ftp://shop.example");
	domains_bad("https:shop.example");
	domains_bad("https://");
	/* IPv4 in anything but canonical dotted-quad form. */
	domains_bad("0177.0.0.1");
	domains_bad("0x7f.1");
	domains_bad("2130706433");
	domains_bad("127.1");
	domains_bad("1.2.3.256");
	domains_bad("1.2.3.4.5");
	domains_bad("shop.0x1f");
	domains_bad("shop.123");
	/* One bad entry spoils the list. */
	domains_bad("shop.example, evil..test");

	/* Label of 63 octets accepted, 64 refused. */
	memset(label, 'a', 64);
	label[63] = '\0';
	snprintf(buf, sizeof(buf), "%s.example", label);
	is_int(url_shop_domains_parse(buf, &d), 0, "63-octet label accepted");
	is_int(strlen(d.o[0].host), 63 + 8, "63-octet label kept whole");
	label[63] = 'a';
	label[64] = '\0';
	snprintf(buf, sizeof(buf), "%s.example", label);
	is_int(url_shop_domains_parse(buf, &d), -1, "64-octet label refused");

	/* Host of 253 octets accepted, 254 refused. */
	memset(label, 'a', 63);
	label[63] = '\0';
	snprintf(buf, sizeof(buf), "%s.%s.%s.%.61s", label, label, label,
	    label);
	is_int(strlen(buf), 253, "253-octet host built");
	is_int(url_shop_domains_parse(buf, &d), 0, "253-octet host accepted");
	is_str(d.o[0].host, buf, "253-octet host kept whole");
	snprintf(buf, sizeof(buf), "%s.%s.%s.%.62s", label, label, label,
	    label);
	is_int(url_shop_domains_parse(buf, &d), -1, "254-octet host refused");

	/* C25: a 300-character entry is refused, never truncated. */
	snprintf(buf, sizeof(buf), "shop.example.");
	while (strlen(buf) + 11 <= 299)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "label12345.");
	while (strlen(buf) < 300)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "x");
	is_int(strlen(buf), 300, "300-character entry built");
	is_int(url_shop_domains_parse(buf, &d), -1,
	    "300-character entry refused");

	/* DOMAINS_MAX entries accepted, one more refused. */
	buf[0] = '\0';
	for (i = 0; i < DOMAINS_MAX; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "s%zu.example,", i);
	is_int(url_shop_domains_parse(buf, &d), 0, "DOMAINS_MAX entries");
	is_int(d.n, DOMAINS_MAX, "DOMAINS_MAX entries: n");
	is_str(d.o[DOMAINS_MAX - 1].host, "s31.example", "last entry kept");
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "one.more");
	is_int(url_shop_domains_parse(buf, &d), -1, "DOMAINS_MAX + 1 refused");
}

/* C09: relative and malformed return URLs never pass. */
static void
test_c09(void)
{
	url_bad("//evil.test/");
	/* Raw '"', '<', '>' never stand in a serialised URL. */
	url_bad("https://shop.example/\"><script>x</script>");
	url_bad("https://shop.example/?q=<b>");
	url_bad("/\\evil.test/");
	url_bad("\\/evil.test");
	url_bad("/\\/\\evil.test");
	url_bad("/\t/evil.test");
	url_bad("/%09/evil.test");
	url_bad("/%0a/evil.test");
	url_bad("https:evil.test");
	url_bad("https:\\\\evil.test");
	url_bad("/a/../\\evil.test");
	url_bad("/%5cevil.test");
	url_bad("javascript:alert(1)");
	url_bad("data:text/html,x");
	url_bad(" https://evil.test");
	url_bad("HTTPS://EVIL.TEST");

	/* The same tricks aimed at the allowed host. */
	url_bad("/checkout");
	url_bad("//shop.example/");
	url_bad("https:shop.example/");
	url_bad("https:/shop.example/");
	url_bad("https:///shop.example/");
	url_bad("https:\\\\shop.example/");
	url_bad("https:/\\shop.example/");
	url_bad(" https://shop.example/");
	url_bad("https://shop.example/ ");
	url_bad("\thttps://shop.example/");
	url_bad("https://shop.example/\t");
	url_bad("https://shop.example/a\nb");
	url_bad("https://shop.example/a\rb");
	url_bad("https://shop.example/a\x01");
	url_bad("https://shop.example/a\x7f");
	url_bad("https://shop.example/a\\b");
	url_bad("https://shop.example/%5C");
	url_bad("https://shop.example/%5c");
	url_bad("https://shop.example/%09");
	url_bad("https://shop.example/%0A");
	url_bad("https://shop.example/%0d");
	url_bad("https://shop.example/x?a=%0D%0ASet-Cookie:x");
	url_bad("javascript://shop.example/%0aalert(1)");
	url_bad("ftp://shop.example/");
	url_bad("httpss://shop.example/");
	url_bad("http s://shop.example/");
	url_bad("");
	url_bad(NULL);

	url_lands("https://shop.example/checkout?step=2#cart",
	    "https://shop.example/checkout?step=2#cart",
	    "https://shop.example/checkout?step=2&aditus_queue_token="
	    JWT "#cart");
}

/* C10: authority tricks against the domain allowlist. */
static void
test_c10(void)
{
	url_bad("https://shop.example@evil.test/");
	url_bad("https://shop.example:443@evil.test/");
	url_bad("https://evil.test#@shop.example/");
	url_bad("https://evil.test?.shop.example");
	url_bad("https://evil.test\\@shop.example/");
	url_bad("https://shop.example.evil.test/");
	url_bad("https://evilshop.example/");
	url_bad("https://evil.test/shop.example");
	url_bad("https://shop.example%2f@evil.test/");
	url_bad("https://shop.example%252f@evil.test/");
	url_bad("https://sub.shop.example/");

	url_lands("https://www.shop.example/", "https://www.shop.example/",
	    "https://www.shop.example/?aditus_queue_token=" JWT);
	url_lands("https://shop.example/cart", "https://shop.example/cart",
	    "https://shop.example/cart?aditus_queue_token=" JWT);

	/* More of the same kind. */
	url_bad("https://user@shop.example/");
	url_bad("https://@shop.example/");
	url_bad("https://shop.example%2f/");
	url_bad("https://shop%2eexample/");
	url_bad("https://shop.example./");
	url_bad("https://.shop.example/");
	url_bad("https://shop..example/");
	url_bad("https://shop.example.:443/");
	url_bad("https://www.shop.example.evil.test/");
	url_bad("https://hop.example/");
	url_bad("https://shop.exampl/");
	url_bad("https://example/");
	url_bad("https://shop.exam\xc3\xa9ple/");
	url_bad("https://\xd1\x95hop.example/");
	url_bad("https://[::1]/");
	url_bad("https://shop.example:8443/");
	url_bad("https://shop.example:/");
	url_bad("https://shop.example:0443/");
	url_bad("https://shop.example:443:443/");
	url_bad("https://shop.example:80/");
	url_bad("https://shop.example:65979/");
	url_bad("http://shop.example/");
	url_bad("http://shop.example:443/");

	url_same("https://shop.example/");
	url_same("https://shop.example/a%2Fb?x=%25&y=%5Bz%5D#f");
	url_same("https://shop.example//evil.test");
	url_same("https://shop.example/100%");
	url_same("https://shop.example/?next=https://evil.test/");
	url_is(&shop, "https://shop.example:443/cart",
	    "https://shop.example/cart");
	url_is(&shop, "HtTpS://WWW.Shop.Example:443/Path?Q=A#F",
	    "https://www.shop.example/Path?Q=A#F");
	url_is(&shop, "https://shop.example", "https://shop.example/");
	url_is(&shop, "https://shop.example?x=1", "https://shop.example/?x=1");
	url_is(&shop, "https://shop.example#f", "https://shop.example/#f");
	url_is(&shop, "https://shop.example:443", "https://shop.example/");
}

/* The local demo entry and IPv4 host forms. */
static void
test_local(void)
{
	url_is(&local, "http://127.0.0.1:8080/shop?x=1#y",
	    "http://127.0.0.1:8080/shop?x=1#y");
	url_is(&local, "HTTP://127.0.0.1:8080", "http://127.0.0.1:8080/");
	url_is(&local, "https://127.0.0.1:8080/", NULL);
	url_is(&local, "http://127.0.0.1/", NULL);
	url_is(&local, "http://127.0.0.1:80/", NULL);
	url_is(&local, "http://127.0.0.1:8081/", NULL);
	url_is(&local, "http://0177.0.0.1:8080/", NULL);
	url_is(&local, "http://0x7f.1:8080/", NULL);
	url_is(&local, "http://0x7f000001:8080/", NULL);
	url_is(&local, "http://2130706433:8080/", NULL);
	url_is(&local, "http://127.1:8080/", NULL);
	url_is(&local, "http://127.0.0.1.:8080/", NULL);
	url_is(&local, "http://127.0.0.1.evil.test:8080/", NULL);
	url_is(&local, "https://shop.example/", NULL);
}

/* URL_MAX is the longest accepted length. */
static void
test_length(void)
{
	char	 buf[URL_MAX + 2];
	char	*got;
	size_t	 pre;

	pre = strlen("https://shop.example/");
	memcpy(buf, "https://shop.example/", pre);
	memset(buf + pre, 'a', URL_MAX - pre);
	buf[URL_MAX] = '\0';
	got = url_return_check(buf, &shop);
	ok(got != NULL && strcmp(got, buf) == 0,
	    "URL of URL_MAX bytes accepted unchanged");
	free(got);

	buf[URL_MAX] = 'a';
	buf[URL_MAX + 1] = '\0';
	url_bad(buf);
}

/* C12: exact origin serialisation only. */
static void
test_origin(void)
{
	struct shop_domains	 d, empty;

	is_int(url_shop_domains_parse("shop.example", &d), 0, "C12 domains");
	is_int(url_origin_allowed("https://shop.example", &d), 1,
	    "https://shop.example allowed");
	is_int(url_origin_allowed("https://evilshop.example", &d), 0,
	    "https://evilshop.example refused");
	is_int(url_origin_allowed("https://shop.example.evil.test", &d), 0,
	    "https://shop.example.evil.test refused");
	is_int(url_origin_allowed("https://shopXexample", &d), 0,
	    "https://shopXexample refused");
	is_int(url_origin_allowed("http://shop.example", &d), 0,
	    "http://shop.example refused");
	is_int(url_origin_allowed("https://shop.example:8443", &d), 0,
	    "https://shop.example:8443 refused");
	is_int(url_origin_allowed("https://sub.shop.example", &d), 0,
	    "https://sub.shop.example refused");
	is_int(url_origin_allowed("https://shop.example/", &d), 0,
	    "trailing slash refused");
	is_int(url_origin_allowed("HTTPS://SHOP.EXAMPLE", &d), 0,
	    "upper case refused");
	is_int(url_origin_allowed("https://shop.example:443", &d), 0,
	    "explicit default port refused");
	is_int(url_origin_allowed("https://shop.example ", &d), 0,
	    "trailing space refused");
	is_int(url_origin_allowed("https://shop.exampl", &d), 0,
	    "prefix refused");
	is_int(url_origin_allowed("shop.example", &d), 0, "bare host refused");
	is_int(url_origin_allowed("null", &d), 0, "null refused");
	is_int(url_origin_allowed("", &d), 0, "empty origin refused");
	is_int(url_origin_allowed(NULL, &d), 0, "NULL origin refused");

	is_int(url_origin_allowed("http://127.0.0.1:8080", &local), 1,
	    "local demo origin allowed");
	is_int(url_origin_allowed("http://127.0.0.1", &local), 0,
	    "local demo without port refused");
	is_int(url_origin_allowed("https://127.0.0.1:8080", &local), 0,
	    "local demo over https refused");
	is_int(url_origin_allowed("http://127.0.0.1:8080/", &local), 0,
	    "local demo with slash refused");

	is_int(url_shop_domains_parse(
	    "shop.example:8443 http://shop.example:80", &d), 0, "port entries");
	is_int(url_origin_allowed("https://shop.example:8443", &d), 1,
	    "non-default port written out");
	is_int(url_origin_allowed("https://shop.example", &d), 0,
	    "port entry does not allow default port");
	is_int(url_origin_allowed("http://shop.example", &d), 1,
	    "http entry with default port");
	is_int(url_origin_allowed("http://shop.example:80", &d), 0,
	    "http default port written out refused");

	is_int(url_shop_domains_parse("", &empty), 0, "empty list");
	is_int(url_origin_allowed("https://shop.example", &empty), 0,
	    "empty list allows nothing");
	url_is(&empty, "https://shop.example/", NULL);
}

/* Appending the token parameter. */
static void
test_append(void)
{
	append_is("https://s.example/", "https://s.example/?t=X");
	append_is("https://s.example/c?step=2#cart",
	    "https://s.example/c?step=2&t=X#cart");
	append_is("https://s.example/?", "https://s.example/?t=X");
	append_is("https://s.example/?a=1&", "https://s.example/?a=1&t=X");
	append_is("https://s.example/#frag?x", "https://s.example/?t=X#frag?x");
	append_is("https://s.example/?a=1", "https://s.example/?a=1&t=X");
	append_is("https://s.example/c#", "https://s.example/c?t=X#");
	append_is("https://s.example/?#f", "https://s.example/?t=X#f");
	append_is("", "?t=X");
}

/* A return URL that already carries our token parameter is refused. */
static void
test_own_param(void)
{
	url_bad("https://shop.example/a?aditus_queue_token=forged");
	url_bad("https://shop.example/a?x=1&aditus_queue_token=forged");
	url_bad("https://shop.example/a?ADITUS_QUEUE_TOKEN=forged");
	url_bad("https://shop.example/a?aditus_queue_token");
	url_bad("https://shop.example/a?aditus_queue_token[]=x");
	url_same("https://shop.example/a?my_aditus_queue_token=1");
	url_same("https://shop.example/a?x=aditus_queue_token");
	url_same("https://shop.example/a?aditus_queue_tokens=1");
	url_same("https://shop.example/a#aditus_queue_token=1");
}

/*
 * The token parameter's name as a shop's parser reads it: percent-
 * encodings, '+' and case, PHP's '.'/' ' for '_' and "[]" all refuse the
 * return URL (it falls back to the target), so the shop never sees two
 * tokens.
 */
static void
test_param_spelling(void)
{
	url_bad("https://shop.example/a?aditus%5Fqueue_token=forged");
	url_bad("https://shop.example/a?aditus%5fqueue%5ftoken=forged");
	url_bad("https://shop.example/a?x=1&%61ditus_queue_token=f");
	url_bad("https://shop.example/a?aditus_queue_toke%6E=f");
	url_bad("https://shop.example/a?%41DITUS_QUEUE_TOKEN=f");
	url_bad("https://shop.example/a?aditus%255Fqueue_token=f");
	url_bad("https://shop.example/a?aditus.queue_token=f");
	url_bad("https://shop.example/a?aditus+queue_token=f");
	url_bad("https://shop.example/a?aditus%20queue_token=f");
	url_bad("https://shop.example/a?+aditus_queue_token=f");
	url_bad("https://shop.example/a?aditus_queue_token%5B%5D=f");
	url_bad("https://shop.example/a?aditus_queue_token[x]=f");
	url_bad("https://shop.example/a?x=1;aditus_queue_token=f");
	url_bad("https://shop.example/a?aditus%5Fqueue_token");
	url_same("https://shop.example/a?aditus%5Fqueue_tokens=1");
	url_same("https://shop.example/a?x=aditus%5Fqueue_token");
	url_same("https://shop.example/a?aditus%5F_queue_token=1");
	url_same("https://shop.example/a#aditus%5Fqueue_token=1");
	url_same("https://shop.example/a?q=%26aditus_queue_token%3D1");
	is_int(url_token_param_name("aditus%5Fqueue_token", 20), 1,
	    "token_param_name: %%5F");
	is_int(url_token_param_name("Aditus.Queue+Token", 18), 1,
	    "token_param_name: case, '.', '+'");
	is_int(url_token_param_name("aditus_queue_token[]", 20), 1,
	    "token_param_name: []");
	is_int(url_token_param_name("aditus_queue_tokenX", 19), 0,
	    "token_param_name: a longer name");
	is_int(url_token_param_name("", 0), 0, "token_param_name: empty");
	is_int(url_token_param_name("[aditus_queue_token", 19), 0,
	    "token_param_name: '[' first");
}

/* Fetch metadata: only a deliberate navigation takes a number. */
static void
test_fetch_deliberate(void)
{
	struct fetch_meta	 m;

	memset(&m, 0, sizeof(m));
	is_int(url_fetch_is_deliberate(&m), 1, "no headers: deliberate");
	m.mode = "navigate";
	m.dest = "document";
	m.site = "none";
	is_int(url_fetch_is_deliberate(&m), 1, "a typed URL: deliberate");
	m.site = "cross-site";
	is_int(url_fetch_is_deliberate(&m), 1,
	    "a link from a mail: deliberate");
	m.sec_purpose = "prefetch";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Purpose: prefetch");
	m.sec_purpose = "prefetch;prerender";
	is_int(url_fetch_is_deliberate(&m), 0,
	    "Sec-Purpose: prefetch;prerender");
	m.sec_purpose = "prefetch;anonymous-client-ip";
	is_int(url_fetch_is_deliberate(&m), 0,
	    "Sec-Purpose: anonymous prefetch");
	m.sec_purpose = NULL;
	m.purpose = "prefetch";
	is_int(url_fetch_is_deliberate(&m), 0, "Purpose: prefetch");
	m.purpose = "Prefetch";
	is_int(url_fetch_is_deliberate(&m), 0, "Purpose: Prefetch");
	m.purpose = "prefetcher";
	is_int(url_fetch_is_deliberate(&m), 1, "Purpose: another word");
	m.purpose = NULL;
	m.x_purpose = "preview";
	is_int(url_fetch_is_deliberate(&m), 0, "X-Purpose: preview");
	m.x_purpose = NULL;
	m.x_moz = "prefetch";
	is_int(url_fetch_is_deliberate(&m), 0, "X-Moz: prefetch");
	m.x_moz = NULL;
	m.mode = "cors";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Fetch-Mode: cors");
	m.mode = "no-cors";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Fetch-Mode: no-cors");
	m.mode = "navigate";
	m.dest = "iframe";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Fetch-Dest: iframe");
	m.dest = "image";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Fetch-Dest: image");
	m.dest = NULL;
	is_int(url_fetch_is_deliberate(&m), 1, "navigate without a dest");
	m.mode = NULL;
	m.dest = "empty";
	is_int(url_fetch_is_deliberate(&m), 0, "Sec-Fetch-Dest: empty alone");
}

/* Fetch metadata and Origin: who may take a number with POST /join. */
static void
test_fetch_origin(void)
{
	struct fetch_meta	 m;

	memset(&m, 0, sizeof(m));
	m.scheme = "https";
	m.host = "queue.example";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "no Origin, no metadata");
	m.site = "same-origin";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "no Origin, same-origin");
	m.site = "none";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "no Origin, site none");
	m.site = "cross-site";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "no Origin, cross-site");
	m.origin = "https://evil.test";
	is_int(url_fetch_origin_ok(&m, &shop), 0,
	    "CASES C29: evil.test, cross-site");
	m.site = NULL;
	is_int(url_fetch_origin_ok(&m, &shop), 0, "evil.test without metadata");
	m.origin = "null";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "Origin: null");
	m.origin = "https://shop.example";
	m.site = "cross-site";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "a shop origin, cross-site");
	m.origin = "https://www.shop.example";
	m.site = "same-site";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "a shop origin, same-site");
	m.origin = "http://shop.example";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "a shop host over http");
	m.origin = "https://queue.example";
	m.site = "same-origin";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "same origin");
	m.site = NULL;
	is_int(url_fetch_origin_ok(&m, &shop), 1, "same origin, no metadata");
	m.origin = "https://QUEUE.example";
	is_int(url_fetch_origin_ok(&m, &shop), 1, "same origin, host case");
	m.origin = "http://queue.example";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "same host, other scheme");
	m.site = "same-origin";
	is_int(url_fetch_origin_ok(&m, &shop), 1,
	    "same host, other scheme, browser says same-origin");
	m.origin = "https://queue.example:444";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "same host, other port");
	m.origin = "https://queue.example/";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "origin with a path");
	m.origin = "https://sub.queue.example";
	m.site = "same-site";
	is_int(url_fetch_origin_ok(&m, &shop), 0, "a sibling host, same-site");
	m.host = NULL;
	m.origin = "https://queue.example";
	m.site = NULL;
	is_int(url_fetch_origin_ok(&m, &shop), 0, "no Host: not same origin");
}

/*
 * The one rule of every path that takes a number (url_take_number()),
 * row by row: the request's headers, how the route is reached, and the
 * verdict.  The rows are CASES C29's inputs, the cross-site requests of
 * JSON mode, and the positive controls (shop origin, same origin, plain
 * clients, a link followed from another site).
 */
static void
test_take_number(void)
{
	static const struct {
		const char		*what;
		enum url_take_kind	 kind;
		int			 head;
		const char		*origin, *site, *mode, *dest;
		const char		*sec_purpose, *purpose, *x_purpose;
		const char		*x_moz;
		enum url_take		 want;
	} rows[] = {
#define NAV	URL_TAKE_NAVIGATION
#define FETCH	URL_TAKE_FETCH
#define OK	URL_TAKE_OK
#define FOREIGN	URL_TAKE_FOREIGN
#define NOT	URL_TAKE_NOT_DELIBERATE
		{ "C29: /enter, Sec-Purpose prefetch", NAV, 0, NULL, NULL,
		    NULL, NULL, "prefetch", NULL, NULL, NULL, NOT },
		{ "C29: /enter, Purpose prefetch", NAV, 0, NULL, NULL, NULL,
		    NULL, NULL, "prefetch", NULL, NULL, NOT },
		{ "C29: /enter, Sec-Purpose prefetch;prerender", NAV, 0,
		    NULL, NULL, NULL, NULL, "prefetch;prerender", NULL, NULL,
		    NULL, NOT },
		{ "C29: /join from evil.test, cross-site", FETCH, 0,
		    "https://evil.test", "cross-site", NULL, NULL, NULL, NULL,
		    NULL, NULL, FOREIGN },
		{ "JSON mode: evil.test, cross-site, no-cors", FETCH, 0,
		    "https://evil.test", "cross-site", "no-cors", NULL, NULL,
		    NULL, NULL, NULL, FOREIGN },
		{ "JSON mode: the same with Sec-Purpose prefetch", FETCH, 0,
		    "https://evil.test", "cross-site", "no-cors", NULL,
		    "prefetch", NULL, NULL, NULL, FOREIGN },
		{ "JSON mode: cross-site no-cors without Origin", FETCH, 0,
		    NULL, "cross-site", "no-cors", "empty", NULL, NULL, NULL,
		    NULL, FOREIGN },
		{ "fetch: a shop origin's no-cors request", FETCH, 0,
		    "https://shop.example", "cross-site", "no-cors", NULL,
		    NULL, NULL, NULL, NULL, NOT },
		{ "fetch: same-origin no-cors", FETCH, 0, NULL, "same-origin",
		    "no-cors", "image", NULL, NULL, NULL, NULL, NOT },
		{ "fetch: no-cors with blanks around it", FETCH, 0, NULL, NULL,
		    " no-cors ", NULL, NULL, NULL, NULL, NULL, NOT },
		{ "fetch: Sec-Purpose prefetch, no Origin", FETCH, 0, NULL,
		    NULL, NULL, NULL, "prefetch", NULL, NULL, NULL, NOT },
		{ "fetch: X-Purpose preview", FETCH, 0, NULL, NULL, NULL, NULL,
		    NULL, NULL, "preview", NULL, NOT },
		{ "fetch: X-Moz prefetch", FETCH, 0, NULL, NULL, NULL, NULL,
		    NULL, NULL, NULL, "prefetch", NOT },
		{ "fetch: Purpose prerender", FETCH, 0, NULL, NULL, NULL, NULL,
		    NULL, "prerender", NULL, NULL, NOT },
		{ "fetch: HEAD", FETCH, 1, NULL, NULL, NULL, NULL, NULL, NULL,
		    NULL, NULL, NOT },
		{ "fetch: HEAD from evil.test", FETCH, 1, "https://evil.test",
		    NULL, NULL, NULL, NULL, NULL, NULL, NULL, FOREIGN },
		{ "fetch: Origin null", FETCH, 0, "null", "cross-site",
		    "cors", NULL, NULL, NULL, NULL, NULL, FOREIGN },
		{ "fetch: a plain client", FETCH, 0, NULL, NULL, NULL, NULL,
		    NULL, NULL, NULL, NULL, OK },
		{ "fetch: a shop origin, cors", FETCH, 0,
		    "https://shop.example", "cross-site", "cors", "empty",
		    NULL, NULL, NULL, NULL, OK },
		{ "fetch: same origin, cors", FETCH, 0,
		    "https://queue.example", "same-origin", "cors", "empty",
		    NULL, NULL, NULL, NULL, OK },
		{ "fetch: same-origin without Origin", FETCH, 0, NULL,
		    "same-origin", "cors", "empty", NULL, NULL, NULL, NULL,
		    OK },
		{ "fetch: a navigation from another site is no join", FETCH,
		    0, NULL, "cross-site", "navigate", "document", NULL, NULL,
		    NULL, NULL, FOREIGN },
		{ "/enter: a link followed from a mail", NAV, 0, NULL,
		    "cross-site", "navigate", "document", NULL, NULL, NULL,
		    NULL, OK },
		{ "/enter: a typed URL", NAV, 0, NULL, "none", "navigate",
		    "document", NULL, NULL, NULL, NULL, OK },
		{ "/enter: a plain client", NAV, 0, NULL, NULL, NULL, NULL,
		    NULL, NULL, NULL, NULL, OK },
		{ "/enter: another site's prefetch of a link", NAV, 0, NULL,
		    "cross-site", "navigate", "document", "prefetch", NULL,
		    NULL, NULL, NOT },
		{ "/enter: HEAD", NAV, 1, NULL, NULL, NULL, NULL, NULL, NULL,
		    NULL, NULL, NOT },
		{ "/enter: a same-origin fetch", NAV, 0, NULL, "same-origin",
		    "cors", "empty", NULL, NULL, NULL, NULL, NOT },
		{ "/enter: another site's image", NAV, 0, NULL, "cross-site",
		    "no-cors", "image", NULL, NULL, NULL, NULL, FOREIGN },
		{ "/enter: another site's frame", NAV, 0, NULL, "cross-site",
		    "navigate", "iframe", NULL, NULL, NULL, NULL, FOREIGN },
		{ "/enter: a foreign Origin", NAV, 0, "https://evil.test",
		    "cross-site", "cors", "empty", NULL, NULL, NULL, NULL,
		    FOREIGN },
		{ "/enter: a foreign Origin on a navigation", NAV, 0,
		    "https://evil.test", "cross-site", "navigate", "document",
		    NULL, NULL, NULL, NULL, FOREIGN },
#undef NAV
#undef FETCH
#undef OK
#undef FOREIGN
#undef NOT
	};
	struct fetch_meta	 m;
	size_t			 i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.scheme = "https";
		m.host = "queue.example";
		m.head = rows[i].head;
		m.origin = rows[i].origin;
		m.site = rows[i].site;
		m.mode = rows[i].mode;
		m.dest = rows[i].dest;
		m.sec_purpose = rows[i].sec_purpose;
		m.purpose = rows[i].purpose;
		m.x_purpose = rows[i].x_purpose;
		m.x_moz = rows[i].x_moz;
		is_int(url_take_number(&m, &shop, rows[i].kind), rows[i].want,
		    "take a number: %s", rows[i].what);
	}
	is_int(url_take_number(NULL, &shop, URL_TAKE_FETCH), URL_TAKE_FOREIGN,
	    "take a number: no metadata at all is refused");
	memset(&m, 0, sizeof(m));
	is_int(url_take_number(&m, NULL, URL_TAKE_FETCH), URL_TAKE_FOREIGN,
	    "take a number: no queue is refused");
}

int
main(void)
{
	if (url_shop_domains_parse("shop.example www.shop.example",
	    &shop) != 0 ||
	    url_shop_domains_parse("http://127.0.0.1:8080", &local) != 0) {
		printf("Bail out! fixture domains refused\n");
		return 1;
	}
	test_domains();
	test_c09();
	test_c10();
	test_local();
	test_length();
	test_origin();
	test_append();
	test_own_param();
	test_param_spelling();
	test_fetch_deliberate();
	test_fetch_origin();
	test_take_number();
	return done_testing();
}
