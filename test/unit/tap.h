/*
 * tap.h - a few macros that print the Test Anything Protocol, so that
 * "make check" (automake's tap-driver.sh) counts every assertion as one
 * test.  Each macro compares a real value with the expected one and
 * prints both when they differ.  Include once per test program.
 */
#ifndef TAP_H
#define TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_n;
static int tap_failed;

#define ok(cond, ...) do {						\
	int ok_c_ = (cond) ? 1 : 0;					\
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!ok_c_) {							\
		tap_failed++;						\
		printf("#   failed at %s:%d\n", __FILE__, __LINE__);	\
	}								\
} while (0)

#define is_int(got, want, ...) do {					\
	int64_t is_g_ = (int64_t)(got), is_w_ = (int64_t)(want);	\
	ok(is_g_ == is_w_, __VA_ARGS__);				\
	if (is_g_ != is_w_)						\
		printf("#   got %" PRId64 ", expected %" PRId64 "\n",	\
		    is_g_, is_w_);					\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *is_g_ = (got), *is_w_ = (want);			\
	int is_e_ = (is_g_ == NULL && is_w_ == NULL) ||			\
	    (is_g_ != NULL && is_w_ != NULL &&				\
	    strcmp(is_g_, is_w_) == 0);					\
	ok(is_e_, __VA_ARGS__);						\
	if (!is_e_)							\
		printf("#   got '%s', expected '%s'\n",			\
		    is_g_ ? is_g_ : "(null)", is_w_ ? is_w_ : "(null)"); \
} while (0)

/* A TAP diagnostic line: "# " and the message. */
#define diag(...) do {							\
	printf("# ");							\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

/* Print the plan; returns the exit status for main(). */
static inline int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
