/*
 * fields.c - the field engine (see fields.h): one setting's value read,
 * checked, compared, copied and written by its row of a table.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "fields.h"
#include "isotime.h"

/* The value's place in a change request (at) or a settings row (rat). */
static void *
at(const struct fld *f, void *obj)
{
	return (char *)obj + f->off;
}

static void *
rat(const struct fld *f, void *obj)
{
	return (char *)obj + f->roff;
}

static const void *
cat(const struct fld *f, const void *obj, enum fld_at a)
{
	return (const char *)obj + (a == FLD_AT_ROW ? f->roff : f->off);
}

int64_t
fld_int(const struct fld *f, const void *obj, enum fld_at a)
{
	if (f->type == FLD_TEXT || f->type == FLD_BUF)
		return 0;
	return *(const int64_t *)cat(f, obj, a);
}

const char *
fld_str(const struct fld *f, const void *obj, enum fld_at a)
{
	if (f->type == FLD_TEXT)
		return *(const char *const *)cat(f, obj, a);
	if (f->type == FLD_BUF)
		return (const char *)cat(f, obj, a);
	return NULL;
}

/*
 * Check text for row f: UTF-8, at most max characters (when max > 0),
 * fits a FLD_BUF, "" for FLD_EMPTY_OK, else the validator.  Returns
 * FLD_OK or the reason.
 */
static enum fld_why
text_ok(const struct fld *f, const char *text)
{
	int64_t	 chars;

	if ((chars = utf8_chars(text, strlen(text))) < 0)
		return FLD_UNICODE;
	if (f->max > 0 && chars > f->max)
		return FLD_INVALID;
	if (f->type == FLD_BUF && strlen(text) >= f->size)
		return FLD_INVALID;
	if (text[0] == '\0' && (f->flags & FLD_EMPTY_OK))
		return FLD_OK;
	if (f->valid != NULL && !f->valid(text, 0))
		return FLD_INVALID;
	return FLD_OK;
}

/* Check integer v for row f (range, validator).  Returns as text_ok(). */
static enum fld_why
int_ok(const struct fld *f, int64_t v)
{
	if (f->type == FLD_INT && (v < f->min || v > f->max))
		return FLD_INVALID;
	if (f->valid != NULL && !f->valid(NULL, v))
		return FLD_INVALID;
	return FLD_OK;
}

/* Store a checked text or integer in obj. */
static void
put_text(const struct fld *f, void *obj, const char *text)
{
	if (f->type == FLD_TEXT)
		*(const char **)at(f, obj) = text;
	else
		snprintf((char *)at(f, obj), f->size, "%s", text);
}

static void
put_int(const struct fld *f, void *obj, int64_t v)
{
	*(int64_t *)at(f, obj) = v;
}

enum fld_why
fld_parse(const struct fld *f, void *obj, const char *text)
{
	enum fld_why	 why;
	int64_t		 v;

	if (text == NULL)
		return FLD_INVALID;
	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		if ((why = text_ok(f, text)) != FLD_OK)
			return why;
		put_text(f, obj, text);
		return FLD_OK;
	case FLD_INT:
		if (parse_int64(text, f->min, f->max, &v) == -1)
			return FLD_INVALID;
		break;
	case FLD_BOOL:
		if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0 ||
		    strcmp(text, "on") == 0 || strcmp(text, "yes") == 0)
			v = 1;
		else if (strcmp(text, "0") == 0 || strcmp(text, "false") ==
		    0 || strcmp(text, "off") == 0 || strcmp(text, "no") == 0)
			v = 0;
		else
			return FLD_INVALID;
		break;
	case FLD_TIME:
		/* "none" or empty: 0, no time. */
		if (strcmp(text, "none") == 0 || text[0] == '\0')
			v = 0;
		else if (iso_time_parse(text, &v) == -1 || v <= 0)
			return FLD_INVALID;
		break;
	default:
		return FLD_INVALID;
	}
	if ((why = int_ok(f, v)) != FLD_OK)
		return why;
	put_int(f, obj, v);
	return FLD_OK;
}

enum fld_why
fld_from_json(const struct fld *f, void *obj, struct json_object *v)
{
	enum fld_why	 why;
	const char	*s;
	int64_t		 n;

	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		/* null: none, for a text whose none is NULL. */
		if (v == NULL && (f->flags & FLD_NULL_EMPTY)) {
			put_text(f, obj, "");
			return FLD_OK;
		}
		if (!json_object_is_type(v, json_type_string))
			return FLD_INVALID;
		s = json_object_get_string(v);
		/* A NUL inside the string: not a text of ours. */
		if (strlen(s) != (size_t)json_object_get_string_len(v))
			return FLD_INVALID;
		if ((why = text_ok(f, s)) != FLD_OK)
			return why;
		put_text(f, obj, s);
		return FLD_OK;
	case FLD_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return FLD_INVALID;
		n = json_object_get_boolean(v) ? 1 : 0;
		break;
	case FLD_TIME:
		if (v == NULL)
			n = 0;
		else if (json_object_is_type(v, json_type_string))
			return fld_parse(f, obj, json_object_get_string(v));
		else if (!json_object_is_type(v, json_type_int) ||
		    (n = json_object_get_int64(v)) <= 0)
			return FLD_INVALID;
		break;
	case FLD_INT:
		if (!json_object_is_type(v, json_type_int))
			return FLD_INVALID;
		n = json_object_get_int64(v);
		/* json-c saturates at INT64_MIN/MAX: out of every range. */
		break;
	default:
		return FLD_INVALID;
	}
	if ((why = int_ok(f, n)) != FLD_OK)
		return why;
	put_int(f, obj, n);
	return FLD_OK;
}

