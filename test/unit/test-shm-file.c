/*
 * test-shm-file.c - the records every process of an installation on a
 * host shares when there is no master (workers = 0: the web server
 * starts each process on its own), as files in run-dir.  The processes
 * are real and unrelated in what they share: each is forked from a
 * parent that never mapped anything, and maps the file itself, so
 * nothing is inherited.  Promises at stake, and what shows they hold:
 *   a number is issued once, one solved challenge one number (promise
 *     1 as test/http/52-pow counts it): a proof-of-work challenge spent
 *     in one process is refused in another; eight processes starting at
 *     once on a new run-dir make one record between them (exactly one
 *     may use the challenge); one that died holding the record's lock
 *     stops no other;
 *   serving never goes backward, stale answers included: the floor one
 *     process raised from a fresh read is what another process's stale
 *     answer starts from;
 *   the bound on costly work (login-hashes): a slot held in one
 *     process is full in another, and free again once its holder died.
 * And the file's header: a file of another kind or from another boot
 * is replaced, never trusted.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "aqueue.h"
#include "extern.h"
#include "gate.h"
#include "instance.h"
#include "pow-used.h"
#include "queue-fields.h"
#include "tap.h"

#define NOW	1000000		/* ms */
#define EXPIRES	(NOW + 300000)

static char	 dir[256];

/* A challenge whose random bytes start with k. */
static void
mk(struct pow_challenge *c, uint64_t k)
{
	memset(c, 0, sizeof(*c));
	c->queue_id = 1;
	c->issued_ms = NOW;
	memcpy(c->random, &k, sizeof(k));
}

