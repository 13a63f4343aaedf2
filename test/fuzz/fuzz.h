/*
 * fuzz.h - what every libFuzzer target of test/fuzz/ shares: the input
 * as a NUL-terminated copy, and splitting it at the first NUL byte into
 * two inputs.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of data[0..size) (the caller frees it). */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	char	*s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split the copy s (size bytes) at its first NUL: *b points after it
 * ("" when there is none).  Returns s.
 */
static inline char *
fuzz_split(char *s, size_t size, char **b)
{
	size_t	 n = strlen(s);

	*b = n < size ? s + n + 1 : s + size;
	return s;
}

#endif /* FUZZ_H */
