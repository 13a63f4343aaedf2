/*
 * test-autorate.c - unit tests for auto-rate: rules, judging health
 * documents (CASES C19), the health URL check at save time (C20) and the
 * controller (C40: no flapping, cut fast, raise slowly, within
 * [min, max], unknown holds).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autorate.h"
#include "health.h"
#include "tap.h"

#define D53	"{\"q\":{\"depth\":9007199254740993}}"
#define D64	"{\"q\":{\"depth\":18446744073709551615}}"
/* Controller times: DB Unix ms (0 means "never" in struct ar_mem). */
#define B	1700000000000LL

static struct ar_rules	 db_rule;	/* "db.latency_ms < 500" */

/* Judge body against "db.latency_ms < 500" (band 10). */
static void
judge(const char *body, size_t len, struct ar_eval *ev)
{
	ar_judge(&db_rule, 10, 20, body, len, ev);
}

/* Assert the state and reason of body judged against db_rule. */
static void
c19(const char *body, enum ar_state st, const char *reason,
    const char *what)
{
	struct ar_eval	 ev;

	judge(body, strlen(body), &ev);
	is_str(ar_state_name(ev.state), ar_state_name(st), "C19 %s: state",
	    what);
	is_str(ev.reason, reason, "C19 %s: reason", what);
}

static void
test_rules(void)
{
	struct ar_rules	 rs;
	const char	*why;
	char		 buf[512];

	is_int(ar_rules_parse("responseTimeMs < 500, metrics.cpuLoad<0.8; "
	    "q.depth >= 3\nx \xe2\x89\xa4 -1e3, y \xe2\x89\xa5 2", &rs, &why),
	    0, "rules: five rules, ASCII and Unicode operators");
	is_int(rs.n, 5, "rules: count");
	ar_rules_format(&rs, buf, sizeof(buf));
	is_str(buf, "responseTimeMs < 500, "
	    "metrics.cpuLoad < 0.8, q.depth >= 3, "
	    "x <= -1000, y >= 2", "rules: normal form");
	is_int(ar_rules_parse("", &rs, &why), 0, "rules: empty is valid");
	is_int(rs.n, 0, "rules: empty has none");
	is_int(ar_rules_parse("a < 0x10", &rs, &why), -1, "rules: no hex");
	is_int(ar_rules_parse("a < inf", &rs, &why), -1, "rules: no inf");
	is_int(ar_rules_parse("a < nan", &rs, &why), -1, "rules: no nan");
	is_int(ar_rules_parse("a < 1e999", &rs, &why), -1,
	    "rules: no overflow to infinity");
	is_int(ar_rules_parse("a = 1", &rs, &why), -1, "rules: no '='");
	is_int(ar_rules_parse("a..b < 1", &rs, &why), -1,
	    "rules: no empty segment");
	is_int(ar_rules_parse("a. < 1", &rs, &why), -1,
	    "rules: no trailing dot");
	is_int(ar_rules_parse("< 1", &rs, &why), -1, "rules: a path needed");
	is_int(ar_rules_parse("a < ", &rs, &why), -1, "rules: a number needed");
	is_int(ar_rules_parse("a<1,a<1,a<1,a<1,a<1,a<1,a<1,a<1,a<1,a<1,a<1,"
	    "a<1,a<1,a<1,a<1,a<1,a<1", &rs, &why), -1, "rules: at most 16");
}

