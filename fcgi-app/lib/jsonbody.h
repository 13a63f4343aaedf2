/*
 * jsonbody.h - the one strict JSON parser for every request body
 * (CASES C17): json-c with a small depth and JSON_TOKENER_STRICT, parse
 * end required at the body's end, no NaN/Infinity, no comments, no single
 * quotes, no trailing commas, no member name twice in one object, and
 * nothing but Unicode: well-formed UTF-8 bytes, no unpaired surrogate
 * escape.
 */
#ifndef JSONBODY_H
#define JSONBODY_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define JSON_DEPTH	16	/* nesting levels allowed */

/* Why jsonbody_parse() refused a text. */
enum jsonbody_err {
	JSONBODY_OK = 0,	/* parsed */
	JSONBODY_SYNTAX,	/* not strict JSON (or out of memory) */
	JSONBODY_UNICODE,	/* not Unicode: bytes that are not UTF-8, or
				   a \u escape of an unpaired surrogate */
	JSONBODY__MAX
};

/*
 * Parse exactly len bytes of buf as one JSON value.  Returns a new
 * json-c object the caller releases with json_object_put(), or NULL when
 * the text is not strict JSON (trailing bytes, too deep, NaN, a member
 * name given twice in one object at any depth, ...) or not Unicode:
 * bytes that are not well-formed UTF-8 anywhere in the text
 * (utf8_chars()), or a string escape that stands for no character (a
 * high surrogate \uD800-\uDBFF not immediately followed by an escaped
 * low surrogate \uDC00-\uDFFF, or a low one on its own; json-c would
 * put U+FFFD in its place, so the text would be stored altered).
 * Numbers that are not finite are refused.  When why is not NULL it
 * gets the reason (JSONBODY_OK on success).
 */
struct json_object *jsonbody_parse(const char *buf, size_t len,
	    enum jsonbody_err *why);

/* jsonbody_parse() without the reason. */
struct json_object *jsonbody_parse_strict(const char *buf, size_t len);

/*
 * Read member name of object obj as a JSON integer in [min, max].
 * Returns 0 and sets *out; -1 when missing; -2 when present but not a
 * JSON integer (a string, a real such as 1.0, a boolean) or out of range.
 */
int	 jsonbody_get_int(struct json_object *obj, const char *name,
	    int64_t min, int64_t max, int64_t *out);

/*
 * Read member name of obj as a string.  Returns the string (owned by obj)
 * and its length in *len; NULL when missing or not a string.
 */
const char *jsonbody_get_str(struct json_object *obj, const char *name,
	    size_t *len);

/*
 * Whether obj, parsed by json-c from exactly len bytes of buf with a
 * depth of at most JSON_DEPTH, is free of what json-c's strict mode
 * still lets through besides non-finite numbers: a member name given
 * twice in one object (json-c keeps the last) and single-quoted names.
 * For parsers with their own error reasons (the health document).
 * Returns 1 if so, 0 if not (or out of memory).
 */
int	 jsonbody_names_unique(const char *buf, size_t len,
	    struct json_object *obj);

#endif /* JSONBODY_H */
