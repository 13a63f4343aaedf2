/*
 * tmpl-ops.h - a queue's custom waiting-room template as the console,
 * the admin API and the CLI change it: read, store (checked by
 * room_tmpl_walk() first: nothing is stored when it is refused) and
 * reset to the default, each change in one transaction with its audit
 * row ("template_put", "template_reset": who, when, the size in bytes
 * and the SHA-256 of the HTML, never the HTML itself).  A console user,
 * the CLI and an API key of that queue may do all three.
 */
#ifndef TMPL_OPS_H
#define TMPL_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "principal.h"
#include "room-tmpl.h"

struct db;

/*
 * A refusal: the HTTP status an API answers with (403, 404, 413, 422,
 * 500, 503), the error code ("forbidden", "queue_not_found",
 * "template_too_large", "invalid_template", "internal_error",
 * "service_unavailable"), for a refused template its reason
 * (room_tmpl_code_name()) and line (1-based; 0 when none), and a
 * sentence.
 */
struct tops_err {
	int			 status;
	const char		*code;
	const char		*reason;	/* NULL unless the template */
	int			 line;
	char			 message[256];
};

/*
 * The template of queue slug: *html a new string of *len bytes (the
 * caller frees it), or NULL when the queue shows the default page.
 * Returns APP_OK, else the error with *err filled (APP_INVALID for a key
 * of another queue, APP_NOTFOUND, APP_DB_DOWN, APP_DB, APP_ENOMEM).
 */
enum app_err	 tops_get(struct db *, const char *slug, char **html,
		    size_t *len, struct tops_err *err,
		    const struct principal *who);

/*
 * Check html[0..len) and store it as the template of queue slug.
 * Returns APP_OK, APP_INVALID (refused: empty, too large, not UTF-8,
 * a rule of room-tmpl.h broken, with the line; or forbidden),
 * APP_NOTFOUND, APP_DB_DOWN, APP_DB or APP_ENOMEM, with *err filled.
 */
enum app_err	 tops_put(struct db *, const char *slug, const char *html,
		    size_t len, struct tops_err *err,
		    const struct principal *who);

/*
 * Delete the template of queue slug: its room page is the default one
 * again.  No template: APP_OK, nothing written.  Errors as tops_get().
 */
enum app_err	 tops_reset(struct db *, const char *slug,
		    struct tops_err *err, const struct principal *who);

#endif /* TMPL_OPS_H */
