/*
 * page-gateway.h - the gateway page of a queue (see page-gateway.c).
 */
#ifndef PAGE_GATEWAY_H
#define PAGE_GATEWAY_H

struct req;

/*
 * Longest Location the gateway sends, in bytes.  With the other headers
 * (about 500 bytes) the response head stays below 4 KB, the default
 * FastCGI header buffer of nginx (fastcgi_buffer_size, one memory page).
 * A return URL (at most URL_MAX bytes) with the token always fits.
 */
#define LOCATION_MAX	3072

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_gateway(struct req *r);

#endif /* PAGE_GATEWAY_H */
