/*
 * page-token.h - the token page of a queue (see page-token.c).
 */
#ifndef PAGE_TOKEN_H
#define PAGE_TOKEN_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_token(struct req *r);

#endif /* PAGE_TOKEN_H */
