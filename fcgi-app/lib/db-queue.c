/*
 * db-queue.c - queue rows: look-up, the join increment, creation and the
 * operator's state changes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-private.h"
#include "fields.h"
#include "log.h"
#include "queue-fields.h"


int
db_queue_slug_valid(const char *s)
{
	size_t	 i;

	if (s == NULL || s[0] == '\0' || strcmp(s, "healthz") == 0)
		return 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (i >= SLUG_MAX)
			return 0;
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	}
	return 1;
}

/* Result columns of the admission state (STATE_COLS in db-stmt.c). */
#define STATE_NCOLS	30

/* Bind the admission state and the database's now, from r[0]. */
static void
state_bind(MYSQL_BIND *r, struct adm_queue *a, int64_t *active,
    int64_t *dbnow)
{
	int64_t	*cols[STATE_NCOLS] = {
		&a->rate_per_minute, &a->burst, &a->anchor_number,
		&a->anchor_time_ms, &a->last_number, &a->skip, active,
		&a->floor, &a->claim_window_s, &a->tick, &a->l_tick,
		&a->l_tick1, &a->l_tick2, &a->pend_at_ms, &a->pend_rate,
		&a->pend_burst, &a->pend_active, &a->pend_skip,
		&a->pend_floor, &a->claim_grid, &a->claim_front,
		&a->claim_front1, &a->claim_dead, dbnow, &a->opens_at_ms,
		&a->draw_open, &a->draw_count, &a->rand_from, &a->rand_to,
		&a->rand_block
	};
	size_t	 i;

	for (i = 0; i < STATE_NCOLS; i++)
		db_bind_int(&r[i], cols[i]);
}

/* The opening's parameters of a row's write (DRAW_SET_SQL in db-stmt.c). */
#define DRAW_NCOLS	6

/* The bytes a text setting's column holds: its characters in UTF-8. */
static size_t
text_cap(const struct fld *f)
{
	return (size_t)f->max * 4;
}

/*
 * Result buffers for a whole queue row (QUEUE_COLS in db-stmt.c): the id,
 * the slug and the keys, the settings of the field table, the state,
 * the draw's seed.  texts holds each text setting's buffer.
 */
struct queue_res {
	int64_t		 id, active, dbnow;
	struct adm_queue adm;
	char		 slug[SLUG_MAX + 1];
	uint8_t		 secret[SEALED_MAX], tkey[SEALED_MAX];
	unsigned long	 len[4];
	char		*text[QOPS_F__MAX];
	unsigned long	 tlen[QOPS_F__MAX];
	my_bool		 tnull[QOPS_F__MAX];
	int64_t		 iv[QOPS_F__MAX];
	uint8_t		 seed[SEALED_MAX];
	char		 seed_hash[65];
	unsigned long	 seed_len, hash_len;
	my_bool		 seed_null;
	MYSQL_BIND	 b[4 + QOPS_F__MAX + STATE_NCOLS + 2];
	char		*texts;
};

static void
res_buf(MYSQL_BIND *b, enum enum_field_types t, void *buf, size_t cap,
    unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = t;
	b->buffer = buf;
	b->buffer_length = cap;
	b->length = len;
}

/*
 * A new struct queue_res with its result binds set up.  Returns it
 * (free with queue_res_free()), or NULL when memory ran out.
 */
