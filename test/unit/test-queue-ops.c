/*
 * test-queue-ops.c - the operator's queue operations: the validators and
 * field parsing without a database, then create, update, pause, resume,
 * rate, rotate, list and delete against the real MariaDB that test/run
 * starts (AQ_TEST_CONF names its config; without it only the first part
 * runs and the rest is reported as skipped).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "dbtest.h"
#include "queue-ops.h"
#include "tap.h"

/* Every change of these tests is made as the CLI. */
static const struct principal cli = { PRINCIPAL_CLI, 0, 0, "cli:test",
    "" };

/* Validators and the normal form of shop domains. */
static void
test_validators(void)
{
	static const struct {
		const char	*in, *want;	/* want NULL: refused */
	} dom[] = {
		{ "", "" },
		{ " , ,\n", "" },
		{ "Shop.Example", "shop.example" },
		{ "https://Shop.Example:443", "shop.example" },
		{ "shop.example:8443", "shop.example:8443" },
		{ "HTTP://a.example:80", "http://a.example" },
		{ "http://a.example:8080", "http://a.example:8080" },
		{ "shop.example, www.shop.example\nshop.example",
		    "shop.example,www.shop.example" },
		{ "https://shop.example,shop.example:443",
		    "shop.example" },
		{ "http://127.0.0.1:18585", "http://127.0.0.1:18585" },
		{ "http://shop.example,shop.example",
		    "http://shop.example,shop.example" },
		{ "https://shop.example/path", NULL },
		{ "*.shop.example", NULL },
		{ "user@shop.example", NULL },
		{ "ftp://shop.example", NULL },
		{ "shop.example:0", NULL },
		{ "-shop.example", NULL },
	};
	char	 name[1024], *n;
	size_t	 i;

	for (i = 0; i < sizeof(dom) / sizeof(dom[0]); i++) {
		n = qops_domains_normalise(dom[i].in);
		is_str(n, dom[i].want, "domains list %zu normalised", i);
		free(n);
	}

	ok(qops_name_valid("Summer sale"), "name: plain");
	ok(qops_name_valid("Sommerverkauf \xc3\xa4\xc3\xb6\xc3\xbc \xf0\x9f"
	    "\x8e\x9f"), "name: UTF-8 letters and an emoji");
	ok(!qops_name_valid(""), "name: empty refused");
	ok(!qops_name_valid("   "), "name: blank refused");
	ok(!qops_name_valid("a\x01" "b"), "name: control character refused");
	ok(!qops_name_valid("a\x7f"), "name: DEL refused");
	ok(!qops_name_valid("a\tb"), "name: tab refused");
	ok(!qops_name_valid("\xc3("), "name: broken UTF-8 refused");
	ok(!qops_name_valid("\xc0\xaf"), "name: overlong UTF-8 refused");
	ok(!qops_name_valid("a\xe0\x80\xaf"),
	    "name: overlong three-byte UTF-8 refused");
	ok(!qops_name_valid("a\xed\xa0\x80"),
	    "name: an encoded surrogate (ED A0 80) refused");
	ok(!qops_name_valid("a\xf4\x90\x80\x80"),
	    "name: above U+10FFFF (F4 90 80 80) refused");
	ok(!qops_name_valid("a\xe2\x82"), "name: a cut sequence refused");
	ok(qops_name_valid("a\xef\xbf\xbd"), "name: U+FFFD allowed");
	ok(!qops_message_valid("x\xed\xbf\xbf"),
	    "message: an encoded surrogate refused");
	ok(!qops_name_valid("a\xc2\x85" "b"), "name: C1 NEL refused");
	ok(!qops_name_valid("a\xc2\x9f"), "name: C1 U+009F refused");
	ok(qops_name_valid("a\xc2\xa0" "b"), "name: U+00A0 allowed");
	ok(!qops_name_valid("sale\xe2\x80\xae" "elas"),
	    "name: RIGHT-TO-LEFT OVERRIDE refused");
	ok(!qops_name_valid("\xe2\x80\xaa" "x"), "name: U+202A refused");
	ok(!qops_name_valid("x\xe2\x81\xa6" "y"), "name: U+2066 refused");
	ok(!qops_name_valid("x\xe2\x81\xa9"), "name: U+2069 refused");
	ok(!qops_name_valid("x\xe2\x80\xa8" "y"),
	    "name: LINE SEPARATOR refused");
	ok(qops_name_valid("x\xe2\x80\x8f" "y"), "name: RLM allowed");
	ok(qops_name_valid("x\xe2\x80\xa7" "y\xe2\x81\xaa"),
	    "name: U+2027 and U+206A allowed");
	ok(!qops_message_valid("line\n\xe2\x80\xae" "x"),
	    "message: RIGHT-TO-LEFT OVERRIDE refused");
	ok(qops_message_valid("line\nline"), "message: line breaks kept");
	memset(name, 'x', 200);
	name[200] = '\0';
	ok(qops_name_valid(name), "name: 200 characters");
	name[200] = 'x';
	name[201] = '\0';
	ok(!qops_name_valid(name), "name: 201 characters refused");
	for (i = 0; i < 200; i++)
		memcpy(name + 2 * i, "\xc3\xa4", 2);
	name[400] = '\0';
	ok(qops_name_valid(name), "name: 200 two-byte characters");

	ok(qops_target_valid("https://shop.example/"), "target: https");
	ok(qops_target_valid("http://127.0.0.1:8080/shop/?a=1#x"),
	    "target: http with port, query, fragment");
	ok(!qops_target_valid("https://user:pw@shop.example/"),
	    "target: userinfo refused");
	ok(!qops_target_valid("ftp://shop.example/"), "target: ftp refused");
	ok(!qops_target_valid("https:///x"), "target: no host refused");
	ok(!qops_target_valid("https://shop.example/a b"),
	    "target: space refused");
	ok(!qops_target_valid("//shop.example/"), "target: relative refused");
	ok(!qops_target_valid("http://[::1/"), "target: broken IPv6 refused");
	ok(!qops_target_valid("http://127.0.0.1:99999/x"),
	    "target: port above 65535 refused");
	ok(!qops_target_valid("http://127.0.0.1:0/x"),
	    "target: port 0 refused");
	ok(!qops_target_valid("https://shop.example/\"><script>x</script>"),
	    "target: quote and angle brackets refused");
	ok(!qops_target_valid("https://sh%6fp.example/"),
	    "target: escaped host refused");
	ok(qops_target_valid("https://shop.example:8443/a?b={c}|d^e"),
	    "target: port, and braces, bar, caret in the query");

	ok(qops_target_in_domains("https://shop.example/x",
	    "www.shop.example,shop.example"), "target in domains");
	ok(qops_target_in_domains("https://SHOP.example:443/",
	    "shop.example"), "target in domains: case and default port");
	ok(qops_target_in_domains("http://127.0.0.1:8080/shop/",
	    "http://127.0.0.1:8080"), "target in domains: http with port");
	ok(!qops_target_in_domains("http://shop.example/", "shop.example"),
	    "target outside: other scheme");
	ok(!qops_target_in_domains("https://shop.example:8443/",
	    "shop.example"), "target outside: other port");
	ok(!qops_target_in_domains("https://evil.example/", "shop.example"),
	    "target outside: other host");
	ok(!qops_target_in_domains("https://shop.example/", ""),
	    "target outside: no domains");
}

