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
#include <strings.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "isotime.h"
#include "lang.h"
#include "log.h"
#include "cookie.h"
#include "db-template.h"
#include "page-pow.h"
#include "page-room.h"
#include "token.h"
#include "visitor.h"

/*
 * JSON mode: the visitor's number cookie is this prefix + the queue's
 * cookie suffix (json-cookie), else + the slug.
 */
#define ROOM_COOKIE_PREFIX	"aditus_wr_"
#define COOKIE_NAME_MAX		(sizeof(ROOM_COOKIE_PREFIX) + SLUG_MAX + 1)

enum key {
	KEY_LANG,
	KEY_NAME,
	KEY_SLUG,
	KEY_STATIC,
	KEY_RETURN,
	KEY_SERVING,
	KEY_ACTIVE,
	KEY_RETRY,
	KEY_DIR,
	KEY_BASE,
	KEY_ACCENT,
	KEY_BANNER,
	KEY_MESSAGE,
	KEY_BACK,
	KEY_LANG_LINKS,
	KEY_UNKNOWN_TEXT,
	KEY_POW,
	KEY_POW_NOSCRIPT,
	KEY_CUSTOM,
	KEY_CAP,
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
	"retry",	/* KEY_RETRY */
	"dir",		/* KEY_DIR */
	"base",		/* KEY_BASE */
	"accent",	/* KEY_ACCENT */
	"banner",	/* KEY_BANNER */
	"message",	/* KEY_MESSAGE */
	"back",		/* KEY_BACK */
	"lang_links",	/* KEY_LANG_LINKS */
	"unknown_text",	/* KEY_UNKNOWN_TEXT */
	"pow",		/* KEY_POW: the proof of work's bits, "" when off */
	"pow_noscript",	/* KEY_POW_NOSCRIPT */
	"custom",	/* KEY_CUSTOM: the queue's template, filled */
	"cap",		/* KEY_CAP: the total-active-users note */
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
	"m_entry",	/* MSG_ENTRY */
	"m_updated",	/* MSG_UPDATED */
	"m_languages",	/* MSG_LANGUAGES */
	"m_back",	/* MSG_BACK */
	"m_minutes",	/* MSG_MINUTES */
	"m_minute_less",	/* MSG_MINUTE_LESS */
	"m_unknown_title",	/* MSG_UNKNOWN_TITLE */
	"m_unknown",	/* MSG_UNKNOWN */
	"m_minute_one",	/* MSG_MINUTE_ONE */
	"m_unknown_named",	/* MSG_UNKNOWN_NAMED */
	"m_pow_working",	/* MSG_POW_WORKING */
	"m_pow_insecure",	/* MSG_POW_INSECURE */
	"m_pow_failed",	/* MSG_POW_FAILED */
	"m_noscript_pow",	/* MSG_NOSCRIPT_POW */
	"m_opens",	/* MSG_OPENS */
	"m_hold",	/* MSG_HOLD */
	"m_full",	/* MSG_FULL */
	"m_cap",	/* MSG_CAP */
	"m_second_one",	/* MSG_SECOND_ONE */
};

struct room {
	struct req	*r;
	const char	*ret;	/* validated return URL or NULL */
	enum lang	 lang;
	const char	*slug;	/* of the route (r->qe may be NULL) */
	int		 retry;	/* seconds, on the unavailable page */
	struct buf	 custom;	/* the queue's template, filled */
};

/* This page in language l, return kept. */
static void
lang_href(struct buf *out, const struct room *rm, enum lang l)
{
	struct buf	 u = { NULL, 0, 0 };

	buf_printf(&u, "%s/queue/%s?lang=%s", rm->r->base, rm->slug,
	    lang_code(l));
	if (rm->ret != NULL) {
		buf_puts(&u, "&return=");
		html_url_arg(&u, rm->ret);
	}
	html_attr(out, u.p);
	buf_free(&u);
}

