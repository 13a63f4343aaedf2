/*
 * html.c - HTML output, escaped by a writer named for its context.
 */
#include "config.h"

#include <string.h>

#include "extern.h"

void
html_raw(struct buf *b, const char *s)
{
	buf_puts(b, s);
}

/*
 * Write s escaping the characters in set: & < > always, plus " and '
 * for attributes.
 */
static void
escape(struct buf *b, const char *s, int attr)
{
	const char	*p;

	for (p = s; *p != '\0'; p++) {
		switch (*p) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '"':
			if (attr) {
				buf_puts(b, "&quot;");
				break;
			}
			buf_add(b, p, 1);
			break;
		case '\'':
			if (attr) {
				buf_puts(b, "&#x27;");
				break;
			}
			buf_add(b, p, 1);
			break;
		default:
			buf_add(b, p, 1);
		}
	}
}

void
html_text(struct buf *b, const char *s)
{
	escape(b, s, 0);
}

void
html_attr(struct buf *b, const char *s)
{
	escape(b, s, 1);
}

void
html_text_auto(struct buf *b, const char *s)
{
	html_raw(b, "<span dir=\"auto\">");
	escape(b, s, 0);
	html_raw(b, "</span>");
}

/*
 * Append s to b percent-encoded: unreserved characters (RFC 3986
 * section 2.3) and those in keep stay as they are, every other byte
 * becomes %XX.
 */
static void
url_escape(struct buf *b, const char *s, const char *keep)
{
	static const char	 hex[] = "0123456789ABCDEF";
	const unsigned char	*p;
	char			 enc[3];

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		    *p == '.' || *p == '~' || strchr(keep, *p) != NULL)
			buf_add(b, p, 1);
		else {
			enc[0] = '%';
			enc[1] = hex[*p >> 4];
			enc[2] = hex[*p & 15];
			buf_add(b, enc, 3);
		}
	}
}

void
html_url_arg(struct buf *b, const char *s)
{
	url_escape(b, s, "");
}

void
html_query_value(struct buf *b, const char *s)
{
	url_escape(b, s, "/?:@!$()*,");
}