static struct queue_res *
queue_res_new(void)
{
	struct queue_res	*r;
	const struct fld	*f;
	size_t			 i, k = 0, bytes = 0;

	for (i = 0; i < QOPS_F__MAX; i++)
		if (qops_field_stored((enum qops_field)i) &&
		    queue_fields[i].type == FLD_TEXT)
			bytes += text_cap(&queue_fields[i]) + 1;
	if ((r = try_calloc(1, sizeof(*r))) == NULL)
		return NULL;
	if ((r->texts = try_malloc(bytes)) == NULL) {
		free(r);
		return NULL;
	}
	db_bind_int(&r->b[k++], &r->id);
	res_buf(&r->b[k++], MYSQL_TYPE_STRING, r->slug, sizeof(r->slug) - 1,
	    &r->len[1]);
	res_buf(&r->b[k++], MYSQL_TYPE_BLOB, r->secret, sizeof(r->secret),
	    &r->len[2]);
	res_buf(&r->b[k++], MYSQL_TYPE_BLOB, r->tkey, sizeof(r->tkey),
	    &r->len[3]);
	bytes = 0;
	for (i = 0; i < QOPS_F__MAX; i++) {
		f = &queue_fields[i];
		if (!qops_field_stored((enum qops_field)i))
			continue;
		if (f->type != FLD_TEXT) {
			db_bind_int(&r->b[k++], &r->iv[i]);
			continue;
		}
		r->text[i] = r->texts + bytes;
		res_buf(&r->b[k], MYSQL_TYPE_STRING, r->text[i], text_cap(f),
		    &r->tlen[i]);
		r->b[k++].is_null = &r->tnull[i];
		bytes += text_cap(f) + 1;
	}
	state_bind(&r->b[k], &r->adm, &r->active, &r->dbnow);
	k += STATE_NCOLS;
	res_buf(&r->b[k], MYSQL_TYPE_BLOB, r->seed, sizeof(r->seed),
	    &r->seed_len);
	r->b[k++].is_null = &r->seed_null;
	res_buf(&r->b[k], MYSQL_TYPE_STRING, r->seed_hash,
	    sizeof(r->seed_hash) - 1, &r->hash_len);
	return r;
}

static void
queue_res_free(struct queue_res *r)
{
	if (r == NULL)
		return;
	free(r->texts);
	free(r);
}

/*
 * Copy a fetched row into a new struct queue, the operator's view set
 * (qops_view()).  Returns it (caller frees with db_queue_free), or NULL
 * on allocation failure.
 */