/* Field names and parsing from text. */
static void
test_fields(void)
{
	struct qops_spec	 s;
	struct qops_err		 err;

	memset(&s, 0, sizeof(s));
	is_int(qops_field_find("token-ttl"), QOPS_F_TOKEN_TTL,
	    "field by option name");
	is_int(qops_field_find("ratePerMinute"), QOPS_F_RATE,
	    "field by API key");
	is_int(qops_field_find("slug"), -1, "slug is not a field");
	is_str(qops_field(QOPS_F_TARGET)->key, "targetUrl", "API key");
	is_int(qops_spec_set(&s, QOPS_F_RATE, "600", &err), APP_OK,
	    "rate 600 parsed");
	is_int(s.rate, 600, "rate value");
	is_int(s.set, QOPS_BIT(QOPS_F_RATE), "rate marked as set");
	is_int(qops_spec_set(&s, QOPS_F_RATE, "0", &err), APP_INVALID,
	    "rate 0 refused");
	is_int(err.reason, QOPS_R_INVALID, "reason invalid");
	is_int(err.field, QOPS_F_RATE, "field rate");
	is_str(qops_reason_code(err.reason), "invalid_value", "code");
	is_int(qops_reason_status(err.reason), 422, "status 422");
	is_int(s.rate, 600, "refused value leaves the spec as it was");
	is_int(qops_spec_set(&s, QOPS_F_RATE, "1000001", &err), APP_INVALID,
	    "rate above the maximum refused");
	is_int(qops_spec_set(&s, QOPS_F_RATE, "06", &err), APP_INVALID,
	    "leading zero refused");
	is_int(qops_spec_set(&s, QOPS_F_BURST, "0", &err), APP_OK,
	    "burst 0 (default) taken");
	is_int(qops_spec_set(&s, QOPS_F_TOKEN_TTL, "86401", &err),
	    APP_INVALID, "token TTL above a day refused");
	is_int(qops_spec_set(&s, QOPS_F_NAME, "x", &err), APP_OK,
	    "name taken as text");
	is_str(s.name, "x", "name borrowed");
	/* Every text field refuses bytes that are not UTF-8. */
	is_int(qops_spec_set(&s, QOPS_F_NAME, "y\xed\xa0\x80", &err),
	    APP_INVALID, "name: an encoded surrogate refused");
	is_int(err.reason, QOPS_R_UNICODE, "reason: not UTF-8");
	is_int(err.field, QOPS_F_NAME, "field name");
	is_str(qops_reason_code(err.reason), "invalid_unicode", "code");
	is_int(qops_reason_status(err.reason), 400, "status 400");
	is_str(s.name, "x", "the refused name leaves the spec as it was");
	is_int(qops_spec_set(&s, QOPS_F_MESSAGE, "\xc3\x28", &err),
	    APP_INVALID, "message: C3 28 refused");
	is_int(err.reason, QOPS_R_UNICODE, "message: reason not UTF-8");
	is_int(qops_spec_set(&s, QOPS_F_TARGET, "https://x.example/\xc0\xaf",
	    &err), APP_INVALID, "target: overlong refused");
	is_int(err.field, QOPS_F_TARGET, "field target");
	is_int(qops_spec_set(&s, QOPS_F_DOMAINS, "\xff", &err), APP_INVALID,
	    "domains: FF refused");
	is_int(qops_spec_set(&s, QOPS_F_DISPLAY_NAME, "\xf0\x9f\x98\x80",
	    &err), APP_OK, "display name: U+1F600 taken");
	is_str(qops_reason_code(QOPS_R_NOT_FOUND), "queue_not_found",
	    "not-found code");
	is_int(qops_reason_status(QOPS_R_EXISTS), 409, "exists: 409");
	is_str(qops_warning_code(QOPS_W_TARGET_OUTSIDE),
	    "target_outside_domains", "warning code");
}

