/*
 * lang.c - language negotiation for the waiting room and its texts, read
 * from message catalogs (templates/lang/<code>.txt) that translators edit
 * without touching C.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aqueue.h"
#include "lang.h"
#include "log.h"

#define ACCEPT_MAX	8192	/* bytes of the header looked at */

static const char *const codes[LANG__MAX] = {
	"en",	/* LANG_EN */
	"de",	/* LANG_DE */
	"es",	/* LANG_ES */
	"it",	/* LANG_IT */
	"ar",	/* LANG_AR */
	"zh",	/* LANG_ZH */
};

static const char *const dirs[LANG__MAX] = {
	"ltr", "ltr", "ltr", "ltr",
	"rtl",	/* LANG_AR */
	"ltr",
};

/* The catalogs' keys, by enum msg. */
static const char *const names[MSG__MAX] = {
	"room", "taking", "your_number", "serving", "ahead", "wait",
	"progress", "note", "noscript", "queued", "paused", "paused_join",
	"turn", "admitted", "busy", "trouble", "lang_name", "note_kept",
	"note_none", "unavail_title", "unavail", "entry", "updated",
	"languages", "back", "minutes", "minute_less", "unknown_title",
	"unknown", "minute_one", "unknown_named", "pow_working",
	"pow_insecure", "pow_failed", "noscript_pow", "opens", "hold",
	"full", "cap", "second_one",
};

#define CATALOG_LINE_MAX	1024

/* The texts read by lang_load(); NULL: not in that catalog. */
static char	*msgs[LANG__MAX][MSG__MAX];

static void
catalog_free(char *(*m)[MSG__MAX])
{
	size_t	 l, i;

	for (l = 0; l < LANG__MAX; l++)
		for (i = 0; i < MSG__MAX; i++) {
			free(m[l][i]);
			m[l][i] = NULL;
		}
}

/*
 * Read catalog path into out[MSG__MAX].  Returns 0, 1 when the file does
 * not exist, or -1 (logged) on a malformed line or an unknown key.
 */
static int
catalog_read(const char *path, char **out)
{
	FILE	*f;
	char	 line[CATALOG_LINE_MAX + 2], *k, *v, *eq;
	size_t	 n, i, lineno = 0;
	int	 rc = 0;

	if ((f = fopen(path, "r")) == NULL)
		return 1;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		n = strlen(line);
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		else if (!feof(f)) {
			log_warnx("%s:%zu: line too long", path, lineno);
			rc = -1;
			break;
		}
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		k = line + strspn(line, " \t");
		if (*k == '\0' || *k == '#')
			continue;
		if ((eq = strchr(k, '=')) == NULL) {
			log_warnx("%s:%zu: no '='", path, lineno);
			rc = -1;
			break;
		}
		v = eq + 1 + strspn(eq + 1, " \t");
		while (eq > k && (eq[-1] == ' ' || eq[-1] == '\t'))
			eq--;
		*eq = '\0';
		for (i = 0; i < MSG__MAX; i++)
			if (strcmp(k, names[i]) == 0)
				break;
		if (i == MSG__MAX) {
			log_warnx("%s:%zu: unknown key \"%s\"", path, lineno,
			    k);
			rc = -1;
			break;
		}
		free(out[i]);
		out[i] = xstrdup(v);
	}
	fclose(f);
	return rc;
}

int
lang_load(const char *dir)
{
	char	*loaded[LANG__MAX][MSG__MAX];
	char	*path;
	size_t	 l, i;
	int	 rc = 0, r;

	memset(loaded, 0, sizeof(loaded));
	for (l = 0; l < LANG__MAX && rc == 0; l++) {
		path = xasprintf("%s/lang/%s.txt", dir, codes[l]);
		r = catalog_read(path, loaded[l]);
		if (r == 1 && l == LANG_EN) {
			log_warnx("%s: missing", path);
			rc = -1;
		} else if (r == -1)
			rc = -1;
		free(path);
	}
	if (rc == -1) {
		catalog_free(loaded);
		return -1;
	}
	catalog_free(msgs);
	for (l = 0; l < LANG__MAX; l++)
		for (i = 0; i < MSG__MAX; i++)
			msgs[l][i] = loaded[l][i];
	return 0;
}

const char *
lang_msg_name(enum msg m)
{
	return m < MSG__MAX ? names[m] : "";
}

const char *
lang_dir(enum lang l)
{
	return dirs[l < LANG__MAX ? l : LANG_EN];
}

const char *
lang_code(enum lang l)
{
	return codes[l < LANG__MAX ? l : LANG_EN];
}

const char *
lang_msg(enum lang l, enum msg m)
{
	if (l >= LANG__MAX)
		l = LANG_EN;
	if (m >= MSG__MAX)
		return "";
	if (msgs[l][m] != NULL)
		return msgs[l][m];
	return msgs[LANG_EN][m] != NULL ? msgs[LANG_EN][m] : "";
}

