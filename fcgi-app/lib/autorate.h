/*
 * autorate.h - auto-rate: a queue's admission rate regulated from its
 * shop's health.  The worker polls a health URL (health.h), reads the
 * response time and every numeric JSON field as a dotted path
 * ("metrics.cpuLoad"), judges the queue's rules ("responseTimeMs < 500")
 * and moves the rate: any rule broken -> cut by a percentage at once;
 * every rule holding with a margin (the hysteresis band) for the
 * cool-down -> raise by a step; always within [min, max]; an unreadable
 * sample holds the rate, and after N in a row drops it to min.
 *
 * This module has the settings (one field table for the CLI and the
 * API), the rules, the judging of a sample and the controller, all free
 * of I/O; and the operations (arops_*), one code path for the CLI, the
 * admin API and the worker.
 */
#ifndef AUTORATE_H
#define AUTORATE_H

#include <stddef.h>
#include <stdint.h>

#include "aqueue.h"
#include "fields.h"

struct cfg;
struct db;
struct principal;

#define AR_RULES_MAX	16	/* rules per queue */
#define AR_PATH_MAX	128	/* bytes of a dotted path */
#define AR_LEAVES_MAX	1000	/* scalar fields of a health document */
#define AR_DEPTH	16	/* nesting levels of a health document */
#define AR_SAMPLE_MAX	1024	/* bytes of a logged sample (JSON) */

/* The metric that is always there: the measured response time. */
#define AR_RESPONSE_TIME	"responseTimeMs"

enum ar_op {
	AR_LT,		/* <  */
	AR_LE,		/* <= (also U+2264) */
	AR_GT,		/* >  */
	AR_GE,		/* >= (also U+2265) */
	AR_OP__MAX
};

/* One rule: healthy while "value op threshold" holds. */
struct ar_rule {
	char		 path[AR_PATH_MAX];
	enum ar_op	 op;
	double		 threshold;
};

struct ar_rules {
	size_t		 n;
	struct ar_rule	 r[AR_RULES_MAX];
};

/*
 * Parse rules: "path op number" separated by ',', ';' or newlines (empty
 * ones skipped); path is AR_RESPONSE_TIME or segments of [A-Za-z0-9_-]
 * joined by '.'; op one of < <= > >= (or the UTF-8 signs U+2264,
 * U+2265); number a finite decimal ("0.8", "-3", "1e3"; no hex, inf or
 * nan).  Returns 0, or -1 with a reason in why (static text).
 */
int	 ar_rules_parse(const char *text, struct ar_rules *out,
	    const char **why);

/*
 * The normal form of rules: "path op number" joined by ", ", ASCII
 * operators, numbers in the shortest %g form that reads back exactly.
 * Writes at most size bytes (NUL included).  Can't fail (a short buffer
 * truncates).
 */
void	 ar_rules_format(const struct ar_rules *, char *buf, size_t size);

/* What a sample says about the shop. */
enum ar_state {
	AR_HEALTHY,	/* every rule holds outside the band */
	AR_BAND,	/* every rule holds, some within the band */
	AR_BROKEN,	/* some rule does not hold */
	AR_UNKNOWN,	/* the sample could not be read (reason says why) */
	AR_STATE__MAX
};

/* "healthy", "band", "unhealthy", "unknown".  Static.  Can't fail. */
const char *ar_state_name(enum ar_state);

/*
 * A judged sample.  reason is a static code: "ok", "rule_broken",
 * "in_band", or why it is unknown: "path_collision" (a key holds '.' or
 * an object names a member twice), "non_finite", "not_numeric",
 * "missing_path", "too_deep", "too_many_fields", "too_large",
 * "invalid_json", "blocked_redirect", "blocked_address",
 * "http_status", "unreachable", "timeout".  rule is the rule that
 * decided (broken, in the band, or unreadable), "" otherwise; sample
 * the rules' metrics as a JSON object.
 */
struct ar_eval {
	enum ar_state	 state;
	const char	*reason;
	char		 rule[200];
	int64_t		 response_ms;	/* -1 when there was no answer */
	int		 http_status;	/* 0 when there was no answer */
	char		 sample[AR_SAMPLE_MAX];
};

/*
 * Judge a health answer: response_ms and the body (len bytes, JSON
 * text) against rules, with the band in percent of each threshold's
 * magnitude (a "< 500" rule with band 10 raises only below 450).  The
 * body is parsed strictly (json-c, depth AR_DEPTH, the whole length,
 * no member name twice); a key holding '.' makes every path ambiguous
 * (path_collision); more than AR_LEAVES_MAX scalars is too_many_fields.
 * A metric that is missing, not a number (no string coercion), or not
 * finite is unknown, never healthy; fields that no rule names are
 * ignored whatever their type.  Integers beyond 2^53 are compared on
 * their exact value.  Fills *out.  Can't fail (out of memory reads as
 * unknown).
 */
