/*
 * test-jsonbody.c - unit tests for fcgi-app/lib/jsonbody.c: every body of
 * CASES C17 is refused, the depth boundary (as json-c counts it, see
 * jsonbody.c) is exact, json_get_int/json_get_str type their fields, and
 * every string is Unicode: bytes that are not UTF-8 (utf8_chars()) and
 * escapes of unpaired surrogates are refused with their own reason,
 * valid pairs and U+FFFD are taken.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "jsonbody.h"
#include "tap.h"

/* Whether len bytes of s parse; the object is released. */
static int
parses(const char *s, size_t len)
{
	struct json_object	*o;

	if ((o = jsonbody_parse_strict(s, len)) == NULL)
		return 0;
	json_object_put(o);
	return 1;
}

#define REFUSED(lit, what) \
	is_int(parses(lit, sizeof(lit) - 1), 0, "refused: %s", what)
#define ACCEPTED(lit, what) \
	is_int(parses(lit, sizeof(lit) - 1), 1, "accepted: %s", what)

/*
 * Build n nested containers into a new string: arrays "[[...]]" when
 * obj is 0, objects {"a":{"a":...}} when 1, with leaf ("" for none) at
 * the bottom.  Returns the string, to be freed.
 */
static char *
nest(size_t n, int obj, const char *leaf)
{
	size_t	 cap = n * 6 + strlen(leaf) + 1, len = 0, i;
	char	*s = xmalloc(cap);

	for (i = 0; i < n; i++) {
		memcpy(s + len, obj ? "{\"a\":" : "[", obj ? 5 : 1);
		len += obj ? 5 : 1;
	}
	memcpy(s + len, leaf, strlen(leaf));
	len += strlen(leaf);
	for (i = 0; i < n; i++)
		s[len++] = obj ? '}' : ']';
	s[len] = '\0';
	return s;
}

/* Whether n nested containers (see nest()) parse. */
static int
nest_parses(size_t n, int obj, const char *leaf)
{
	char	*s = nest(n, obj, leaf);
	int	 rc = parses(s, strlen(s));

	free(s);
	return rc;
}

