/*
 * fairness.h - the fairness report of a queue (over the retained
 * samples, or since a time): served-order inversions against the join
 * order, the wait from join to admission (P50, P90, P99), and
 * admissions per minute against the configured rate, as JSON and CSV.
 *
 * What it reads: the join and admission time of a number are derived
 * from the queue's samples (queue_stats, every stats-interval-ms: the
 * issued and serving counts at a time), linearly between two samples,
 * so they are exact to a sampling interval and cost the visitor path
 * nothing; the served order is the order of each number's first access
 * token, recorded once per number (fair_served_record(), written in
 * batches after the answers), never on /status.
 */
#ifndef FAIRNESS_H
#define FAIRNESS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct db;
struct json_object;

/* Numbers whose wait is computed at most (beyond, every k-th one). */
#define FAIR_WAITS_MAX	2000000

/*
 * The report of queue queue_id (slug for the output) from since_ms to
 * until_ms (DB Unix ms; 0 and 0 for everything retained), e.g. one
 * on-sale, as a new JSON object: {"queue","since","until","from","to",
 * "samples","served","inversions","waitSeconds":{"count","p50","p90",
 * "p99"},"admissionsPerMinute","configuredRatePerMinute","minutes":
 * [{"minute","admitted","ratePerMinute"}]}.  Percentiles are
 * nearest-rank (the ceil(p * n)-th smallest wait); values without data
 * are null.  Returns APP_OK,
 * APP_DB, APP_DB_DOWN or APP_ENOMEM (then *out is NULL).
 */
enum app_err	 fair_report(struct db *, int64_t queue_id, const char *slug,
		    int64_t since_ms, int64_t until_ms,
		    struct json_object **out);

/*
 * The report as CSV (RFC 4180, CRLF line ends), one metric per row:
 * "metric,minute,value" with the summary rows first (minute empty) and
 * then "admitted" and "rate_per_minute" per minute (minute as
 * YYYY-MM-DDTHH:MM:00Z).  Returns a new string the caller frees, or
 * NULL when out of memory.
 */
char		*fair_csv(struct json_object *report);

/* The longest a recorded first token waits to be written, ms. */
#define FAIR_FLUSH_MS	1000

/*
 * Record, best effort, that number of queue_id was handed its first
 * access token now (this process's estimate of the database's clock):
 * skipped when this process recorded the number lately (a small
 * per-process memory) or has no database connection up.  The row is
 * written with others by fair_served_flush(), at the latest when
 * SERVED_BATCH of them are held; a failure is only logged (the token is
 * still given).  Can't fail.
 */
void		 fair_served_record(struct db *, int64_t queue_id,
		    int64_t number);

/*
 * Write the first tokens recorded and not yet written, in one
 * statement: always when force is set, else only once the oldest has
 * waited FAIR_FLUSH_MS.  Call it after an answer is sent, when the wait
 * for requests times out (fair_served_due_ms()) and before the process
 * ends.  A failure is logged and the rows are dropped.  Can't fail.
 */
void		 fair_served_flush(struct db *, int force);

/*
 * Milliseconds (0 to FAIR_FLUSH_MS) until fair_served_flush() is due,
 * or -1 when nothing waits to be written.
 */
int		 fair_served_due_ms(void);

/*
 * The number of pairs i < j with v[i] > v[j] (inversions), by merge
 * sort; v is sorted on return (tmp: n scratch elements).  Can't fail.
 */
int64_t		 fair_inversions(int64_t *v, int64_t *tmp, size_t n);

#endif /* FAIRNESS_H */
