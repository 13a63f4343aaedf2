/*
 * tmpl.c - templates: plain files with named holes "@@key@@", read into
 * memory at start-up (and again on a reload) as a registry of named
 * templates, and filled through the escaping writers.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "extern.h"
#include "log.h"

#define TMPL_MAX	(256 * 1024)

struct tmpl {
	char	*text;
	size_t	 len;
};

struct tmpl_set {
	char		**names;
	struct tmpl	**tmpls;
	size_t		  n;
};

struct tmpl *
tmpl_load(const char *dir, const char *name)
{
	struct tmpl	*t;
	char		*path;
	FILE		*f;
	long		 n;

	path = xasprintf("%s/%s", dir, name);
	if ((f = fopen(path, "r")) == NULL) {
		log_warn("%s", path);
		free(path);
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    n > TMPL_MAX || fseek(f, 0, SEEK_SET) != 0) {
		log_warnx("%s: unreadable or larger than %d bytes", path,
		    TMPL_MAX);
		fclose(f);
		free(path);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->text = xmalloc((size_t)n + 1);
	t->len = fread(t->text, 1, (size_t)n, f);
	t->text[t->len] = '\0';
	fclose(f);
	free(path);
	return t;
}

void
tmpl_free(struct tmpl *t)
{
	if (t == NULL)
		return;
	free(t->text);
	free(t);
}

void
tmpl_render(struct buf *out, const struct tmpl *t, const char *const *keys,
    size_t n, void (*cb)(struct buf *, size_t, void *), void *arg)
{
	const char	*p = t->text, *end = t->text + t->len, *s, *e;
	size_t		 i, klen;

	while (p < end) {
		if ((s = strstr(p, "@@")) == NULL ||
		    (e = strstr(s + 2, "@@")) == NULL) {
			buf_add(out, p, (size_t)(end - p));
			return;
		}
		klen = (size_t)(e - s - 2);
		for (i = 0; i < n; i++)
			if (strlen(keys[i]) == klen &&
			    strncmp(s + 2, keys[i], klen) == 0)
				break;
		if (i == n) {
			/* Not a hole of ours: write "@@" and go on. */
			buf_add(out, p, (size_t)(s + 2 - p));
			p = s + 2;
			continue;
		}
		buf_add(out, p, (size_t)(s - p));
		cb(out, i, arg);
		p = e + 2;
	}
}

struct tmpl_set *
tmpl_set_load(const char *dir, const char *const *names, size_t n)
{
	struct tmpl_set	*ts;
	size_t		 i;

	ts = xcalloc(1, sizeof(*ts));
	ts->names = xcalloc(n, sizeof(*ts->names));
	ts->tmpls = xcalloc(n, sizeof(*ts->tmpls));
	ts->n = n;
	for (i = 0; i < n; i++) {
		ts->names[i] = xstrdup(names[i]);
		if ((ts->tmpls[i] = tmpl_load(dir, names[i])) == NULL) {
			tmpl_set_free(ts);
			return NULL;
		}
	}
	return ts;
}

void
tmpl_set_free(struct tmpl_set *ts)
{
	size_t	 i;

	if (ts == NULL)
		return;
	for (i = 0; i < ts->n; i++) {
		free(ts->names[i]);
		tmpl_free(ts->tmpls[i]);
	}
	free(ts->names);
	free(ts->tmpls);
	free(ts);
}

const struct tmpl *
tmpl_set_get(const struct tmpl_set *ts, const char *name)
{
	size_t	 i;

	if (ts == NULL)
		return NULL;
	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->names[i], name) == 0)
			return ts->tmpls[i];
	return NULL;
}