static void
test_c19(void)
{
	struct ar_eval	 ev;
	const char	*why;
	char		*big;
	size_t		 i, n;

	ar_rules_parse("db.latency_ms < 500", &db_rule, &why);
	c19("{\"db\":{\"latency_ms\":12},\"db.latency_ms\":9999}", AR_UNKNOWN,
	    "path_collision", "1");
	c19("{\"a.b\":{\"c\":1},\"a\":{\"b.c\":2}}", AR_UNKNOWN,
	    "path_collision", "2");
	c19("{\"db\":{\"latency_ms\":12},\"db\":{\"latency_ms\":9999}}",
	    AR_UNKNOWN, "path_collision", "1, a name twice");
	c19("{\"db\":{\"latency_ms\":1e309}}", AR_UNKNOWN, "non_finite",
	    "3 1e309");
	c19("{\"db\":{\"latency_ms\":NaN}}", AR_UNKNOWN, "non_finite",
	    "3 NaN");
	c19("{\"db\":{\"latency_ms\":-Infinity}}", AR_UNKNOWN, "non_finite",
	    "3 -Infinity");
	c19("{\"db\":{\"latency_ms\":\"900\"}}", AR_UNKNOWN, "not_numeric",
	    "4 string");
	c19("{\"db\":{\"latency_ms\":true}}", AR_UNKNOWN, "not_numeric",
	    "4 true");
	c19("{\"db\":{\"latency_ms\":null}}", AR_UNKNOWN, "not_numeric",
	    "4 null");
	c19("{\"db\":{}}", AR_UNKNOWN, "missing_path", "5");
	c19("{}", AR_UNKNOWN, "missing_path", "5, empty object");
	c19("[1,2]", AR_UNKNOWN, "missing_path", "5, an array");

	/* 6: nesting 40 levels. */
	big = malloc(6 * 1024 * 1024);
	n = 0;
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(big + n, 16, "{\"a\":");
	n += (size_t)snprintf(big + n, 16, "1");
	for (i = 0; i < 40; i++)
		big[n++] = '}';
	big[n] = '\0';
	c19(big, AR_UNKNOWN, "too_deep", "6, 40 levels");
	/* 6: 50,000 numeric leaves (100 KB). */
	n = (size_t)snprintf(big, 64, "{\"db\":{\"latency_ms\":1},\"x\":[");
	for (i = 0; i < 50000; i++)
		n += (size_t)snprintf(big + n, 8, "%s0", i > 0 ? "," : "");
	n += (size_t)snprintf(big + n, 8, "]}");
	c19(big, AR_UNKNOWN, "too_many_fields", "6, 50,000 leaves");
	/* 1,000 leaves in all is still fine. */
	n = (size_t)snprintf(big, 64, "{\"db\":{\"latency_ms\":1},\"x\":[");
	for (i = 0; i < 999; i++)
		n += (size_t)snprintf(big + n, 8, "%s0", i > 0 ? "," : "");
	n += (size_t)snprintf(big + n, 8, "]}");
	c19(big, AR_HEALTHY, "ok", "6, 1,000 leaves (the limit)");
	free(big);

	c19("{\"db\":{\"latency_ms\":-0.0}}", AR_HEALTHY, "ok", "7, -0.0");
	c19("{\"db\":{\"latency_ms\":12}}", AR_HEALTHY, "ok", "healthy");
	c19("{\"db\":{\"latency_ms\":500}}", AR_BROKEN, "rule_broken",
	    "at the threshold: broken");
	c19("{\"db\":{\"latency_ms\":460}}", AR_BAND, "in_band",
	    "within 10% below: the band");
	c19("{\"db\":{\"latency_ms\":449.5}}", AR_HEALTHY, "ok",
	    "below the band");
	c19("{\"db\":{\"latency_ms\":12} ", AR_UNKNOWN, "invalid_json",
	    "truncated");
	c19("{\"db\":{\"latency_ms\":12}} x", AR_UNKNOWN, "invalid_json",
	    "trailing bytes");
	c19("{'db':{\"latency_ms\":12}}", AR_UNKNOWN, "path_collision",
	    "single-quoted name (could hide a duplicate)");
	c19("", AR_UNKNOWN, "invalid_json", "empty body");

	/* 7: 2^53 + 1, exactly, against thresholds either side. */
	ar_rules_parse("q.depth < 9007199254740993", &db_rule, &why);
	judge(D53, strlen(D53), &ev);
	is_str(ar_state_name(ev.state), "unhealthy",
	    "C19 7: 2^53+1 < 2^53+1 does not hold (not rounded to 2^53)");
	ar_rules_parse("q.depth > 9007199254740992", &db_rule, &why);
	judge(D53, strlen(D53), &ev);
	is_str(ar_state_name(ev.state), "band",
	    "C19 7: 2^53+1 > 2^53 holds (exact value)");
	ar_rules_parse("q.depth < 10", &db_rule, &why);
	judge(D64, strlen(D64), &ev);
	is_str(ar_state_name(ev.state), "unhealthy",
	    "C19 7: 2^64-1 is above 10 (not clamped or wrapped)");

	/* Fields no rule names are ignored whatever their type. */
	ar_rules_parse("db.latency_ms < 500", &db_rule, &why);
	c19("{\"db\":{\"latency_ms\":1},\"s\":\"x\",\"n\":NaN,\"b\":[true]}",
	    AR_HEALTHY, "ok", "unnamed fields ignored");
	/* Arrays are indexed by position. */
	ar_rules_parse("a.1 < 5", &db_rule, &why);
	c19("{\"a\":[9,4]}", AR_HEALTHY, "ok", "array index path");
	/* responseTimeMs alone needs no JSON at all. */
	ar_rules_parse("responseTimeMs < 500", &db_rule, &why);
	ar_judge(&db_rule, 10, 20, "not json", 8, &ev);
	is_str(ev.reason, "ok", "responseTimeMs only: the body is not read");
	ar_judge(&db_rule, 10, 700, "", 0, &ev);
	is_str(ev.reason, "rule_broken", "responseTimeMs 700 breaks < 500");
	is_str(ev.rule, "responseTimeMs < 500", "the rule that decided");
	is_str(ev.sample, "{\"responseTimeMs\":700}", "the sample logged");
	ar_rules_parse("db.latency_ms < 500", &db_rule, &why);
}

