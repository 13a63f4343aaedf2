/*
 * pool.c - the pre-forked pool: a master that forks single-threaded
 * children, respawns dead ones, drains on SIGTERM/SIGINT and, on SIGHUP,
 * starts a new set of children with the re-read configuration before
 * the old set drains, so a reload never leaves the socket unanswered.
 * Each child owns one database connection and answers one request at a
 * time.
 */
#include "config.h"

#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "docwriter.h"
#include "elastic.h"
#include "embedded-worker.h"
#include "extern.h"
#include "fairness.h"
#include "fcgi-guard.h"
#include "gate.h"
#include "instance.h"
#include "join-void.h"
#include "lease.h"
#include "log.h"
#include "pow-used.h"
#include "statedoc.h"

#define DRAIN_MS	10000	/* a child still busy after this is killed */
#define RESPAWN_MIN_MS	1000	/* children dying faster than this: back off */
/*
 * How often the configuration file is looked at (stat(2)): a changed
 * file is read again without a signal to any process.
 */
#define CONF_CHECK_MS	1000
/*
 * A connection idle this long is closed (its place in the budget given
 * back) by a process that has no master (workers = 0: the web server
 * starts many) or counts in a budget (run-dir): so that after a burst
 * the connections go back, and whichever process the web server picks
 * next finds one.  The leader of the embedded worker keeps its own.
 */
#define DB_IDLE_RELEASE_MS	2000

static volatile sig_atomic_t	 child_stop;

static void
child_on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

#define OVERRUN_S	5	/* after the deadline, before the worker dies */

static volatile sig_atomic_t	 alarms;

/*
 * The first SIGALRM of a request interrupts a blocked read or write (no
 * SA_RESTART), so the request ends with an error answer; a second one,
 * OVERRUN_S later, means the worker is stuck (a loop, or a read that
 * libfcgi restarted): it exits and the master starts a fresh one.
 * alarm() and _exit() are async-signal-safe.
 */
static void
child_on_alarm(int sig)
{
	(void)sig;
	if (++alarms >= 2)
		_exit(3);
	alarm(OVERRUN_S);
}

/*
 * Arm (seconds > 0) or disarm (0) the per-request time limit: a web
 * server or client that stops sending in the middle of a request gets
 * its read interrupted (400 incomplete_body), so no worker hangs.
 */
static void
request_timer(int64_t seconds)
{
	alarm(0);
	alarms = 0;
	if (seconds > 0)
		alarm((unsigned int)seconds);
}

/*
 * While a write request of this worker waits for a database slot
 * (writers.c), the worker keeps answering: pool_wait() accepts the next
 * request; one that may write (a join, the gateway) is parked, the rest
 * (status, info, token, verify, the page) are answered at once.  Parked
 * requests are answered in arrival order when the waiting one is done.
 */
#define PARK_MAX	16

static int			 child_fd = -1;
static const struct cfg		*child_cfg;
static struct db		*child_db;
static FCGX_Request		 parked[PARK_MAX];	/* a ring */
static size_t			 park_head, nparked;
static int			 in_wait;

/*
 * Accept the next connection on the listening socket into fr, its
 * first records checked before libfcgi reads them (fcgi-guard.h), for
 * at most the request's time limit or FCGI_GUARD_WAIT_MS.  Returns 0
 * with a request open in fr, or -1 (nobody waiting, or refused).
 */
static int
pool_accept(FCGX_Request *fr)
{
	int64_t	 wait = FCGI_GUARD_WAIT_MS;

	if (child_cfg->request_timeout_s * 1000 < wait)
		wait = child_cfg->request_timeout_s * 1000;
	return fcgi_guard_accept(fr, child_fd, wait,
	    cfg_web_server_addrs(child_cfg));
}

