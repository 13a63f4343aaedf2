/*
 * page-room.h - the room page of a queue (see page-room.c).
 */
#ifndef PAGE_ROOM_H
#define PAGE_ROOM_H

struct req;

/* Answer the request; r->qe is the route's queue.  Can't fail. */
void	 page_room(struct req *r);

#endif /* PAGE_ROOM_H */