/* Every body of CASES C17, and more of the same kinds: refused. */
static void
test_c17(void)
{
	char	*deep;

	/* The listed bodies of C17, each one refused. */
	REFUSED("{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\"}}garbage",
	    "trailing garbage");
	REFUSED("{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\"}}{\"x\":1}",
	    "a second object");
	REFUSED("{'pow':{'challenge':'c','nonce':'n'}}", "single quotes");
	REFUSED("/*x*/{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\"}}",
	    "a leading comment");
	REFUSED("{\"pow\":{\"nonce\":NaN}}", "NaN");
	REFUSED("{\"pow\":{\"nonce\":123e+}}", "123e+");
	deep = xmalloc(100000);
	memset(deep, '[', 100000);
	is_int(parses(deep, 100000), 0, "refused: 100,000 x '['");
	free(deep);
	is_int(nest_parses(17, 0, ""), 0, "refused: 17 nested arrays");
	is_int(nest_parses(17, 1, "1"), 0, "refused: 17 nested objects");
	REFUSED("{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\",}}",
	    "a trailing comma");

	/* More of the same kinds. */
	REFUSED("{\"pow\":{\"nonce\":Infinity}}", "Infinity");
	REFUSED("{\"pow\":{\"nonce\":-Infinity}}", "-Infinity");
	REFUSED("{\"pow\":{\"nonce\":1e999}}", "1e999 (infinite)");
	REFUSED("[-1e999]", "-1e999 (infinite)");
	REFUSED("NaN", "a top-level NaN");
	REFUSED("Infinity", "a top-level Infinity");
	REFUSED("1e400", "a top-level infinite number");
	REFUSED("{\"pow\":{\"nonce\":nan}}", "nan");
	REFUSED("{\"a\":1}//x", "a trailing comment");
	REFUSED("{\"a\":1,}", "a trailing comma in an object");
	REFUSED("[1,2,]", "a trailing comma in an array");
	REFUSED("{a:1}", "an unquoted key");
	REFUSED("{\"a\" 1}", "a missing colon");
	REFUSED("'a'", "a single-quoted string");
	REFUSED("{'number':5}", "a single-quoted member name");
	REFUSED("{'\"':0,\"number\":9,'\"':0,\"number\":5}",
	    "a duplicate hidden behind single-quoted names");
	REFUSED("{\"a\":{'b':1}}", "a single-quoted name in a nested object");
	ACCEPTED("{\"it's\":\"don't\"}", "single quotes inside strings");
	REFUSED("{\"a\":01}", "a leading zero");
	REFUSED("{\"a\":0x10}", "a hex number");
	REFUSED("{\"a\":+1}", "a leading plus");
	REFUSED("{\"a\":.5}", "a bare fraction");
	REFUSED("{\"a\":TRUE}", "TRUE");
	REFUSED("{\"a\":Null}", "Null");
	REFUSED("{\"a\":\"\\x41\"}", "a \\x escape");
	REFUSED("{\"a\":1}\0", "a NUL after the value");
	REFUSED("{\"a\":\"x\0y\"}", "a raw NUL inside a string");
	REFUSED("\0{\"a\":1}", "a leading NUL");
	REFUSED("{\"a\":\"\\u0000\"}", "an escaped U+0000 in a string");
	REFUSED("{\"a\":\"x\x01y\"}", "a raw control character in a string");
	REFUSED("{\"a\":\"\xff\"}", "invalid UTF-8");
	REFUSED("\xef\xbb\xbf{\"a\":1}", "a byte order mark");
	REFUSED("{\"a\":1}{", "a trailing brace");
	REFUSED("{\"a\":1", "a missing brace");
	REFUSED("1 2", "two numbers");
	REFUSED("\"abc", "an unterminated string");
	REFUSED("", "an empty body");
	REFUSED("   \n", "white space only");
	REFUSED("null", "a bare null (no value to return)");
	is_int(jsonbody_parse_strict(NULL, 5) == NULL, 1,
	    "refused: NULL buffer");
	/* The parse must end at len: a shorter len cuts the body. */
	is_int(parses("{\"a\":1}", 6), 0, "refused: a body cut by len");
	is_int(parses("{\"a\":1}garbage", 7), 1,
	    "accepted: the first 7 bytes when len is 7");
	is_int(parses("12", 1), 1, "accepted: \"1\" out of \"12\" with len 1");
}

/* The exact depth boundary, for arrays and for objects. */
static void
test_depth(void)
{
	/* json-c depth: the top value is level 1, see jsonbody.c. */
	is_int(nest_parses(16, 0, ""), 1, "accepted: 16 nested empty arrays");
	is_int(nest_parses(17, 0, ""), 0, "refused: 17 nested empty arrays");
	is_int(nest_parses(15, 0, "1"), 1,
	    "accepted: 15 arrays around a number (level 16)");
	is_int(nest_parses(16, 0, "1"), 0,
	    "refused: 16 arrays around a number (level 17)");
	is_int(nest_parses(16, 1, ""), 0,
	    "refused: 16 objects with an empty value (not JSON)");
	is_int(nest_parses(15, 1, "{}"), 1,
	    "accepted: 15 objects around {} (level 16)");
	is_int(nest_parses(16, 1, "{}"), 0,
	    "refused: 16 objects around {} (level 17)");
	is_int(nest_parses(15, 1, "1"), 1,
	    "accepted: 15 objects around a number (level 16)");
	is_int(nest_parses(16, 1, "1"), 0,
	    "refused: 16 objects around a number (level 17)");
}

