/*
 * fields.h - the field engine: a table of settings (one row per setting,
 * struct fld) drives how each is read from the command line, a console
 * form and the API's JSON, checked, compared, copied, shown and stored.
 * The queue settings (queue-fields.c) and the auto-rate settings
 * (autorate-ops.c) are two such tables over their own structs.
 *
 * A value lives in two kinds of struct: a change request (the offset
 * off: struct qops_spec, whose texts are borrowed) and the stored
 * settings (roff: struct queue, which owns its texts); a table whose
 * request and settings are one struct gives both offsets the same.
 * FLD_TEXT is a char *, FLD_BUF a char array of the row's size, FLD_INT,
 * FLD_BOOL (0 or 1) and FLD_TIME (Unix ms, 0 for none) an int64_t.
 */
#ifndef FIELDS_H
#define FIELDS_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

enum fld_type {
	FLD_TEXT,	/* char *, UTF-8 */
	FLD_BUF,	/* char[size], UTF-8 */
	FLD_INT,	/* int64_t in [min, max] */
	FLD_BOOL,	/* int64_t 0 or 1 */
	FLD_TIME	/* int64_t Unix ms; 0 = none */
};

/* The console's control for a setting. */
enum fld_ctl {
	FLD_CTL_TEXT,		/* one line */
	FLD_CTL_TEXTAREA,	/* lines kept */
	FLD_CTL_URL,		/* an URL */
	FLD_CTL_NUMBER,		/* an integer, with the row's unit */
	FLD_CTL_CHECKBOX,	/* on or off */
	FLD_CTL_DATETIME,	/* a time, or none */
	FLD_CTL_COLOR,		/* #rrggbb, or none */
	FLD_CTL_STATUS,		/* one of a few HTTP statuses */
	FLD_CTL_METHOD		/* one of the queuing methods */
};

/* Flags of a row. */
#define FLD_STATE	0x1u	/* stored with the admission state, not by
				   its column alone (queue-fields.c) */
#define FLD_EMPTY_OK	0x2u	/* text: "" means none, never checked */
#define FLD_ACTION	0x4u	/* changed by an action (pause, resume),
				   not by a form */
#define FLD_NULL_EMPTY	0x8u	/* text: "" is stored as NULL (none) */
/*
 * Widens what the product's outbound requests may reach (the health
 * check's private network): changed only by a console session or the
 * CLI, never with an API key (refused 403, nothing changed).
 */
#define FLD_WIDENS	0x10u

/* One setting. */
struct fld {
	const char	*key;	/* API member, e.g. "ratePerMinute" */
	const char	*opt;	/* CLI option without "--", e.g. "rate" */
	const char	*label;	/* the console's label */
	enum fld_ctl	 ctl;	/* the console's control */
	enum fld_type	 type;
	size_t		 off;	/* offset of the value in a request */
	size_t		 roff;	/* ... in the stored settings */
	size_t		 size;	/* FLD_BUF: bytes, with the NUL */
	const char	*column;	/* database column */
	int64_t		 min, max;	/* FLD_INT: the range; FLD_TEXT,
					   FLD_BUF: characters */
	const char	*def;	/* the default, as the CLI writes it */
	/* A further check of a value (text, or the integer), or NULL. */
	int		(*valid)(const char *text, int64_t v);
	/*
	 * FLD_TEXT: the stored form of a valid text (a new string the
	 * caller frees, NULL when memory ran out), or NULL to store it as
	 * it is.
	 */
	char		*(*norm)(const char *text);
	const char	*rule;	/* what a valid value is, in words */
	const char	*unit;	/* console: what a number counts, or NULL */
	unsigned int	 flags;
};

/* Which of the two structs a value is read from. */
enum fld_at {
	FLD_AT_SPEC,	/* a change request: off */
	FLD_AT_ROW	/* the stored settings: roff */
};

/* Why a value was refused. */
enum fld_why {
	FLD_OK = 0,
	FLD_INVALID,	/* not a value of the row's rule */
	FLD_UNICODE	/* a text that is not UTF-8 */
};

/*
 * Set f's value in the change request obj from text (the CLI's and a
 * console form's way):
 * integers decimal (parse_int64() rules) within [min, max]; booleans
 * 1/0, true/false, on/off, yes/no; times Unix ms or ISO 8601 with a zone
 * (iso_time_parse()), "none" or "" for none; texts as they are (FLD_TEXT
 * borrowed from text: it must outlive obj's use), UTF-8 required, at
 * most max characters, and the row's validator.  Returns FLD_OK, or the
 * reason (obj unchanged).
 */
enum fld_why	 fld_parse(const struct fld *f, void *obj, const char *text);

/*
 * Set f's value in the change request obj from a JSON value (the API's
 * way): integers and
 * times as JSON integers (a time may also be an ISO 8601 string, and
 * null for none), booleans as JSON booleans only, texts as JSON strings
 * (FLD_TEXT borrowed from v; null is "" for FLD_NULL_EMPTY).  Checked
 * as fld_parse().  Returns FLD_OK or the reason (obj unchanged).
 */
enum fld_why	 fld_from_json(const struct fld *f, void *obj,
		    struct json_object *v);

/*
 * Check f's value in the change request spec as fld_parse() checks a
 * text (a time: 0 for none, else positive).  Returns FLD_OK or the
 * reason.
 */
enum fld_why	 fld_check(const struct fld *f, const void *spec);

/*
 * f's value in obj (at: which kind of struct) as a new JSON value: a
 * string, an integer, a boolean, or null (a time of 0, a NULL text).
 * NULL only when memory ran out (and for a JSON null).
 */
struct json_object *fld_to_json(const struct fld *f, const void *obj,
		    enum fld_at at);

/*
 * f's value in obj as text into buf of size n (truncated): as fld_parse()
 * takes it back (booleans on/off, times Unix ms or "" for none, a NULL
 * text "").  Returns buf.
 */
const char	*fld_text(const struct fld *f, const void *obj,
		    enum fld_at at, char *buf, size_t n);

/*
 * Whether f's value in the settings row equals the one in the change
 * request spec.  Returns 1 or 0.
 */
int		 fld_same(const struct fld *f, const void *row,
		    const void *spec);

/*
 * Copy f's value from the change request spec into the settings row,
 * which owns its texts (FLD_TEXT: a copy in the row's stored form, see
 * norm and FLD_NULL_EMPTY; the old one freed).  Returns 0, or -1 when
 * memory ran out (row unchanged).
 */
int		 fld_copy(const struct fld *f, void *row, const void *spec);

/* Free f's text in the settings row (FLD_TEXT) and set it NULL. */
void		 fld_free(const struct fld *f, void *row);

/*
 * Row f of table (n rows), or a row of empty names ("") when f is out
 * of range.  Never NULL; static.  Can't fail.
 */
const struct fld	*fld_at(const struct fld *table, size_t n, int f);

/*
 * The row of table (n rows) whose key or option is name, or -1.
 */
int		 fld_find(const struct fld *table, size_t n, const char *name);

/*
 * An int64_t or a text of f in obj (at: which kind of struct), for the
 * callers that know the type (0 or NULL for the other types).  Can't
 * fail.
 */
int64_t		 fld_int(const struct fld *f, const void *obj,
		    enum fld_at at);
const char	*fld_str(const struct fld *f, const void *obj,
		    enum fld_at at);

#endif /* FIELDS_H */
