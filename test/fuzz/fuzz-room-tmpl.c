/*
 * fuzz-room-tmpl.c - a queue's custom template (room-tmpl.c) and its
 * filling (custom-room.c): the template is the input before its first
 * NUL byte, every variable's value what follows.  Whatever they are:
 * the check is the same twice; a refusal names a line within the
 * template; an accepted template filled with those values has as many
 * '<' and '>' as filled with "x" (a value adds no markup), as many
 * quotes when every variable stands in an attribute value, and never
 * a value's "${" read again (the filled page has no more "${" than the
 * template's variables and the values bring).
 */
#include "config.h"

#include <strings.h>

#include "extern.h"
#include "fuzz.h"
#include "room-tmpl.h"

/* How many of c there are in b. */
static size_t
count(const struct buf *b, char c)
{
	size_t	 i, k = 0;

	for (i = 0; i < b->len; i++)
		k += b->p[i] == c;
	return k;
}

/* How many times s occurs in p[0..n), in ASCII case. */
static size_t
occurs(const char *p, size_t n, const char *s)
{
	size_t	 i, k = 0, m = strlen(s);

	for (i = 0; i + m <= n; i++)
		k += strncasecmp(p + i, s, m) == 0;
	return k;
}

/* The contexts of the variables of a walk. */
static size_t	 ctx[2];

static void
ctx_var(void *arg, enum room_var v, enum room_ctx c)
{
	(void)arg;
	(void)v;
	ctx[c == ROOM_CTX_ATTR]++;
}

/* Fill t with every value v (live as given) into out. */
static int
fill(struct buf *out, const char *t, size_t len, const char *v, int live)
{
	struct custom_vals	 cv;
	struct room_tmpl_err	 err;
	size_t			 i;

	cv.live = live;
	for (i = 0; i < ROOM_VAR__MAX; i++)
		cv.v[i] = v;
	return custom_room_render(out, t, len, &cv, &err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct room_tmpl_err	 e1, e2;
	struct buf		 a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
	char			*s = fuzz_str(data, size), *v;
	size_t			 len, i, n;
	int			 r1, r2, lines = 1, live;
	struct room_tmpl_sink	 sink = { NULL, ctx_var, NULL };

	ctx[0] = ctx[1] = 0;
	fuzz_split(s, size, &v);
	len = strlen(s);
	for (i = 0; i < len; i++)
		lines += s[i] == '\n';
	r1 = room_tmpl_walk(s, len, NULL, &e1);
	r2 = room_tmpl_walk(s, len, NULL, &e2);
	if (r1 != r2 || e1.code != e2.code || e1.line != e2.line)
		abort();
	if (r1 == -1) {
		if (e1.code == ROOM_TMPL_OK || e1.line < 1 ||
		    e1.line > lines)
			abort();
		free(s);
		return 0;
	}
	live = len > 0 && (s[0] & 1);
	if (fill(&a, s, len, v, live) != 0 ||
	    fill(&b, s, len, "x", live) != 0)
		abort();
	if (count(&a, '<') != count(&b, '<') ||
	    count(&a, '>') != count(&b, '>'))
		abort();
	/* Quotes: a value in an attribute adds none (html_attr). */
	if (room_tmpl_walk(s, len, &sink, &e1) != 0)
		abort();
	if (ctx[ROOM_CTX_TEXT] == 0 && (count(&a, '"') != count(&b, '"') ||
	    count(&a, '\'') != count(&b, '\'')))
		abort();
	n = occurs(s, len, "${");
	if (occurs(a.p, a.len, "${") > occurs(v, strlen(v), "${") * n + 2 * n)
		abort();
	buf_free(&a);
	buf_free(&b);
	free(s);
	return 0;
}