/* The C17 positive control and other valid JSON. */
static void
test_accepted(void)
{
	static const char	 body[] =
	    "{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\"}}";
	struct json_object	*o, *pow;
	const char		*s;
	size_t			 len = 99;

	o = jsonbody_parse_strict(body, sizeof(body) - 1);
	ok(o != NULL, "positive control of C17 parses");
	ok(o != NULL && json_object_object_get_ex(o, "pow", &pow) &&
	    json_object_is_type(pow, json_type_object),
	    "pow is an object");
	s = jsonbody_get_str(pow, "challenge", &len);
	is_str(s, "c", "challenge is \"c\"");
	is_int(len, 1, "challenge length is 1");
	is_str(jsonbody_get_str(pow, "nonce", NULL), "n", "nonce is \"n\"");
	is_str(jsonbody_get_str(pow, "missing", &len), NULL,
	    "json_get_str: missing member is NULL");
	is_str(jsonbody_get_str(o, "pow", &len), NULL,
	    "json_get_str: an object member is NULL");
	is_str(jsonbody_get_str(NULL, "pow", &len), NULL,
	    "json_get_str: NULL object is NULL");
	json_object_put(o);

	ACCEPTED("{\"a\":1}\r\n", "trailing white space");
	ACCEPTED(" \t{\"a\":1}", "leading white space");
	ACCEPTED("1", "a top-level number (finished by json-c's NUL call)");
	ACCEPTED("-0", "a top-level -0");
	ACCEPTED("true", "a top-level true");
	ACCEPTED("\"x\"", "a top-level string");
	ACCEPTED("[]", "an empty array");
	ACCEPTED("{\"a\":1.5e3,\"b\":-2E-2,\"c\":null}", "finite reals, null");
	ACCEPTED("{\"a\":\"\\t\\n\\u00e9\"}", "escapes");
	ACCEPTED("{\"a\":\"\xc3\xa9\"}", "UTF-8 text");
}

/* json_get_int on every type and on the int64 limits. */
static void
test_get_int(void)
{
	static const char	 body[] =
	    "{\"one\":1,\"str\":\"1\",\"real\":1.0,\"t\":true,"
	    "\"p53\":9007199254740992,"
	    "\"huge\":12345678901234567890,\"neg\":-1,\"nul\":null,"
	    "\"max\":9223372036854775807,\"min\":-9223372036854775808,"
	    "\"under\":-99999999999999999999,\"zero\":0,\"arr\":[1]}";
	struct json_object	*o, *arr;
	int64_t			 v;

	o = jsonbody_parse_strict(body, sizeof(body) - 1);
	ok(o != NULL, "json_get_int test object parses");

	v = 7;
	is_int(jsonbody_get_int(o, "one", 1, 100, &v), 0, "1 is an integer");
	is_int(v, 1, "1 reads as 1");
	v = 7;
	is_int(jsonbody_get_int(o, "str", 0, 100, &v), -2, "\"1\" is -2");
	is_int(jsonbody_get_int(o, "real", 0, 100, &v), -2, "1.0 is -2");
	is_int(jsonbody_get_int(o, "t", 0, 100, &v), -2, "true is -2");
	is_int(jsonbody_get_int(o, "nul", 0, 100, &v), -2, "null is -2");
	is_int(jsonbody_get_int(o, "arr", 0, 100, &v), -2, "[1] is -2");
	is_int(jsonbody_get_int(o, "missing", 0, 100, &v), -1, "missing is -1");
	is_int(v, 7, "*out unchanged on failure");
	is_int(jsonbody_get_int(o, "p53", 0, INT64_MAX, &v), 0, "2^53 is read");
	is_int(v, INT64_C(9007199254740992), "2^53 is exact");
	is_int(jsonbody_get_int(o, "p53", 0, INT64_C(9007199254740991), &v),
	    -2, "2^53 above max is -2");
	is_int(jsonbody_get_int(o, "huge", INT64_MIN, INT64_MAX, &v), -2,
	    "12345678901234567890 is -2, not clamped");
	is_int(jsonbody_get_int(o, "max", INT64_MIN, INT64_MAX, &v), -2,
	    "INT64_MAX is -2 (can't be told from a clamp)");
	is_int(jsonbody_get_int(o, "min", INT64_MIN, INT64_MAX, &v), -2,
	    "INT64_MIN is -2 (can't be told from a clamp)");
	is_int(jsonbody_get_int(o, "under", INT64_MIN, INT64_MAX, &v), -2,
	    "-99999999999999999999 is -2, not clamped");
	is_int(jsonbody_get_int(o, "neg", 1, 100, &v), -2,
	    "-1 with min 1 is -2");
	v = 7;
	is_int(jsonbody_get_int(o, "neg", -5, 100, &v), 0, "-1 with min -5");
	is_int(v, -1, "-1 reads as -1");
	is_int(jsonbody_get_int(o, "zero", 1, 100, &v), -2,
	    "0 with min 1 is -2");
	is_int(jsonbody_get_int(o, "one", 2, 100, &v), -2,
	    "1 with min 2 is -2");
	is_int(jsonbody_get_int(o, "one", 0, 0, &v), -2, "1 with max 0 is -2");
	is_int(jsonbody_get_int(NULL, "one", 0, 100, &v), -1, "NULL object");
	ok(json_object_object_get_ex(o, "arr", &arr), "arr present");
	is_int(jsonbody_get_int(arr, "one", 0, 100, &v), -1,
	    "an array has no members");
	json_object_put(o);
}

