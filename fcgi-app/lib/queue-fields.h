/*
 * queue-fields.h - the settings of a queue: one row per setting in one
 * table (queue_fields[], the field engine of fields.h), from which the
 * change request (struct qops_spec), the stored row (struct queue), the
 * database columns (db-queue.c writes a row with one UPDATE generated
 * from the table), the admin API's site object, the CLI's options and
 * output, the console's form and the audit log's before and after all
 * follow.
 *
 * Adding a setting:
 *   1. a value of enum qops_field below, a member of struct qops_spec and
 *      of struct queue (below) of the row's type;
 *   2. one row of queue_fields[] in queue-fields.c: API member, CLI
 *      option, console label and control, both offsets, column, range,
 *      default, validator (write one if the rule is new), rule, unit;
 *   3. a migration adding the column (migrations/, listed in
 *      Makefile.am), its entry in man/aqueuectl.8 (Queue options) and in
 *      static/openapi.json (SiteSettings);
 *   4. a test of its values; test/unit/test-fields.c holds the table,
 *      the schema, the OpenAPI document and aqueuectl(8) to the same
 *      names.
 * Settings of the admission state (FLD_STATE: rate, burst, claim window,
 * opening, active) are applied through the admission module by
 * queue-ops.c; every other setting is copied as it is (with the
 * normalisations in qops_apply()).
 */
#ifndef QUEUE_FIELDS_H
#define QUEUE_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "admission.h"
#include "aqueue.h"
#include "fields.h"

struct json_object;

#define SLUG_MAX	63	/* [a-z0-9] then [a-z0-9-], bytes */
#define NAME_MAX_CHARS	200	/* display name, characters */
#define SEALED_MAX	255	/* sealed secret blob, bytes */
#define SECRET_LEN	43	/* shown secret: base64url of 32 bytes */
#define TICKET_KEY_LEN	32	/* bytes */
#define LOOK_MESSAGE_MAX 2000	/* waiting room message, characters */
#define DOMAINS_MAX_CHARS 8192	/* shop domains list, characters */
/* Abandonment detection's grace period (abandon.h). */
#define ABANDON_GRACE_MIN_S	60	/* seconds */
#define ABANDON_GRACE_MAX_S	3600	/* seconds */
#define ABANDON_GRACE_DEF_S	180	/* seconds */


/*
 * One queue row: the settings of the table below (each at its roff),
 * the admission state, the keys and the draw's seed.  A row read from
 * the database (db_queue_get()) owns its texts; every text setting but
 * the target (NULL when none) is a string, "" when not set.
 */
struct queue {
	int64_t		 id;
	char		*slug;
	char		*name;
	char		*target_url;	/* NULL when not configured */
	char		*shop_domains;	/* the list as configured */
	int64_t		 token_ttl_s;		/* the session duration */
	int64_t		 session_renewal;	/* POST /renew on (1) */
	int64_t		 total_active_users;	/* cap; 0 = none */
	struct adm_queue adm;		/* the admission state */
	uint8_t		 secret_sealed[SEALED_MAX];
	size_t		 secret_sealed_len;
	uint8_t		 ticket_key_sealed[SEALED_MAX];
	size_t		 ticket_key_sealed_len;
	/* What visitors see ("" = not set; never NULL in a filled row). */
	char		*header_image_url;	/* https URL */
	char		*display_name;		/* shown instead of name */
	char		*message;		/* plain text, line breaks */
	char		*accent;		/* "#rrggbb", lower case */
	int64_t		 json_queued_status;	/* 200, 202 or 429 */
	char		*json_cookie;		/* cookie name suffix */
	/* Scheduled opening (adm holds the time and the pre-queue): */
	uint8_t		 draw_seed_sealed[SEALED_MAX];
	size_t		 draw_seed_sealed_len;	/* 0: no seed yet */
	char		 draw_seed_hash[65];	/* hex SHA-256, "" if none */
	int64_t		 abandon;		/* detection on (1) or off */
	int64_t		 abandon_grace_s;	/* its grace period */
	int64_t		 pow_enabled;		/* proof of work on (1) */
	int64_t		 pow_bits;		/* its difficulty (pow.h) */
	char		*method;		/* queuing method: "fifo" ... */
	int64_t		 load_test_queue;	/* load tests may run (1) */
	int64_t		 number_block;		/* lease size; 0 = off */
	/*
	 * The admission settings as an operator sees them (the queue field
	 * table, queue-fields.h): adm with its scheduled change applied
	 * (adm_settled()), set when the row is read (qops_view()).
	 */
	int64_t		 rate;		/* visitors per minute */
	int64_t		 burst;		/* 0: the default */
	int64_t		 claim_window_s;
	int64_t		 opens_at_ms;	/* 0: no opening */
	int64_t		 active;	/* 1 admitting, 0 paused */
};

