/*
 * api-template.h - a queue's custom waiting-room template in the REST
 * admin API: GET, PUT and DELETE /api/admin/queue/sites/<id>/template,
 * for a console session or an API key of that queue.  Checks, scope and
 * the audit log are tmpl-ops.h's, the same as the console's and the
 * CLI's.
 */
#ifndef API_TEMPLATE_H
#define API_TEMPLATE_H

struct req;

/*
 * GET: 200 with the HTML (text/html; charset=utf-8), or 404
 * template_not_found while the queue shows the default page.  PUT with
 * the HTML as the body (Content-Type: text/html, UTF-8; else 415): 200
 * {"custom": true, "bytes", "sha256"}; 413 template_too_large above
 * 51200 bytes; 422 invalid_template with "reason" and "line"; 400
 * invalid_unicode for bytes that are not UTF-8.  DELETE: 204, the
 * default page again.  403 for an API key of another queue.
 */
void	 api_template(struct req *);

#endif /* API_TEMPLATE_H */
