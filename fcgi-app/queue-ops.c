/*
 * queue-ops.c - the operator's operations on queues: validate, create,
 * update, change state on the locked row, rotate the secret, list,
 * delete.  Returns reasons, never prints.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "abandon.h"
#include "draw.h"
#include "queue-ops.h"
#include "urlcheck.h"

#define TOKEN_TTL_MAX	86400	/* seconds */
#define TOKEN_TTL_DEF	600	/* seconds */

enum field_type {
	FT_STR,		/* borrowed string, checked by its validator */
	FT_INT,		/* decimal integer within [min, max] */
	FT_BOOL,	/* 1/0, true/false, on/off, yes/no */
	FT_TIME		/* Unix ms or ISO 8601 (draw_parse_time()) */
};

struct field_def {
	const char	*opt;	/* command-line option, without "--" */
	const char	*key;	/* API key */
	enum field_type	 type;
	size_t		 off;	/* offset in struct qops_spec */
	int64_t		 min, max;
	const char	*rule;	/* what a valid value is */
};

#define STR(m)	FT_STR, offsetof(struct qops_spec, m), 0, 0
#define INT(m)	FT_INT, offsetof(struct qops_spec, m)
#define BOOL(m)	FT_BOOL, offsetof(struct qops_spec, m), 0, 1
#define TIME(m)	FT_TIME, offsetof(struct qops_spec, m), 0, 0

static const struct field_def fields[QOPS_F__MAX] = {
	/* QOPS_F_NAME */
	{ "name", "name", STR(name), "1-200 characters of UTF-8, not "
	    "blank, without control characters" },
	/* QOPS_F_TARGET */
	{ "target", "targetUrl", STR(target_url), "an http(s) URL with a "
	    "host and without user:password@ (at most 2048 bytes), or empty "
	    "for none" },
	/* QOPS_F_DOMAINS */
	{ "domains", "shopDomains", STR(shop_domains), "a list of at most "
	    "32 entries host[:port] (https) or http://host[:port], "
	    "separated by commas or spaces" },
	/* QOPS_F_RATE */
	{ "rate", "ratePerMinute", INT(rate), ADM_RATE_MIN, ADM_RATE_MAX,
	    "an integer from 1 to 1000000" },
	/* QOPS_F_BURST */
	{ "burst", "burst", INT(burst), 0, ADM_BURST_MAX,
	    "an integer from 0 (the default: rate / 6) to 1000000" },
	/* QOPS_F_TOKEN_TTL */
	{ "token-ttl", "tokenTtlSeconds", INT(token_ttl_s), 1, TOKEN_TTL_MAX,
	    "an integer from 1 to 86400" },
	/* QOPS_F_CLAIM_WINDOW */
	{ "claim-window", "claimWindowSeconds", INT(claim_window_s),
	    ADM_CLAIM_MIN_S, ADM_CLAIM_MAX_S, "an integer from 1 to 86400 "
	    "(seconds after admission in which a ticket obtains tokens)" },
	/* QOPS_F_HEADER_IMAGE */
	{ "header-image", "headerImageUrl", STR(header_image_url), "an "
	    "https URL of the waiting room's header image (wide; shown up "
	    "to 460 px wide, 190 px high), or empty for none" },
	/* QOPS_F_DISPLAY_NAME */
	{ "display-name", "displayName", STR(display_name), "the name "
	    "visitors see, 1-200 characters as name, or empty for the name" },
	/* QOPS_F_MESSAGE */
	{ "message", "message", STR(message), "plain text of at most 2000 "
	    "characters shown in the waiting room (line breaks kept), or "
	    "empty" },
	/* QOPS_F_ACCENT */
	{ "accent", "accentColor", STR(accent), "a colour #rrggbb for the "
	    "progress bar and live dot, or empty for the default" },
	/* QOPS_F_JSON_STATUS */
	{ "json-status", "jsonQueuedStatus", INT(json_queued_status), 200,
	    429, "200, 202 or 429: the HTTP status of a queued visitor's "
	    "answer in JSON mode" },
	/* QOPS_F_JSON_COOKIE */
	{ "json-cookie", "jsonCookieSuffix", STR(json_cookie), "1-32 "
	    "characters of A-Z a-z 0-9 _ -: the JSON mode's cookie is "
	    "aditus_wr_<this>; empty for aditus_wr_<slug>" },
	/* QOPS_F_OPENS_AT */
	{ "opens-at", "opensAt", TIME(opens_at_ms), "a time in the future, "
	    "as Unix milliseconds or ISO 8601 with a zone (e.g. "
	    "2026-12-01T09:00:00Z); only on a queue that has issued no "
	    "number yet or whose pre-queue is still collecting; none cancels "
	    "an opening whose pre-queue is still empty" },
	/* QOPS_F_ABANDON */
	{ "abandon", "abandonment", BOOL(abandon), "on or off (true or "
	    "false, 1 or 0)" },
	/* QOPS_F_ABANDON_GRACE */
	{ "abandon-grace", "abandonGraceSeconds", INT(abandon_grace_s),
	    ABANDON_GRACE_MIN_S, ABANDON_GRACE_MAX_S, "an integer from 60 "
	    "to 3600 (seconds of silence after which a waiting number "
	    "counts as abandoned)" },
};

static const struct {
	const char	*code;
	const char	*text;
	int		 status;
} reasons[QOPS_R__MAX] = {
	/* QOPS_R_OK */
	{ "ok", "done", 200 },
	/* QOPS_R_MISSING */
	{ "missing_value", "a required setting is missing", 422 },
	/* QOPS_R_INVALID */
	{ "invalid_value", "a setting has an invalid value", 422 },
	/* QOPS_R_SLUG */
	{ "invalid_slug", "the slug must be 1-63 of a-z 0-9 -, starting "
	    "with a letter or digit", 422 },
	/* QOPS_R_EXISTS */
	{ "queue_exists", "a queue with this slug exists", 409 },
	/* QOPS_R_NOT_FOUND */
	{ "queue_not_found", "no such queue", 404 },
	/* QOPS_R_UNAVAILABLE */
	{ "service_unavailable", "the database does not answer", 503 },
	/* QOPS_R_INTERNAL */
	{ "internal_error", "the operation failed (see the log)", 500 },
	/* QOPS_R_FORBIDDEN */
	{ "forbidden", "this credential may not do this", 403 },
	/* QOPS_R_KEY_NOT_FOUND */
	{ "key_not_found", "no such API key", 404 },
	/* QOPS_R_UNICODE */
	{ "invalid_unicode", "a text setting is not valid UTF-8", 400 },
};

const char *
qops_reason_code(enum qops_reason r)
{
	return r < QOPS_R__MAX ? reasons[r].code : "internal_error";
}

const char *
qops_reason_text(enum qops_reason r)
{
	return reasons[r < QOPS_R__MAX ? r : QOPS_R_INTERNAL].text;
}

int
qops_reason_status(enum qops_reason r)
{
	return r < QOPS_R__MAX ? reasons[r].status : 500;
}

const char *
qops_warning_code(unsigned int bit)
{
	return bit == QOPS_W_TARGET_OUTSIDE ? "target_outside_domains" :
	    "unknown";
}

const char *
qops_warning_text(unsigned int bit)
{
	return bit == QOPS_W_TARGET_OUTSIDE ? "the target URL is not on one "
	    "of the shop domains" : "unknown warning";
}

const char *
qops_field_opt(enum qops_field f)
{
	return f < QOPS_F__MAX ? fields[f].opt : "";
}

const char *
qops_field_key(enum qops_field f)
{
	return f < QOPS_F__MAX ? fields[f].key : "";
}

