/*
 * loadtest.h - built-in load tests: what a run is, its latency
 * histogram and the rule that flags a run clearly worse than the
 * comparable earlier ones.  The worker's runner (worker/loadtest-run.c)
 * sends the requests; the rows are db-loadtest.h's; the API, the CLI
 * and the console ask for runs through lt_check().
 *
 * A run sends requests to one test queue (loadTestQueue on) through the
 * web server, at a fixed rate (open loop: request k is due at start +
 * k / rate, whatever the answers before it did), and times each answer
 * from when its request was due, so that a slow server cannot hide its
 * latency by slowing the sender (coordinated omission).
 */
#ifndef LOADTEST_H
#define LOADTEST_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "queue-fields.h"

struct cfg;

/*
 * The profiles: "status" polls one number's status; "join" takes
 * numbers; "mix" is visitors as the room sees them: joins, each joined
 * number's status at the room's poll interval, a token once admitted;
 * "replay" is the arrival curve of a past event (the joins of another
 * queue's samples, scaled in time and volume), each arrival then a
 * visitor as in "mix" (its polls and claim sent when due, on top).
 */
#define LT_PROFILE_MAX	16	/* bytes of a profile's name */

/* Rate (requests per second) and duration (seconds) at least. */
#define LT_RATE_MIN	1
#define LT_DURATION_MIN	1

/*
 * The latency histogram: log-linear buckets like HdrHistogram's with 7
 * significant bits (values below 128 exact, above within 1/64), from 0
 * to 2^40 microseconds (12.7 days).
 */
#define LT_HIST_SUB	64
#define LT_HIST_BUCKETS	(2 * LT_HIST_SUB + 33 * LT_HIST_SUB)

struct lt_hist {
	uint64_t	 count[LT_HIST_BUCKETS];
	uint64_t	 total;
	uint64_t	 max;
};

/* Empty h.  Can't fail. */
void		 lt_hist_reset(struct lt_hist *h);

/* Count one value v (microseconds; clamped to 2^40 - 1).  Can't fail. */
void		 lt_hist_add(struct lt_hist *h, uint64_t v);

/* Add every count of from into to.  Can't fail. */
void		 lt_hist_merge(struct lt_hist *to, const struct lt_hist *from);

/*
 * The value at or below which permille thousandths of the values lie
 * (500: the median, 950: p95, 990: p99; 0-1000), as the highest value
 * its bucket holds (never below the true value, at most 1/64 above),
 * and never above the largest value counted.  0 when h is empty.
 */
uint64_t	 lt_hist_permille(const struct lt_hist *h, unsigned permille);

/*
 * The bucket of value v and the highest value bucket i holds (exposed
 * for the tests).  Can't fail.
 */
size_t		 lt_hist_bucket(uint64_t v);
uint64_t	 lt_hist_bucket_high(size_t i);

/* 1 when name is a profile ("mix", "status", "join"), else 0. */
int		 lt_profile_valid(const char *name);

/*
 * A replay's plan from n samples (t_ms[i] increasing, Unix ms; issued[i]
 * the last number then) sped up speed times (> 0) with volume times the
 * joins (> 0): *due_us a new array (free()) of *njoins due times in
 * microseconds from the start, increasing (each sample interval's joins
 * spread evenly over its scaled length; fractions carried over),
 * *duration_ms the scaled length of the samples, *peak the most joins
 * due within one second of the run ([s, s + 1)).  Returns 0; -1 when
 * fewer than two samples or out of memory; -2 (nothing allocated) when
 * the plan would hold more than max_joins joins.
 */
int		 lt_replay_plan(const int64_t *t_ms, const int64_t *issued,
		    size_t n, double speed, double volume, size_t max_joins,
		    int64_t **due_us, size_t *njoins, int64_t *duration_ms,
		    int64_t *peak);

