/*
 * login-guard.h - what keeps the console's log-in from being turned
 * against the waiting room or its operator.  Before any password is
 * hashed, the failed log-ins of the last login-window (one table in the
 * database, so every process and host agrees) decide:
 *   - per user name from one address: login-user-failures;
 *   - per address, whatever the names: login-addr-failures;
 *   - per user name from anywhere: once it has login-user-failures
 *     failures, attempts for it are paced, 1 s after the last failure
 *     and doubling up to login-user-backoff seconds, so that a correct
 *     password from a new address gets in after at most that long;
 * and the hash itself holds one of login-hashes slots of the pool
 * (gate.h), a log-in finding none refused at once.  Failures from one
 * address never lock a user out from another.
 */
#ifndef LOGIN_GUARD_H
#define LOGIN_GUARD_H

#include <stdint.h>

#include "aqueue.h"

struct cfg;
struct db;

/* A log-in's failures within the window (db-console.h). */
struct login_counts;

/* Why an attempt is refused unchecked (LOGIN_GUARD_OK: it may go on). */
enum login_guard {
	LOGIN_GUARD_OK = 0,
	LOGIN_GUARD_PAIR,	/* the name from this address */
	LOGIN_GUARD_ADDR,	/* this address */
	LOGIN_GUARD_PACE	/* the name's pace after its failures */
};

/*
 * Decide an attempt from its counts n under c's limits (the rules
 * above).  When refused, *retry_s is the whole seconds (at least 1)
 * until every rule that refused it would let it through.  Pure; can't
 * fail.
 */
enum login_guard login_guard_decide(const struct cfg *c,
	    const struct login_counts *n, int64_t *retry_s);

/*
 * Read the counts of name (lower case) from addr and decide
 * (login_guard_decide()).  Returns APP_OK with *verdict and *retry_s
 * set, APP_DB or APP_DB_DOWN.
 */
enum app_err login_guard_check(struct db *, const struct cfg *c,
	    const char *name, const char *addr, enum login_guard *verdict,
	    int64_t *retry_s);

/* The pace of a name with count failures, in seconds (0: none). */
int64_t	 login_guard_pace_s(const struct cfg *c, int64_t count);

#endif /* LOGIN_GUARD_H */