/* Why len bytes of s are refused (JSONBODY_OK: they parse). */
static enum jsonbody_err
why(const char *s, size_t len)
{
	struct json_object	*o;
	enum jsonbody_err	 w = JSONBODY__MAX;

	o = jsonbody_parse(s, len, &w);
	if ((o == NULL) != (w != JSONBODY_OK))
		return JSONBODY__MAX;	/* reason and result disagree */
	json_object_put(o);
	return w;
}

#define NOT_UNICODE(lit, what) \
	is_int(why(lit, sizeof(lit) - 1), JSONBODY_UNICODE, \
	    "refused as not Unicode: %s", what)
#define UNICODE_OK(lit, what) \
	is_int(why(lit, sizeof(lit) - 1), JSONBODY_OK, "accepted: %s", what)

/*
 * The string member "a" of the object text lit, checked against want
 * (its bytes, wantlen of them).
 */
static void
string_is(const char *lit, const char *want, size_t wantlen,
    const char *what)
{
	struct json_object	*o = jsonbody_parse_strict(lit, strlen(lit));
	const char		*s;
	size_t			 len = 0;

	s = jsonbody_get_str(o, "a", &len);
	ok(s != NULL && len == wantlen && memcmp(s, want, wantlen) == 0,
	    "%s", what);
	json_object_put(o);
}

/*
 * Well-formed UTF-8 by Unicode's table 3-7: the counts of characters,
 * and every kind of ill-formed sequence refused.
 */