/*
 * Check a request for a run against the installation's limits (c's
 * loadtest-max-rate and loadtest-max-duration): profile, rate (requests
 * per second) and duration (seconds).  Returns NULL when it is valid,
 * else the API name of the first bad field ("profile", "ratePerSecond"
 * or "durationSeconds") with *rule its rule (static text).
 */
const char	*lt_check(const struct cfg *c, const char *profile,
		    int64_t rate, int64_t duration_s, const char **rule);

/*
 * The regression rule: value (a run's p95 in microseconds, or its
 * error rate in parts per million) is clearly worse than the prior
 * ones (the same measure of the n comparable earlier runs: same queue,
 * profile, rate and duration; the latest LT_PRIOR_MAX) when there are
 * at least LT_PRIOR_MIN of them and value > median + 3 * MAD (median
 * absolute deviation, robust to a noisy run), value >= median * 1.2,
 * and value - median >= floor (an absolute least change: 1 ms of p95,
 * 1 % of errors).  Sets *median.  Returns 1
 * when flagged, else 0.  prior is reordered.
 */
#define LT_PRIOR_MIN	3
#define LT_PRIOR_MAX	10
int		 lt_regressed(int64_t *prior, size_t n, int64_t value,
		    int64_t floor, int64_t *median);

/* The floors of lt_regressed(): 1 ms of p95, 1 % of errors. */
#define LT_FLOOR_P95_US		1000
#define LT_FLOOR_ERR_PPM	10000

/* ---- operations (loadtest-ops.c), for the API and the CLI ---- */

struct db;
struct principal;
struct json_object;
struct lt_run;
struct lt_second;

/* Why an operation was refused. */
struct lt_err {
	int		 status;	/* 403, 404, 409, 422, 500, 503 */
	const char	*code;		/* e.g. "invalid_value" */
	const char	*field;		/* the request's field, or NULL */
	char		 message[256];
};

/*
 * Ask for a run of profile at rate requests per second for duration_s
 * seconds against queue slug on behalf of who (the audit log gets
 * "loadtest.start"); a worker with loadtest-url set runs it.  Refused:
 * 404 queue_not_found; 403 forbidden (an API key, or a queue outside
 * who's scope); 422 invalid_value naming profile, ratePerSecond or
 * durationSeconds (lt_check()); 422 not_a_test_queue (field "queue")
 * when the queue is not a test queue (loadTestQueue), whoever asks; 409
 * load_tests_unavailable when c has no loadtest-url.  Sets *id.
 * Returns APP_OK, or an error with *err set (nothing written).
 */
enum app_err	 lt_ask(struct db *, const struct cfg *c,
		    const struct principal *who, const char *slug,
		    const char *profile, int64_t rate, int64_t duration_s,
		    int64_t *id, struct lt_err *err);

/*
 * Shared by loadtest-ops.c and loadtest-sched.c: lt_refuse() fills
 * *err with status, code, field (or NULL) and a printf-formatted
 * message and returns er; lt_put_time() adds key = ms as ISO 8601
 * (null for ms <= 0) to o.  Neither can fail.
 */
enum app_err	 lt_refuse(struct lt_err *err, enum app_err er, int status,
		    const char *code, const char *field, const char *fmt, ...)
		    __attribute__((format(printf, 6, 7)));
void		 lt_put_time(struct json_object *o, const char *key,
		    int64_t ms);
/*
 * A new object {id, queue, profile, ratePerSecond, durationSeconds}
 * (the members a run and a schedule share), or NULL when out of memory.
 */
struct json_object *lt_json_head(int64_t id, const char *slug,
		    const char *profile, int64_t rate, int64_t duration_s);

/*
 * Insert a pending run (not a replay) of queue qid asked for by who,
 * without checks or audit (the callers made them).  Sets *id.  As
 * db_lt_insert().
 */
enum app_err	 lt_insert_run(struct db *, int64_t qid, const char *profile,
		    int64_t rate, int64_t duration_s,
		    const struct principal *who, int64_t *id);

