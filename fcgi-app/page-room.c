/*
 * page-room.c - GET /queue/<slug>: the hosted waiting room, rendered from
 * templates/waiting-room.html with every value escaped for its context.
 * The page's script (static/waiting-room.js) takes a number, keeps it in
 * sessionStorage, polls status and fetches the token when admitted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "page-room.h"

enum key {
	KEY_LANG,
	KEY_NAME,
	KEY_SLUG,
	KEY_STATIC,
	KEY_RETURN,
	KEY_SERVING,
	KEY_ACTIVE,
	KEY__MAX
};

static const char *const keys[KEY__MAX] = {
	"lang",		/* KEY_LANG */
	"name",		/* KEY_NAME */
	"slug",		/* KEY_SLUG */
	"static",	/* KEY_STATIC */
	"return",	/* KEY_RETURN */
	"serving",	/* KEY_SERVING */
	"active",	/* KEY_ACTIVE */
};

struct room {
	struct req	*r;
	const char	*ret;	/* validated return URL or NULL */
};

/* Fill hole k through the escaping writers. */
static void
fill(struct buf *out, size_t k, void *arg)
{
	struct room		*rm = arg;
	const struct queue	*q = rm->r->qe->q;
	char			 num[32];

	switch ((enum key)k) {
	case KEY_LANG:
		html_attr(out, "en");
		break;
	case KEY_NAME:
		html_text(out, q->name);
		break;
	case KEY_SLUG:
		html_attr(out, q->slug);
		break;
	case KEY_STATIC:
		html_attr(out, rm->r->cfg->static_url);
		break;
	case KEY_RETURN:
		html_attr(out, rm->ret != NULL ? rm->ret : "");
		break;
	case KEY_SERVING:
		snprintf(num, sizeof(num), "%lld",
		    (long long)adm_serving(&q->adm, rm->r->now_ms));
		html_text(out, num);
		break;
	case KEY_ACTIVE:
		html_attr(out, q->adm.active ? "true" : "false");
		break;
	case KEY__MAX:
		break;
	}
}

void
page_room(struct req *r)
{
	struct field_val	*f = &r->fields[FIELD_RETURN];
	struct room		 rm = { r, NULL };
	struct buf		 out = { NULL, 0, 0 };
	char			*ret = NULL;

	/* An invalid return URL is dropped: never echoed, never used. */
	if (f->state == FIELD_OK)
		ret = return_url_check(f->val, &r->qe->domains);
	rm.ret = ret;
	tmpl_render(&out, routes_room_tmpl(), keys, KEY__MAX, fill, &rm);
	http_header(r, "Content-Language", "en");
	http_send(r, 200, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
	free(ret);
}
