/*
 * page-join.h - the join page of a queue (see page-join.c).
 */
#ifndef PAGE_JOIN_H
#define PAGE_JOIN_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_join(struct req *r);

#endif /* PAGE_JOIN_H */
