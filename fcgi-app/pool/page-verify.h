/*
 * page-verify.h - the verify page of a queue (see page-verify.c).
 */
#ifndef PAGE_VERIFY_H
#define PAGE_VERIFY_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_verify(struct req *r);

#endif /* PAGE_VERIFY_H */
