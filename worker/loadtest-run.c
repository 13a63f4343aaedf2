/*
 * loadtest-run.c - the load-test runner: one run, in a process of its
 * own that the worker forks (loadtest-job.c), with a database
 * connection of its own.  It sends the run's requests to the room
 * through the web server at loadtest-url with libcurl's multi
 * interface, in an open loop: request k is due at start + k / rate,
 * sent then whatever the earlier ones did, and timed from when it was
 * due (so a slow server shows its latency instead of slowing the
 * sender: no coordinated omission).  Every second it writes the
 * second's figures and the totals so far (live KPIs); at the end it
 * compares the run with the comparable earlier ones (loadtest.h).
 *
 * Profiles: "status" polls one number (taken by one join before the
 * clock starts); "join" takes numbers; "mix" gives each due request to
 * a visitor: a token for one that was just admitted, else a status
 * poll for the one whose poll is due (at the interval the room told it,
 * retryAfterSeconds, 1-30 s), else a join for a new visitor.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "cfg.h"
#include "db.h"
#include "db-loadtest.h"
#include "loadtest.h"
#include "log.h"
#include "queue-ops.h"
#include "worker.h"

#define IN_FLIGHT_MAX	4096	/* requests under way at most */
#define BODY_MAX	2048	/* bytes of an answer kept */
#define TICKET_MAX	160
#define VISITORS_MAX	65536	/* mix: visitors kept at most */
#define TIMEOUT_MS	10000	/* one request at most */
#define POLL_MIN_S	1
#define POLL_MAX_S	30
#define SERVED_MAX	64	/* pool processes told apart */

enum kind { K_STATUS, K_JOIN, K_TOKEN };

/* A mix visitor: its number and ticket, when its next poll is due. */
struct visitor {
	int64_t	 number;
	int64_t	 due_us;
	char	 ticket[TICKET_MAX];
};

/* A ring of visitors, in the order their turns come. */
struct ring {
	struct visitor	*v;
	size_t		 head, n;
};

/* One request under way. */
struct slot {
	CURL		*h;
	enum kind	 kind;
	int64_t		 due_us;
	struct visitor	 vis;
	char		 url[512];
	char		 body[BODY_MAX + 1];
	size_t		 len;
	struct slot	*next_free;
};

/* A pool process that answered (its X-Aqueue-Instance), how often. */
struct served {
	char	 id[96];
	int64_t	 n;
};

/* The run. */
struct run {
	struct lt_run	 r;
	struct db	*db;
	CURLM		*m;
	struct curl_slist *hdr;
	struct slot	*slots, *free_slots;
	size_t		 in_flight;
	char		 base[300];	/* loadtest-url + /queue/<slug> */
	int64_t		 number;	/* status: the number polled */
	struct ring	 polls, tokens;	/* mix */
	struct lt_hist	 all, sec;	/* totals; the current second */
	int64_t		 sec_sent, sec_ok, sec_err;
	int64_t		 sec_start;	/* the current second's, mono us */
	int64_t		 cap;		/* requests a second, at most */
	int		 gone;		/* ended elsewhere, or no test queue */
	pid_t		 parent;	/* the worker that forked this runner */
	int64_t		*plan;		/* replay: the joins' due times */
	size_t		 nplan;
	struct served	 served[SERVED_MAX];	/* X-Aqueue-Instance */
	size_t		 nserved;
};

static volatile sig_atomic_t	 stop_run;

static void
on_term(int sig)
{
	(void)sig;
	stop_run = 1;
}

static int64_t
mono_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The run whose requests these are (one run per process). */
static struct run	*the_run;

