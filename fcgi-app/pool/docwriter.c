/*
 * docwriter.c - one writer of the poll documents per state-dir among
 * processes without a master (see docwriter.h).
 */
#include "config.h"

#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "docwriter.h"
#include "instance.h"
#include "log.h"
#include "statedoc.h"

static const struct cfg	*dw_cfg;
static int		 dw_fd = -1;	/* the lock file, open while held */
static int64_t		 dw_next;	/* the next rewrite, now_ms() */

/*
 * The rewrite under way, a part a step between requests: the queues and
 * the database's time read in one step, then one document a step, then
 * the documents of queues gone.
 */
static struct {
	struct queue	**qs;
	size_t		 n, i;
	int64_t		 now;
	int		 busy;
} docs;

void
dw_init(const struct cfg *c)
{
	dw_cfg = c->state_dir[0] != '\0' ? c : NULL;
}

/* Take the lock without waiting.  Returns 1 when held now, else 0. */
static int
take(void)
{
	char	*path;
	int	 fd;

	path = xasprintf("%s/%s", dw_cfg->state_dir, DOCWRITER_LOCK);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1) {
		log_warn("poll documents: %s", path);
		free(path);
		return 0;
	}
	free(path);
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return 0;
	}
	dw_fd = fd;
	dw_next = 0;
	log_debug("poll documents: this process writes them");
	return 1;
}

/* End the round under way; the next one DOCWRITER_MS from now. */
static void
round_end(void)
{
	db_queue_list_free(docs.qs, docs.n);
	memset(&docs, 0, sizeof(docs));
	dw_next = now_ms() + DOCWRITER_MS;
}

/*
 * The round's next part: the queues and the time (the database given
 * step_ms), or one queue's document, or at the end the documents of
 * queues gone.  Failures are logged once per streak.
 */
static void
round_step(struct db *db, int64_t step_ms)
{
	static int	 failing;
	int64_t		 saved;
	enum app_err	 er;

	if (!docs.busy) {
		saved = db_deadline(db, step_ms);
		er = db_queue_list(db, &docs.qs, &docs.n);
		if (er == APP_OK)
			er = db_now_ms(db, &docs.now);
		db_deadline_restore(db, saved);
		docs.busy = 1;
		if (er != APP_OK) {
			if (!failing++)
				log_warnx("state documents: the database does "
				    "not answer; the files age (clients fall "
				    "back)");
			round_end();
		}
		return;
	}
	if (docs.i < docs.n) {
		if (statedoc_write_one(dw_cfg, docs.qs[docs.i++], docs.now) ==
		    -1) {
			if (!failing++)
				log_warn("state documents: %s",
				    dw_cfg->state_dir);
		} else if (docs.i == docs.n)
			failing = 0;
		return;
	}
	statedoc_prune(dw_cfg, docs.qs, docs.n);
	round_end();
}

void
dw_step(struct db *db, int64_t step_ms)
{
	int64_t	 t0;

	if (dw_cfg == NULL || (dw_fd == -1 && !take()))
		return;
	if (!docs.busy && (now_ms() < dw_next || db_inflight(db)))
		return;
	t0 = now_us();
	round_step(db, step_ms);
	instance_step_end(INST_STEP_DOCS, now_us() - t0);
}

int64_t
dw_wait_ms(void)
{
	int64_t	 t;

	if (dw_fd == -1)
		return -1;
	if (docs.busy)
		return 0;
	t = dw_next - now_ms();
	return t > 0 ? t : 0;
}

int
dw_holds(void)
{
	return dw_fd != -1;
}

void
dw_end(void)
{
	if (dw_fd != -1)
		close(dw_fd);
	dw_fd = -1;
	db_queue_list_free(docs.qs, docs.n);
	memset(&docs, 0, sizeof(docs));
}