/* Read queue slug (must exist); NULL after a failed check. */
static struct queue *
get(struct db *db, const char *slug)
{
	struct queue	*q = NULL;
	struct qops_err	 err;

	if (qops_get(db, slug, &q, &err) != APP_OK) {
		ok(0, "read %s back", slug);
		return NULL;
	}
	return q;
}

/* Whether the sealed secret of q opens to secret. */
static int
secret_opens(const struct cfg *c, const struct queue *q, const char *secret)
{
	char	 buf[128], *aad;
	int64_t	 n;

	aad = xasprintf("queue-secret:%s", q->slug);
	n = crypto_unseal(c->master_key, aad, q->secret_sealed,
	    q->secret_sealed_len, buf, sizeof(buf) - 1);
	free(aad);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return strcmp(buf, secret) == 0;
}

/* Create: exact row, refusals that write nothing, duplicate slug. */
static void
test_create(struct db *db, const struct cfg *c, const char *slug,
    const char *other)
{
	struct qops_spec	 s;
	struct qops_err		 err;
	struct queue		*q;
	char			*secret = NULL;
	int64_t			 id, t0, t1;

	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_NAME) | QOPS_BIT(QOPS_F_TARGET);
	s.name = "Ops test";
	s.target_url = "https://shop.example/";
	is_int(qops_create(db, c, slug, &s, &secret, &id, &err,
	    &cli), APP_INVALID,
	    "create without a rate refused");
	is_int(err.reason, QOPS_R_MISSING, "reason: missing");
	is_int(err.field, QOPS_F_RATE, "field: rate");
	ok(secret == NULL, "no secret on failure");

	s.set |= QOPS_BIT(QOPS_F_RATE) | QOPS_BIT(QOPS_F_DOMAINS) |
	    QOPS_BIT(QOPS_F_BURST);
	s.rate = 60;
	s.burst = 5;
	s.shop_domains = "https://shop.example/x";
	is_int(qops_create(db, c, slug, &s, &secret, &id, &err,
	    &cli), APP_INVALID,
	    "create with a bad domains list refused");
	is_int(err.field, QOPS_F_DOMAINS, "field: domains");
	is_int(qops_get(db, slug, &q, &err), APP_NOTFOUND,
	    "nothing written by refused creates");
	is_int(err.reason, QOPS_R_NOT_FOUND, "get: reason not found");

	is_int(qops_create(db, c, "Bad_Slug", &s, &secret, &id, &err, &cli),
	    APP_INVALID, "malformed slug refused");
	is_int(err.reason, QOPS_R_SLUG, "reason: slug");

	s.shop_domains = "Shop.Example:443, http://a.example:80 shop.example";
	t0 = now_ms();
	is_int(qops_create(db, c, slug, &s, &secret, &id, &err, &cli), APP_OK,
	    "create");
	t1 = now_ms();
	is_int(err.warnings, 0, "target on a shop domain: no warning");
	ok(secret != NULL && strlen(secret) == SECRET_LEN,
	    "secret of %d characters", SECRET_LEN);
	ok(id > 0, "id set");
	if ((q = get(db, slug)) != NULL) {
		is_int(q->id, id, "row id");
		is_str(q->name, "Ops test", "name stored");
		is_str(q->target_url, "https://shop.example/",
		    "target stored");
		is_str(q->shop_domains, "shop.example,http://a.example",
		    "domains stored normalised");
		is_int(q->token_ttl_s, 600, "token TTL default 600");
		is_int(q->adm.rate_per_minute, 60, "rate");
		is_int(q->adm.burst, 5, "burst");
		is_int(q->adm.anchor_number, 5, "A = burst");
		ok(q->adm.anchor_time_ms >= t0 && q->adm.anchor_time_ms <= t1,
		    "T = the time of the create");
		is_int(q->adm.last_number, 0, "L = 0");
		is_int(q->adm.skip, 0, "skip 0");
		is_int(q->adm.active, 1, "active");
		ok(secret != NULL && secret_opens(c, q, secret),
		    "the stored secret is the one shown, sealed");
		ok(q->ticket_key_sealed_len > TICKET_KEY_LEN,
		    "ticket key sealed");
		qops_queue_free(q);
	}
	qops_secret_free(secret);
	secret = NULL;

	is_int(qops_create(db, c, slug, &s, &secret, &id, &err,
	    &cli), APP_INVALID,
	    "second create of the slug refused");
	is_int(err.reason, QOPS_R_EXISTS, "reason: exists");
	ok(secret == NULL, "no secret for the refused duplicate");

	/* Allowed but probably wrong: the target off the shop domains. */
	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_NAME) | QOPS_BIT(QOPS_F_TARGET) |
	    QOPS_BIT(QOPS_F_DOMAINS) | QOPS_BIT(QOPS_F_RATE) |
	    QOPS_BIT(QOPS_F_TOKEN_TTL);
	s.name = "Other";
	s.target_url = "https://checkout.example/";
	s.shop_domains = "shop.example";
	s.rate = 1000000;
	s.token_ttl_s = 86400;
	is_int(qops_create(db, c, other, &s, &secret, &id, &err, &cli), APP_OK,
	    "create with the target off the domains");
	is_int(err.warnings, QOPS_W_TARGET_OUTSIDE, "warned");
	qops_secret_free(secret);
	if ((q = get(db, other)) != NULL) {
		is_int(q->token_ttl_s, 86400, "token TTL 86400");
		is_int(q->adm.rate_per_minute, 1000000, "rate 1000000");
		is_int(q->adm.anchor_number, 1000000 / 6, "A = r / 6");
		qops_queue_free(q);
	}
}

