/*
 * queue-ops.c - the operator's changes to queues, each one transaction
 * on the locked row with one audit row: create, update (every setting
 * of the field table, the admission state's included), pause, resume,
 * set the rate, rotate the secret, delete; and the reads.  Returns
 * reasons, never prints.  The settings and their checks are the field
 * table's (queue-fields.c); scope, audit and keys are queue-audit.c's.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "draw.h"
#include "fields.h"
#include "queue-audit.h"
#include "queue-fields.h"
#include "queue-ops.h"

/* How often change_locked() waits for a scheduled change and retries. */
#define CHANGE_TRIES	4

/*
 * Record the outcome why of setting field f in spec.  Returns APP_OK
 * (f's bit set), or APP_INVALID with err's reason and field.
 */
static enum app_err
spec_put(struct qops_spec *spec, enum qops_field f, enum fld_why why,
    struct qops_err *err)
{
	if (why == FLD_UNICODE)
		return qops_refuse(err, APP_INVALID, QOPS_R_UNICODE, f);
	if (why != FLD_OK)
		return qops_refuse(err, APP_INVALID, QOPS_R_INVALID, f);
	spec->set |= QOPS_BIT(f);
	return APP_OK;
}

enum app_err
qops_spec_set(struct qops_spec *spec, enum qops_field f, const char *text,
    struct qops_err *err)
{
	qops_err_init(err);
	if (f >= QOPS_F__MAX || text == NULL)
		return qops_refuse(err, APP_INVALID, QOPS_R_INVALID, -1);
	return spec_put(spec, f, fld_parse(&queue_fields[f], spec, text),
	    err);
}

enum app_err
qops_spec_json(struct qops_spec *spec, enum qops_field f,
    struct json_object *v, struct qops_err *err)
{
	qops_err_init(err);
	if (f >= QOPS_F__MAX)
		return qops_refuse(err, APP_INVALID, QOPS_R_INVALID, -1);
	return spec_put(spec, f, fld_from_json(&queue_fields[f], spec, v),
	    err);
}

/*
 * Check every field given in spec by its row (a spec filled by hand is
 * held to the rules of one filled by qops_spec_set()); with creating,
 * name and rate must be given.  Returns APP_OK or APP_INVALID (reason
 * and field in *err).
 */
static enum app_err
spec_check(const struct qops_spec *spec, int creating, struct qops_err *err)
{
	enum fld_why	 why;
	int		 f;

	if (creating && !(spec->set & QOPS_BIT(QOPS_F_NAME)))
		return qops_refuse(err, APP_INVALID, QOPS_R_MISSING,
		    QOPS_F_NAME);
	if (creating && !(spec->set & QOPS_BIT(QOPS_F_RATE)))
		return qops_refuse(err, APP_INVALID, QOPS_R_MISSING,
		    QOPS_F_RATE);
	for (f = 0; f < QOPS_F__MAX; f++) {
		if (!(spec->set & QOPS_BIT(f)))
			continue;
		if ((why = fld_check(&queue_fields[f], spec)) != FLD_OK)
			return qops_refuse(err, APP_INVALID, why ==
			    FLD_UNICODE ? QOPS_R_UNICODE : QOPS_R_INVALID, f);
	}
	return APP_OK;
}

/*
 * Clear the bits of spec whose value equals q's as the operator sees it
 * (an update that sends the whole configuration, as the API's PATCH and
 * the console's form do, changes and checks only what differs).  Can't
 * fail.
 */