/* A header line of an answer: count X-Aqueue-Instance's process. */
static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	static const char	 name[] = "x-aqueue-instance:";
	struct run		*x = the_run;
	size_t			 len = size * n, i, k;
	char			 id[96];

	(void)arg;
	if (x == NULL || len <= sizeof(name) - 1 ||
	    strncasecmp(p, name, sizeof(name) - 1) != 0)
		return len;
	for (i = sizeof(name) - 1; i < len && p[i] == ' '; i++)
		continue;
	for (k = 0; i < len && k + 1 < sizeof(id) && p[i] != '\r' &&
	    p[i] != '\n'; i++)
		id[k++] = p[i];
	id[k] = '\0';
	for (i = 0; i < x->nserved && strcmp(x->served[i].id, id) != 0; i++)
		continue;
	if (i == x->nserved) {
		if (x->nserved == SERVED_MAX)
			return len;
		snprintf(x->served[i].id, sizeof(x->served[i].id), "%s", id);
		x->served[i].n = 0;
		x->nserved++;
	}
	x->served[i].n++;
	return len;
}

static size_t
on_data(char *p, size_t size, size_t n, void *arg)
{
	struct slot	*s = arg;
	size_t		 len = size * n, room = BODY_MAX - s->len;

	memcpy(s->body + s->len, p, len < room ? len : room);
	s->len += len < room ? len : room;
	return len;
}

static void
ring_push(struct ring *q, const struct visitor *v)
{
	if (q->n == VISITORS_MAX)
		return;		/* the visitor leaves */
	q->v[(q->head + q->n++) % VISITORS_MAX] = *v;
}

static struct visitor *
ring_head(struct ring *q)
{
	return q->n == 0 ? NULL : &q->v[q->head];
}

static void
ring_pop(struct ring *q)
{
	q->head = (q->head + 1) % VISITORS_MAX;
	q->n--;
}

/*
 * Start a request of kind k due at due_us for visitor v (NULL: none).
 * Returns 0, or -1 when it could not be started (counted as an error).
 */
static int
start(struct run *x, enum kind k, int64_t due_us, const struct visitor *v)
{
	struct slot		*s = x->free_slots;
	struct json_object	*o;
	CURL			*h;

	if (s == NULL)
		return -1;
	x->free_slots = s->next_free;
	h = s->h;
	curl_easy_reset(h);
	s->kind = k;
	s->due_us = due_us;
	s->len = 0;
	memset(&s->vis, 0, sizeof(s->vis));
	if (v != NULL)
		s->vis = *v;
	if (k == K_STATUS)
		(void)snprintf(s->url, sizeof(s->url), "%s/status?number=%lld",
		    x->base, (long long)(v != NULL ? v->number : x->number));
	else
		(void)snprintf(s->url, sizeof(s->url), "%s/%s", x->base,
		    k == K_JOIN ? "join" : "token");
	curl_easy_setopt(h, CURLOPT_URL, s->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_PROXY, "");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_PRIVATE, s);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->hdr);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "aqueue-worker (load test)");
	if (k == K_JOIN)
		curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS, "{}");
	else if (k == K_TOKEN) {
		o = json_object_new_object();
		json_object_object_add(o, "number",
		    json_object_new_int64(s->vis.number));
		json_object_object_add(o, "ticket",
		    json_object_new_string(s->vis.ticket));
		curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS,
		    json_object_to_json_string(o));
		json_object_put(o);
	}
	if (curl_multi_add_handle(x->m, h) != CURLM_OK) {
		s->next_free = x->free_slots;
		x->free_slots = s;
		return -1;
	}
	x->in_flight++;
	return 0;
}

/*
 * A mix visitor from a join's or a status's answer o (the room's
 * fields): *v updated; returns 1 when it is admitted, 0 while it waits,
 * -1 when the answer says nothing usable.
 */
static int
visitor_from(struct json_object *o, struct visitor *v, int64_t now)
{
	struct json_object	*f;
	int64_t			 poll = 2;

	if (o == NULL)
		return -1;
	if (json_object_object_get_ex(o, "number", &f))
		v->number = json_object_get_int64(f);
	if (json_object_object_get_ex(o, "ticket", &f) &&
	    json_object_is_type(f, json_type_string))
		(void)snprintf(v->ticket, sizeof(v->ticket), "%s",
		    json_object_get_string(f));
	if (v->number <= 0)
		return -1;
	if (json_object_object_get_ex(o, "retryAfterSeconds", &f))
		poll = json_object_get_int64(f);
	poll = poll < POLL_MIN_S ? POLL_MIN_S : poll > POLL_MAX_S ?
	    POLL_MAX_S : poll;
	v->due_us = now + poll * 1000000;
	return json_object_object_get_ex(o, "admitted", &f) &&
	    json_object_get_boolean(f) ? 1 : 0;
}

