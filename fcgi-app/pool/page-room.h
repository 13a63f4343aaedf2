/*
 * page-room.h - the room page of a queue (see page-room.c).
 */
#ifndef PAGE_ROOM_H
#define PAGE_ROOM_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_room(struct req *r);

/*
 * Answer 503 with the "briefly unavailable" page (templates/
 * unavailable.html) for the room of slug (already checked by
 * db_queue_slug_valid()) when its queue could not be read; r->qe may be NULL.
 * The page reloads itself after its Retry-After, drawn from
 * [HTTP_DOWN_RETRY_MIN_S, HTTP_DOWN_RETRY_MAX_S].  Can't fail.
 */
void	 page_unavailable(struct req *r, const char *slug);

/*
 * GET /queue/<slug> of a queue that does not exist, asked for by a
 * browser: a 404 page in the visitor's language (the slug not shown).
 */
void	 page_room_unknown(struct req *, const char *slug);

/*
 * Whether an Accept header value (may be NULL) asks the waiting room
 * for its JSON mode (then a GET may take a number: a write).  Returns 1
 * or 0.
 */
int	 page_room_is_json(const char *accept);

/*
 * GET /queue/<slug>/embed.js: the shop-side script (templates/embed.js;
 * it finds the queue from its own src URL), cacheable for 5 minutes.
 */
void	 page_embed(struct req *);

#endif /* PAGE_ROOM_H */
