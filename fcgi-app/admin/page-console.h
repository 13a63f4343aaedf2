/*
 * page-console.h - the console's queue pages under /admin/ (see
 * page-console.c).  Each answers its route after console_auth() found
 * the session (r->session, r->who) and, for a change, the CSRF token;
 * r->arg is the route's ":slug" or ":id".  None can fail visibly: an
 * error is answered as a page (or JSON for the live parts).
 */
#ifndef PAGE_CONSOLE_H
#define PAGE_CONSOLE_H

struct req;

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
