/*
 * room-tmpl.c - check and walk a queue's custom waiting-room template
 * (see room-tmpl.h).  The tokenizer follows the HTML standard's data,
 * tag, attribute and comment states far enough that what it takes for
 * text or a quoted attribute value is that for a browser too: anything
 * where the two could disagree is refused rather than guessed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "aqueue.h"
#include "room-tmpl.h"

static const char *const var_names[ROOM_VAR__MAX] = {
	"waitTime",	/* ROOM_VAR_WAIT_TIME */
	"position",	/* ROOM_VAR_POSITION */
	"number",	/* ROOM_VAR_NUMBER */
	"serving",	/* ROOM_VAR_SERVING */
	"name",		/* ROOM_VAR_NAME */
	"eta",		/* ROOM_VAR_ETA */
};

static const char *const code_names[ROOM_TMPL__MAX] = {
	"ok",				/* ROOM_TMPL_OK */
	"template_too_large",		/* ROOM_TMPL_TOO_LARGE */
	"invalid_encoding",		/* ROOM_TMPL_ENCODING */
	"unknown_variable",		/* ROOM_TMPL_UNKNOWN_VAR */
	"unterminated_variable",	/* ROOM_TMPL_UNTERMINATED_VAR */
	"variable_context",		/* ROOM_TMPL_VAR_CONTEXT */
	"element_not_allowed",		/* ROOM_TMPL_ELEMENT */
	"attribute_not_allowed",	/* ROOM_TMPL_ATTRIBUTE */
	"url_not_allowed",		/* ROOM_TMPL_URL */
	"markup_not_allowed",		/* ROOM_TMPL_MARKUP */
};

/*
 * Elements a template may use: text, lists, tables, images, sections.
 * Nothing that runs, loads a document, takes input or changes how the
 * parser reads what follows (raw text, foreign content, template).
 */
static const char *const elements[] = {
	"a", "abbr", "address", "article", "aside", "b", "bdi", "bdo",
	"blockquote", "br", "caption", "cite", "code", "col", "colgroup",
	"data", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
	"figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5",
	"h6", "header", "hgroup", "hr", "i", "img", "ins", "kbd", "li",
	"mark", "meter", "nav", "ol", "p", "pre", "progress", "q", "rp",
	"rt", "ruby", "s", "samp", "section", "small", "span", "strong",
	"sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
	"thead", "time", "tr", "u", "ul", "var", "wbr",
};

/* Attributes a template may use, besides aria-* and data-*. */
static const char *const attributes[] = {
	"abbr", "alt", "cite", "class", "colspan", "datetime", "decoding",
	"dir", "headers", "height", "hidden", "high", "href", "hreflang",
	"id", "lang", "loading", "low", "max", "min", "open", "optimum",
	"rel", "reversed", "role", "rowspan", "scope", "span", "src",
	"start", "target", "title", "translate", "type", "value", "width",
};

/* Attributes holding a URL: no variables, only some schemes. */
static const char *const url_attributes[] = { "href", "src", "cite" };

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The walk's state. */
struct walk {
	const char			*t, *end;
	const struct room_tmpl_sink	*sink;
	struct room_tmpl_err		*err;
};

const char *
room_tmpl_var_name(enum room_var v)
{
	return v < ROOM_VAR__MAX ? var_names[v] : "";
}

const char *
room_tmpl_code_name(enum room_tmpl_code c)
{
	return c < ROOM_TMPL__MAX ? code_names[c] : "invalid_template";
}

/* Whether the n bytes at p, in ASCII case, are one of list[0..k). */
static int
listed(const char *const *list, size_t k, const char *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < k; i++)
		if (strlen(list[i]) == n && strncasecmp(list[i], p, n) == 0)
			return 1;
	return 0;
}

/* Refuse with code c at p: "line N: " and the sentence.  Returns -1. */
static int
refuse(struct walk *w, const char *p, enum room_tmpl_code c,
    const char *fmt, ...)
{
	va_list		 ap;
	const char	*q;
	int		 line = 1, k;

	for (q = w->t; q < p && q < w->end; q++)
		line += *q == '\n';
	w->err->code = c;
	w->err->line = line;
	k = snprintf(w->err->message, sizeof(w->err->message), "line %d: ",
	    line);
	if (k < 0 || (size_t)k >= sizeof(w->err->message))
		return -1;
	va_start(ap, fmt);
	vsnprintf(w->err->message + k, sizeof(w->err->message) - (size_t)k,
	    fmt, ap);
	va_end(ap);
	return -1;
}

