/*
 * db-worker.c - the background worker's statements (see db-worker.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "db-private.h"
#include "autorate.h"
#include "db-worker.h"

/*
 * Run one of the lock statements, which take the lock name and return
 * one integer, into *v (0 on failure).
 */
static enum app_err
lock_stmt(struct db *db, enum stmt s, int64_t *v)
{
	MYSQL_BIND	 p[1], r[1];
	unsigned long	 len;
	int		 has = 0;
	enum app_err	 er;

	*v = 0;
	db_bind_str(&p[0], DB_LEADER_LOCK, &len);
	db_bind_int(&r[0], v);
	if ((er = db_run(db, s, p, r, &has)) != APP_OK) {
		*v = 0;
		return er;
	}
	if (!has)
		*v = 0;
	return APP_OK;
}

enum app_err
db_leader_get(struct db *db, int *got)
{
	int64_t		 v;
	enum app_err	 er;

	er = lock_stmt(db, STMT_LEADER_GET, &v);
	*got = v == 1;
	return er;
}

enum app_err
db_leader_check(struct db *db, int *held)
{
	int64_t		 v;
	enum app_err	 er;

	er = lock_stmt(db, STMT_LEADER_CHECK, &v);
	*held = v == 1;
	return er;
}

enum app_err
db_leader_release(struct db *db)
{
	int64_t	 v;

	return lock_stmt(db, STMT_LEADER_RELEASE, &v);
}

/* ---- auto-rate --------------------------------------------------------- */

/* Result buffers of the AR_COLS columns. */
struct ar_row {
	struct ar_settings	 s;
	unsigned long		 url_len, rules_len, res_len;
	char			 slug[SLUG_MAX + 1];
	unsigned long		 slug_len;
	MYSQL_BIND		 b[23];
};

/* Bind a string result of size bytes (one kept for the NUL). */
static void
bind_res_str(MYSQL_BIND *b, char *buf, size_t size, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = size - 1;
	b->length = len;
}

/* Bind r's buffers to the AR_COLS columns, after the slug when slug. */
static MYSQL_BIND *
ar_bind(struct ar_row *r, int slug)
{
	struct ar_settings	*s = &r->s;
	MYSQL_BIND		*b = r->b;

	memset(r, 0, sizeof(*r));
	if (slug)
		bind_res_str(b++, r->slug, sizeof(r->slug), &r->slug_len);
	db_bind_int(b++, &s->queue_id);
	db_bind_int(b++, &s->enabled);
	db_bind_int(b++, &s->dry_run);
	bind_res_str(b++, s->url, sizeof(s->url), &r->url_len);
	db_bind_int(b++, &s->allow_private);
	db_bind_int(b++, &s->interval_s);
	bind_res_str(b++, s->rules, sizeof(s->rules), &r->rules_len);
	db_bind_int(b++, &s->rate_min);
	db_bind_int(b++, &s->rate_max);
	db_bind_int(b++, &s->step);
	db_bind_int(b++, &s->cut_pct);
	db_bind_int(b++, &s->cooldown_s);
	db_bind_int(b++, &s->band_pct);
	db_bind_int(b++, &s->failures_to_min);
	db_bind_int(b++, &s->tested_ms);
	bind_res_str(b++, s->tested_result, sizeof(s->tested_result),
	    &r->res_len);
	db_bind_int(b++, &s->poll_ms);
	db_bind_int(b++, &s->mem.failures);
	db_bind_int(b++, &s->mem.since_ms);
	db_bind_int(b++, &s->mem.change_ms);
	db_bind_int(b++, &s->mem.cut_ms);
	db_bind_int(b++, &s->updated_ms);
	return r->b;
}