static void
test_utf8(void)
{
	is_int(utf8_chars("", 0), 0, "utf8: empty, 0 characters");
	is_int(utf8_chars("abc", 3), 3, "utf8: ASCII");
	is_int(utf8_chars("a\0b", 3), 3, "utf8: NUL is a character");
	is_int(utf8_chars("\xc3\xa9", 2), 1, "utf8: U+00E9");
	is_int(utf8_chars("\xc2\x80", 2), 1, "utf8: U+0080, lowest 2-byte");
	is_int(utf8_chars("\xdf\xbf", 2), 1, "utf8: U+07FF");
	is_int(utf8_chars("\xe0\xa0\x80", 3), 1, "utf8: U+0800");
	is_int(utf8_chars("\xed\x9f\xbf", 3), 1, "utf8: U+D7FF");
	is_int(utf8_chars("\xee\x80\x80", 3), 1, "utf8: U+E000");
	is_int(utf8_chars("\xef\xbf\xbd", 3), 1, "utf8: U+FFFD");
	is_int(utf8_chars("\xef\xbf\xbf", 3), 1,
	    "utf8: U+FFFF (a noncharacter, still a scalar value)");
	is_int(utf8_chars("\xf0\x90\x80\x80", 4), 1, "utf8: U+10000");
	is_int(utf8_chars("\xf0\x9f\x98\x80", 4), 1, "utf8: U+1F600");
	is_int(utf8_chars("\xf4\x8f\xbf\xbf", 4), 1, "utf8: U+10FFFF");
	is_int(utf8_chars("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z", 11),
	    5, "utf8: mixed lengths");

	is_int(utf8_chars("\xc3\x28", 2), -1, "utf8: C3 28 refused");
	is_int(utf8_chars("\xc0\xaf", 2), -1, "utf8: overlong C0 AF refused");
	is_int(utf8_chars("\xc1\xbf", 2), -1, "utf8: overlong C1 BF refused");
	is_int(utf8_chars("\xe0\x80\xaf", 3), -1,
	    "utf8: overlong E0 80 AF refused");
	is_int(utf8_chars("\xe0\x9f\xbf", 3), -1,
	    "utf8: overlong E0 9F BF refused");
	is_int(utf8_chars("\xf0\x80\x80\xaf", 4), -1,
	    "utf8: overlong F0 80 80 AF refused");
	is_int(utf8_chars("\xf0\x8f\xbf\xbf", 4), -1,
	    "utf8: overlong F0 8F BF BF refused");
	is_int(utf8_chars("\xed\xa0\x80", 3), -1,
	    "utf8: encoded surrogate ED A0 80 (U+D800) refused");
	is_int(utf8_chars("\xed\xbf\xbf", 3), -1,
	    "utf8: encoded surrogate ED BF BF (U+DFFF) refused");
	is_int(utf8_chars("\xed\xa0\xbd\xed\xb8\x80", 6), -1,
	    "utf8: an encoded surrogate pair (CESU-8) refused");
	is_int(utf8_chars("\xf4\x90\x80\x80", 4), -1,
	    "utf8: F4 90 80 80 (above U+10FFFF) refused");
	is_int(utf8_chars("\xf5\x80\x80\x80", 4), -1, "utf8: F5 refused");
	is_int(utf8_chars("\xf7\xbf\xbf\xbf", 4), -1, "utf8: F7 refused");
	is_int(utf8_chars("\xf8\x88\x80\x80\x80", 5), -1,
	    "utf8: five-byte form refused");
	is_int(utf8_chars("\xfe", 1), -1, "utf8: FE refused");
	is_int(utf8_chars("\xff", 1), -1, "utf8: FF refused");
	is_int(utf8_chars("\x80", 1), -1, "utf8: a lone continuation refused");
	is_int(utf8_chars("a\xbf", 2), -1,
	    "utf8: a continuation after ASCII refused");
	is_int(utf8_chars("\xc3", 1), -1, "utf8: C3 at the end refused");
	is_int(utf8_chars("\xe2\x82", 2), -1,
	    "utf8: E2 82 (3-byte cut short) refused");
	is_int(utf8_chars("\xf0\x9f\x98", 3), -1,
	    "utf8: F0 9F 98 (4-byte cut short) refused");
	is_int(utf8_chars("\xe2\x82x", 3), -1,
	    "utf8: E2 82 followed by ASCII refused");
	/* The length bounds the check, not a NUL. */
	is_int(utf8_chars("\xc3\xa9", 1), -1,
	    "utf8: a sequence cut by len refused");
}

/*
 * The inputs (escaped unpaired surrogates, which json-c turns
 * into U+FFFD, so the text would be stored altered), raw bytes that are
 * not UTF-8, each refused with the reason JSONBODY_UNICODE; the valid
 * controls accepted with their exact bytes.
 */
