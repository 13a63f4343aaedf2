/*
 * page-metrics.c - GET /metrics: Prometheus metrics in the OpenMetrics
 * text format 1.0.0 (content type application/openmetrics-text;
 * version=1.0.0; charset=utf-8, "# EOF" last).  Per queue: waiting,
 * serving, issued, rate (gauges, read from the queue rows at the
 * database's now), joins and tokens (counters: numbers issued since the
 * queue was made; tokens issued and late joins voided by this pool
 * since it started).  Per pool (the one answering the scrape): requests
 * by endpoint and status, a latency histogram by endpoint, joins whose
 * outcome stayed unknown, the steps between requests (the embedded
 * worker's and the poll documents' writer's: histograms and their
 * longest), workers and busy workers.  Only for
 * clients in metrics-allow, or with "Authorization: Bearer
 * <metrics-token>".
 */
#include "config.h"

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "elastic.h"
#include "extern.h"
#include "db-loadtest.h"
#include "instance.h"
#include "page-metrics.h"
#include "queue-ops.h"

#define CTYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * Whether address a matches entry e of the allowlist: an IPv4 or IPv6
 * address, optionally "/prefix".  Returns 1 or 0.
 */
static int
addr_match(const char *a, const char *e, size_t elen)
{
	char		 ent[64], *slash;
	uint8_t		 x[16], y[16];
	int64_t		 bits;
	int		 af, len, i;

	if (elen == 0 || elen >= sizeof(ent))
		return 0;
	memcpy(ent, e, elen);
	ent[elen] = '\0';
	af = strchr(ent, ':') != NULL ? AF_INET6 : AF_INET;
	len = af == AF_INET6 ? 16 : 4;
	bits = len * 8;
	if ((slash = strchr(ent, '/')) != NULL) {
		*slash = '\0';
		if (parse_int64(slash + 1, 0, len * 8, &bits) == -1)
			return 0;
	}
	if (inet_pton(af, ent, y) != 1 || inet_pton(af, a, x) != 1)
		return 0;
	for (i = 0; i < len && bits > 0; i++, bits -= 8) {
		uint8_t	 m = bits >= 8 ? 0xff :
		    (uint8_t)(0xff << (8 - bits));

		if ((x[i] & m) != (y[i] & m))
			return 0;
	}
	return 1;
}

/* Whether the request may read the metrics; answers 401/403 itself. */
static int
allowed(struct req *r)
{
	const char	*a = req_remote_addr(r), *h = req_authorization(r);
	const char	*tok = r->cfg->metrics_token, *p, *e;
	size_t		 n;

	if (tok[0] != '\0' && h != NULL) {
		n = strlen(tok);
		if (strncasecmp(h, "Bearer ", 7) == 0 &&
		    strlen(h + 7) == n && crypto_ct_equal(h + 7, tok, n))
			return 1;
		http_header(r, "WWW-Authenticate", "Bearer");
		http_app_err(r, ERR_INVALID_TOKEN);
		return 0;
	}
	for (p = r->cfg->metrics_allow; a != NULL && *p != '\0'; p = e) {
		p += strspn(p, " ,");
		e = p + strcspn(p, " ,");
		if (addr_match(a, p, (size_t)(e - p)))
			return 1;
	}
	if (tok[0] != '\0') {
		http_header(r, "WWW-Authenticate", "Bearer");
		http_app_errf(r, ERR_MISSING_CREDENTIALS,
		    "The metrics need a bearer token from this address.");
		return 0;
	}
	http_app_errf(r, ERR_FORBIDDEN,
	    "This address may not read the metrics.");
	return 0;
}