/* NUL-terminate the strings of a fetched row. */
static void
ar_terminate(struct ar_row *r)
{
	r->s.url[r->url_len < sizeof(r->s.url) ? r->url_len : 0] = '\0';
	r->s.rules[r->rules_len < sizeof(r->s.rules) ? r->rules_len : 0] =
	    '\0';
	r->s.tested_result[r->res_len < sizeof(r->s.tested_result) ?
	    r->res_len : 0] = '\0';
	r->slug[r->slug_len < sizeof(r->slug) ? r->slug_len : 0] = '\0';
}

enum app_err
db_ar_get(struct db *db, int64_t queue_id, struct ar_settings *out,
    int *found)
{
	struct ar_row	*r;
	MYSQL_BIND	 p[1];
	int		 has = 0;
	enum app_err	 er;

	*found = 0;
	if ((r = try_malloc(sizeof(*r))) == NULL)
		return APP_ENOMEM;
	db_bind_int(&p[0], &queue_id);
	er = db_run(db, STMT_AR_GET, p, ar_bind(r, 0), &has);
	if (er == APP_OK && has) {
		ar_terminate(r);
		*out = r->s;
		*found = 1;
	}
	free(r);
	return er;
}

enum app_err
db_ar_save(struct db *db, const struct ar_settings *s)
{
	MYSQL_BIND		 p[17];
	struct ar_settings	 c = *s;
	unsigned long		 l1, l2, l3;

	db_bind_int(&p[0], &c.queue_id);
	db_bind_int(&p[1], &c.enabled);
	db_bind_int(&p[2], &c.dry_run);
	db_bind_str(&p[3], c.url, &l1);
	db_bind_int(&p[4], &c.allow_private);
	db_bind_int(&p[5], &c.interval_s);
	db_bind_str(&p[6], c.rules, &l2);
	db_bind_int(&p[7], &c.rate_min);
	db_bind_int(&p[8], &c.rate_max);
	db_bind_int(&p[9], &c.step);
	db_bind_int(&p[10], &c.cut_pct);
	db_bind_int(&p[11], &c.cooldown_s);
	db_bind_int(&p[12], &c.band_pct);
	db_bind_int(&p[13], &c.failures_to_min);
	db_bind_int(&p[14], &c.tested_ms);
	db_bind_str(&p[15], c.tested_result, &l3);
	db_bind_int(&p[16], &c.updated_ms);
	return db_run(db, STMT_AR_SAVE, p, NULL, NULL);
}

enum app_err
db_ar_state(struct db *db, const struct ar_settings *s)
{
	MYSQL_BIND		 p[6];
	struct ar_settings	 c = *s;

	db_bind_int(&p[0], &c.poll_ms);
	db_bind_int(&p[1], &c.mem.failures);
	db_bind_int(&p[2], &c.mem.since_ms);
	db_bind_int(&p[3], &c.mem.change_ms);
	db_bind_int(&p[4], &c.mem.cut_ms);
	db_bind_int(&p[5], &c.queue_id);
	return db_run(db, STMT_AR_STATE, p, NULL, NULL);
}

enum app_err
db_ar_tested(struct db *db, int64_t queue_id, int64_t updated_ms,
    int64_t tested_ms, const char *result, int *applied)
{
	MYSQL_BIND	 p[4];
	unsigned long	 len;
	enum app_err	 er;

	*applied = 0;
	db_bind_int(&p[0], &tested_ms);
	db_bind_str(&p[1], result, &len);
	db_bind_int(&p[2], &queue_id);
	db_bind_int(&p[3], &updated_ms);
	if ((er = db_run(db, STMT_AR_TESTED, p, NULL, NULL)) != APP_OK)
		return er;
	*applied = db_affected(db, STMT_AR_TESTED) > 0;
	return APP_OK;
}

enum app_err
db_ar_enable(struct db *db, int64_t queue_id, int64_t on, int64_t now)
{
	MYSQL_BIND	 p[3];

	db_bind_int(&p[0], &on);
	db_bind_int(&p[1], &now);
	db_bind_int(&p[2], &queue_id);
	return db_run(db, STMT_AR_ENABLE, p, NULL, NULL);
}

