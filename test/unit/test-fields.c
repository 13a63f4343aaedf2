/*
 * test-fields.c - the field engine (fields.h) and its two tables: the
 * queue settings (queue-fields.c) and the auto-rate settings
 * (autorate-ops.c).  A setting is named once, in its table's row; this
 * test holds every other place that names the settings to the table:
 * the OpenAPI document's SiteSettings (static/openapi.json), the
 * options of aqueuectl(8), and the columns of the migrated schema (with
 * AQ_TEST_CONF, the database test/run starts).  Then the engine's
 * reading, checking, comparing, copying and writing of each type, and
 * the SQL the queue statements are generated from.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <mysql.h>

#include "autorate.h"
#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "fields.h"
#include "queue-fields.h"
#include "queue-ops.h"
#include "tap.h"

/* The file at path under $srcdir, whole, as a new string (or NULL). */
static char *
slurp(const char *path)
{
	const char	*src = getenv("srcdir") != NULL ? getenv("srcdir") :
			    ".";
	char		 full[1024], *buf;
	FILE		*f;
	long		 n;

	snprintf(full, sizeof(full), "%s/%s", src, path);
	if ((f = fopen(full, "r")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc(n + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * The option opt as the man page writes it in a .B line: "\-\-" and
 * every "-" of opt escaped, into buf.
 */
static void
man_opt(const char *opt, char *buf, size_t n)
{
	size_t	 k;

	k = (size_t)snprintf(buf, n, ".B \\-\\-");
	for (; *opt != '\0' && k + 3 < n; opt++) {
		if (*opt == '-')
			buf[k++] = '\\';
		buf[k++] = *opt;
	}
	buf[k] = '\0';
}

/*
 * The "\-\-option" names a section of the man page (from the line
 * ".SS title" to the next ".SS") has entries for (".TP" and a ".B"
 * line), as a JSON array of strings without the dashes.
 */
static struct json_object *
man_section_opts(const char *man, const char *title)
{
	struct json_object	*a = json_object_new_array();
	const char		*p, *end, *e;
	char			 head[128], opt[64];
	size_t			 k;

	snprintf(head, sizeof(head), ".SS %s\n", title);
	if ((p = strstr(man, head)) == NULL)
		return a;
	p += strlen(head);
	end = strstr(p, "\n.SS ");
	for (; p != NULL && (end == NULL || p < end);
	    p = strchr(p, '\n') != NULL ? strchr(p, '\n') + 1 : NULL) {
		/* An option's entry: ".TP", then its ".B" line. */
		if (strncmp(p, ".TP\n.B \\-\\-", 11) != 0)
			continue;
		p += 4;
		for (e = p + 7, k = 0; *e != '\0' && *e != ' ' &&
		    *e != '\n' && k + 1 < sizeof(opt); e++)
			if (*e != '\\')
				opt[k++] = *e;
		opt[k] = '\0';
		json_object_array_add(a, json_object_new_string(opt));
	}
	return a;
}

/* Whether array a holds the string s.  Returns 1 or 0. */
static int
has_str(struct json_object *a, const char *s)
{
	size_t	 i;

	for (i = 0; i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(
		    json_object_array_get_idx(a, i)), s) == 0)
			return 1;
	return 0;
}

/* The JSON types a row's value takes in the OpenAPI document. */
static int
schema_type_ok(const struct fld *f, struct json_object *prop)
{
	struct json_object	*t;
	const char		*txt;

	if (!json_object_object_get_ex(prop, "type", &t))
		return 0;
	txt = json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN);
	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		return (f->flags & FLD_NULL_EMPTY) ?
		    strcmp(txt, "[\"string\",\"null\"]") == 0 :
		    strcmp(txt, "\"string\"") == 0;
	case FLD_INT:
		return strcmp(txt, "\"integer\"") == 0;
	case FLD_BOOL:
		return strcmp(txt, "\"boolean\"") == 0;
	case FLD_TIME:
		return strcmp(txt, "[\"integer\",\"string\",\"null\"]") == 0;
	}
	return 0;
}

/*
 * The queue table against the OpenAPI document and aqueuectl(8), both
 * ways: every row is there with its type, and nothing is there that is
 * not a row.
 */
static void
test_queue_docs(void)
{
	struct json_object	*doc, *props, *prop, *man_opts;
	char			*api, *man, want[96];
	size_t			 i;
	int			 f, rows_ok = 1, back_ok = 1;

	api = slurp("static/openapi.json");
	man = slurp("man/aqueuectl.8");
	ok(api != NULL && man != NULL, "the OpenAPI document and "
	    "aqueuectl(8) are read");
	if (api == NULL || man == NULL)
		goto out;
	doc = json_tokener_parse(api);
	ok(json_object_object_get_ex(json_object_object_get(
	    json_object_object_get(doc, "components"), "schemas"),
	    "SiteSettings", &prop) && json_object_object_get_ex(prop,
	    "properties", &props), "SiteSettings has properties");
	is_int(json_object_object_length(props), QOPS_F__MAX,
	    "SiteSettings: one property per row of the queue table");
	for (f = 0; f < QOPS_F__MAX; f++) {
		const struct fld *r = &queue_fields[f];

		if (!json_object_object_get_ex(props, r->key, &prop) ||
		    !schema_type_ok(r, prop)) {
			diag("%s: not in SiteSettings, or not of its type",
			    r->key);
			rows_ok = 0;
		}
		man_opt(r->opt, want, sizeof(want));
		if (strstr(man, want) == NULL) {
			diag("%s: not in aqueuectl(8)", want);
			rows_ok = 0;
		}
	}
	ok(rows_ok, "every queue setting is in SiteSettings (of its type) "
	    "and aqueuectl(8)");
	man_opts = man_section_opts(man, "Queue options");
	is_int(json_object_array_length(man_opts), QOPS_F__MAX,
	    "aqueuectl(8) Queue options: one per row");
	for (i = 0; i < json_object_array_length(man_opts); i++)
		if (qops_field_find(json_object_get_string(
		    json_object_array_get_idx(man_opts, i))) == -1) {
			diag("--%s: in aqueuectl(8), not in the table",
			    json_object_get_string(
			    json_object_array_get_idx(man_opts, i)));
			back_ok = 0;
		}
	json_object_object_foreach(props, key, val) {
		(void)val;
		if (qops_field_find(key) == -1) {
			diag("%s: in SiteSettings, not in the table", key);
			back_ok = 0;
		}
	}
	ok(back_ok, "nothing in SiteSettings or aqueuectl(8) that is not a "
	    "row of the queue table");
	json_object_put(man_opts);
	/* The auto-rate table: aqueuectl(8)'s "autorate set" options. */
	man_opts = man_section_opts(man, "Auto-rate options");
	is_int(json_object_array_length(man_opts), AR_F__MAX,
	    "aqueuectl(8) Auto-rate options: one per row");
	rows_ok = 1;
	for (f = 0; f < AR_F__MAX; f++)
		if (!has_str(man_opts, autorate_fields[f].opt)) {
			diag("--%s: not in aqueuectl(8)",
			    autorate_fields[f].opt);
			rows_ok = 0;
		}
	ok(rows_ok, "every auto-rate setting is in aqueuectl(8)");
	json_object_put(man_opts);
	json_object_put(doc);
out:
	free(api);
	free(man);
}

/* Whether table's columns are the columns of the migrated table. */
static void
test_schema(MYSQL *my, const char *table, const struct fld *rows,
    size_t n, unsigned int skip_flags)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	char		 sql[512];
	size_t		 i;
	int		 all = 1;

	for (i = 0; i < n; i++) {
		if (rows[i].flags & skip_flags)
			continue;
		snprintf(sql, sizeof(sql), "SELECT DATA_TYPE FROM "
		    "information_schema.COLUMNS WHERE TABLE_SCHEMA = "
		    "DATABASE() AND TABLE_NAME = '%s' AND COLUMN_NAME = '%s'",
		    table, rows[i].column);
		if (mysql_query(my, sql) != 0 ||
		    (res = mysql_store_result(my)) == NULL) {
			diag("%s", mysql_error(my));
			all = 0;
			continue;
		}
		row = mysql_fetch_row(res);
		if (row == NULL) {
			diag("%s.%s: no such column", table, rows[i].column);
			all = 0;
		} else if ((rows[i].type == FLD_TEXT ||
		    rows[i].type == FLD_BUF) ? strstr(row[0], "char") ==
		    NULL && strstr(row[0], "text") == NULL :
		    strstr(row[0], "int") == NULL) {
			diag("%s.%s: %s for a %s", table, rows[i].column,
			    row[0], rows[i].type == FLD_TEXT ? "text" :
			    "number");
			all = 0;
		}
		mysql_free_result(res);
	}
	ok(all, "%s: every row's column is in the migrated schema, of its "
	    "kind", table);
}