void
pool_wait(int ms, int wake_fd)
{
	struct pollfd	 pfd[2];
	FCGX_Request	*fr;
	uint64_t	 n;
	ssize_t		 got;
	nfds_t		 nfd = 0;
	int		 listen = child_fd >= 0 && !in_wait &&
			     nparked < PARK_MAX;

	if (wake_fd >= 0) {
		pfd[nfd].fd = wake_fd;
		pfd[nfd].events = POLLIN;
		pfd[nfd++].revents = 0;
	}
	if (listen) {
		pfd[nfd].fd = child_fd;
		pfd[nfd].events = POLLIN;
		pfd[nfd++].revents = 0;
	}
	if (poll(pfd, nfd, ms) <= 0)
		return;
	/* Woken: take one post (another waiter may have taken it). */
	if (wake_fd >= 0 && (pfd[0].revents & POLLIN)) {
		got = read(wake_fd, &n, sizeof(n));
		(void)got;
		return;
	}
	if (!listen)
		return;
	in_wait = 1;
	fr = &parked[(park_head + nparked) % PARK_MAX];
	/* Another worker may have taken it: then EAGAIN. */
	if (pool_accept(fr) < 0) {
		in_wait = 0;
		return;
	}
	if (route_writes(fr)) {
		nparked++;
		in_wait = 0;
		return;
	}
	/* The waiting request's queue entry must stay as it is. */
	qcache_freeze(1);
	route_request(fr, child_cfg, child_db);
	qcache_freeze(0);
	fr->keepConnection = 0;
	FCGX_Finish_r(fr);
	in_wait = 0;
}

/*
 * Answer the oldest parked request.  Its slot stays counted until it is
 * done, so that pool_wait() never reuses it meanwhile.
 */
static void
answer_parked(void)
{
	FCGX_Request	*fr = &parked[park_head];

	request_timer(child_cfg->request_timeout_s);
	route_request(fr, child_cfg, child_db);
	fr->keepConnection = 0;
	FCGX_Finish_r(fr);
	request_timer(0);
	park_head = (park_head + 1) % PARK_MAX;
	nparked--;
}

/*
 * Between requests: give the database work done here (the late outcome
 * of a statement given up on, the first tokens' batch) a visitor's time.
 * Can't fail.
 */
static void
between_requests(struct db *db)
{
	(void)db_deadline(db, child_cfg->db_visitor_timeout_ms);
}

/*
 * Between requests: take what has arrived for a statement given up on
 * (db_idle(), waiting up to wait_ms for more); once none is in flight,
 * give back the write slot a join kept for it (writers.c: the slot stays
 * held while its statement may still write), void the numbers issued
 * for joins answered 503, and write the numbers of an expired lease
 * handed to nobody (lease.h).  Can't fail.
 */
static void
late_work(struct db *db, int64_t wait_ms)
{
	between_requests(db);
	db_idle(db, wait_ms);
	if (!db_inflight(db))
		writers_leave();
	visitor_join_late(db);
	lease_flush(db, 0);
}

/*
 * A process without a master (workers = 0): its configuration file and
 * what it last saw of it, looked at every CONF_CHECK_MS between
 * requests.
 */
static int			 single;
static const char		*single_conf;
static struct cfg_stamp	 single_seen;
static int64_t			 single_next_check;

/*
 * In a process without a master: whether the configuration file has
 * changed into a valid one (its templates load too), so the process
 * should start again with it.  An invalid file is logged and the one in
 * use stays (until the file changes again).  Can't fail.
 */
static int
single_reload_due(void)
{
	struct cfg	 nc;
	int		 ok;

	if (!single || now_ms() < single_next_check)
		return 0;
	single_next_check = now_ms() + CONF_CHECK_MS;
	if (!cfg_changed(single_conf, &single_seen))
		return 0;
	ok = cfg_load(single_conf, &nc) == 0 && routes_init(&nc) == 0;
	cfg_free(&nc);
	if (!ok) {
		log_warnx("%s changed but is not valid; the configuration in "
		    "use stays", single_conf);
		return 0;
	}
	log_info("%s changed: starting again with it", single_conf);
	return 1;
}

/*
 * Between requests (answered: one was just answered): the embedded
 * worker's step, and without a master the poll documents' writer, each
 * only when no request waits (ew_may_step()).
 */
static void
idle_steps(struct db *db, int answered)
{
	static int64_t	 ew_since, dw_since;

	if (ew_may_step(child_fd, &ew_since))
		ew_step(answered);
	if (single && ew_may_step(child_fd, &dw_since))
		dw_step(db, EW_STEP_MS);
}

/* Whether this process must keep its connection (a lock lives on it). */
static int
keeps_conn(void)
{
	return ew_leads() || dw_holds();
}