/* Hand p[0..n) on as literal text. */
static void
lit(struct walk *w, const char *p, size_t n)
{
	if (n > 0 && w->sink != NULL && w->sink->lit != NULL)
		w->sink->lit(w->sink->arg, p, n);
}

/*
 * The variable "${name}" at p (which starts with "${", before e): its
 * number into *v and its end into *next.  Returns 0, or -1 refused.
 */
static int
variable(struct walk *w, const char *p, const char *e, enum room_var *v,
    const char **next)
{
	const char	*s = p + 2, *q = s;
	size_t		 i;

	while (q < e && ((*q >= 'a' && *q <= 'z') ||
	    (*q >= 'A' && *q <= 'Z')))
		q++;
	if (q >= e || *q != '}')
		return refuse(w, p, ROOM_TMPL_UNTERMINATED_VAR, "\"${\" "
		    "without its closing \"}\" (a variable is ${name}, name "
		    "in letters)");
	for (i = 0; i < ROOM_VAR__MAX; i++)
		if (strlen(var_names[i]) == (size_t)(q - s) &&
		    strncmp(var_names[i], s, (size_t)(q - s)) == 0)
			break;
	if (i == ROOM_VAR__MAX)
		return refuse(w, p, ROOM_TMPL_UNKNOWN_VAR, "unknown variable "
		    "${%.*s} (known: waitTime, position, number, serving, "
		    "name, eta)", (int)(q - s > 40 ? 40 : q - s), s);
	*v = (enum room_var)i;
	*next = q + 1;
	return 0;
}

/*
 * Text p[0..e) in context ctx: literal runs and the variables in it.
 * Returns 0, or -1 refused.
 */
static int
text(struct walk *w, const char *p, const char *e, enum room_ctx ctx)
{
	const char	*s;
	enum room_var	 v = ROOM_VAR_NAME;

	while (p < e) {
		s = p;
		while (s < e && !(s[0] == '$' && s + 1 < e && s[1] == '{'))
			s++;
		lit(w, p, (size_t)(s - p));
		if (s == e)
			break;
		if (variable(w, s, e, &v, &p) == -1)
			return -1;
		if (w->sink != NULL && w->sink->var != NULL)
			w->sink->var(w->sink->arg, v, ctx);
	}
	return 0;
}

/* Whether p[0..e) holds "${". */
static const char *
has_var(const char *p, const char *e)
{
	for (; p + 1 < e; p++)
		if (p[0] == '$' && p[1] == '{')
			return p;
	return NULL;
}

/* HTML's ASCII whitespace. */
static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/*
 * The URL value p[0..e) of attribute a: relative, or http:, https: or
 * mailto:.  A scheme is what comes before the first ':' ahead of any
 * '/', '?' or '#'; whatever stands there must be plain scheme letters,
 * so that a character reference or a blank can't hide one.  Returns 0,
 * or -1 refused.
 */
static int
url_value(struct walk *w, const char *a, size_t an, const char *p,
    const char *e)
{
	const char	*s;

	while (p < e && blank(*p))
		p++;
	for (s = p; s < e && *s != ':' && *s != '/' && *s != '?' &&
	    *s != '#'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '+' || *s == '-' ||
		    *s == '.' || *s == '_' || *s == '~' || *s == '%'))
			return refuse(w, s, ROOM_TMPL_URL, "%.*s: a URL may "
			    "not hold '%c' before its first '/', '?' or '#'",
			    (int)an, a, *s);
	if (s == e || *s != ':')
		return 0;
	if ((s - p == 4 && strncasecmp(p, "http", 4) == 0) ||
	    (s - p == 5 && strncasecmp(p, "https", 5) == 0) ||
	    (s - p == 6 && strncasecmp(p, "mailto", 6) == 0))
		return 0;
	return refuse(w, p, ROOM_TMPL_URL, "%.*s: only http:, https: and "
	    "mailto: URLs (or relative ones) are allowed, not %.*s:",
	    (int)an, a, (int)(s - p > 20 ? 20 : s - p), p);
}

