/*
 * custom-room.c - a queue's custom template filled for its room page and
 * for the console's previews: room_tmpl_walk() hands over the literal
 * text, copied as it is, and each variable once, written through the
 * escaping writer of its context (html_text, html_attr).  A value is
 * output, never template text again (CASES C51).
 */
#include "config.h"

#include <string.h>

#include "aqueue.h"
#include "extern.h"
#include "room-tmpl.h"

/*
 * The id the page's script (static/waiting-room.js) updates for each
 * live variable; NULL: fixed for the page's life.
 */
static const char *const live_ids[ROOM_VAR__MAX] = {
	"wait",		/* ROOM_VAR_WAIT_TIME */
	"position",	/* ROOM_VAR_POSITION */
	"number",	/* ROOM_VAR_NUMBER */
	"serving",	/* ROOM_VAR_SERVING */
	NULL,		/* ROOM_VAR_NAME */
	"entry",	/* ROOM_VAR_ETA */
};

struct fill {
	struct buf			*out;
	const struct custom_vals	*cv;
};

static void
fill_lit(void *arg, const char *p, size_t n)
{
	struct fill	*f = arg;

	buf_add(f->out, p, n);
}

static void
fill_var(void *arg, enum room_var v, enum room_ctx ctx)
{
	struct fill	*f = arg;
	const char	*val = f->cv->v[v] != NULL ? f->cv->v[v] : "\u2013";

	if (ctx == ROOM_CTX_ATTR) {
		html_attr(f->out, val);
		return;
	}
	if (f->cv->live && live_ids[v] != NULL) {
		html_raw(f->out, "<span data-aq-live=\"");
		html_raw(f->out, live_ids[v]);
		html_raw(f->out, "\">");
		html_text(f->out, val);
		html_raw(f->out, "</span>");
		return;
	}
	html_text(f->out, val);
}

int
custom_room_render(struct buf *out, const char *html, size_t len,
    const struct custom_vals *cv, struct room_tmpl_err *err)
{
	struct buf		 tmp = { NULL, 0, 0 };
	struct fill		 f = { &tmp, cv };
	struct room_tmpl_sink	 s = { fill_lit, fill_var, &f };

	if (room_tmpl_walk(html, len, &s, err) == -1) {
		buf_free(&tmp);
		return -1;
	}
	if (tmp.len > 0)
		buf_add(out, tmp.p, tmp.len);
	buf_free(&tmp);
	return 0;
}