void	 ar_judge(const struct ar_rules *, int64_t band_pct,
	    int64_t response_ms, const char *body, size_t len,
	    struct ar_eval *out);

/* The controller's settings (see arops fields) and memory. */
struct ar_ctl {
	int64_t	 rate_min, rate_max;	/* visitors per minute */
	int64_t	 step;			/* raise by, visitors per minute */
	int64_t	 cut_pct;		/* cut by, percent, 1..90 */
	int64_t	 cooldown_ms;		/* healthy this long to raise;
					   also the least time between
					   two cuts */
	int64_t	 failures_to_min;	/* unknown samples in a row */
};

struct ar_mem {
	int64_t	 failures;	/* unknown samples in a row */
	int64_t	 since_ms;	/* healthy (outside the band) since, or 0 */
	int64_t	 change_ms;	/* last change of the rate, or 0 */
	int64_t	 cut_ms;	/* last cut, or 0 */
};

enum ar_action {
	AR_A_HOLD,	/* no change */
	AR_A_RAISE,	/* + step */
	AR_A_CUT,	/* - cut_pct percent */
	AR_A_FREEZE,	/* unknown sample: no change */
	AR_A_MIN,	/* N unknown samples in a row: to rate_min */
	AR_A_CLAMP,	/* the rate was outside [min, max] */
	AR_A__MAX
};

/* "hold", "raise", "cut", "freeze", "min", "clamp".  Can't fail. */
const char *ar_action_name(enum ar_action);

/*
 * One step of the controller at now_ms for a sample in state st, with
 * the queue's rate: returns the action and sets *new_rate (equal to rate
 * for hold and freeze), always within [rate_min, rate_max]; updates
 * *mem.  A cut lowers by ceil(rate * cut_pct / 100) (at least 1) at
 * once, and again only after the cool-down (the shop needs time to
 * feel the first); a raise needs every rule to hold outside the band
 * for the cool-down since both the last change and the first such
 * sample; a sample in the band holds (the hysteresis that keeps a shop
 * at a threshold from making the rate flap); an unknown sample freezes
 * the rate and never counts as healthy.  Can't fail.
 */
enum ar_action ar_decide(const struct ar_ctl *, struct ar_mem *,
	    enum ar_state st, int64_t now_ms, int64_t rate,
	    int64_t *new_rate);

/* ---- settings and operations ------------------------------------------ */

enum ar_field {
	AR_F_URL,		/* health URL */
	AR_F_ALLOW_PRIVATE,	/* 0/1: private and loopback shops */
	AR_F_INTERVAL,		/* seconds between polls */
	AR_F_RULES,		/* rules text */
	AR_F_MIN,		/* lowest rate */
	AR_F_MAX,		/* highest rate */
	AR_F_STEP,		/* raise step */
	AR_F_CUT,		/* cut percent */
	AR_F_COOLDOWN,		/* seconds */
	AR_F_BAND,		/* hysteresis band, percent */
	AR_F_FAILURES,		/* unknown samples before min */
	AR_F_DRY_RUN,		/* 0/1: decide and log only */
	AR_F__MAX
};

#define AR_BIT(f)	(1u << (f))

/*
 * The auto-rate settings' table (the field engine, fields.h): AR_F__MAX
 * rows indexed by enum ar_field, each naming its API member, CLI
 * option, console label, struct ar_settings member, column, range,
 * default and rule.  Request and row are both a struct ar_settings.
 * Adding a setting: a value of enum ar_field, a member of struct
 * ar_settings, a row in autorate-ops.c, a migration adding the column
 * and its place in db-worker.c's statements, a test.
 */
extern const struct fld autorate_fields[];

/* A queue's auto-rate settings and what the worker keeps of it. */
struct ar_settings {
	int64_t		 queue_id;
	int64_t		 enabled;
	int64_t		 dry_run;
	char		 url[2049];
	int64_t		 allow_private;
	int64_t		 interval_s;
	char		 rules[2049];
	int64_t		 rate_min, rate_max, step, cut_pct, cooldown_s;
	int64_t		 band_pct, failures_to_min;
	int64_t		 tested_ms;	/* last passing test, 0: none */
	char		 tested_result[1025];	/* JSON of that test */
	int64_t		 poll_ms;	/* last poll, 0: none */
	struct ar_mem	 mem;
	int64_t		 updated_ms;
};