/* One link per other language, each in its own language. */
static void
lang_links(struct buf *out, const struct room *rm)
{
	size_t	 l;

	for (l = 0; l < LANG__MAX; l++) {
		if ((enum lang)l == rm->lang)
			continue;
		html_raw(out, "<li><a href=\"");
		lang_href(out, rm, (enum lang)l);
		html_raw(out, "\" hreflang=\"");
		html_attr(out, lang_code((enum lang)l));
		html_raw(out, "\" lang=\"");
		html_attr(out, lang_code((enum lang)l));
		html_raw(out, "\" dir=\"");
		html_attr(out, lang_dir((enum lang)l));
		html_raw(out, "\">");
		html_text(out, lang_msg((enum lang)l, MSG_OTHER_LANG));
		html_raw(out, "</a></li>");
	}
}

/*
 * The unknown-queue page's sentence: with the slug asked for (escaped)
 * when it is a well-formed one, else without.
 */
static void
unknown_text(struct buf *out, const struct room *rm)
{
	const char	*t = lang_msg(rm->lang, MSG_UNKNOWN_NAMED), *h;
	struct buf	 pre = { NULL, 0, 0 };

	if (rm->slug == NULL || !db_queue_slug_valid(rm->slug) ||
	    (h = strstr(t, "{slug}")) == NULL) {
		html_text(out, lang_msg(rm->lang, MSG_UNKNOWN));
		return;
	}
	buf_add(&pre, t, (size_t)(h - t));
	buf_add(&pre, "", 1);
	html_text(out, pre.p);
	html_text(out, rm->slug);
	html_text(out, h + 6);
	buf_free(&pre);
}

/*
 * Text t with "{n}" replaced by n and "{duration}" by duration (NULL:
 * left), any other brace kept, appended to text (raw; the caller
 * escapes).
 */
static void
fill_text(struct buf *text, const char *t, int64_t n, const char *duration)
{
	const char	*h;
	char		 num[32];

	while ((h = strchr(t, '{')) != NULL) {
		buf_add(text, t, (size_t)(h - t));
		if (strncmp(h, "{n}", 3) == 0) {
			snprintf(num, sizeof(num), "%lld", (long long)n);
			buf_add(text, num, strlen(num));
			t = h + 3;
		} else if (duration != NULL &&
		    strncmp(h, "{duration}", 10) == 0) {
			buf_add(text, duration, strlen(duration));
			t = h + 10;
		} else {
			buf_add(text, "{", 1);
			t = h + 1;
		}
	}
	buf_add(text, t, strlen(t));
}

/*
 * The note of a queue with a total-active-users cap: how many visitors
 * the shop lets in within any session duration S, said as whole minutes
 * (rounded down: the cap holds within any shorter window too) or, below
 * a minute, seconds; escaped.
 */
static void
cap_note(struct buf *out, const struct room *rm, const struct queue *q)
{
	struct buf	 duration = { NULL, 0, 0 }, text = { NULL, 0, 0 };
	int64_t		 s = q->token_ttl_s;

	if (s >= 60)
		fill_text(&duration, lang_msg(rm->lang, MSG_MINUTE_ONE), s / 60,
		    NULL);
	else
		fill_text(&duration, lang_msg(rm->lang, MSG_SECOND_ONE), s,
		    NULL);
	buf_add(&duration, "", 1);
	fill_text(&text, lang_msg(rm->lang, MSG_CAP), q->total_active_users,
	    duration.p);
	buf_add(&text, "", 1);
	html_raw(out, "<p class=\"note\" id=\"cap\">");
	html_text(out, text.p);
	html_raw(out, "</p>\n");
	buf_free(&duration);
	buf_free(&text);
}

