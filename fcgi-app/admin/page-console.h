/*
 * page-console.h - the console's queue pages under /admin/ (see
 * page-console.c, page-dashboard.c, page-audit.c).  Each answers its
 * route after console_auth() found the session (r->session, r->who)
 * and, for a change, the CSRF token; r->arg is the route's ":slug" or
 * ":id".  None can fail visibly: an error is answered as a page (or
 * JSON for the live parts).
 */
#ifndef PAGE_CONSOLE_H
#define PAGE_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"

struct qops_err;
struct queue;
struct buf;
struct fld;
struct req;

/* A table that may scroll sideways: reachable by keyboard (WCAG 2.1.1). */
#define SCROLL(label)	"tabindex=\"0\" role=\"region\" aria-label=\"" \
			    label " (scrolls sideways)\""

/*
 * Shared by the console's page files (page-console.c, page-dashboard.c,
 * page-audit.c).  console_op_failed answers an operation's failure er
 * with err as a page (503 when the database is down).  console_route_queue
 * reads the queue of the route's slug (r->arg); returns it (the caller
 * frees it with qops_queue_free), or NULL after answering the failure.
 */
void		 console_op_failed(struct req *, enum app_err,
		    const struct qops_err *);
struct queue	*console_route_queue(struct req *);

/* Unix ms as "YYYY-MM-DD HH:MM:SS UTC" into buf (n >= 32); "-" for 0. */
void		 console_utc_text(int64_t ms, char *buf, size_t n);

/*
 * One figure of a page's <dl>: <div><dt>label</dt><dd id="id">text</dd>
 * (and <dd class="unit">unit</dd> unless unit is NULL)</div>, every
 * value escaped, into b.
 */
void		 console_figure(struct buf *b, const char *id,
		    const char *label, const char *text, const char *unit);

/*
 * The head markup of a page with a chart: uPlot's style sheet and
 * script and console.js, from the install's static URL, into head.
 */
void		 console_chart_head(struct buf *head, struct req *r);

/*
 * A form control's label: <label for="PREFIXopt">label (unit)</label>
 * for field f of a field table (fields.h), escaped, into b.
 */
void		 console_field_label(struct buf *b, const char *prefix,
		    const struct fld *f);


void	 console_home(struct req *);		/* GET /admin/ */
void	 console_queue_new(struct req *);	/* GET /admin/queues/new */
void	 console_queue_create(struct req *);	/* POST /admin/queues */
void	 console_queue(struct req *);		/* GET /admin/queue/:slug */
void	 console_queue_edit(struct req *);	/* GET/POST .../edit */
void	 console_queue_action(struct req *);	/* POST .../pause etc. */
void	 console_queue_live(struct req *);	/* GET .../live (JSON) */
void	 console_queue_keys(struct req *);	/* GET/POST .../keys */
void	 console_key_revoke(struct req *);	/* POST .../keys/:id/revoke */
void	 console_audit(struct req *);		/* GET /admin/audit */
void	 console_live_list(struct req *);	/* GET /admin/live (JSON) */

#endif /* PAGE_CONSOLE_H */