enum qops_field {
	QOPS_F_NAME,		/* display name */
	QOPS_F_TARGET,		/* target URL; "" = none */
	QOPS_F_DOMAINS,		/* shop domains list */
	QOPS_F_RATE,		/* visitors per minute */
	QOPS_F_BURST,		/* burst allowance; 0 = default */
	QOPS_F_TOKEN_TTL,	/* session duration (token lifetime), s */
	QOPS_F_SESSION_RENEWAL,	/* an active visitor renews the token (1) */
	QOPS_F_TOTAL_ACTIVE,	/* admissions per session duration; 0 none */
	QOPS_F_CLAIM_WINDOW,	/* claim window after admission, seconds */
	QOPS_F_HEADER_IMAGE,	/* waiting room header image (https); "" none */
	QOPS_F_DISPLAY_NAME,	/* shown to visitors; "" = the name */
	QOPS_F_MESSAGE,		/* waiting room message, plain text */
	QOPS_F_ACCENT,		/* accent colour "#rrggbb"; "" = default */
	QOPS_F_JSON_STATUS,	/* JSON mode: status of a queued answer */
	QOPS_F_JSON_COOKIE,	/* JSON mode: cookie name suffix; "" slug */
	QOPS_F_OPENS_AT,	/* scheduled opening, Unix ms (draw.h) */
	QOPS_F_ABANDON,		/* abandonment detection on (1) or off (0) */
	QOPS_F_ABANDON_GRACE,	/* its grace period, seconds */
	QOPS_F_POW,		/* proof of work before a join (1) or not */
	QOPS_F_POW_BITS,	/* its difficulty, leading zero bits */
	QOPS_F_METHOD,		/* queuing method: fifo, passthrough, hold */
	QOPS_F_LOAD_TEST,	/* a test queue: load tests may run on it (1) */
	QOPS_F_NUMBER_BLOCK,	/* numbers a pool process leases; 0 = off */
	QOPS_F_ACTIVE,		/* admitting (1) or paused (0) */
	QOPS_F__MAX
};

#define QOPS_BIT(f)	(1u << (f))

/*
 * A create or update request: only the fields whose QOPS_BIT is in set
 * are used.  Strings are borrowed: they must outlive the call.
 */
struct qops_spec {
	unsigned int	 set;
	const char	*name;
	const char	*target_url;
	const char	*shop_domains;
	int64_t		 rate;
	int64_t		 burst;
	int64_t		 token_ttl_s;
	int64_t		 session_renewal;
	int64_t		 total_active_users;
	int64_t		 claim_window_s;
	const char	*header_image_url;
	const char	*display_name;
	const char	*message;
	const char	*accent;
	int64_t		 json_queued_status;
	const char	*json_cookie;
	int64_t		 opens_at_ms;
	int64_t		 abandon;
	int64_t		 abandon_grace_s;
	int64_t		 pow_enabled;
	int64_t		 pow_bits;
	const char	*method;
	int64_t		 load_test_queue;
	int64_t		 number_block;
	int64_t		 active;
};

/* The table: QOPS_F__MAX rows, indexed by enum qops_field. */
extern const struct fld queue_fields[QOPS_F__MAX];

#define TOKEN_TTL_MAX	86400	/* seconds */
#define TOKEN_TTL_DEF	600	/* seconds */
#define NUMBER_BLOCK_MAX 1000	/* numbers per lease */

/*
 * The table row of field f: its command-line option without "--"
 * ("token-ttl"), its API key ("tokenTtlSeconds"), what a valid value
 * is (rule: "an integer from 1 to 86400"), its console label and the
 * rest (fields.h); a row of empty names when f is out of range.
 * Static.  Can't fail.
 */
const struct fld	*qops_field(enum qops_field f);

/* The field whose option name (or API key) is name, or -1. */
int		 qops_field_find(const char *name);

/*
 * The type of field f (int, text, yes/no, time): 1 or 0.  The range of
 * an integer field into *min and *max: returns 1, or 0 for another type.
 */