static void
spec_drop_unchanged(const struct queue *q, struct qops_spec *spec)
{
	int	 f;

	for (f = 0; f < QOPS_F__MAX; f++)
		if ((spec->set & QOPS_BIT(f)) &&
		    fld_same(&queue_fields[f], q, spec))
			spec->set &= ~QOPS_BIT(f);
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
 * Apply the opening of spec to the locked row q
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
			return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		else {
			if (q->adm.pend_at_ms > now)
				return APP_BUSY;
			if (adm_cancel_opening(&q->adm, now, ch) == -1)
				return qops_refuse(err, APP_INVALID,
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
			return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		if (q->adm.pend_at_ms > now)
			return APP_BUSY;
		if (adm_arm_opening(&q->adm, now, spec->opens_at_ms) == -1)
			return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
		if ((er = arm_seed(c, q)) != APP_OK)
			return er;
		*rearm = 1;
	}
	return APP_OK;
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
 * The total-active-users cap and the session duration q has once spec
 * is applied.
 */
static void
spec_cap(const struct queue *q, const struct qops_spec *spec, int64_t *cap,
    int64_t *session_s)
{
	*cap = (spec->set & QOPS_BIT(QOPS_F_TOTAL_ACTIVE)) ?
	    spec->total_active_users : q->total_active_users;
	*session_s = (spec->set & QOPS_BIT(QOPS_F_TOKEN_TTL)) ?
	    spec->token_ttl_s : q->token_ttl_s;
}

/*
 * Refuse a cap below what its session duration needs (adm_cap_min()),
 * naming the field spec changes (the cap, else the session duration).
 * Returns APP_OK or APP_INVALID with err set.
 */
static enum app_err
cap_check(const struct queue *q, const struct qops_spec *spec,
    struct qops_err *err)
{
	int64_t	 cap, session_s;

	spec_cap(q, spec, &cap, &session_s);
	if (cap == 0 || cap >= adm_cap_min(session_s))
		return APP_OK;
	return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
	    (spec->set & QOPS_BIT(QOPS_F_TOTAL_ACTIVE)) ?
	    QOPS_F_TOTAL_ACTIVE : QOPS_F_TOKEN_TTL);
}

/*
 * Refuse what the random order cannot do (admission.h): random with a
 * total-active-users cap (its blocks would add to the burst the cap is
 * kept by), random with an opening whose pre-queue collects (the draw
 * orders those numbers), and random again while the numbers of an
 * earlier random order are inside their claim window
 * (adm_order_free()).  q is the locked row, or NULL for a new queue
 * with the settings spec.  The field named is queuingMethod when spec
 * sets it, else the other one.  Returns APP_OK or APP_INVALID with err
 * set.
 */
static enum app_err
method_check(const struct queue *q, const struct qops_spec *spec,
    int64_t now, struct qops_err *err)
{
	const char	*method = q != NULL ? q->method : "fifo";
	int64_t		 cap = q != NULL ? q->total_active_users : 0;
	int		 opening = q != NULL && q->adm.draw_open, f = -1;

	if (spec->set & QOPS_BIT(QOPS_F_METHOD))
		method = spec->method;
	if (method == NULL || strcmp(method, "random") != 0)
		return APP_OK;
	if (spec->set & QOPS_BIT(QOPS_F_TOTAL_ACTIVE))
		cap = spec->total_active_users;
	/* The request's opening replaces the row's (0: cancelled). */
	if (spec->set & QOPS_BIT(QOPS_F_OPENS_AT))
		opening = spec->opens_at_ms != 0;
	if (cap > 0)
		f = QOPS_F_TOTAL_ACTIVE;
	else if (opening)
		f = QOPS_F_OPENS_AT;
	else if (q != NULL && (q->adm.rand_from <= 0 ||
	    q->adm.rand_to != 0) && !adm_order_free(&q->adm, now))
		f = QOPS_F_METHOD;
	if (f == -1)
		return APP_OK;
	return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
	    (spec->set & QOPS_BIT(QOPS_F_METHOD)) ? QOPS_F_METHOD : f);
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

/*
 * Copy the settings of spec stored by column into q (which owns its
 * texts), each in its stored form (the row's norm).  Returns APP_OK or
 * APP_ENOMEM.
 */
static enum app_err
copy_settings(struct queue *q, const struct qops_spec *spec)
{
	int	 f;

	for (f = 0; f < QOPS_F__MAX; f++)
		if ((spec->set & QOPS_BIT(f)) &&
		    qops_field_stored((enum qops_field)f) &&
		    fld_copy(&queue_fields[f], q, spec) == -1)
			return APP_ENOMEM;
	return APP_OK;
}

/*
 * The settings of a new queue: every row's default (its def), then the
 * fields given in spec, into *full.  Returns APP_OK, or APP_INVALID
 * with err set (a default the row refuses: a bug in the table).
 */
static enum app_err
spec_defaults(const struct qops_spec *spec, struct qops_spec *full,
    struct qops_err *err)
{
	const struct fld	*r;
	struct qops_spec	 one;
	int			 f;

	memset(full, 0, sizeof(*full));
	for (f = 0; f < QOPS_F__MAX; f++) {
		r = &queue_fields[f];
		if (spec->set & QOPS_BIT(f))
			one = *spec;
		else if (r->def == NULL)
			continue;
		else if (fld_parse(r, &one, r->def) != FLD_OK)
			return qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
			    f);
		memcpy((char *)full + r->off, (char *)&one + r->off,
		    r->type == FLD_TEXT ? sizeof(char *) : sizeof(int64_t));
		full->set |= QOPS_BIT(f);
	}
	/* A grace period alone turns detection on. */
	if ((spec->set & QOPS_BIT(QOPS_F_ABANDON_GRACE)) &&
	    !(spec->set & QOPS_BIT(QOPS_F_ABANDON)))
		full->abandon = 1;
	return APP_OK;
}

