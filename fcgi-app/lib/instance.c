/*
 * instance.c - a process's report of itself into table instance, the
 * pool's request counters in shared memory, and the stale answers'
 * floor shared by every process of the installation on a host.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "db-stats.h"
#include "instance.h"
#include "log.h"
#include "shm-file.h"
#include "stats.h"

static const char *const ep_names[INST_EP__MAX] = {
	"room", "join", "status", "token", "enter", "verify", "info",
	"healthz", "admin", "api", "metrics", "other"
};

static const int st_codes[INST_ST__MAX] = {
	200, 201, 204, 302, 303, 304, 400, 401, 403, 404, 405, 409, 411,
	413, 415, 422, 429, 500, 502, 503, 0
};

/* Upper bounds in microseconds; the last bucket takes the rest. */
static const int64_t bucket_us[INST_BUCKETS - 1] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000
};
static const char *const bucket_le[INST_BUCKETS] = {
	"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
	"0.5", "1.0", "2.5", "+Inf"
};

/*
 * A table of two values per queue, INST_TOKEN_SLOTS queues, found by
 * queue_slot().
 */
struct qtable {
	struct {
		atomic_llong	 queue_id;	/* 0: free */
		atomic_llong	 v[2];
	}		 s[INST_TOKEN_SLOTS];
};

/*
 * The steps between requests: finer, since they are meant to take a few
 * milliseconds at most (0.02: the bound the tests hold them to).
 */
static const int64_t step_us[INST_STEP_BUCKETS - 1] = {
	250, 500, 1000, 2500, 5000, 10000, 20000, 50000, 100000, 250000,
	1000000
};
static const char *const step_le[INST_STEP_BUCKETS] = {
	"0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.02",
	"0.05", "0.1", "0.25", "1.0", "+Inf"
};

/* The shared counters; buckets here are not cumulative. */
struct inst_shm {
	atomic_ullong	 requests[INST_EP__MAX][INST_ST__MAX];
	atomic_ullong	 bucket[INST_EP__MAX][INST_BUCKETS];
	atomic_ullong	 sum_us[INST_EP__MAX];
	atomic_llong	 busy;
	struct qtable	 tokens;	/* tokens issued, late joins voided */
	atomic_ullong	 join_unknown;	/* late joins, outcome unknown */
	/* Steps between requests (not cumulative), their sum and maximum. */
	atomic_ullong	 step[INST_STEP__MAX][INST_STEP_BUCKETS];
	atomic_ullong	 step_sum_us[INST_STEP__MAX];
	atomic_ullong	 step_max_us[INST_STEP__MAX];
};

/* The values of the tables' entries. */
#define V_TOKENS	0
#define V_VOIDED	1
#define V_SERVING	0	/* highest fresh serving */
#define V_LAST		1	/* ... and numbers issued */

/* The stale-answer record's file in run-dir, kind ("SEEN"), layout. */
#define SEEN_FILE	"stale-answers.shm"
#define SEEN_MAGIC	0x5345454eu
#define SEEN_LAYOUT	1u

static struct inst_shm	*shm;
static struct qtable	*seen;

const char *
instance_ep_name(enum inst_ep e)
{
	return e < INST_EP__MAX ? ep_names[e] : "other";
}

enum inst_ep
instance_ep_of(const char *pattern)
{
	const char	*s, *last;
	size_t		 i, n;

	if (strcmp(pattern, "/queue/:slug") == 0)
		return INST_EP_ROOM;
	if (strncmp(pattern, "/queue/", 7) == 0) {
		last = strrchr(pattern, '/') + 1;
		n = strlen(last);
	} else {
		last = pattern + (pattern[0] == '/');
		s = strchr(last, '/');
		n = s != NULL ? (size_t)(s - last) : strlen(last);
	}
	for (i = 0; i < INST_EP_OTHER; i++)
		if (strlen(ep_names[i]) == n &&
		    strncmp(ep_names[i], last, n) == 0 && i != INST_EP_ROOM)
			return (enum inst_ep)i;
	return INST_EP_OTHER;
}

int
instance_status_code(size_t i)
{
	return i < INST_ST__MAX ? st_codes[i] : 0;
}

const char *
instance_bucket_le(size_t i)
{
	return i < INST_BUCKETS ? bucket_le[i] : "+Inf";
}