/* The engine on each type, with the queue table's rows. */
static void
test_engine(void)
{
	const struct fld	*name = &queue_fields[QOPS_F_NAME];
	const struct fld	*target = &queue_fields[QOPS_F_TARGET];
	const struct fld	*accent = &queue_fields[QOPS_F_ACCENT];
	const struct fld	*domains = &queue_fields[QOPS_F_DOMAINS];
	const struct fld	*rate = &queue_fields[QOPS_F_RATE];
	const struct fld	*ab = &queue_fields[QOPS_F_ABANDON];
	const struct fld	*opens = &queue_fields[QOPS_F_OPENS_AT];
	struct qops_spec	 sp;
	struct queue		 q;
	struct json_object	*v;
	char			 buf[64];

	memset(&sp, 0, sizeof(sp));
	memset(&q, 0, sizeof(q));
	/* Integers: decimal within the range, nothing else. */
	is_int(fld_parse(rate, &sp, "600"), FLD_OK, "rate 600");
	is_int(sp.rate, 600, "... read");
	is_int(fld_parse(rate, &sp, "0"), FLD_INVALID, "rate 0 refused");
	is_int(fld_parse(rate, &sp, "06"), FLD_INVALID, "rate 06 refused");
	is_int(fld_parse(rate, &sp, "1000001"), FLD_INVALID,
	    "rate 1000001 refused");
	is_int(sp.rate, 600, "... a refusal changes nothing");
	v = json_tokener_parse("1.5");
	is_int(fld_from_json(rate, &sp, v), FLD_INVALID, "rate 1.5 refused");
	json_object_put(v);
	v = json_tokener_parse("\"300\"");
	is_int(fld_from_json(rate, &sp, v), FLD_INVALID,
	    "rate \"300\" refused (a string)");
	json_object_put(v);
	/* Switches. */
	is_int(fld_parse(ab, &sp, "yes"), FLD_OK, "abandon yes");
	is_int(sp.abandon, 1, "... on");
	is_int(fld_parse(ab, &sp, "off"), FLD_OK, "abandon off");
	is_int(sp.abandon, 0, "... off");
	is_int(fld_parse(ab, &sp, "2"), FLD_INVALID, "abandon 2 refused");
	v = json_tokener_parse("1");
	is_int(fld_from_json(ab, &sp, v), FLD_INVALID,
	    "abandonment 1 refused in JSON (a boolean only)");
	json_object_put(v);
	/* Times: Unix ms or ISO 8601, none. */
	is_int(fld_parse(opens, &sp, "2026-12-01T09:00:00Z"), FLD_OK,
	    "opening in ISO 8601");
	is_int(sp.opens_at_ms, 1796115600000LL, "... as Unix ms");
	is_int(fld_parse(opens, &sp, "none"), FLD_OK, "opening none");
	is_int(sp.opens_at_ms, 0, "... 0");
	is_int(fld_from_json(opens, &sp, NULL), FLD_OK, "opening null");
	is_int(fld_parse(opens, &sp, "tomorrow"), FLD_INVALID,
	    "opening tomorrow refused");
	/* Texts: UTF-8, the row's length and validator. */
	is_int(fld_parse(name, &sp, "Sale \xc3\xa9t\xc3\xa9"), FLD_OK,
	    "a name in UTF-8");
	is_int(fld_parse(name, &sp, "bad \xc3\x28"), FLD_UNICODE,
	    "a name that is not UTF-8: FLD_UNICODE");
	is_int(fld_parse(name, &sp, ""), FLD_INVALID, "an empty name");
	is_int(fld_check(name, &sp), FLD_OK, "the kept name still checks");
	is_str(sp.name, "Sale \xc3\xa9t\xc3\xa9", "... and is the last "
	    "good one");
	/* Stored forms: accent lower case, domains normal, target NULL. */
	is_int(fld_parse(accent, &sp, "#AbCdEf"), FLD_OK, "accent #AbCdEf");
	is_int(fld_copy(accent, &q, &sp), 0, "copied into a row");
	is_str(q.accent, "#abcdef", "... in lower case");
	is_int(fld_parse(domains, &sp, "HTTPS://Shop.Example:443, "
	    "shop.example"), FLD_OK, "domains");
	is_int(fld_copy(domains, &q, &sp), 0, "copied");
	is_str(q.shop_domains, "shop.example", "... in the normal form");
	is_int(fld_parse(target, &sp, "https://shop.example/"), FLD_OK,
	    "target");
	is_int(fld_copy(target, &q, &sp), 0, "copied");
	is_str(q.target_url, "https://shop.example/", "... as given");
	is_int(fld_same(target, &q, &sp), 1, "the same as the request");
	is_int(fld_parse(target, &sp, ""), FLD_OK, "target empty");
	is_int(fld_same(target, &q, &sp), 0, "... differs from the row");
	is_int(fld_copy(target, &q, &sp), 0, "copied");
	ok(q.target_url == NULL, "... stored as none (NULL)");
	v = fld_to_json(target, &q, FLD_AT_ROW);
	ok(v == NULL, "... shown as JSON null");
	is_str(fld_text(target, &q, FLD_AT_ROW, buf, sizeof(buf)), "",
	    "... and as \"\" in a form");
	q.abandon = 1;
	is_str(fld_text(ab, &q, FLD_AT_ROW, buf, sizeof(buf)), "on",
	    "a switch as text: on");
	q.opens_at_ms = 0;
	is_str(fld_text(opens, &q, FLD_AT_ROW, buf, sizeof(buf)), "",
	    "no opening as text: \"\"");
	fld_free(accent, &q);
	fld_free(domains, &q);
	fld_free(target, &q);
	ok(q.accent == NULL && q.shop_domains == NULL, "freed");
	is_int(fld_find(queue_fields, QOPS_F__MAX, "token-ttl"),
	    QOPS_F_TOKEN_TTL, "found by option");
	is_int(fld_find(queue_fields, QOPS_F__MAX, "tokenTtlSeconds"),
	    QOPS_F_TOKEN_TTL, "found by API member");
	is_int(fld_find(queue_fields, QOPS_F__MAX, "ttl"), -1,
	    "not found: -1");
}

