/*
 * docwriter.h - the poll documents where the FastCGI processes have no
 * master (workers = 0: mod_fcgid starts each of them): one process per
 * state-dir writes them, the one that holds an flock(2) on the folder's
 * DOCWRITER_LOCK file.  The lock lives on this host (the web server
 * serves its own folder) and costs the database nothing; the kernel
 * frees it when its holder ends, and the next process that answers a
 * request takes it.  The holder rewrites every document about twice a
 * second between its requests and keeps its connection meanwhile.
 */
#ifndef DOCWRITER_H
#define DOCWRITER_H

#include <stdint.h>

struct cfg;
struct db;

/* The lock file's name in state-dir (a dot file: never a document). */
#define DOCWRITER_LOCK	".writer.lock"
/* How often the holder rewrites the documents, milliseconds. */
#define DOCWRITER_MS	450

/* Set up for c (nothing happens without state-dir).  Can't fail. */
void	 dw_init(const struct cfg *c);

/*
 * Between requests: take the lock if nobody holds it (no waiting), and
 * while holding it rewrite the documents when they are due, a part a
 * step: the queues and the database's time (the database given step_ms
 * for it), then one document a step, then the documents of queues gone
 * (each step timed for instance_step_end()).  Can't fail (failures are
 * logged, once per streak).
 */
void	 dw_step(struct db *db, int64_t step_ms);

/* Milliseconds until the holder's next rewrite (0: now), -1: none. */
int64_t	 dw_wait_ms(void);

/* Whether this process writes the documents (it keeps its connection). */
int	 dw_holds(void);

/* Give the lock up.  Can't fail. */
void	 dw_end(void);

#endif /* DOCWRITER_H */