/*
 * lt_ask()'s checks without writing anything: *queue_id the queue's id
 * when they pass.  Returns APP_OK, or an error with *err set.
 */
enum app_err	 lt_check_ask(struct db *, const struct cfg *c,
		    const struct principal *who, const char *slug,
		    const char *profile, int64_t rate, int64_t duration_s,
		    int64_t *queue_id, struct lt_err *err);

/*
 * Ask for a replay against test queue slug: the joins of queue src's
 * samples (its "issued" between consecutive samples) from from_ms to
 * to_ms (Unix ms), speed_milli / 1000 times faster (1-1000000) and
 * volume_milli / 1000 times as many (1-1000000), each arrival then a
 * visitor as in "mix".  Checked as lt_ask() (the test queue, who, the
 * configuration), then: 404 queue_not_found (field "replay.queue"), 422
 * invalid_value naming replay.to (not after from), replay.from (fewer
 * than two samples, or no join, in the window), replay.speed (the
 * replay would last longer than loadtest-max-duration) or
 * replay.volume (its busiest second above loadtest-max-rate).  The run
 * keeps its busiest second as its rate and its length as its duration.
 * Audited as "loadtest.start".  Sets *id.
 */
#define LT_SCALE_MAX	1000000	/* thousandths: 1000 times, at most */
enum app_err	 lt_ask_replay(struct db *, const struct cfg *c,
		    const struct principal *who, const char *slug,
		    const char *src, int64_t from_ms, int64_t to_ms,
		    int64_t speed_milli, int64_t volume_milli, int64_t *id,
		    struct lt_err *err);

/*
 * A replay's plan for run r (profile "replay"): the samples of its
 * source queue in its window, planned by lt_replay_plan() with its
 * scales, at most max_joins joins.  Returns 0; -1 (fewer than two
 * samples, out of memory), -2 (more than max_joins), -3 (the
 * database).
 */
int		 lt_replay_load(struct db *, const struct lt_run *r,
		    size_t max_joins, int64_t **due_us, size_t *njoins,
		    int64_t *duration_ms, int64_t *peak);

/*
 * The header a load test's requests carry (X-Aqueue-Loadtest) so that
 * the pool process answering adds X-Aqueue-Instance (its instance id):
 * the base64url of HMAC-SHA256(master key, "aditus-queue load test"),
 * known only to the installation's processes, into out (44 bytes at
 * least).  Returns 0, or -1.
 */
#define LT_HEADER_TOKEN_MAX	44
int		 lt_header_token(const uint8_t *master_key, char *out,
		    size_t len);

/*
 * The API's object of run r: {id, queue, profile, ratePerSecond,
 * durationSeconds, status, requestedBy, runner, createdAt, startedAt,
 * finishedAt (ISO 8601 or null), elapsedSeconds, sent, ok, errors,
 * requests {join, status, token} (sent by kind), errorRate,
 * achievedRatePerSecond, latencyMs {p50, p95, p99}, flagged,
 * flagReason, error, replay ({queue, from, to, speed, volume} or
 * null), servedBy ([{instance, requests}], the pool processes that
 * answered)}, with "series" [{second, sent, ok,
 * errors, p50Ms, p95Ms, p99Ms}] when s is not NULL (n seconds).  A new
 * object the caller puts; NULL when out of memory.
 */
struct json_object *lt_run_json(const struct lt_run *r,
		    const struct lt_second *s, size_t n);

/* ---- schedules (loadtest-sched.c) ---------------------------- */

#define LT_ZONE_MAX	64	/* bytes of an IANA time zone's name */
#define LT_EVERY_MAX	(60 * 24 * 28)	/* minutes between runs, at most */

/*
 * 1 when zone names a time zone of the system's database (an IANA name
 * such as "Europe/Madrid" or "UTC": letters, digits, "_", "-", "+" and
 * "/" between names, no "..", a file under TZDIR or
 * /usr/share/zoneinfo), else 0.
 */
int		 lt_zone_valid(const char *zone);