/* The smaller of two waits in ms, where -1 means none. */
static int64_t
wait_min(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/*
 * A child: accept and answer requests until told to stop.  Signals are
 * blocked while a request is answered and only delivered inside ppoll(),
 * so a SIGTERM never cuts a response short (drain).  While a statement
 * given up on is in flight, its socket is polled too, so that it is
 * finished as soon as the database answers.  Between requests it runs
 * the embedded worker's steps (embedded-worker.h), gives an idle
 * connection back where connections are shared out (DB_IDLE_RELEASE_MS)
 * and, without a master, reports itself and watches its configuration
 * file.  Returns 1 when a process without a master should start again
 * with a changed configuration, else 0.
 */
static int
child_main(int fd, const struct cfg *c)
{
	FCGX_Request		 fr;
	struct db		*db;
	struct sigaction	 sa;
	sigset_t		 block, wait_mask;
	struct pollfd		 pfd[2];
	struct timespec		 ts;
	int			 rc, reload = 0, release, reported = 0;
	int64_t			 due, last_ms, t;
	nfds_t			 nfd;
	size_t			 i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = child_on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_SETMASK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);

	child_fd = fd;
	child_cfg = c;
	db = db_open(c);
	db_use_budget(db);
	db_limit_statements(db);
	db_nonblocking(db);
	db_allow_failback(db);
	between_requests(db);
	(void)db_ensure(db);
	ew_init(c, db);
	if (single)
		dw_init(c);
	release = single || c->run_dir[0] != '\0';
	last_ms = now_ms();
	FCGX_InitRequest(&fr, fd, FCGI_FAIL_ACCEPT_ON_INTR);
	for (i = 0; i < PARK_MAX; i++)
		FCGX_InitRequest(&parked[i], fd, FCGI_FAIL_ACCEPT_ON_INTR);
	child_db = db;
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	while (!child_stop || nparked > 0) {
		/* Requests parked while a write waited come first. */
		if (nparked > 0) {
			answer_parked();
			continue;
		}
		late_work(db, 0);
		if (!db_inflight(db) && single_reload_due()) {
			reload = 1;
			break;
		}
		/* First tokens not yet written wait at most a second. */
		due = fair_served_due_ms();
		due = wait_min(due, ew_wait_ms());
		due = wait_min(due, dw_wait_ms());
		due = wait_min(due, lease_wait_ms());
		if (release && db_session(db) != 0 && !keeps_conn()) {
			t = last_ms + DB_IDLE_RELEASE_MS - now_ms();
			due = wait_min(due, t > 0 ? t : 0);
		}
		if (single)
			due = wait_min(due, CONF_CHECK_MS);
		nfd = 1;
		pfd[0].revents = 0;
		if ((pfd[1].fd = db_inflight_fd(db, &pfd[1].events)) >= 0) {
			pfd[1].revents = 0;
			nfd = 2;
			/* Now and then: has it taken too long? */
			if (due < 0 || due > 1000)
				due = 1000;
		}
		elastic_idle();
		ts.tv_sec = due / 1000;
		ts.tv_nsec = (long)(due % 1000) * 1000 * 1000;
		rc = ppoll(pfd, nfd, due < 0 ? NULL : &ts, &wait_mask);
		if (child_stop)
			break;
		if (rc == 0) {
			between_requests(db);
			fair_served_flush(db, 0);
			idle_steps(db, 0);
			/* Idle long enough: give the connection back. */
			if (release && !keeps_conn() && now_ms() - last_ms >=
			    DB_IDLE_RELEASE_MS && db_release(db))
				log_debug("db: idle, connection closed");
		}
		if (rc <= 0 || pfd[0].revents == 0)
			continue;
		/* Another child may have taken it: then EAGAIN, poll again. */
		request_timer(c->request_timeout_s);
		if (pool_accept(&fr) < 0) {
			request_timer(0);
			continue;
		}
		/* A full period for this request, however accept went. */
		request_timer(c->request_timeout_s);
		elastic_busy();
		route_request(&fr, c, db);
		/*
		 * One request per connection: a kept-open connection
		 * (FCGI_KEEP_CONN) would be read only after the next poll of
		 * the listen socket, so it is closed here.
		 */
		fr.keepConnection = 0;
		FCGX_Finish_r(&fr);
		/* Answered: now is the time for writes nobody waits for. */
		between_requests(db);
		fair_served_flush(db, 0);
		idle_steps(db, 1);
		if (single && instance_single_tick(db, c))
			reported = 1;
		request_timer(0);
		last_ms = now_ms();
	}
	/*
	 * A join given up on may still bring a number to void: its answer
	 * is on the way, or the server finds its deadline passed.
	 */
	late_work(db, child_cfg->db_visitor_timeout_ms);
	between_requests(db);
	lease_flush(db, 1);
	fair_served_flush(db, 1);
	ew_end();
	dw_end();
	if (reported)
		(void)instance_remove(db, "pool");
	FCGX_Free(&fr, 1);
	for (i = 0; i < PARK_MAX; i++)
		FCGX_Free(&parked[i], 1);
	child_fd = -1;
	db_close(db);
	qcache_clear();
	return reload;
}