static void
test_c20(void)
{
	static const char *const refused[] = {
		"file:///etc/passwd", "gopher://127.0.0.1:6379/_INFO",
		"dict://127.0.0.1:11211/", "http://127.0.0.1:3306/",
		"http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/",
		"http://[::ffff:127.0.0.1]/", "http://[::1]/",
		"http://0.0.0.0/", "http://169.254.169.254/latest/meta-data/",
		"http://127\xe3\x80\x82" "0\xe3\x80\x82" "0\xe3\x80\x82" "1/",
		"http://localhost./", "http://localhost/",
		"http://a.localhost/", "http://10.1.2.3/",
		"http://192.168.0.1/", "http://172.16.0.1/",
		"http://100.64.0.1/", "http://[fc00::1]/",
		"http://[fe80::1]/", "http://[::]/", "http://224.0.0.1/",
		"http://127.1/", "http://user:pw@shop.example/",
		"http://shop.example:0/", "http://shop.example:65536/",
		"ftp://shop.example/", "http:///x", "https://sh op.example/",
		"http://[2001:db8::1]:8080/h", "http://192.0.2.1/",
	};
	static const char *const allowed[] = {
		"https://shop.example/health", "http://shop.example:8080/h?x=1",
		"http://loopback.evil.test/", "https://93.184.216.34/health",
		"http://[2606:4700:4700::1111]:8080/h",
		"HTTPS://Shop.Example/health",
	};
	struct sockaddr_in	 in;
	struct sockaddr_in6	 in6;
	size_t			 i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ok(health_url_check(refused[i], 0) != NULL,
		    "C20 save: refused #%zu", i);
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		is_str(health_url_check(allowed[i], 0), NULL,
		    "C20 save: allowed #%zu", i);
	/* Opt-in private network: loopback and LAN, never the rest. */
	is_str(health_url_check("http://127.0.0.1:18541/health", 1), NULL,
	    "allow-private: loopback");
	is_str(health_url_check("http://localhost:8080/", 1), NULL,
	    "allow-private: localhost");
	is_str(health_url_check("http://10.0.0.5/", 1), NULL,
	    "allow-private: RFC 1918");
	ok(health_url_check("http://169.254.169.254/", 1) != NULL,
	    "allow-private: link-local still refused");
	ok(health_url_check("http://[::ffff:127.0.0.1]/", 1) != NULL,
	    "allow-private: IPv4-mapped still refused");
	ok(health_url_check("http://2130706433/", 1) != NULL,
	    "allow-private: numeric host still refused");
	ok(health_url_check("http://0.0.0.0/", 1) != NULL,
	    "allow-private: unspecified still refused");

	/* At connect time, the resolved address. */
	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in, 0), 0,
	    "C20 connect: 127.0.0.1 blocked");
	is_int(health_addr_allowed((struct sockaddr *)&in, 1), 1,
	    "C20 connect: 127.0.0.1 with allow-private");
	inet_pton(AF_INET, "100.100.1.1", &in.sin_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in, 0), 0,
	    "C20 connect: CGNAT blocked");
	inet_pton(AF_INET, "93.184.216.34", &in.sin_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in, 0), 1,
	    "C20 connect: public allowed");
	memset(&in6, 0, sizeof(in6));
	in6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in6, 1), 0,
	    "C20 connect: IPv4-mapped blocked even with allow-private");
	inet_pton(AF_INET6, "::127.0.0.1", &in6.sin6_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in6, 0), 0,
	    "C20 connect: IPv4-compatible blocked");
	inet_pton(AF_INET6, "fd12::1", &in6.sin6_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in6, 0), 0,
	    "C20 connect: ULA blocked");
	inet_pton(AF_INET6, "2606:2800:220:1::1", &in6.sin6_addr);
	is_int(health_addr_allowed((struct sockaddr *)&in6, 0), 1,
	    "C20 connect: public IPv6 allowed");
}

