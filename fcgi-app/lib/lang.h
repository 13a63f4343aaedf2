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
	LANG_ES,	/* Spanish */
	LANG_IT,	/* Italian */
	LANG_AR,	/* Arabic, right to left */
	LANG_ZH,	/* Simplified Chinese */
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
	MSG_ENTRY,		/* label of the expected time of entry */
	MSG_UPDATED,		/* "last updated" */
	MSG_LANGUAGES,		/* label of the language links */
	MSG_BACK,		/* link back to the shop */
	MSG_MINUTES,		/* a wait range, "{lo}-{hi} min" */
	MSG_MINUTE_LESS,	/* a wait under a minute */
	MSG_UNKNOWN_TITLE,	/* the page of an unknown queue */
	MSG_UNKNOWN,
	MSG_MINUTE_ONE,		/* a wait of about "{n} min" */
	MSG_UNKNOWN_NAMED,	/* ... with the slug asked for, "{slug}" */
	MSG_POW_WORKING,	/* proof of work under way, "{p}" percent */
	MSG_POW_INSECURE,	/* ... impossible: no secure context */
	MSG_POW_FAILED,		/* ... did not finish */
	MSG_NOSCRIPT_POW,	/* ... needs JavaScript (noscript) */
	MSG_OPENS,		/* before a scheduled opening: "Opens in" */
	MSG_HOLD,		/* queuing method hold: nobody admitted */
	MSG_FULL,		/* the waiting room takes no more visitors */
	MSG_CAP,		/* active users cap: "{n}", "{duration}" */
	MSG_SECOND_ONE,		/* a duration of "{n} s" */
	MSG__MAX
};

/* ISO 639-1 code of a language, e.g. "de".  Can't fail. */
const char *lang_code(enum lang);

/* Writing direction of a language: "rtl" or "ltr".  Can't fail. */
const char *lang_dir(enum lang);

/*
 * Read the message catalogs <dir>/lang/<code>.txt of every language:
 * UTF-8 lines "key = text" (keys as in lang.c's names table, e.g.
 * "your_number"), '#' starts a comment line, blank lines are skipped, the
 * text is kept as written (at most 1000 bytes).  A message missing from
 * a catalog falls back to English.  The catalogs replace the ones read
 * before only when the English one was read.  Returns 0, or -1 (logged)
 * when the English catalog is missing or any catalog has a malformed
 * line or an unknown key.
 */
int	 lang_load(const char *dir);

/* The name of message m in the catalogs ("your_number").  Can't fail. */
const char *lang_msg_name(enum msg m);

/*
 * The text of message m in language l (UTF-8, plain text) from the
 * catalogs read by lang_load(); "" before they were read.
 */
const char *lang_msg(enum lang l, enum msg m);

/*
 * Parse a language code chosen on the page ("de", "en", "ar"...; exact, lower
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
