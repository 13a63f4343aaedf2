/*
 * console-template.h - the console's page of a queue's custom
 * waiting-room template: the form to upload or edit it (CSRF like the
 * other forms), a refusal shown with its line, the reset to the default
 * page, and sandboxed previews of every state.
 */
#ifndef CONSOLE_TEMPLATE_H
#define CONSOLE_TEMPLATE_H

struct req;

/*
 * GET /admin/queue/<slug>/template: the page.  POST with "html" (the
 * template; op=save) or op=reset: the change through tmpl-ops.h, then
 * the page again (200), or 413/422 with the refusal and the text kept,
 * nothing stored.
 */
void	 console_queue_template(struct req *);

#endif /* CONSOLE_TEMPLATE_H */
