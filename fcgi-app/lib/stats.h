/*
 * stats.h - samples of every queue into table queue_stats (see
 * migrations/0005-queue-stats.sql) for the dashboard and /metrics, and
 * their retention.  Exactly one process samples at a time: whoever
 * holds the database's named lock STATS_LOCK (a pool master, or the
 * background worker's leader), so samples from several hosts never
 * interleave.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct db;
struct queue;

/*
 * The base name of the named lock (MariaDB GET_LOCK) of the one sampler;
 * the lock is "aqueue-stats:<database>", one per installation.
 */
#define STATS_LOCK	"aqueue-stats"

/* Rows of table instance not seen this long are deleted by a sample. */
#define STATS_INSTANCE_PURGE_MS	(3600 * 1000)

/*
 * Take STATS_LOCK on this connection without waiting, or confirm that
 * it is still held (a lost connection loses it).  Sets *held to 1 or 0.
 * Returns APP_OK, APP_DB or APP_DB_DOWN (then *held is 0).
 */
enum app_err	 stats_try_lock(struct db *, int *held);

/*
 * Take one sample of every queue at the database's time now: serving
 * (admission.h adm_serving()), issued (the last number), waiting =
 * max(0, issued - serving), the rate, whether it runs, and the inflow
 * in new numbers per minute since the newest earlier sample at least a
 * minute old (else since the oldest sample; 0 for a first sample).
 * Then delete samples older than retention_ms (at most prune_max, see
 * db_prune()) and instance rows not seen for STATS_INSTANCE_PURGE_MS.
 * Call only while holding STATS_LOCK.  Sets *sampled to the number of
 * queues sampled (may be NULL).  Returns APP_OK, APP_ENOMEM, APP_DB or
 * APP_DB_DOWN (samples written before a failure stay: each is complete
 * on its own).
 */
enum app_err	 stats_sample(struct db *, int64_t retention_ms,
		    int64_t prune_max, size_t *sampled);

/*
 * stats_sample() in parts, for a caller that spreads a round over
 * several short steps (the embedded worker): the sample of queue q, as
 * read at the database's time now (one lookup, one insert); and the
 * retention at the end of a round (as stats_sample() does it).  Return
 * APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err	 stats_sample_queue(struct db *, const struct queue *q,
		    int64_t now);
enum app_err	 stats_prune(struct db *, int64_t now, int64_t retention_ms,
		    int64_t prune_max);

/*
 * The inflow in numbers per minute between a sample of issued_then at
 * then_ms and issued_now at now_ms: 0 when no time passed or the count
 * went down (a queue re-created).  Can't fail.
 */
double		 stats_inflow(int64_t issued_then, int64_t then_ms,
		    int64_t issued_now, int64_t now_ms);

#endif /* STATS_H */