/* Pause, resume and rate on the locked row, re-anchored exactly. */
static void
test_state(struct db *db, const char *slug)
{
	struct qops_err		 err;
	struct queue		*q;
	struct adm_queue	 a;
	int64_t			 t0, t1;

	if ((q = get(db, slug)) == NULL)
		return;
	/*
	 * 10.5 s of credit at 1/s: serving = A + 10 = 15 (L + burst 25).
	 * The fields not set here are written back as read.
	 */
	a = q->adm;
	a.rate_per_minute = 60;
	a.burst = 5;
	a.anchor_number = 5;
	a.anchor_time_ms = now_ms() - 10500;
	a.last_number = 20;
	a.skip = 0;
	a.active = 1;
	/* The 20 numbers were issued long ago: the cap reads L itself. */
	a.tick = 0;
	ok(dbtest_set_state(db_mysql(db), q->id, &a) == 0, "state forced");
	qops_queue_free(q);

	t0 = now_ms();
	is_int(qops_pause(db, slug, &err, &cli), APP_OK, "pause");
	t1 = now_ms();
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.active, 0, "paused");
		is_int(q->adm.anchor_number, 15, "A = serving at the pause");
		ok(q->adm.anchor_time_ms >= t0 + ADM_TICK_MS &&
		    q->adm.anchor_time_ms <= t1 + ADM_TICK_MS,
		    "T = the time of the pause + ADM_TICK_MS");
		ok(t1 - t0 >= ADM_TICK_MS, "the call returned when the pause "
		    "was in effect (%lld ms)", (long long)(t1 - t0));
		is_int(q->adm.last_number, 20, "L untouched");
		is_int(adm_serving(&q->adm, now_ms() + 60000), 15,
		    "serving frozen a minute later");
		a = q->adm;
		qops_queue_free(q);
	}
	is_int(qops_pause(db, slug, &err, &cli), APP_OK, "pause again");
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.anchor_time_ms, a.anchor_time_ms,
		    "a second pause changes nothing");
		qops_queue_free(q);
	}

	t0 = now_ms();
	is_int(qops_resume(db, slug, &err, &cli), APP_OK, "resume");
	t1 = now_ms();
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.active, 1, "running");
		is_int(q->adm.anchor_number, 15, "A = the frozen serving");
		ok(q->adm.anchor_time_ms >= t0 + ADM_TICK_MS &&
		    q->adm.anchor_time_ms <= t1 + ADM_TICK_MS,
		    "T = the time of the resume + ADM_TICK_MS");
		qops_queue_free(q);
	}

	t0 = now_ms();
	is_int(qops_set_rate(db, slug, 120, &err,
	    &cli), APP_OK, "set rate 120");
	t1 = now_ms();
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.rate_per_minute, 120, "rate 120");
		/* Less than 500 ms since the resume at 1/s: no credit. */
		is_int(q->adm.anchor_number, 15, "A re-anchored at 15");
		ok(q->adm.anchor_time_ms >= t0 + ADM_TICK_MS &&
		    q->adm.anchor_time_ms <= t1 + ADM_TICK_MS,
		    "T = the time of the rate change + ADM_TICK_MS");
		is_int(q->adm.burst, 5, "burst kept");
		qops_queue_free(q);
	}
	is_int(qops_set_rate(db, slug, 0, &err, &cli), APP_INVALID, "rate 0");
	is_int(err.field, QOPS_F_RATE, "rate 0: field rate");
	is_int(qops_pause(db, "no-such-queue-here", &err, &cli), APP_NOTFOUND,
	    "pause of an unknown queue");
	is_int(err.reason, QOPS_R_NOT_FOUND, "reason: not found");
}

