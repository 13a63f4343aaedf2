/*
 * embedded-worker.c - the worker's job table run by a FastCGI process
 * between requests (see embedded-worker.h and worker/worker.h).
 */
#include "config.h"

#include <poll.h>
#include <stdint.h>

#include "cfg.h"
#include "db.h"
#include "aqueue.h"
#include "embedded-worker.h"
#include "instance.h"
#include "worker.h"

static struct worker_run	 run;
static int			 on;

void
ew_init(const struct cfg *c, struct db *db)
{
	on = c->embedded_worker != 0;
	if (on)
		worker_run_init(&run, c, db, db, 1);
}

void
ew_step(int answered)
{
	struct db	*db = run.w.db;
	int64_t		 saved, t0, leader, clock;
	size_t		 ran = 0;

	if (!on || db_inflight(db))
		return;
	t0 = now_us();
	leader = run.next_leader;
	clock = run.next_clock;
	saved = db_deadline(db, EW_STEP_MS);
	/* A standby tries only on a connection it has anyway. */
	if (worker_run_leader(&run, answered && db_session(db) != 0))
		ran = worker_run_jobs(&run, 1, NULL);
	db_deadline_restore(db, saved);
	/* Timed when it did work: a statement of the lock's, or a job. */
	if (ran > 0 || run.next_leader != leader || run.next_clock != clock)
		instance_step_end(INST_STEP_WORKER, now_us() - t0);
}

int64_t
ew_wait_ms(void)
{
	return on ? worker_run_wait_ms(&run) : -1;
}

int
ew_leads(void)
{
	return on && run.w.leader;
}

void
ew_end(void)
{
	struct db	*db = run.w.db;
	int64_t		 saved;

	if (!on)
		return;
	saved = db_deadline(db, EW_STEP_MS);
	worker_run_end(&run);
	db_deadline_restore(db, saved);
	on = 0;
}

int
ew_may_step(int listen_fd, int64_t *since)
{
	struct pollfd	 p;
	int64_t		 t;

	p.fd = listen_fd;
	p.events = POLLIN;
	p.revents = 0;
	if (listen_fd < 0 || poll(&p, 1, 0) != 1 || !(p.revents & POLLIN)) {
		*since = 0;
		return 1;
	}
	t = now_ms();
	if (*since == 0)
		*since = t;
	if (t - *since < STEP_POSTPONE_MAX_MS)
		return 0;
	*since = 0;
	return 1;
}
