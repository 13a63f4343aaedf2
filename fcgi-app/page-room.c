/*
 * page-room.c - GET /queue/<slug>: the hosted waiting room, rendered from
 * templates/waiting-room.html with every value escaped for its context.
 * The language follows the browser (Accept-Language, CASES C14) unless
 * the visitor chose one with ?lang=.  The page's script
 * (static/waiting-room.js) takes a number, keeps it in sessionStorage,
 * polls status and fetches the token when admitted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "lang.h"
#include "page-room.h"

enum key {
	KEY_LANG,
	KEY_NAME,
	KEY_SLUG,
	KEY_STATIC,
	KEY_RETURN,
	KEY_SERVING,
	KEY_ACTIVE,
	KEY_OTHER_HREF,
	KEY_OTHER_LANG,
	KEY_RETRY,
	KEY_BASE,
	KEY__MSG,	/* KEY__MSG + m is message m */
	KEY__MAX = KEY__MSG + MSG__MAX
};

static const char *const keys[KEY__MAX] = {
	"lang",		/* KEY_LANG */
	"name",		/* KEY_NAME */
	"slug",		/* KEY_SLUG */
	"static",	/* KEY_STATIC */
	"return",	/* KEY_RETURN */
	"serving",	/* KEY_SERVING */
	"active",	/* KEY_ACTIVE */
	"other_href",	/* KEY_OTHER_HREF */
	"other_lang",	/* KEY_OTHER_LANG */
	"retry",	/* KEY_RETRY */
	"base",		/* KEY_BASE: the install's URL prefix, or "" */
	"m_room",	/* MSG_ROOM */
	"m_taking",	/* MSG_TAKING */
	"m_your_number",	/* MSG_YOUR_NUMBER */
	"m_serving",	/* MSG_SERVING */
	"m_ahead",	/* MSG_AHEAD */
	"m_wait",	/* MSG_WAIT */
	"m_progress",	/* MSG_PROGRESS */
	"m_note",	/* MSG_NOTE */
	"m_noscript",	/* MSG_NOSCRIPT */
	"m_queued",	/* MSG_QUEUED */
	"m_paused",	/* MSG_PAUSED */
	"m_paused_join",	/* MSG_PAUSED_JOIN */
	"m_turn",	/* MSG_TURN */
	"m_admitted",	/* MSG_ADMITTED */
	"m_busy",	/* MSG_BUSY */
	"m_trouble",	/* MSG_TROUBLE */
	"m_other_lang",	/* MSG_OTHER_LANG */
	"m_note_kept",	/* MSG_NOTE_KEPT */
	"m_note_none",	/* MSG_NOTE_NONE */
	"m_unavail_title",	/* MSG_UNAVAIL_TITLE */
	"m_unavail",	/* MSG_UNAVAIL */
};

struct room {
	struct req	*r;
	const char	*ret;	/* validated return URL or NULL */
	enum lang	 lang;
	enum lang	 other;	/* offered by the switch link */
	const char	*slug;	/* of the route (r->qe may be NULL) */
	int		 retry;	/* seconds, on the unavailable page */
};

/* The switch link: this page in the other language, return kept. */
static void
other_href(struct buf *out, const struct room *rm)
{
	struct buf	 u = { NULL, 0, 0 };

	buf_printf(&u, "%s/queue/%s?lang=%s", rm->r->base, rm->slug,
	    lang_code(rm->other));
	if (rm->ret != NULL) {
		buf_puts(&u, "&return=");
		html_url_arg(&u, rm->ret);
	}
	html_attr(out, u.p);
	buf_free(&u);
}

/* Fill hole k through the escaping writers. */
static void
fill(struct buf *out, size_t k, void *arg)
{
	struct room		*rm = arg;
	const struct queue	*q = rm->r->qe != NULL ? rm->r->qe->q : NULL;
	char			 num[32];

	if (k >= KEY__MSG) {
		html_attr(out, lang_msg(rm->lang, (enum msg)(k - KEY__MSG)));
		return;
	}
	/* Without the queue (unavailable page) its holes stay empty. */
	if (q == NULL && (k == KEY_NAME || k == KEY_SERVING ||
	    k == KEY_ACTIVE))
		return;
	switch ((enum key)k) {
	case KEY_LANG:
		html_attr(out, lang_code(rm->lang));
		break;
	case KEY_NAME:
		html_text(out, q->name);
		break;
	case KEY_SLUG:
		html_attr(out, rm->slug);
		break;
	case KEY_STATIC:
		/* A relative static-url is under the install's prefix. */
		if (rm->r->cfg->static_url[0] != '/' &&
		    strstr(rm->r->cfg->static_url, "://") == NULL) {
			html_attr(out, rm->r->base);
			html_attr(out, "/");
		}
		html_attr(out, rm->r->cfg->static_url);
		break;
	case KEY_BASE:
		html_attr(out, rm->r->base);
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
	case KEY_OTHER_HREF:
		other_href(out, rm);
		break;
	case KEY_OTHER_LANG:
		html_attr(out, lang_code(rm->other));
		break;
	case KEY_RETRY:
		snprintf(num, sizeof(num), "%d", rm->retry);
		html_attr(out, num);
		break;
	default:
		break;
	}
}

/* The page's language: the visitor's ?lang= choice, else the browser's. */
static void
pick_lang(struct req *r, struct room *rm)
{
	struct field_val	*fl = &r->fields[FIELD_LANG];

	if (fl->state != FIELD_OK || lang_parse(fl->val, &rm->lang) == -1)
		rm->lang = lang_pick(FCGX_GetParam("HTTP_ACCEPT_LANGUAGE",
		    r->fcgx->envp));
	rm->other = rm->lang == LANG_DE ? LANG_EN : LANG_DE;
}

void
page_room(struct req *r)
{
	struct field_val	*f = &r->fields[FIELD_RETURN];
	struct room		 rm = { r, NULL, LANG_EN, LANG_DE, NULL, 0 };
	struct buf		 out = { NULL, 0, 0 };
	char			*ret = NULL;

	/* An invalid return URL is dropped: never echoed, never used. */
	if (f->state == FIELD_OK)
		ret = url_return_check(f->val, &r->qe->domains);
	rm.ret = ret;
	rm.slug = r->qe->q->slug;
	pick_lang(r, &rm);
	tmpl_render(&out, routes_tmpl("waiting-room.html"), keys, KEY__MAX,
	    fill, &rm);
	http_header(r, "Content-Language", "%s", lang_code(rm.lang));
	http_header(r, "Vary", "Accept-Language");
	http_send(r, 200, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
	free(ret);
}

void
page_unavailable(struct req *r, const char *slug)
{
	struct room	 rm = { r, NULL, LANG_EN, LANG_DE, slug, 0 };
	struct buf	 out = { NULL, 0, 0 };

	pick_lang(r, &rm);
	rm.retry = http_retry_jitter(HTTP_DOWN_RETRY_MIN_S,
	    HTTP_DOWN_RETRY_MAX_S);
	tmpl_render(&out, routes_tmpl("unavailable.html"), keys, KEY__MAX,
	    fill, &rm);
	http_header(r, "Retry-After", "%d", rm.retry);
	http_header(r, "Content-Language", "%s", lang_code(rm.lang));
	http_header(r, "Vary", "Accept-Language");
	http_send(r, 503, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
}