/* The branding holes of queue q: banner image, message, way back. */
static void
fill_look(struct buf *out, size_t k, const struct room *rm,
    const struct queue *q)
{
	const char	*back;

	switch (k) {
	case KEY_ACCENT:
		html_attr(out, q->accent);
		break;
	case KEY_BANNER:
		if (q->header_image_url[0] == '\0')
			break;
		html_raw(out, "<img class=\"banner\" src=\"");
		html_attr(out, q->header_image_url);
		html_raw(out, "\" alt=\"\" width=\"460\" height=\"190\">\n");
		break;
	case KEY_MESSAGE:
		if (q->message[0] == '\0')
			break;
		/* Line breaks kept by the style (white-space: pre-line). */
		html_raw(out, "<p class=\"message\" id=\"message\" "
		    "dir=\"auto\">");
		html_text(out, q->message);
		html_raw(out, "</p>\n");
		break;
	case KEY_CAP:
		if (q->total_active_users > 0)
			cap_note(out, rm, q);
		break;
	case KEY_BACK:
		back = rm->ret != NULL ? rm->ret : q->target_url;
		if (back == NULL)
			break;
		html_raw(out, "<p class=\"back\"><a id=\"back\" href=\"");
		html_attr(out, back);
		html_raw(out, "\">");
		html_text(out, lang_msg(rm->lang, MSG_BACK));
		html_raw(out, "</a></p>\n");
		break;
	default:
		break;
	}
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
	    k == KEY_ACTIVE || k == KEY_ACCENT || k == KEY_BANNER ||
	    k == KEY_MESSAGE || k == KEY_BACK || k == KEY_CAP || k == KEY_POW ||
	    k == KEY_POW_NOSCRIPT))
		return;
	switch ((enum key)k) {
	case KEY_ACCENT:
	case KEY_BANNER:
	case KEY_MESSAGE:
	case KEY_BACK:
	case KEY_CAP:
		fill_look(out, k, rm, q);
		break;
	case KEY_DIR:
		html_attr(out, lang_dir(rm->lang));
		break;
	case KEY_LANG_LINKS:
		lang_links(out, rm);
		break;
	case KEY_UNKNOWN_TEXT:
		unknown_text(out, rm);
		break;
	case KEY_LANG:
		html_attr(out, lang_code(rm->lang));
		break;
	case KEY_NAME:
		html_text(out, q->display_name[0] != '\0' ? q->display_name :
		    q->name);
		break;
	case KEY_SLUG:
		html_attr(out, rm->slug);
		break;
	case KEY_STATIC:
		req_static_url(out, rm->r);
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
		html_attr(out, adm_active_at(&q->adm, rm->r->now_ms) ?
		    "true" : "false");
		break;
	case KEY_RETRY:
		snprintf(num, sizeof(num), "%d", rm->retry);
		html_attr(out, num);
		break;
	case KEY_POW:
		/* The page solves before it joins (static/pow.js). */
		if (!q->pow_enabled)
			break;
		snprintf(num, sizeof(num), "%d", (int)q->pow_bits);
		html_attr(out, num);
		break;
	case KEY_CUSTOM:
		if (rm->custom.len > 0)
			buf_add(out, rm->custom.p, rm->custom.len);
		break;
	case KEY_POW_NOSCRIPT:
		if (!q->pow_enabled)
			break;
		html_raw(out, "<p id=\"pow-noscript\">");
		html_text(out, lang_msg(rm->lang, MSG_NOSCRIPT_POW));
		html_raw(out, "</p>");
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
		rm->lang = lang_pick(req_param(r, "HTTP_ACCEPT_LANGUAGE"));
}

/*
 * Whether the Accept header asks for JSON rather than a page:
 * application/json named, and text/html not before it.  Returns 1 or 0.
 */
static int
wants_json(const char *accept)
{
	const char	*h, *j;

	if (accept == NULL ||
	    (j = strcasestr(accept, "application/json")) == NULL)
		return 0;
	h = strcasestr(accept, "text/html");
	return h == NULL || j < h;
}

int
page_room_is_json(const char *accept)
{
	return wants_json(accept);
}

/* What cookie_ok() checks a value against, and its number. */
struct cookie_arg {
	const struct qentry	*e;
	int64_t			 number;
};

/*
 * Whether the cookie value v[0..n) is "<number>.<ticket>" with the right
 * ticket of the queue (the ticket is a MAC over queue and number: the
 * cookie is signed).  Sets the number.  Returns 1 or 0.
 */
static int
cookie_ok(const char *v, size_t n, void *arg)
{
	struct cookie_arg	*ca = arg;
	char			 val[64], *dot;

	if (n == 0 || n >= sizeof(val))
		return 0;
	memcpy(val, v, n);
	val[n] = '\0';
	if ((dot = strchr(val, '.')) == NULL)
		return 0;
	*dot = '\0';
	return parse_int64(val, 1, INT64_MAX, &ca->number) == 0 &&
	    token_ticket_check(ca->e->ticket_key, TICKET_KEY_LEN,
	    ca->e->q->slug, ca->number, dot + 1);
}

