/*
 * main.c - aqueue-worker: the background daemon.  One event loop drives
 * the runner (runner.c): the leader lock once a second, each job of
 * worker_jobs[] when its deadline has come (on the leader only when it
 * is flagged JOB_LEADER).  Between steps the process waits in ppoll(2)
 * until the earliest deadline, with SIGTERM, SIGINT and SIGHUP
 * unblocked only there: a signal never interrupts a step.  SIGTERM and
 * SIGINT end the loop after the step that runs (exit 0, the lock
 * released); SIGHUP reads the configuration again.  --detach leaves the
 * terminal: the program runs on in a session of its own, its log in
 * log-file (else syslog).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "db-worker.h"
#include "instance.h"
#include "log.h"
#include "worker.h"

static volatile sig_atomic_t	 stop_sig;
static volatile sig_atomic_t	 reload_sig;

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_sig = 1;
	else
		stop_sig = sig;
}

static void
usage(void)
{
	fprintf(stderr, "usage: aqueue-worker [-n] [--detach] "
	    "[-c config]\n");
	exit(2);
}

/*
 * Block the signals (they are taken only inside ppoll) and ignore
 * SIGPIPE.  Fills *wait_mask with the mask ppoll waits under.  Returns
 * 0, or -1 (logged).
 */
static int
setup_signals(sigset_t *wait_mask)
{
	struct sigaction	 sa;
	sigset_t		 block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1) {
		log_error("sigaction");
		return -1;
	}
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) == -1) {
		log_error("sigaction");
		return -1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, wait_mask) == -1) {
		log_error("sigprocmask");
		return -1;
	}
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGHUP);
	return 0;
}

/*
 * Whether a stop signal arrived (it stays pending, blocked, until the
 * loop waits): then no further step starts.  Can't fail.
 */
static int
stop_pending(void)
{
	sigset_t	 p;

	if (stop_sig)
		return 1;
	if (sigpending(&p) == -1)
		return 0;
	return sigismember(&p, SIGTERM) == 1 || sigismember(&p, SIGINT) == 1;
}

/*
 * Leave the terminal (--detach): fork, a new session, fork again (never
 * a session leader, so no terminal comes back), the working directory
 * "/", standard input and output on /dev/null, standard error on
 * log-file when it is open (to_file; else the log goes to syslog).
 * The first process waits until the last one says it runs (its pid
 * through a pipe, sent by detach_ready()), prints that pid and where
 * the log goes, and exits 0; or 1 when the daemon did not get that
 * far.  Returns in the detached process the pipe's write end, or -1
 * (logged) when the fork failed in the first process.
 */
static int
detach(const struct cfg *c, int to_file)
{
	int	 p[2], fd;
	pid_t	 pid;
	char	 b[32];
	ssize_t	 n;
	size_t	 got = 0;

	if (pipe(p) == -1) {
		log_error("pipe");
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_error("fork");
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		while (got < sizeof(b) - 1 && ((n = read(p[0], b + got,
		    sizeof(b) - 1 - got)) > 0 || (n == -1 && errno == EINTR)))
			if (n > 0)
				got += (size_t)n;
		b[got] = '\0';
		if (got == 0) {
			fprintf(stderr, "aqueue-worker: the daemon did not "
			    "start\n");
			_exit(1);
		}
		printf("aqueue-worker: running in the background as pid %s, "
		    "log: %s\n", b, to_file ? c->log_file : "syslog");
		fflush(stdout);
		_exit(0);
	}
	close(p[0]);
	if (setsid() == -1)
		_exit(1);
	if ((pid = fork()) == -1)
		_exit(1);
	if (pid > 0)
		_exit(0);
	if (chdir("/") == -1)
		_exit(1);
	if ((fd = open("/dev/null", O_RDWR)) == -1)
		_exit(1);
	(void)dup2(fd, STDIN_FILENO);
	(void)dup2(fd, STDOUT_FILENO);
	if (!to_file) {
		(void)dup2(fd, STDERR_FILENO);
		log_open("aqueue-worker", 1);
	}
	if (fd > STDERR_FILENO)
		close(fd);
	return p[1];
}

