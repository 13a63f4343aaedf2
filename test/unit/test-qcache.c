/*
 * test-qcache.c - stale answers of one pool agree: a process whose
 * copy of a queue is older than another's answers, while the database
 * does not answer, at least what the other answered from its fresh
 * read (serving never goes backward for an observer whose requests
 * reach different processes).  The processes are real: a child made
 * with fork(2) answers fresh, the parent stale, through the pool's
 * shared mapping.  Promise at stake: serving never goes backward (1);
 * and nobody is admitted before an opening.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "aqueue.h"
#include "extern.h"
#include "instance.h"
#include "queue-fields.h"
#include "tap.h"

#define T0	1000000		/* ms: the queue's start */
#define NOW	(T0 + 60000)	/* ms: a minute later */

/* In a child process: record what entry e says at now; wait for it. */
static void
seen_in_child(const struct qentry *e, int64_t now)
{
	pid_t	 pid;
	int	 status;

	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		qcache_seen(e, now);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "child failed\n");
		exit(1);
	}
}

int
main(void)
{
	struct queue	 fresh, old, held;
	struct qentry	 ef, eo, eh;
	struct adm_change c;
	int64_t		 s, l;

	if (instance_shm_init(NULL) != 0)
		return 1;
	memset(&fresh, 0, sizeof(fresh));
	memset(&ef, 0, sizeof(ef));
	fresh.id = 7;
	/* 60 a minute, burst 1: a minute on, growth allows 61. */
	adm_init(&fresh.adm, 60, 1, T0);
	old = fresh;
	fresh.adm.last_number = 30;	/* read after three more joins */
	old.adm.last_number = 27;
	ef.q = &fresh;
	eo = ef;
	eo.q = &old;
	is_int(adm_serving(&fresh.adm, NOW), 31, "fresh copy: serving 31");
	is_int(adm_serving(&old.adm, NOW), 28, "old copy: serving 28");

	instance_seen_get(7, &s, &l);
	ok(s == 0 && l == 0, "nothing recorded yet: 0, 0");
	seen_in_child(&ef, NOW);
	instance_seen_get(7, &s, &l);
	ok(s == 31 && l == 30, "the pool's record: serving 31, last 30 "
	    "(got %lld, %lld)", (long long)s, (long long)l);
	/* An older read does not lower the record. */
	seen_in_child(&eo, NOW);
	instance_seen_get(7, &s, &l);
	ok(s == 31 && l == 30, "an older copy leaves it at 31, 30");

	qcache_stale_raise(&eo, NOW + 500);
	is_int(old.adm.last_number, 30, "stale: numbers issued raised to 30");
	is_int(adm_serving(&old.adm, NOW + 500), 31,
	    "stale: serving 31, as the fresh process answered");
	ok(adm_admitted(&old.adm, 31, NOW + 500) &&
	    !adm_admitted(&old.adm, 32, NOW + 500),
	    "stale: number 31 admitted there too, 32 not");

	/* A change due by then is applied before the floor is raised. */
	old = fresh;
	old.adm.last_number = 27;
	adm_change_init(&old.adm, NOW - 1000, &c);
	c.rate = 6;
	is_int(adm_schedule(&old.adm, NOW - 1000, &c), 0,
	    "old copy: a rate change scheduled before now");
	qcache_stale_raise(&eo, NOW + 500);
	ok(old.adm.pend_at_ms == 0 && adm_serving(&old.adm, NOW + 500) >= 31 &&
	    adm_serving(&old.adm, NOW + 5000) >= 31,
	    "stale after the change's time: applied, serving at least 31");

	/*
	 * A draw not closed in this copy counts its pre-queue from its own
	 * numbers: they stay, and before the opening nobody is admitted,
	 * whatever the pool's record says.
	 */
	memset(&held, 0, sizeof(held));
	held.id = 8;
	adm_init_opening(&held.adm, 60, 1, NOW, NOW + 60000);
	held.adm.last_number = 3;
	memset(&eh, 0, sizeof(eh));
	eh.q = &held;
	instance_seen(8, 5, 9);
	qcache_stale_raise(&eh, NOW + 1000);
	is_int(adm_serving(&held.adm, NOW + 1000), 0,
	    "held by an opening: serving stays 0");
	is_int(held.adm.last_number, 3,
	    "a draw not closed in this copy: its numbers stay 3");
	is_int(adm_prequeue_size(&held.adm, NOW + 61000), -1,
	    "after the opening, not closed in this copy: its pre-queue not "
	    "known, so no pre-queue place is admitted from it");
	return done_testing();
}