int
instance_shm_init(const char *dir)
{
	void	*p;

	if (shm != NULL)
		return 0;
	/* Zero-filled (as a new file is): every counter starts at 0. */
	p = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_warn("mmap");
		return -1;
	}
	if (shm_file_map(dir, SEEN_FILE, SEEN_MAGIC, SEEN_LAYOUT,
	    sizeof(*seen), NULL, NULL, "the stale answers' floor",
	    (void **)&seen) == SHM_FILE_FAILED) {
		munmap(p, sizeof(*shm));
		return -1;
	}
	shm = p;
	return 0;
}

void
instance_request_begin(void)
{
	if (shm != NULL)
		atomic_fetch_add(&shm->busy, 1);
}

void
instance_request_end(enum inst_ep e, int status, int64_t elapsed_us)
{
	size_t	 i, st = INST_ST_OTHER;

	if (shm == NULL)
		return;
	if (e >= INST_EP__MAX)
		e = INST_EP_OTHER;
	if (elapsed_us < 0)
		elapsed_us = 0;
	for (i = 0; i < INST_ST_OTHER; i++)
		if (st_codes[i] == status) {
			st = i;
			break;
		}
	for (i = 0; i < INST_BUCKETS - 1; i++)
		if (elapsed_us <= bucket_us[i])
			break;
	atomic_fetch_add(&shm->requests[e][st], 1);
	atomic_fetch_add(&shm->bucket[e][i], 1);
	atomic_fetch_add(&shm->sum_us[e], (unsigned long long)elapsed_us);
	atomic_fetch_sub(&shm->busy, 1);
}

/* Histogram counts b[0..n) as OpenMetrics wants them: le[i] = sum to i. */
static void
cumulate(const atomic_ullong *b, uint64_t *le, size_t n)
{
	uint64_t	 acc = 0;
	size_t		 i;

	for (i = 0; i < n; i++) {
		acc += atomic_load(&b[i]);
		le[i] = acc;
	}
}

int
instance_counts(struct inst_counts *out)
{
	size_t		 e, i;

	memset(out, 0, sizeof(*out));
	if (shm == NULL)
		return 0;
	for (e = 0; e < INST_EP__MAX; e++) {
		for (i = 0; i < INST_ST__MAX; i++)
			out->requests[e][i] = atomic_load(&shm->requests[e][i]);
		cumulate(shm->bucket[e], out->le[e], INST_BUCKETS);
		out->sum_us[e] = atomic_load(&shm->sum_us[e]);
	}
	out->busy = atomic_load(&shm->busy);
	if (out->busy < 0)
		out->busy = 0;
	return 1;
}