static void
test_unicode(void)
{
	NOT_UNICODE("{\"a\":\"\\ud800\"}", "\\ud800 (a lone high surrogate)");
	NOT_UNICODE("{\"a\":\"\\udc00\"}", "\\udc00 (a lone low surrogate)");
	NOT_UNICODE("{\"a\":\"\\ud800x\"}", "\\ud800 then x");
	NOT_UNICODE("{\"a\":\"\\ud800\\u0041\"}",
	    "\\ud800 then \\u0041");
	NOT_UNICODE("\"\\ud800\"", "a top-level \\ud800");
	NOT_UNICODE("{\"name\":\"\\ud800\"}", "the issue's admin PATCH body");
	NOT_UNICODE("{\"a\":\"\\uDBFF\"}", "\\uDBFF, upper case");
	NOT_UNICODE("{\"a\":\"\\uDFFF\"}", "\\uDFFF, upper case");
	NOT_UNICODE("{\"a\":\"\\ude00\\ud83d\"}", "a pair in the wrong order");
	NOT_UNICODE("{\"a\":\"\\ud83d\\ud83d\\ude00\"}",
	    "two highs, then one low");
	NOT_UNICODE("{\"a\":\"\\ud83d\\\\ude00\"}",
	    "a high, then an escaped backslash and \"ude00\"");
	NOT_UNICODE("{\"a\":\"\\ud83d \\ude00\"}", "a high, a space, a low");
	NOT_UNICODE("{\"\\ud800\":1}", "an unpaired surrogate in a name");
	NOT_UNICODE("[\"ok\",{\"b\":[\"\\udfff\"]}]", "one deep in arrays");
	NOT_UNICODE("{\"a\":\"\\\\\\ud800\"}",
	    "an escaped backslash, then \\ud800");
	NOT_UNICODE("{\"a\":\"\xc3\x28\"}", "raw C3 28");
	NOT_UNICODE("{\"a\":\"\xc0\xaf\"}", "raw overlong C0 AF");
	NOT_UNICODE("{\"a\":\"\xe0\x80\xaf\"}", "raw overlong E0 80 AF");
	NOT_UNICODE("{\"a\":\"\xed\xa0\x80\"}",
	    "raw ED A0 80 (an encoded surrogate)");
	NOT_UNICODE("{\"a\":\"\xf5\x80\x80\x80\"}", "raw F5 80 80 80");
	NOT_UNICODE("{\"a\":\"\xf4\x90\x80\x80\"}",
	    "raw F4 90 80 80 (above U+10FFFF)");
	NOT_UNICODE("{\"a\":\"\xc3\"}", "a raw two-byte sequence cut short");
	NOT_UNICODE("{\"a\":\"\xe2\x82\"}",
	    "a raw three-byte sequence cut short");
	NOT_UNICODE("{\"a\":\"x\"}\xc3", "a raw lead byte after the value");
	NOT_UNICODE("{\"\xc3\x28\":1}", "raw C3 28 in a name");
	NOT_UNICODE("{\"a\":\"\xff\"}", "raw FF");

	UNICODE_OK("{\"a\":\"\\ud83d\\ude00\"}", "a valid pair");
	UNICODE_OK("{\"a\":\"\\uD83D\\uDE00\"}", "a valid pair, upper case");
	UNICODE_OK("{\"a\":\"\\udbff\\udfff\"}", "U+10FFFF as a pair");
	UNICODE_OK("{\"a\":\"\\ufffd\"}", "\\ufffd");
	UNICODE_OK("{\"a\":\"\xef\xbf\xbd\"}", "U+FFFD written literally");
	UNICODE_OK("{\"a\":\"\\\\ud800\"}",
	    "\\\\ud800: an escaped backslash, then text");
	UNICODE_OK("{\"a\":\"\\\\\\\\ud800\"}", "two escaped backslashes");
	UNICODE_OK("{\"a\":\"\\ud7ff\\ue000\"}",
	    "the scalar values around the surrogates");
	UNICODE_OK("{\"a\":\"\xf0\x9f\x98\x80\"}", "raw U+1F600");
	UNICODE_OK("{\"a\":\"\xf4\x8f\xbf\xbf\"}", "raw U+10FFFF");

	string_is("{\"a\":\"\\ud83d\\ude00\"}", "\xf0\x9f\x98\x80", 4,
	    "\\ud83d\\ude00 decodes to F0 9F 98 80");
	string_is("{\"a\":\"\\ufffd\"}", "\xef\xbf\xbd", 3,
	    "\\ufffd decodes to EF BF BD");
	string_is("{\"a\":\"\\\\ud800\"}", "\\ud800", 6,
	    "\\\\ud800 decodes to the six characters \\ud800");

	/* Other refusals keep their reason. */
	is_int(why("{\"a\":1,}", 8), JSONBODY_SYNTAX,
	    "a trailing comma: JSONBODY_SYNTAX");
	is_int(why("{\"a\":\"\\u0000\"}", 12), JSONBODY_SYNTAX,
	    "an escaped NUL: JSONBODY_SYNTAX");
	is_int(why("{\"a\":\"\\ud8\"}", 11), JSONBODY_SYNTAX,
	    "a cut escape: JSONBODY_SYNTAX (json-c refuses it)");
	is_int(why("{\"a\":1}", 7), JSONBODY_OK, "a plain object: JSONBODY_OK");
	ok(jsonbody_parse("{\"a\":\"\\ud800\"}", 14, NULL) == NULL,
	    "no reason asked for: still refused");
}