const char *
qops_field_rule(enum qops_field f)
{
	return f < QOPS_F__MAX ? fields[f].rule : "";
}

int
qops_field_find(const char *name)
{
	int	 f;

	for (f = 0; f < QOPS_F__MAX; f++)
		if (strcmp(name, fields[f].opt) == 0 ||
		    strcmp(name, fields[f].key) == 0)
			return f;
	return -1;
}

/* Clear *err for a new operation.  Can't fail. */
static void
err_init(struct qops_err *err)
{
	err->reason = QOPS_R_OK;
	err->field = -1;
	err->warnings = 0;
}

/*
 * Record reason r (and field f, or -1) in *err and return er.
 */
static enum app_err
refuse(struct qops_err *err, enum app_err er, enum qops_reason r, int f)
{
	err->reason = r;
	err->field = f;
	return er;
}

/*
 * Record the reason that goes with er (a failure from the db or crypto
 * layer) and return er.
 */
static enum app_err
failed(struct qops_err *err, enum app_err er)
{
	switch (er) {
	case APP_OK:
		err->reason = QOPS_R_OK;
		break;
	case APP_NOTFOUND:
		err->reason = QOPS_R_NOT_FOUND;
		break;
	case APP_DB_DOWN:
		err->reason = QOPS_R_UNAVAILABLE;
		break;
	default:
		err->reason = QOPS_R_INTERNAL;
		break;
	}
	return er;
}

enum app_err
qops_spec_set(struct qops_spec *spec, enum qops_field f, const char *text,
    struct qops_err *err)
{
	const struct field_def	*d;
	char			*base = (char *)spec;
	int64_t			 v;

	err_init(err);
	if (f >= QOPS_F__MAX || text == NULL)
		return refuse(err, APP_INVALID, QOPS_R_INVALID, -1);
	d = &fields[f];
	if (d->type == FT_INT) {
		if (parse_int64(text, d->min, d->max, &v) == -1)
			return refuse(err, APP_INVALID, QOPS_R_INVALID, f);
		*(int64_t *)(void *)(base + d->off) = v;
	} else if (d->type == FT_BOOL) {
		if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0 ||
		    strcmp(text, "on") == 0 || strcmp(text, "yes") == 0)
			v = 1;
		else if (strcmp(text, "0") == 0 || strcmp(text, "false") ==
		    0 || strcmp(text, "off") == 0 || strcmp(text, "no") == 0)
			v = 0;
		else
			return refuse(err, APP_INVALID, QOPS_R_INVALID, f);
		*(int64_t *)(void *)(base + d->off) = v;
	} else if (d->type == FT_TIME) {
		/* "none" or empty: 0, no time (cancel a scheduled one). */
		if (strcmp(text, "none") == 0 || text[0] == '\0')
			v = 0;
		else if (draw_parse_time(text, &v) == -1 || v <= 0)
			return refuse(err, APP_INVALID, QOPS_R_INVALID, f);
		*(int64_t *)(void *)(base + d->off) = v;
	} else if (utf8_chars(text, strlen(text)) < 0)
		/* Every text setting is UTF-8, whatever its own rule. */
		return refuse(err, APP_INVALID, QOPS_R_UNICODE, f);
	else
		*(const char **)(void *)(base + d->off) = text;
	spec->set |= QOPS_BIT(f);
	return APP_OK;
}

/*
 * Whether valid UTF-8 at p starts with a character no shown text may
 * hold beyond the ASCII controls: a C1 control (U+0080 to U+009F), a
 * bidirectional embedding, override or isolate (U+202A to U+202E,
 * U+2066 to U+2069: they reorder what follows, in the console and the
 * audit log too; Unicode TR9), or a line or paragraph separator (U+2028,
 * U+2029).  Returns 1 or 0.
 */
static int
hidden_control(const unsigned char *p)
{
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 1;
	if (p[0] != 0xe2)
		return 0;
	if (p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae)
		return 1;
	return p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9;
}

int
qops_name_valid(const char *name)
{
	const unsigned char	*p;
	int64_t			 chars;
	int			 blank = 1;

	if (name == NULL)
		return 0;
	chars = utf8_chars(name, strlen(name));
	if (chars < 1 || chars > NAME_MAX_CHARS)
		return 0;
	for (p = (const unsigned char *)name; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f || hidden_control(p))
			return 0;
		if (*p != ' ')
			blank = 0;
	}
	return !blank;
}

int
qops_target_valid(const char *s)
{
	return url_target_valid(s);
}

/*
 * Write entry o in its normal form into buf (at least 280 bytes).
 * Returns the length written.
 */
static size_t
entry_format(const struct shop_origin *o, char *buf, size_t sz)
{
	const char	*pre = strcmp(o->scheme, "http") == 0 ? "http://" : "";
	int		 n;

	if (o->port != 0)
		n = snprintf(buf, sz, "%s%s:%d", pre, o->host, o->port);
	else
		n = snprintf(buf, sz, "%s%s", pre, o->host);
	return n < 0 || (size_t)n >= sz ? 0 : (size_t)n;
}

/* Whether entries a and b are the same origin.  Returns 1 or 0. */
static int
entry_same(const struct shop_origin *a, const struct shop_origin *b)
{
	return strcmp(a->scheme, b->scheme) == 0 &&
	    strcmp(a->host, b->host) == 0 && a->port == b->port;
}

char *
qops_domains_normalise(const char *list)
{
	struct shop_domains	*sd;
	char			*out, one[300];
	size_t			 i, j, len = 0, n;

	if (list == NULL || (sd = try_malloc(sizeof(*sd))) == NULL)
		return NULL;
	if (url_shop_domains_parse(list, sd) == -1) {
		free(sd);
		return NULL;
	}
	/* Each entry is at most 7 + 253 + 6 bytes, plus the comma. */
	if ((out = try_malloc(sd->n * sizeof(one) + 1)) == NULL) {
		free(sd);
		return NULL;
	}
	out[0] = '\0';
	for (i = 0; i < sd->n; i++) {
		for (j = 0; j < i; j++)
			if (entry_same(&sd->o[i], &sd->o[j]))
				break;
		if (j < i)
			continue;
		if ((n = entry_format(&sd->o[i], one, sizeof(one))) == 0) {
			free(out);
			free(sd);
			return NULL;
		}
		if (len > 0)
			out[len++] = ',';
		memcpy(out + len, one, n + 1);
		len += n;
	}
	free(sd);
	return out;
}

int
qops_target_in_domains(const char *url, const char *list)
{
	struct shop_domains	*sd, *t;
	char			 origin[URL_MAX + 1];
	size_t			 n, alen, i;
	int			 in = 0;

	if (!qops_target_valid(url) || list == NULL)
		return 0;
	/* The target's origin, read as a one-entry list. */
	n = strncmp(url, "https://", 8) == 0 ? 8 : 7;
	alen = strcspn(url + n, "/?#");
	snprintf(origin, sizeof(origin), "%.*s", (int)(n + alen), url);
	if ((sd = try_malloc(2 * sizeof(*sd))) == NULL)
		return 0;
	t = sd + 1;
	if (url_shop_domains_parse(list, sd) == 0 &&
	    url_shop_domains_parse(origin, t) == 0 && t->n == 1)
		for (i = 0; i < sd->n && !in; i++)
			in = entry_same(&sd->o[i], &t->o[0]);
	free(sd);
	return in;
}

int64_t
qops_now(struct db *db)
{
	int64_t	 t;

	/*
	 * The one clock of every operator change: the database's (as the
	 * join's), so that hosts with skewed clocks agree.  If it cannot be
	 * read, the change itself fails on the same database; the estimate
	 * of its clock is as good as any then.
	 */
	if (db_now_ms(db, &t) == APP_OK)
		return t;
	return db_clock_ms(db);
}