enum app_err
qops_create(struct db *db, const struct cfg *c, const char *slug,
    const struct qops_spec *spec, char **secret, int64_t *id,
    struct qops_err *err, const struct principal *who)
{
	struct queue	 q;
	struct qops_spec full;
	struct adm_change ch;
	enum app_err	 er;
	int64_t		 now;
	int		 f;

	qops_err_init(err);
	*secret = NULL;
	*id = 0;
	memset(&q, 0, sizeof(q));
	if (!qops_may_manage(who))
		return qops_forbid(err);
	if (!db_queue_slug_valid(slug))
		return qops_refuse(err, APP_INVALID, QOPS_R_SLUG, -1);
	if ((er = spec_check(spec, 1, err)) != APP_OK ||
	    (er = spec_defaults(spec, &full, err)) != APP_OK)
		return er;
	q.slug = (char *)(uintptr_t)slug;
	if ((er = copy_settings(&q, &full)) != APP_OK) {
		qops_failed(err, er);
		goto out;
	}
	if ((er = cap_check(&q, &full, err)) != APP_OK ||
	    (er = method_check(NULL, &full, 0, err)) != APP_OK)
		goto out;
	memset(&ch, 0, sizeof(ch));
	ch.rate = full.rate;
	ch.burst = full.burst;
	ch.active = adm_seg_kind(full.active != 0, full.method);
	if (adm_cap_limit(full.total_active_users, full.token_ttl_s, &ch))
		err->warnings |= QOPS_W_RATE_LIMITED;
	full.rate = ch.rate;
	full.burst = ch.burst;
	now = qops_now(db);
	/* An opening at creation: serving 0 until it (SPEC section 3). */
	if (full.opens_at_ms != 0) {
		if (full.opens_at_ms < now + ADM_TICK_MS) {
			er = qops_refuse(err, APP_INVALID, QOPS_R_INVALID,
			    QOPS_F_OPENS_AT);
			goto out;
		}
		adm_init_opening(&q.adm, full.rate, full.burst, now,
		    full.opens_at_ms);
		if ((er = arm_seed(c, &q)) != APP_OK) {
			qops_failed(err, er);
			goto out;
		}
	} else
		adm_init(&q.adm, full.rate, full.burst, now);
	if (spec->set & QOPS_BIT(QOPS_F_CLAIM_WINDOW))
		adm_set_claim_window(&q.adm, now, full.claim_window_s);
	q.adm.active = ch.active;
	(void)adm_order_change(&q.adm, now, ch.active, ch.rate);
	qops_view(&q);
	warn_check(&q, err);
	if (new_ticket_key(c, &q) == -1 ||
	    (*secret = new_secret(c, &q)) == NULL) {
		er = qops_failed(err, APP_CRYPTO);
		goto out;
	}
	if ((er = db_begin(db)) != APP_OK) {
		qops_failed(err, er);
		goto out;
	}
	if ((er = db_queue_insert(db, &q)) == APP_OK &&
	    (er = qops_audit(db, who, &q, "create", NULL, &q)) == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	if (er == APP_INVALID)
		er = qops_refuse(err, APP_INVALID, QOPS_R_EXISTS, -1);
	else if (er != APP_OK)
		er = qops_failed(err, er);
	else
		*id = q.id;
out:
	if (er != APP_OK) {
		qops_secret_free(*secret);
		*secret = NULL;
	}
	for (f = 0; f < QOPS_F__MAX; f++)
		fld_free(&queue_fields[f], &q);
	return er;
}

/*
 * The admission change spec asks of the locked row q at now (the
 * settings in effect after any change already scheduled): rate, burst
 * and the segment's kind, from the paused state and the queuing method
 * (adm_seg_kind()), limited by the total-active-users cap
 * (adm_cap_limit(); then err gets QOPS_W_RATE_LIMITED).  *any: 1 when
 * it differs from those settings.
 */
static void
spec_change(const struct queue *q, const struct qops_spec *spec,
    int64_t now, struct adm_change *ch, int *any, struct qops_err *err)
{
	int64_t			 cap, session_s;
	struct adm_queue	 st;
	const char		*method;
	int			 active;

	adm_settled(&q->adm, &st);
	adm_change_init(&st, now, ch);
	if (spec->set & QOPS_BIT(QOPS_F_RATE))
		ch->rate = spec->rate;
	if (spec->set & QOPS_BIT(QOPS_F_BURST))
		ch->burst = spec->burst;
	active = st.active != ADM_SEG_PAUSED;
	method = q->method;
	if (spec->set & QOPS_BIT(QOPS_F_ACTIVE))
		active = spec->active != 0;
	if (spec->set & QOPS_BIT(QOPS_F_METHOD))
		method = spec->method;
	ch->active = adm_seg_kind(active, method);
	spec_cap(q, spec, &cap, &session_s);
	if (adm_cap_limit(cap, session_s, ch))
		err->warnings |= QOPS_W_RATE_LIMITED;
	*any = ch->active != st.active || ch->rate != st.rate_per_minute ||
	    ch->burst != st.burst;
}

/*
 * Apply spec to the locked row q at now: the admission state first
 * (adm_fold(): every write folds the history in), then the settings,
 * the claim window, the opening, and the admission change (rate, burst,
 * paused) scheduled for ADM_TICK_MS after now.  *arm as draw_spec();
 * *scheduled: 1 when a change was scheduled.  Returns APP_OK, APP_BUSY
 * (a change is still scheduled ahead of now: nothing applied), or an
 * error with err set.
 */
static enum app_err
apply_spec(const struct cfg *c, struct queue *q, const struct qops_spec *spec,
    int64_t now, int *arm, int *scheduled, struct qops_err *err)
{
	struct adm_change	 ch;
	enum app_err		 er;
	int			 any;

	*arm = *scheduled = 0;
	if ((er = cap_check(q, spec, err)) != APP_OK ||
	    (er = method_check(q, spec, now, err)) != APP_OK)
		return er;
	spec_change(q, spec, now, &ch, &any, err);
	if (any && q->adm.pend_at_ms > now)
		return APP_BUSY;
	adm_fold(&q->adm, now);
	(void)adm_materialize(&q->adm, now);
	if ((er = copy_settings(q, spec)) != APP_OK)
		return qops_failed(err, er);
	if (spec->set & QOPS_BIT(QOPS_F_CLAIM_WINDOW))
		adm_set_claim_window(&q->adm, now, spec->claim_window_s);
	if ((er = draw_spec(c, q, spec, now, &ch, arm, scheduled, err)) !=
	    APP_OK)
		return er;
	if (any && !*scheduled) {
		if (adm_schedule(&q->adm, now, &ch) == -1)
			return APP_BUSY;
		*scheduled = 1;
	}
	qops_view(q);
	return APP_OK;
}

/* What change_locked() does to the locked row. */
enum op {
	OP_UPDATE,	/* the fields of a spec */
	OP_ROTATE	/* a new signing secret */
};

/*
 * Lock queue slug's row in a transaction, apply op, write, commit: one
 * change, one transaction, one row written, one audit row (action) with
 * every field it changed.  An admission change takes effect ADM_TICK_MS
 * after it is made (admission.h); the call waits until then, so that it
 * is in effect on every process when it returns (the worker's changes
 * do not wait).  A change made while another is still scheduled waits
 * for that one first.  For OP_ROTATE, *secret receives the new secret.
 * On failure the transaction is rolled back and *err says why.
 */
static enum app_err
change_locked(struct db *db, const struct cfg *c, const char *slug,
    enum op op, const char *action, const struct qops_spec *spec,
    char **secret, struct qops_err *err, const struct principal *who)
{
	struct queue	*q = NULL;
	struct json_object *before = NULL;
	struct qops_spec sp;
	enum app_err	 er;
	int64_t		 now = 0, wait_ms = 0;
	int		 arm = 0, scheduled = 0, tries = 0;

	if (!qops_in_scope(who, -1) ||
	    (op == OP_ROTATE && !qops_may_manage(who)))
		return qops_forbid(err);
	if (!db_queue_slug_valid(slug))
		return qops_refuse(err, APP_NOTFOUND, QOPS_R_NOT_FOUND, -1);
	if (c == NULL)
		c = db_config(db);
again:
	if ((er = db_begin(db)) != APP_OK)
		return qops_failed(err, er);
	if ((er = db_queue_get_locked(db, slug, &q)) != APP_OK) {
		qops_failed(err, er);
		goto out;
	}
	if (!qops_in_scope(who, q->id)) {
		er = qops_forbid(err);
		goto out;
	}
	if ((before = qops_queue_fields(q)) == NULL) {
		er = qops_failed(err, APP_ENOMEM);
		goto out;
	}
	now = qops_now(db);
	if (op == OP_ROTATE) {
		if ((*secret = new_secret(c, q)) == NULL)
			er = APP_CRYPTO;
		else
			er = db_queue_set_secret(db, q);
	} else {
		sp = *spec;
		spec_drop_unchanged(q, &sp);
		er = apply_spec(c, q, &sp, now, &arm, &scheduled, err);
		/* Wait for the change scheduled before, then again. */
		if (er == APP_BUSY)
			wait_ms = q->adm.pend_at_ms - now + 1;
		if (er == APP_OK) {
			warn_check(q, err);
			er = db_queue_write(db, q, arm);
		}
	}
	if (er == APP_BUSY && tries++ < CHANGE_TRIES) {
		db_rollback(db);
		json_object_put(before);
		before = NULL;
		db_queue_free(q);
		q = NULL;
		sleep_ms(wait_ms > ADM_TICK_MS ? ADM_TICK_MS : wait_ms);
		qops_err_init(err);
		goto again;
	}
	if (er == APP_OK)
		er = qops_audit_change(db, who, q, action, before,
		    op == OP_ROTATE);
	if (er == APP_OK)
		er = db_commit(db);
	if (er != APP_OK && err->reason == QOPS_R_OK)
		qops_failed(err, er);
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

/*
 * Change queue slug as spec says, audited as action.  Returns as
 * qops_update().
 */
static enum app_err
update(struct db *db, const char *slug, const char *action,
    const struct qops_spec *spec, struct qops_err *err,
    const struct principal *who)
{
	struct qops_spec	 sp = *spec;
	enum app_err		 er;

	qops_err_init(err);
	if ((er = spec_check(spec, 0, err)) != APP_OK)
		return er;
	/* A grace period given alone turns detection on. */
	if ((sp.set & QOPS_BIT(QOPS_F_ABANDON_GRACE)) &&
	    !(sp.set & QOPS_BIT(QOPS_F_ABANDON))) {
		sp.abandon = 1;
		sp.set |= QOPS_BIT(QOPS_F_ABANDON);
	}
	return change_locked(db, NULL, slug, OP_UPDATE, action, &sp, NULL,
	    err, who);
}

enum app_err
qops_update(struct db *db, const char *slug, const struct qops_spec *spec,
    struct qops_err *err, const struct principal *who)
{
	return update(db, slug, "update", spec, err, who);
}

/* One integer setting f = v of queue slug, audited as action. */
static enum app_err
update_one(struct db *db, const char *slug, const char *action,
    enum qops_field f, int64_t v, struct qops_err *err,
    const struct principal *who)
{
	struct qops_spec	 spec;

	memset(&spec, 0, sizeof(spec));
	spec.set = QOPS_BIT(f);
	*(int64_t *)(void *)((char *)&spec + queue_fields[f].off) = v;
	return update(db, slug, action, &spec, err, who);
}

enum app_err
qops_pause(struct db *db, const char *slug, struct qops_err *err,
    const struct principal *who)
{
	return update_one(db, slug, "pause", QOPS_F_ACTIVE, 0, err, who);
}

enum app_err
qops_resume(struct db *db, const char *slug, struct qops_err *err,
    const struct principal *who)
{
	return update_one(db, slug, "resume", QOPS_F_ACTIVE, 1, err, who);
}

enum app_err
qops_set_rate(struct db *db, const char *slug, int64_t rate,
    struct qops_err *err, const struct principal *who)
{
	return update_one(db, slug, "set_rate", QOPS_F_RATE, rate, err, who);
}

enum app_err
qops_rotate_secret(struct db *db, const struct cfg *c, const char *slug,
    char **secret, struct qops_err *err, const struct principal *who)
{
	qops_err_init(err);
	*secret = NULL;
	return change_locked(db, c, slug, OP_ROTATE, "rotate_secret", NULL,
	    secret, err, who);
}

enum app_err
qops_get(struct db *db, const char *slug, struct queue **out,
    struct qops_err *err)
{
	qops_err_init(err);
	return qops_failed(err, db_queue_get(db, slug, out));
}

enum app_err
qops_get_id(struct db *db, int64_t id, struct queue **out,
    struct qops_err *err)
{
	qops_err_init(err);
	return qops_failed(err, db_queue_get_id(db, id, out));
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
	qops_err_init(err);
	return qops_failed(err, db_queue_list(db, out, n));
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

	qops_err_init(err);
	if (!qops_may_manage(who))
		return qops_forbid(err);
	if (!db_queue_slug_valid(slug))
		return qops_refuse(err, APP_NOTFOUND, QOPS_R_NOT_FOUND, -1);
	if ((er = db_begin(db)) != APP_OK)
		return qops_failed(err, er);
	if ((er = db_queue_get_locked(db, slug, &q)) == APP_OK &&
	    (er = db_queue_delete(db, slug)) == APP_OK &&
	    (er = qops_audit(db, who, q, "delete", q, NULL)) == APP_OK)
		er = db_commit(db);
	if (er != APP_OK)
		db_rollback(db);
	db_queue_free(q);
	return qops_failed(err, er);
}

/* Add member key = v (NULL: JSON null) to o; -1 (bad) when it fails. */
static void
put(struct json_object *o, const char *key, struct json_object *v,
    int *bad)
{
	if (json_object_object_add(o, key, v) != 0)
		*bad = 1;
}

struct json_object *
qops_site_json(struct db *db, const struct queue *q, int64_t now)
{
	struct json_object	*o;
	int64_t			 created = 0, changed = 0, unused = 0;
	int			 bad = 0;

	if ((o = qops_queue_fields(q)) == NULL)
		return NULL;
	if (db_queue_times(db, q->id, &created, &changed, &unused) !=
	    APP_OK)
		created = changed = unused = 0;
	put(o, "createdAt", created > 0 ? json_object_new_int64(created) :
	    NULL, &bad);
	put(o, "updatedAt", json_object_new_int64(changed > created ?
	    changed : created), &bad);
	put(o, "id", json_object_new_int64(q->id), &bad);
	put(o, "slug", json_object_new_string(q->slug), &bad);
	put(o, "serving", json_object_new_int64(adm_serving(&q->adm, now)),
	    &bad);
	put(o, "lastNumber", json_object_new_int64(q->adm.last_number),
	    &bad);
	put(o, "waiting", json_object_new_int64(adm_waiting(&q->adm, now)),
	    &bad);
	put(o, "numbersUnused", json_object_new_int64(unused), &bad);
	draw_state_json(o, q, now);
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
