/*
 * pow-used.c - the proof of work's single-use record (see pow-used.h):
 * open addressing with linear probing over a power-of-two table; slots
 * never become empty again (a given-back or expired entry is free for
 * reuse but keeps the probe chains whole), so a look-up may stop at the
 * first empty slot.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "pow-used.h"
#include "shm-file.h"

/* Slots looked at per look-up: a full neighbourhood refuses the join. */
#define PROBE_MAX	64

enum state {
	S_EMPTY = 0,	/* never used: ends a probe chain */
	S_RESERVED,	/* a join under way */
	S_SPENT,	/* a number was issued for it */
	S_FREE		/* given back: reusable, keeps the chain */
};

struct ent {
	uint64_t	 k0, k1;	/* the challenge's random bytes */
	int64_t		 expires_ms;
	int32_t		 state;
	int32_t		 pid;
};

struct table {
	pthread_mutex_t	 lock;
	size_t		 mask;
	struct ent	 e[];
};

static struct table	*tab;
static int		 failed;	/* init was called and failed */

/* The record's file in run-dir, its kind ("POWU") and layout. */
#define USED_FILE	"pow-used.shm"
#define USED_MAGIC	0x504f5755u
#define USED_LAYOUT	1u

/* A new table (shm_file_init_fn): its size and its robust mutex. */
static int
table_init(void *p, size_t bytes, void *arg)
{
	struct table		*t = p;
	pthread_mutexattr_t	 a;
	int			 rc = -1;

	(void)bytes;
	t->mask = *(const size_t *)arg - 1;
	if (pthread_mutexattr_init(&a) != 0)
		return -1;
	if (pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0 &&
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0 &&
	    pthread_mutex_init(&t->lock, &a) == 0)
		rc = 0;
	pthread_mutexattr_destroy(&a);
	if (rc == -1)
		log_warnx("pow: no shared mutex");
	return rc;
}

int
pow_used_init(size_t slots, const char *dir)
{
	size_t	 n = 1024;
	void	*p;

	while (n < slots && n < ((size_t)1 << 30))
		n <<= 1;
	if (shm_file_map(dir, USED_FILE, USED_MAGIC, USED_LAYOUT,
	    sizeof(struct table) + n * sizeof(struct ent), table_init, &n,
	    "the proof of work's single use", &p) == SHM_FILE_FAILED) {
		failed = 1;
		return -1;
	}
	tab = p;
	return 0;
}

/* Take the table's lock, recovering it from a holder that died. */
static int
lock(void)
{
	int	 rc = pthread_mutex_lock(&tab->lock);

	if (rc == EOWNERDEAD)
		rc = pthread_mutex_consistent(&tab->lock);
	return rc == 0 ? 0 : -1;
}

/* The two halves of c's key. */
static void
key_of(const struct pow_challenge *c, uint64_t *k0, uint64_t *k1)
{
	memcpy(k0, c->random, 8);
	memcpy(k1, c->random + 8, 8);
}

enum pow_used
pow_used_reserve(const struct pow_challenge *c, int64_t expires_ms,
    int64_t now_ms)
{
	struct ent	*e, *room = NULL;
	uint64_t	 k0, k1;
	size_t		 i, h;
	int		 live;

	if (tab == NULL)
		return failed ? POW_USED_FULL : POW_USED_FRESH;
	key_of(c, &k0, &k1);
	if (lock() == -1)
		return POW_USED_FULL;
	h = (size_t)k0;
	for (i = 0; i < PROBE_MAX; i++) {
		e = &tab->e[(h + i) & tab->mask];
		if (e->state == S_EMPTY) {
			if (room == NULL)
				room = e;
			break;
		}
		live = (e->state == S_RESERVED || e->state == S_SPENT) &&
		    e->expires_ms > now_ms;
		if (live && e->k0 == k0 && e->k1 == k1) {
			pthread_mutex_unlock(&tab->lock);
			return POW_USED_SPENT;
		}
		if (!live && room == NULL)
			room = e;
	}
	if (room == NULL) {
		pthread_mutex_unlock(&tab->lock);
		return POW_USED_FULL;
	}
	room->k0 = k0;
	room->k1 = k1;
	room->expires_ms = expires_ms;
	room->pid = (int32_t)getpid();
	room->state = S_RESERVED;
	pthread_mutex_unlock(&tab->lock);
	return POW_USED_FRESH;
}

void
pow_used_done(const struct pow_challenge *c, int spent)
{
	struct ent	*e;
	uint64_t	 k0, k1;
	size_t		 i, h;

	if (tab == NULL)
		return;
	key_of(c, &k0, &k1);
	if (lock() == -1)
		return;
	h = (size_t)k0;
	for (i = 0; i < PROBE_MAX; i++) {
		e = &tab->e[(h + i) & tab->mask];
		if (e->state == S_EMPTY)
			break;
		if (e->state == S_RESERVED && e->k0 == k0 && e->k1 == k1) {
			e->state = spent ? S_SPENT : S_FREE;
			break;
		}
	}
	pthread_mutex_unlock(&tab->lock);
}