/* Run one statement of static SQL on my; returns 0 or -1. */
static int
sql(MYSQL *my, const char *q)
{
	MYSQL_RES	*res;

	if (mysql_query(my, q) != 0) {
		printf("# %s: %s\n", q, mysql_error(my));
		return -1;
	}
	if ((res = mysql_store_result(my)) != NULL)
		mysql_free_result(res);
	return 0;
}

/*
 * The state change waits for the row lock: while another session holds
 * it, a pause fails (lock wait timeout, shortened here) and writes
 * nothing; once it is released the pause goes through.
 */
static void
test_lock(struct db *db, const struct cfg *c, const char *slug)
{
	struct qops_err	 err;
	struct queue	*q, *before;
	MYSQL		*other;
	char		 q1[200];

	if ((before = get(db, slug)) == NULL)
		return;
	other = mysql_init(NULL);
	ok(other != NULL && mysql_real_connect(other,
	    c->db_host[0] != '\0' ? c->db_host : NULL, c->db_user,
	    c->db_password, c->db_name, (unsigned int)c->db_port,
	    c->db_socket[0] != '\0' ? c->db_socket : NULL, 0) != NULL,
	    "a second session");
	snprintf(q1, sizeof(q1), "SELECT id FROM queue WHERE slug = '%s' "
	    "FOR UPDATE", slug);
	ok(sql(db_mysql(db), "SET SESSION innodb_lock_wait_timeout = 1") ==
	    0, "short lock wait");
	ok(sql(other, "START TRANSACTION") == 0 && sql(other, q1) == 0,
	    "the other session locks the row");
	/* The server gives up on the lock wait (1205): a database error. */
	is_int(qops_pause(db, slug, &err, &cli), APP_DB,
	    "pause fails while the row is locked");
	is_int(err.reason, QOPS_R_INTERNAL, "reason: a database error");
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.active, before->adm.active, "nothing written");
		is_int(q->adm.anchor_time_ms, before->adm.anchor_time_ms,
		    "anchor untouched");
		qops_queue_free(q);
	}
	ok(sql(other, "COMMIT") == 0, "the other session lets go");
	is_int(qops_pause(db, slug, &err, &cli), APP_OK, "pause goes through");
	if ((q = get(db, slug)) != NULL) {
		is_int(q->adm.active, 0, "paused");
		qops_queue_free(q);
	}
	is_int(qops_resume(db, slug, &err, &cli), APP_OK, "resume");
	ok(sql(db_mysql(db), "SET SESSION innodb_lock_wait_timeout = "
	    "DEFAULT") == 0, "lock wait back to the default");
	if (other != NULL)
		mysql_close(other);
	qops_queue_free(before);
}

