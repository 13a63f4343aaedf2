/*
 * test-room-tmpl.c - a queue's custom waiting-room template: every
 * refusal of room-tmpl.h with its code and exact line, and the filling
 * of custom-room.c, each variable once, escaped for its context (CASES
 * C51).  Promise at stake: the visitor's page never runs what a queue's
 * name or an operator's template would smuggle in (a stored template is
 * refused at upload, with nothing stored, rather than half-escaped).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "extern.h"
#include "room-tmpl.h"
#include "tap.h"

/* Check t: the code and line of its refusal (code OK: accepted). */
static void
refused(const char *t, enum room_tmpl_code code, int line, const char *what)
{
	struct room_tmpl_err	 err;
	int			 rc;

	rc = room_tmpl_walk(t, strlen(t), NULL, &err);
	is_int(rc, code == ROOM_TMPL_OK ? 0 : -1, "%s: %s", what,
	    code == ROOM_TMPL_OK ? "accepted" : "refused");
	is_str(room_tmpl_code_name(err.code), room_tmpl_code_name(code),
	    "%s: reason %s", what, room_tmpl_code_name(code));
	is_int(err.line, code == ROOM_TMPL_OK ? 0 : line, "%s: line %d",
	    what, line);
}

/* Fill t with name and the live flag; the page's text or NULL. */
static char *
fill(const char *t, const char *name, int live)
{
	struct custom_vals	 cv;
	struct room_tmpl_err	 err;
	struct buf		 b = { NULL, 0, 0 };
	char			*s;

	memset(&cv, 0, sizeof(cv));
	cv.v[ROOM_VAR_NAME] = name;
	cv.v[ROOM_VAR_SERVING] = "5";
	cv.v[ROOM_VAR_NUMBER] = "7";
	cv.v[ROOM_VAR_POSITION] = "3";
	cv.v[ROOM_VAR_WAIT_TIME] = "2 min";
	cv.live = live;
	if (custom_room_render(&b, t, strlen(t), &cv, &err) == -1) {
		buf_free(&b);
		return NULL;
	}
	buf_add(&b, "", 1);
	s = strdup(b.p);
	buf_free(&b);
	return s;
}

static void
is_filled(const char *t, const char *name, int live, const char *want,
    const char *what)
{
	char	*got = fill(t, name, live);

	is_str(got, want, "%s", what);
	free(got);
}

/* A template of n bytes: "<p>", fill bytes of unit (repeated), "</p>". */
static char *
sized(size_t n, const char *unit)
{
	char	*t = malloc(n + 1);
	size_t	 u = strlen(unit), i = 3;

	memcpy(t, "<p>", 3);
	while (i + u <= n - 4) {
		memcpy(t + i, unit, u);
		i += u;
	}
	while (i < n - 4)
		t[i++] = 'a';
	memcpy(t + i, "</p>", 4);
	t[n] = '\0';
	return t;
}

static void
sizes(void)
{
	struct room_tmpl_err	 err;
	char			*t;

	t = sized(ROOM_TMPL_MAX, "a");
	is_int(room_tmpl_walk(t, strlen(t), NULL, &err), 0,
	    "51200 bytes: accepted");
	free(t);
	t = sized(ROOM_TMPL_MAX + 1, "a");
	is_int(room_tmpl_walk(t, strlen(t), NULL, &err), -1,
	    "51201 bytes: refused");
	is_int(err.code, ROOM_TMPL_TOO_LARGE, "51201 bytes: too large");
	free(t);
	/* 17064 characters of three bytes and 9 of one: 51201 bytes. */
	t = sized(ROOM_TMPL_MAX + 1, "\xe2\x82\xac");
	is_int(strlen(t), 51201, "euro signs: 51201 bytes");
	is_int(room_tmpl_walk(t, strlen(t), NULL, &err), -1,
	    "51201 bytes in three-byte characters: refused (bytes count)");
	free(t);
	t = sized(ROOM_TMPL_MAX, "\xe2\x82\xac");
	is_int(utf8_chars(t, strlen(t)) < ROOM_TMPL_MAX / 2, 1,
	    "euro signs: far fewer characters than bytes");
	is_int(room_tmpl_walk(t, strlen(t), NULL, &err), 0,
	    "51200 bytes in three-byte characters: accepted");
	free(t);
}

