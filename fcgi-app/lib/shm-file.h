/*
 * shm-file.h - a record shared by processes of one host: a MAP_SHARED
 * mapping of a file in run-dir, so that processes without a common
 * parent (a web server's process manager starts each on its own, with
 * workers = 0) share it, or an anonymous mapping made before fork(2)
 * when there is a master.
 *
 * The file starts with a header (a magic of the record's kind, its
 * layout version, its size and the host's boot id), written last, once
 * the record is initialised.  Whoever comes first creates the file
 * (mode 0600) and initialises it while it holds an flock(2) on it;
 * later processes take the same lock, find the header and map the
 * record as it is.  A file with another header (another layout or
 * size after an upgrade or a changed setting, a boot since, or an
 * initialisation cut short) is replaced by a new one through rename(2),
 * so that processes still mapping the old one never see it shrink.
 * The boot id matters for the process-shared mutexes and the pids
 * kept in a record: neither means anything after the host restarted.
 */
#ifndef SHM_FILE_H
#define SHM_FILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Initialise a record of bytes bytes at p (zero-filled), for arg.
 * Returns 0, or -1 (then the record is not used).
 */
typedef int	(*shm_file_init_fn)(void *p, size_t bytes, void *arg);

/* How shm_file_map() mapped a record. */
enum shm_file_how {
	SHM_FILE_FAILED,	/* not at all (logged) */
	SHM_FILE_ANON,		/* anonymous: shared with children only */
	SHM_FILE_SHARED		/* the file in run-dir */
};

/*
 * Map record name (a file name, e.g. "pow-used.shm") of bytes bytes,
 * of kind magic and layout version layout, into *out: from the file
 * dir/name when dir is not NULL or empty, else anonymous.  init is
 * called on a new record only (never on one another process made).
 * When the file cannot be used (dir missing or not writable, a lock
 * or mapping error) the record is anonymous, logged with what is lost
 * (what, e.g. "the proof of work's single use").  Returns as enum
 * shm_file_how; *out is NULL only with SHM_FILE_FAILED.  The mapping
 * lives as long as the process (it is never unmapped).
 */
enum shm_file_how shm_file_map(const char *dir, const char *name,
	    uint32_t magic, uint32_t layout, size_t bytes,
	    shm_file_init_fn init, void *arg, const char *what, void **out);

#endif /* SHM_FILE_H */
