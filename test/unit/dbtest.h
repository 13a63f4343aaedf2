/*
 * dbtest.h - helpers of the unit tests that run against the real MariaDB
 * (test-db, test-queue-ops).
 */
#ifndef DBTEST_H
#define DBTEST_H

#include <stdint.h>

#include <mysql.h>

#include "admission.h"

/*
 * Force the full admission state of queue id (test only): every field of
 * a is written.  Returns 0, or -1 (the statement's error printed as a TAP
 * diagnostic).
 */
int	 dbtest_set_state(MYSQL *, int64_t, const struct adm_queue *);

/*
 * End the server session with thread id (KILL), as a server restart or
 * a network failure would end it for its client (test only).  Returns 0,
 * or -1 (the error printed as a TAP diagnostic).
 */
int	 dbtest_kill(MYSQL *, unsigned long id);

#endif /* DBTEST_H */
