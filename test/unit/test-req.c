/*
 * test-req.c - request parsing: CONTENT_LENGTH judgement (CASES C22),
 * declared query fields with repeated, bracketed, NUL and over-long
 * values (CASES C07), the JSON content type, and the route path and
 * URL prefix derived from the parameters each web server really sends
 * (captured from nginx 1.22, Apache 2.4 mod_proxy_fcgi and mod_fcgid
 * 2.3.9, lighttpd 1.4.69).
 */
#include "../../fcgi-app/req.c"

#include "tap.h"

static void
test_content_length(void)
{
	int64_t	 len;
	int	 absent;

	is_int(req_content_length(NULL, 65536, &len, &absent), BODY_OK,
	    "absent CONTENT_LENGTH is ok");
	ok(absent == 1 && len == 0, "absent means length 0, absent flag");
	is_int(req_content_length("", 65536, &len, &absent), BODY_OK,
	    "empty CONTENT_LENGTH counts as absent");
	ok(absent == 1, "empty sets absent");
	is_int(req_content_length("37", 65536, &len, &absent), BODY_OK,
	    "37 accepted");
	is_int(len, 37, "37 read as 37");
	is_int(req_content_length("0", 65536, &len, &absent), BODY_OK,
	    "0 accepted");
	is_int(req_content_length("-1", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "-1 -> invalid_content_length");
	is_int(req_content_length("12abc", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "12abc -> invalid_content_length");
	is_int(req_content_length("+5", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "+5 -> invalid_content_length");
	is_int(req_content_length(" 5", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "' 5' -> invalid_content_length");
	is_int(req_content_length("99999999999999999999", 65536, &len,
	    &absent), BODY_BAD_LENGTH, "20 nines -> invalid_content_length");
	is_int(req_content_length("0x10", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "0x10 -> invalid_content_length");
	is_int(req_content_length("010", 65536, &len, &absent),
	    BODY_BAD_LENGTH, "leading zero -> invalid_content_length");
	is_int(req_content_length("10485760", 65536, &len, &absent),
	    BODY_TOO_LARGE, "10 MiB -> body_too_large");
	is_int(req_content_length("65537", 65536, &len, &absent),
	    BODY_TOO_LARGE, "max + 1 -> body_too_large");
	is_int(req_content_length("65536", 65536, &len, &absent), BODY_OK,
	    "exactly max accepted");
}

/* Parse qs into fresh fields and return them (caller frees values). */
static void
parse(const char *qs, struct field_val f[FIELD__MAX])
{
	memset(f, 0, sizeof(struct field_val) * FIELD__MAX);
	req_parse_query(qs, f);
}

static void
clear(struct field_val f[FIELD__MAX])
{
	size_t	 i;

	for (i = 0; i < FIELD__MAX; i++)
		free(f[i].val);
}

static void
test_query(void)
{
	struct field_val	 f[FIELD__MAX];
	char			*big;

	parse("number=42", f);
	is_int(f[FIELD_NUMBER].state, FIELD_OK, "number=42 is ok");
	is_str(f[FIELD_NUMBER].val, "42", "number=42 value");
	clear(f);

	parse("token[]=x", f);
	is_int(f[FIELD_TOKEN].state, FIELD_ABSENT, "token[]=x is undeclared");
	clear(f);

	parse("token=a&token=b", f);
	is_int(f[FIELD_TOKEN].state, FIELD_BAD, "repeated token is bad");
	ok(f[FIELD_TOKEN].val == NULL, "repeated token keeps no value");
	clear(f);

	parse("token=%00", f);
	is_int(f[FIELD_TOKEN].state, FIELD_BAD, "token=%%00 is bad");
	clear(f);

	parse("token=", f);
	is_int(f[FIELD_TOKEN].state, FIELD_OK, "token= is present");
	is_str(f[FIELD_TOKEN].val, "", "token= is empty");
	clear(f);

	parse("return=https%3A%2F%2Fshop.example%2Fa%3Fb%3D1&x=1", f);
	is_str(f[FIELD_RETURN].val, "https://shop.example/a?b=1",
	    "return decoded exactly once");
	clear(f);

	parse("return=%252f", f);
	is_str(f[FIELD_RETURN].val, "%2f", "%%252f decodes once to %%2f");
	clear(f);

	parse("number=1+2&code=%zz", f);
	is_str(f[FIELD_NUMBER].val, "1 2", "+ is a space");
	is_str(f[FIELD_CODE].val, "%zz", "bad escape kept as is");
	clear(f);

	parse("%6eumber=7", f);
	is_str(f[FIELD_NUMBER].val, "7", "encoded name matches");
	clear(f);

	big = xmalloc(10 * 1024 + 7);
	memcpy(big, "token=", 6);
	memset(big + 6, 'A', 10 * 1024);
	big[6 + 10 * 1024] = '\0';
	parse(big, f);
	is_int(f[FIELD_TOKEN].state, FIELD_OK, "10 KB token is kept");
	is_int(f[FIELD_TOKEN].len, 10 * 1024, "10 KB token length");
	clear(f);
	free(big);

	big = xmalloc(17 * 1024 + 7);
	memcpy(big, "token=", 6);
	memset(big + 6, 'A', 17 * 1024);
	big[6 + 17 * 1024] = '\0';
	parse(big, f);
	is_int(f[FIELD_TOKEN].state, FIELD_BAD, "17 KB token is bad");
	clear(f);
	free(big);

	parse("&&=&number", f);
	is_int(f[FIELD_NUMBER].state, FIELD_OK, "bare name is present");
	is_str(f[FIELD_NUMBER].val, "", "bare name has empty value");
	clear(f);
}

static void
test_json_type(void)
{
	ok(req_is_json("application/json"), "application/json");
	ok(req_is_json("application/json; charset=utf-8"),
	    "with charset parameter");
	ok(req_is_json("Application/JSON"), "case-insensitive");
	ok(!req_is_json("text/plain"), "text/plain refused");
	ok(!req_is_json("application/jsonp"), "application/jsonp refused");
	ok(!req_is_json(NULL), "absent refused");
	ok(!req_is_json("application/x-www-form-urlencoded"), "form refused");
}

/*
 * Derive from (REQUEST_URI, REDIRECT_URI, SCRIPT_NAME, PATH_INFO) with
 * base-path cfg and check the route and the prefix.
 */
static void
route(const char *uri, const char *redir, const char *sn, const char *pi,
    const char *cfg, const char *want_path, const char *want_base,
    const char *what)
{
	struct req_paths	 p = { uri, redir, sn, pi };
	char			 path[512], base[REQ_BASE_MAX];

	is_int(req_route_path(&p, cfg, path, sizeof(path), base,
	    sizeof(base)), 0, "%s: fits", what);
	is_str(path, want_path, "%s: route", what);
	is_str(base, want_base, "%s: prefix", what);
}

static void
test_route_path(void)
{
	struct req_paths	 p = { NULL, NULL, NULL, NULL };
	char			 path[16], base[REQ_BASE_MAX], big[600];

	/* nginx at the root: SCRIPT_NAME = $fastcgi_script_name. */
	route("/queue/demo/status?number=3", NULL, "/queue/demo/status", NULL,
	    "", "/queue/demo/status", "", "nginx /queue/");
	/* nginx under a prefix with fastcgi_split_path_info. */
	route("/warteraum/queue/demo/join", NULL, "/warteraum",
	    "/queue/demo/join", "", "/queue/demo/join", "/warteraum",
	    "nginx split_path_info under /warteraum");
	/* Apache mod_proxy_fcgi: SCRIPT_NAME = the path, no PATH_INFO. */
	route("/queue/demo/status?number=3", NULL, "/queue/demo/status", NULL,
	    "", "/queue/demo/status", "", "proxy_fcgi /queue/");
	route("/warteraum/queue/demo/status?number=3", NULL,
	    "/warteraum/queue/demo/status", NULL, "/warteraum",
	    "/queue/demo/status", "/warteraum",
	    "proxy_fcgi under /warteraum with base-path");
	route("/warteraum/queue/demo/status?number=3", NULL,
	    "/warteraum/queue/demo/status", NULL, "",
	    "/warteraum/queue/demo/status", "",
	    "proxy_fcgi under /warteraum without base-path: 404");
	/* Apache mod_fcgid, .htaccess rewrite to aqueue.fcgi/<path>. */
	route("/warteraum/queue/demo/status?number=3", NULL,
	    "/warteraum/aqueue.fcgi", "/queue/demo/status", "",
	    "/queue/demo/status", "/warteraum", "mod_fcgid .htaccess");
	route("/warteraum/queue/demo/join", NULL, "/warteraum/aqueue.fcgi",
	    "/queue/demo/join", "/warteraum", "/queue/demo/join",
	    "/warteraum", "mod_fcgid .htaccess with base-path");
	route("/warteraum/aqueue.fcgi/queue/demo/join", NULL,
	    "/warteraum/aqueue.fcgi", "/queue/demo/join", "",
	    "/queue/demo/join", "/warteraum/aqueue.fcgi",
	    "mod_fcgid, script named in the URL");
	/* lighttpd at the root: it splits SCRIPT_NAME/PATH_INFO itself. */
	route("/queue/demo/join", NULL, "/queue/demo", "/join", "",
	    "/queue/demo/join", "", "lighttpd /queue/");
	route("/queue/api/join", NULL, "/queue/api", "/join", "",
	    "/queue/api/join", "", "lighttpd, a queue called api");
	/* lighttpd under a prefix: url.rewrite gives REDIRECT_URI. */
	route("/warteraum/queue/demo/status?number=3",
	    "/queue/demo/status?number=3", "/queue/demo", "/status", "",
	    "/queue/demo/status", "/warteraum", "lighttpd rewrite");
	/* Plain CGI: no REQUEST_URI. */
	route(NULL, NULL, "/cgi-bin/aqueue", "/queue/demo/info", "",
	    "/queue/demo/info", "", "CGI");
	route("/metrics", NULL, "/metrics", NULL, "", "/metrics", "",
	    "/metrics");
	route("/x/api/admin/queue/sites", NULL, "/x/aqueue.fcgi",
	    "/api/admin/queue/sites", "", "/api/admin/queue/sites", "/x",
	    "admin API under /x");
	/* base-path set, but the request is not under it. */
	route("/queue/demo/join", NULL, "/queue/demo/join", NULL,
	    "/warteraum", "/queue/demo/join", "", "base-path, root request");
	route("/warteraumx/queue/demo", NULL, NULL, NULL, "/warteraum",
	    "/warteraumx/queue/demo", "", "base-path is a segment prefix only");
	/* A prefix that is no plain path is never reflected. */
	route("//evil.example/queue/demo/enter", NULL, "/aqueue.fcgi",
	    "/queue/demo/enter", "", "/queue/demo/enter", "",
	    "//host prefix dropped");
	route("/a\"b/queue/demo", NULL, "/a\"b/aqueue.fcgi", "/queue/demo",
	    "", "/queue/demo", "", "quote in the prefix dropped");
	route("/a/../queue/demo", NULL, "/a/../x.fcgi", "/queue/demo", "",
	    "/queue/demo", "", "dot-dot prefix dropped");
	route("/w/queue/d%65mo", NULL, "/w/aqueue.fcgi", "/queue/demo", "",
	    "/queue/demo", "", "encoded REQUEST_URI: no prefix guessed");
	/* Does not fit. */
	p.request_uri = "/queue/a-very-long-slug";
	is_int(req_route_path(&p, "", path, sizeof(path), base,
	    sizeof(base)), -1, "route longer than the buffer: -1");
	is_str(path, "", "route longer than the buffer: empty");
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ok(!req_base_valid(big, strlen(big)), "600-byte prefix refused");
	ok(req_base_valid("/warteraum", 10), "/warteraum valid");
	ok(req_base_valid("/a/b-c/d_e.f~", 13), "/a/b-c/d_e.f~ valid");
	ok(!req_base_valid("/warteraum/", 11), "trailing slash refused");
	ok(!req_base_valid("warteraum", 9), "no leading slash refused");
	ok(!req_base_valid("/a//b", 5), "empty segment refused");
	ok(!req_base_valid("/.", 2), "/. refused");
	ok(!req_base_valid("/a/..", 5), "/a/.. refused");
	ok(req_base_valid("/...", 4), "/... is a name");
	ok(!req_base_valid("/a b", 4), "space refused");
	ok(!req_base_valid("/a%20b", 6), "percent refused");
	ok(!req_base_valid("", 0), "empty refused");
}

int
main(void)
{
	test_content_length();
	test_route_path();
	test_query();
	test_json_type();
	return done_testing();
}
