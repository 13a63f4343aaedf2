/*
 * shm-file.c - records shared by the processes of one host, in a file
 * of run-dir or anonymous (see shm-file.h).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "log.h"
#include "shm-file.h"

/* The header's room before the record: keeps the record aligned. */
#define HDR_ROOM	128

/* Attempts to lock the file at a path while others replace it. */
#define OPEN_TRIES	8

struct hdr {
	uint32_t	 magic;		/* the record's kind; 0: not ready */
	uint32_t	 layout;
	uint64_t	 bytes;		/* the record's size */
	char		 boot[40];	/* the host's boot id */
};

/* The host's boot id (Linux random(4)), or "" when unknown. */
static void
boot_id(char *buf, size_t n)
{
	ssize_t	 got;
	int	 fd;

	memset(buf, 0, n);
	if ((fd = open("/proc/sys/kernel/random/boot_id",
	    O_RDONLY | O_CLOEXEC)) == -1)
		return;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 0)
		memset(buf, 0, n);
}

/*
 * Open the file at path (created, mode 0600) and take its flock(2): the
 * one still at path once locked (another process may have replaced it
 * meanwhile).  Returns the descriptor, or -1 (errno set).
 */
static int
open_locked(const char *path)
{
	struct stat	 a, b;
	int		 fd, i;

	for (i = 0; i < OPEN_TRIES; i++) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		    0600);
		if (fd == -1)
			return -1;
		if (flock(fd, LOCK_EX) == -1) {
			close(fd);
			return -1;
		}
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/*
 * Make the empty file fd a new record of header h: its blocks taken
 * (a full disk fails here, not at a later write), init called, the
 * header written last.  Returns the mapping of the whole file, or NULL
 * (errno set, or 0 when init refused).
 */
static void *
make_record(int fd, const struct hdr *h, shm_file_init_fn init, void *arg)
{
	size_t	 total = HDR_ROOM + (size_t)h->bytes;
	void	*p;
	int	 rc;

	if ((rc = posix_fallocate(fd, 0, (off_t)total)) != 0) {
		errno = rc;
		return NULL;
	}
	p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (init != NULL && init((char *)p + HDR_ROOM, (size_t)h->bytes,
	    arg) == -1) {
		munmap(p, total);
		errno = 0;
		return NULL;
	}
	memcpy(p, h, sizeof(*h));
	return p;
}

/*
 * The record of header want in the file at path, made or replaced as
 * needed.  Returns the mapping of the whole file, or NULL (errno set,
 * or 0 when init refused).
 */
static void *
map_file(const char *path, const struct hdr *want, shm_file_init_fn init,
    void *arg)
{
	struct hdr	 got;
	struct stat	 st;
	size_t		 total = HDR_ROOM + (size_t)want->bytes;
	char		*tmp;
	void		*p = NULL;
	int		 fd, nfd, e;

	if ((fd = open_locked(path)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto out;
	if ((size_t)st.st_size == total &&
	    pread(fd, &got, sizeof(got), 0) == (ssize_t)sizeof(got) &&
	    memcmp(&got, want, sizeof(got)) == 0) {
		p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
		if (p == MAP_FAILED)
			p = NULL;
		goto out;
	}
	if (st.st_size == 0) {
		p = make_record(fd, want, init, arg);
		goto out;
	}
	/*
	 * Another record: a new file takes its name, so that a process
	 * still using the old one keeps it whole.  Whoever replaces holds
	 * the old file's lock, so one at a time uses the name below.
	 */
	tmp = xasprintf("%s.new", path);
	(void)unlink(tmp);
	nfd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (nfd != -1) {
		p = make_record(nfd, want, init, arg);
		if (p != NULL && rename(tmp, path) == -1) {
			e = errno;
			munmap(p, total);
			p = NULL;
			errno = e;
		}
		e = errno;
		close(nfd);
		if (p == NULL)
			(void)unlink(tmp);
		errno = e;
	}
	free(tmp);
 out:
	e = errno;
	/*
	 * Unlocked by hand: a mapping keeps the open file (and with it
	 * the lock) alive after close(2).
	 */
	(void)flock(fd, LOCK_UN);
	close(fd);
	errno = e;
	return p;
}

enum shm_file_how
shm_file_map(const char *dir, const char *name, uint32_t magic,
    uint32_t layout, size_t bytes, shm_file_init_fn init, void *arg,
    const char *what, void **out)
{
	struct hdr	 want;
	char		*path;
	void		*p;

	*out = NULL;
	if (dir != NULL && dir[0] != '\0') {
		memset(&want, 0, sizeof(want));
		want.magic = magic;
		want.layout = layout;
		want.bytes = (uint64_t)bytes;
		boot_id(want.boot, sizeof(want.boot));
		path = xasprintf("%s/%s", dir, name);
		errno = 0;
		p = map_file(path, &want, init, arg);
		if (p != NULL) {
			free(path);
			*out = (char *)p + HDR_ROOM;
			return SHM_FILE_SHARED;
		}
		if (errno != 0)
			log_warn("run-dir: %s (%s: this process only)", path,
			    what);
		else
			log_warnx("run-dir: %s not initialised (%s: this "
			    "process only)", path, what);
		free(path);
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("mmap");
		return SHM_FILE_FAILED;
	}
	/* Zero-filled, as a new file's record. */
	if (init != NULL && init(p, bytes, arg) == -1) {
		munmap(p, bytes);
		return SHM_FILE_FAILED;
	}
	*out = p;
	return SHM_FILE_ANON;
}