/* Request s ended with HTTP status (0: no answer) at now: count it. */
static void
ended(struct run *x, struct slot *s, long status, int64_t now)
{
	struct json_object	*o = NULL, *tok;
	int			 ok = status >= 200 && status < 300, adm;

	/* A token asked for too early is an answer, not an error. */
	if (s->kind == K_TOKEN && status == 425)
		ok = 1;
	lt_hist_add(&x->sec, (uint64_t)(now > s->due_us ? now - s->due_us :
	    0));
	if (ok)
		x->sec_ok++;
	else
		x->sec_err++;
	if ((strcmp(x->r.profile, "mix") != 0 && x->plan == NULL) || !ok ||
	    s->kind == K_TOKEN)
		return;
	s->body[s->len] = '\0';
	o = json_tokener_parse(s->body);
	adm = visitor_from(o, &s->vis, now);
	if (adm == 1 && s->kind == K_JOIN &&
	    json_object_object_get_ex(o, "token", &tok))
		adm = -1;	/* admitted at its join: it has its token */
	if (adm == 1) {
		s->vis.due_us = now;	/* its claim is due now */
		ring_push(&x->tokens, &s->vis);
	}
	else if (adm == 0)
		ring_push(&x->polls, &s->vis);
	json_object_put(o);
}