/*
 * Tell the waiting first process (detach()) that the daemon runs: its
 * pid through the pipe fd, which is then closed.  Nothing when fd < 0.
 */
static void
detach_ready(int fd)
{
	char	 b[32];
	int	 len;
	ssize_t	 n;

	if (fd < 0)
		return;
	len = snprintf(b, sizeof(b), "%ld", (long)getpid());
	n = write(fd, b, (size_t)len);
	(void)n;
	close(fd);
}

/* Open the jobs' and the lock's connections and set the runner up. */
static void
start_run(struct worker_run *r, struct cfg *c)
{
	struct db	*db = db_open(c), *lockdb = db_open(c);
	int64_t		 t;

	worker_run_init(r, c, db, lockdb, 0);
	if (db_now_ms(db, &t) == APP_OK)
		r->w.started_ms = t;
}

/* Give up the lead and close both connections. */
static void
end_run(struct worker_run *r)
{
	struct db	*db = r->w.db, *lockdb = r->lockdb;

	worker_run_end(r);
	db_close(lockdb);
	db_close(db);
}

/*
 * SIGHUP: read the configuration file again.  A valid one replaces the
 * old (the lead given up, the connections opened anew, the log-file
 * reopened); an invalid one is logged and the old one stays.
 */
static void
reload(struct worker_run *r, struct cfg *c, const char *conf)
{
	struct cfg	 nc;

	if (cfg_load(conf, &nc) == -1) {
		log_warnx("SIGHUP: %s is not valid; the configuration in "
		    "use stays", conf);
		cfg_free(&nc);
		return;
	}
	end_run(r);
	cfg_free(c);
	*c = nc;
	(void)log_to_file(c->log_file);
	start_run(r, c);
	log_info("SIGHUP: configuration %s read again", conf);
}

int
main(int argc, char *argv[])
{
	static const struct option	 longopts[] = {
		{ "detach", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	struct cfg		 c;
	struct worker_run	 r;
	const char		*conf = cfg_default_path();
	sigset_t		 wait_mask;
	struct timespec		 ts;
	int64_t			 wake;
	int			 ch, check_only = 0, detached = 0, ready = -1;
	int			 to_file;

	log_open("aqueue-worker", 0);
	while ((ch = getopt_long(argc, argv, "c:f:n", longopts, NULL)) != -1)
		switch (ch) {
		case 'c':
		case 'f':
			conf = optarg;
			break;
		case 'n':
			check_only = 1;
			break;
		case 'D':
			detached = 1;
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	if (cfg_load(conf, &c) == -1) {
		cfg_free(&c);
		return 1;
	}
	if (check_only) {
		cfg_free(&c);
		return 0;
	}
	to_file = c.log_file[0] != '\0' && log_to_file(c.log_file) == 0;
	if (detached && (ready = detach(&c, to_file)) == -1)
		return 1;
	if (setup_signals(&wait_mask) == -1)
		return 1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_errorx("curl_global_init failed");
		return 1;
	}

	start_run(&r, &c);
	log_info("started as %s with %zu jobs (config %s)", r.w.instance_id,
	    worker_njobs, conf);
	detach_ready(ready);

	while (!stop_sig) {
		if (reload_sig) {
			reload_sig = 0;
			reload(&r, &c, conf);
		}
		(void)worker_run_leader(&r, 1);
		(void)worker_run_jobs(&r, 0, stop_pending);
		/* Sleep until the earliest deadline, at most a leader tick. */
		wake = worker_run_wait_ms(&r);
		if (wake < 0 || wake > WORKER_LEADER_TICK_MS)
			wake = WORKER_LEADER_TICK_MS;
		ts.tv_sec = (time_t)(wake / 1000);
		ts.tv_nsec = (long)(wake % 1000) * 1000000L;
		if (ppoll(NULL, 0, &ts, &wait_mask) == -1 && errno != EINTR)
			log_warn("ppoll");
	}

	log_info("stopping on signal %d", (int)stop_sig);
	end_run(&r);
	cfg_free(&c);
	curl_global_cleanup();
	log_info("stopped");
	return 0;
}
