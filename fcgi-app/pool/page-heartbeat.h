/*
 * page-heartbeat.h - POST /queue/<slug>/heartbeat (see page-heartbeat.c).
 */
#ifndef PAGE_HEARTBEAT_H
#define PAGE_HEARTBEAT_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_heartbeat(struct req *r);

#endif /* PAGE_HEARTBEAT_H */