/*
 * The first time after after_ms (Unix ms) that is weekday (0 Sunday -
 * 6 Saturday) at at_min minutes after midnight (0-1439) in zone (valid
 * per lt_zone_valid()), as Unix ms.  A local time that does not exist
 * (the hour skipped when daylight saving time begins) is taken as the
 * same time of the clock an hour later (mktime(3)'s reading); one that
 * exists twice, as its first.  Returns -1 when the zone cannot be used.
 * Sets the process's TZ for the call and restores it (not for threads).
 */
int64_t		 lt_next_weekly(int64_t after_ms, int weekday, int at_min,
		    const char *zone);

/*
 * The next run of an every_min schedule whose run was due at due_ms,
 * now now_ms: due_ms + every_min minutes, or, when that has passed too
 * (the worker was down), the first such step after now_ms (missed runs
 * are not made up).  Can't fail.
 */
int64_t		 lt_next_every(int64_t due_ms, int64_t now_ms,
		    int64_t every_min);

/* One schedule, as the API and the CLI show it. */
struct lt_schedule {
	int64_t	 id;
	int64_t	 queue_id;
	char	 slug[SLUG_MAX + 1];
	char	 profile[LT_PROFILE_MAX + 1];
	int64_t	 rate, duration_s;
	int64_t	 every_min;	/* 0: weekly */
	int64_t	 weekday;	/* 0-6, or -1 */
	int64_t	 at_min;
	char	 zone[LT_ZONE_MAX + 1];
	int64_t	 next_ms;
	char	 created_by[256];
	int64_t	 created_ms;
	int64_t	 last_run_id;	/* 0: none yet */
};

/*
 * Make a schedule of queue slug for who: a run of profile at rate for
 * duration_s every every_min minutes (1-LT_EVERY_MAX; the first now),
 * or, with every_min 0, weekly on weekday at at_min in zone.  Refused
 * as lt_ask() (the same checks, and 422 invalid_value naming
 * everyMinutes, weekday, time or timeZone).  Audited as
 * "loadtest.schedule".  Sets *id.  Returns APP_OK, or an error with
 * *err set (nothing written).
 */
enum app_err	 lt_schedule_add(struct db *, const struct cfg *c,
		    const struct principal *who, const char *slug,
		    const char *profile, int64_t rate, int64_t duration_s,
		    int64_t every_min, int64_t weekday, int64_t at_min,
		    const char *zone, int64_t *id, struct lt_err *err);

/*
 * Delete schedule id for who (audited as "loadtest.unschedule"; an API
 * key is refused).  Returns APP_OK, or an error with *err set (404
 * load_test_not_found when there is none).
 */
enum app_err	 lt_schedule_delete(struct db *, const struct principal *who,
		    int64_t id, struct lt_err *err);

/*
 * The API's object of schedule s: {id, queue, profile, ratePerSecond,
 * durationSeconds, everyMinutes (or null), weekly ({weekday ("sunday"
 * ...), time ("HH:MM"), timeZone}, or null), nextRunAt, createdBy,
 * createdAt, lastRunId (or null)}.  A new object; NULL when out of
 * memory.
 */
struct json_object *lt_schedule_json(const struct lt_schedule *s);

/* "sunday" ... "saturday" to 0-6; -1 for anything else. */
int		 lt_weekday(const char *name);

/* "HH:MM" (00:00-23:59, two digits each) as minutes; -1 otherwise. */
int64_t		 lt_hhmm(const char *s);

/*
 * The leader's step: ask for the runs of the schedules that are due
 * (at most a few per call), each with its next time moved on in the
 * same transaction (guarded: two leaders never ask twice).  A schedule
 * whose checks fail today (lt_check_ask() with c) or whose last run
 * has not ended gets no run that time (logged); its time moves on.  *made says
 * how many runs were asked for.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err	 lt_schedules_run(struct db *, const struct cfg *c,
		    int *made);

#endif /* LOADTEST_H */