/* Update: every field, exact values, warnings, refusals. */
static void
test_update(struct db *db, const char *slug)
{
	struct qops_spec	 s;
	struct qops_err		 err;
	struct queue		*q, *before;

	if ((before = get(db, slug)) == NULL)
		return;
	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_NAME) | QOPS_BIT(QOPS_F_DOMAINS) |
	    QOPS_BIT(QOPS_F_TOKEN_TTL) | QOPS_BIT(QOPS_F_BURST);
	s.name = "Renamed \xc3\xa4";
	s.shop_domains = "www.shop.example, WWW.shop.example:443";
	s.token_ttl_s = 120;
	s.burst = 7;
	is_int(qops_update(db, slug, &s, &err, &cli), APP_OK, "update");
	is_int(err.warnings, QOPS_W_TARGET_OUTSIDE,
	    "target no longer on a shop domain: warned");
	if ((q = get(db, slug)) != NULL) {
		is_str(q->name, "Renamed \xc3\xa4", "name updated");
		is_str(q->shop_domains, "www.shop.example",
		    "domains normalised");
		is_int(q->token_ttl_s, 120, "token TTL updated");
		is_int(q->adm.burst, 7, "burst updated");
		is_str(q->target_url, "https://shop.example/", "target kept");
		is_int(q->adm.rate_per_minute, 120, "rate kept");
		is_int(q->adm.last_number, before->adm.last_number,
		    "L untouched");
		is_int(q->adm.active, 1, "still running");
		ok(q->adm.anchor_number >= before->adm.anchor_number,
		    "serving not moved backward by the re-anchor");
		qops_queue_free(q);
	}

	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_TARGET);
	s.target_url = "";
	is_int(qops_update(db, slug, &s, &err,
	    &cli), APP_OK, "remove the target");
	is_int(err.warnings, 0, "no target: no warning");
	if ((q = get(db, slug)) != NULL) {
		ok(q->target_url == NULL, "target removed");
		qops_queue_free(q);
	}

	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_TARGET) | QOPS_BIT(QOPS_F_NAME);
	s.target_url = "https://user:pw@www.shop.example/";
	s.name = "Never stored";
	is_int(qops_update(db, slug, &s, &err, &cli), APP_INVALID,
	    "update with a bad target refused");
	is_int(err.field, QOPS_F_TARGET, "field: target");
	if ((q = get(db, slug)) != NULL) {
		is_str(q->name, "Renamed \xc3\xa4",
		    "nothing written by the refused update");
		qops_queue_free(q);
	}

	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_RATE);
	s.rate = 300;
	is_int(qops_update(db, "no-such-queue-here", &s, &err,
	    &cli), APP_NOTFOUND,
	    "update of an unknown queue");
	is_int(err.reason, QOPS_R_NOT_FOUND, "reason: not found");
	qops_queue_free(before);
}

/* Rotate: a new secret that opens, the ticket key kept. */
static void
test_rotate(struct db *db, const struct cfg *c, const char *slug)
{
	struct qops_err	 err;
	struct queue	*before, *q;
	char		*secret = NULL;

	if ((before = get(db, slug)) == NULL)
		return;
	is_int(qops_rotate_secret(db, c, slug, &secret, &err, &cli), APP_OK,
	    "rotate");
	ok(secret != NULL && strlen(secret) == SECRET_LEN, "new secret");
	if ((q = get(db, slug)) != NULL) {
		ok(secret != NULL && secret_opens(c, q, secret),
		    "the stored secret is the new one");
		ok(q->secret_sealed_len != before->secret_sealed_len ||
		    memcmp(q->secret_sealed, before->secret_sealed,
		    q->secret_sealed_len) != 0, "sealed secret changed");
		ok(q->ticket_key_sealed_len == before->ticket_key_sealed_len &&
		    memcmp(q->ticket_key_sealed, before->ticket_key_sealed,
		    q->ticket_key_sealed_len) == 0, "ticket key kept");
		is_int(q->adm.anchor_number, before->adm.anchor_number,
		    "admission state untouched");
		qops_queue_free(q);
	}
	qops_secret_free(secret);
	secret = NULL;
	is_int(qops_rotate_secret(db, c, "no-such-queue-here", &secret, &err,
	    &cli),
	    APP_NOTFOUND, "rotate of an unknown queue");
	ok(secret == NULL, "no secret for it");
	qops_queue_free(before);
}

