/*
 * lang.c - language negotiation for the waiting room and its texts.
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "lang.h"

#define ACCEPT_MAX	8192	/* bytes of the header looked at */

static const char *const codes[LANG__MAX] = {
	"en",	/* LANG_EN */
	"de",	/* LANG_DE */
};

static const char *const msgs[LANG__MAX][MSG__MAX] = {
	{ /* LANG_EN */
	"waiting room",
	"Taking your number…",
	"Your number",
	"Admitted up to",
	"Ahead of you",
	"Estimated wait",
	"Progress",
	"Keep this page open: you will be sent on automatically when it is "
	    "your turn.",
	"This waiting room needs JavaScript to hold your place.",
	"You are in the queue.",
	"The waiting room is paused. Your place is kept.",
	"The waiting room is paused: no new numbers right now. This page "
	    "retries by itself.",
	"It is your turn: taking you to the shop…",
	"You are admitted.",
	"The waiting room is busy. Retrying…",
	"Connection trouble. Your place is kept; retrying…",
	"Deutsch",
	"Keep this page open: you will be sent on automatically when it is "
	    "your turn. Reloading keeps your place.",
	"You have no number yet: this page takes one by itself as soon as "
	    "the waiting room opens again. Keep it open.",
	"Please wait a moment",
	"The waiting room is briefly unavailable. This page tries again by "
	    "itself in a few seconds; keep it open.",
	},
	{ /* LANG_DE */
	"Warteraum",
	"Sie erhalten Ihre Nummer…",
	"Ihre Nummer",
	"Eingelassen bis",
	"Vor Ihnen",
	"Geschätzte Wartezeit",
	"Fortschritt",
	"Lassen Sie diese Seite offen: Sie werden automatisch "
	    "weitergeleitet, sobald Sie an der Reihe sind.",
	"Dieser Warteraum braucht JavaScript, um Ihren Platz zu halten.",
	"Sie sind in der Warteschlange.",
	"Der Warteraum ist pausiert. Ihr Platz bleibt erhalten.",
	"Der Warteraum ist pausiert: Zurzeit werden keine neuen Nummern "
	    "vergeben. Diese Seite versucht es selbst erneut.",
	"Sie sind an der Reihe: weiter zum Shop…",
	"Sie sind eingelassen.",
	"Der Warteraum ist ausgelastet. Neuer Versuch…",
	"Verbindungsproblem. Ihr Platz bleibt erhalten; neuer Versuch…",
	"English",
	"Lassen Sie diese Seite offen: Sie werden automatisch "
	    "weitergeleitet, sobald Sie an der Reihe sind. Neu laden behält "
	    "Ihren Platz.",
	"Sie haben noch keine Nummer: Diese Seite holt selbst eine, sobald "
	    "der Warteraum wieder öffnet. Lassen Sie sie offen.",
	"Bitte einen Moment Geduld",
	"Der Warteraum ist kurz nicht erreichbar. Diese Seite versucht es "
	    "in wenigen Sekunden selbst erneut; lassen Sie sie offen.",
	},
};

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
	return m < MSG__MAX ? msgs[l][m] : "";
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
