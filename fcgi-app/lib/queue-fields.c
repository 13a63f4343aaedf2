/*
 * queue-fields.c - the settings of a queue (see queue-fields.h): the
 * field table, its validators, and the settings of a row as text and
 * JSON.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admission.h"
#include "aqueue.h"
#include "fields.h"
#include "pow.h"
#include "queue-fields.h"
#include "urlcheck.h"

/* The validators of the table, as the field engine calls them. */
static int	 valid_name(const char *, int64_t);
static int	 valid_target(const char *, int64_t);
static int	 valid_domains(const char *, int64_t);
static int	 valid_image(const char *, int64_t);
static int	 valid_message(const char *, int64_t);
static int	 valid_accent(const char *, int64_t);
static int	 valid_json_status(const char *, int64_t);
static int	 valid_json_cookie(const char *, int64_t);
static int	 valid_method(const char *, int64_t);
static char	*accent_lower(const char *);

/* Offsets of member m in a change request and in a stored row. */
#define AT(m)	.off = offsetof(struct qops_spec, m), \
		.roff = offsetof(struct queue, m)

const struct fld queue_fields[QOPS_F__MAX] = {
	[QOPS_F_NAME] = {
		.key = "name", .opt = "name", .label = "Name",
		.ctl = FLD_CTL_TEXT, .type = FLD_TEXT, AT(name),
		.column = "name", .min = 1, .max = NAME_MAX_CHARS,
		.valid = valid_name,
		.rule = "1-200 characters of UTF-8, not blank, without "
		    "control characters" },
	[QOPS_F_TARGET] = {
		.key = "targetUrl", .opt = "target",
		.label = "Target URL (the shop)", .ctl = FLD_CTL_URL,
		.type = FLD_TEXT, AT(target_url), .column = "target_url",
		.max = URL_MAX, .def = "", .valid = valid_target,
		.rule = "an http(s) URL with a host and without "
		    "user:password@ (at most 2048 bytes), or empty for none",
		.flags = FLD_EMPTY_OK | FLD_NULL_EMPTY },
	[QOPS_F_DOMAINS] = {
		.key = "shopDomains", .opt = "domains",
		.label = "Shop domains", .ctl = FLD_CTL_TEXT,
		.type = FLD_TEXT, AT(shop_domains), .column = "shop_domains",
		.max = DOMAINS_MAX_CHARS, .def = "", .valid = valid_domains,
		.norm = qops_domains_normalise,
		.rule = "a list of at most 32 entries host[:port] (https) or "
		    "http://host[:port], separated by commas or spaces" },
	[QOPS_F_RATE] = {
		.key = "ratePerMinute", .opt = "rate",
		.label = "Admission rate", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(rate), .column = "rate_per_minute",
		.min = ADM_RATE_MIN, .max = ADM_RATE_MAX,
		.rule = "an integer from 1 to 1000000",
		.unit = "visitors per minute", .flags = FLD_STATE },
	[QOPS_F_BURST] = {
		.key = "burst", .opt = "burst", .label = "Burst",
		.ctl = FLD_CTL_NUMBER, .type = FLD_INT, AT(burst),
		.column = "burst", .min = 0, .max = ADM_BURST_MAX, .def = "0",
		.rule = "an integer from 0 (the default: rate / 6) to "
		    "1000000",
		.unit = "visitors", .flags = FLD_STATE },
	[QOPS_F_TOKEN_TTL] = {
		.key = "tokenTtlSeconds", .opt = "token-ttl",
		.label = "Session duration", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(token_ttl_s), .column = "token_ttl_s",
		.min = 1, .max = TOKEN_TTL_MAX, .def = "600",
		.rule = "an integer from 1 to 86400 (how long an access token "
		    "is valid)", .unit = "seconds" },
	[QOPS_F_SESSION_RENEWAL] = {
		.key = "sessionRenewal", .opt = "session-renewal",
		.label = "Session renewal", .ctl = FLD_CTL_CHECKBOX,
		.type = FLD_BOOL, AT(session_renewal),
		.column = "session_renewal", .min = 0, .max = 1, .def = "off",
		.rule = "on or off (true or false, 1 or 0): a visitor who "
		    "holds a valid token may exchange it for one valid for "
		    "another session duration (POST /queue/<slug>/renew; "
		    "embed.js does it while the visitor is active)" },
	[QOPS_F_TOTAL_ACTIVE] = {
		.key = "totalActiveUsers", .opt = "total-active-users",
		.label = "Total active users", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(total_active_users),
		.column = "total_active_users", .min = 0, .max = ADM_CAP_MAX,
		.def = "0",
		.rule = "0 for no cap, or an integer up to 10000000, at least "
		    "2 * ceil(session duration / 60 s) + 2: visitors admitted "
		    "within any session duration, at most (the rate and burst "
		    "are lowered to keep it)", .unit = "visitors" },
	[QOPS_F_CLAIM_WINDOW] = {
		.key = "claimWindowSeconds", .opt = "claim-window",
		.label = "Claim window", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(claim_window_s),
		.column = "claim_window_s", .min = ADM_CLAIM_MIN_S,
		.max = ADM_CLAIM_MAX_S, .def = "600",
		.rule = "an integer from 1 to 86400 (seconds after admission "
		    "in which a ticket obtains tokens)",
		.unit = "seconds", .flags = FLD_STATE },
	[QOPS_F_HEADER_IMAGE] = {
		.key = "headerImageUrl", .opt = "header-image",
		.label = "Header image", .ctl = FLD_CTL_URL,
		.type = FLD_TEXT, AT(header_image_url),
		.column = "header_image_url", .max = URL_MAX, .def = "",
		.valid = valid_image,
		.rule = "an https URL of the waiting room's header image "
		    "(wide; shown up to 460 px wide, 190 px high), or empty "
		    "for none",
		.flags = FLD_EMPTY_OK },
	[QOPS_F_DISPLAY_NAME] = {
		.key = "displayName", .opt = "display-name",
		.label = "Name shown to visitors", .ctl = FLD_CTL_TEXT,
		.type = FLD_TEXT, AT(display_name), .column = "display_name",
		.max = NAME_MAX_CHARS, .def = "", .valid = valid_name,
		.rule = "the name visitors see, 1-200 characters as name, or "
		    "empty for the name",
		.flags = FLD_EMPTY_OK },
	[QOPS_F_MESSAGE] = {
		.key = "message", .opt = "message", .label = "Message",
		.ctl = FLD_CTL_TEXTAREA, .type = FLD_TEXT, AT(message),
		.column = "message", .max = LOOK_MESSAGE_MAX, .def = "",
		.valid = valid_message,
		.rule = "plain text of at most 2000 characters shown in the "
		    "waiting room (line breaks kept), or empty",
		.flags = FLD_EMPTY_OK },
	[QOPS_F_ACCENT] = {
		.key = "accentColor", .opt = "accent",
		.label = "Accent colour", .ctl = FLD_CTL_COLOR,
		.type = FLD_TEXT, AT(accent), .column = "accent_color",
		.max = 7, .def = "", .valid = valid_accent,
		.norm = accent_lower,
		.rule = "a colour #rrggbb for the progress bar and live dot, "
		    "or empty for the default",
		.flags = FLD_EMPTY_OK },
	[QOPS_F_JSON_STATUS] = {
		.key = "jsonQueuedStatus", .opt = "json-status",
		.label = "JSON mode: status while queued",
		.ctl = FLD_CTL_STATUS, .type = FLD_INT,
		AT(json_queued_status), .column = "json_queued_status",
		.min = 200, .max = 429, .def = "200",
		.valid = valid_json_status,
		.rule = "200, 202 or 429: the HTTP status of a queued "
		    "visitor's answer in JSON mode" },
	[QOPS_F_JSON_COOKIE] = {
		.key = "jsonCookieSuffix", .opt = "json-cookie",
		.label = "JSON mode: cookie name suffix",
		.ctl = FLD_CTL_TEXT, .type = FLD_TEXT, AT(json_cookie),
		.column = "json_cookie", .max = 32, .def = "",
		.valid = valid_json_cookie,
		.rule = "1-32 characters of A-Z a-z 0-9 _ -: the JSON mode's "
		    "cookie is aditus_wr_<this>; empty for aditus_wr_<slug>",
		.flags = FLD_EMPTY_OK },
	[QOPS_F_OPENS_AT] = {
		.key = "opensAt", .opt = "opens-at",
		.label = "Scheduled opening", .ctl = FLD_CTL_DATETIME,
		.type = FLD_TIME, AT(opens_at_ms), .column = "opens_at_ms",
		.def = "none",
		.rule = "a time in the future, as Unix milliseconds or ISO "
		    "8601 with a zone (e.g. 2026-12-01T09:00:00Z); only on a "
		    "queue that has issued no number yet or whose pre-queue "
		    "is still collecting; none cancels an opening whose "
		    "pre-queue is still empty",
		.flags = FLD_STATE },
	[QOPS_F_ABANDON] = {
		.key = "abandonment", .opt = "abandon",
		.label = "Abandonment detection", .ctl = FLD_CTL_CHECKBOX,
		.type = FLD_BOOL, AT(abandon), .column = "abandon",
		.min = 0, .max = 1, .def = "off",
		.rule = "on or off (true or false, 1 or 0)" },
	[QOPS_F_ABANDON_GRACE] = {
		.key = "abandonGraceSeconds", .opt = "abandon-grace",
		.label = "Abandonment grace period", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(abandon_grace_s),
		.column = "abandon_grace_s", .min = ABANDON_GRACE_MIN_S,
		.max = ABANDON_GRACE_MAX_S, .def = "180",
		.rule = "an integer from 60 to 3600 (seconds of silence after "
		    "which a waiting number counts as abandoned)",
		.unit = "seconds" },
	[QOPS_F_POW] = {
		.key = "powEnabled", .opt = "pow",
		.label = "Proof of work before a number",
		.ctl = FLD_CTL_CHECKBOX, .type = FLD_BOOL, AT(pow_enabled),
		.column = "pow_enabled", .min = 0, .max = 1, .def = "off",
		.rule = "on or off (true or false, 1 or 0): every join first "
		    "solves a small computation (the hosted page does it), "
		    "and nobody passes below the rate without the waiting "
		    "room" },
	[QOPS_F_POW_BITS] = {
		.key = "powBits", .opt = "pow-bits",
		.label = "Proof of work difficulty", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(pow_bits), .column = "pow_bits",
		.min = POW_BITS_MIN, .max = POW_BITS_MAX, .def = "15",
		.rule = "an integer from 8 to 24: leading zero bits of the "
		    "solution's SHA-256 (each bit doubles the work)",
		.unit = "bits" },
	[QOPS_F_METHOD] = {
		.key = "queuingMethod", .opt = "method",
		.label = "Queuing method", .ctl = FLD_CTL_METHOD,
		.type = FLD_TEXT, AT(method), .column = "queuing_method",
		.max = 16, .def = "fifo", .valid = valid_method,
		.rule = "fifo (admitted in join order at the rate), random "
		    "(admitted at the rate in a random order within blocks "
		    "of 10 seconds' admissions; not with totalActiveUsers or "
		    "a scheduled opening, and not again before the numbers "
		    "of the last random order have passed their claim "
		    "window), passthrough (everyone admitted at once) or "
		    "hold (numbers taken, nobody new admitted)" },
	[QOPS_F_LOAD_TEST] = {
		.key = "loadTestQueue", .opt = "load-test-queue",
		.label = "Test queue for load tests", .ctl = FLD_CTL_CHECKBOX,
		.type = FLD_BOOL, AT(load_test_queue),
		.column = "load_test_queue", .min = 0, .max = 1, .def = "off",
		.rule = "on or off (true or false, 1 or 0): load tests may run "
		    "against this queue (a load test on any other queue is "
		    "refused); a test queue is for load tests only" },
	[QOPS_F_NUMBER_BLOCK] = {
		.key = "numberBlock", .opt = "number-block",
		.label = "Number block", .ctl = FLD_CTL_NUMBER,
		.type = FLD_INT, AT(number_block), .column = "number_block",
		.min = 0, .max = NUMBER_BLOCK_MAX, .def = "0",
		.rule = "an integer from 0 to 1000: 0 (off) gives each join "
		    "its number with one write; above 1, each pool process "
		    "takes up to that many numbers with one write and hands "
		    "them out in arrival order for at most 50 ms (joins of "
		    "different processes within 50 ms may then be ordered "
		    "either way; numbers handed to nobody are passed over)",
		.unit = "numbers" },
	[QOPS_F_ACTIVE] = {
		.key = "active", .opt = "active", .label = "Admitting",
		.ctl = FLD_CTL_CHECKBOX, .type = FLD_BOOL, AT(active),
		.column = "active", .min = 0, .max = 1, .def = "on",
		.rule = "true (admitting) or false (paused)",
		.flags = FLD_STATE | FLD_ACTION },
};

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

