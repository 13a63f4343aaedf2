/*
 * embedded-worker.h - the background worker inside the FastCGI processes
 * (embedded-worker = on), for hosts that can run nothing but them: each
 * process runs the worker's own job table (worker/worker.h, through its
 * runner) between two requests, one bounded step at a time, while it
 * holds the installation's leader lock on its one database connection.
 * A standby process tries the lock only after it answered a request
 * (at most every WORKER_EMBEDDED_TRY_MS), so that idle processes cost
 * the database nothing: one process per installation does the work,
 * however many the web server keeps.
 */
#ifndef EMBEDDED_WORKER_H
#define EMBEDDED_WORKER_H

#include <stdint.h>

struct cfg;
struct db;

/*
 * Set up for this process's connection db (nothing happens unless
 * c->embedded_worker).  Can't fail.
 */
void	 ew_init(const struct cfg *c, struct db *db);

/*
 * Between requests: the leader lock's step (answered: a request was
 * just answered, so a standby may try), then at most one job that is
 * due (a few statements, see worker.h), the database given EW_STEP_MS
 * for all of it: a ceiling for a server that answers late, not the
 * step's time (under a millisecond mostly, measured on /metrics).  Not
 * lower: a statement given up on inside a transaction (an auto-rate
 * decision, abandonment, an admission change) closes the connection and
 * the leader lock with it, and a loaded server does answer late at
 * times.  Nothing while a statement given up on is still in flight.
 * The step's time goes to instance_step_end().  Can't fail (errors are
 * logged; the job runs again at its next deadline).
 */
#define EW_STEP_MS	200
void	 ew_step(int answered);

/* Milliseconds until ew_step() has work (0: now), -1: none. */
int64_t	 ew_wait_ms(void);

/* Whether this process leads now (it keeps its connection). */
int	 ew_leads(void);

/* Give up the lead (before the connection closes).  Can't fail. */
void	 ew_end(void);

/*
 * A step between requests waits while a connection is pending on the
 * listen socket (answered first), but at most this long, so that steps
 * still happen under a steady load (a request then waits for one step,
 * a few ms).  Under mod_fcgid each process has its own socket, sent a
 * request only when idle; with a master another child takes it.
 */
#define STEP_POSTPONE_MAX_MS	500
/*
 * Whether a step may run now: no connection pending on listen_fd
 * (poll(2), zero timeout; -1: none to look at), or the step first
 * waited (*since, in ms of now_ms(); 0: it did not) at least
 * STEP_POSTPONE_MAX_MS ago.  *since is the caller's, one per kind of
 * step.  Returns 1 or 0; can't fail.
 */
int	 ew_may_step(int listen_fd, int64_t *since);

#endif /* EMBEDDED_WORKER_H */
