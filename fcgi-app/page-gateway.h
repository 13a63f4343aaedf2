/*
 * page-gateway.h - the gateway page of a queue (see page-gateway.c).
 */
#ifndef PAGE_GATEWAY_H
#define PAGE_GATEWAY_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_gateway(struct req *r);

#endif /* PAGE_GATEWAY_H */