/* List holds both queues in slug order; delete removes exactly one. */
static void
test_list_delete(struct db *db, const char *slug, const char *other)
{
	struct queue	**qs = NULL, *q;
	struct qops_err	 err;
	size_t		 n = 0, i;
	int		 at_slug = -1, at_other = -1, sorted = 1;

	is_int(qops_list(db, &qs, &n, &err), APP_OK, "list");
	for (i = 0; i < n; i++) {
		if (strcmp(qs[i]->slug, slug) == 0)
			at_slug = (int)i;
		if (strcmp(qs[i]->slug, other) == 0)
			at_other = (int)i;
		if (i > 0 && strcmp(qs[i - 1]->slug, qs[i]->slug) >= 0)
			sorted = 0;
	}
	ok(at_slug >= 0 && at_other == at_slug + 1,
	    "both queues listed, next to each other");
	ok(sorted, "ordered by slug");
	if (at_slug >= 0)
		is_str(qs[at_slug]->name, "Renamed \xc3\xa4",
		    "listed row is complete");
	qops_list_free(qs, n);

	is_int(qops_delete(db, slug, &err, &cli), APP_OK, "delete");
	q = NULL;
	is_int(qops_get(db, slug, &q, &err), APP_NOTFOUND,
	    "deleted queue is gone");
	qops_queue_free(q);
	is_int(qops_delete(db, slug, &err, &cli), APP_NOTFOUND, "delete again");
	is_int(err.reason, QOPS_R_NOT_FOUND, "reason: not found");
	is_int(qops_delete(db, "Bad_Slug", &err, &cli), APP_NOTFOUND,
	    "delete of a malformed slug");
	is_int(qops_list(db, &qs, &n, &err), APP_OK, "list again");
	at_slug = at_other = -1;
	for (i = 0; i < n; i++) {
		if (strcmp(qs[i]->slug, slug) == 0)
			at_slug = (int)i;
		if (strcmp(qs[i]->slug, other) == 0)
			at_other = (int)i;
	}
	ok(at_slug == -1 && at_other >= 0, "only the deleted one is gone");
	qops_list_free(qs, n);
	is_int(qops_delete(db, other, &err, &cli), APP_OK, "delete the other");
}

/* The admin API's pages of queues: by id, after a cursor, at most n. */
static void
test_pages(struct db *db, int64_t a, int64_t b)
{
	struct queue	**qs = NULL;
	size_t		 n = 0, i;
	int		 seen = 0, asc = 1;

	is_int(db_queue_list_page(db, a - 1, 1, &qs, &n), APP_OK, "page 1");
	ok(n == 1 && qs[0]->id == a, "one row, the first after the cursor");
	qops_list_free(qs, n);
	is_int(db_queue_list_page(db, a, 1000, &qs, &n), APP_OK, "page 2");
	for (i = 0; i < n; i++) {
		if (qs[i]->id == b)
			seen = 1;
		if (qs[i]->id <= a || (i > 0 && qs[i]->id <= qs[i - 1]->id))
			asc = 0;
	}
	ok(seen && asc, "after the cursor, by id, the other queue in it");
	qops_list_free(qs, n);
}

/*
 * Scope: an API key acts on its own queue only, never creates, deletes,
 * rotates or manages keys; no principal at all is refused; a console
 * user reaches every queue.  Refusals change nothing.
 */