/* The JSON mode's cookie name of queue q into out[COOKIE_NAME_MAX]. */
static void
cookie_name(const struct queue *q, char *out, size_t size)
{
	snprintf(out, size, ROOM_COOKIE_PREFIX "%s",
	    q->json_cookie[0] != '\0' ? q->json_cookie : q->slug);
}

/*
 * The number in the JSON mode's cookie of queue e when its ticket is
 * right: every value of that name is tried (cookie.h).  Returns the
 * number, or 0 when there is none.
 */
static int64_t
cookie_number(struct req *r, const struct qentry *e)
{
	struct cookie_arg	 ca = { e, 0 };
	char			 name[COOKIE_NAME_MAX];

	cookie_name(e->q, name, sizeof(name));
	if (!cookie_find(req_param(r, "HTTP_COOKIE"), name, cookie_ok, &ca))
		return 0;
	return ca.number;
}

/*
 * JSON mode (ESA-style, for clients that are not browsers): the
 * WaitingRoom object of the visitor whose number the signed cookie
 * carries, taking a number first when there is none and the request is
 * the client's own (req_take_number(): another site's request, a
 * prefetch or a no-cors fetch get 403 and no cookie; a HEAD 405).  A
 * queued answer has the queue's JSON status (200, 202 or 429, with
 * Retry-After); an admitted one is 200 and carries the token and target
 * URL.
 */
static void
room_json(struct req *r)
{
	struct qentry		*e = r->qe;
	struct json_object	*o, *wr;
	struct adm_status	 st;
	char			 ticket[TICKET_LEN + 1], when[32], *tok = NULL;
	char			 fmt[64], cname[COOKIE_NAME_MAX];
	int64_t			 number, min;
	int			 admitted = 0, status;
	const char		*https;
	enum http_err		 er;
	enum url_take		 take;

	http_header(r, "Vary", "Accept, Cookie");
	/* Without a number, only the visitor's own request takes one. */
	if ((number = cookie_number(r, e)) == 0 &&
	    (take = req_take_number(r, URL_TAKE_FETCH)) != URL_TAKE_OK) {
		if (take == URL_TAKE_NOT_DELIBERATE &&
		    r->method == METHOD_HEAD) {
			http_header(r, "Allow", "GET");
			http_app_errf(r, ERR_METHOD, "JSON mode takes a "
			    "number with GET.");
		} else
			http_take_refused(r, take);
		return;
	}
	/*
	 * With proof of work on, a number needs a solution, which only
	 * POST /join carries: 428 with a challenge, nothing issued.
	 */
	if (number == 0 && e->q->pow_enabled) {
		page_pow_refuse(r, POW_REQUIRED);
		return;
	}
	if (number == 0) {
		if ((er = visitor_join(r, &number, &admitted)) != ERR_OK) {
			http_app_err(r, er);
			return;
		}
		if (token_ticket_make(e->ticket_key, TICKET_KEY_LEN,
		    e->q->slug, number, ticket) == -1) {
			http_app_err(r, ERR_INTERNAL);
			return;
		}
		https = req_param(r, "HTTPS");
		cookie_name(e->q, cname, sizeof(cname));
		http_header(r, "Set-Cookie", "%s=%lld.%s; Path=%s/queue/%s; "
		    "HttpOnly; SameSite=Lax%s", cname, (long long)number,
		    ticket, r->base, e->q->slug, https != NULL &&
		    strcasecmp(https, "on") == 0 ? "; Secure" : "");
	} else {
		/* The claim rule of every path that mints a token. */
		er = visitor_claim(r, number);
		if (er == ERR_TICKET_EXPIRED) {
			/* The place is gone: the next request takes one. */
			cookie_name(e->q, cname, sizeof(cname));
			http_header(r, "Set-Cookie", "%s=; Path=%s/queue/%s; "
			    "Max-Age=0; HttpOnly; SameSite=Lax", cname,
			    r->base, e->q->slug);
		}
		if (er != ERR_OK && er != ERR_NOT_ADMITTED) {
			http_app_err(r, er);
			return;
		}
		admitted = er == ERR_OK;
	}
	/* By the drawn place of a scheduled opening, as /status. */
	(void)visitor_status_as(e, number, r->now_ms, admitted, &st);
	if (admitted && (tok = visitor_token(r, number)) == NULL) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	min = st.wait_s < 0 ? 0 : (st.wait_s + 59) / 60;
	if (admitted)
		snprintf(fmt, sizeof(fmt), "0 minutes");
	else if (st.wait_s < 0)
		snprintf(fmt, sizeof(fmt), "unknown");
	else
		snprintf(fmt, sizeof(fmt), "%lld minute%s", (long long)min,
		    min == 1 ? "" : "s");
	iso_time_format(r->now_ms, when, sizeof(when));
	wr = json_object_new_object();
	json_object_object_add(wr, "inWaitingRoom",
	    json_object_new_boolean(!admitted));
	json_object_object_add(wr, "waitTime", json_object_new_int64(min));
	json_object_object_add(wr, "waitTimeKnown",
	    json_object_new_boolean(admitted || st.wait_s >= 0));
	json_object_object_add(wr, "waitTimeFormatted",
	    json_object_new_string(fmt));
	json_object_object_add(wr, "queueIsFull",
	    json_object_new_boolean(0));
	/* Everyone new waits: paused or on hold. */
	json_object_object_add(wr, "queueAll",
	    json_object_new_boolean(adm_seg_at(&e->q->adm, r->now_ms) ==
	    ADM_SEG_PAUSED || adm_seg_at(&e->q->adm, r->now_ms) ==
	    ADM_SEG_HOLD));
	if (adm_seg_at(&e->q->adm, r->now_ms) == ADM_SEG_HOLD)
		json_object_object_add(wr, "onHold",
		    json_object_new_boolean(1));
	json_object_object_add(wr, "lastUpdated",
	    json_object_new_string(when));
	json_object_object_add(wr, "refreshIntervalSeconds",
	    json_object_new_int(st.retry_after_s));
	json_object_object_add(wr, "number", json_object_new_int64(number));
	json_object_object_add(wr, "serving",
	    json_object_new_int64(st.serving));
	json_object_object_add(wr, "ahead", json_object_new_int64(st.ahead));
	if (admitted) {
		json_object_object_add(wr, "token",
		    json_object_new_string(tok));
		json_object_object_add(wr, "targetUrl", e->q->target_url !=
		    NULL ? json_object_new_string(e->q->target_url) : NULL);
	}
	o = json_object_new_object();
	json_object_object_add(o, "WaitingRoom", wr);
	status = admitted ? 200 : (int)e->q->json_queued_status;
	if (!admitted)
		http_header(r, "Retry-After", "%d", st.retry_after_s);
	http_json(r, status, o);
	json_object_put(o);
	free(tok);
}

