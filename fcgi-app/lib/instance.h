/*
 * instance.h - every running process (a FastCGI pool's master, the
 * background worker) reports itself into table instance every few
 * seconds: host, pid, workers, busy workers, CPU, memory, requests per
 * second by endpoint (/queue/healthz excluded).  Readers (the dashboard,
 * /metrics) drop rows not seen for instance-stale-ms.
 *
 * A pool counts its requests in a shared anonymous mapping that the
 * master creates before it forks (instance_shm_init()); workers add to
 * it with C11 atomics after each request, so counting costs the request
 * path no database work.  The master reads the counters for its report
 * and /metrics reads them for the pool that answers the scrape.  A
 * process without a master (workers = 0) is a pool of its own: it
 * counts, reports and answers /metrics for itself alone, so that the
 * instances' rows add up to the installation.
 *
 * The stale answers' floor (instance_seen()) is shared wider: by every
 * process of the installation on the host, through the file
 * stale-answers.shm in run-dir when there is no master (shm-file.h).
 */
#ifndef INSTANCE_H
#define INSTANCE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct cfg;
struct db;
struct instance_row;
struct json_object;

/* Endpoints requests are counted by. */
enum inst_ep {
	INST_EP_ROOM,		/* GET /queue/<slug> */
	INST_EP_JOIN,
	INST_EP_STATUS,
	INST_EP_TOKEN,
	INST_EP_ENTER,
	INST_EP_VERIFY,
	INST_EP_INFO,
	INST_EP_HEALTHZ,	/* counted, never in requests per second */
	INST_EP_ADMIN,		/* /admin/... (console) */
	INST_EP_API,		/* /api/... */
	INST_EP_METRICS,	/* /metrics */
	INST_EP_OTHER,		/* anything else, 404s included */
	INST_EP__MAX
};

/* Status codes counted one by one; others count as INST_ST_OTHER. */
#define INST_ST__MAX	21
#define INST_ST_OTHER	(INST_ST__MAX - 1)

/* Latency histogram buckets (upper bounds), the last one +Inf. */
#define INST_BUCKETS	12

/*
 * A copy of a pool's counters: requests by endpoint and status, the
 * latency histogram by endpoint (cumulative per bucket as OpenMetrics
 * wants it: bucket i counts requests that took at most the bound of i),
 * the sum of latencies in microseconds, and workers inside a request.
 */
struct inst_counts {
	uint64_t	 requests[INST_EP__MAX][INST_ST__MAX];
	uint64_t	 le[INST_EP__MAX][INST_BUCKETS];
	uint64_t	 sum_us[INST_EP__MAX];
	int64_t		 busy;
};

/* The name of endpoint e ("join", "room", ...).  Static; can't fail. */
const char	*instance_ep_name(enum inst_ep e);

/*
 * The endpoint of a route pattern: "/queue/:slug/<x>" by <x>,
 * "/queue/:slug" is the room, "/queue/healthz" healthz; other paths by
 * their first segment ("admin", "api", "metrics"); else INST_EP_OTHER.
 * Can't fail.
 */
enum inst_ep	 instance_ep_of(const char *pattern);

/* The status code counted in slot i (0 for INST_ST_OTHER). */
int		 instance_status_code(size_t i);

/*
 * The upper bound of bucket i in seconds as OpenMetrics writes it
 * ("0.005", ..., "+Inf").  Static; can't fail.
 */
const char	*instance_bucket_le(size_t i);

/*
 * In a pool's master before it forks, or in a process without a master
 * when it starts: create the counters (anonymous: shared with the
 * children only) and map the stale answers' floor, from the file of
 * run-dir dir, or anonymous when dir is NULL or empty (a file that
 * cannot be used falls back to it, logged).  Returns 0, or -1 (logged;
 * requests are then not counted and there is no floor).
 */
int		 instance_shm_init(const char *dir);

/*
 * A worker starts answering a request / has answered one with status
 * after elapsed_us microseconds.  No-ops without instance_shm_init().
 * Can't fail.
 */
void		 instance_request_begin(void);
void		 instance_request_end(enum inst_ep e, int status,
		    int64_t elapsed_us);

/*
 * Copy the pool's counters into *out (all zero without the shared
 * mapping).  Returns 1 when the pool counts, else 0.
 */
int		 instance_counts(struct inst_counts *out);

/*
 * This process's instance id, "kind:host:pid" (kind "pool" or
 * "worker"), into buf of size n.  Returns 0, or -1 when it does not fit.
 */
int		 instance_id(const char *kind, char *buf, size_t n);

/*
 * Tokens issued by this pool, per queue: a table of INST_TOKEN_SLOTS
 * queues in the shared mapping (queues beyond that are not counted).
 * instance_token_issued() counts one for queue_id; instance_tokens()
 * reads the count (0 for a queue never counted).  Both no-ops without
 * instance_shm_init().  Can't fail.
 */
#define INST_TOKEN_SLOTS	1024
void		 instance_token_issued(int64_t queue_id);
uint64_t	 instance_tokens(int64_t queue_id);

/*
 * Late joins (join-void.c): numbers issued for joins answered 503 and
 * voided, per queue in the same table as the tokens; and joins whose
 * outcome stayed unknown (their connection broke first), for the
 * whole pool.  Counting and reading as for the tokens; can't fail.
 */
