/*
 * isotime.h - times as people and the API write them: Unix milliseconds
 * or ISO 8601 in, RFC 3339 in UTC out, durations in words.  Pure: no
 * I/O, no clock.
 */
#ifndef ISOTIME_H
#define ISOTIME_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse a time: Unix milliseconds (decimal digits) or ISO 8601 (RFC 3339
 * profile) "YYYY-MM-DDTHH:MM[:SS[.fff]]" followed by "Z" or "+HH:MM" /
 * "-HH:MM" (a zone is required).  Returns 0 and sets *ms, or -1 when
 * malformed or outside years 1970-9999.
 */
int	 iso_time_parse(const char *text, int64_t *ms);

/*
 * Format ms (Unix, >= 0) as "YYYY-MM-DDTHH:MM:SS.fffZ" into buf of sz
 * bytes (at least ISO_TIME_LEN + 1).  Can't fail.
 */
#define ISO_TIME_LEN	24
void	 iso_time_format(int64_t ms, char *buf, size_t sz);

/*
 * A duration of s seconds in words, as the console shows a wait or an
 * age: "-" when s < 0 (unknown), "under 1 min" below 60 s (0 too: the
 * estimate rounds up, so 0 means nobody ahead), whole minutes below an
 * hour ("59 min" for 3599 s), hours and minutes below a day ("7 h 38
 * min" for 27486 s; "1 h" for 3600 s: zero minutes left out), days and
 * hours from a day on ("1 d 3 h"; "1 d" for 86400 s).  Units are
 * floored.  static/console.js durationText() follows the same rule for
 * the live refresh.  Into buf of sz bytes (at least
 * ISO_DURATION_LEN + 1).  Can't fail.
 */
#define ISO_DURATION_LEN	40
void	 iso_duration_text(int64_t s, char *buf, size_t sz);

#endif /* ISOTIME_H */