/* Fork; the child runs fn(arg) and exits with what it returns. */
static pid_t
start(int (*fn)(const void *), const void *arg)
{
	pid_t	 pid;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

/* Wait for pid: its exit status, or 99 when it did not exit. */
static int
finish(pid_t pid)
{
	int	 st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 99;
	return WEXITSTATUS(st);
}

/* start() then finish(). */
static int
in_process(int (*fn)(const void *), const void *arg)
{
	return finish(start(fn, arg));
}

/* The challenge arg reserved in a process of its own: 0 fresh, 1 spent,
 * 2 full; spent when fresh. */
static int
reserve_spend(const void *arg)
{
	const struct pow_challenge	*c = arg;
	enum pow_used			 u;

	if (pow_used_init(1024, dir) != 0)
		return 3;
	u = pow_used_reserve(c, EXPIRES, NOW);
	if (u == POW_USED_FRESH)
		pow_used_done(c, 1);
	return u == POW_USED_FRESH ? 0 : u == POW_USED_SPENT ? 1 : 2;
}

/* As reserve_spend(), each process with a record of its own. */
static int
reserve_alone(const void *arg)
{
	const struct pow_challenge	*c = arg;

	if (pow_used_init(1024, "") != 0)
		return 3;
	return pow_used_reserve(c, EXPIRES, NOW) == POW_USED_FRESH ? 0 : 1;
}

/* Started together: wait until the pipe's write end closes. */
static int	 go_fd = -1, go_wfd = -1;

static int
reserve_at_go(const void *arg)
{
	char	 b;

	close(go_wfd);
	if (read(go_fd, &b, 1) != 0)
		return 8;
	return reserve_spend(arg);
}

static void
test_pow(void)
{
	struct pow_challenge	 c, d;
	pid_t			 pids[8];
	int			 p[2], i, fd, fresh = 0, spent = 0;
	char			*path;

	/* A stray file of that name: replaced, not trusted. */
	path = xasprintf("%s/pow-used.shm", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	is_int(write(fd, "not a record of ours", 20), 20,
	    "pow: a stray file where the record goes");
	close(fd);
	mk(&c, 42);
	is_int(in_process(reserve_spend, &c), 0,
	    "pow: a challenge used in one process");
	is_int(in_process(reserve_spend, &c), 1,
	    "pow: ... is refused in another (mapped on its own)");
	is_int(in_process(reserve_spend, &c), 1,
	    "pow: ... and in a third");
	free(path);

	/* Eight processes at once on a new record: one use in all. */
	path = xasprintf("%s/pow-used.shm", dir);
	unlink(path);
	free(path);
	mk(&d, 4242);
	if (pipe(p) == -1)
		exit(1);
	go_fd = p[0];
	go_wfd = p[1];
	for (i = 0; i < 8; i++)
		pids[i] = start(reserve_at_go, &d);
	close(p[0]);
	close(p[1]);
	for (i = 0; i < 8; i++)
		switch (finish(pids[i])) {
		case 0:
			fresh++;
			break;
		case 1:
			spent++;
			break;
		}
	is_int(fresh, 1, "pow: eight processes starting at once: one use");
	is_int(spent, 7, "pow: ... seven refusals");

	/* Without run-dir: a record per process, as documented. */
	mk(&d, 77);
	is_int(in_process(reserve_alone, &d), 0,
	    "pow without run-dir: used in one process");
	is_int(in_process(reserve_alone, &d), 0,
	    "pow without run-dir: ... and again in another (per process)");
}

/*
 * Die holding the record's lock: the robust mutex that starts the
 * table, right after the file's header (128 bytes), locked here through
 * a mapping of this process's own.
 */
static int
die_locked(const void *arg)
{
	char	*path;
	void	*p;
	int	 fd;

	if (reserve_spend(arg) != 0)
		return 7;
	path = xasprintf("%s/pow-used.shm", dir);
	fd = open(path, O_RDWR);
	free(path);
	if (fd == -1)
		return 5;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 6;
	if (pthread_mutex_lock((pthread_mutex_t *)(void *)((char *)p +
	    128)) != 0)
		return 4;
	_exit(0);
}

/* reserve_spend() that may take at most 10 s (SIGALRM then). */
static int
reserve_in_time(const void *arg)
{
	alarm(10);
	return reserve_spend(arg);
}

static void
test_dead_holder(void)
{
	struct pow_challenge	 c, d;

	mk(&c, 9001);
	mk(&d, 9002);
	is_int(in_process(die_locked, &c), 0,
	    "pow: a process died holding the record's lock");
	is_int(in_process(reserve_in_time, &d), 0,
	    "pow: ... another still uses a challenge (the lock recovered)");
	is_int(in_process(reserve_in_time, &c), 1,
	    "pow: ... and the dead one's spent challenge stays spent");
}

/* Hold a slot of the hash gate, tell the parent (fd arg), then wait. */
static int
hold_slot(const void *arg)
{
	size_t	 slots[GATE__MAX] = { 1, 1 };
	int	 fd = *(const int *)arg;
	char	 b = 'y';

	if (gate_init(slots, dir) != 0 || !gate_enter(GATE_HASH))
		b = 'n';
	if (write(fd, &b, 1) != 1)
		return 1;
	for (;;)
		pause();
	return 0;
}

/*
 * 1 when this process got the hash gate's one slot (given back at
 * once), 0 when it was full; 1 + 2 * held when arg is set: how many
 * were held before it.
 */
static int
try_slot(const void *arg)
{
	size_t	 slots[GATE__MAX] = { 1, 1 };
	size_t	 held;
	int	 got;

	if (gate_init(slots, dir) != 0)
		return 9;
	held = gate_held(GATE_HASH);
	got = gate_enter(GATE_HASH);
	if (got)
		gate_leave(GATE_HASH);
	return arg != NULL ? got + 2 * (int)held : got;
}

/* The inode of the file name in dir, or 0. */
static ino_t
inode_of(const char *name)
{
	struct stat	 st;
	char		*path = xasprintf("%s/%s", dir, name);
	ino_t		 ino = stat(path, &st) == 0 ? st.st_ino : 0;

	free(path);
	return ino;
}

static void
test_gate(void)
{
	pid_t	 holder;
	int	 p[2], fd;
	char	 b = 0, *path;
	ino_t	 ino;

	if (pipe(p) == -1)
		exit(1);
	holder = start(hold_slot, &p[1]);
	is_int(read(p[0], &b, 1), 1, "gate: the holder answers");
	is_int(b, 'y', "gate: a process holds the one hash slot");
	is_int(in_process(try_slot, "held"), 2,
	    "gate: ... another process sees it held, and full");
	kill(holder, SIGKILL);
	(void)finish(holder);
	is_int(in_process(try_slot, "held"), 3,
	    "gate: the holder died (still marked): the slot is taken");
	is_int(in_process(try_slot, "held"), 1,
	    "gate: ... and given back: free for the next");

	/* A record of another boot: its pids mean nothing, replaced. */
	b = 0;
	holder = start(hold_slot, &p[1]);
	is_int(read(p[0], &b, 1) == 1 ? b : 0, 'y',
	    "gate: another process holds it");
	is_int(in_process(try_slot, NULL), 0, "gate: held again: full");
	ino = inode_of("gates.shm");
	path = xasprintf("%s/gates.shm", dir);
	fd = open(path, O_WRONLY);
	/* The boot id, after magic, layout and size. */
	is_int(pwrite(fd, "another-boot", 12, 16), 12,
	    "gate: the file's boot id made another");
	close(fd);
	free(path);
	is_int(in_process(try_slot, NULL), 1,
	    "gate: a file from another boot is made anew: free");
	ok(inode_of("gates.shm") != ino && inode_of("gates.shm") != 0,
	    "gate: ... as a new file (the old one stays whole for whoever "
	    "maps it)");
	kill(holder, SIGKILL);
	(void)finish(holder);
	close(p[0]);
	close(p[1]);
}

/*
 * A queue of 60 a minute started at T0, read fresh with last_number
 * issued (a child raises the floor from it: arg = its last number).
 */
#define T0	1000000
#define QNOW	(T0 + 60000)

static void
mkqueue(struct queue *q, struct qentry *e, int64_t last)
{
	memset(q, 0, sizeof(*q));
	memset(e, 0, sizeof(*e));
	q->id = 7;
	adm_init(&q->adm, 60, 1, T0);
	q->adm.last_number = last;
	e->q = q;
}

/* A fresh read of 30 numbers issued, recorded (qcache_seen()). */
static int
seen_fresh(const void *arg)
{
	struct queue	 q;
	struct qentry	 e;

	(void)arg;
	if (instance_shm_init(dir) != 0)
		return 9;
	mkqueue(&q, &e, 30);
	qcache_seen(&e, QNOW);
	return 0;
}

/* An older copy (27 issued) answering stale: its serving number. */
static int
serving_stale(const void *arg)
{
	struct queue	 q;
	struct qentry	 e;

	if (instance_shm_init(arg != NULL ? dir : "") != 0)
		return 99;
	mkqueue(&q, &e, 27);
	qcache_stale_raise(&e, QNOW);
	return (int)adm_serving(&q.adm, QNOW);
}

static void
test_stale(void)
{
	struct queue	 q;
	struct qentry	 e;

	mkqueue(&q, &e, 30);
	is_int(adm_serving(&q.adm, QNOW), 31, "stale: the fresh copy: 31");
	mkqueue(&q, &e, 27);
	is_int(adm_serving(&q.adm, QNOW), 28, "stale: the old copy: 28");
	is_int(in_process(serving_stale, "shared"), 28,
	    "stale: nothing recorded yet: the old copy answers 28");
	is_int(in_process(seen_fresh, NULL), 0,
	    "stale: one process answered from a fresh read");
	is_int(in_process(serving_stale, "shared"), 31,
	    "stale: another process's stale answer starts from it: 31");
	is_int(in_process(serving_stale, NULL), 28,
	    "stale without run-dir: per process (28), as documented");
}

int
main(void)
{
	static const char *const files[] = { "pow-used.shm", "gates.shm",
	    "stale-answers.shm" };
	const char	*tmp = getenv("TMPDIR");
	char		*path;
	size_t		 i;

	snprintf(dir, sizeof(dir), "%s/aq-shm-XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_pow();
	test_dead_holder();
	test_gate();
	test_stale();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path = xasprintf("%s/%s", dir, files[i]);
		(void)unlink(path);
		free(path);
	}
	(void)rmdir(dir);
	return done_testing();
}