/*
 * The queuing method: fifo, passthrough and hold are taken, random (not
 * supported yet) and anything else refused; the default is fifo.
 */
static void
test_method(void)
{
	const struct fld	*f = &queue_fields[QOPS_F_METHOD];
	struct qops_spec	 spec;

	is_str(f->key, "queuingMethod", "API member");
	is_str(f->opt, "method", "CLI option");
	is_str(f->def, "fifo", "default fifo");
	ok(qops_method_valid("fifo") && qops_method_valid("passthrough") &&
	    qops_method_valid("hold") && qops_method_valid("random"),
	    "fifo, passthrough, hold, random taken");
	ok(!qops_method_valid("Random") && !qops_method_valid("FIFO") &&
	    !qops_method_valid("") && !qops_method_valid(NULL),
	    "Random, FIFO, empty, NULL refused");
	memset(&spec, 0, sizeof(spec));
	is_int(fld_parse(f, &spec, "hold"), FLD_OK, "parse hold");
	is_str(spec.method, "hold", "spec has hold");
	is_int(fld_parse(f, &spec, "lifo"), FLD_INVALID,
	    "parse lifo: invalid");
	ok(strstr(f->rule, "random (admitted at the rate in a random order "
	    "within blocks") != NULL, "the rule says what random does");
	is_int(adm_seg_kind(1, "fifo"), ADM_SEG_FIFO, "fifo segment");
	is_int(adm_seg_kind(1, "hold"), ADM_SEG_HOLD, "hold segment");
	is_int(adm_seg_kind(1, "passthrough"), ADM_SEG_PASS,
	    "passthrough segment");
	is_int(adm_seg_kind(1, "random"), ADM_SEG_RANDOM, "random segment");
	is_int(adm_seg_kind(0, "hold"), ADM_SEG_PAUSED, "paused wins");
}