/*
 * The page's own Content-Security-Policy, on top of the general one:
 * nothing but this origin, and the header image's origin for images.
 */
static void
room_csp(struct req *r, const struct queue *q)
{
	const char	*u = q->header_image_url, *h;
	size_t		 n = 0;

	if (strncmp(u, "https://", 8) == 0) {
		h = u + 8;
		n = 8 + strcspn(h, "/?#");
		if (strcspn(u, " ;,'\"") < n)
			n = 0;
	}
	http_header(r, "Content-Security-Policy", "default-src 'none'; "
	    "script-src 'self'; style-src 'self'; img-src 'self'%s%.*s; "
	    "connect-src 'self'; base-uri 'none'; form-action 'none'; "
	    "frame-ancestors 'none'", n > 0 ? " " : "", (int)n, u);
}

/*
 * The queue's custom template into the cache entry, once per read of
 * the row (qcache_get() clears it with the row): no statement on a
 * status poll, and a change shows as soon as the row's does.  When it
 * can't be read the page is the default one this time.  Can't fail.
 */
static void
room_template(struct req *r)
{
	struct qentry	*e = r->qe;
	char		*html = NULL;
	size_t		 len = 0;
	int		 found = 0;

	if (e->tmpl_read || r->stale)
		return;
	if (db_template_get(r->db, e->q->id, &html, &len, &found) != APP_OK)
		return;
	free(e->tmpl);
	e->tmpl = html;
	e->tmpl_len = len;
	e->tmpl_read = 1;
}