int
qops_image_valid(const char *url)
{
	if (url == NULL)
		return 0;
	if (url[0] == '\0')
		return 1;
	return strncmp(url, "https://", 8) == 0 && qops_target_valid(url);
}

int
qops_message_valid(const char *text)
{
	int64_t	 n;
	size_t	 i;

	if (text == NULL || (n = utf8_chars(text, strlen(text))) < 0 ||
	    n > LOOK_MESSAGE_MAX)
		return 0;
	for (i = 0; text[i] != '\0'; i++) {
		if (text[i] == '\n' ||
		    (text[i] == '\r' && text[i + 1] == '\n'))
			continue;
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f ||
		    hidden_control((const unsigned char *)text + i))
			return 0;
	}
	return 1;
}

int
qops_accent_valid(const char *c)
{
	size_t	 i;

	if (c == NULL)
		return 0;
	if (c[0] == '\0')
		return 1;
	if (c[0] != '#' || strlen(c) != 7)
		return 0;
	for (i = 1; i < 7; i++)
		if (!((c[i] >= '0' && c[i] <= '9') ||
		    (c[i] >= 'a' && c[i] <= 'f') ||
		    (c[i] >= 'A' && c[i] <= 'F')))
			return 0;
	return 1;
}

int
qops_json_status_valid(int64_t st)
{
	return st == 200 || st == 202 || st == 429;
}

int
qops_json_cookie_valid(const char *s)
{
	size_t	 i;

	if (s == NULL)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (i >= 32 || !((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		    s[i] == '-'))
			return 0;
	return 1;
}

/* Bits of the fields stored by db_queue_set_look(). */
#define LOOK_BITS (QOPS_BIT(QOPS_F_HEADER_IMAGE) | \
	QOPS_BIT(QOPS_F_DISPLAY_NAME) | QOPS_BIT(QOPS_F_MESSAGE) | \
	QOPS_BIT(QOPS_F_ACCENT) | QOPS_BIT(QOPS_F_JSON_STATUS) | \
	QOPS_BIT(QOPS_F_JSON_COOKIE))

/* Check the fields of LOOK_BITS given in spec.  As spec_check. */
static enum app_err
look_check(const struct qops_spec *spec, struct qops_err *err)
{
	if ((spec->set & QOPS_BIT(QOPS_F_HEADER_IMAGE)) &&
	    !qops_image_valid(spec->header_image_url))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_HEADER_IMAGE);
	if ((spec->set & QOPS_BIT(QOPS_F_DISPLAY_NAME)) &&
	    (spec->display_name == NULL || (spec->display_name[0] != '\0' &&
	    !qops_name_valid(spec->display_name))))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_DISPLAY_NAME);
	if ((spec->set & QOPS_BIT(QOPS_F_MESSAGE)) &&
	    !qops_message_valid(spec->message))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_MESSAGE);
	if ((spec->set & QOPS_BIT(QOPS_F_ACCENT)) &&
	    !qops_accent_valid(spec->accent))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_ACCENT);
	if ((spec->set & QOPS_BIT(QOPS_F_JSON_STATUS)) &&
	    !qops_json_status_valid(spec->json_queued_status))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_JSON_STATUS);
	if ((spec->set & QOPS_BIT(QOPS_F_JSON_COOKIE)) &&
	    !qops_json_cookie_valid(spec->json_cookie))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_JSON_COOKIE);
	return APP_OK;
}

/*
 * Apply the fields of LOOK_BITS given in spec to q (which owns its
 * strings).  Returns APP_OK or APP_ENOMEM.
 */
static enum app_err
look_apply(struct queue *q, const struct qops_spec *spec)
{
	const char	*src[5] = { spec->header_image_url, spec->display_name,
			    spec->message, spec->accent, spec->json_cookie };
	char		**dst[5] = { &q->header_image_url, &q->display_name,
			    &q->message, &q->accent, &q->json_cookie };
	enum qops_field	 f[5] = { QOPS_F_HEADER_IMAGE, QOPS_F_DISPLAY_NAME,
			    QOPS_F_MESSAGE, QOPS_F_ACCENT, QOPS_F_JSON_COOKIE };
	char		*v, *c;
	size_t		 i;

	for (i = 0; i < 5; i++) {
		if (!(spec->set & QOPS_BIT(f[i])))
			continue;
		if ((v = try_strndup(src[i], strlen(src[i]))) == NULL)
			return APP_ENOMEM;
		if (f[i] == QOPS_F_ACCENT)
			for (c = v; *c != '\0'; c++)
				if (*c >= 'A' && *c <= 'F')
					*c = (char)(*c - 'A' + 'a');
		free(*dst[i]);
		*dst[i] = v;
	}
	if (spec->set & QOPS_BIT(QOPS_F_JSON_STATUS))
		q->json_queued_status = spec->json_queued_status;
	return APP_OK;
}

/*
 * Check every field given in spec; with creating, name and rate must be
 * given.  Returns APP_OK or APP_INVALID (reason and field in *err).
 */
static enum app_err
spec_check(const struct qops_spec *spec, int creating, struct qops_err *err)
{
	char	*d;

	if (creating && !(spec->set & QOPS_BIT(QOPS_F_NAME)))
		return refuse(err, APP_INVALID, QOPS_R_MISSING, QOPS_F_NAME);
	if (creating && !(spec->set & QOPS_BIT(QOPS_F_RATE)))
		return refuse(err, APP_INVALID, QOPS_R_MISSING, QOPS_F_RATE);
	if ((spec->set & QOPS_BIT(QOPS_F_NAME)) &&
	    !qops_name_valid(spec->name))
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_NAME);
	if ((spec->set & QOPS_BIT(QOPS_F_TARGET)) &&
	    (spec->target_url == NULL || (spec->target_url[0] != '\0' &&
	    !qops_target_valid(spec->target_url))))
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_TARGET);
	if (spec->set & QOPS_BIT(QOPS_F_DOMAINS)) {
		if ((d = qops_domains_normalise(spec->shop_domains)) == NULL)
			return refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_DOMAINS);
		free(d);
	}
	if ((spec->set & QOPS_BIT(QOPS_F_RATE)) &&
	    (spec->rate < ADM_RATE_MIN || spec->rate > ADM_RATE_MAX))
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_RATE);
	if ((spec->set & QOPS_BIT(QOPS_F_BURST)) &&
	    (spec->burst < 0 || spec->burst > ADM_BURST_MAX))
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_BURST);
	if ((spec->set & QOPS_BIT(QOPS_F_TOKEN_TTL)) &&
	    (spec->token_ttl_s < 1 || spec->token_ttl_s > TOKEN_TTL_MAX))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_TOKEN_TTL);
	if ((spec->set & QOPS_BIT(QOPS_F_CLAIM_WINDOW)) &&
	    (spec->claim_window_s < ADM_CLAIM_MIN_S ||
	    spec->claim_window_s > ADM_CLAIM_MAX_S))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_CLAIM_WINDOW);
	if ((spec->set & QOPS_BIT(QOPS_F_ABANDON_GRACE)) &&
	    (spec->abandon_grace_s < ABANDON_GRACE_MIN_S ||
	    spec->abandon_grace_s > ABANDON_GRACE_MAX_S))
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_ABANDON_GRACE);
	if ((spec->set & QOPS_BIT(QOPS_F_OPENS_AT)) && spec->opens_at_ms < 0)
		return refuse(err, APP_INVALID, QOPS_R_INVALID,
		    QOPS_F_OPENS_AT);
	return look_check(spec, err);
}

