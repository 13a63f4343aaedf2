/*
 * test-login-guard.c - the log-in's throttles (login-guard.c), decided
 * from the failures of the window before any hash: per name from one
 * address, per address, and the pace of a name from anywhere, whose
 * wait never passes login-user-backoff (a correct password from a new
 * address gets in after at most that long); and the pool's gate
 * (gate.c) that bounds the hashes running at once.
 */
#include "config.h"

#include <sys/wait.h>

#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "db-console.h"
#include "gate.h"
#include "login-guard.h"
#include "tap.h"

/* The defaults of aqueue.conf(5): 5 per name and address, 20 per
 * address, 900 s, a pace of at most 4 s. */
static void
defaults(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->login_user_failures = 5;
	c->login_addr_failures = 20;
	c->login_window_s = 900;
	c->login_user_backoff_s = 4;
	c->login_hashes = 1;
}

static void
test_pair_and_addr(void)
{
	struct cfg		 c;
	struct login_counts	 n;
	int64_t			 retry;

	defaults(&c);
	memset(&n, 0, sizeof(n));
	n.now = 1000000;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_OK,
	    "no failures: checked");
	is_int(retry, 0, "no wait");

	/* Four failures of the name from this address: still checked. */
	n.pair = 4;
	n.pair_oldest = n.now - 10000;
	n.addr = 4;
	n.addr_oldest = n.pair_oldest;
	n.user = 4;
	n.user_last = n.now - 100;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_OK,
	    "4 failures of the pair: checked");
	/* The fifth: refused until the oldest leaves the window. */
	n.pair = n.addr = n.user = 5;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_PAIR,
	    "5 failures of the pair: refused unchecked");
	is_int(retry, 890, "until the oldest leaves the 900 s window");

	/* The same name from a new address: only the name's pace. */
	n.pair = 0;
	n.addr = 0;
	n.user_last = n.now - 100;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_PACE,
	    "a new address right after: paced");
	is_int(retry, 1, "for a second");
	n.user_last = n.now - 1000;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_OK,
	    "a new address a second after the last failure: checked");

	/* Twenty failures from one address, other names: refused. */
	memset(&n, 0, sizeof(n));
	n.now = 5000000;
	n.addr = 20;
	n.addr_oldest = n.now - 899000;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_ADDR,
	    "20 failures from the address: refused");
	is_int(retry, 1, "the oldest leaves the window in a second");
	n.addr = 19;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_OK,
	    "19: checked");
}

static void
test_pace(void)
{
	struct cfg		 c;
	struct login_counts	 n;
	int64_t			 retry, k, worst = 0;

	defaults(&c);
	is_int(login_guard_pace_s(&c, 4), 0, "4 failures: no pace");
	is_int(login_guard_pace_s(&c, 5), 1, "5: 1 s");
	is_int(login_guard_pace_s(&c, 6), 2, "6: 2 s");
	is_int(login_guard_pace_s(&c, 7), 4, "7: 4 s");
	is_int(login_guard_pace_s(&c, 8), 4, "8: capped at 4 s");
	is_int(login_guard_pace_s(&c, 100000), 4, "100000: capped at 4 s");
	/*
	 * Whatever the flood did from other addresses, a new address waits
	 * at most login-user-backoff seconds after the last failure.
	 */
	memset(&n, 0, sizeof(n));
	n.now = 10000000;
	for (k = 0; k < 5000; k += 7) {
		n.user = k;
		n.user_last = n.now;
		(void)login_guard_decide(&c, &n, &retry);
		if (retry > worst)
			worst = retry;
	}
	is_int(worst, 4, "a new address waits at most 4 s");
	c.login_user_backoff_s = 0;
	n.user = 1000;
	is_int(login_guard_decide(&c, &n, &retry), LOGIN_GUARD_OK,
	    "login-user-backoff 0: no pace");
	c.login_user_backoff_s = 60;
	is_int(login_guard_pace_s(&c, 5 + 6), 60, "60 s cap: 2^6 -> 60");
	is_int(login_guard_pace_s(&c, 5 + 5), 32, "5 over: 32 s");
}

static void
test_gate(void)
{
	size_t	 slots[GATE__MAX] = { 1, 1 };
	int	 p[2], st;
	char	 got = 0;
	pid_t	 pid;

	is_int(gate_enter(GATE_HASH), 1, "without a pool: no limit");
	gate_leave(GATE_HASH);
	is_int(gate_init(slots, NULL), 0, "one hash slot");
	is_int(gate_enter(GATE_HASH), 1, "taken");
	is_int(gate_enter(GATE_HASH), 1, "the holder takes it again");
	is_int(gate_held(GATE_HASH), 1, "one held");
	if (pipe(p) == -1 || (pid = fork()) == -1) {
		ok(0, "pipe/fork");
		return;
	}
	if (pid == 0) {
		char	 c = gate_enter(GATE_HASH) ? 'y' : 'n';

		_exit(write(p[1], &c, 1) == 1 ? 0 : 1);
	}
	if (read(p[0], &got, 1) != 1)
		got = '?';
	waitpid(pid, &st, 0);
	is_int(got, 'n', "another process finds the slot held");
	is_int(gate_enter(GATE_HEALTH), 1, "other gates are apart");
	gate_leave(GATE_HEALTH);
	gate_leave(GATE_HASH);
	is_int(gate_held(GATE_HASH), 0, "given back");
	if ((pid = fork()) == 0) {
		(void)gate_enter(GATE_HASH);
		_exit(0);	/* dies holding it */
	}
	waitpid(pid, &st, 0);
	is_int(gate_held(GATE_HASH), 1, "a dead holder's slot stays...");
	gate_reap(pid);
	is_int(gate_held(GATE_HASH), 0, "... until the master reaps it");
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	test_pair_and_addr();
	test_pace();
	test_gate();
	return done_testing();
}
