/*
 * page-gateway.c - GET /queue/<slug>/enter: the link published instead
 * of the shop's.  With capacity now, 302 straight to the shop with a
 * token; otherwise 302 to the waiting room, handing over the number and
 * its ticket in the URL fragment (never sent to a server, never logged)
 * so that the visitor keeps that place.  The return URL is checked
 * against the queue's shop domains; an invalid one is dropped.
 */
#include "config.h"

#include <stdlib.h>

#include "aqueue.h"
#include "extern.h"
#include "log.h"
#include "page-gateway.h"
#include "token.h"

void
page_gateway(struct req *r)
{
	struct qentry		*e = r->qe;
	struct field_val	*f = &r->fields[FIELD_RETURN];
	struct buf		 room = { NULL, 0, 0 };
	char			*ret = NULL, *token = NULL, *loc = NULL;
	const char		*target;
	char			 ticket[TICKET_LEN + 1];
	int64_t			 number;
	int			 admitted;
	enum app_err		 er;

	/* A VIP ?code= is not honoured yet: it is treated as no code. */
	if (f->state == FIELD_OK)
		ret = return_url_check(f->val, &e->domains);
	target = ret != NULL ? ret : e->q->target_url;
	if (target == NULL) {
		http_error(r, 404, "no_target_url", "This waiting room has "
		    "no target URL configured.");
		goto out;
	}
	buf_printf(&room, "/queue/%s", e->q->slug);
	if (ret != NULL) {
		buf_puts(&room, "?return=");
		html_url_arg(&room, ret);
	}
	/* HEAD (link checkers, monitors) and a paused queue take no number. */
	if (!e->q->adm.active || r->method == METHOD_HEAD) {
		http_redirect(r, room.p);
		goto out;
	}
	if ((er = queue_join(r, &number, &admitted)) != APP_OK) {
		/* Paused or no database: the room explains and retries. */
		http_redirect(r, room.p);
		goto out;
	}
	if (admitted) {
		if ((token = issue_token(r, number)) == NULL ||
		    (loc = url_append_param(target, TOKEN_PARAM,
		    token)) == NULL) {
			http_error(r, 500, "internal_error", "Internal error.");
			goto out;
		}
		http_redirect(r, loc);
		goto out;
	}
	if (ticket_make(e->ticket_key, TICKET_KEY_LEN, e->q->slug, number,
	    ticket) == -1) {
		http_error(r, 500, "internal_error", "Internal error.");
		goto out;
	}
	buf_printf(&room, "#number=%lld&ticket=%s", (long long)number, ticket);
	http_redirect(r, room.p);
out:
	buf_free(&room);
	free(ret);
	free(token);
	free(loc);
}
