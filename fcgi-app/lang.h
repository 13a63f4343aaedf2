/*
 * lang.h - the waiting room's language: chosen from the Accept-Language
 * header (RFC 9110 section 12.5.4, language ranges of RFC 4647) unless
 * the visitor picked one on the page, and the page's message catalog.
 */
#ifndef LANG_H
#define LANG_H

enum lang {
	LANG_EN,	/* English, the default */
	LANG_DE,	/* German */
	LANG__MAX
};

/* Texts of the waiting room, in every language. */
enum msg {
	MSG_ROOM,		/* "waiting room" (title suffix) */
	MSG_TAKING,		/* first status line */
	MSG_YOUR_NUMBER,
	MSG_SERVING,
	MSG_AHEAD,
	MSG_WAIT,
	MSG_PROGRESS,
	MSG_NOTE,
	MSG_NOSCRIPT,
	MSG_QUEUED,		/* status lines set by the page's script */
	MSG_PAUSED,
	MSG_PAUSED_JOIN,
	MSG_TURN,
	MSG_ADMITTED,
	MSG_BUSY,
	MSG_TROUBLE,
	MSG_OTHER_LANG,		/* the switch link's text */
	MSG_NOTE_KEPT,		/* the note once the visitor holds a number */
	MSG_NOTE_NONE,		/* the note while paused without a number */
	MSG_UNAVAIL_TITLE,	/* the page while the queue can't be read */
	MSG_UNAVAIL,
	MSG__MAX
};

/* ISO 639-1 code of a language, e.g. "de".  Can't fail. */
const char *lang_code(enum lang);

/* The text of message m in language l (UTF-8, plain text). */
const char *lang_msg(enum lang l, enum msg m);

/*
 * Parse a language code chosen on the page ("de", "en"; exact, lower
 * case).  Returns 0 and sets *out, or -1 for anything else.
 */
int	 lang_parse(const char *code, enum lang *out);

/*
 * Pick the language for an Accept-Language header value (NULL or empty:
 * the default).  Rules (CASES C14): entries split on ','; a tag is
 * "*" or alphabetic subtags of 1-8 characters joined by '-' (so "de-"
 * and "-de" are not tags); a weight is "q=" 0 to 1 with at most three
 * decimals, and an entry with a malformed weight is ignored; q=0 refuses
 * a language; a tag matches a language on its primary subtag only
 * ("de-CH" is German, "dek" is not); "*" gives its weight to every
 * language not named in the header.  The highest weight wins, ties go to
 * the earlier entry, and when nothing acceptable is supported the
 * default (English) is used.  Can't fail; reads at most 8 KiB.
 */
enum lang lang_pick(const char *accept_language);

#endif /* LANG_H */
