/*
 * isotime.h - times as people and the API write them: Unix milliseconds
 * or ISO 8601 in, RFC 3339 in UTC out.  Pure: no I/O, no clock.
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

#endif /* ISOTIME_H */
