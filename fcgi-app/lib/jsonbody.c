/*
 * jsonbody.c - the strict JSON parser for request bodies and token parts:
 * json-c with JSON_TOKENER_STRICT, a depth of JSON_DEPTH, the parse end
 * pinned to the end of the input, and checks that refuse what json-c
 * still lets through (bytes that are not well-formed UTF-8, escapes of
 * unpaired surrogates, NaN, Infinity, NUL, and duplicate member names).
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "jsonbody.h"

/*
 * Whether the parsed value v (NULL for JSON null) and everything in it
 * is acceptable: json-c's strict mode still takes NaN, Infinity and
 * -Infinity (and 1e999 becomes infinite), so every double must be finite;
 * a string must not hold U+0000 ("\u0000"), since every caller treats
 * strings as C strings.  Recursion is bounded by the tokener's depth.
 * Returns 1 if acceptable, else 0.  Can't fail.
 */
static int
value_ok(struct json_object *v)
{
	size_t	 i, n;

	switch (json_object_get_type(v)) {
	case json_type_null:
	case json_type_boolean:
	case json_type_int:
		return 1;
	case json_type_double:
		return isfinite(json_object_get_double(v)) ? 1 : 0;
	case json_type_string:
		return strlen(json_object_get_string(v)) ==
		    (size_t)json_object_get_string_len(v);
	case json_type_array:
		n = json_object_array_length(v);
		for (i = 0; i < n; i++)
			if (!value_ok(json_object_array_get_idx(v, i)))
				return 0;
		return 1;
	case json_type_object: {
		json_object_object_foreach(v, key, member) {
			(void)key;
			if (!value_ok(member))
				return 0;
		}
		return 1;
	}
	}
	return 0;
}

/*
 * Whether buf (len bytes, accepted by json-c) holds a single quote
 * outside a double-quoted string: json-c's strict mode still takes
 * single-quoted member names ({'a':1}), which RFC 8259 does not know
 * (and which would hide a name from the member count below).
 * Returns 1 if so, 0 otherwise.
 */
static int
single_quoted(const char *buf, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\'')
			return 1;
		if (buf[i] == '"')
			for (i++; i < len && buf[i] != '"'; i++)
				if (buf[i] == '\\')
					i++;
	}
	return 0;
}

/*
 * Count the members of every object of buf (len bytes, text that json-c
 * has already accepted as strict JSON) in document order of the opening
 * braces: one ':' outside strings per member.  This is a count over
 * valid JSON, not a parser: strings are skipped by their quotes and
 * backslash escapes, and the nesting depth is at most JSON_DEPTH.
 * Returns a new array of *nobj counts (NULL with *nobj 0 when there is
 * no object), or NULL with *nobj (size_t)-1 when out of memory.
 */
static size_t *
member_counts(const char *buf, size_t len, size_t *nobj)
{
	size_t	*cnt, stack[JSON_DEPTH + 1], n = 0, i;
	int	 obj[JSON_DEPTH + 1], depth = 0;

	*nobj = 0;
	for (i = 0; i < len; i++)
		if (buf[i] == '{')
			n++;	/* the objects, and braces in strings */
	if (n == 0)
		return NULL;
	if ((cnt = try_malloc(n * sizeof(*cnt))) == NULL) {
		*nobj = (size_t)-1;
		return NULL;
	}
	for (i = 0; i < len; i++) {
		switch (buf[i]) {
		case '"':
			for (i++; i < len && buf[i] != '"'; i++)
				if (buf[i] == '\\')
					i++;
			break;
		case '{':
		case '[':
			if (depth > JSON_DEPTH)
				break;	/* cannot happen: json-c refused it */
			obj[depth] = buf[i] == '{';
			if (obj[depth]) {
				stack[depth] = *nobj;
				cnt[(*nobj)++] = 0;
			}
			depth++;
			break;
		case '}':
		case ']':
			if (depth > 0)
				depth--;
			break;
		case ':':
			if (depth > 0 && obj[depth - 1])
				cnt[stack[depth - 1]]++;
			break;
		}
	}
	return cnt;
}