/* Whether attribute name p[0..n) is allowed.  Returns 1 or 0. */
static int
attribute_ok(const char *p, size_t n)
{
	size_t	 i;

	if ((n > 5 && strncasecmp(p, "aria-", 5) == 0) ||
	    (n > 5 && strncasecmp(p, "data-", 5) == 0)) {
		for (i = 5; i < n; i++)
			if (!((p[i] >= 'a' && p[i] <= 'z') ||
			    (p[i] >= 'A' && p[i] <= 'Z') ||
			    (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
				return 0;
		return 1;
	}
	return listed(attributes, NELEM(attributes), p, n);
}

/* Why attribute p[0..n) is refused, as a sentence's end. */
static const char *
attribute_why(const char *p, size_t n)
{
	if (n > 2 && strncasecmp(p, "on", 2) == 0)
		return "event-handler attributes are not allowed (the page "
		    "runs no script of a template)";
	if (n == 5 && strncasecmp(p, "style", 5) == 0)
		return "inline styles are blocked by the page's "
		    "Content-Security-Policy; use the classes of "
		    "waiting-room.css";
	return "this attribute is not allowed in a template";
}

/*
 * One attribute of a start tag at *pp (not blank): name, and a value
 * when '=' follows.  *pp moves past it.  Returns 0, or -1 refused.
 */
static int
attribute(struct walk *w, const char **pp)
{
	const char	*p = *pp, *e = w->end, *n0, *v0, *v1, *bad;
	size_t		 nn;
	char		 q;
	int		 url;

	n0 = p;
	while (p < e && !blank(*p) && *p != '/' && *p != '>' &&
	    (*p != '=' || p == n0))
		p++;
	nn = (size_t)(p - n0);
	if (has_var(n0, p) != NULL)
		return refuse(w, n0, ROOM_TMPL_VAR_CONTEXT, "variables are "
		    "allowed only in text and in quoted attribute values, "
		    "not in an attribute's name");
	if (!attribute_ok(n0, nn))
		return refuse(w, n0, ROOM_TMPL_ATTRIBUTE, "attribute "
		    "\"%.*s\": %s", (int)(nn > 40 ? 40 : nn), n0,
		    attribute_why(n0, nn));
	url = listed(url_attributes, NELEM(url_attributes), n0, nn);
	lit(w, n0, nn);
	v0 = p;
	while (p < e && blank(*p))
		p++;
	if (p == e || *p != '=') {
		lit(w, v0, (size_t)(p - v0));
		*pp = p;
		return 0;
	}
	p++;
	while (p < e && blank(*p))
		p++;
	if (p < e && (*p == '"' || *p == '\'')) {
		q = *p;
		lit(w, v0, (size_t)(p + 1 - v0));
		v0 = p + 1;
		if ((v1 = memchr(v0, q, (size_t)(e - v0))) == NULL)
			return refuse(w, p, ROOM_TMPL_MARKUP, "attribute "
			    "\"%.*s\": its value's quote is never closed",
			    (int)(nn > 40 ? 40 : nn), n0);
		if (url && (bad = has_var(v0, v1)) != NULL)
			return refuse(w, bad, ROOM_TMPL_VAR_CONTEXT,
			    "variables are not allowed in a URL attribute "
			    "(%.*s)", (int)nn, n0);
		if (url && url_value(w, n0, nn, v0, v1) == -1)
			return -1;
		if (text(w, v0, v1, ROOM_CTX_ATTR) == -1)
			return -1;
		lit(w, v1, 1);
		*pp = v1 + 1;
		return 0;
	}
	v1 = p;
	while (v1 < e && !blank(*v1) && *v1 != '>')
		v1++;
	if ((bad = has_var(p, v1)) != NULL)
		return refuse(w, bad, ROOM_TMPL_VAR_CONTEXT, "a variable in "
		    "an attribute value needs quotes around the value");
	for (bad = p; bad < v1; bad++)
		if (*bad == '"' || *bad == '\'' || *bad == '<' ||
		    *bad == '=' || *bad == '`')
			return refuse(w, bad, ROOM_TMPL_MARKUP, "attribute "
			    "\"%.*s\": an unquoted value may not hold '%c'",
			    (int)(nn > 40 ? 40 : nn), n0, *bad);
	if (url && url_value(w, n0, nn, p, v1) == -1)
		return -1;
	lit(w, v0, (size_t)(v1 - v0));
	*pp = v1;
	return 0;
}

/*
 * The tag at p ('<' then a letter, or "</" then a letter): its name,
 * its attributes, its end.  Returns the byte after it, or NULL refused.
 */
static const char *
tag(struct walk *w, const char *p)
{
	const char	*s = p + 1, *e = w->end, *n0;
	int		 end = 0;

	if (*s == '/') {
		end = 1;
		s++;
	}
	n0 = s;
	while (s < e && !blank(*s) && *s != '/' && *s != '>')
		s++;
	if (has_var(n0, s) != NULL) {
		refuse(w, n0, ROOM_TMPL_VAR_CONTEXT, "variables are allowed "
		    "only in text and in quoted attribute values, not in a "
		    "tag's name");
		return NULL;
	}
	if (!listed(elements, NELEM(elements), n0, (size_t)(s - n0))) {
		refuse(w, p, ROOM_TMPL_ELEMENT, "element <%.*s> is not "
		    "allowed in a template (no scripts, styles, frames, "
		    "forms or document parts: the page brings its own)",
		    (int)(s - n0 > 40 ? 40 : s - n0), n0);
		return NULL;
	}
	lit(w, p, (size_t)(s - p));
	for (;;) {
		n0 = s;
		while (s < e && blank(*s))
			s++;
		if (s < e && *s == '/' && s + 1 < e && s[1] == '>' && !end) {
			lit(w, n0, (size_t)(s + 2 - n0));
			return s + 2;
		}
		if (s < e && *s == '>') {
			lit(w, n0, (size_t)(s + 1 - n0));
			return s + 1;
		}
		if (s == e) {
			refuse(w, p, ROOM_TMPL_MARKUP, "a tag is never closed "
			    "with '>'");
			return NULL;
		}
		if (end || *s == '/' || s == n0) {
			refuse(w, s, ROOM_TMPL_MARKUP, "a tag's attributes "
			    "must stand apart, and an end tag has none");
			return NULL;
		}
		lit(w, n0, (size_t)(s - n0));
		if (attribute(w, &s) == -1)
			return NULL;
	}
}

/*
 * The comment at p ("<!--"): passed on as it is, when the HTML parser
 * ends it where "-->" is (no "--" inside, no "<!-->" or "<!--->"), and
 * it holds no variable.  Returns the byte after it, or NULL refused.
 */
static const char *
comment(struct walk *w, const char *p)
{
	const char	*s = p + 4, *e = w->end, *c;

	if (s < e && (*s == '>' || (*s == '-' && s + 1 < e &&
	    s[1] == '>'))) {
		refuse(w, p, ROOM_TMPL_MARKUP, "a comment must not start "
		    "with '>' or '->'");
		return NULL;
	}
	for (c = s; c + 1 < e && !(c[0] == '-' && c[1] == '-'); c++)
		continue;
	if (c + 2 >= e || c[2] != '>') {
		refuse(w, p, ROOM_TMPL_MARKUP, "a comment must end at its "
		    "first \"--\", with \"-->\"");
		return NULL;
	}
	if (has_var(s, c) != NULL) {
		refuse(w, has_var(s, c), ROOM_TMPL_VAR_CONTEXT, "variables "
		    "are not allowed in comments");
		return NULL;
	}
	lit(w, p, (size_t)(c + 3 - p));
	return c + 3;
}

/* Whether c is an ASCII letter. */
static int
letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int
room_tmpl_walk(const char *t, size_t len, const struct room_tmpl_sink *sink,
    struct room_tmpl_err *err)
{
	struct walk	 w = { t, t + len, sink, err };
	const char	*p = t, *s, *e = t + len;

	memset(err, 0, sizeof(*err));
	if (len > ROOM_TMPL_MAX)
		return refuse(&w, t, ROOM_TMPL_TOO_LARGE, "the template has "
		    "%zu bytes; at most %d are allowed", len, ROOM_TMPL_MAX);
	if ((s = memchr(t, '\0', len)) != NULL)
		return refuse(&w, s, ROOM_TMPL_ENCODING, "a NUL byte");
	if (utf8_chars(t, len) < 0)
		return refuse(&w, t, ROOM_TMPL_ENCODING, "the template is "
		    "not well-formed UTF-8");
	while (p < e) {
		for (s = p; s < e && *s != '<'; s++)
			continue;
		if (text(&w, p, s, ROOM_CTX_TEXT) == -1)
			return -1;
		if (s == e)
			break;
		if (s + 1 < e && letter(s[1]))
			p = tag(&w, s);
		else if (s + 2 < e && s[1] == '/' && letter(s[2]))
			p = tag(&w, s);
		else if (e - s >= 4 && strncmp(s, "<!--", 4) == 0)
			p = comment(&w, s);
		else if (s + 1 < e && (s[1] == '!' || s[1] == '?' ||
		    s[1] == '/')) {
			refuse(&w, s, ROOM_TMPL_MARKUP, "declarations "
			    "(<!doctype>), processing instructions and \"</\" "
			    "without a tag name are not allowed: a template "
			    "is the page's content only");
			p = NULL;
		} else if (s + 1 < e && s[1] == '$') {
			/* A value could make it a tag ("<" "script"). */
			refuse(&w, s, ROOM_TMPL_VAR_CONTEXT, "a variable right "
			    "after '<' is not allowed; write &lt; there");
			p = NULL;
		} else {
			/* A '<' that opens nothing is text. */
			lit(&w, s, 1);
			p = s + 1;
		}
		if (p == NULL)
			return -1;
	}
	return 0;
}