/* A controller: min 100, max 1000, step 10, cut 20%, cool-down 60 s. */
static const struct ar_ctl ctl = { 100, 1000, 10, 20, 60000, 3 };

static void
test_c40(void)
{
	struct ar_mem	 m;
	struct ar_rules	 rs;
	struct ar_eval	 ev;
	const char	*why;
	int64_t		 rate, nr, t, changes, cuts, raises, lo, hi;
	enum ar_action	 a;
	int		 i;

	/* Latency alternating 450 / 550 ms around "< 500" for an hour. */
	ar_rules_parse("responseTimeMs < 500", &rs, &why);
	memset(&m, 0, sizeof(m));
	rate = 1000;
	changes = 0;
	lo = hi = rate;
	for (t = 0, i = 0; t < 3600000; t += 10000, i++) {
		ar_judge(&rs, 10, i % 2 ? 550 : 450, "", 0, &ev);
		a = ar_decide(&ctl, &m, ev.state, B + t, rate, &nr);
		if (nr != rate)
			changes++;
		if (a == AR_A_RAISE)
			ok(0, "C40: no raise while alternating at t=%lld",
			    (long long)t);
		rate = nr;
		lo = rate < lo ? rate : lo;
		hi = rate > hi ? rate : hi;
	}
	ok(changes <= 12, "C40: at most 12 changes in the alternating hour "
	    "(%lld)", (long long)changes);
	is_int(rate, 100, "C40: settles at min (450 is inside the band)");
	ok(lo >= 100 && hi <= 1000, "C40: within [min, max]");

	/* The first broken sample cuts at once, by 20%. */
	memset(&m, 0, sizeof(m));
	a = ar_decide(&ctl, &m, AR_BROKEN, B + 1000, 500, &nr);
	is_str(ar_action_name(a), "cut", "cut at once");
	is_int(nr, 400, "cut: 500 less 20%% is 400");
	a = ar_decide(&ctl, &m, AR_BROKEN, B + 11000, 400, &nr);
	is_str(ar_action_name(a), "hold", "no second cut within the cool-down");
	a = ar_decide(&ctl, &m, AR_BROKEN, B + 61000, 400, &nr);
	is_int(nr, 320, "second cut after the cool-down");
	/* Raising: healthy for the cool-down, then one step. */
	for (t = 71000, raises = 0; t <= 71000 + 300000; t += 10000) {
		a = ar_decide(&ctl, &m, AR_HEALTHY, B + t,
		    320 + raises * 10, &nr);
		if (a == AR_A_RAISE) {
			is_int(nr, 320 + (raises + 1) * 10,
			    "raise by one step");
			raises++;
		}
	}
	is_int(raises, 5, "five minutes healthy: five raises, one a minute");

	/* A 5 s spike: one cut, then back up slowly. */
	memset(&m, 0, sizeof(m));
	a = ar_decide(&ctl, &m, AR_BROKEN, B + 0, 1000, &nr);
	is_int(nr, 800, "spike: one cut");
	for (t = 10000, cuts = 0, rate = 800; t < 600000; t += 10000) {
		a = ar_decide(&ctl, &m, AR_HEALTHY, B + t, rate, &nr);
		cuts += a == AR_A_CUT;
		rate = nr;
	}
	is_int(cuts, 0, "spike: no further cut");
	is_int(rate, 890,
	    "spike: plus 10 a minute after the cool-down, 9 in 590 s");

	/* Three unknown samples: frozen twice, then min. */
	memset(&m, 0, sizeof(m));
	a = ar_decide(&ctl, &m, AR_UNKNOWN, B + 0, 500, &nr);
	is_str(ar_action_name(a), "freeze", "unknown 1: freeze");
	is_int(nr, 500, "unknown 1: rate held");
	a = ar_decide(&ctl, &m, AR_UNKNOWN, B + 10000, 500, &nr);
	is_str(ar_action_name(a), "freeze", "unknown 2: freeze");
	a = ar_decide(&ctl, &m, AR_UNKNOWN, B + 20000, 500, &nr);
	is_str(ar_action_name(a), "min", "unknown 3: to min");
	is_int(nr, 100, "unknown 3: rate is min");
	a = ar_decide(&ctl, &m, AR_UNKNOWN, B + 30000, 100, &nr);
	is_str(ar_action_name(a), "freeze", "unknown 4: stays at min");
	a = ar_decide(&ctl, &m, AR_HEALTHY, B + 40000, 100, &nr);
	is_str(ar_action_name(a), "hold",
	    "healthy after unknown: no raise before the cool-down");

	/* The shop recovers only 2 minutes after the rate drops. */
	memset(&m, 0, sizeof(m));
	for (t = 0, rate = 1000, cuts = 0; t < 120000; t += 10000) {
		a = ar_decide(&ctl, &m, AR_BROKEN, B + t, rate, &nr);
		cuts += a == AR_A_CUT;
		rate = nr;
	}
	is_int(cuts, 2, "slow recovery: two cuts in two minutes, not twelve");
	is_int(rate, 640, "slow recovery: 1000 -> 800 -> 640");

	/* A rate set outside [min, max] by hand is brought back. */
	memset(&m, 0, sizeof(m));
	a = ar_decide(&ctl, &m, AR_HEALTHY, B + 0, 5000, &nr);
	is_str(ar_action_name(a), "clamp", "above max: clamp");
	is_int(nr, 1000, "above max: to max");
	a = ar_decide(&ctl, &m, AR_BAND, B + 0, 5, &nr);
	is_int(nr, 100, "below min: to min");
	/* Cuts never go below min, raises never above max. */
	memset(&m, 0, sizeof(m));
	ar_decide(&ctl, &m, AR_BROKEN, B + 0, 110, &nr);
	is_int(nr, 100, "cut stops at min");
	memset(&m, 0, sizeof(m));
	m.since_ms = B;
	ar_decide(&ctl, &m, AR_HEALTHY, B + 100000, 995, &nr);
	is_int(nr, 1000, "raise stops at max");
}