/*
 * Fill the custom template of the route's queue, if it has one, into
 * rm->custom: the name and the serving number known now, the visitor's
 * figures live (the page's script sets them).  Returns 1 when the page
 * is the custom one, 0 for the default page.
 */
static int
room_custom(struct room *rm)
{
	struct qentry		*e = rm->r->qe;
	const struct queue	*q = e->q;
	struct custom_vals	 cv;
	struct room_tmpl_err	 err;
	char			 serving[32];

	room_template(rm->r);
	if (e->tmpl == NULL)
		return 0;
	memset(&cv, 0, sizeof(cv));
	cv.live = 1;
	cv.v[ROOM_VAR_NAME] = q->display_name[0] != '\0' ?
	    q->display_name : q->name;
	snprintf(serving, sizeof(serving), "%lld",
	    (long long)adm_serving(&q->adm, rm->r->now_ms));
	cv.v[ROOM_VAR_SERVING] = serving;
	if (custom_room_render(&rm->custom, e->tmpl, e->tmpl_len, &cv,
	    &err) == -1) {
		/* Stored before a rule was added: the default page. */
		log_warnx("queue %s: custom template refused: %s", q->slug,
		    err.message);
		return 0;
	}
	return 1;
}

void
page_room(struct req *r)
{
	struct field_val	*f = &r->fields[FIELD_RETURN];
	struct room		 rm = { r, NULL, LANG_EN, NULL, 0,
				    { NULL, 0, 0 } };
	struct buf		 out = { NULL, 0, 0 };
	char			*ret = NULL;

	if (wants_json(r->accept)) {
		room_json(r);
		return;
	}
	/* An invalid return URL is dropped: never echoed, never used. */
	if (f->state == FIELD_OK)
		ret = url_return_check(f->val, &r->qe->domains);
	rm.ret = ret;
	rm.slug = r->qe->q->slug;
	pick_lang(r, &rm);
	tmpl_render(&out, tmpl_get(room_custom(&rm) ? TMPL_CUSTOM :
	    TMPL_ROOM), keys, KEY__MAX, fill, &rm);
	buf_free(&rm.custom);
	room_csp(r, r->qe->q);
	http_header(r, "Content-Language", "%s", lang_code(rm.lang));
	http_header(r, "Vary", "Accept-Language, Accept");
	http_send(r, 200, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
	free(ret);
}

void
page_room_unknown(struct req *r, const char *slug)
{
	struct room	 rm = { r, NULL, LANG_EN, slug, 0, { NULL, 0, 0 } };
	struct buf	 out = { NULL, 0, 0 };

	pick_lang(r, &rm);
	tmpl_render(&out, tmpl_get(TMPL_UNKNOWN), keys, KEY__MAX,
	    fill, &rm);
	http_header(r, "Content-Language", "%s", lang_code(rm.lang));
	http_header(r, "Vary", "Accept-Language");
	http_send(r, 404, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
}

void
page_unavailable(struct req *r, const char *slug)
{
	struct room	 rm = { r, NULL, LANG_EN, slug, 0, { NULL, 0, 0 } };
	struct buf	 out = { NULL, 0, 0 };

	pick_lang(r, &rm);
	rm.retry = http_retry_jitter(HTTP_DOWN_RETRY_MIN_S,
	    HTTP_DOWN_RETRY_MAX_S);
	tmpl_render(&out, tmpl_get(TMPL_UNAVAILABLE), keys, KEY__MAX,
	    fill, &rm);
	http_header(r, "Retry-After", "%d", rm.retry);
	http_header(r, "Content-Language", "%s", lang_code(rm.lang));
	http_header(r, "Vary", "Accept-Language");
	http_send(r, 503, "text/html; charset=utf-8", out.p, out.len);
	buf_free(&out);
}

void
page_embed(struct req *r)
{
	const struct tmpl	*t = tmpl_get(TMPL_EMBED);
	struct buf		 out = { NULL, 0, 0 };

	tmpl_render(&out, t, keys, 0, fill, NULL);
	http_header(r, "Cache-Control", "public, max-age=300");
	http_send(r, 200, "text/javascript; charset=utf-8", out.p, out.len);
	buf_free(&out);
}
