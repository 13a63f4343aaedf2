/*
 * page-status.h - the status page of a queue (see page-status.c).
 */
#ifndef PAGE_STATUS_H
#define PAGE_STATUS_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_status(struct req *r);

#endif /* PAGE_STATUS_H */
