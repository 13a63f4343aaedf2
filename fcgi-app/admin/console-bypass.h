/*
 * console-bypass.h - the console's page of a queue's VIP bypass codes
 * (bypass.h): the list, a new code (shown once, with its gateway link),
 * enabling, disabling and deleting.
 */
#ifndef CONSOLE_BYPASS_H
#define CONSOLE_BYPASS_H

struct req;

/*
 * GET /admin/queue/<slug>/bypass: the codes and the form for a new one;
 * POST: make one from the form's label, uses and expires (the new code
 * shown once on the page answered 201; 422 with the reason).
 */
void	 console_queue_bypass(struct req *);

/*
 * POST /admin/bypass/<id>/enable, .../disable, .../delete: the change,
 * then 303 back to the code's queue's page.
 */
void	 console_bypass_action(struct req *);

#endif /* CONSOLE_BYPASS_H */