/* The generated SQL of the queue statements: exactly the table's. */
static void
test_sql(void)
{
	char	 buf[1024];

	is_int(qops_sql(QOPS_SQL_COLS, buf, sizeof(buf)), 19,
	    "19 settings stored by column");
	is_str(buf, "name, target_url, shop_domains, token_ttl_s, "
	    "session_renewal, total_active_users, header_image_url, "
	    "display_name, message, accent_color, json_queued_status, "
	    "json_cookie, abandon, abandon_grace_s, pow_enabled, pow_bits, "
	    "queuing_method, load_test_queue, number_block",
	    "their columns, in table order");
	is_int(qops_sql(QOPS_SQL_SET, buf, sizeof(buf)), 19, "SET: 19");
	ok(strncmp(buf, "name = ?, target_url = ?, ", 26) == 0 &&
	    strcmp(buf + strlen(buf) - 16, "number_block = ?") == 0,
	    "SET: col = ? each: %s", buf);
	is_int(qops_sql(QOPS_SQL_MARKS, buf, sizeof(buf)), 19, "marks: 19");
	is_int((long long)strlen(buf), 19 * 3 - 2, "?, ... of 19");
	is_int(qops_sql(QOPS_SQL_COLS, buf, 20), -1, "too small: -1");
}

int
main(void)
{
	const char	*conf = getenv("AQ_TEST_CONF");
	struct cfg	 c;
	struct db	*db;

	test_queue_docs();
	test_engine();
	test_sql();
	test_method();
	if (conf == NULL || *conf == '\0') {
		printf("# the schema is checked with AQ_TEST_CONF (test/run)"
		    "\n");
		return done_testing();
	}
	if (cfg_load(conf, &c) == -1) {
		ok(0, "config %s loads", conf);
		return done_testing();
	}
	db = db_open(&c);
	is_int(db_ensure(db), APP_OK, "connects to the test database");
	if (db_mysql(db) != NULL) {
		test_schema(db_mysql(db), "queue", queue_fields, QOPS_F__MAX,
		    0);
		test_schema(db_mysql(db), "queue_autorate", autorate_fields,
		    AR_F__MAX, 0);
	}
	db_close(db);
	cfg_free(&c);
	return done_testing();
}