/* "# TYPE name type\n# HELP name help\n". */
static void
family(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

/* The families of the steps between requests, in the order of inst_step. */
static const char *const step_family[INST_STEP__MAX] = {
	"aqueue_embedded_worker_step_seconds",
	"aqueue_poll_documents_step_seconds"
};
static const char *const step_max[INST_STEP__MAX] = {
	"aqueue_embedded_worker_step_max_seconds",
	"aqueue_poll_documents_step_max_seconds"
};
static const char *const step_help[INST_STEP__MAX] = {
	"Steps of the embedded worker between two requests (the leader "
	"lock, one due job), in this pool.",
	"Rewrites of the poll documents between two requests, in this pool."
};

/*
 * The steps between requests (instance_steps()): per kind a histogram,
 * and a gauge of the longest one.  Nothing for a kind that never ran.
 */
static void
steps(struct buf *b)
{
	struct inst_steps	 s;
	size_t			 k, i;

	if (!instance_steps(&s))
		return;
	for (k = 0; k < INST_STEP__MAX; k++) {
		const char	*f = step_family[k];

		if (s.le[k][INST_STEP_BUCKETS - 1] == 0)
			continue;
		family(b, f, "histogram", step_help[k]);
		for (i = 0; i < INST_STEP_BUCKETS; i++)
			buf_printf(b, "%s_bucket{le=\"%s\"} %llu\n", f,
			    instance_step_le(i),
			    (unsigned long long)s.le[k][i]);
		buf_printf(b, "%s_count %llu\n%s_sum %.6f\n", f,
		    (unsigned long long)s.le[k][INST_STEP_BUCKETS - 1], f,
		    (double)s.sum_us[k] / 1e6);
	}
	for (k = 0; k < INST_STEP__MAX; k++) {
		if (s.le[k][INST_STEP_BUCKETS - 1] == 0)
			continue;
		family(b, step_max[k], "gauge", "The longest of these steps "
		    "since the pool started.");
		buf_printf(b, "%s %.6f\n", step_max[k],
		    (double)s.max_us[k] / 1e6);
	}
}

/*
 * The latest finished load test of each test queue and profile: its
 * p95, its error ratio, and whether it was flagged as clearly worse
 * than the comparable earlier runs (loadtest.h).  Nothing when none
 * ran or the runs cannot be read.
 */
static void
loadtests(struct buf *b, struct db *db)
{
	struct lt_run	*l = NULL;
	size_t		 n = 0, i;

	if (db_lt_latest(db, &l, &n) != APP_OK || n == 0) {
		free(l);
		return;
	}
	family(b, "aqueue_loadtest_flagged", "gauge", "1 when the latest "
	    "load test of the queue and profile was clearly worse than the "
	    "comparable earlier runs (p95 or error rate above their median "
	    "+ 3 MAD and 20 %), else 0.");
	for (i = 0; i < n; i++)
		buf_printf(b, "aqueue_loadtest_flagged{queue=\"%s\",profile="
		    "\"%s\"} %d\n", l[i].slug, l[i].profile, l[i].flagged != 0);
	family(b, "aqueue_loadtest_p95_seconds", "gauge", "The p95 latency "
	    "of the latest load test of the queue and profile (from when "
	    "each request was due).");
	for (i = 0; i < n; i++)
		buf_printf(b, "aqueue_loadtest_p95_seconds{queue=\"%s\","
		    "profile=\"%s\"} %.6f\n", l[i].slug, l[i].profile,
		    (double)l[i].p95_us / 1e6);
	family(b, "aqueue_loadtest_error_ratio", "gauge", "Errors per "
	    "request of the latest load test of the queue and profile.");
	for (i = 0; i < n; i++)
		buf_printf(b, "aqueue_loadtest_error_ratio{queue=\"%s\","
		    "profile=\"%s\"} %.6f\n", l[i].slug, l[i].profile,
		    l[i].sent > 0 ? (double)l[i].errors / (double)l[i].sent :
		    0.0);
	free(l);
}

void
page_metrics(struct req *r)
{
	struct buf		 b = { NULL, 0, 0 };
	struct queue		**qs = NULL;
	struct qops_err		 err;
	struct inst_counts	 c;
	size_t			 n = 0, i, e, k;
	int64_t			 now, workers;
	enum app_err		 er;
	int			 pool;

	if (!allowed(r))
		return;
	if ((er = qops_list(r->db, &qs, &n, &err)) != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	now = qops_now(r->db);
	family(&b, "aqueue_queue_waiting", "gauge",
	    "People waiting: numbers issued and not yet admitted.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_waiting{queue=\"%s\"} %lld\n",
		    qs[i]->slug, (long long)adm_waiting(&qs[i]->adm, now));
	family(&b, "aqueue_queue_serving", "gauge",
	    "The serving number: numbers up to it are admitted.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_serving{queue=\"%s\"} %lld\n",
		    qs[i]->slug, (long long)adm_serving(&qs[i]->adm, now));
	family(&b, "aqueue_queue_issued", "gauge",
	    "The last number issued.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_issued{queue=\"%s\"} %lld\n",
		    qs[i]->slug, (long long)qs[i]->adm.last_number);
	family(&b, "aqueue_queue_rate_per_minute", "gauge",
	    "The admission rate, visitors per minute.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_rate_per_minute{queue=\"%s\"} "
		    "%lld\n", qs[i]->slug,
		    (long long)adm_rate_at(&qs[i]->adm, now));
	family(&b, "aqueue_queue_active", "gauge",
	    "1 while the queue admits, 0 while it is paused.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_active{queue=\"%s\"} %d\n",
		    qs[i]->slug, adm_active_at(&qs[i]->adm, now));
	family(&b, "aqueue_queue_joins", "counter",
	    "Joins: numbers issued since the queue was made.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_joins_total{queue=\"%s\"} %lld\n",
		    qs[i]->slug, (long long)qs[i]->adm.last_number);
	family(&b, "aqueue_queue_tokens", "counter",
	    "Access tokens issued by this pool since it started.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_tokens_total{queue=\"%s\"} "
		    "%llu\n", qs[i]->slug,
		    (unsigned long long)instance_tokens(qs[i]->id));
	family(&b, "aqueue_queue_joins_voided", "counter",
	    "Numbers issued for joins that this pool had answered 503 (the "
	    "database answered too late), voided since it started: each "
	    "one's place is given back.");
	for (i = 0; i < n; i++)
		buf_printf(&b, "aqueue_queue_joins_voided_total{queue=\"%s\"} "
		    "%llu\n", qs[i]->slug,
		    (unsigned long long)instance_joins_voided(qs[i]->id));
	qops_list_free(qs, n);

	pool = instance_counts(&c);
	family(&b, "aqueue_http_requests", "counter",
	    "Requests answered by this pool, by endpoint and status.");
	for (e = 0; pool && e < INST_EP__MAX; e++)
		for (k = 0; k < INST_ST__MAX; k++) {
			if (c.requests[e][k] == 0)
				continue;
			if (k == INST_ST_OTHER)
				buf_printf(&b, "aqueue_http_requests_total{"
				    "endpoint=\"%s\",status=\"other\"} %llu\n",
				    instance_ep_name((enum inst_ep)e),
				    (unsigned long long)c.requests[e][k]);
			else
				buf_printf(&b, "aqueue_http_requests_total{"
				    "endpoint=\"%s\",status=\"%d\"} %llu\n",
				    instance_ep_name((enum inst_ep)e),
				    instance_status_code(k),
				    (unsigned long long)c.requests[e][k]);
		}
	family(&b, "aqueue_http_request_duration_seconds", "histogram",
	    "Time from accepting a request to its last byte, by endpoint.");
	for (e = 0; pool && e < INST_EP__MAX; e++) {
		const char *ep = instance_ep_name((enum inst_ep)e);

		if (c.le[e][INST_BUCKETS - 1] == 0)
			continue;
		for (k = 0; k < INST_BUCKETS; k++)
			buf_printf(&b, "aqueue_http_request_duration_seconds_"
			    "bucket{endpoint=\"%s\",le=\"%s\"} %llu\n",
			    instance_ep_name((enum inst_ep)e),
			    instance_bucket_le(k),
			    (unsigned long long)c.le[e][k]);
		buf_printf(&b, "aqueue_http_request_duration_seconds_count{"
		    "endpoint=\"%s\"} %llu\n", ep,
		    (unsigned long long)c.le[e][INST_BUCKETS - 1]);
		buf_printf(&b, "aqueue_http_request_duration_seconds_sum{"
		    "endpoint=\"%s\"} %.6f\n", ep, (double)c.sum_us[e] / 1e6);
	}
	family(&b, "aqueue_joins_outcome_unknown", "counter",
	    "Joins this pool answered 503 whose database connection broke "
	    "before their outcome arrived (a number may have been issued).");
	buf_printf(&b, "aqueue_joins_outcome_unknown_total %llu\n",
	    (unsigned long long)instance_joins_unknown());
	steps(&b);
	loadtests(&b, r->db);
	/*
	 * Without a master (workers = 0) this process answers alone; an
	 * elastic pool (elastic.h) counts its running processes.
	 */
	family(&b, "aqueue_workers", "gauge",
	    "Processes of this pool that answer requests (1 without a "
	    "master: the one answering this scrape).");
	workers = elastic_workers();
	if (workers < 0)
		workers = r->cfg->workers > 0 ? r->cfg->workers : 1;
	buf_printf(&b, "aqueue_workers %lld\n", (long long)workers);
	family(&b, "aqueue_workers_busy", "gauge",
	    "Workers of this pool inside a request (this scrape included).");
	buf_printf(&b, "aqueue_workers_busy %lld\n", (long long)c.busy);
	buf_puts(&b, "# EOF\n");
	http_send(r, 200, CTYPE, b.p, b.len);
	buf_free(&b);
}
