/*
 * page-info.h - the info page of a queue (see page-info.c).
 */
#ifndef PAGE_INFO_H
#define PAGE_INFO_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_info(struct req *r);

#endif /* PAGE_INFO_H */