/* Apply the abandonment fields of spec to q.  Can't fail. */
static void
abandon_spec(struct queue *q, const struct qops_spec *spec)
{
	unsigned int	 set = spec->set;

	if ((set & QOPS_BIT(QOPS_F_ABANDON)) && !spec->abandon)
		q->abandon_grace_s = 0;
	else if (set & QOPS_BIT(QOPS_F_ABANDON_GRACE))
		q->abandon_grace_s = spec->abandon_grace_s;
	else if ((set & QOPS_BIT(QOPS_F_ABANDON)) && q->abandon_grace_s == 0)
		q->abandon_grace_s = ABANDON_GRACE_DEF_S;
}

/*
 * A new seed for q's arming into q (sealed, and its hash published with
 * the arming itself: SPEC section 9).  Returns APP_OK or APP_CRYPTO.
 */
static enum app_err
arm_seed(const struct cfg *c, struct queue *q)
{
	size_t	 len;

	if (draw_new_seed(c, q->slug, q->draw_seed_sealed,
	    sizeof(q->draw_seed_sealed), &len, q->draw_seed_hash) == -1)
		return APP_CRYPTO;
	q->draw_seed_sealed_len = len;
	return APP_OK;
}

/*
 * Apply the opening and abandonment fields of spec to the locked row q
 * at now, with change ch (the admission settings the spec asks for) for
 * a cancelled opening's new segment.  Arming draws the seed at once.
 * *rearm: 1 when the opening was (re)armed or cancelled; *scheduled: 1
 * when that scheduled ch.  Returns APP_OK, APP_CRYPTO, APP_BUSY (a
 * change is still scheduled ahead of now: q unchanged, try again
 * later), or APP_INVALID with err set (the opening is not far enough in
 * the future, or the queue is past the point where it may be armed or
 * cancelled).
 */
static enum app_err
draw_spec(const struct cfg *c, struct queue *q, const struct qops_spec *spec,
    int64_t now, const struct adm_change *ch, int *rearm, int *scheduled,
    struct qops_err *err)
{
	unsigned int	 set = spec->set;
	enum app_err	 er;

	*rearm = *scheduled = 0;
	/*
	 * No opening (0): cancels one whose pre-queue is still empty; once
	 * a number waits for the draw, or the draw is done, it stays (move
	 * the opening instead).
	 */
	if ((set & QOPS_BIT(QOPS_F_OPENS_AT)) && spec->opens_at_ms == 0) {
		if (q->adm.opens_at_ms == 0)
			set &= ~QOPS_BIT(QOPS_F_OPENS_AT);
		else if (!adm_prequeue(&q->adm, now) ||
		    q->adm.last_number > 0)
			return refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		else {
			if (q->adm.pend_at_ms > now)
				return APP_BUSY;
			if (adm_cancel_opening(&q->adm, now, ch) == -1)
				return refuse(err, APP_INVALID,
				    QOPS_R_INVALID, QOPS_F_OPENS_AT);
			q->draw_seed_sealed_len = 0;
			q->draw_seed_hash[0] = '\0';
			*rearm = *scheduled = 1;
			set &= ~QOPS_BIT(QOPS_F_OPENS_AT);
		}
	}
	if (set & QOPS_BIT(QOPS_F_OPENS_AT)) {
		if (spec->opens_at_ms < now + ADM_TICK_MS ||
		    (q->adm.last_number > 0 && !adm_prequeue(&q->adm, now)))
			return refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		if (q->adm.pend_at_ms > now)
			return APP_BUSY;
		if (adm_arm_opening(&q->adm, now, spec->opens_at_ms) == -1)
			return refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		if ((er = arm_seed(c, q)) != APP_OK)
			return er;
		*rearm = 1;
	}
	abandon_spec(q, spec);
	return APP_OK;
}

/* Whether spec sets an opening or abandonment field.  Returns 1 or 0. */
static int
draw_fields(const struct qops_spec *spec)
{
	return (spec->set & (QOPS_BIT(QOPS_F_OPENS_AT) |
	    QOPS_BIT(QOPS_F_ABANDON) | QOPS_BIT(QOPS_F_ABANDON_GRACE))) != 0;
}

/* Set the warnings that the settings of q call for.  Can't fail. */
static void
warn_check(const struct queue *q, struct qops_err *err)
{
	if (q->target_url != NULL && q->shop_domains[0] != '\0' &&
	    !qops_target_in_domains(q->target_url, q->shop_domains))
		err->warnings |= QOPS_W_TARGET_OUTSIDE;
}

/*
 * Make a new signing secret for q: 32 random bytes as base64url text
 * (the HMAC key is that text, so any JWT library takes it as a string),
 * sealed under the master key bound to the slug.  Returns the secret
 * text (free with qops_secret_free), or NULL.
 */
