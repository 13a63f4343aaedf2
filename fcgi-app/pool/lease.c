/*
 * lease.c - number blocks in a pool process (see lease.h).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "admission.h"
#include "aqueue.h"
#include "db.h"
#include "extern.h"
#include "join-void.h"
#include "lease.h"
#include "log.h"
#include "queue-fields.h"

/* This process's lease: next .. last are still to be handed out. */
static struct {
	int64_t	 queue_id;	/* 0: none */
	int64_t	 next;
	int64_t	 last;
	int64_t	 at;		/* taken, mono_ms() */
} lease;

/*
 * Joins of this process on one queue (win_queue) in tumbling windows of
 * LEASE_MS: a join on another queue starts the count again, so that a
 * quiet queue never takes the lease size of a busy one (and two busy
 * queues on one process take one number per join).
 */
static int64_t	 win_queue, win_at, win_joins, prev_joins;

/* Move the window on to now (mono_ms()).  Can't fail. */
static void
window_move(int64_t now)
{
	if (now - win_at < LEASE_MS)
		return;
	prev_joins = now - win_at < 2 * LEASE_MS ? win_joins : 0;
	win_at = now;
	win_joins = 0;
}

void
lease_note_join(int64_t queue_id)
{
	if (queue_id != win_queue) {
		win_queue = queue_id;
		win_at = mono_ms();
		win_joins = prev_joins = 0;
	}
	window_move(mono_ms());
	win_joins++;
}

int64_t
lease_size(const struct qentry *e)
{
	int64_t	 n;

	if (e->q->number_block < 2 || !adm_lease_ok(&e->q->adm) ||
	    e->q->id != win_queue)
		return 1;
	window_move(mono_ms());
	n = prev_joins > win_joins ? prev_joins : win_joins;
	if (n > e->q->number_block)
		n = e->q->number_block;
	return n < 2 ? 1 : n;
}

/* End the lease: its numbers not handed out are unused.  Can't fail. */
static void
lease_end(void)
{
	if (lease.queue_id != 0 && lease.next <= lease.last)
		join_unused_note(lease.queue_id, lease.last - lease.next + 1);
	lease.queue_id = 0;
}

int
lease_live(const struct qentry *e)
{
	return lease.queue_id == e->q->id && lease.next <= lease.last &&
	    mono_ms() - lease.at < LEASE_MS && e->q->number_block > 1;
}

int
lease_take(const struct qentry *e, int64_t now, int64_t *number)
{
	int	 k;

	if (!lease_live(e))
		return 0;
	/*
	 * The cached row, fresh (admission.h: every copy agrees): a lease
	 * is handed out only while the segment in effect at now (a change
	 * due counts from its time on, applied or not) is fifo or
	 * passthrough and the row takes leases, so that a pause, a hold,
	 * an opening's pre-queue or a random order begun meanwhile sees
	 * its joins take their numbers from the row.
	 */
	k = adm_seg_at(&e->q->adm, now);
	if ((k != ADM_SEG_FIFO && k != ADM_SEG_PASS) ||
	    !adm_lease_ok(&e->q->adm)) {
		lease_end();
		return 0;
	}
	*number = lease.next++;
	return 1;
}

void
lease_set(int64_t queue_id, int64_t first, int64_t last, int64_t at)
{
	lease_end();
	lease.queue_id = queue_id;
	lease.next = first + 1;
	lease.last = last;
	lease.at = at;
}

void
lease_flush(struct db *db, int all)
{
	if (lease.queue_id != 0 && (all || lease.next > lease.last ||
	    mono_ms() - lease.at >= LEASE_MS))
		lease_end();
	join_unused_flush(db);
	if (all && join_unused_pending())
		log_warnx("join: the counts of unused lease numbers could "
		    "not be written before this process ends");
}

int64_t
lease_wait_ms(void)
{
	int64_t	 left;

	if (lease.queue_id != 0) {
		left = LEASE_MS - (mono_ms() - lease.at);
		return left > 0 ? left : 0;
	}
	return join_unused_pending() ? 1000 : -1;
}