int
instance_id(const char *kind, char *buf, size_t n)
{
	char	 host[INSTANCE_HOST_MAX + 1];
	int	 w;

	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	w = snprintf(buf, n, "%s:%s:%ld", kind, host, (long)getpid());
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

void
instance_proc_usage(const pid_t *pids, size_t n, int64_t *cpu_ticks,
    int64_t *rss_kb)
{
	char		 path[64], line[1024], *p;
	long		 page_kb = sysconf(_SC_PAGESIZE) / 1024;
	unsigned long long utime, stime;
	long long	 size, resident;
	size_t		 i, got;
	FILE		*f;

	*cpu_ticks = 0;
	*rss_kb = 0;
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pids[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		got = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
		line[got] = '\0';
		/* Fields after the command's ")": state is field 3. */
		if ((p = strrchr(line, ')')) == NULL ||
		    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu", &utime, &stime) != 2)
			continue;
		*cpu_ticks += (int64_t)(utime + stime);
		snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pids[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%lld %lld", &size, &resident) == 2)
			*rss_kb += (int64_t)resident * page_kb;
		fclose(f);
	}
}

enum app_err
instance_report(struct db *db, const struct instance_report *r)
{
	struct instance_row	 row;

	memset(&row, 0, sizeof(row));
	if (strlen(r->kind) >= sizeof(row.kind) ||
	    instance_id(r->kind, row.id, sizeof(row.id)) == -1)
		return APP_INVALID;
	snprintf(row.kind, sizeof(row.kind), "%s", r->kind);
	if (gethostname(row.host, INSTANCE_HOST_MAX) == -1)
		snprintf(row.host, sizeof(row.host), "unknown");
	row.host[INSTANCE_HOST_MAX] = '\0';
	row.pid = (int64_t)getpid();
	row.workers = r->workers;
	row.busy = r->busy;
	row.cpu_pct = r->cpu_pct;
	row.rss_kb = r->rss_kb;
	snprintf(row.rps_json, sizeof(row.rps_json), "%s",
	    r->rps_json != NULL ? r->rps_json : "{}");
	row.leader = r->leader ? 1 : 0;
	return db_instance_upsert(db, &row);
}

enum app_err
instance_remove(struct db *db, const char *kind)
{
	char	 id[INSTANCE_ID_MAX + 1];

	if (instance_id(kind, id, sizeof(id)) == -1)
		return APP_INVALID;
	return db_instance_delete(db, id);
}

/* What the master remembers between two reports. */
static struct {
	int64_t			 report_ms;	/* monotonic; 0: never */
	int64_t			 stats_ms;
	int64_t			 cpu_ticks;
	int64_t			 workers;	/* in the last report */
	struct inst_counts	 counts;
} tick;

/*
 * Requests per second by endpoint between the counts a and b taken
 * dt_ms apart, as a JSON object into out of size n; healthz left out,
 * endpoints without requests left out.
 */
static void
rps_json(const struct inst_counts *a, const struct inst_counts *b,
    int64_t dt_ms, char *out, size_t n)
{
	size_t		 e, i, len = 0;
	uint64_t	 d;
	int		 w;

	w = snprintf(out, n, "{");
	len = (size_t)w;
	for (e = 0; e < INST_EP__MAX && dt_ms > 0; e++) {
		if (e == INST_EP_HEALTHZ)
			continue;
		d = 0;
		for (i = 0; i < INST_ST__MAX; i++)
			d += b->requests[e][i] - a->requests[e][i];
		if (d == 0)
			continue;
		w = snprintf(out + len, n - len, "%s\"%s\":%.2f",
		    len > 1 ? "," : "", ep_names[e],
		    (double)d * 1000.0 / (double)dt_ms);
		if (w < 0 || (size_t)w >= n - len - 1)
			break;
		len += (size_t)w;
	}
	snprintf(out + len, n - len, "}");
}

/* How many of pids[0..n-1] are processes (not 0). */
static int64_t
live_pids(const pid_t *pids, size_t n)
{
	size_t	 i;
	int64_t	 live = 0;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			live++;
	return live;
}

/*
 * The CPU time, in clock ticks of hz, of this process's children that
 * have exited and been waited for (getrusage(2) RUSAGE_CHILDREN), 0
 * when it cannot be read.  Can't fail.
 */
static int64_t
reaped_ticks(long hz)
{
	struct rusage	 ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * hz +
	    ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * hz /
	    1000000;
}

/*
 * Report the pool (this process and its children, the n slots of
 * children where 0 is an empty slot, and the n slots old of those
 * draining after a reload, NULL for none; workers the live children,
 * or 1 for a process without children) at monotonic time t, from the
 * shared counters now_counts.  The CPU time counts the draining
 * children and those that exited too (a retired, respawned or drained
 * process), so that it neither falls nor jumps when one goes.  Can't
 * fail (logged).
 */
static void
pool_report(struct db *db, const pid_t *children, const pid_t *old,
    size_t n, int64_t t, const struct inst_counts *now_counts)
{
	struct instance_report	 r;
	char			 rps[INSTANCE_RPS_MAX + 1];
	pid_t			*pids;
	int64_t			 cpu, rss, dt;
	long			 hz = sysconf(_SC_CLK_TCK);
	enum app_err		 er;

	pids = xcalloc(2 * n + 1, sizeof(*pids));
	pids[0] = getpid();
	if (n > 0)
		memcpy(pids + 1, children, n * sizeof(*pids));
	if (n > 0 && old != NULL)
		memcpy(pids + 1 + n, old, n * sizeof(*pids));
	instance_proc_usage(pids, 2 * n + 1, &cpu, &rss);
	free(pids);
	if (n > 0)
		cpu += reaped_ticks(hz);
	dt = tick.report_ms == 0 ? 0 : t - tick.report_ms;
	memset(&r, 0, sizeof(r));
	r.kind = "pool";
	r.workers = n > 0 ? live_pids(children, n) : 1;
	r.busy = now_counts->busy;
	r.cpu_pct = dt > 0 && hz > 0 ? (double)(cpu - tick.cpu_ticks) *
	    100000.0 / (double)hz / (double)dt : 0.0;
	if (r.cpu_pct < 0)
		r.cpu_pct = 0;
	r.rss_kb = rss;
	rps_json(&tick.counts, now_counts, dt, rps, sizeof(rps));
	r.rps_json = rps;
	if ((er = instance_report(db, &r)) != APP_OK)
		log_warnx("instance report failed (%d)", (int)er);
	tick.report_ms = t;
	tick.cpu_ticks = cpu;
	tick.workers = r.workers;
	tick.counts = *now_counts;
}

int
instance_single_tick(struct db *db, const struct cfg *c)
{
	struct inst_counts	 now_counts;
	int64_t			 t = mono_ms();

	if (tick.report_ms != 0 && t - tick.report_ms < c->instance_report_ms)
		return 0;
	(void)instance_counts(&now_counts);
	if (memcmp(now_counts.requests, tick.counts.requests,
	    sizeof(now_counts.requests)) == 0)
		return 0;
	pool_report(db, NULL, NULL, 0, t, &now_counts);
	return 1;
}

void
instance_pool_tick(struct db *db, const struct cfg *c,
    const pid_t *children, const pid_t *old, size_t n)
{
	struct inst_counts	 now_counts;
	int64_t			 t = mono_ms();
	size_t			 sampled;
	int			 held;
	enum app_err		 er;

	/* A process started or gone (an elastic pool): report it now. */
	if (tick.report_ms == 0 || t - tick.report_ms >=
	    c->instance_report_ms || live_pids(children, n) != tick.workers) {
		(void)instance_counts(&now_counts);
		pool_report(db, children, old, n, t, &now_counts);
	}
	if (c->stats_interval_ms > 0 && (tick.stats_ms == 0 ||
	    t - tick.stats_ms >= c->stats_interval_ms)) {
		tick.stats_ms = t;
		if (stats_try_lock(db, &held) != APP_OK || !held)
			return;
		if ((er = stats_sample(db, c->stats_retention_s * 1000,
		    DB_PRUNE_MAX, &sampled)) != APP_OK)
			log_warnx("stats sample failed (%d)", (int)er);
	}
}

/*
 * The slot of queue_id in table t (taken for it now when take is set
 * and a slot is free), or -1 when it has none.
 */
static ssize_t
queue_slot(struct qtable *t, int64_t queue_id, int take)
{
	size_t		 i, k;
	long long	 want, id;

	if (t == NULL || queue_id <= 0)
		return -1;
	for (k = 0; k < INST_TOKEN_SLOTS; k++) {
		i = ((size_t)queue_id * 2654435761u + k) % INST_TOKEN_SLOTS;
		id = atomic_load(&t->s[i].queue_id);
		if (id == queue_id)
			return (ssize_t)i;
		if (id != 0)
			continue;
		if (!take)
			return -1;
		want = 0;
		if (atomic_compare_exchange_strong(&t->s[i].queue_id,
		    &want, queue_id) || want == queue_id)
			return (ssize_t)i;
	}
	return -1;
}

/* Count one for value v of queue_id in the pool's tokens table. */
static void
count_one(int64_t queue_id, int v)
{
	ssize_t	 i;

	if (shm != NULL && (i = queue_slot(&shm->tokens, queue_id, 1)) >= 0)
		atomic_fetch_add(&shm->tokens.s[i].v[v], 1);
}

/* Value v of queue_id in the pool's tokens table (0: never counted). */
static uint64_t
count_of(int64_t queue_id, int v)
{
	ssize_t	 i;

	if (shm == NULL || (i = queue_slot(&shm->tokens, queue_id, 0)) < 0)
		return 0;
	return (uint64_t)atomic_load(&shm->tokens.s[i].v[v]);
}

void
instance_token_issued(int64_t queue_id)
{
	count_one(queue_id, V_TOKENS);
}

uint64_t
instance_tokens(int64_t queue_id)
{
	return count_of(queue_id, V_TOKENS);
}

void
instance_join_voided(int64_t queue_id)
{
	count_one(queue_id, V_VOIDED);
}

uint64_t
instance_joins_voided(int64_t queue_id)
{
	return count_of(queue_id, V_VOIDED);
}

/* Raise *a to v if v is larger (concurrently with other processes). */
static void
atomic_raise(atomic_llong *a, int64_t v)
{
	long long	 had = atomic_load(a);

	while (had < v && !atomic_compare_exchange_weak(a, &had, v))
		continue;
}

void
instance_seen(int64_t queue_id, int64_t serving, int64_t last)
{
	ssize_t	 i;

	if ((i = queue_slot(seen, queue_id, 1)) < 0)
		return;
	atomic_raise(&seen->s[i].v[V_SERVING], serving);
	atomic_raise(&seen->s[i].v[V_LAST], last);
}

void
instance_seen_get(int64_t queue_id, int64_t *serving, int64_t *last)
{
	ssize_t	 i;

	*serving = *last = 0;
	if ((i = queue_slot(seen, queue_id, 0)) < 0)
		return;
	*serving = atomic_load(&seen->s[i].v[V_SERVING]);
	*last = atomic_load(&seen->s[i].v[V_LAST]);
}

void
instance_join_unknown(void)
{
	if (shm != NULL)
		atomic_fetch_add(&shm->join_unknown, 1);
}

uint64_t
instance_joins_unknown(void)
{
	return shm != NULL ? atomic_load(&shm->join_unknown) : 0;
}

struct json_object *
instance_row_json(const struct instance_row *x)
{
	struct json_object	*o, *rps;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_string(x->id));
	json_object_object_add(o, "kind", json_object_new_string(x->kind));
	json_object_object_add(o, "host", json_object_new_string(x->host));
	json_object_object_add(o, "pid", json_object_new_int64(x->pid));
	json_object_object_add(o, "workers",
	    json_object_new_int64(x->workers));
	json_object_object_add(o, "busy", json_object_new_int64(x->busy));
	/* Tenths are as precise as a CPU share over a few seconds gets. */
	json_object_object_add(o, "cpuPct",
	    json_object_new_double(round_tenths(x->cpu_pct)));
	json_object_object_add(o, "rssKb", json_object_new_int64(x->rss_kb));
	rps = json_tokener_parse(x->rps_json);
	json_object_object_add(o, "requestsPerSecond", rps != NULL ? rps :
	    json_object_new_object());
	json_object_object_add(o, "leader",
	    json_object_new_boolean(x->leader != 0));
	json_object_object_add(o, "startedMs",
	    json_object_new_int64(x->started_ms));
	json_object_object_add(o, "seenMs", json_object_new_int64(x->seen_ms));
	return o;
}

struct json_object *
instance_rows_json(const struct instance_row *v, size_t n)
{
	struct json_object	*a = json_object_new_array(), *x;
	size_t			 i;

	for (i = 0; a != NULL && i < n; i++)
		if ((x = instance_row_json(&v[i])) != NULL)
			json_object_array_add(a, x);
	return a;
}

void
instance_step_end(enum inst_step k, int64_t elapsed_us)
{
	unsigned long long	 us, max;
	size_t			 i;

	if (shm == NULL || k >= INST_STEP__MAX)
		return;
	us = elapsed_us > 0 ? (unsigned long long)elapsed_us : 0;
	for (i = 0; i < INST_STEP_BUCKETS - 1; i++)
		if ((int64_t)us <= step_us[i])
			break;
	atomic_fetch_add(&shm->step[k][i], 1);
	atomic_fetch_add(&shm->step_sum_us[k], us);
	max = atomic_load(&shm->step_max_us[k]);
	while (us > max &&
	    !atomic_compare_exchange_weak(&shm->step_max_us[k], &max, us))
		;
}

int
instance_steps(struct inst_steps *out)
{
	size_t		 k;

	memset(out, 0, sizeof(*out));
	if (shm == NULL)
		return 0;
	for (k = 0; k < INST_STEP__MAX; k++) {
		cumulate(shm->step[k], out->le[k], INST_STEP_BUCKETS);
		out->sum_us[k] = atomic_load(&shm->step_sum_us[k]);
		out->max_us[k] = atomic_load(&shm->step_max_us[k]);
	}
	return 1;
}

const char *
instance_step_le(size_t i)
{
	return i < INST_STEP_BUCKETS ? step_le[i] : "+Inf";
}