void		 instance_join_voided(int64_t queue_id);
uint64_t	 instance_joins_voided(int64_t queue_id);
void		 instance_join_unknown(void);
uint64_t	 instance_joins_unknown(void);

/*
 * The newest any process of this pool (without a master: of the
 * installation on this host) read from the database, per queue (a
 * table of its own, INST_TOKEN_SLOTS queues): the highest serving
 * number answered from a fresh read and the most numbers issued.
 * instance_seen() raises the record of queue_id to serving and last
 * (each only grows, and stays a true lower bound, since neither ever
 * goes back); instance_seen_get() reads them into *serving and *last
 * (0 for a queue never recorded).  A stale answer starts from them, so
 * that no process answers below what another answered.  No-ops without
 * instance_shm_init().  Can't fail.
 */
void		 instance_seen(int64_t queue_id, int64_t serving,
		    int64_t last);
void		 instance_seen_get(int64_t queue_id, int64_t *serving,
		    int64_t *last);

/*
 * The work a process does between two requests, timed step by step: the
 * embedded worker's (embedded-worker.h) and the poll documents' writer's
 * (docwriter.h).  instance_step_end() counts one step of kind k that
 * took elapsed_us microseconds (only steps that did work: a database
 * statement or a job); instance_steps() copies the counts, cumulative
 * per bucket as OpenMetrics wants them, with the sum and the longest
 * step.  Buckets are INST_STEP_BUCKETS upper bounds, the last +Inf,
 * written by instance_step_le() ("0.00025", ..., "+Inf").  Both no-ops
 * (zeros) without instance_shm_init(); can't fail.
 */
enum inst_step {
	INST_STEP_WORKER,	/* the embedded worker's step */
	INST_STEP_DOCS,		/* the poll documents' rewrite */
	INST_STEP__MAX
};
#define INST_STEP_BUCKETS	12
struct inst_steps {
	uint64_t	 le[INST_STEP__MAX][INST_STEP_BUCKETS];
	uint64_t	 sum_us[INST_STEP__MAX];
	uint64_t	 max_us[INST_STEP__MAX];
};
void		 instance_step_end(enum inst_step k, int64_t elapsed_us);
int		 instance_steps(struct inst_steps *out);
const char	*instance_step_le(size_t i);

/*
 * CPU time (user + system, clock ticks as in /proc/<pid>/stat) and
 * resident memory (KiB) of the processes pids[0..n-1], summed; pids
 * that are gone or 0 are skipped.  Linux /proc(5).  Can't fail.
 */
void		 instance_proc_usage(const pid_t *pids, size_t n,
		    int64_t *cpu_ticks, int64_t *rss_kb);

/* What a process reports; see table instance. */
struct instance_report {
	const char	*kind;		/* "pool" or "worker" */
	int64_t		 workers;
	int64_t		 busy;
	double		 cpu_pct;	/* 100 = one core, since last report */
	int64_t		 rss_kb;
	const char	*rps_json;	/* {"join":1.5}; NULL: "{}" */
	int		 leader;	/* worker: holds the leadership */
};

/*
 * Upsert the calling process's row of table instance (id from
 * instance_id(r->kind), host from gethostname(2), pid getpid()) with
 * the database's time as seen_ms (and started_ms on the first report).
 * Returns APP_OK, APP_INVALID (kind too long), APP_DB or APP_DB_DOWN.
 */
enum app_err	 instance_report(struct db *, const struct instance_report *r);

/*
 * Delete the calling process's row (on a clean stop).  Returns APP_OK,
 * APP_INVALID, APP_DB or APP_DB_DOWN.
 */
enum app_err	 instance_remove(struct db *, const char *kind);

/*
 * The pool master's periodic work, called about once a second from its
 * loop, with its n slots of children (0: an empty slot) and the n
 * slots old of those draining after a reload: every
 * instance-report-ms, and at once when the number of live children
 * changed (an elastic pool grew or shrank), it reports the pool
 * (workers: the live children; busy, CPU and RSS of master and
 * children, draining ones too, from /proc, the CPU of children that
 * exited from getrusage(2), requests per second by endpoint since the
 * previous report from the shared counters), and
 * every stats-interval-ms, while it holds the database's named lock
 * "aqueue-stats", it samples every queue (stats_sample()).  Database
 * failures are logged and retried at the next interval.  Can't fail.
 */
void		 instance_pool_tick(struct db *, const struct cfg *,
		    const pid_t *children, const pid_t *old, size_t n);

/*
 * The periodic work of a FastCGI process without a master (workers =
 * 0, each process started by the web server): every instance-report-ms
 * it reports itself (kind "pool", one worker), but only when it
 * answered requests since its last report, so that idle processes cost
 * the database nothing (their rows age out of the readers' view).
 * Returns 1 when it reported, else 0.  Can't fail (logged).
 */
int		 instance_single_tick(struct db *, const struct cfg *);

/*
 * Instance row x as a new JSON object (the caller puts it): {"id",
 * "kind","host","pid","workers","busy","cpuPct","rssKb",
 * "requestsPerSecond":{endpoint: per second},"leader","startedMs",
 * "seenMs"}, for the dashboard and the admin API.  NULL when out of
 * memory.
 */
struct json_object *instance_row_json(const struct instance_row *x);

/*
 * The n rows of v as a new JSON array of instance_row_json() objects
 * (the caller puts it; a row out of memory is left out).
 */
struct json_object *instance_rows_json(const struct instance_row *v,
		    size_t n);

#endif /* INSTANCE_H */