static char *
new_secret(const struct cfg *c, struct queue *q)
{
	uint8_t	 raw[32];
	char	*secret, *aad;
	int64_t	 n;

	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (secret = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return NULL;
	crypto_wipe(raw, sizeof(raw));
	aad = xasprintf("queue-secret:%s", q->slug);
	n = crypto_seal(c->master_key, aad, secret, strlen(secret),
	    q->secret_sealed, sizeof(q->secret_sealed));
	free(aad);
	if (n < 0) {
		qops_secret_free(secret);
		return NULL;
	}
	q->secret_sealed_len = (size_t)n;
	return secret;
}

/*
 * Make and seal a new ticket key for q.  Returns 0, or -1 on failure.
 */
static int
new_ticket_key(const struct cfg *c, struct queue *q)
{
	uint8_t	 tkey[TICKET_KEY_LEN];
	char	*aad;
	int64_t	 n;

	if (crypto_random(tkey, sizeof(tkey)) == -1)
		return -1;
	aad = xasprintf("queue-ticket-key:%s", q->slug);
	n = crypto_seal(c->master_key, aad, tkey, sizeof(tkey),
	    q->ticket_key_sealed, sizeof(q->ticket_key_sealed));
	free(aad);
	crypto_wipe(tkey, sizeof(tkey));
	if (n < 0)
		return -1;
	q->ticket_key_sealed_len = (size_t)n;
	return 0;
}

void
qops_secret_free(char *secret)
{
	if (secret == NULL)
		return;
	crypto_wipe(secret, strlen(secret));
	free(secret);
}

/* Whether who names someone who may ask for changes.  Returns 1 or 0. */
static int
known(const struct principal *who)
{
	return who != NULL && who->kind != PRINCIPAL_NONE;
}

int
qops_in_scope(const struct principal *who, int64_t queue_id)
{
	if (!known(who))
		return 0;
	if (who->kind != PRINCIPAL_KEY)
		return 1;
	/* -1: the queue is not known yet; the row's id is checked later. */
	return queue_id == -1 || (who->queue_id > 0 &&
	    queue_id == who->queue_id);
}

/*
 * Whether who may do what no API key may: create and delete queues,
 * rotate secrets, manage keys.  Returns 1 or 0.
 */
static int
may_manage(const struct principal *who)
{
	return known(who) && who->kind != PRINCIPAL_KEY;
}

/* Refuse with QOPS_R_FORBIDDEN.  Returns APP_INVALID. */
static enum app_err
forbid(struct qops_err *err)
{
	return refuse(err, APP_INVALID, QOPS_R_FORBIDDEN, -1);
}

const char *
qops_principal_kind(const struct principal *who)
{
	if (who == NULL)
		return "none";
	switch (who->kind) {
	case PRINCIPAL_USER:
		return "user";
	case PRINCIPAL_KEY:
		return "key";
	case PRINCIPAL_CLI:
		return "cli";
	case PRINCIPAL_WORKER:
		return "worker";
	case PRINCIPAL_NONE:
		break;
	}
	return "none";
}

/* Add member key = v (NULL: JSON null) to o.  Returns 0 or -1. */
static int
add(struct json_object *o, const char *key, struct json_object *v)
{
	return json_object_object_add(o, key, v);
}

/*
 * The value of field f of q: a string in *s (NULL for a target that is
 * not set) and 1, or an integer in *v and 0 (a yes/no field 1 or 0, a
 * time Unix ms or 0 for none).
 */
static int
field_get(const struct queue *q, enum qops_field f, const char **s,
    int64_t *v)
{
	struct adm_queue	 st;

	/* The settings as they stand once a scheduled change is in. */
	adm_settled(&q->adm, &st);
	*s = NULL;
	*v = 0;
	switch (f) {
	case QOPS_F_NAME:
		*s = q->name;
		return 1;
	case QOPS_F_TARGET:
		*s = q->target_url;
		return 1;
	case QOPS_F_DOMAINS:
		*s = q->shop_domains != NULL ? q->shop_domains : "";
		return 1;
	case QOPS_F_HEADER_IMAGE:
		*s = q->header_image_url != NULL ? q->header_image_url : "";
		return 1;
	case QOPS_F_DISPLAY_NAME:
		*s = q->display_name != NULL ? q->display_name : "";
		return 1;
	case QOPS_F_MESSAGE:
		*s = q->message != NULL ? q->message : "";
		return 1;
	case QOPS_F_ACCENT:
		*s = q->accent != NULL ? q->accent : "";
		return 1;
	case QOPS_F_JSON_COOKIE:
		*s = q->json_cookie != NULL ? q->json_cookie : "";
		return 1;
	case QOPS_F_RATE:
		*v = st.rate_per_minute;
		break;
	case QOPS_F_BURST:
		*v = st.burst;
		break;
	case QOPS_F_TOKEN_TTL:
		*v = q->token_ttl_s;
		break;
	case QOPS_F_CLAIM_WINDOW:
		*v = q->adm.claim_window_s;
		break;
	case QOPS_F_JSON_STATUS:
		*v = q->json_queued_status;
		break;
	case QOPS_F_OPENS_AT:
		*v = q->adm.opens_at_ms;
		break;
	case QOPS_F_ABANDON:
		*v = q->abandon_grace_s > 0;
		break;
	case QOPS_F_ABANDON_GRACE:
		*v = q->abandon_grace_s > 0 ? q->abandon_grace_s :
		    ABANDON_GRACE_DEF_S;
		break;
	case QOPS_F__MAX:
		break;
	}
	return 0;
}

/*
 * Clear the bits of spec whose value equals q's (an update that sends
 * the whole configuration, as the API's PATCH and the console's form
 * do, changes and checks only what differs).  Can't fail.
 */
static void
spec_drop_unchanged(const struct queue *q, struct qops_spec *spec)
{
	const struct field_def	*d;
	const char		*base = (const char *)spec, *s, *t;
	int64_t			 v, w;
	int			 f;

	for (f = 0; f < QOPS_F__MAX; f++) {
		if (!(spec->set & QOPS_BIT(f)))
			continue;
		d = &fields[f];
		if (field_get(q, (enum qops_field)f, &s, &v)) {
			t = *(const char *const *)(const void *)(base + d->off);
			if (strcmp(s != NULL ? s : "", t != NULL ? t : "") != 0)
				continue;
		} else {
			w = *(const int64_t *)(const void *)(base + d->off);
			if (d->type == FT_BOOL ? (v != 0) != (w != 0) : v != w)
				continue;
		}
		spec->set &= ~QOPS_BIT(f);
	}
}

struct json_object *
qops_queue_fields(const struct queue *q)
{
	struct adm_queue	 st;
	struct json_object	*o, *v;
	const char		*s;
	int64_t			 n;
	int			 f, bad = 0;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	for (f = 0; f < QOPS_F__MAX; f++) {
		if (field_get(q, (enum qops_field)f, &s, &n))
			v = s == NULL ? NULL : json_object_new_string(s);
		else if (fields[f].type == FT_BOOL)
			v = json_object_new_boolean(n != 0);
		else if (fields[f].type == FT_TIME && n == 0)
			v = NULL;
		else
			v = json_object_new_int64(n);
		if (add(o, fields[f].key, v) != 0)
			bad = 1;
	}
	adm_settled(&q->adm, &st);
	if (add(o, "active", json_object_new_boolean(st.active)) != 0 ||
	    bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * Write one audit row: who did action on queue q (NULL: none) with the
 * JSON texts before and after (NULL: none).  Inside the caller's
 * transaction.  Returns APP_OK, APP_DB or APP_DB_DOWN.
 */
static enum app_err
audit_row(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, const char *before, const char *after)
{
	struct audit_entry	*e;
	enum app_err		 er;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return APP_ENOMEM;
	snprintf(e->actor_kind, sizeof(e->actor_kind), "%s",
	    qops_principal_kind(who));
	e->actor_id = who->id;
	snprintf(e->actor_name, sizeof(e->actor_name), "%s", who->name);
	if (q != NULL) {
		e->queue_id = q->id;
		snprintf(e->queue_slug, sizeof(e->queue_slug), "%s", q->slug);
	}
	snprintf(e->action, sizeof(e->action), "%s", action);
	e->before_json = (char *)(uintptr_t)before;
	e->after_json = (char *)(uintptr_t)after;
	snprintf(e->client_addr, sizeof(e->client_addr), "%s", who->addr);
	er = db_audit_insert(db, e);
	free(e);
	return er;
}

/* The compact JSON text of o (owned by o), or NULL for NULL. */
static const char *
json_text(struct json_object *o)
{
	return o == NULL ? NULL : json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * Audit action on q with every field of the rows before and after (NULL:
 * none), for creation and deletion.  Returns as audit_row().
 */
static enum app_err
audit(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, const struct queue *before,
    const struct queue *after)
{
	struct json_object	*b = NULL, *a = NULL;
	enum app_err		 er = APP_ENOMEM;

	if ((before == NULL || (b = qops_queue_fields(before)) != NULL) &&
	    (after == NULL || (a = qops_queue_fields(after)) != NULL))
		er = audit_row(db, who, q, action, json_text(b),
		    json_text(a));
	json_object_put(b);
	json_object_put(a);
	return er;
}

/*
 * Audit a change of q: the members of before (qops_queue_fields() of the
 * row before) whose value differs in q now, before and after.  Nothing
 * written when none differs; with no_values (secret rotation) the row
 * is written without values.  Returns as audit_row().
 */
static enum app_err
audit_change(struct db *db, const struct principal *who,
    const struct queue *q, const char *action, struct json_object *before,
    int no_values)
{
	struct json_object	*now, *b, *a, *v;
	enum app_err		 er = APP_ENOMEM;
	int			 changed = 0;

	if (no_values)
		return audit_row(db, who, q, action, NULL, NULL);
	if ((now = qops_queue_fields(q)) == NULL)
		return APP_ENOMEM;
	b = json_object_new_object();
	a = json_object_new_object();
	if (b == NULL || a == NULL)
		goto out;
	json_object_object_foreach(before, key, old) {
		if (!json_object_object_get_ex(now, key, &v))
			continue;
		if (strcmp(json_text(old) != NULL ? json_text(old) : "null",
		    json_text(v) != NULL ? json_text(v) : "null") == 0)
			continue;
		changed = 1;
		add(b, key, old == NULL ? NULL : json_object_get(old));
		add(a, key, v == NULL ? NULL : json_object_get(v));
	}
	er = changed ? audit_row(db, who, q, action, json_text(b),
	    json_text(a)) : APP_OK;
out:
	json_object_put(now);
	json_object_put(b);
	json_object_put(a);
	return er;
}

enum app_err
qops_create(struct db *db, const struct cfg *c, const char *slug,
    const struct qops_spec *spec, char **secret, int64_t *id,
    struct qops_err *err, const struct principal *who)
{
	struct queue	 q;
	char		*domains = NULL;
	enum app_err	 er;
	int64_t		 now, burst;
	int		 rearm = 0;

	err_init(err);
	*secret = NULL;
	*id = 0;
	if (!may_manage(who))
		return forbid(err);
	if (!db_queue_slug_valid(slug))
		return refuse(err, APP_INVALID, QOPS_R_SLUG, -1);
	if ((er = spec_check(spec, 1, err)) != APP_OK)
		return er;
	memset(&q, 0, sizeof(q));
	q.slug = (char *)(uintptr_t)slug;
	q.name = (char *)(uintptr_t)spec->name;
	if ((spec->set & QOPS_BIT(QOPS_F_TARGET)) &&
	    spec->target_url[0] != '\0')
		q.target_url = (char *)(uintptr_t)spec->target_url;
	domains = qops_domains_normalise(spec->set &
	    QOPS_BIT(QOPS_F_DOMAINS) ? spec->shop_domains : "");
	if (domains == NULL)
		return failed(err, APP_ENOMEM);
	q.shop_domains = domains;
	q.token_ttl_s = spec->set & QOPS_BIT(QOPS_F_TOKEN_TTL) ?
	    spec->token_ttl_s : TOKEN_TTL_DEF;
	now = qops_now(db);
	burst = spec->set & QOPS_BIT(QOPS_F_BURST) ? spec->burst : 0;
	/* An opening at creation: serving 0 until it (SPEC section 3). */
	if ((spec->set & QOPS_BIT(QOPS_F_OPENS_AT)) &&
	    spec->opens_at_ms != 0) {
		if (spec->opens_at_ms < now + ADM_TICK_MS) {
			free(domains);
			return refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		}
		adm_init_opening(&q.adm, spec->rate, burst, now,
		    spec->opens_at_ms);
		if (arm_seed(c, &q) != APP_OK) {
			free(domains);
			return failed(err, APP_CRYPTO);
		}
		rearm = 1;
	} else
		adm_init(&q.adm, spec->rate, burst, now);
	if (spec->set & QOPS_BIT(QOPS_F_CLAIM_WINDOW))
		adm_set_claim_window(&q.adm, now, spec->claim_window_s);
	abandon_spec(&q, spec);
	warn_check(&q, err);

	if (new_ticket_key(c, &q) == -1 ||
	    (*secret = new_secret(c, &q)) == NULL) {
		er = failed(err, APP_CRYPTO);
		goto out;
	}
	q.json_queued_status = 200;
	if ((spec->set & LOOK_BITS) && look_apply(&q, spec) != APP_OK) {
		er = failed(err, APP_ENOMEM);
		goto out;
	}
	if ((er = db_begin(db)) != APP_OK) {
		failed(err, er);
		goto out;
	}
	er = db_queue_insert(db, &q);
	if (er == APP_OK && (spec->set & LOOK_BITS))
		er = db_queue_set_look(db, &q);
	if (er == APP_OK && draw_fields(spec))
		er = db_queue_set_draw(db, &q, rearm);
	if (er == APP_OK)
		er = audit(db, who, &q, "create", NULL, &q);
	if (er == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	if (er == APP_INVALID)
		er = refuse(err, APP_INVALID, QOPS_R_EXISTS, -1);
	else if (er != APP_OK)
		er = failed(err, er);
	else
		*id = q.id;
out:
	if (er != APP_OK) {
		qops_secret_free(*secret);
		*secret = NULL;
	}
	free(domains);
	free(q.header_image_url);
	free(q.display_name);
	free(q.message);
	free(q.accent);
	free(q.json_cookie);
	return er;
}

/* What change_locked() does to the locked row. */
enum op {
	OP_UPDATE,	/* the fields of a spec */
	OP_PAUSE,
	OP_RESUME,
	OP_SET_RATE,	/* spec->rate */
	OP_ROTATE	/* a new signing secret */
};

/* A copy of s (try_strndup), or NULL. */
static char *
copy_str(const char *s)
{
	return try_strndup(s, strlen(s));
}

/*
 * Apply the fields of spec to the locked row q that are not admission
 * settings (those are scheduled by change_locked()).  The row owns every
 * string it points to.  Returns APP_OK or APP_ENOMEM.
 */
static enum app_err
apply_spec(struct queue *q, const struct qops_spec *spec)
{
	unsigned int	 set = spec->set;
	char		*d;

	if (set & QOPS_BIT(QOPS_F_NAME)) {
		free(q->name);
		if ((q->name = copy_str(spec->name)) == NULL)
			return APP_ENOMEM;
	}
	if (set & QOPS_BIT(QOPS_F_TARGET)) {
		free(q->target_url);
		q->target_url = NULL;
		if (spec->target_url[0] != '\0' &&
		    (q->target_url = copy_str(spec->target_url)) == NULL)
			return APP_ENOMEM;
	}
	if (set & QOPS_BIT(QOPS_F_DOMAINS)) {
		if ((d = qops_domains_normalise(spec->shop_domains)) == NULL)
			return APP_ENOMEM;
		free(q->shop_domains);
		q->shop_domains = d;
	}
	if (set & QOPS_BIT(QOPS_F_TOKEN_TTL))
		q->token_ttl_s = spec->token_ttl_s;
	return APP_OK;
}

/*
 * The admission change op asks of the locked row q at now (the settings
 * in effect after any change already scheduled): rate, burst and the
 * paused state.  *any: 1 when it differs from those settings.
 */
static void
op_change(const struct queue *q, enum op op, const struct qops_spec *spec,
    int64_t now, struct adm_change *ch, int *any)
{
	struct adm_queue	 st;

	adm_settled(&q->adm, &st);
	adm_change_init(&st, now, ch);
	if (op == OP_PAUSE)
		ch->active = 0;
	else if (op == OP_RESUME)
		ch->active = 1;
	else if (op == OP_SET_RATE || (op == OP_UPDATE &&
	    (spec->set & QOPS_BIT(QOPS_F_RATE))))
		ch->rate = spec->rate;
	if (op == OP_UPDATE && (spec->set & QOPS_BIT(QOPS_F_BURST)))
		ch->burst = spec->burst;
	*any = ch->active != st.active || ch->rate != st.rate_per_minute ||
	    ch->burst != st.burst;
}

/*
 * Apply op to the locked row q at now: the admission state first
 * (adm_fold(): every write folds the history in), then the fields.
 * *state: 1 when the admission state must be written; *rearm as
 * draw_spec(); *scheduled: 1 when a change was scheduled (it takes
 * effect ADM_TICK_MS after now).  Returns APP_OK, APP_BUSY (a change is
 * still scheduled ahead of now: nothing applied), or an error with err
 * set.
 */
static enum app_err
apply_op(const struct cfg *c, struct queue *q, enum op op,
    const struct qops_spec *spec, int64_t now, int *state, int *rearm,
    int *scheduled, struct qops_err *err)
{
	struct adm_change	 ch;
	struct adm_queue	 before = q->adm;
	enum app_err		 er;
	int			 any;

	*state = *rearm = *scheduled = 0;
	op_change(q, op, spec, now, &ch, &any);
	if (any && q->adm.pend_at_ms > now)
		return APP_BUSY;
	adm_fold(&q->adm, now);
	(void)adm_materialize(&q->adm, now);
	if (op == OP_UPDATE) {
		if ((er = apply_spec(q, spec)) != APP_OK)
			return failed(err, er);
		if (spec->set & QOPS_BIT(QOPS_F_CLAIM_WINDOW))
			adm_set_claim_window(&q->adm, now,
			    spec->claim_window_s);
		if ((er = draw_spec(c, q, spec, now, &ch, rearm, scheduled,
		    err)) != APP_OK)
			return er;
	}
	if (any && !*scheduled) {
		if (adm_schedule(&q->adm, now, &ch) == -1)
			return APP_BUSY;
		*scheduled = 1;
	}
	*state = memcmp(&before, &q->adm, sizeof(before)) != 0;
	return APP_OK;
}

/* How often change_locked() waits for a scheduled change and retries. */
#define CHANGE_TRIES	4

/*
 * Lock queue slug's row in a transaction, apply op, write, commit: one
 * change, one transaction, one audit row.  An admission change takes
 * effect ADM_TICK_MS after it is made (admission.h); the call waits
 * until then, so that it is in effect on every process when it returns
 * (the worker's changes do not wait).  A change made while another is
 * still scheduled waits for that one first.  For OP_ROTATE, *secret
 * receives the new secret.  On failure the transaction is rolled back
 * and *err says why.
 */
static enum app_err
change_locked(struct db *db, const struct cfg *c, const char *slug,
    enum op op, const struct qops_spec *spec, char **secret,
    struct qops_err *err, const struct principal *who)
{
	static const char *const actions[] = {
		"update", "pause", "resume", "set_rate", "rotate_secret"
	};
	struct queue	*q = NULL;
	struct json_object *before = NULL;
	struct qops_spec sp;
	enum app_err	 er;
	int64_t		 now, wait_ms = 0;
	int		 rearm = 0, state = 0, scheduled = 0, tries = 0;

	if (!qops_in_scope(who, -1) || (op == OP_ROTATE && !may_manage(who)))
		return forbid(err);

	if (!db_queue_slug_valid(slug))
		return refuse(err, APP_NOTFOUND, QOPS_R_NOT_FOUND, -1);
	if (c == NULL)
		c = db_config(db);
again:
	if ((er = db_begin(db)) != APP_OK)
		return failed(err, er);
	if ((er = db_queue_get_locked(db, slug, &q)) != APP_OK) {
		failed(err, er);
		goto out;
	}
	if (!qops_in_scope(who, q->id)) {
		er = forbid(err);
		goto out;
	}
	if ((before = qops_queue_fields(q)) == NULL) {
		er = failed(err, APP_ENOMEM);
		goto out;
	}
	now = qops_now(db);
	switch (op) {
	case OP_UPDATE:
		sp = *spec;
		spec_drop_unchanged(q, &sp);
		spec = &sp;
		/* FALLTHROUGH */
	case OP_PAUSE:
	case OP_RESUME:
	case OP_SET_RATE:
		er = apply_op(c, q, op, spec, now, &state, &rearm,
		    &scheduled, err);
		if (er == APP_BUSY) {
			/* Wait for the change scheduled before, then again. */
			wait_ms = q->adm.pend_at_ms - now + 1;
			break;
		}
		if (er != APP_OK)
			break;
		if (op == OP_UPDATE)
			warn_check(q, err);
		if (state)
			er = db_queue_set_state(db, q);
		if (er == APP_OK && op == OP_UPDATE) {
			er = db_queue_update(db, q);
			if (er == APP_OK && (spec->set & LOOK_BITS)) {
				if ((er = look_apply(q, spec)) == APP_OK)
					er = db_queue_set_look(db, q);
			}
			if (er == APP_OK && draw_fields(spec))
				er = db_queue_set_draw(db, q, rearm);
		}
		break;
	case OP_ROTATE:
		if ((*secret = new_secret(c, q)) == NULL) {
			er = APP_CRYPTO;
			break;
		}
		er = db_queue_set_secret(db, q);
		break;
	}
	if (er == APP_BUSY && tries++ < CHANGE_TRIES) {
		db_rollback(db);
		json_object_put(before);
		before = NULL;
		db_queue_free(q);
		q = NULL;
		sleep_ms(wait_ms > ADM_TICK_MS ? ADM_TICK_MS : wait_ms);
		err_init(err);
		goto again;
	}
	if (er == APP_OK)
		er = audit_change(db, who, q, actions[op], before,
		    op == OP_ROTATE);
	if (er == APP_OK)
		er = db_commit(db);
	if (er != APP_OK && err->reason == QOPS_R_OK)
		failed(err, er);
out:
	json_object_put(before);
	if (er != APP_OK) {
		db_rollback(db);
		if (secret != NULL) {
			qops_secret_free(*secret);
			*secret = NULL;
		}
	}
	/*
	 * In effect on every process when the call returns; then applied
	 * to the row (else the next join would do it).
	 */
	if (er == APP_OK && scheduled && who != NULL &&
	    who->kind != PRINCIPAL_WORKER) {
		sleep_ms(q->adm.pend_at_ms - now);
		(void)db_queue_materialize(db, q->id);
	}
	db_queue_free(q);
	return er;
}

enum app_err
qops_update(struct db *db, const char *slug, const struct qops_spec *spec,
    struct qops_err *err, const struct principal *who)
{
	enum app_err	 er;

	err_init(err);
	if ((er = spec_check(spec, 0, err)) != APP_OK)
		return er;
	return change_locked(db, NULL, slug, OP_UPDATE, spec, NULL, err,
	    who);
}

enum app_err
qops_pause(struct db *db, const char *slug, struct qops_err *err,
    const struct principal *who)
{
	err_init(err);
	return change_locked(db, NULL, slug, OP_PAUSE, NULL, NULL, err, who);
}

enum app_err
qops_resume(struct db *db, const char *slug, struct qops_err *err,
    const struct principal *who)
{
	err_init(err);
	return change_locked(db, NULL, slug, OP_RESUME, NULL, NULL, err,
	    who);
}

enum app_err
qops_set_rate(struct db *db, const char *slug, int64_t rate,
    struct qops_err *err, const struct principal *who)
{
	struct qops_spec	 spec;

	err_init(err);
	if (rate < ADM_RATE_MIN || rate > ADM_RATE_MAX)
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_RATE);
	memset(&spec, 0, sizeof(spec));
	spec.set = QOPS_BIT(QOPS_F_RATE);
	spec.rate = rate;
	return change_locked(db, NULL, slug, OP_SET_RATE, &spec, NULL, err,
	    who);
}

enum app_err
qops_rotate_secret(struct db *db, const struct cfg *c, const char *slug,
    char **secret, struct qops_err *err, const struct principal *who)
{
	err_init(err);
	*secret = NULL;
	return change_locked(db, c, slug, OP_ROTATE, NULL, secret, err, who);
}

enum app_err
qops_get(struct db *db, const char *slug, struct queue **out,
    struct qops_err *err)
{
	err_init(err);
	return failed(err, db_queue_get(db, slug, out));
}

void
qops_queue_free(struct queue *q)
{
	db_queue_free(q);
}

enum app_err
qops_list(struct db *db, struct queue ***out, size_t *n,
    struct qops_err *err)
{
	err_init(err);
	return failed(err, db_queue_list(db, out, n));
}

void
qops_list_free(struct queue **q, size_t n)
{
	db_queue_list_free(q, n);
}

enum app_err
qops_delete(struct db *db, const char *slug, struct qops_err *err,
    const struct principal *who)
{
	struct queue	*q = NULL;
	enum app_err	 er;

	err_init(err);
	if (!may_manage(who))
		return forbid(err);
	if (!db_queue_slug_valid(slug))
		return refuse(err, APP_NOTFOUND, QOPS_R_NOT_FOUND, -1);
	if ((er = db_begin(db)) != APP_OK)
		return failed(err, er);
	if ((er = db_queue_get_locked(db, slug, &q)) == APP_OK &&
	    (er = db_queue_delete(db, slug)) == APP_OK &&
	    (er = audit(db, who, q, "delete", q, NULL)) == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	db_queue_free(q);
	return failed(err, er);
}

/*
 * Audit action on API key k of queue q with the JSON texts before and
 * after built from k's id, name and revoked flag.  Returns as
 * audit_row().
 */
static enum app_err
audit_key(struct db *db, const struct principal *who, const struct queue *q,
    const char *action, int64_t key_id, const char *name, int was_revoked)
{
	struct json_object	*b = NULL, *a;
	enum app_err		 er = APP_ENOMEM;

	if ((a = json_object_new_object()) == NULL)
		return APP_ENOMEM;
	add(a, "keyId", json_object_new_int64(key_id));
	add(a, "name", json_object_new_string(name));
	if (was_revoked != -1) {
		if ((b = json_object_new_object()) == NULL)
			goto out;
		add(b, "keyId", json_object_new_int64(key_id));
		add(b, "name", json_object_new_string(name));
		add(b, "revoked", json_object_new_boolean(was_revoked));
		add(a, "revoked", json_object_new_boolean(1));
	}
	er = audit_row(db, who, q, action, json_text(b), json_text(a));
out:
	json_object_put(b);
	json_object_put(a);
	return er;
}

enum app_err
qops_key_create(struct db *db, const char *slug, const char *name,
    char **key, int64_t *id, struct qops_err *err,
    const struct principal *who)
{
	struct queue	*q = NULL;
	uint8_t		 raw[QOPS_KEY_RANDOM], hash[KEY_HASH_LEN];
	char		*b64, prefix[QOPS_KEY_SHOWN + 1];
	enum app_err	 er;

	err_init(err);
	*key = NULL;
	*id = 0;
	if (!may_manage(who))
		return forbid(err);
	if (!qops_name_valid(name))
		return refuse(err, APP_INVALID, QOPS_R_INVALID, QOPS_F_NAME);
	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (b64 = crypto_b64url_encode(raw, sizeof(raw))) == NULL)
		return failed(err, APP_CRYPTO);
	crypto_wipe(raw, sizeof(raw));
	*key = xasprintf("%s%s", QOPS_KEY_PREFIX, b64);
	qops_secret_free(b64);
	snprintf(prefix, sizeof(prefix), "%s", *key);
	if (crypto_sha256(*key, strlen(*key), hash) == -1) {
		er = APP_CRYPTO;
		goto out;
	}
	if ((er = db_begin(db)) != APP_OK)
		goto out;
	if ((er = db_queue_get_locked(db, slug, &q)) == APP_OK &&
	    (er = db_key_insert(db, q->id, name, hash, prefix, id)) ==
	    APP_OK &&
	    (er = audit_key(db, who, q, "key_create", *id, name, -1)) ==
	    APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
out:
	db_queue_free(q);
	if (er != APP_OK) {
		qops_secret_free(*key);
		*key = NULL;
		*id = 0;
		return failed(err, er);
	}
	return APP_OK;
}

enum app_err
qops_key_list(struct db *db, const char *slug, struct api_key **out,
    size_t *n, struct qops_err *err, const struct principal *who)
{
	struct queue	*q = NULL;
	int64_t		 queue_id = 0;
	enum app_err	 er;

	err_init(err);
	*out = NULL;
	*n = 0;
	if (!may_manage(who))
		return forbid(err);
	if (slug != NULL) {
		if ((er = db_queue_get(db, slug, &q)) != APP_OK)
			return failed(err, er);
		queue_id = q->id;
		db_queue_free(q);
	}
	return failed(err, db_key_list(db, queue_id, out, n));
}

enum app_err
qops_key_revoke(struct db *db, int64_t id, struct qops_err *err,
    const struct principal *who)
{
	struct api_key	 k;
	struct queue	*q = NULL;
	enum app_err	 er;

	err_init(err);
	if (!may_manage(who))
		return forbid(err);
	if ((er = db_begin(db)) != APP_OK)
		return failed(err, er);
	if ((er = db_key_get_locked(db, id, &k)) != APP_OK)
		goto out;
	if (k.revoked_ms != 0) {
		db_rollback(db);
		return APP_OK;
	}
	if ((er = db_queue_get(db, k.queue_slug, &q)) == APP_OK &&
	    (er = db_key_revoke(db, id)) == APP_OK &&
	    (er = audit_key(db, who, q, "key_revoke", id, k.name, 0)) ==
	    APP_OK)
		er = db_commit(db);
out:
	db_queue_free(q);
	if (er != APP_OK) {
		db_rollback(db);
		if (er == APP_NOTFOUND)
			return refuse(err, er, QOPS_R_KEY_NOT_FOUND, -1);
	}
	return failed(err, er);
}

enum app_err
qops_audit_list(struct db *db, const struct audit_filter *f,
    struct audit_entry **out, size_t *n, struct qops_err *err,
    const struct principal *who)
{
	struct audit_filter	 g = *f;

	err_init(err);
	*out = NULL;
	*n = 0;
	if (!known(who) || (who->kind == PRINCIPAL_KEY &&
	    (f->queue_id <= 0 || !qops_in_scope(who, f->queue_id))))
		return forbid(err);
	if (g.limit < 1)
		g.limit = 1;
	if (g.limit > 1000)
		g.limit = 1000;
	return failed(err, db_audit_list(db, &g, out, n));
}

int
qops_field_is_int(enum qops_field f)
{
	return f < QOPS_F__MAX && fields[f].type == FT_INT;
}

int
qops_field_is_text(enum qops_field f)
{
	return f < QOPS_F__MAX && fields[f].type == FT_STR;
}

int
qops_field_is_bool(enum qops_field f)
{
	return f < QOPS_F__MAX && fields[f].type == FT_BOOL;
}

int
qops_field_is_time(enum qops_field f)
{
	return f < QOPS_F__MAX && fields[f].type == FT_TIME;
}

enum app_err
qops_get_id(struct db *db, int64_t id, struct queue **out,
    struct qops_err *err)
{
	err_init(err);
	return failed(err, db_queue_get_id(db, id, out));
}

int
qops_field_range(enum qops_field f, int64_t *min, int64_t *max)
{
	if (f >= QOPS_F__MAX || fields[f].type != FT_INT)
		return 0;
	*min = fields[f].min;
	*max = fields[f].max;
	return 1;
}

int
qops_field_text(const struct queue *q, enum qops_field f, char *buf,
    size_t n)
{
	const char	*s = NULL;
	int64_t		 v = 0;
	int		 w;

	if (f >= QOPS_F__MAX)
		s = "";
	else if (field_get(q, f, &s, &v) && s == NULL)
		s = "";
	else if (s == NULL && fields[f].type == FT_BOOL)
		s = v ? "on" : "off";
	else if (s == NULL && fields[f].type == FT_TIME && v == 0)
		s = "";
	if (s != NULL)
		w = snprintf(buf, n, "%s", s);
	else
		w = snprintf(buf, n, "%lld", (long long)v);
	if (w < 0 || (size_t)w >= n) {
		if (n > 0)
			buf[0] = '\0';
		return -1;
	}
	return 0;
}