/*
 * Compare, in pre-order, the member count of every object under v with
 * counts[*k...].  The first object whose count differs is where a name
 * was given twice (json-c keeps the last value; members stay in text
 * order otherwise, so the walk and the text agree up to that point).
 * Returns 1 when every object has as many members as the text, else 0.
 */
static int
no_duplicates(struct json_object *v, const size_t *counts, size_t n,
    size_t *k)
{
	size_t	 i, len;

	switch (json_object_get_type(v)) {
	case json_type_array:
		len = json_object_array_length(v);
		for (i = 0; i < len; i++)
			if (!no_duplicates(json_object_array_get_idx(v, i),
			    counts, n, k))
				return 0;
		return 1;
	case json_type_object:
		if (*k >= n || counts[*k] !=
		    (size_t)json_object_object_length(v))
			return 0;
		(*k)++;
		{
			json_object_object_foreach(v, key, member) {
				(void)key;
				if (!no_duplicates(member, counts, n, k))
					return 0;
			}
		}
		return 1;
	default:
		return 1;
	}
}

/*
 * Whether no object in obj (parsed from buf, len bytes) names a member
 * twice.  RFC 8259 section 4 leaves duplicate names to the parser and
 * RFC 7515 section 5.2 (JWS) requires refusing them or keeping the
 * last; two readers of one body must never disagree on it, so every
 * duplicate is refused (I-JSON, RFC 7493 section 2.3).  Returns 1 if
 * none, 0 if some (or out of memory).
 */
static int
names_unique(const char *buf, size_t len, struct json_object *obj)
{
	size_t	*counts, n, k = 0;
	int	 ok;

	counts = member_counts(buf, len, &n);
	if (n == (size_t)-1)
		return 0;
	ok = no_duplicates(obj, counts, n, &k) && k == n;
	free(counts);
	return ok;
}

/*
 * The value of the four hex digits at p (avail bytes there) into *u.
 * Returns 0, or -1 when there are fewer than four or one is no hex
 * digit.
 */
static int
hex4(const char *p, size_t avail, unsigned int *u)
{
	size_t	 i;
	int	 c;

	if (avail < 4)
		return -1;
	*u = 0;
	for (i = 0; i < 4; i++) {
		c = (unsigned char)p[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return -1;
		*u = *u * 16 + (unsigned int)c;
	}
	return 0;
}

/*
 * Whether every \u escape of buf (len bytes of text json-c has accepted
 * as strict JSON: a backslash appears only inside a string and starts an
 * escape) stands for a character: a high surrogate (D800 to DBFF) only
 * when the very next escape is a low one (DC00 to DFFF), and no low
 * surrogate on its own (RFC 8259 section 8.2).  "\\u" is an escaped
 * backslash followed by the letter u, no escape.  This is a check over
 * valid JSON, not a parser.  Returns 1 if so, 0 if not.
 */
static int
escapes_ok(const char *buf, size_t len)
{
	size_t		 i;
	unsigned int	 u;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\\')
			continue;
		if (i + 1 >= len)
			return 0;
		if (buf[i + 1] != 'u') {
			i++;	/* the escaped character, maybe '\\' */
			continue;
		}
		if (hex4(buf + i + 2, len - i - 2, &u) == -1)
			return 0;
		i += 5;		/* on the last hex digit */
		if (u >= 0xdc00 && u <= 0xdfff)
			return 0;
		if (u < 0xd800 || u > 0xdbff)
			continue;
		if (len - i < 7 || buf[i + 1] != '\\' || buf[i + 2] != 'u' ||
		    hex4(buf + i + 3, len - i - 3, &u) == -1 ||
		    u < 0xdc00 || u > 0xdfff)
			return 0;
		i += 6;
	}
	return 1;
}

