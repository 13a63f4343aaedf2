/*
 * page-renew.h - session renewal of a queue (see page-renew.c).
 */
#ifndef PAGE_RENEW_H
#define PAGE_RENEW_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_renew(struct req *r);

#endif /* PAGE_RENEW_H */
