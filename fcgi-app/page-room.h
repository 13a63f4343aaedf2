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

#endif /* PAGE_ROOM_H */