/* What db_ar_list_enabled's row callback passes on. */
struct ar_list_arg {
	struct ar_row	 *r;
	int		(*row)(const char *, const struct ar_settings *,
			    void *);
	void		 *arg;
};

static int
ar_list_row(void *arg)
{
	struct ar_list_arg	*a = arg;

	ar_terminate(a->r);
	return a->row(a->r->slug, &a->r->s, a->arg);
}

enum app_err
db_ar_list_enabled(struct db *db,
    int (*row)(const char *, const struct ar_settings *, void *), void *arg)
{
	struct ar_list_arg	 a;
	enum app_err		 er;

	if ((a.r = try_malloc(sizeof(*a.r))) == NULL)
		return APP_ENOMEM;
	a.row = row;
	a.arg = arg;
	er = db_run_each(db, STMT_AR_LIST_ENABLED, NULL, ar_bind(a.r, 1),
	    ar_list_row, &a);
	free(a.r);
	return er;
}

enum app_err
db_ar_log_add(struct db *db, const struct ar_log_entry *e)
{
	MYSQL_BIND		 p[12];
	struct ar_log_entry	 c = *e;
	unsigned long		 l[6];

	db_bind_int(&p[0], &c.queue_id);
	db_bind_int(&p[1], &c.at_ms);
	db_bind_str(&p[2], c.kind, &l[0]);
	db_bind_int(&p[3], &c.dry_run);
	db_bind_str(&p[4], c.action, &l[1]);
	db_bind_str(&p[5], c.state, &l[2]);
	db_bind_str(&p[6], c.reason, &l[3]);
	db_bind_str(&p[7], c.rule != NULL ? c.rule : "", &l[4]);
	db_bind_int(&p[8], &c.rate_before);
	db_bind_int(&p[9], &c.rate_after);
	db_bind_int(&p[10], &c.response_ms);
	db_bind_str(&p[11], c.sample != NULL ? c.sample : "", &l[5]);
	return db_run(db, STMT_AR_LOG_ADD, p, NULL, NULL);
}

/* Result buffers of a log entry. */
struct ar_log_row {
	struct ar_log_entry	 e;
	char			 kind[9], action[9], state[11], reason[33];
	char			 rule[801], sample[2049];
	unsigned long		 len[6];
	MYSQL_BIND		 b[11];
	int			(*row)(const struct ar_log_entry *, void *);
	void			*arg;
};

static int
ar_log_row(void *arg)
{
	struct ar_log_row	*r = arg;

	r->kind[r->len[0] < sizeof(r->kind) ? r->len[0] : 0] = '\0';
	r->action[r->len[1] < sizeof(r->action) ? r->len[1] : 0] = '\0';
	r->state[r->len[2] < sizeof(r->state) ? r->len[2] : 0] = '\0';
	r->reason[r->len[3] < sizeof(r->reason) ? r->len[3] : 0] = '\0';
	r->rule[r->len[4] < sizeof(r->rule) ? r->len[4] : 0] = '\0';
	r->sample[r->len[5] < sizeof(r->sample) ? r->len[5] : 0] = '\0';
	r->e.kind = r->kind;
	r->e.action = r->action;
	r->e.state = r->state;
	r->e.reason = r->reason;
	r->e.rule = r->rule;
	r->e.sample = r->sample;
	return r->row(&r->e, r->arg);
}