/* Runs every test; the exit status is TAP's. */
/*
 * A member name given twice in one object, at any depth, is refused
 * (json-c would keep the last value); the same name in different
 * objects, and braces, colons and escaped quotes inside strings, are not
 * duplicates.
 */
static void
test_duplicates(void)
{
	REFUSED("{\"number\":1,\"number\":2}", "top-level duplicate");
	REFUSED("{\"number\":1,\"ticket\":\"t\",\"number\":1}",
	    "top-level duplicate, same value");
	REFUSED("{\"a\":{\"b\":1,\"b\":2}}", "duplicate at depth 2");
	REFUSED("{\"a\":[{\"x\":1},{\"y\":1,\"y\":1}]}",
	    "duplicate in an object in an array");
	REFUSED("[{\"a\":1},{\"a\":{\"c\":{\"d\":1,\"d\":1}}}]",
	    "duplicate at depth 4 under an array");
	REFUSED("{\"a\":{\"x\":{}},\"a\":1}",
	    "duplicate whose first value was an object");
	REFUSED("{\"a\":1,\"\\u0061\":2}", "duplicate spelt with \\u");
	REFUSED("{\"pow\":{\"challenge\":\"c\",\"nonce\":\"n\"},"
	    "\"pow\":{}}", "duplicate pow");
	REFUSED("{\"\":1,\"\":2}", "duplicate empty name");
	ACCEPTED("{\"a\":{\"a\":{\"a\":1}}}", "same name, nested objects");
	ACCEPTED("[{\"a\":1},{\"a\":2}]", "same name, sibling objects");
	ACCEPTED("{\"a\":\"{:}\\\":{\",\"b\":\"::\"}",
	    "braces, colons and escaped quotes in strings");
	ACCEPTED("{\"a:b\":1,\"a\":2,\"{\":3}", "colons in names");
	ACCEPTED("{\"x\\\\\":1,\"x\":2}", "a name ending in a backslash");
	ACCEPTED("{}", "empty object");
	ACCEPTED("{\"a\":[],\"b\":{},\"c\":[{}]}", "empty containers");
}

int
main(void)
{
	test_c17();
	test_duplicates();
	test_depth();
	test_accepted();
	test_get_int();
	test_utf8();
	test_unicode();
	return done_testing();
}
