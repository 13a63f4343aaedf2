/*
 * tmpl.c - templates: plain files with named holes "@@key@@", read into
 * memory at start-up (and again on a reload) as the set the pages use
 * (enum tmpl_id), and filled through the escaping writers.
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
	struct tmpl	*tmpls[TMPL__MAX];
};

/* The files of enum tmpl_id, under templates-dir. */
static const char *const tmpl_files[TMPL__MAX] = {
	"waiting-room.html",	/* TMPL_ROOM */
	"unavailable.html",	/* TMPL_UNAVAILABLE */
	"unknown.html",		/* TMPL_UNKNOWN */
	"embed.js",		/* TMPL_EMBED */
	"admin.html",		/* TMPL_ADMIN */
	"custom-room.html",	/* TMPL_CUSTOM */
};

/* The set in use (tmpl_set_use()). */
static struct tmpl_set	*cur;

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
tmpl_set_load(const char *dir)
{
	struct tmpl_set	*ts;
	size_t		 i;

	ts = xcalloc(1, sizeof(*ts));
	for (i = 0; i < TMPL__MAX; i++)
		if ((ts->tmpls[i] = tmpl_load(dir, tmpl_files[i])) == NULL) {
			tmpl_set_free(ts);
			return NULL;
		}
	return ts;
}

void
tmpl_set_free(struct tmpl_set *ts)
{
	size_t	 i;

	if (ts == NULL)
		return;
	for (i = 0; i < TMPL__MAX; i++)
		tmpl_free(ts->tmpls[i]);
	free(ts);
}

void
tmpl_set_use(struct tmpl_set *ts)
{
	tmpl_set_free(cur);
	cur = ts;
}

const struct tmpl *
tmpl_get(enum tmpl_id id)
{
	if (cur == NULL || id >= TMPL__MAX)
		return NULL;
	return cur->tmpls[id];
}
