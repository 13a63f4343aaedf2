/*
 * db-template.h - rows of queue_template (migration 0073): a queue's
 * custom waiting-room template, at most one a queue.  Used through
 * tmpl-ops.h, and by the pool's cache of queues to read it.
 */
#ifndef DB_TEMPLATE_H
#define DB_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct db;

/*
 * The template of queue queue_id: *found 1 with *html a new string
 * (NUL-terminated, *len bytes; the caller frees it) or *found 0 and
 * *html NULL when the queue has none.  Returns APP_OK, APP_ENOMEM,
 * APP_DB or APP_DB_DOWN.
 */
enum app_err db_template_get(struct db *, int64_t queue_id, char **html,
	    size_t *len, int *found);

/*
 * Store html[0..len) (at most ROOM_TMPL_MAX bytes, checked before) as
 * the template of queue queue_id, in place of any before, stamped with
 * the database's now.  Returns APP_OK, APP_NOTFOUND (no such queue),
 * APP_DB or APP_DB_DOWN.
 */
enum app_err db_template_put(struct db *, int64_t queue_id,
	    const char *html, size_t len);

/*
 * Delete the template of queue queue_id: *deleted 1, or 0 when it had
 * none.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
enum app_err db_template_delete(struct db *, int64_t queue_id,
	    int *deleted);

#endif /* DB_TEMPLATE_H */
