/*
 * test-req.c - request parsing: CONTENT_LENGTH judgement (CASES C22),
 * declared query fields with repeated, bracketed, NUL and over-long
 * values (CASES C07), the percent-decoder in its lenient (query) and
 * strict (form) modes, form fields, the JSON content type, the route
 * path and URL prefix derived from the parameters each web server really
 * sends (captured from nginx 1.22, Apache 2.4 mod_proxy_fcgi and
 * mod_fcgid 2.3.9, lighttpd 1.4.69), and the table of error answers.
 */
#include "../../fcgi-app/pool/req.c"

#include "queue-ops.h"
#include "tap.h"

static void
test_content_length(void)
{
	int64_t	 len;
	int	 absent;

	is_int(req_content_length(NULL, 65536, &len, &absent), ERR_OK,
	    "absent CONTENT_LENGTH is ok");
	ok(absent == 1 && len == 0, "absent means length 0, absent flag");
	is_int(req_content_length("", 65536, &len, &absent), ERR_OK,
	    "empty CONTENT_LENGTH counts as absent");
	ok(absent == 1, "empty sets absent");
	is_int(req_content_length("37", 65536, &len, &absent), ERR_OK,
	    "37 accepted");
	is_int(len, 37, "37 read as 37");
	is_int(req_content_length("0", 65536, &len, &absent), ERR_OK,
	    "0 accepted");
	is_int(req_content_length("-1", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "-1 -> invalid_content_length");
	is_int(req_content_length("12abc", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "12abc -> invalid_content_length");
	is_int(req_content_length("+5", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "+5 -> invalid_content_length");
	is_int(req_content_length(" 5", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "' 5' -> invalid_content_length");
	is_int(req_content_length("99999999999999999999", 65536, &len,
	    &absent), ERR_BAD_LENGTH, "20 nines -> invalid_content_length");
	is_int(req_content_length("0x10", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "0x10 -> invalid_content_length");
	is_int(req_content_length("010", 65536, &len, &absent),
	    ERR_BAD_LENGTH, "leading zero -> invalid_content_length");
	is_int(req_content_length("10485760", 65536, &len, &absent),
	    ERR_TOO_LARGE, "10 MiB -> body_too_large");
	is_int(req_content_length("65537", 65536, &len, &absent),
	    ERR_TOO_LARGE, "max + 1 -> body_too_large");
	is_int(req_content_length("65536", 65536, &len, &absent), ERR_OK,
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

/* Decode s in mode strict: the result, or "(refused)". */
static void
decode(const char *s, int strict, const char *want, size_t want_len,
    const char *what)
{
	char	*d;
	size_t	 len = 99;

	d = req_pct_decode(s, strlen(s), strict, &len);
	if (want == NULL) {
		ok(d == NULL, "%s: refused", what);
		is_int(len, 0, "%s: no length", what);
	} else {
		ok(d != NULL && memcmp(d, want, want_len + 1) == 0,
		    "%s: decoded", what);
		is_int(len, want_len, "%s: length", what);
	}
	free(d);
}

static void
test_pct_decode(void)
{
	int	 strict;

	for (strict = 0; strict <= 1; strict++) {
		decode("a+b%20c", strict, "a b c", 5, strict ?
		    "strict: + and %%20" : "lenient: + and %%20");
		decode("%41%62%7e", strict, "Ab~", 3, strict ?
		    "strict: hex either case" : "lenient: hex either case");
		decode("", strict, "", 0, strict ? "strict: empty" :
		    "lenient: empty");
		decode("%25zz", strict, "%zz", 3, strict ?
		    "strict: decoded once" : "lenient: decoded once");
	}
	decode("%zz", 0, "%zz", 3, "lenient: bad escape kept");
	decode("%zz", 1, NULL, 0, "strict: bad escape refused");
	decode("ab%4", 0, "ab%4", 4, "lenient: cut escape kept");
	decode("ab%4", 1, NULL, 0, "strict: cut escape refused");
	decode("ab%", 0, "ab%", 3, "lenient: lone % kept");
	decode("ab%", 1, NULL, 0, "strict: lone % refused");
	decode("a%00b", 0, "a\0b", 3, "lenient: %%00 is a NUL byte");
	decode("a%00b", 1, NULL, 0, "strict: %%00 refused");
	decode("%c3%a9", 1, "\xc3\xa9", 2, "strict: UTF-8 bytes");
}

/* A request whose form body is body. */
static void
form_req(struct req *r, const char *body)
{
	memset(r, 0, sizeof(*r));
	r->body = (char *)body;
	r->bodylen = body != NULL ? strlen(body) : 0;
}

static void
test_form(void)
{
	struct req	 r;
	char		*v;

	form_req(&r, "user=al+ice&password=p%26w&csrf=t");
	v = req_form(&r, "user");
	is_str(v, "al ice", "form field decoded");
	free(v);
	v = req_form(&r, "password");
	is_str(v, "p&w", "an escaped & stays in its value");
	free(v);
	v = req_form(&r, "pass");
	is_str(v, NULL, "a prefix of a name is not the name");
	free(v);
	form_req(&r, "a=1&a=2");
	v = req_form(&r, "a");
	is_str(v, NULL, "a field given twice is refused");
	free(v);
	form_req(&r, "a=%zz&b=2");
	v = req_form(&r, "a");
	is_str(v, NULL, "a bad escape is refused");
	free(v);
	v = req_form(&r, "b");
	is_str(v, "2", "the other field still reads");
	free(v);
	form_req(&r, "a&b=");
	v = req_form(&r, "a");
	is_str(v, NULL, "a name without = has no value");
	free(v);
	v = req_form(&r, "b");
	is_str(v, "", "b= is empty");
	free(v);
	form_req(&r, NULL);
	v = req_form(&r, "a");
	is_str(v, NULL, "no body, no field");
	free(v);
	ok(req_form_utf8(&r), "no body is UTF-8");
	form_req(&r, "name=caf%C3%A9&x=%E2%82%AC");
	ok(req_form_utf8(&r), "UTF-8 values pass");
	form_req(&r, "name=caf%E9");
	ok(!req_form_utf8(&r), "a Latin-1 byte is refused");
	form_req(&r, "n%FF=1");
	ok(!req_form_utf8(&r), "a name that is not UTF-8 is refused");
	form_req(&r, "a=%zz&b=%C3%A9");
	ok(req_form_utf8(&r), "a pair that does not decode is not judged");
	/* Given, whatever req_form() makes of it. */
	form_req(&r, "a=1&a=2&b=%zz&c=%00&d=&e");
	ok(req_form_given(&r, "a"), "a field given twice is given");
	ok(req_form_given(&r, "b"), "a bad escape is given");
	ok(req_form_given(&r, "c"), "a NUL byte is given");
	ok(req_form_given(&r, "d"), "d= is given");
	ok(!req_form_given(&r, "e"), "a name without = is not given");
	ok(!req_form_given(&r, "f"), "an absent field is not given");
	ok(!req_form_given(&r, "dd"), "nor a longer name");
	form_req(&r, NULL);
	ok(!req_form_given(&r, "a"), "no body, nothing given");
}

static void
test_err_table(void)
{
	int		 i, j, st;
	enum http_err	 e;

	for (i = ERR_OK + 1; i < ERR__MAX; i++) {
		st = http_err_status((enum http_err)i);
		ok(st >= 400 && st <= 599, "error %d (%s): status %d", i,
		    http_err_code((enum http_err)i), st);
		ok(http_err_code((enum http_err)i) != NULL &&
		    http_err_code((enum http_err)i)[0] != '\0',
		    "error %d has a code", i);
		ok(http_err_message((enum http_err)i) != NULL &&
		    http_err_message((enum http_err)i)[0] != '\0',
		    "error %d (%s) has a message", i,
		    http_err_code((enum http_err)i));
		for (j = ERR_OK + 1; j < i; j++)
			if (strcmp(http_err_code((enum http_err)i),
			    http_err_code((enum http_err)j)) == 0)
				break;
		ok(j == i, "code %s is unique",
		    http_err_code((enum http_err)i));
		is_int(http_err_by_code(http_err_code((enum http_err)i)), i,
		    "code %s names its row", http_err_code((enum http_err)i));
	}
	is_int(http_err_status(ERR_OK), 500, "ERR_OK answers as internal");
	is_int(http_err_status(ERR__MAX), 500, "out of range: internal");
	is_int(http_err_by_code("no_such_code"), ERR_INTERNAL,
	    "an unknown code is internal");
	is_int(http_err_by_code(NULL), ERR_INTERNAL, "no code is internal");
	is_int(http_err_of(APP_DB_DOWN), ERR_DB_DOWN, "APP_DB_DOWN: 503");
	is_int(http_err_of(APP_BUSY), ERR_BUSY, "APP_BUSY: 503 busy");
	is_int(http_err_of(APP_DB), ERR_INTERNAL, "APP_DB: 500");
	is_int(http_err_of(APP_ENOMEM), ERR_INTERNAL, "APP_ENOMEM: 500");
	/* The queue operations' reasons are answered by their code. */
	for (i = QOPS_R_OK + 1; i < QOPS_R__MAX; i++) {
		e = http_err_by_code(qops_reason_code((enum qops_reason)i));
		is_str(http_err_code(e), qops_reason_code((enum qops_reason)i),
		    "reason %s has a row",
		    qops_reason_code((enum qops_reason)i));
		is_int(http_err_status(e),
		    qops_reason_status((enum qops_reason)i),
		    "reason %s: the same status",
		    qops_reason_code((enum qops_reason)i));
	}
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
	test_pct_decode();
	test_form();
	test_err_table();
	test_json_type();
	return done_testing();
}