int
lang_parse(const char *code, enum lang *out)
{
	size_t	 i;

	if (code == NULL)
		return -1;
	for (i = 0; i < LANG__MAX; i++)
		if (strcmp(code, codes[i]) == 0) {
			*out = (enum lang)i;
			return 0;
		}
	return -1;
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_alnum(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/*
 * Whether s[0..n) is a language range: "*", or subtags of 1-8 characters
 * joined by '-', the first alphabetic, the others alphanumeric.
 */
static int
tag_valid(const char *s, size_t n)
{
	size_t	 i, run = 0, sub = 0;

	if (n == 1 && s[0] == '*')
		return 1;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '-') {
			if (run == 0)
				return 0;
			run = 0;
			sub++;
			continue;
		}
		if (sub == 0 ? !is_alpha((unsigned char)s[i]) :
		    !is_alnum((unsigned char)s[i]))
			return 0;
		if (++run > 8)
			return 0;
	}
	return run > 0;
}

/*
 * Parse a weight "q=V" from s[0..n) (already trimmed): V is "0", "1",
 * "0." or "1." followed by up to three digits (the 1 form only zeros).
 * Returns the weight in thousandths (0..1000), or -1 when malformed.
 */
static int
weight(const char *s, size_t n)
{
	size_t	 i;
	int	 w, scale = 100;

	if (n < 3 || (s[0] != 'q' && s[0] != 'Q') || s[1] != '=')
		return -1;
	s += 2;
	n -= 2;
	if (s[0] != '0' && s[0] != '1')
		return -1;
	w = (s[0] - '0') * 1000;
	if (n == 1)
		return w;
	if (s[1] != '.' || n > 5)
		return -1;
	for (i = 2; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		w += (s[i] - '0') * scale;
		scale /= 10;
	}
	return w > 1000 ? -1 : w;
}

/* Trim spaces and tabs around s[0..*n); returns the new start. */
static const char *
trim(const char *s, size_t *n)
{
	while (*n > 0 && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		(*n)--;
	}
	while (*n > 0 && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return s;
}

enum lang
lang_pick(const char *h)
{
	int		 best_w[LANG__MAX], named[LANG__MAX];
	size_t		 best_pos[LANG__MAX];
	int		 star_w = -1;
	size_t		 star_pos = 0, pos, len, tlen, plen, i;
	const char	*p, *end, *e, *semi, *tag, *par;
	int		 w;
	enum lang	 pick = LANG_EN;

	for (i = 0; i < LANG__MAX; i++) {
		best_w[i] = -1;
		named[i] = 0;
		best_pos[i] = 0;
	}
	if (h == NULL)
		return LANG_EN;
	len = strnlen(h, ACCEPT_MAX);
	end = h + len;
	for (p = h, pos = 0; p < end; p = e + 1, pos++) {
		if ((e = memchr(p, ',', (size_t)(end - p))) == NULL)
			e = end;
		semi = memchr(p, ';', (size_t)(e - p));
		tlen = (size_t)((semi != NULL ? semi : e) - p);
		tag = trim(p, &tlen);
		if (!tag_valid(tag, tlen))
			continue;
		w = 1000;
		if (semi != NULL) {
			plen = (size_t)(e - semi - 1);
			par = trim(semi + 1, &plen);
			if ((w = weight(par, plen)) < 0)
				continue;	/* malformed: ignored */
		}
		if (tlen == 1 && tag[0] == '*') {
			if (w > star_w) {
				star_w = w;
				star_pos = pos;
			}
			continue;
		}
		plen = strcspn(tag, "-");
		if (plen > tlen)
			plen = tlen;
		for (i = 0; i < LANG__MAX; i++) {
			if (plen != 2 || strncasecmp(tag, codes[i], 2) != 0)
				continue;
			if (plen == tlen)
				named[i] = 1;	/* "de" itself, not "de-CH" */
			if (w > best_w[i]) {
				best_w[i] = w;
				best_pos[i] = pos;
			}
		}
		if (e == end)
			break;
	}
	/* "*" stands for every language the header does not name. */
	for (i = 0; i < LANG__MAX; i++)
		if (best_w[i] < 0 && !named[i] && star_w >= 0) {
			best_w[i] = star_w;
			best_pos[i] = star_pos;
		}
	w = 0;
	for (i = 0; i < LANG__MAX; i++)
		if (best_w[i] > w || (best_w[i] == w && w > 0 &&
		    best_pos[i] < best_pos[pick])) {
			w = best_w[i];
			pick = (enum lang)i;
		}
	return w > 0 ? pick : LANG_EN;
}