/* Defaults of a queue that never had auto-rate settings. */
void	 ar_settings_default(struct ar_settings *, int64_t queue_id);

/* The ar_ctl of settings (cool-down in ms). */
void	 ar_settings_ctl(const struct ar_settings *, struct ar_ctl *);

/*
 * The table row of field f: its CLI option without "--" ("health-url"),
 * its API key ("healthUrl"), what a valid value is (rule) and the rest
 * (fields.h); a row of empty names when f is out of range.  Static.
 * Can't fail.
 */
const struct fld *ar_field(enum ar_field f);
/* The field whose option or API key is name, or -1. */
int	 ar_field_find(const char *name);

/* Why an operation failed: code as an API's "error", the field at fault
 * (-1 for none), a message for people, the HTTP status to answer. */
struct ar_err {
	const char	*code;	/* "invalid_value", "invalid_health_url",
				   "invalid_rules", "queue_not_found",
				   "test_required", "unavailable",
				   "internal" */
	int		 field;
	int		 status;
	char		 message[256];
};

/*
 * Set field f of *s from text (integers: parse_int64 within the field's
 * range; 0/1 and true/false for flags; strings as they are, checked by
 * arops_set; any text that is not well-formed UTF-8 is refused).
 * Returns APP_OK, or APP_INVALID with *err filled.
 */
enum app_err	 ar_field_set(struct ar_settings *, unsigned int *set,
		    enum ar_field f, const char *text, struct ar_err *err);

/*
 * The settings of queue slug (defaults when it has none yet).
 * Returns APP_OK, APP_NOTFOUND, APP_DB or APP_DB_DOWN (err filled).
 */
enum app_err	 arops_get(struct db *, const char *slug,
		    struct ar_settings *out, struct ar_err *err);

/*
 * Change the fields in set (bits of AR_BIT) of queue slug to those of
 * *in, after checking the whole result: each field's range, min <= max,
 * the URL (health_url_check()), the rules (ar_rules_parse(), stored in
 * normal form).  A change of the URL, the rules or allow-private drops
 * the passing test and turns auto-rate off (it needs a new test).
 * Returns APP_OK, APP_INVALID, APP_NOTFOUND, APP_DB or APP_DB_DOWN;
 * nothing is written on failure.
 *
 * arops_set, arops_test and arops_enable act for who: refused with
 * APP_INVALID, code "forbidden" (403) when who is NULL, nobody, or an
 * API key of another queue (qops_in_scope()); set and enable write an
 * audit row ("autorate_update", "autorate_enable", "autorate_disable",
 * the settings before and after) in the change's transaction.
 */
enum app_err	 arops_set(struct db *, const char *slug,
		    const struct ar_settings *in, unsigned int set,
		    struct ar_err *err, const struct principal *who);

/*
 * The one-time test: poll the health URL now and judge the answer with
 * the queue's rules (with c's timeouts and size cap).  Passing means
 * every rule's metric was read (state healthy, band or unhealthy); it
 * is recorded (tested_ms, tested_result) and logged.  Fills *ev.
 * Returns APP_OK (pass or fail: see ev->state), APP_INVALID (no URL or
 * rules yet), APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err	 arops_test(struct db *, const struct cfg *c,
		    const char *slug, struct ar_eval *ev, struct ar_err *err,
		    const struct principal *who);

/*
 * Turn auto-rate on (needs a passing test of the current URL and rules,
 * else APP_INVALID with code "test_required", status 409) or off.
 * Returns APP_OK, APP_INVALID, APP_NOTFOUND, APP_DB or APP_DB_DOWN.
 */
enum app_err	 arops_enable(struct db *, const char *slug, int on,
		    struct ar_err *err, const struct principal *who);

/*
 * The settings as a new JSON object (API keys as names; rules as the
 * normal-form text); the caller puts it.  NULL when out of memory.
 */
struct json_object *ar_settings_json(const struct ar_settings *,
		    const char *slug);

/*
 * The latest log entries of queue slug, newest first, at most limit
 * (1..1000), as a new JSON array the caller puts.  Returns APP_OK,
 * APP_NOTFOUND, APP_DB, APP_DB_DOWN, APP_ENOMEM.
 */
enum app_err	 arops_log(struct db *, const char *slug, int64_t limit,
		    struct json_object **out, struct ar_err *err);

/* The judged sample as a new JSON object.  NULL when out of memory. */
struct json_object *ar_eval_json(const struct ar_eval *);

#endif /* AUTORATE_H */
