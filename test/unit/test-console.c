/*
 * test-console.c - unit tests for the console's and the dashboard's pure
 * parts: user names and passwords, Argon2id hashing and checking, the
 * endpoint a route pattern is counted under, the status slots and
 * latency buckets of the pool counters, the inflow of two samples, the
 * durations in words of the dashboard and the instances page.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "admin-user.h"
#include "aqueue.h"
#include "cfg.h"
#include "instance.h"
#include "isotime.h"
#include "stats.h"
#include "tap.h"

static void
test_names(void)
{
	char	 long_name[ADMIN_NAME_MAX + 2];

	ok(admin_name_valid("alice"), "alice is a name");
	ok(admin_name_valid("ops.team_1@example-co"), "all allowed signs");
	ok(!admin_name_valid(""), "empty refused");
	ok(!admin_name_valid("a b"), "space refused");
	ok(!admin_name_valid("<x>"), "markup refused");
	ok(!admin_name_valid("al\xc3\xa9"), "non-ASCII refused");
	memset(long_name, 'a', ADMIN_NAME_MAX);
	long_name[ADMIN_NAME_MAX] = '\0';
	ok(admin_name_valid(long_name), "64 characters");
	long_name[ADMIN_NAME_MAX] = 'a';
	long_name[ADMIN_NAME_MAX + 1] = '\0';
	ok(!admin_name_valid(long_name), "65 characters refused");
	ok(!admin_password_valid("12345678901"), "11 bytes refused");
	ok(admin_password_valid("123456789012"), "12 bytes");
}

static void
test_hash(void)
{
	struct cfg	 c;
	char		 h[ADMIN_HASH_MAX + 1], h2[ADMIN_HASH_MAX + 1];

	memset(&c, 0, sizeof(c));
	c.argon2_t_cost = 2;
	c.argon2_m_cost = 1024;
	c.argon2_parallelism = 1;
	is_int(admin_hash(&c, "correct horse battery", h), APP_OK,
	    "hash made");
	is_int(strncmp(h, "$argon2id$v=19$m=1024,t=2,p=1$", 30), 0,
	    "encoded Argon2id with the configured parameters: %s", h);
	ok(admin_verify(h, "correct horse battery"), "the password matches");
	ok(!admin_verify(h, "correct horse batterY"), "another does not");
	ok(!admin_verify(h, ""), "empty does not");
	is_int(admin_hash(&c, "correct horse battery", h2), APP_OK,
	    "hash again");
	ok(strcmp(h, h2) != 0, "a fresh salt every time");
	ok(!admin_verify("$argon2i$v=19$m=1024,t=2,p=1$c2FsdHNhbHQ$"
	    "aGFzaGhhc2hoYXNoaGFzaA", "x"), "only Argon2id is taken");
	ok(!admin_verify("not a hash", "x"), "garbage never matches");
}

static void
test_endpoints(void)
{
	is_str(instance_ep_name(instance_ep_of("/queue/:slug")), "room",
	    "the room");
	is_str(instance_ep_name(instance_ep_of("/queue/:slug/join")), "join",
	    "join");
	is_str(instance_ep_name(instance_ep_of("/queue/:slug/status")),
	    "status", "status");
	is_str(instance_ep_name(instance_ep_of("/queue/healthz")), "healthz",
	    "healthz");
	is_str(instance_ep_name(instance_ep_of("/admin/queue/:slug/live")),
	    "admin", "console routes are admin");
	is_str(instance_ep_name(instance_ep_of("/api/admin/queue/sites")),
	    "api", "the admin API");
	is_str(instance_ep_name(instance_ep_of("/metrics")), "metrics",
	    "metrics");
	is_str(instance_ep_name(instance_ep_of("/queue/:slug/room")), "other",
	    "a segment called room is not the room");
	is_str(instance_ep_name(instance_ep_of("/other/x")), "other",
	    "unknown paths");
	is_int(instance_status_code(0), 200, "first slot 200");
	is_int(instance_status_code(INST_ST_OTHER), 0, "the other slot");
	is_str(instance_bucket_le(0), "0.001", "first bucket 1 ms");
	is_str(instance_bucket_le(INST_BUCKETS - 1), "+Inf", "last +Inf");
}

static void
test_inflow(void)
{
	ok(stats_inflow(0, 0, 30, 60000) == 30.0, "30 in a minute");
	ok(stats_inflow(10, 1000, 15, 31000) == 10.0, "5 in 30 s: 10/min");
	ok(stats_inflow(5, 1000, 5, 61000) == 0.0, "none");
	ok(stats_inflow(9, 1000, 3, 61000) == 0.0, "a count going down");
	ok(stats_inflow(0, 5000, 7, 5000) == 0.0, "no time passed");
}

/* The dashboard's tenths (inflow, an instance's CPU share). */
static void
test_tenths(void)
{
	ok(round_tenths(12.34) == 12.3, "12.34 -> 12.3");
	ok(round_tenths(12.35001) == 12.4, "12.35001 -> 12.4");
	ok(round_tenths(0.04) == 0.0, "0.04 -> 0");
	ok(round_tenths(-3.0) == 0.0, "below 0 -> 0");
	ok(round_tenths(0.0) == 0.0, "0 -> 0");
}

/*
 * Durations in words (iso_duration_text): the estimated wait and the
 * ages the console shows; console.js durationText() has the same
 * cases in the browser test.
 */
static void
test_duration(void)
{
	static const struct {
		int64_t		 s;
		const char	*want;
	} c[] = {
		{ -1, "-" }, { INT64_MIN, "-" },
		{ 0, "under 1 min" }, { 1, "under 1 min" },
		{ 59, "under 1 min" }, { 60, "1 min" }, { 119, "1 min" },
		{ 120, "2 min" }, { 3599, "59 min" }, { 3600, "1 h" },
		{ 3660, "1 h 1 min" }, { 27486, "7 h 38 min" },
		{ 86399, "23 h 59 min" }, { 86400, "1 d" },
		{ 86400 + 3 * 3600 + 59 * 60, "1 d 3 h" },
		{ 10 * 86400 + 23 * 3600, "10 d 23 h" },
		{ INT64_MAX, "106751991167300 d 15 h" },
	};
	char	 buf[ISO_DURATION_LEN + 1];
	size_t	 i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		iso_duration_text(c[i].s, buf, sizeof(buf));
		is_str(buf, c[i].want, "%lld s", (long long)c[i].s);
	}
}

int
main(void)
{
	test_names();
	test_hash();
	test_endpoints();
	test_inflow();
	test_tenths();
	test_duration();
	return done_testing();
}
