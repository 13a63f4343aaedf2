/*
 * console-fairness.h - the console's fairness report page and the
 * scheduled opening on a queue's dashboard (console-fairness.c).
 */
#ifndef CONSOLE_FAIRNESS_H
#define CONSOLE_FAIRNESS_H

#include <stdint.h>

struct buf;
struct queue;
struct req;

/*
 * GET /admin/queue/:slug/fairness[?since=MS&until=MS]: the queue's
 * fairness report (fair_report(), the API's numbers) as tables and a
 * chart; a bad period (api_fair_period()) is a 400 page that reads
 * nothing.  Answers every case itself.
 */
void	 console_queue_fairness(struct req *);

/*
 * Append the scheduled opening of queue q at now (DB Unix ms) to b: the
 * time with its zone, a countdown, the seed's published hash, and after
 * the draw the seed, the pre-queue's size and the command that checks
 * the draw; the values /info publishes.  Nothing without an opening.
 * Can't fail.
 */
void	 console_opening(struct req *, const struct queue *q, int64_t now,
	    struct buf *b);

#endif /* CONSOLE_FAIRNESS_H */