int		 qops_field_is_int(enum qops_field f);
int		 qops_field_is_text(enum qops_field f);
int		 qops_field_is_bool(enum qops_field f);
int		 qops_field_is_time(enum qops_field f);
int		 qops_field_range(enum qops_field f, int64_t *min,
		    int64_t *max);

/*
 * Set the operator's view of q's admission settings (rate, burst, claim
 * window, opening, active) from its admission state with any scheduled
 * change applied (adm_settled()).  Call it after reading or changing
 * the state.  Can't fail.
 */
void		 qops_view(struct queue *q);

/*
 * Field f of queue q as text into buf of size n (what a form shows and
 * qops_spec_set() takes back): an integer in decimal, a yes/no "on" or
 * "off", a time Unix ms or "" for none, a text as stored ("" for a
 * target not set).  Returns 0, or -1 when it did not fit (buf is then
 * "").
 */
int		 qops_field_text(const struct queue *q, enum qops_field f,
		    char *buf, size_t n);

/*
 * The settings of q as a new JSON object keyed by the API names of the
 * field table: what the audit log compares and what the admin API shows.
 * Never a secret.  Returns NULL only when memory ran out.
 */
struct json_object *qops_queue_fields(const struct queue *q);

/*
 * The settings stored by column (the rows without FLD_STATE, in table
 * order) as SQL into buf of n bytes, for the statements of db-stmt.c that
 * read and write a whole row: QOPS_SQL_COLS "name, target_url, ...",
 * QOPS_SQL_SET "name = ?, target_url = ?, ...", QOPS_SQL_MARKS "?, ?,
 * ...".  Returns the number of columns (parameters), or -1 when buf is
 * too small.
 */
enum qops_sql {
	QOPS_SQL_COLS,
	QOPS_SQL_SET,
	QOPS_SQL_MARKS
};
int		 qops_sql(enum qops_sql kind, char *buf, size_t n);

/* Whether row f is stored by its column alone.  Returns 1 or 0. */
int		 qops_field_stored(enum qops_field f);

/*
 * Validators.  qops_name_valid: 1 to NAME_MAX_CHARS characters of UTF-8,
 * not blank, no control characters (C0, DEL, C1), no bidirectional
 * embedding, override or isolate, no line or paragraph separator.
 * qops_target_valid: an absolute http(s) URL of printable ASCII, at most
 * URL_MAX bytes, with a host and no userinfo (credentials would be
 * handed to every visitor).  Return 1 or 0.
 */
int		 qops_name_valid(const char *name);
int		 qops_target_valid(const char *url);

/*
 * Validators of what visitors see.  qops_image_valid: "" or an absolute
 * https URL as qops_target_valid (the page's CSP allows its origin).
 * qops_message_valid: at most LOOK_MESSAGE_MAX characters of UTF-8,
 * control characters refused except line breaks (LF, CR LF), and what
 * qops_name_valid refuses beyond them.
 * qops_accent_valid: "" or "#rrggbb" (hex digits of either case; stored
 * in lower case).  qops_json_status_valid: 200, 202 or 429.  Return 1
 * or 0.
 */
int		 qops_image_valid(const char *url);
int		 qops_message_valid(const char *text);
int		 qops_accent_valid(const char *colour);
int		 qops_json_status_valid(int64_t status);

/*
 * qops_json_cookie_valid: "" or 1-32 characters of A-Z a-z 0-9 _ -
 * (a cookie name token of RFC 6265, section 4.1.1).  Returns 1 or 0.
 */
int		 qops_json_cookie_valid(const char *suffix);

/*
 * qops_method_valid: a queuing method: "fifo", "random", "passthrough"
 * or "hold".
 * Returns 1 or 0.
 */
int		 qops_method_valid(const char *method);

/*
 * The shop domains list in its normal form: entries as parsed by
 * url_shop_domains_parse() (urlcheck.h), written "host[:port]" for https and
 * "http://host[:port]" for http, lower case, without the scheme's default
 * port, in the given order, duplicates dropped, separated by ",".
 * Returns a new string the caller frees ("" for an empty list), or NULL
 * when the list is malformed or memory ran out.
 */
char		*qops_domains_normalise(const char *list);

/*
 * Whether the target URL's scheme, host and port are one of the shop
 * domains in list.  Returns 1 or 0 (also 0 for a malformed argument).
 */
int		 qops_target_in_domains(const char *url, const char *list);

#endif /* QUEUE_FIELDS_H */
