/*
 * page-gateway.c - GET /queue/<slug>/enter: the link published instead
 * of the shop's.  With capacity now, 302 straight to the shop with a
 * token; otherwise 302 to the waiting room, handing over the number and
 * its ticket in the URL fragment (never sent to a server, never logged)
 * so that the visitor keeps that place.  The return URL is checked
 * against the queue's shop domains; an invalid one is dropped.
 *
 * A VIP code (?code=) that admits sends the visitor straight to the
 * target with a bypass token; any other is ignored, the answer exactly
 * the one without it.
 * With the queue's proof of work on, it never takes a number: the
 * waiting room solves the challenge first (everyone passes through it).
 * Only the visitor's own navigation takes a number (url_take_number()):
 * HEAD, prefetch, prerender and fetches that are no top-level navigation
 * get the room without one; another site's request (a foreign Origin, or
 * Sec-Fetch-Site cross-site on anything but a navigation) is refused
 * with 403 origin_not_allowed.  Every Location stays within LOCATION_MAX
 * bytes, so the whole response head fits the smallest header buffer of
 * a web server in front (nginx: one 4 KB page by default, RFC 9110
 * section 15.4 puts no limit on it): a return URL that would make it
 * longer is dropped, as an invalid one is, and the visitor lands on the
 * target URL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "extern.h"
#include "page-bypass.h"
#include "page-gateway.h"
#include "token.h"
#include "visitor.h"

/* Longest fragment "#number=N&ticket=T" of a room Location. */
#define ROOM_FRAG_MAX	(sizeof("#number=&ticket=") - 1 + 19 + TICKET_LEN)

/*
 * Write the waiting room's path for e into room: "<base>/queue/<slug>"
 * (base: the install's URL prefix, see req_route_path()), with
 * "?return=<ret>" when ret is set and the Location, with the longest
 * fragment, still fits LOCATION_MAX.  Returns 1 when the return URL was
 * kept, else 0.
 */
static int
room_path(struct buf *room, const char *prefix, const struct qentry *e,
    const char *ret)
{
	size_t	 base;

	buf_printf(room, "%s/queue/%s", prefix, e->q->slug);
	if (ret == NULL)
		return 0;
	base = room->len;
	buf_puts(room, "?return=");
	html_query_value(room, ret);
	if (room->len + ROOM_FRAG_MAX <= LOCATION_MAX)
		return 1;
	room->len = base;
	room->p[base] = '\0';
	return 0;
}

void
page_gateway(struct req *r)
{
	struct qentry		*e = r->qe;
	struct field_val	*f = &r->fields[FIELD_RETURN];
	struct field_val	*c = &r->fields[FIELD_CODE];
	struct buf		 room = { NULL, 0, 0 };
	enum url_take		 take;
	char			*ret = NULL, *token = NULL, *loc = NULL;
	const char		*target;
	char			 ticket[TICKET_LEN + 1];
	int64_t			 number, retry;
	int			 admitted;

	if (f->state == FIELD_OK)
		ret = url_return_check(f->val, &e->domains);
	target = ret != NULL ? ret : e->q->target_url;
	if (target == NULL) {
		http_app_err(r, ERR_NO_TARGET);
		goto out;
	}
	room_path(&room, r->base, e, ret);
	/*
	 * Another site's request is refused; HEAD (link checkers,
	 * monitors), prefetch and prerender, fetches from scripts, and a
	 * paused queue take no number.
	 */
	if ((take = req_take_number(r, URL_TAKE_NAVIGATION)) ==
	    URL_TAKE_FOREIGN) {
		http_take_refused(r, take);
		goto out;
	}
	/*
	 * A VIP code, on the visitor's own navigation of an admitting
	 * queue, straight to the target with a bypass token; any code that
	 * admits nobody (or a throttled address) takes the normal path
	 * below, answered exactly as without a code.
	 */
	if (c->state == FIELD_OK && take == URL_TAKE_OK &&
	    adm_active_at(&e->q->adm, r->now_ms) &&
	    page_bypass_redeem(r, c->val, c->len, &token, &retry) ==
	    BYPASS_VISIT_OK) {
		/* Too long with the return URL: the target instead. */
		if ((loc = url_append_param(target, TOKEN_PARAM, token)) !=
		    NULL && strlen(loc) > LOCATION_MAX && ret != NULL &&
		    e->q->target_url != NULL) {
			free(loc);
			loc = url_append_param(e->q->target_url, TOKEN_PARAM,
			    token);
		}
		if (loc == NULL) {
			http_app_err(r, ERR_INTERNAL);
			goto out;
		}
		http_redirect(r, loc);
		goto out;
	}
	free(token);
	token = NULL;
	/*
	 * With proof of work on, nobody passes without the waiting room:
	 * the room solves the challenge and takes the number there.
	 */
	if (!adm_active_at(&e->q->adm, r->now_ms) || take != URL_TAKE_OK ||
	    e->q->pow_enabled) {
		http_redirect(r, room.p);
		goto out;
	}
	if (visitor_join(r, &number, &admitted) != ERR_OK) {
		/* Paused or no database: the room explains and retries. */
		http_redirect(r, room.p);
		goto out;
	}
	if (admitted) {
		if ((token = visitor_token(r, number)) == NULL ||
		    (loc = url_append_param(target, TOKEN_PARAM,
		    token)) == NULL) {
			http_app_err(r, ERR_INTERNAL);
			goto out;
		}
		/* Too long with the return URL: the target instead. */
		if (strlen(loc) > LOCATION_MAX && ret != NULL &&
		    e->q->target_url != NULL) {
			free(loc);
			if ((loc = url_append_param(e->q->target_url,
			    TOKEN_PARAM, token)) == NULL) {
				http_app_err(r, ERR_INTERNAL);
				goto out;
			}
		}
		http_redirect(r, loc);
		goto out;
	}
	if (token_ticket_make(e->ticket_key, TICKET_KEY_LEN, e->q->slug, number,
	    ticket) == -1) {
		http_app_err(r, ERR_INTERNAL);
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