/* Collect the requests that ended. */
static void
collect(struct run *x)
{
	struct slot	*s;
	CURLMsg		*msg;
	long		 status;
	int		 left, running;

	(void)curl_multi_perform(x->m, &running);
	while ((msg = curl_multi_info_read(x->m, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		s = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&s);
		status = 0;
		if (msg->data.result == CURLE_OK)
			curl_easy_getinfo(msg->easy_handle,
			    CURLINFO_RESPONSE_CODE, &status);
		curl_multi_remove_handle(x->m, msg->easy_handle);
		x->in_flight--;
		ended(x, s, status, mono_us());
		s->next_free = x->free_slots;
		x->free_slots = s;
	}
}

/* Send request k, due at due_us, of the run's profile. */
static void
send_one(struct run *x, int64_t due_us, int64_t now)
{
	struct visitor	*v, vis;
	int		 rc;

	x->sec_sent++;
	if (x->plan != NULL) {
		x->r.joins++;
		rc = start(x, K_JOIN, due_us, NULL);
	} else if (strcmp(x->r.profile, "status") == 0) {
		x->r.polls++;
		rc = start(x, K_STATUS, due_us, NULL);
	} else if (strcmp(x->r.profile, "join") == 0) {
		x->r.joins++;
		rc = start(x, K_JOIN, due_us, NULL);
	} else if ((v = ring_head(&x->tokens)) != NULL) {
		vis = *v;
		ring_pop(&x->tokens);
		x->r.claims++;
		rc = start(x, K_TOKEN, due_us, &vis);
	} else if ((v = ring_head(&x->polls)) != NULL && v->due_us <= now) {
		vis = *v;
		ring_pop(&x->polls);
		x->r.polls++;
		rc = start(x, K_STATUS, due_us, &vis);
	} else {
		x->r.joins++;
		rc = start(x, K_JOIN, due_us, NULL);
	}
	if (rc == -1) {
		/* No room for one more under way: an error of the run. */
		x->sec_err++;
		lt_hist_add(&x->sec, (uint64_t)(now - due_us));
	}
}

/*
 * A replay's visitors: the claims and status polls that are due, sent
 * on top of the arrivals (each timed from when it was due).
 */
static void
visitors_due(struct run *x, int64_t now)
{
	struct visitor	*v, vis;
	struct ring	*q;
	enum kind	 k;

	for (;;) {
		if ((v = ring_head(&x->tokens)) != NULL) {
			q = &x->tokens;
			k = K_TOKEN;
		} else if ((v = ring_head(&x->polls)) != NULL &&
		    v->due_us <= now) {
			q = &x->polls;
			k = K_STATUS;
		} else
			return;
		if (x->free_slots == NULL)
			return;		/* sent when a request ends */
		if (x->sec_sent >= x->cap)
			return;		/* loadtest-max-rate: next second */
		vis = *v;
		ring_pop(q);
		/* Held back by the cap: due when it could go. */
		if (vis.due_us < x->sec_start)
			vis.due_us = x->sec_start;
		x->sec_sent++;
		if (k == K_TOKEN)
			x->r.claims++;
		else
			x->r.polls++;
		if (start(x, k, vis.due_us, &vis) == -1) {
			x->sec_err++;
			lt_hist_add(&x->sec, (uint64_t)(now - vis.due_us));
		}
	}
}

/* Write second sec's figures (sec < 0: the totals only). */
static void
report(struct run *x, int64_t sec, int64_t elapsed_ms)
{
	struct lt_second	 s;
	enum app_err		 er;
	int			 live;

	memset(&s, 0, sizeof(s));
	s.sec = sec;
	s.sent = x->sec_sent;
	s.ok = x->sec_ok;
	s.errors = x->sec_err;
	s.p50_us = (int64_t)lt_hist_permille(&x->sec, 500);
	s.p95_us = (int64_t)lt_hist_permille(&x->sec, 950);
	s.p99_us = (int64_t)lt_hist_permille(&x->sec, 990);
	lt_hist_merge(&x->all, &x->sec);
	x->r.sent += x->sec_sent;
	x->r.ok += x->sec_ok;
	x->r.errors += x->sec_err;
	x->r.p50_us = (int64_t)lt_hist_permille(&x->all, 500);
	x->r.p95_us = (int64_t)lt_hist_permille(&x->all, 950);
	x->r.p99_us = (int64_t)lt_hist_permille(&x->all, 990);
	x->r.elapsed_ms = elapsed_ms;
	if ((er = db_lt_progress(x->db, &x->r, sec >= 0 ? &s : NULL,
	    &live)) != APP_OK)
		log_warnx("load test %lld: its progress was not written "
		    "(error %d)", (long long)x->r.id, (int)er);
	else if (!live)
		x->gone = 1;
	lt_hist_reset(&x->sec);
	x->sec_sent = x->sec_ok = x->sec_err = 0;
}

/*
 * The status profile's number: one join before the clock starts.
 * Returns 0, or -1 with why.
 */
static int
first_number(struct run *x, char *why, size_t len)
{
	struct slot	*s;
	int64_t		 end = mono_us() + TIMEOUT_MS * 1000LL;
	struct visitor	 v;
	struct json_object *o;

	memset(&v, 0, sizeof(v));
	if (start(x, K_JOIN, mono_us(), NULL) == -1) {
		(void)snprintf(why, len, "could not start a request");
		return -1;
	}
	s = &x->slots[0];
	while (x->in_flight > 0 && mono_us() < end && !stop_run &&
	    getppid() == x->parent) {
		int running;

		(void)curl_multi_perform(x->m, &running);
		if (running == 0)
			break;
		(void)curl_multi_poll(x->m, NULL, 0, 100, NULL);
	}
	{
		CURLMsg	*msg;
		long	 status = 0;
		int	 left;

		while ((msg = curl_multi_info_read(x->m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE &&
			    msg->data.result == CURLE_OK)
				curl_easy_getinfo(msg->easy_handle,
				    CURLINFO_RESPONSE_CODE, &status);
		curl_multi_remove_handle(x->m, s->h);
		x->in_flight = 0;
		s->next_free = x->free_slots;
		x->free_slots = s;
		s->body[s->len] = '\0';
		o = json_tokener_parse(s->body);
		if (stop_run || getppid() != x->parent) {
			json_object_put(o);
			(void)snprintf(why, len, "stopped before its end (the "
			    "worker stopped)");
			return -2;
		}
		if (status >= 200 && status <= 299 && x->nserved == 0) {
			json_object_put(o);
			(void)snprintf(why, len, "the answer did not come from "
			    "this installation (no X-Aqueue-Instance): check "
			    "loadtest-url");
			return -1;
		}
		if (status < 200 || status > 299 ||
		    visitor_from(o, &v, 0) == -1) {
			json_object_put(o);
			(void)snprintf(why, len, "the join before the run "
			    "failed (HTTP %ld from %.150s)", status, s->url);
			return -1;
		}
		json_object_put(o);
	}
	x->number = v.number;
	return 0;
}

/*
 * Whether the run's queue is (still) a test queue: a run asked for, or
 * scheduled, before an operator turned loadTestQueue off never runs.
 * Returns 1, or 0 with why.
 */
static int
still_test_queue(struct run *x, char *why, size_t len)
{
	struct queue	*q = NULL;
	struct qops_err	 qe;
	int		 yes;

	if (qops_get_id(x->db, x->r.queue_id, &q, &qe) != APP_OK) {
		(void)snprintf(why, len, "its queue could not be read");
		return 0;
	}
	if (!(yes = q->load_test_queue != 0))
		(void)snprintf(why, len, "its queue is not a test queue "
		    "(loadTestQueue off): nothing was sent");
	qops_queue_free(q);
	return yes;
}

/* Set x up for run r.  Returns 0, or -1 with why. */
static int
setup(struct run *x, const struct cfg *c, char *why, size_t len)
{
	char	 tok[LT_HEADER_TOKEN_MAX], line[96];
	size_t	 i, n;

	n = strlen(c->loadtest_url);
	while (n > 0 && c->loadtest_url[n - 1] == '/')
		n--;
	if (snprintf(x->base, sizeof(x->base), "%.*s/queue/%s", (int)n,
	    c->loadtest_url, x->r.slug) >= (int)sizeof(x->base)) {
		(void)snprintf(why, len, "loadtest-url is too long");
		return -1;
	}
	if ((x->m = curl_multi_init()) == NULL ||
	    (x->slots = try_calloc(IN_FLIGHT_MAX, sizeof(*x->slots))) == NULL ||
	    (x->polls.v = try_calloc(VISITORS_MAX, sizeof(struct visitor))) ==
	    NULL || (x->tokens.v = try_calloc(VISITORS_MAX,
	    sizeof(struct visitor))) == NULL) {
		(void)snprintf(why, len, "out of memory");
		return -1;
	}
	x->hdr = curl_slist_append(NULL, "Content-Type: application/json");
	x->hdr = curl_slist_append(x->hdr, "Accept: application/json");
	if (lt_header_token(c->master_key, tok, sizeof(tok)) == 0) {
		(void)snprintf(line, sizeof(line), "X-Aqueue-Loadtest: %s",
		    tok);
		x->hdr = curl_slist_append(x->hdr, line);
	}
	the_run = x;
	for (i = IN_FLIGHT_MAX; i-- > 0;) {
		if ((x->slots[i].h = curl_easy_init()) == NULL) {
			(void)snprintf(why, len, "out of memory");
			return -1;
		}
		x->slots[i].next_free = x->free_slots;
		x->free_slots = &x->slots[i];
	}
	if (strcmp(x->r.profile, "status") == 0) {
		int	 rc;

		if ((rc = first_number(x, why, len)) < 0)
			return rc;
		x->nserved = 0;		/* (its join is not the run's) */
	}
	if (strcmp(x->r.profile, "replay") == 0) {
		int64_t	 dur, peak;

		if (lt_replay_load(x->db, &x->r, (size_t)(c->loadtest_max_rate *
		    c->loadtest_max_duration_s), &x->plan, &x->nplan, &dur,
		    &peak) != 0 || x->nplan == 0) {
			(void)snprintf(why, len, "the samples of %s in the "
			    "window are gone (stats-retention)",
			    x->r.replay_slug);
			return -1;
		}
	}
	return 0;
}

/* Release what setup() took. */
static void
teardown(struct run *x)
{
	size_t	 i;

	if (x->slots != NULL)
		for (i = 0; i < IN_FLIGHT_MAX; i++)
			if (x->slots[i].h != NULL) {
				if (x->m != NULL)
					curl_multi_remove_handle(x->m,
					    x->slots[i].h);
				curl_easy_cleanup(x->slots[i].h);
			}
	if (x->m != NULL)
		curl_multi_cleanup(x->m);
	curl_slist_free_all(x->hdr);
	free(x->plan);
	free(x->slots);
	free(x->polls.v);
	free(x->tokens.v);
}

/* When request k is due: the plan's (a replay) or k / rate. */
static int64_t
due_of(const struct run *x, int64_t t0, int64_t k)
{
	if (x->plan != NULL)
		return t0 + x->plan[k];
	return t0 + k * 1000000 / x->r.rate;
}

/* Why drive() stopped early. */
enum stopped {
	RUN_DONE = 0,
	RUN_STOPPED,	/* SIGTERM, or the worker is gone */
	RUN_GONE,	/* not a test queue any more, or ended elsewhere */
	RUN_FOREIGN	/* answers without X-Aqueue-Instance */
};

/* Send the run's requests; returns why it stopped. */
static enum stopped
drive(struct run *x)
{
	int64_t		 t0 = mono_us(), now, due, tick = t0 + 1000000, wait;
	int64_t		 total = x->plan != NULL ? (int64_t)x->nplan :
	    x->r.rate * x->r.duration_s, k = 0, sec = 0;
	int64_t		 stop = t0 + x->r.duration_s * 1000000;
	int64_t		 end = stop + TIMEOUT_MS * 1000LL + 2000000;
	enum stopped	 why = RUN_DONE;

	x->sec_start = t0;
	for (;;) {
		now = mono_us();
		if (stop_run || getppid() != x->parent) {
			why = RUN_STOPPED;
			break;
		}
		while (k < total && (due = due_of(x, t0, k)) <= now) {
			send_one(x, due, now);
			k++;
		}
		if (x->plan != NULL && now < stop)
			visitors_due(x, now);
		collect(x);
		now = mono_us();
		if (now >= tick) {
			report(x, sec++, (now - t0) / 1000);
			x->sec_start = tick;
			tick += 1000000;
			if (x->gone) {
				why = RUN_GONE;
				break;
			}
			/* Answered, but by no process of ours. */
			if (x->r.ok > 0 && x->nserved == 0) {
				why = RUN_FOREIGN;
				break;
			}
		}
		if ((k == total && x->in_flight == 0 && (x->plan == NULL ||
		    now >= stop)) || now > end)
			break;
		wait = tick - now;
		if (k < total && due_of(x, t0, k) - now < wait)
			wait = due_of(x, t0, k) - now;
		if (x->plan != NULL && now < stop && wait > 10000)
			wait = 10000;	/* the visitors' polls */
		if (wait > 0)
			(void)curl_multi_poll(x->m, NULL, 0,
			    (int)((wait + 999) / 1000), NULL);
	}
	/* Requests still under way at the end count as errors. */
	x->sec_err += (int64_t)x->in_flight;
	if (x->sec_sent + x->sec_ok + x->sec_err > 0)
		report(x, sec, (mono_us() - t0) / 1000);
	else
		report(x, -1, (mono_us() - t0) / 1000);
	return why;
}

/*
 * Compare run r with its comparable earlier runs: *reason says how it
 * is worse.  Returns 1 when flagged, 0 when not (or when unknown).
 */
static int
judge(struct db *db, const struct lt_run *r, char *reason, size_t len)
{
	int64_t	 p95[LT_PRIOR_MAX], ppm[LT_PRIOR_MAX], med, rate;
	size_t	 n;

	reason[0] = '\0';
	if (db_lt_prior(db, r, p95, ppm, &n) != APP_OK)
		return 0;
	rate = r->errors * 1000000 / (r->sent > 0 ? r->sent : 1);
	if (lt_regressed(p95, n, r->p95_us, LT_FLOOR_P95_US, &med)) {
		(void)snprintf(reason, len, "p95 %.2f ms against a median of "
		    "%.2f ms over %zu comparable runs (above the median + 3 "
		    "MAD and 20 %%)", (double)r->p95_us / 1000.0,
		    (double)med / 1000.0, n);
		return 1;
	}
	if (lt_regressed(ppm, n, rate, LT_FLOOR_ERR_PPM, &med)) {
		(void)snprintf(reason, len, "error rate %.2f %% against a "
		    "median of %.2f %% over %zu comparable runs (above the "
		    "median + 3 MAD and 20 %%)", (double)rate / 10000.0,
		    (double)med / 10000.0, n);
		return 1;
	}
	return 0;
}

/* Order of served[]: most requests first, then by id. */
static int
served_cmp(const void *a, const void *b)
{
	const struct served	*x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The pool processes that answered, most first, as JSON into buf. */
static void
served_json(struct run *x, char *buf, size_t len)
{
	struct json_object	*a = json_object_new_array(), *e;
	const char		*s;
	size_t			 i;

	qsort(x->served, x->nserved, sizeof(x->served[0]), served_cmp);
	/* At most what the column holds: the busiest first (~70 each). */
	for (i = 0; i < x->nserved && (i + 1) * 120 < len; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "instance",
		    json_object_new_string(x->served[i].id));
		json_object_object_add(e, "requests",
		    json_object_new_int64(x->served[i].n));
		json_object_array_add(a, e);
	}
	s = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
	if (strlen(s) < len)
		memcpy(buf, s, strlen(s) + 1);
	else
		buf[0] = '\0';
	json_object_put(a);
}

int
lt_runner(const struct cfg *c, int64_t id, pid_t parent)
{
	char		 served[LT_SERVED_MAX + 1] = "";
	struct run	*x;
	char		 why[LT_TEXT_MAX + 1] = "", reason[LT_TEXT_MAX + 1];
	const char	*status = "done";
	int		 flagged = 0, rc;
	sigset_t	 none;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((x = try_calloc(1, sizeof(*x))) == NULL)
		return 1;
	x->db = db_open(c);
	if (db_lt_get(x->db, id, &x->r) != APP_OK) {
		log_warnx("load test %lld: not readable", (long long)id);
		db_close(x->db);
		free(x);
		return 1;
	}
	log_info("load test %lld: %s on %s, %lld/s for %lld s", (long long)id,
	    x->r.profile, x->r.slug, (long long)x->r.rate,
	    (long long)x->r.duration_s);
	reason[0] = '\0';
	x->parent = parent;
	x->cap = c->loadtest_max_rate;
	if (!still_test_queue(x, why, sizeof(why)))
		status = "failed";
	else if ((rc = setup(x, c, why, sizeof(why))) < 0)
		status = rc == -2 ? "cancelled" : "failed";
	else
		switch (drive(x)) {
		case RUN_DONE:
			flagged = judge(x->db, &x->r, reason, sizeof(reason));
			break;
		case RUN_STOPPED:
			status = "cancelled";
			(void)snprintf(why, sizeof(why), "stopped before its "
			    "end (the worker stopped)");
			break;
		case RUN_GONE:
			status = "cancelled";
			(void)snprintf(why, sizeof(why), "stopped: its queue "
			    "is no longer a test queue, or the run was ended "
			    "elsewhere");
			break;
		case RUN_FOREIGN:
			status = "failed";
			(void)snprintf(why, sizeof(why), "the answers did not "
			    "come from this installation (no "
			    "X-Aqueue-Instance): check loadtest-url");
			break;
		}
	served_json(x, served, sizeof(served));
	rc = db_lt_finish(x->db, id, status, why, flagged, reason, served,
	    x->r.runner) == APP_OK ? 0 : 1;
	log_info("load test %lld: %s, %lld sent, %lld errors, p95 %lld us%s%s",
	    (long long)id, status, (long long)x->r.sent,
	    (long long)x->r.errors, (long long)x->r.p95_us,
	    flagged ? "; flagged: " : "", reason);
	teardown(x);
	db_close(x->db);
	free(x);
	return rc;
}
