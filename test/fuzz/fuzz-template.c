/*
 * fuzz-template.c - template rendering (tmpl.c) through the escaping
 * writers (html.c): a template with holes before the first NUL byte of
 * the input, values after it.  Whatever the values, what they add to
 * the page holds no markup: the output of a fixed template filled with
 * them has exactly the template's own '<' (4), and after the text
 * (where quotes need no escaping) its own '"' (4) and '\'' (1).
 */
#include "config.h"

#include "extern.h"
#include "fuzz.h"
#include "tmpl.c"

static const char *const keys[] = { "text", "attr", "url", "query" };

struct vals {
	const char	*v;
};

static void
fill(struct buf *out, size_t k, void *arg)
{
	const struct vals	*a = arg;

	switch (k) {
	case 0:
		html_text(out, a->v);
		break;
	case 1:
		html_attr(out, a->v);
		break;
	case 2:
		html_url_arg(out, a->v);
		break;
	default:
		html_query_value(out, a->v);
		break;
	}
}

/* How many of c there are in p[0..n). */
static size_t
count(const char *p, size_t n, char c)
{
	size_t	 i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == c;
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char	 fixed[] = "<p>@@text@@</p>"
	    "<a title=\"@@attr@@\" href=\"/x?y=@@url@@&z=@@query@@\">'</a>";
	struct tmpl		 t;
	struct buf		 out = { NULL, 0, 0 };
	struct vals		 a;
	char			*s = fuzz_str(data, size), *v;
	const char		*rest;

	fuzz_split(s, size, &v);
	a.v = v;
	t.text = s;
	t.len = strlen(s);
	tmpl_render(&out, &t, keys, 4, fill, &a);
	buf_free(&out);
	t.text = (char *)(uintptr_t)fixed;
	t.len = sizeof(fixed) - 1;
	tmpl_render(&out, &t, keys, 4, fill, &a);
	if (out.len > 0) {
		if (count(out.p, out.len, '<') != 4)
			abort();
		rest = memmem(out.p, out.len, "</p>", 4);
		if (rest == NULL)
			abort();
		if (count(rest, out.len - (rest - out.p), '"') != 4 ||
		    count(rest, out.len - (rest - out.p), '\'') != 1)
			abort();
	}
	buf_free(&out);
	free(s);
	return 0;
}
