/*
 * test-req.c - request parsing: CONTENT_LENGTH judgement (CASES C22),
 * declared query fields with repeated, bracketed, NUL and over-long
 * values (CASES C07), and the JSON content type.
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

int
main(void)
{
	test_content_length();
	test_query();
	test_json_type();
	return done_testing();
}