enum fld_why
fld_check(const struct fld *f, const void *spec)
{
	const char	*s;
	int64_t		 v;

	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		if ((s = fld_str(f, spec, FLD_AT_SPEC)) == NULL)
			return FLD_INVALID;
		return text_ok(f, s);
	case FLD_BOOL:
		v = fld_int(f, spec, FLD_AT_SPEC);
		return v == 0 || v == 1 ? FLD_OK : FLD_INVALID;
	case FLD_TIME:
		return fld_int(f, spec, FLD_AT_SPEC) >= 0 ? FLD_OK :
		    FLD_INVALID;
	default:
		return int_ok(f, fld_int(f, spec, FLD_AT_SPEC));
	}
}

struct json_object *
fld_to_json(const struct fld *f, const void *obj, enum fld_at a)
{
	const char	*s;
	int64_t		 v;

	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		s = fld_str(f, obj, a);
		return s == NULL ? NULL : json_object_new_string(s);
	case FLD_BOOL:
		return json_object_new_boolean(fld_int(f, obj, a) != 0);
	case FLD_TIME:
		v = fld_int(f, obj, a);
		return v == 0 ? NULL : json_object_new_int64(v);
	default:
		return json_object_new_int64(fld_int(f, obj, a));
	}
}

const char *
fld_text(const struct fld *f, const void *obj, enum fld_at a, char *buf,
    size_t n)
{
	const char	*s;
	int64_t		 v;

	switch (f->type) {
	case FLD_TEXT:
	case FLD_BUF:
		s = fld_str(f, obj, a);
		snprintf(buf, n, "%s", s != NULL ? s : "");
		break;
	case FLD_BOOL:
		snprintf(buf, n, "%s", fld_int(f, obj, a) ? "on" : "off");
		break;
	case FLD_TIME:
		v = fld_int(f, obj, a);
		if (v == 0 && n > 0)
			buf[0] = '\0';
		else if (v != 0)
			snprintf(buf, n, "%" PRId64, v);
		break;
	default:
		snprintf(buf, n, "%" PRId64, fld_int(f, obj, a));
		break;
	}
	return buf;
}

int
fld_same(const struct fld *f, const void *row, const void *spec)
{
	const char	*x, *y;
	int64_t		 a, b;

	if (f->type == FLD_TEXT || f->type == FLD_BUF) {
		x = fld_str(f, row, FLD_AT_ROW);
		y = fld_str(f, spec, FLD_AT_SPEC);
		return strcmp(x != NULL ? x : "", y != NULL ? y : "") == 0;
	}
	a = fld_int(f, row, FLD_AT_ROW);
	b = fld_int(f, spec, FLD_AT_SPEC);
	if (f->type == FLD_BOOL)
		return (a != 0) == (b != 0);
	return a == b;
}

int
fld_copy(const struct fld *f, void *row, const void *spec)
{
	const char	*s;
	char		*c;

	switch (f->type) {
	case FLD_TEXT:
		s = fld_str(f, spec, FLD_AT_SPEC);
		c = NULL;
		if (s != NULL && s[0] == '\0' && (f->flags & FLD_NULL_EMPTY))
			s = NULL;
		if (s != NULL && (c = f->norm != NULL ? f->norm(s) :
		    try_strndup(s, strlen(s))) == NULL)
			return -1;
		free(*(char **)rat(f, row));
		*(char **)rat(f, row) = c;
		return 0;
	case FLD_BUF:
		memcpy(rat(f, row), cat(f, spec, FLD_AT_SPEC), f->size);
		return 0;
	default:
		*(int64_t *)rat(f, row) = fld_int(f, spec, FLD_AT_SPEC);
		return 0;
	}
}

void
fld_free(const struct fld *f, void *row)
{
	if (f->type != FLD_TEXT)
		return;
	free(*(char **)rat(f, row));
	*(char **)rat(f, row) = NULL;
}

const struct fld *
fld_at(const struct fld *table, size_t n, int f)
{
	static const struct fld	 none = { .key = "", .opt = "",
					    .label = "", .rule = "" };

	return f >= 0 && (size_t)f < n ? &table[f] : &none;
}

int
fld_find(const struct fld *table, size_t n, const char *name)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(name, table[i].opt) == 0 ||
		    strcmp(name, table[i].key) == 0)
			return (int)i;
	return -1;
}