/*
 * Depth, as json-c counts it: the top-level value is at level 1 and every
 * value inside an array or object is one level deeper than its container.
 * No value may sit deeper than JSON_DEPTH.  So 16 nested empty arrays
 * "[[...[]...]]" pass and 17 do not; with a scalar at the bottom,
 * 15 containers pass ("[[...[1]...]]", the 1 at level 16) and 16 do not.
 *
 * json-c cannot know that a number at the very end of the input is
 * complete ("1" might be the start of "12"), so it answers
 * json_tokener_continue; the documented way to finish is to feed the
 * terminating NUL, which is done as a separate one-byte call so that a
 * NUL inside the body itself is never taken as the end.
 *
 * Before json-c sees the text, every control byte other than tab, line
 * feed and carriage return is refused: JSON allows none of them anywhere
 * (RFC 8259: only those three as white space, none raw inside strings),
 * json-c's strict mode takes them inside strings, and a NUL byte must
 * never end a body early.  So are bytes that are not well-formed UTF-8
 * (RFC 8259 section 8.1): json-c's own JSON_TOKENER_VALIDATE_UTF8 only
 * counts continuation bytes and lets overlong forms (C0 AF), encoded
 * surrogates (ED A0 80) and lead bytes F5 to F7 through.
 */
struct json_object *
jsonbody_parse(const char *buf, size_t len, enum jsonbody_err *why)
{
	struct json_tokener	*tok;
	struct json_object	*obj;
	enum json_tokener_error	 jerr;
	enum jsonbody_err	 dummy;
	size_t			 i;
	unsigned char		 c;

	if (why == NULL)
		why = &dummy;
	*why = JSONBODY_SYNTAX;
	if (buf == NULL || len == 0 || len >= INT_MAX)
		return NULL;
	for (i = 0; i < len; i++) {
		c = (unsigned char)buf[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return NULL;
	}
	if (utf8_chars(buf, len) < 0) {
		*why = JSONBODY_UNICODE;
		return NULL;
	}
	if ((tok = json_tokener_new_ex(JSON_DEPTH)) == NULL)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	    JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_success &&
	    json_tokener_get_parse_end(tok) != len) {
		json_object_put(obj);
		obj = NULL;
		jerr = json_tokener_error_parse_unexpected;
	} else if (jerr == json_tokener_continue &&
	    json_tokener_get_parse_end(tok) == len) {
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
	}
	json_tokener_free(tok);
	if (jerr != json_tokener_success || obj == NULL) {
		json_object_put(obj);
		return NULL;
	}
	if (single_quoted(buf, len) || !value_ok(obj) ||
	    !names_unique(buf, len, obj)) {
		json_object_put(obj);
		return NULL;
	}
	if (!escapes_ok(buf, len)) {
		json_object_put(obj);
		*why = JSONBODY_UNICODE;
		return NULL;
	}
	*why = JSONBODY_OK;
	return obj;
}

struct json_object *
jsonbody_parse_strict(const char *buf, size_t len)
{
	return jsonbody_parse(buf, len, NULL);
}

/*
 * Member name of obj as an integer in [min, max]; see jsonbody.h.
 * Returns 0, -1 (missing) or -2 (not an integer, or out of range).
 *
 * json-c clamps integers it cannot hold: above INT64_MAX the value is
 * kept as a uint64 and json_object_get_int64() answers INT64_MAX; below
 * INT64_MIN it silently stores INT64_MIN.  Neither limit can be told from
 * a clamp, so both are refused as out of range.
 */
int
jsonbody_get_int(struct json_object *obj, const char *name, int64_t min,
    int64_t max, int64_t *out)
{
	struct json_object	*v;
	int64_t			 n;

	if (obj == NULL || name == NULL ||
	    !json_object_is_type(obj, json_type_object))
		return -1;
	if (!json_object_object_get_ex(obj, name, &v))
		return -1;
	if (!json_object_is_type(v, json_type_int))
		return -2;
	n = json_object_get_int64(v);
	if (n == INT64_MAX || n == INT64_MIN || n < min || n > max)
		return -2;
	*out = n;
	return 0;
}

/*
 * Member name of obj as a string, owned by obj, with its length in *len
 * when len is not NULL.  Returns NULL when missing or not a string.
 */
const char *
jsonbody_get_str(struct json_object *obj, const char *name, size_t *len)
{
	struct json_object	*v;

	if (obj == NULL || name == NULL ||
	    !json_object_is_type(obj, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(obj, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	if (len != NULL)
		*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

int
jsonbody_names_unique(const char *buf, size_t len, struct json_object *obj)
{
	return !single_quoted(buf, len) && names_unique(buf, len, obj);
}