static void
test_scope(struct db *db, const struct cfg *c, const char *slug,
    const char *other)
{
	struct principal	 key, user, none;
	struct queue		*a = get(db, slug), *b = get(db, other), *q;
	struct qops_spec	 s;
	struct qops_err		 err;
	struct audit_filter	 f;
	struct audit_entry	*e = NULL;
	struct api_key		*k = NULL;
	char			*secret = NULL, *kt = NULL;
	size_t			 n = 0;
	int64_t			 id;

	if (a == NULL || b == NULL)
		goto out;
	memset(&key, 0, sizeof(key));
	key.kind = PRINCIPAL_KEY;
	key.id = 77;
	key.queue_id = a->id;
	snprintf(key.name, sizeof(key.name), "scope key");
	user = key;
	user.kind = PRINCIPAL_USER;
	user.queue_id = 0;
	memset(&none, 0, sizeof(none));

	is_int(qops_set_rate(db, slug, 90, &err, &key), APP_OK,
	    "key: own queue's rate");
	is_int(qops_set_rate(db, other, 91, &err, &key), APP_INVALID,
	    "key: another queue's rate refused");
	is_int(err.reason, QOPS_R_FORBIDDEN, "reason: forbidden");
	is_str(qops_reason_code(err.reason), "forbidden", "code");
	is_int(qops_reason_status(err.reason), 403, "status 403");
	is_int(qops_pause(db, other, &err, &key), APP_INVALID,
	    "key: another queue's pause refused");
	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_NAME);
	s.name = "Not mine";
	is_int(qops_update(db, other, &s, &err, &key), APP_INVALID,
	    "key: another queue's update refused");
	q = get(db, other);
	if (q != NULL) {
		ok(q->adm.rate_per_minute == b->adm.rate_per_minute &&
		    q->adm.active == b->adm.active &&
		    strcmp(q->name, b->name) == 0, "the other queue unchanged");
		qops_queue_free(q);
	}
	is_int(qops_rotate_secret(db, c, slug, &secret, &err, &key),
	    APP_INVALID, "key: rotation refused, even its own");
	ok(secret == NULL, "no secret");
	is_int(qops_delete(db, slug, &err, &key), APP_INVALID,
	    "key: delete refused");
	memset(&s, 0, sizeof(s));
	s.set = QOPS_BIT(QOPS_F_NAME) | QOPS_BIT(QOPS_F_RATE);
	s.name = "By key";
	s.rate = 5;
	is_int(qops_create(db, c, "made-by-a-key", &s, &secret, &id, &err,
	    &key), APP_INVALID, "key: create refused");
	is_int(qops_key_create(db, slug, "k", &kt, &id, &err, &key),
	    APP_INVALID, "key: key creation refused");
	ok(kt == NULL, "no key made");
	is_int(qops_key_list(db, slug, &k, &n, &err, &key), APP_INVALID,
	    "key: key list refused");
	is_int(qops_key_revoke(db, 1, &err, &key), APP_INVALID,
	    "key: revocation refused");
	memset(&f, 0, sizeof(f));
	f.limit = 10;
	f.queue_id = b->id;
	is_int(qops_audit_list(db, &f, &e, &n, &err, &key), APP_INVALID,
	    "key: another queue's audit refused");
	f.queue_id = 0;
	is_int(qops_audit_list(db, &f, &e, &n, &err, &key), APP_INVALID,
	    "key: every queue's audit refused");
	f.queue_id = a->id;
	is_int(qops_audit_list(db, &f, &e, &n, &err, &key), APP_OK,
	    "key: its own queue's audit");
	ok(n >= 1 && strcmp(e[0].action, "set_rate") == 0 &&
	    strcmp(e[0].actor_kind, "key") == 0 && e[0].actor_id == 77 &&
	    strcmp(e[0].actor_name, "scope key") == 0,
	    "newest row: the key's set_rate");
	db_audit_list_free(e, n);
	e = NULL;

	is_int(qops_set_rate(db, other, 92, &err, NULL), APP_INVALID,
	    "no principal refused");
	is_int(qops_set_rate(db, other, 92, &err, &none), APP_INVALID,
	    "PRINCIPAL_NONE refused");
	is_int(qops_set_rate(db, other, 93, &err, &user), APP_OK,
	    "user: any queue");
	is_int(qops_key_create(db, other, "by user", &kt, &id, &err, &user),
	    APP_OK, "user: key creation");
	ok(kt != NULL && strncmp(kt, "qak_", 4) == 0 && strlen(kt) == 47,
	    "qak_ + 43 characters");
	is_int(qops_key_list(db, other, &k, &n, &err, &user), APP_OK,
	    "user: key list");
	ok(n == 1 && k[0].id == id && strcmp(k[0].name, "by user") == 0 &&
	    k[0].revoked_ms == 0, "the key listed");
	free(k);
	is_int(qops_key_revoke(db, id, &err, &user), APP_OK, "user: revoke");
	is_int(qops_key_revoke(db, 999999999, &err, &user), APP_NOTFOUND,
	    "revoke of an unknown key");
	is_int(err.reason, QOPS_R_KEY_NOT_FOUND, "reason: key not found");
	test_pages(db, a->id, b->id);
out:
	qops_secret_free(secret);
	qops_secret_free(kt);
	qops_queue_free(a);
	qops_queue_free(b);
}

int
main(void)
{
	const char	*conf = getenv("AQ_TEST_CONF");
	struct cfg	 c;
	struct db	*db;
	char		 slug[64], other[64];
	long long	 stamp = (long long)(now_ms() % 100000000);

	test_validators();
	test_fields();
	if (conf == NULL || *conf == '\0') {
		printf("# SKIP the database part: AQ_TEST_CONF not set "
		    "(run test/run)\n");
		return done_testing();
	}
	if (cfg_load(conf, &c) == -1) {
		ok(0, "config %s loads", conf);
		return done_testing();
	}
	db = db_open(&c);
	is_int(db_ensure(db), APP_OK, "connects to the test database");
	snprintf(slug, sizeof(slug), "tqo%lld-a", stamp);
	snprintf(other, sizeof(other), "tqo%lld-b", stamp);
	test_create(db, &c, slug, other);
	test_state(db, slug);
	test_lock(db, &c, slug);
	test_update(db, slug);
	test_rotate(db, &c, slug);
	test_scope(db, &c, slug, other);
	test_list_delete(db, slug, other);
	db_close(db);
	cfg_free(&c);
	return done_testing();
}