int
qops_method_valid(const char *s)
{
	return s != NULL && (strcmp(s, "fifo") == 0 ||
	    strcmp(s, "passthrough") == 0 || strcmp(s, "hold") == 0 ||
	    strcmp(s, "random") == 0);
}

/* The stored form of a valid accent colour: lower case.  As norm. */
static char *
accent_lower(const char *text)
{
	char	*c, *v;

	if ((v = try_strndup(text, strlen(text))) == NULL)
		return NULL;
	for (c = v; *c != '\0'; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	return v;
}

static int
valid_name(const char *text, int64_t v)
{
	(void)v;
	return qops_name_valid(text);
}

static int
valid_target(const char *text, int64_t v)
{
	(void)v;
	return qops_target_valid(text);
}

static int
valid_domains(const char *text, int64_t v)
{
	char	*d;

	(void)v;
	if ((d = qops_domains_normalise(text)) == NULL)
		return 0;
	free(d);
	return 1;
}

static int
valid_image(const char *text, int64_t v)
{
	(void)v;
	return qops_image_valid(text);
}

static int
valid_message(const char *text, int64_t v)
{
	(void)v;
	return qops_message_valid(text);
}

static int
valid_accent(const char *text, int64_t v)
{
	(void)v;
	return qops_accent_valid(text);
}

static int
valid_json_status(const char *text, int64_t v)
{
	(void)text;
	return qops_json_status_valid(v);
}

static int
valid_json_cookie(const char *text, int64_t v)
{
	(void)v;
	return qops_json_cookie_valid(text);
}

static int
valid_method(const char *text, int64_t v)
{
	(void)v;
	return qops_method_valid(text);
}

const struct fld *
qops_field(enum qops_field f)
{
	return fld_at(queue_fields, QOPS_F__MAX, (int)f);
}

int
qops_field_find(const char *name)
{
	return fld_find(queue_fields, QOPS_F__MAX, name);
}

int
qops_field_is_int(enum qops_field f)
{
	return f < QOPS_F__MAX && queue_fields[f].type == FLD_INT;
}

int
qops_field_is_text(enum qops_field f)
{
	return f < QOPS_F__MAX && queue_fields[f].type == FLD_TEXT;
}

int
qops_field_is_bool(enum qops_field f)
{
	return f < QOPS_F__MAX && queue_fields[f].type == FLD_BOOL;
}

int
qops_field_is_time(enum qops_field f)
{
	return f < QOPS_F__MAX && queue_fields[f].type == FLD_TIME;
}

int
qops_field_range(enum qops_field f, int64_t *min, int64_t *max)
{
	if (!qops_field_is_int(f))
		return 0;
	*min = queue_fields[f].min;
	*max = queue_fields[f].max;
	return 1;
}

void
qops_view(struct queue *q)
{
	struct adm_queue	 st;

	adm_settled(&q->adm, &st);
	q->rate = st.rate_per_minute;
	q->burst = st.burst;
	q->claim_window_s = st.claim_window_s;
	q->opens_at_ms = st.opens_at_ms;
	q->active = st.active != ADM_SEG_PAUSED;
}

int
qops_field_text(const struct queue *q, enum qops_field f, char *buf,
    size_t n)
{
	const char	*s;

	if (n == 0)
		return -1;
	buf[0] = '\0';
	if (f >= QOPS_F__MAX)
		return 0;
	fld_text(&queue_fields[f], q, FLD_AT_ROW, buf, n);
	/* A text cut short: nothing rather than part of it. */
	if ((s = fld_str(&queue_fields[f], q, FLD_AT_ROW)) != NULL &&
	    strlen(s) >= n) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

struct json_object *
qops_queue_fields(const struct queue *q)
{
	struct json_object	*o, *v;
	int			 f, bad = 0;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	for (f = 0; f < QOPS_F__MAX; f++) {
		v = fld_to_json(&queue_fields[f], q, FLD_AT_ROW);
		if (json_object_object_add(o, queue_fields[f].key, v) != 0)
			bad = 1;
	}
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int
qops_field_stored(enum qops_field f)
{
	return f < QOPS_F__MAX && !(queue_fields[f].flags & FLD_STATE);
}

int
qops_sql(enum qops_sql kind, char *buf, size_t n)
{
	size_t	 len = 0;
	int	 f, cols = 0, w;

	if (n == 0)
		return -1;
	buf[0] = '\0';
	for (f = 0; f < QOPS_F__MAX; f++) {
		if (!qops_field_stored((enum qops_field)f))
			continue;
		if (kind == QOPS_SQL_COLS)
			w = snprintf(buf + len, n - len, "%s%s",
			    cols > 0 ? ", " : "", queue_fields[f].column);
		else if (kind == QOPS_SQL_SET)
			w = snprintf(buf + len, n - len, "%s%s = ?",
			    cols > 0 ? ", " : "", queue_fields[f].column);
		else
			w = snprintf(buf + len, n - len, "%s?",
			    cols > 0 ? ", " : "");
		if (w < 0 || (size_t)w >= n - len)
			return -1;
		len += (size_t)w;
		cols++;
	}
	return cols;
}