enum app_err
db_ar_log_list(struct db *db, int64_t queue_id, int64_t limit,
    int (*row)(const struct ar_log_entry *, void *), void *arg)
{
	struct ar_log_row	*r;
	MYSQL_BIND		 p[2];
	enum app_err		 er;

	if ((r = try_malloc(sizeof(*r))) == NULL)
		return APP_ENOMEM;
	memset(r, 0, sizeof(*r));
	r->row = row;
	r->arg = arg;
	r->e.queue_id = queue_id;
	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &limit);
	db_bind_int(&r->b[0], &r->e.at_ms);
	bind_res_str(&r->b[1], r->kind, sizeof(r->kind), &r->len[0]);
	db_bind_int(&r->b[2], &r->e.dry_run);
	bind_res_str(&r->b[3], r->action, sizeof(r->action), &r->len[1]);
	bind_res_str(&r->b[4], r->state, sizeof(r->state), &r->len[2]);
	bind_res_str(&r->b[5], r->reason, sizeof(r->reason), &r->len[3]);
	bind_res_str(&r->b[6], r->rule, sizeof(r->rule), &r->len[4]);
	db_bind_int(&r->b[7], &r->e.rate_before);
	db_bind_int(&r->b[8], &r->e.rate_after);
	db_bind_int(&r->b[9], &r->e.response_ms);
	bind_res_str(&r->b[10], r->sample, sizeof(r->sample), &r->len[5]);
	er = db_run_each(db, STMT_AR_LOG_LIST, p, r->b, ar_log_row, r);
	free(r);
	return er;
}

/* ---- the fairness report ---------------------------------------------- */

enum app_err
db_served_add(struct db *db, const struct served_row *v, size_t n)
{
	MYSQL_BIND	 p[3 * SERVED_BATCH];
	struct served_row row[SERVED_BATCH];
	size_t		 i;

	if (n == 0 || n > SERVED_BATCH)
		return APP_INVALID;
	/* The statement has SERVED_BATCH rows: the last one fills it up. */
	for (i = 0; i < SERVED_BATCH; i++) {
		row[i] = v[i < n ? i : n - 1];
		db_bind_int(&p[3 * i], &row[i].queue_id);
		db_bind_int(&p[3 * i + 1], &row[i].number);
		db_bind_int(&p[3 * i + 2], &row[i].served_ms);
	}
	return db_run(db, STMT_SERVED_ADD, p, NULL, NULL);
}

struct fair_arg {
	struct fair_sample	 s;
	int64_t			 number, served_ms;
	int			(*srow)(const struct fair_sample *, void *);
	int			(*nrow)(int64_t, int64_t, void *);
	void			*arg;
};

static int
fair_sample_row(void *arg)
{
	struct fair_arg	*a = arg;

	return a->srow(&a->s, a->arg);
}

static int
fair_served_row(void *arg)
{
	struct fair_arg	*a = arg;

	return a->nrow(a->number, a->served_ms, a->arg);
}

enum app_err
db_fair_samples(struct db *db, int64_t queue_id, int64_t since_ms,
    int64_t until_ms, int (*row)(const struct fair_sample *, void *),
    void *arg)
{
	struct fair_arg	 a;
	MYSQL_BIND	 p[3], r[4];

	memset(&a, 0, sizeof(a));
	a.srow = row;
	a.arg = arg;
	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &since_ms);
	db_bind_int(&p[2], &until_ms);
	db_bind_int(&r[0], &a.s.t_ms);
	db_bind_int(&r[1], &a.s.issued);
	db_bind_int(&r[2], &a.s.serving);
	db_bind_int(&r[3], &a.s.rate);
	return db_run_each(db, STMT_FAIR_SAMPLES, p, r, fair_sample_row, &a);
}

enum app_err
db_fair_served(struct db *db, int64_t queue_id, int64_t since_ms,
    int64_t until_ms, int (*row)(int64_t, int64_t, void *), void *arg)
{
	struct fair_arg	 a;
	MYSQL_BIND	 p[3], r[2];

	memset(&a, 0, sizeof(a));
	a.nrow = row;
	a.arg = arg;
	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &since_ms);
	db_bind_int(&p[2], &until_ms);
	db_bind_int(&r[0], &a.number);
	db_bind_int(&r[1], &a.served_ms);
	return db_run_each(db, STMT_FAIR_SERVED, p, r, fair_served_row, &a);
}