static struct queue *
queue_fill(struct queue_res *r)
{
	const struct fld	*f;
	struct queue		*q;
	char			**t;
	size_t			 i;

	if ((q = try_calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->id = r->id;
	if ((q->slug = try_strndup(r->slug, r->len[1])) == NULL)
		goto fail;
	for (i = 0; i < QOPS_F__MAX; i++) {
		f = &queue_fields[i];
		if (!qops_field_stored((enum qops_field)i))
			continue;
		if (f->type != FLD_TEXT) {
			*(int64_t *)(void *)((char *)q + f->roff) = r->iv[i];
			continue;
		}
		t = (char **)(void *)((char *)q + f->roff);
		if (!r->tnull[i] && (*t = try_strndup(r->text[i],
		    r->tlen[i])) == NULL)
			goto fail;
	}
	q->adm = r->adm;
	q->adm.active = (int)r->active;
	memcpy(q->secret_sealed, r->secret, r->len[2]);
	q->secret_sealed_len = r->len[2];
	memcpy(q->ticket_key_sealed, r->tkey, r->len[3]);
	q->ticket_key_sealed_len = r->len[3];
	if (!r->seed_null) {
		memcpy(q->draw_seed_sealed, r->seed, r->seed_len);
		q->draw_seed_sealed_len = r->seed_len;
	}
	memcpy(q->draw_seed_hash, r->seed_hash, r->hash_len);
	q->draw_seed_hash[r->hash_len] = '\0';
	qops_view(q);
	return q;
fail:
	db_queue_free(q);
	return NULL;
}

void
db_queue_free(struct queue *q)
{
	size_t	 i;

	if (q == NULL)
		return;
	free(q->slug);
	for (i = 0; i < QOPS_F__MAX; i++)
		fld_free(&queue_fields[i], q);
	free(q);
}

/*
 * Bind the settings of q stored by column (qops_sql() order) into p,
 * with len one length per field; a text not set is "" (NULL only for a
 * FLD_NULL_EMPTY row).  Returns the parameters bound.
 */
static size_t
settings_bind(MYSQL_BIND *p, const struct queue *q, unsigned long *len)
{
	const struct fld	*f;
	const char		*t;
	size_t			 i, k = 0;

	for (i = 0; i < QOPS_F__MAX; i++) {
		f = &queue_fields[i];
		if (!qops_field_stored((enum qops_field)i))
			continue;
		if (f->type == FLD_TEXT && (t = fld_str(f, q,
		    FLD_AT_ROW)) == NULL && !(f->flags & FLD_NULL_EMPTY))
			t = "";
		if (f->type == FLD_TEXT)
			db_bind_str(&p[k++], t, &len[i]);
		else
			db_bind_int(&p[k++], (int64_t *)(uintptr_t)
			    ((const char *)q + f->roff));
	}
	return k;
}

/* The opening's parameters of a row's write, from q. */
struct draw_params {
	int64_t		 opens, open, count, arm;
	unsigned long	 slen, hlen;
};

/*
 * Bind DRAW_NCOLS parameters of DRAW_SET_SQL from q into p (d holds
 * their values; arm: 1 for an arming, which counts in draw_arm).
 */
static void
draw_bind(MYSQL_BIND *p, const struct queue *q, int arm,
    struct draw_params *d)
{
	static my_bool	 null = 1;

	d->opens = q->adm.opens_at_ms;
	d->open = q->adm.draw_open;
	d->count = q->adm.draw_count;
	d->arm = arm ? 1 : 0;
	d->slen = q->draw_seed_sealed_len;
	d->hlen = strlen(q->draw_seed_hash);
	db_bind_int(&p[0], &d->opens);
	db_bind_int(&p[1], &d->open);
	db_bind_int(&p[2], &d->count);
	db_bind_blob(&p[3], q->draw_seed_sealed, &d->slen);
	if (d->slen == 0)
		p[3].is_null = &null;
	db_bind_str(&p[4], q->draw_seed_hash, &d->hlen);
	db_bind_int(&p[5], &d->arm);
}

/*
 * Run statement s (one queue row) with the bound parameters p into a new
 * row *out, noting the database's clock.  Returns APP_OK, APP_NOTFOUND,
 * APP_ENOMEM or as db_run().
 */
static enum app_err
queue_read(struct db *db, enum stmt s, MYSQL_BIND *p, struct queue **out)
{
	struct queue_res	*r;
	int64_t			 t0;
	int			 has = 0;
	enum app_err		 er;

	*out = NULL;
	if ((r = queue_res_new()) == NULL)
		return APP_ENOMEM;
	t0 = now_us();
	if ((er = db_run(db, s, p, r->b, &has)) == APP_OK && !has)
		er = APP_NOTFOUND;
	if (er == APP_OK) {
		db_clock_sample(db, t0, r->dbnow);
		if ((*out = queue_fill(r)) == NULL)
			er = APP_ENOMEM;
	}
	queue_res_free(r);
	return er;
}

/* db_queue_get / db_queue_get_locked: statement s by slug. */
static enum app_err
queue_get(struct db *db, enum stmt s, const char *slug, struct queue **out)
{
	MYSQL_BIND		 p[1];
	unsigned long		 len;

	*out = NULL;
	if (!db_queue_slug_valid(slug))
		return APP_NOTFOUND;
	db_bind_str(&p[0], slug, &len);
	return queue_read(db, s, p, out);
}

enum app_err
db_queue_get(struct db *db, const char *slug, struct queue **out)
{
	return queue_get(db, STMT_QUEUE_GET, slug, out);
}

enum app_err
db_queue_get_locked(struct db *db, const char *slug, struct queue **out)
{
	return queue_get(db, STMT_QUEUE_GET_LOCKED, slug, out);
}

/* db_queue_state() with statement s.  Returns as db_queue_state(). */
static enum app_err
state_read(struct db *db, enum stmt s, int64_t id, struct adm_queue *adm)
{
	MYSQL_BIND	 p[1], r[STATE_NCOLS];
	int64_t		 active = 0, dbnow = 0, t0;
	int		 has = 0;
	enum app_err	 er;

	db_bind_int(&p[0], &id);
	state_bind(r, adm, &active, &dbnow);
	t0 = now_us();
	if ((er = db_run(db, s, p, r, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	db_clock_sample(db, t0, dbnow);
	adm->active = (int)active;
	return APP_OK;
}

enum app_err
db_queue_state(struct db *db, int64_t id, struct adm_queue *adm)
{
	return state_read(db, STMT_QUEUE_STATE, id, adm);
}

enum app_err
db_queue_state_locked(struct db *db, int64_t id, struct adm_queue *adm)
{
	return state_read(db, STMT_QUEUE_STATE_LOCKED, id, adm);
}

/* State of db_queue_ids() while the rows come in. */
struct due {
	int64_t	*ids, id;
	size_t	 max, n;
};

static int
due_row(void *arg)
{
	struct due	*d = arg;

	if (d->n < d->max)
		d->ids[d->n++] = d->id;
	return 0;
}

enum app_err
db_queue_ids(struct db *db, enum stmt st, MYSQL_BIND *p, int64_t *ids,
    size_t max, size_t *n)
{
	struct due	 d;
	MYSQL_BIND	 r[1];
	enum app_err	 er;

	memset(&d, 0, sizeof(d));
	d.ids = ids;
	d.max = max;
	db_bind_int(&r[0], &d.id);
	*n = 0;
	if ((er = db_run_each(db, st, p, r, due_row, &d)) != APP_OK)
		return er;
	*n = d.n;
	return APP_OK;
}

enum app_err
db_queue_due(struct db *db, int64_t *ids, size_t max, size_t *n)
{
	return db_queue_ids(db, STMT_QUEUE_DUE, NULL, ids, max, n);
}

enum app_err
db_queue_state_begin(struct db *db, int64_t id, struct adm_queue *adm,
    int64_t *now)
{
	enum app_err	 er;

	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = db_queue_state_locked(db, id, adm)) != APP_OK ||
	    (er = db_now_ms(db, now)) != APP_OK)
		db_rollback(db);
	return er;
}

enum app_err
db_queue_sealable(struct db *db, int64_t after, int64_t *ids, size_t max,
    size_t *n)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &after);
	return db_queue_ids(db, STMT_QUEUE_SEALABLE, p, ids, max, n);
}

enum app_err
db_queue_seal_one(struct db *db, int64_t id, int64_t *to)
{
	struct queue	 q;
	int64_t		 now;
	enum app_err	 er;

	*to = 0;
	memset(&q, 0, sizeof(q));
	q.id = id;
	/* Locked only when a plain read finds the seal due. */
	if ((er = db_queue_state(db, id, &q.adm)) != APP_OK ||
	    (er = db_now_ms(db, &now)) != APP_OK)
		return er;
	if (adm_seal_due(&q.adm, now) == 0)
		return APP_OK;
	if ((er = db_queue_state_begin(db, id, &q.adm, &now)) != APP_OK)
		return er;
	adm_fold(&q.adm, now);
	(void)adm_materialize(&q.adm, now);
	if ((*to = adm_seal_due(&q.adm, now)) == 0) {
		db_rollback(db);
		return APP_OK;
	}
	adm_seal(&q.adm, now, *to);
	if ((er = db_queue_seal(db, &q)) != APP_OK) {
		db_rollback(db);
		*to = 0;
		return er;
	}
	return db_commit(db);
}

enum app_err
db_queue_materialize(struct db *db, int64_t id)
{
	struct queue	 q;
	struct adm_queue before;
	int64_t		 now;
	enum app_err	 er;

	memset(&q, 0, sizeof(q));
	q.id = id;
	if ((er = db_queue_state_begin(db, id, &q.adm, &now)) != APP_OK)
		return er;
	before = q.adm;
	adm_fold(&q.adm, now);
	(void)adm_materialize(&q.adm, now);
	if (memcmp(&before, &q.adm, sizeof(before)) != 0 &&
	    (er = db_queue_set_state(db, &q)) != APP_OK) {
		db_rollback(db);
		return er;
	}
	return db_commit(db);
}

/*
 * The first ADM_WRITE_NCOLS parameters of STMT_QUEUE_SET_STATE, from
 * the admission state a, into p.  active holds a's active flag as
 * int64_t.  Can't fail.
 */
#define ADM_WRITE_NCOLS	21
static void
adm_write_bind(MYSQL_BIND *p, struct adm_queue *a, int64_t *active)
{
	int64_t	*cols[ADM_WRITE_NCOLS] = {
		&a->rate_per_minute, &a->burst, &a->anchor_number,
		&a->anchor_time_ms, active, &a->floor, &a->claim_window_s,
		&a->skip, &a->pend_at_ms, &a->pend_rate, &a->pend_burst,
		&a->pend_active, &a->pend_skip, &a->pend_floor,
		&a->claim_grid, &a->claim_front, &a->claim_front1,
		&a->claim_dead, &a->rand_from, &a->rand_to, &a->rand_block
	};
	size_t	 i;

	for (i = 0; i < ADM_WRITE_NCOLS; i++)
		db_bind_int(&p[i], cols[i]);
}

enum app_err
db_queue_insert(struct db *db, struct queue *q)
{
	MYSQL_BIND	 p[3 + QOPS_F__MAX + ADM_WRITE_NCOLS + 5 + DRAW_NCOLS];
	unsigned long	 len[QOPS_F__MAX], slug_len, slen, tlen;
	int64_t		 active = q->adm.active;
	struct adm_queue a = q->adm;
	struct draw_params d;
	int64_t		*ring[5] = { &a.last_number, &a.tick, &a.l_tick,
			    &a.l_tick1, &a.l_tick2 };
	enum app_err	 er;
	size_t		 k, i;

	db_bind_str(&p[0], q->slug, &slug_len);
	slen = q->secret_sealed_len;
	tlen = q->ticket_key_sealed_len;
	db_bind_blob(&p[1], q->secret_sealed, &slen);
	db_bind_blob(&p[2], q->ticket_key_sealed, &tlen);
	k = 3 + settings_bind(&p[3], q, len);
	adm_write_bind(&p[k], &a, &active);
	k += ADM_WRITE_NCOLS;
	for (i = 0; i < 5; i++)
		db_bind_int(&p[k++], ring[i]);
	draw_bind(&p[k], q, q->draw_seed_sealed_len > 0, &d);
	er = db_run(db, STMT_QUEUE_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_DUP_ENTRY)
		return APP_INVALID;
	if (er != APP_OK)
		return er;
	q->id = db_insert_id(db, STMT_QUEUE_INSERT);
	return APP_OK;
}

enum app_err
db_queue_write(struct db *db, const struct queue *q, int arm)
{
	MYSQL_BIND	 p[QOPS_F__MAX + ADM_WRITE_NCOLS + DRAW_NCOLS + 1];
	unsigned long	 len[QOPS_F__MAX];
	int64_t		 active = q->adm.active, id = q->id;
	struct adm_queue a = q->adm;
	struct draw_params d;
	size_t		 k;

	k = settings_bind(p, q, len);
	adm_write_bind(&p[k], &a, &active);
	k += ADM_WRITE_NCOLS;
	draw_bind(&p[k], q, arm, &d);
	k += DRAW_NCOLS;
	db_bind_int(&p[k], &id);
	return db_run(db, STMT_QUEUE_WRITE, p, NULL, NULL);
}

enum app_err
db_queue_set_state(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[ADM_WRITE_NCOLS + 1];
	int64_t		 active = q->adm.active, id = q->id;
	struct adm_queue a = q->adm;

	adm_write_bind(p, &a, &active);
	db_bind_int(&p[ADM_WRITE_NCOLS], &id);
	return db_run(db, STMT_QUEUE_SET_STATE, p, NULL, NULL);
}

enum app_err
db_queue_seal(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[ADM_WRITE_NCOLS + 5 + 1];
	int64_t		 active = q->adm.active, id = q->id;
	struct adm_queue a = q->adm;
	int64_t		*ring[5] = { &a.last_number, &a.tick, &a.l_tick,
			    &a.l_tick1, &a.l_tick2 };
	size_t		 i;

	adm_write_bind(p, &a, &active);
	for (i = 0; i < 5; i++)
		db_bind_int(&p[ADM_WRITE_NCOLS + i], ring[i]);
	db_bind_int(&p[ADM_WRITE_NCOLS + 5], &id);
	return db_run(db, STMT_QUEUE_SEAL, p, NULL, NULL);
}

enum app_err
db_queue_set_secret(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[2];
	unsigned long	 slen = q->secret_sealed_len;
	int64_t		 id = q->id;

	db_bind_blob(&p[0], q->secret_sealed, &slen);
	db_bind_int(&p[1], &id);
	return db_run(db, STMT_QUEUE_SET_SECRET, p, NULL, NULL);
}

/* State of db_queue_list() while the rows come in. */
struct queue_list {
	struct queue_res	*r;
	struct queue		**q;
	size_t			 n, cap;
};

/* db_run_each() callback: copy one row.  Returns 0, or -1 on ENOMEM. */
static int
queue_list_row(void *arg)
{
	struct queue_list	*l = arg;
	struct queue		**nq, *q;
	size_t			 cap;

	if (l->n == l->cap) {
		cap = l->cap == 0 ? 16 : l->cap * 2;
		if ((nq = try_reallocarray(l->q, cap, sizeof(*nq))) == NULL)
			return -1;
		l->q = nq;
		l->cap = cap;
	}
	if ((q = queue_fill(l->r)) == NULL)
		return -1;
	l->q[l->n++] = q;
	return 0;
}

/*
 * The rows statement s (parameters p) reads into a new array *out of *n
 * rows.  Returns as db_queue_list().
 */
static enum app_err
queue_list(struct db *db, enum stmt s, MYSQL_BIND *p, struct queue ***out,
    size_t *n)
{
	struct queue_list	 l;
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	memset(&l, 0, sizeof(l));
	if ((l.r = queue_res_new()) == NULL)
		return APP_ENOMEM;
	er = db_run_each(db, s, p, l.r->b, queue_list_row, &l);
	queue_res_free(l.r);
	if (er != APP_OK) {
		db_queue_list_free(l.q, l.n);
		return er;
	}
	*out = l.q;
	*n = l.n;
	return APP_OK;
}

enum app_err
db_queue_list(struct db *db, struct queue ***out, size_t *n)
{
	return queue_list(db, STMT_QUEUE_LIST, NULL, out, n);
}

void
db_queue_list_free(struct queue **q, size_t n)
{
	size_t	 i;

	if (q == NULL)
		return;
	for (i = 0; i < n; i++)
		db_queue_free(q[i]);
	free(q);
}

enum app_err
db_queue_delete(struct db *db, const char *slug)
{
	MYSQL_BIND	 p[1];
	unsigned long	 len;
	enum app_err	 er;

	if (!db_queue_slug_valid(slug))
		return APP_NOTFOUND;
	db_bind_str(&p[0], slug, &len);
	if ((er = db_run(db, STMT_QUEUE_DELETE, p, NULL, NULL)) != APP_OK)
		return er;
	return db_affected(db, STMT_QUEUE_DELETE) == 1 ? APP_OK : APP_NOTFOUND;
}

enum app_err
db_queue_get_id(struct db *db, int64_t id, struct queue **out)
{
	MYSQL_BIND		 p[1];

	db_bind_int(&p[0], &id);
	return queue_read(db, STMT_QUEUE_GET_BY_ID, p, out);
}

enum app_err
db_queue_list_page(struct db *db, int64_t after_id, int64_t limit,
    struct queue ***out, size_t *n)
{
	MYSQL_BIND		 p[2];

	db_bind_int(&p[0], &after_id);
	db_bind_int(&p[1], &limit);
	return queue_list(db, STMT_QUEUE_LIST_PAGE, p, out, n);
}
