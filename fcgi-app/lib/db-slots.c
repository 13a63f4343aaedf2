/*
 * db-slots.c - the connection budget as byte-range locks on one file
 * (see db-slots.h).  POSIX record locks belong to a process: they are
 * not inherited across fork(2), a process never conflicts with itself
 * (so it remembers which bytes it holds), and closing any descriptor
 * of the file drops them all (so the file is opened once and kept).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "db-slots.h"
#include "log.h"

/* A process holds at most a few places (the worker daemon: two). */
#define HELD_MAX	8

static int	 slots_fd = -1;
static pid_t	 slots_pid;		/* the process that opened it */
static char	*slots_path;
static int	 held[HELD_MAX];
static size_t	 nheld;
static int	 warned;

/*
 * The lock file for c, open in this process: after a fork the inherited
 * descriptor holds nothing of ours (the parent's locks stay the
 * parent's), so only the list of held places is reset.  Returns the
 * descriptor, or -1 (no budget; logged once).
 */
static int
slots_open(const struct cfg *c)
{
	char	*path;

	if (c->run_dir == NULL || c->run_dir[0] == '\0')
		return -1;
	if (slots_fd >= 0 && slots_pid != getpid()) {
		nheld = 0;
		slots_pid = getpid();
	}
	path = xasprintf("%s/%s", c->run_dir, DBSLOTS_FILE);
	if (slots_fd >= 0 && strcmp(path, slots_path) == 0) {
		free(path);
		return slots_fd;
	}
	/* Another run-dir (a reload): only when nothing is held here. */
	if (slots_fd >= 0) {
		if (nheld > 0) {
			free(path);
			return slots_fd;
		}
		close(slots_fd);
		slots_fd = -1;
		free(slots_path);
		slots_path = NULL;
	}
	if ((slots_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) ==
	    -1) {
		if (!warned++)
			log_warn("run-dir: %s (no connection budget: "
			    "db-max-connections is not enforced)", path);
		free(path);
		return -1;
	}
	warned = 0;
	slots_path = path;
	slots_pid = getpid();
	nheld = 0;
	return slots_fd;
}

/* Whether this process holds place i. */
static int
mine(int i)
{
	size_t	 k;

	for (k = 0; k < nheld; k++)
		if (held[k] == i)
			return 1;
	return 0;
}

/* Lock (F_WRLCK) or unlock (F_UNLCK) byte i.  Returns 0 or -1. */
static int
lock_byte(int fd, int i, short type)
{
	struct flock	 fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)i;
	fl.l_len = 1;
	return fcntl(fd, F_SETLK, &fl);
}

int
dbslots_take(const struct cfg *c)
{
	int	 fd, i, n;

	if ((fd = slots_open(c)) == -1)
		return DBSLOTS_NONE;
	if (nheld == HELD_MAX)
		return DBSLOTS_FULL;
	n = (int)c->db_max_connections;
	/* Start at a place of its own, so processes seldom collide. */
	for (i = 0; i < n; i++) {
		int	 k = (int)(((unsigned int)getpid() + (unsigned int)i) %
			    (unsigned int)n);

		if (mine(k))
			continue;
		if (lock_byte(fd, k, F_WRLCK) == 0) {
			held[nheld++] = k;
			return k;
		}
		if (errno != EACCES && errno != EAGAIN) {
			log_warn("run-dir lock %d", k);
			return DBSLOTS_NONE;
		}
	}
	return DBSLOTS_FULL;
}

void
dbslots_give(int i)
{
	size_t	 k;

	if (i < 0 || slots_fd < 0 || slots_pid != getpid())
		return;
	for (k = 0; k < nheld; k++)
		if (held[k] == i) {
			(void)lock_byte(slots_fd, i, F_UNLCK);
			held[k] = held[--nheld];
			return;
		}
}

int
dbslots_count(const struct cfg *c, size_t *held_n, pid_t *pids,
    size_t npids)
{
	struct flock	 fl;
	char		*path;
	int		 fd, i;
	size_t		 n = 0;

	*held_n = 0;
	if (c->run_dir == NULL || c->run_dir[0] == '\0')
		return -1;
	path = xasprintf("%s/%s", c->run_dir, DBSLOTS_FILE);
	fd = open(path, O_RDWR | O_CLOEXEC);
	free(path);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	for (i = 0; i < (int)c->db_max_connections; i++) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		fl.l_start = (off_t)i;
		fl.l_len = 1;
		if (fcntl(fd, F_GETLK, &fl) == -1)
			break;
		if (fl.l_type == F_UNLCK)
			continue;
		if (n < npids)
			pids[n] = fl.l_pid;
		n++;
	}
	close(fd);
	*held_n = n;
	return 0;
}
