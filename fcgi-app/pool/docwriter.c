/*
 * docwriter.c - one writer of the poll documents per state-dir among
 * processes without a master (see docwriter.h).
 */
#include "config.h"

#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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
static int64_t		 dw_next;	/* the next rewrite, monotonic ms */

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

void
dw_step(struct db *db, int64_t step_ms)
{
	int64_t	 saved, t0;

	if (dw_cfg == NULL || (dw_fd == -1 && !take()))
		return;
	if (now_ms() < dw_next || db_inflight(db))
		return;
	t0 = now_us();
	saved = db_deadline(db, step_ms);
	(void)statedoc_write_all(dw_cfg, db);
	db_deadline_restore(db, saved);
	dw_next = now_ms() + DOCWRITER_MS;
	instance_step_end(INST_STEP_DOCS, now_us() - t0);
}

int64_t
dw_wait_ms(void)
{
	int64_t	 t;

	if (dw_fd == -1)
		return -1;
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
}