struct pool {
	pid_t		*pids;
	int64_t		*started;
	size_t		 n;
	pid_t		*old;		/* children draining after SIGHUP */
	int64_t		 old_since;	/* when they were told to stop */
};

/* Fork child slot i.  Returns 0, or -1 if fork failed (logged). */
static int
spawn(struct pool *p, size_t i, int fd, struct cfg *c, sigset_t *orig)
{
	pid_t	 pid, master = getpid();

	elastic_prepare(i);
	if ((pid = fork()) == -1) {
		log_warn("fork");
		return -1;
	}
	if (pid == 0) {
#ifdef __linux__
		/*
		 * When the master dies without draining us (SIGKILL, the OOM
		 * killer, a process manager such as mod_fcgid's), SIGTERM
		 * makes this child finish its request and exit, closing its
		 * database connection, instead of living on as an orphan.
		 * A master already gone before the call: exit now.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
			log_warn("prctl PR_SET_PDEATHSIG");
		if (getppid() != master)
			_exit(0);
#endif
		(void)master;
		sigprocmask(SIG_SETMASK, orig, NULL);
		log_open("aqueue-fcgi", 0);
		elastic_child();
		child_main(fd, c);
		_exit(0);
	}
	p->pids[i] = pid;
	p->started[i] = now_ms();
	return 0;
}

/* Send sig to every live child, of the current set and the old one. */
static void
signal_all(struct pool *p, int sig)
{
	size_t	 i;

	for (i = 0; i < p->n; i++) {
		if (p->pids[i] > 0)
			kill(p->pids[i], sig);
		if (p->old[i] > 0)
			kill(p->old[i], sig);
	}
}

/* Reap children; returns how many of the current set are still alive. */
static size_t
reap(struct pool *p, int *crashed)
{
	pid_t	 pid;
	int	 status;
	size_t	 i, alive = 0;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		writers_reap(pid);
		gate_reap(pid);
		for (i = 0; i < p->n; i++) {
			if (p->old[i] == pid)
				p->old[i] = 0;
			if (p->pids[i] == pid) {
				p->pids[i] = 0;
				if (crashed != NULL && (WIFSIGNALED(status) ||
				    WEXITSTATUS(status) != 0)) {
					log_warnx("child %ld died (status %d)",
					    (long)pid, status);
					*crashed = 1;
				}
			}
		}
	}
	for (i = 0; i < p->n; i++)
		if (p->pids[i] > 0)
			alive++;
	return alive;
}

/* Kill the old set (after SIGHUP) once it had DRAIN_MS to finish. */
static void
retire_old(struct pool *p)
{
	size_t	 i;

	if (p->old_since == 0 || now_ms() - p->old_since < DRAIN_MS)
		return;
	for (i = 0; i < p->n; i++)
		if (p->old[i] > 0) {
			log_warnx("old process %ld did not drain; killing",
			    (long)p->old[i]);
			kill(p->old[i], SIGKILL);
		}
	p->old_since = 0;
}

/* Whether any child of the old set is still alive. */
static int
old_alive(const struct pool *p)
{
	size_t	 i;

	for (i = 0; i < p->n; i++)
		if (p->old[i] > 0)
			return 1;
	return 0;
}

/* Stop every child: SIGTERM, wait up to DRAIN_MS, then SIGKILL. */
static void
stop_all(struct pool *p)
{
	int64_t			 until = now_ms() + DRAIN_MS;
	struct timespec		 ts = { 0, 50 * 1000 * 1000 };

	signal_all(p, SIGTERM);
	while (reap(p, NULL) > 0 || old_alive(p)) {
		if (now_ms() > until) {
			log_warnx("children did not drain in time; killing");
			signal_all(p, SIGKILL);
			until = now_ms() + DRAIN_MS;
		}
		nanosleep(&ts, NULL);
	}
}

/*
 * The pool's shared records: its limits on costly work (gate.h), c's
 * login-hashes password hashes and one auto-rate test, and the proof of
 * work's spent challenges (pow-used.h); in files of run-dir dir, or
 * anonymous (made before fork: shared by the master's children) when
 * dir is NULL.  Can't fail (without the mappings there is no limit and
 * no challenge is taken, logged).
 */
static void
pool_gates(const struct cfg *c, const char *dir)
{
	size_t	 slots[GATE__MAX];

	slots[GATE_HASH] = (size_t)c->login_hashes;
	slots[GATE_HEALTH] = 1;
	(void)gate_init(slots, dir);
	/* The proof of work's single-use record, pool-wide. */
	(void)pow_used_init((size_t)c->pow_used_slots, dir);
}

/* Write the master's pid to c->pid_file, if configured. */
static void
write_pid(const struct cfg *c)
{
	FILE	*f;

	if (c->pid_file[0] == '\0')
		return;
	if ((f = fopen(c->pid_file, "w")) == NULL) {
		log_warn("%s", c->pid_file);
		return;
	}
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
}

/*
 * Read the configuration file again (SIGHUP, or the file changed, as
 * why says) and start a new set of children with it while the old set
 * drains.  Refused, and logged, when it is invalid, its templates do
 * not load, listen, workers(-min/-max), web-server-addrs changed (a
 * restart takes those) or the previous reload drains.  An elastic
 * pool's maximum follows the new budget (elastic_reload()).  Can't fail.
 */
static void
pool_reload(struct pool *p, const char *conf, struct cfg *c, const char *why)
{
	struct cfg	 nc;
	size_t		 i;

	if (cfg_load(conf, &nc) == -1 || nc.workers != c->workers ||
	    nc.workers_min != c->workers_min || nc.workers_max !=
	    c->workers_max || strcmp(nc.listen, c->listen) != 0 ||
	    strcmp(nc.web_server_addrs, c->web_server_addrs) != 0) {
		log_warnx("%s: configuration not reloaded (invalid, or listen/"
		    "workers(-min/-max)/web-server-addrs changed: restart for "
		    "those)", why);
		cfg_free(&nc);
		return;
	}
	if (old_alive(p)) {
		log_warnx("%s: the previous reload is still draining; try "
		    "again shortly", why);
		cfg_free(&nc);
		return;
	}
	/* On failure the loaded templates stay in use. */
	if (routes_init(&nc) == -1) {
		log_warnx("%s: templates did not load; configuration not "
		    "reloaded", why);
		cfg_free(&nc);
		return;
	}
	(void)log_to_file(nc.log_file);
	log_info("%s: configuration re-read; new processes start, the old "
	    "ones drain", why);
	(void)elastic_reload(&nc, why);
	for (i = 0; i < p->n; i++) {
		p->old[i] = p->pids[i];
		p->pids[i] = 0;
		if (p->old[i] > 0)
			kill(p->old[i], SIGTERM);
	}
	p->old_since = now_ms();
	cfg_free(c);
	*c = nc;
}

static char	**pool_argv;

void
pool_set_argv(char **argv)
{
	pool_argv = argv;
}

/*
 * workers = 0: no master and no children, this process answers the
 * requests itself (a process manager such as mod_fcgid starts, counts
 * and stops the processes).  A changed configuration file makes it
 * start again as the same program (execv(2): the same pid, the listen
 * socket on fd 0 kept) once the request it answers is done.  Returns
 * the exit status for main().
 */
static int
single_run(int fd, const char *conf, struct cfg *c)
{
	single = 1;
	single_conf = conf;
	cfg_stamp(conf, &single_seen);
	single_next_check = now_ms() + CONF_CHECK_MS;
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The records every process of the installation shares live in
	 * run-dir; without it each process has its own (the web server
	 * may start many: then a challenge could be spent once in each).
	 */
	if (c->run_dir[0] == '\0')
		log_warnx("run-dir is not set: the proof of work's single "
		    "use, the log-in hash limit and the stale answers' "
		    "floor hold per process only");
	(void)instance_shm_init(c->run_dir);
	pool_gates(c, c->run_dir);
	log_debug("answering on %s as a single process (workers = 0)",
	    c->listen[0] != '\0' ? c->listen : "fd 0");
	if (child_main(fd, c) == 0)
		return 0;
	if (pool_argv == NULL)
		return 0;
	routes_free();
	execv("/proc/self/exe", pool_argv);
	execv(pool_argv[0], pool_argv);
	log_warn("execv %s", pool_argv[0]);
	return 1;
}

int
pool_run(int fd, const char *conf, struct cfg *c)
{
	struct pool		 p;
	sigset_t		 set, orig;
	siginfo_t		 si;
	struct timespec		 tick = { 0, 250 * 1000 * 1000 };
	int64_t			 state_ms = 0, conf_ms;
	struct cfg_stamp	 seen;
	size_t			 i;
	int			 sig, crashed;
	char			*pid_file;
	struct db		*mdb;

	if (c->workers == 0)
		return single_run(fd, conf, c);
	cfg_stamp(conf, &seen);
	conf_ms = now_ms() + CONF_CHECK_MS;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &orig);
	signal(SIGPIPE, SIG_IGN);

	p.n = elastic_init(c);
	p.pids = xcalloc(p.n, sizeof(*p.pids));
	p.started = xcalloc(p.n, sizeof(*p.started));
	p.old = xcalloc(p.n, sizeof(*p.old));
	p.old_since = 0;
	write_pid(c);
	(void)writers_init(p.n, pool_wait);
	elastic_start();
	(void)instance_shm_init(NULL);
	pool_gates(c, NULL);
	/*
	 * The master's own connection: its report, the queue samples and
	 * the poll documents.
	 */
	mdb = db_open(c);
	db_use_budget(mdb);
	db_limit_statements(mdb);
	/*
	 * Never blocked long by a hanging database: each statement has a
	 * visitor's time, and after one is given up on the others fail at
	 * once until the database answers again, so the master keeps
	 * respawning workers and nginx keeps serving the poll documents
	 * (which then age: clients fall back to /status).
	 */
	db_nonblocking(mdb);
	db_statement_ms(mdb, c->db_visitor_timeout_ms);
	/*
	 * Its only session state, the samplers' named lock, is checked
	 * before every sample (stats_try_lock), so it may move back to the
	 * designated writer like the workers.
	 */
	db_allow_failback(mdb);
	for (i = 0; i < p.n && !elastic_enough(p.pids, p.n); i++)
		spawn(&p, i, fd, c, &orig);
	log_info("listening on %s with %zu processes", c->listen[0] != '\0' ?
	    c->listen : "fd 0", i);

	for (;;) {
		sig = sigtimedwait(&set, &si, &tick);
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("stopping: draining %zu processes",
			    reap(&p, NULL));
			break;
		}
		if (sig == SIGHUP) {
			(void)cfg_changed(conf, &seen);
			pool_reload(&p, conf, c, "SIGHUP");
		} else if (now_ms() >= conf_ms) {
			/* A changed file needs no signal. */
			conf_ms = now_ms() + CONF_CHECK_MS;
			if (cfg_changed(conf, &seen))
				pool_reload(&p, conf, c, conf);
		}
		db_idle(mdb, 0);
		/* The poll documents, about twice a second. */
		if (c->state_dir[0] != '\0' && now_ms() - state_ms >= 450) {
			(void)statedoc_write_all(c, mdb);
			state_ms = now_ms();
		}
		retire_old(&p);
		crashed = 0;
		reap(&p, &crashed);
		for (i = 0; i < p.n; i++) {
			if (p.pids[i] != 0 || elastic_enough(p.pids, p.n))
				continue;
			if (crashed && now_ms() - p.started[i] <
			    RESPAWN_MIN_MS)
				continue;	/* next tick */
			spawn(&p, i, fd, c, &orig);
		}
		if (elastic_tick(p.pids, p.old, p.n, &i) == ELASTIC_FORK &&
		    spawn(&p, i, fd, c, &orig) == -1)
			elastic_fork_failed(RESPAWN_MIN_MS);
		instance_pool_tick(mdb, c, p.pids, p.old, p.n);
	}
	stop_all(&p);
	(void)instance_remove(mdb, "pool");
	db_close(mdb);
	pid_file = c->pid_file;
	if (pid_file[0] != '\0')
		unlink(pid_file);
	if (strncmp(c->listen, "unix:", 5) == 0)
		unlink(c->listen + 5);
	free(p.pids);
	free(p.started);
	free(p.old);
	return 0;
}
