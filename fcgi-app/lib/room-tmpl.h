/*
 * room-tmpl.h - a queue's custom waiting-room template: an HTML fragment
 * of at most ROOM_TMPL_MAX bytes that takes the place of the room page's
 * figures, with the variables ${waitTime}, ${position}, ${number},
 * ${serving}, ${name} and ${eta}.  One walk over the text both checks
 * it (at upload) and fills it (each page): literal text is handed on as
 * it is, each variable once, with its context (text or a quoted
 * attribute value) so that the caller escapes it for that context.  A
 * value is never read again as template text (single pass, CASES C51).
 *
 * What is refused, with the line (1-based, counted in '\n'):
 *  - bytes that are not UTF-8 (RFC 3629) or hold a NUL;
 *  - an unknown ${name}, a "${" without its "}";
 *  - a variable anywhere but in text and in a quoted attribute value
 *    (tag and attribute names, unquoted values, comments), or in a URL
 *    attribute (href, src, cite);
 *  - every element outside a fixed list of text, list, table and image
 *    elements: no script, style, iframe, object, embed, base, meta,
 *    link, form, svg, math, template, noscript, title, textarea ...
 *    (the page brings its own scripts and styles: a template has no
 *    script hook at all);
 *  - every attribute outside a fixed list (with aria-* and data-*): no
 *    event handlers (on*), no style (the page's Content-Security-Policy
 *    blocks inline styles), no srcdoc, no srcset;
 *  - a URL attribute whose scheme is not http, https or mailto (the
 *    HTML standard strips leading blanks; a scheme hidden behind a
 *    character reference or a blank inside it is refused too);
 *  - declarations (<!doctype>), processing instructions, comments that
 *    the HTML parser could end early ("--" inside), tags cut short.
 */
#ifndef ROOM_TMPL_H
#define ROOM_TMPL_H

#include <stddef.h>

/* The largest template, in bytes (50 KB; the issue's and ESA's limit). */
#define ROOM_TMPL_MAX	51200

/* The variables, in the order of room_tmpl_var_name(). */
enum room_var {
	ROOM_VAR_WAIT_TIME,	/* ${waitTime}: the estimated wait */
	ROOM_VAR_POSITION,	/* ${position}: place in line (1 = next) */
	ROOM_VAR_NUMBER,	/* ${number}: the visitor's number */
	ROOM_VAR_SERVING,	/* ${serving}: admitted up to this number */
	ROOM_VAR_NAME,		/* ${name}: the queue's display name */
	ROOM_VAR_ETA,		/* ${eta}: the expected time of entry */
	ROOM_VAR__MAX
};

/* Where a variable stands. */
enum room_ctx {
	ROOM_CTX_TEXT,		/* element content: escape & < > */
	ROOM_CTX_ATTR		/* a quoted attribute value: also " ' */
};

/* Why a template is refused (ROOM_TMPL_OK: it is not). */
enum room_tmpl_code {
	ROOM_TMPL_OK = 0,
	ROOM_TMPL_TOO_LARGE,	/* above ROOM_TMPL_MAX bytes */
	ROOM_TMPL_ENCODING,	/* not UTF-8, or a NUL byte */
	ROOM_TMPL_UNKNOWN_VAR,	/* ${name} of no variable */
	ROOM_TMPL_UNTERMINATED_VAR,	/* "${" without "}" */
	ROOM_TMPL_VAR_CONTEXT,	/* a variable where it can't be escaped */
	ROOM_TMPL_ELEMENT,	/* an element not allowed */
	ROOM_TMPL_ATTRIBUTE,	/* an attribute not allowed */
	ROOM_TMPL_URL,		/* a URL with a scheme not allowed */
	ROOM_TMPL_MARKUP,	/* declaration, bad comment, cut tag */
	ROOM_TMPL__MAX
};

/* A refusal: its code, the line, a sentence naming both. */
struct room_tmpl_err {
	enum room_tmpl_code	 code;
	int			 line;		/* 1-based; 0: the whole */
	char			 message[256];
};

/*
 * Where room_tmpl_walk() hands the template: lit(arg, p, n) for n bytes
 * of literal text to copy as they are, var(arg, v, ctx) for variable v
 * in context ctx.  Either may be NULL (only the check).
 */
struct room_tmpl_sink {
	void	(*lit)(void *arg, const char *p, size_t n);
	void	(*var)(void *arg, enum room_var v, enum room_ctx ctx);
	void	*arg;
};

/*
 * Walk template t[0..len) once, checking it against the rules above and
 * handing it to sink (NULL: check only).  On a refusal the sink may have
 * had a part: a caller that renders drops what it got.  Returns 0, or
 * -1 with *err filled.  Can't fail otherwise.
 */
int	 room_tmpl_walk(const char *t, size_t len,
	    const struct room_tmpl_sink *sink, struct room_tmpl_err *err);

/* The variable's name as written in a template ("waitTime"). */
const char *room_tmpl_var_name(enum room_var);

/*
 * The machine-readable reason of code c ("unknown_variable", ...), as
 * the admin API answers it.  A static string.  Can't fail.
 */
const char *room_tmpl_code_name(enum room_tmpl_code c);

#endif /* ROOM_TMPL_H */
