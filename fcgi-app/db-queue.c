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
#include "log.h"

#define URLCOL_MAX	2048
#define DOMAINS_COL_MAX	8192

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

/* Result columns of the admission state (STATE_COLS in db.c). */
#define STATE_NCOLS	27

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
		&a->draw_open, &a->draw_count
	};
	size_t	 i;

	for (i = 0; i < STATE_NCOLS; i++)
		db_bind_int(&r[i], cols[i]);
}

/* Result columns of what visitors see (LOOK_COLS in db.c). */
#define LOOK_NCOLS	6
#define MESSAGE_COL_MAX	(LOOK_MESSAGE_MAX * 4)

/* Then the draw seed, its hash and the abandonment grace period. */
#define ROW_NCOLS	(8 + STATE_NCOLS + LOOK_NCOLS + 3)

/* Result buffers for a full queue row (QUEUE_COLS in db.c). */
struct queue_res {
	int64_t		 id, ttl, active, dbnow;
	struct adm_queue adm;
	char		 slug[SLUG_MAX + 1];
	char		 name[NAME_MAX_CHARS * 4 + 1];
	char		 target[URLCOL_MAX + 1];
	char		 domains[DOMAINS_COL_MAX + 1];
	uint8_t		 secret[SEALED_MAX], tkey[SEALED_MAX];
	unsigned long	 len[8];
	my_bool		 target_null;
	char		 image[URLCOL_MAX + 1];
	char		 display[NAME_MAX_CHARS * 4 + 1];
	char		 message[MESSAGE_COL_MAX + 1];
	char		 accent[8];
	int64_t		 json_status;
	char		 jcookie[33];
	unsigned long	 look_len[5];
	uint8_t		 seed[SEALED_MAX];
	char		 seed_hash[65];
	unsigned long	 seed_len, hash_len;
	my_bool		 seed_null;
	int64_t		 grace;
	MYSQL_BIND	 b[ROW_NCOLS];
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

/* Result binds of LOOK_COLS, from b[0]. */
static void
look_bind(MYSQL_BIND *b, struct queue_res *r)
{
	res_buf(&b[0], MYSQL_TYPE_STRING, r->image, sizeof(r->image) - 1,
	    &r->look_len[0]);
	res_buf(&b[1], MYSQL_TYPE_STRING, r->display,
	    sizeof(r->display) - 1, &r->look_len[1]);
	res_buf(&b[2], MYSQL_TYPE_STRING, r->message,
	    sizeof(r->message) - 1, &r->look_len[2]);
	res_buf(&b[3], MYSQL_TYPE_STRING, r->accent, sizeof(r->accent) - 1,
	    &r->look_len[3]);
	db_bind_int(&b[4], &r->json_status);
	res_buf(&b[5], MYSQL_TYPE_STRING, r->jcookie, sizeof(r->jcookie) - 1,
	    &r->look_len[4]);
}

/* Set up the result binds of a full row. */
static void
queue_res_bind(struct queue_res *r)
{
	memset(r, 0, sizeof(*r));
	db_bind_int(&r->b[0], &r->id);
	res_buf(&r->b[1], MYSQL_TYPE_STRING, r->slug, sizeof(r->slug) - 1,
	    &r->len[1]);
	res_buf(&r->b[2], MYSQL_TYPE_STRING, r->name, sizeof(r->name) - 1,
	    &r->len[2]);
	res_buf(&r->b[3], MYSQL_TYPE_STRING, r->target,
	    sizeof(r->target) - 1, &r->len[3]);
	r->b[3].is_null = &r->target_null;
	res_buf(&r->b[4], MYSQL_TYPE_STRING, r->domains,
	    sizeof(r->domains) - 1, &r->len[4]);
	db_bind_int(&r->b[5], &r->ttl);
	res_buf(&r->b[6], MYSQL_TYPE_BLOB, r->secret, sizeof(r->secret),
	    &r->len[6]);
	res_buf(&r->b[7], MYSQL_TYPE_BLOB, r->tkey, sizeof(r->tkey),
	    &r->len[7]);
	state_bind(&r->b[8], &r->adm, &r->active, &r->dbnow);
	look_bind(&r->b[8 + STATE_NCOLS], r);
	res_buf(&r->b[8 + STATE_NCOLS + LOOK_NCOLS], MYSQL_TYPE_BLOB, r->seed,
	    sizeof(r->seed), &r->seed_len);
	r->b[8 + STATE_NCOLS + LOOK_NCOLS].is_null = &r->seed_null;
	res_buf(&r->b[9 + STATE_NCOLS + LOOK_NCOLS], MYSQL_TYPE_STRING,
	    r->seed_hash, sizeof(r->seed_hash) - 1, &r->hash_len);
	db_bind_int(&r->b[10 + STATE_NCOLS + LOOK_NCOLS], &r->grace);
}

/*
 * Copy a fetched row into a new struct queue.  Returns it (caller frees
 * with db_queue_free), or NULL on allocation failure.
 */
static struct queue *
queue_fill(struct queue_res *r)
{
	struct queue	*q;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	r->slug[r->len[1]] = '\0';
	r->name[r->len[2]] = '\0';
	r->target[r->len[3]] = '\0';
	r->domains[r->len[4]] = '\0';
	q->id = r->id;
	q->slug = strdup(r->slug);
	q->name = strdup(r->name);
	q->target_url = r->target_null ? NULL : strdup(r->target);
	q->shop_domains = strdup(r->domains);
	q->adm = r->adm;
	q->adm.active = r->active != 0;
	q->token_ttl_s = r->ttl;
	memcpy(q->secret_sealed, r->secret, r->len[6]);
	q->secret_sealed_len = r->len[6];
	memcpy(q->ticket_key_sealed, r->tkey, r->len[7]);
	q->ticket_key_sealed_len = r->len[7];
	r->image[r->look_len[0]] = '\0';
	r->display[r->look_len[1]] = '\0';
	r->message[r->look_len[2]] = '\0';
	r->accent[r->look_len[3]] = '\0';
	q->header_image_url = strdup(r->image);
	q->display_name = strdup(r->display);
	q->message = strdup(r->message);
	q->accent = strdup(r->accent);
	q->json_queued_status = r->json_status;
	r->jcookie[r->look_len[4]] = '\0';
	q->json_cookie = strdup(r->jcookie);
	if (q->header_image_url == NULL || q->display_name == NULL ||
	    q->message == NULL || q->accent == NULL ||
	    q->json_cookie == NULL) {
		db_queue_free(q);
		return NULL;
	}
	if (!r->seed_null) {
		memcpy(q->draw_seed_sealed, r->seed, r->seed_len);
		q->draw_seed_sealed_len = r->seed_len;
	}
	memcpy(q->draw_seed_hash, r->seed_hash, r->hash_len);
	q->draw_seed_hash[r->hash_len] = '\0';
	q->abandon_grace_s = r->grace;
	if (q->slug == NULL || q->name == NULL || q->shop_domains == NULL ||
	    (!r->target_null && q->target_url == NULL)) {
		db_queue_free(q);
		return NULL;
	}
	return q;
}

void
db_queue_free(struct queue *q)
{
	if (q == NULL)
		return;
	free(q->slug);
	free(q->name);
	free(q->target_url);
	free(q->shop_domains);
	free(q->header_image_url);
	free(q->display_name);
	free(q->message);
	free(q->accent);
	free(q->json_cookie);
	free(q);
}

/*
 * Run statement s (one queue row) with the bound parameters p into a new
 * row *out, noting the database's clock.  Returns APP_OK, APP_NOTFOUND,
 * APP_ENOMEM or as db_run().
 */
static enum app_err
queue_read(struct db *db, enum stmt s, MYSQL_BIND *p, struct queue **out)
{
	struct queue_res	 r;
	int64_t			 t0;
	int			 has = 0;
	enum app_err		 er;

	*out = NULL;
	queue_res_bind(&r);
	t0 = now_us();
	if ((er = db_run(db, s, p, r.b, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	db_clock_sample(db, t0, r.dbnow);
	if ((*out = queue_fill(&r)) == NULL)
		return APP_ENOMEM;
	return APP_OK;
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
	adm->active = active != 0;
	return APP_OK;
}

/*
 * Below this much before its deadline an answer "no row changed" may
 * come from the deadline condition rather than from a paused queue
 * (our estimate of the database's clock is off by a millisecond or so).
 */
#define JOIN_LATE_SLACK_MS	100

/*
 * The number in a join's LAST_INSERT_ID(), 0 when it holds none:
 * number * 2 + admitted; see db.c.
 */
static int64_t
join_number(int64_t packed)
{
	return packed < 2 ? 0 : packed >> 1;
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

/* State of db_queue_due() while the rows come in. */
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
db_queue_due(struct db *db, int64_t *ids, size_t max, size_t *n)
{
	struct due	 d;
	MYSQL_BIND	 r[1];
	enum app_err	 er;

	memset(&d, 0, sizeof(d));
	d.ids = ids;
	d.max = max;
	db_bind_int(&r[0], &d.id);
	*n = 0;
	if ((er = db_run_each(db, STMT_QUEUE_DUE, NULL, r, due_row, &d)) !=
	    APP_OK)
		return er;
	*n = d.n;
	return APP_OK;
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
	if ((er = db_begin(db)) != APP_OK)
		return er;
	if ((er = db_queue_state_locked(db, id, &q.adm)) != APP_OK ||
	    (er = db_now_ms(db, &now)) != APP_OK) {
		db_rollback(db);
		return er;
	}
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

enum app_err
db_queue_join(struct db *db, int64_t id, int64_t now, int64_t *number,
    int *admitted)
{
	MYSQL_BIND	 p[4];
	int64_t		 packed, left, until;
	enum app_err	 er;
	unsigned int	 e;
	int		 tries = 0;

	/*
	 * The server takes it up only until our time runs out: in its
	 * clock, as the last read taught us.
	 */
	if ((left = db_time_left_ms(db)) <= 0)
		return APP_DB_DOWN;
	until = db_clock_ms(db) + left;
	db_bind_now(&p[0], &now);
	db_bind_int(&p[1], &id);
	db_bind_now(&p[2], &now);
	db_bind_int(&p[3], &until);
	/* Answered too late, its outcome is still wanted: see db_track(). */
	db_track(db, id);
	for (;;) {
		er = db_run(db, STMT_QUEUE_JOIN, p, NULL, NULL);
		if (er == APP_OK)
			break;
		e = db_last_errno(db);
		if ((e != CR_SERVER_GONE_ERROR && e != ER_LOCK_DEADLOCK) ||
		    tries++ >= DB_JOIN_RETRIES) {
			db_track(db, 0);
			return er;
		}
		log_info("join: retrying after error %u (not applied)", e);
	}
	db_track(db, 0);
	if (db_affected(db, STMT_QUEUE_JOIN) != 1) {
		if (db_clock_ms(db) >= until - JOIN_LATE_SLACK_MS) {
			log_info("join: the database got to it after its "
			    "deadline; nothing issued");
			return APP_DB_DOWN;
		}
		return APP_NOTFOUND;
	}
	/* number * 2 + admitted; see db.c. */
	packed = db_insert_id(db, STMT_QUEUE_JOIN);
	if ((*number = join_number(packed)) == 0) {
		log_warnx("db join: statement returned no number");
		return APP_DB;
	}
	*admitted = (int)(packed & 1);
	return APP_OK;
}

/*
 * The first ADM_WRITE_NCOLS parameters of STMT_QUEUE_SET_STATE, from
 * the admission state a, into p.  active holds a's active flag as
 * int64_t.  Can't fail.
 */
#define ADM_WRITE_NCOLS	18
static void
adm_write_bind(MYSQL_BIND *p, struct adm_queue *a, int64_t *active)
{
	int64_t	*cols[ADM_WRITE_NCOLS] = {
		&a->rate_per_minute, &a->burst, &a->anchor_number,
		&a->anchor_time_ms, active, &a->floor, &a->claim_window_s,
		&a->skip, &a->pend_at_ms, &a->pend_rate, &a->pend_burst,
		&a->pend_active, &a->pend_skip, &a->pend_floor,
		&a->claim_grid, &a->claim_front, &a->claim_front1,
		&a->claim_dead
	};
	size_t	 i;

	for (i = 0; i < ADM_WRITE_NCOLS; i++)
		db_bind_int(&p[i], cols[i]);
}

int
db_late_join(struct db *db, struct db_late_join *out)
{
	int64_t	 arg, affected, id;
	int	 unknown;

	while (db_late_take(db, &arg, &affected, &id, &unknown)) {
		out->queue_id = arg;
		out->unknown = unknown;
		out->number = unknown || affected != 1 ? 0 : join_number(id);
		if (out->unknown || out->number > 0)
			return 1;
	}
	return 0;
}

enum app_err
db_queue_insert(struct db *db, struct queue *q)
{
	MYSQL_BIND	 p[30];
	unsigned long	 len[4], slen, tlen;
	int64_t		 active = q->adm.active;
	struct adm_queue *a = &q->adm;
	enum app_err	 er;

	db_bind_str(&p[0], q->slug, &len[0]);
	db_bind_str(&p[1], q->name, &len[1]);
	db_bind_str(&p[2], q->target_url, &len[2]);
	db_bind_str(&p[3], q->shop_domains, &len[3]);
	db_bind_int(&p[4], &q->token_ttl_s);
	slen = q->secret_sealed_len;
	tlen = q->ticket_key_sealed_len;
	db_bind_blob(&p[5], q->secret_sealed, &slen);
	db_bind_blob(&p[6], q->ticket_key_sealed, &tlen);
	db_bind_int(&p[7], &a->rate_per_minute);
	db_bind_int(&p[8], &a->burst);
	db_bind_int(&p[9], &a->anchor_number);
	db_bind_int(&p[10], &a->anchor_time_ms);
	db_bind_int(&p[11], &a->last_number);
	db_bind_int(&p[12], &a->skip);
	db_bind_int(&p[13], &active);
	db_bind_int(&p[14], &a->floor);
	db_bind_int(&p[15], &a->claim_window_s);
	db_bind_int(&p[16], &a->tick);
	db_bind_int(&p[17], &a->l_tick);
	db_bind_int(&p[18], &a->l_tick1);
	db_bind_int(&p[19], &a->l_tick2);
	db_bind_int(&p[20], &a->pend_at_ms);
	db_bind_int(&p[21], &a->pend_rate);
	db_bind_int(&p[22], &a->pend_burst);
	db_bind_int(&p[23], &a->pend_active);
	db_bind_int(&p[24], &a->pend_skip);
	db_bind_int(&p[25], &a->pend_floor);
	db_bind_int(&p[26], &a->claim_grid);
	db_bind_int(&p[27], &a->claim_front);
	db_bind_int(&p[28], &a->claim_front1);
	db_bind_int(&p[29], &a->claim_dead);
	er = db_run(db, STMT_QUEUE_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_DUP_ENTRY)
		return APP_INVALID;
	if (er != APP_OK)
		return er;
	q->id = db_insert_id(db, STMT_QUEUE_INSERT);
	return APP_OK;
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
	struct queue_res	 r;
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
		if ((nq = reallocarray(l->q, cap, sizeof(*nq))) == NULL)
			return -1;
		l->q = nq;
		l->cap = cap;
	}
	if ((q = queue_fill(&l->r)) == NULL)
		return -1;
	l->q[l->n++] = q;
	return 0;
}

enum app_err
db_queue_list(struct db *db, struct queue ***out, size_t *n)
{
	struct queue_list	*l;
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	queue_res_bind(&l->r);
	er = db_run_each(db, STMT_QUEUE_LIST, NULL, l->r.b, queue_list_row, l);
	if (er != APP_OK) {
		db_queue_list_free(l->q, l->n);
		free(l);
		return er;
	}
	*out = l->q;
	*n = l->n;
	free(l);
	return APP_OK;
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
db_queue_update(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[5];
	unsigned long	 len[3];
	int64_t		 id = q->id, ttl = q->token_ttl_s;
	enum app_err	 er;

	db_bind_str(&p[0], q->name, &len[0]);
	db_bind_str(&p[1], q->target_url, &len[1]);
	db_bind_str(&p[2], q->shop_domains, &len[2]);
	db_bind_int(&p[3], &ttl);
	db_bind_int(&p[4], &id);
	if ((er = db_run(db, STMT_QUEUE_UPDATE, p, NULL, NULL)) != APP_OK)
		return er;
	return db_queue_set_state(db, q);
}

enum app_err
db_queue_set_look(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[7];
	unsigned long	 len[5];
	int64_t		 id = q->id, st = q->json_queued_status;

	db_bind_str(&p[0], q->header_image_url != NULL ?
	    q->header_image_url : "", &len[0]);
	db_bind_str(&p[1], q->display_name != NULL ? q->display_name : "",
	    &len[1]);
	db_bind_str(&p[2], q->message != NULL ? q->message : "", &len[2]);
	db_bind_str(&p[3], q->accent != NULL ? q->accent : "", &len[3]);
	db_bind_int(&p[4], &st);
	db_bind_str(&p[5], q->json_cookie != NULL ? q->json_cookie : "",
	    &len[4]);
	db_bind_int(&p[6], &id);
	return db_run(db, STMT_QUEUE_SET_LOOK, p, NULL, NULL);
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
	struct queue_list	*l;
	MYSQL_BIND		 p[2];
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	db_bind_int(&p[0], &after_id);
	db_bind_int(&p[1], &limit);
	queue_res_bind(&l->r);
	er = db_run_each(db, STMT_QUEUE_LIST_PAGE, p, l->r.b, queue_list_row,
	    l);
	if (er != APP_OK) {
		db_queue_list_free(l->q, l->n);
		free(l);
		return er;
	}
	*out = l->q;
	*n = l->n;
	free(l);
	return APP_OK;
}
