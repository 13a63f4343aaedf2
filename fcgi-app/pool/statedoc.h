/*
 * statedoc.h - the poll document GET /queue/<slug>/state.json: one JSON
 * object per queue, the same for every visitor, from which the page
 * computes its own position, admission and estimate.  The pool's master
 * writes it as a file for the web server to serve (no FastCGI request per
 * poll); the app answers the same path itself when the file is missing.
 */
#ifndef STATEDOC_H
#define STATEDOC_H

#include <stdint.h>

struct cfg;
struct db;
struct json_object;
struct queue;
struct req;

/* Seconds a client should wait between polls of the document. */
#define STATEDOC_REFRESH_S	2

/*
 * The document of q at now (Unix ms, the database's clock) as a new
 * object (caller releases with json_object_put): {queue, active,
 * serving, ratePerMinute, lastNumber, waiting, updatedAt (Unix ms),
 * refreshSeconds}.  lastNumber is the larger of q's and issued (what
 * this process issued since it read q).  Can't fail.
 */
struct json_object *statedoc_new(const struct queue *q, int64_t issued,
	    int64_t now);

/* GET /queue/<slug>/state.json from the cached row (max-age 1 s). */
void	 page_state(struct req *);

/*
 * Rewrite <state-dir>/<slug>.json of every queue (a temporary file, then
 * rename(2), so a reader sees the old or the new document, never part
 * of one), time from the database, and remove the documents of queues
 * that no longer exist.  Does nothing without state-dir.
 * Returns the number of documents written, or -1 when the database did
 * not answer or a file could not be written (logged once per failure
 * streak).
 */
int	 statedoc_write_all(const struct cfg *, struct db *);

/*
 * statedoc_write_all() in parts, for a caller that spreads it over short
 * steps (the poll documents' writer between two requests), after it read
 * the queues and the time itself: statedoc_write_one() rewrites q's
 * document at now (as above) and returns 0, or -1 when the file could
 * not be written (errno set; not logged); statedoc_prune() removes the
 * documents of the queues not among qs[0..n).  Both do nothing without
 * state-dir.
 */
int	 statedoc_write_one(const struct cfg *, const struct queue *q,
	    int64_t now);
void	 statedoc_prune(const struct cfg *, struct queue **qs, size_t n);

#endif /* STATEDOC_H */