/*
 * The settings' texts (health URL, rules) refuse bytes that are not
 * UTF-8, naming the field; UTF-8 signs stay accepted.
 */
static void
test_utf8_fields(void)
{
	struct ar_settings	 s;
	struct ar_err		 err;
	unsigned int		 bits = 0;

	memset(&s, 0, sizeof(s));
	is_int(ar_field_set(&s, &bits, AR_F_RULES,
	    "responseTimeMs \xe2\x89\xa4 500", &err), APP_OK,
	    "rules with U+2264 taken");
	is_int(ar_field_set(&s, &bits, AR_F_RULES,
	    "responseTimeMs \xed\xa0\x80 500", &err), APP_INVALID,
	    "rules with an encoded surrogate refused");
	is_str(err.code, "invalid_rules", "rules: code");
	is_int(err.field, AR_F_RULES, "rules: field");
	is_int(err.status, 422, "rules: 422");
	is_int(ar_field_set(&s, &bits, AR_F_URL,
	    "https://shop.example/\xc3\x28", &err), APP_INVALID,
	    "health URL with C3 28 refused");
	is_str(err.code, "invalid_health_url", "health URL: code");
	is_int(bits, AR_BIT(AR_F_RULES), "only the good rules were set");
}

int
main(void)
{
	test_utf8_fields();
	test_rules();
	test_c19();
	test_c20();
	test_c40();
	return done_testing();
}
