/*
 * api-bypass.h - VIP bypass codes in the REST admin API, for a console
 * session only (an API key gets 403 from the router): GET and POST
 * /api/admin/queue/sites/<id>/bypass-codes, PATCH ({"enabled"}) and
 * DELETE /api/admin/queue/bypass-codes/<id>.  Validation, scope and the
 * audit log are bypass.h's, the same as the console's and the CLI's.
 */
#ifndef API_BYPASS_H
#define API_BYPASS_H

struct req;

/*
 * GET: {"codes": [...]} (never a code's text); POST {label, uses?,
 * expiresAt?}: 201 with the code's object, its text as "code" (shown
 * once) and its gateway link as "link"; 422 naming the field.
 */
void	 api_bypass_codes(struct req *);

/* PATCH {"enabled": true|false}: 200 with the code; DELETE: 204. */
void	 api_bypass_code(struct req *);

#endif /* API_BYPASS_H */