int
main(void)
{
	/* Accepted. */
	refused("<h1>${name}</h1>\n<p class=\"x\" title='${number}'>"
	    "${position} ${waitTime} ${eta} ${serving}</p>", ROOM_TMPL_OK,
	    0, "all six variables");
	refused("<a href=\"https://shop.example/a?b=1&c=2\">x</a> "
	    "<a href=\"/faq#wait\">y</a> <a href=\"mailto:a@b.example\">z"
	    "</a> <img src=\"/static/logo.png\" alt=\"\">", ROOM_TMPL_OK, 0,
	    "http(s), mailto and relative URLs");
	refused("<!-- note --><p>a < b, 3 > 2, $5 and $ {x}</p><br/>"
	    "<table><tr><td data-x=\"1\" aria-label=\"y\">1</td></tr>"
	    "</table>", ROOM_TMPL_OK, 0, "comments, stray < and $, tables");
	/* Variables. */
	refused("<p>\n\n${foo}</p>", ROOM_TMPL_UNKNOWN_VAR, 3,
	    "unknown ${foo}");
	refused("<p>\n${waitTime</p>", ROOM_TMPL_UNTERMINATED_VAR, 2,
	    "unterminated ${waitTime");
	refused("<p>${ name}</p>", ROOM_TMPL_UNTERMINATED_VAR, 1,
	    "${ name} with a blank");
	refused("<p title=${name}>", ROOM_TMPL_VAR_CONTEXT, 1,
	    "variable in an unquoted value");
	refused("<p>\r\n<a href=\"${name}\">x</a>", ROOM_TMPL_VAR_CONTEXT, 2,
	    "variable in href (CRLF lines)");
	refused("<img src=\"/x/${number}.png\">", ROOM_TMPL_VAR_CONTEXT, 1,
	    "variable in src");
	refused("<p ${name}=\"1\">", ROOM_TMPL_VAR_CONTEXT, 1,
	    "variable as an attribute's name");
	refused("<${name}>", ROOM_TMPL_VAR_CONTEXT, 1,
	    "variable right after <");
	refused("<!-- ${name} -->", ROOM_TMPL_VAR_CONTEXT, 1,
	    "variable in a comment");
	/* Scripts and what loads or runs. */
	refused("<p>a</p>\n<script>var n=\"${name}\";</script>",
	    ROOM_TMPL_ELEMENT, 2, "script with a variable");
	refused("<p>\n</p>\n\n<SCRIPT src=\"/x.js\"></SCRIPT>",
	    ROOM_TMPL_ELEMENT, 4, "SCRIPT in capitals");
	refused("<style>p{}</style>", ROOM_TMPL_ELEMENT, 1, "style");
	refused("<iframe src=\"https://a.example/\"></iframe>",
	    ROOM_TMPL_ELEMENT, 1, "iframe");
	refused("<object data=\"x\"></object>", ROOM_TMPL_ELEMENT, 1,
	    "object");
	refused("<embed src=\"x\">", ROOM_TMPL_ELEMENT, 1, "embed");
	refused("<base href=\"https://evil.example/\">", ROOM_TMPL_ELEMENT, 1,
	    "base");
	refused("<meta http-equiv=\"refresh\" content=\"0;url=x\">",
	    ROOM_TMPL_ELEMENT, 1, "meta refresh");
	refused("<svg><script>x</script></svg>", ROOM_TMPL_ELEMENT, 1,
	    "svg");
	refused("<form action=\"https://a.example/\"></form>",
	    ROOM_TMPL_ELEMENT, 1, "form");
	refused("<p>\n</main>", ROOM_TMPL_ELEMENT, 2, "closing main");
	refused("<img src=x onerror=alert(1)>", ROOM_TMPL_ATTRIBUTE, 1,
	    "onerror");
	refused("<p\nonclick=\"x\">", ROOM_TMPL_ATTRIBUTE, 2, "onclick");
	refused("<p style=\"color:red\">", ROOM_TMPL_ATTRIBUTE, 1, "style=");
	refused("<img srcset=\"a.png 2x\">", ROOM_TMPL_ATTRIBUTE, 1, "srcset");
	refused("<a href=\"javascript:alert(1)\">x</a>", ROOM_TMPL_URL, 1,
	    "javascript: URL");
	refused("<a href=\" JaVaScRiPt:alert(1)\">x</a>", ROOM_TMPL_URL, 1,
	    "javascript: URL in mixed case after a blank");
	refused("<a href=\"jav&#x61;script:alert(1)\">x</a>", ROOM_TMPL_URL,
	    1, "javascript: URL behind a character reference");
	refused("<a href=\"java\tscript:alert(1)\">x</a>", ROOM_TMPL_URL, 1,
	    "javascript: URL with a tab inside");
	refused("<a href=javascript:alert(1)>x</a>", ROOM_TMPL_URL, 1,
	    "unquoted javascript: URL");
	refused("<img src=\"data:image/png;base64,AAAA\">", ROOM_TMPL_URL, 1,
	    "data: URL");
	/* Markup the parser could read otherwise. */
	refused("<!doctype html><p>x</p>", ROOM_TMPL_MARKUP, 1, "doctype");
	refused("<?xml version=\"1.0\"?>", ROOM_TMPL_MARKUP, 1, "<?");
	refused("<!-- a --!><p>b</p> -->", ROOM_TMPL_MARKUP, 1,
	    "comment ended by --!>");
	refused("<!--><p>x</p>", ROOM_TMPL_MARKUP, 1, "<!-->");
	refused("<p>\n<p title=\"x>", ROOM_TMPL_MARKUP, 2,
	    "quote never closed");
	refused("<p\n", ROOM_TMPL_MARKUP, 1, "tag never closed");
	refused("<p title=\"a\"class=\"b\">", ROOM_TMPL_MARKUP, 1,
	    "attributes not apart");
	refused("</ p>", ROOM_TMPL_MARKUP, 1, "</ without a name");
	refused("<p>\xff</p>", ROOM_TMPL_ENCODING, 1, "not UTF-8");
	{
		struct room_tmpl_err	 err;

		is_int(room_tmpl_walk("<p>\n\0</p>", 9, NULL, &err), -1,
		    "NUL byte: refused");
		is_int(err.line, 2, "NUL byte: line 2");
	}
	sizes();

	/* Filling: single pass, each variable escaped for its context. */
	is_filled("<h1>${name}</h1><p>${serving}</p>",
	    "${serving} & <b>x</b>", 0,
	    "<h1>${serving} &amp; &lt;b&gt;x&lt;/b&gt;</h1><p>5</p>",
	    "C51 input 1: the value is not expanded again, and escaped");
	is_filled("${name}${name}", "${name}", 0, "${name}${name}",
	    "each variable once");
	is_filled("<p>${name}</p>", "<img src=x onerror=alert(1)>", 0,
	    "<p>&lt;img src=x onerror=alert(1)&gt;</p>",
	    "a hostile name in text");
	is_filled("<p title=\"${name}\" lang='${name}'>x</p>",
	    "\"'><script>alert(1)</script>", 0,
	    "<p title=\"&quot;&#x27;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
	    "\" lang='&quot;&#x27;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'"
	    ">x</p>", "a hostile name in quoted attributes");
	is_filled("<p>${number} ${position} ${waitTime} ${eta} ${serving} "
	    "${name}</p>", "Sale", 1,
	    "<p><span data-aq-live=\"number\">7</span> "
	    "<span data-aq-live=\"position\">3</span> "
	    "<span data-aq-live=\"wait\">2 min</span> "
	    "<span data-aq-live=\"entry\">\u2013</span> "
	    "<span data-aq-live=\"serving\">5</span> Sale</p>",
	    "live figures in spans the page's script updates");
	is_filled("<p data-n=\"${number}\">${name}</p>", "S", 1,
	    "<p data-n=\"7\">S</p>", "in an attribute: the value, no span");
	is_filled("<P CLASS=x>a&amp;b</P><!-- c --><br/>", "S", 0,
	    "<P CLASS=x>a&amp;b</P><!-- c --><br/>", "markup copied as it is");
	ok(fill("<script>x</script>", "S", 0) == NULL,
	    "a refused template fills nothing");
	return done_testing();
}
