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
slug_valid(const char *s)
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

/* Result buffers for a full queue row (QUEUE_COLS in db.c). */
struct queue_res {
	int64_t		 id, rate, burst, anchor, anchor_t, last, skip;
	int64_t		 active, ttl;
	char		 slug[SLUG_MAX + 1];
	char		 name[NAME_MAX_CHARS * 4 + 1];
	char		 target[URLCOL_MAX + 1];
	char		 domains[DOMAINS_COL_MAX + 1];
	uint8_t		 secret[SEALED_MAX], tkey[SEALED_MAX];
	unsigned long	 len[15];
	my_bool		 target_null;
	MYSQL_BIND	 b[15];
};

static void
res_int(MYSQL_BIND *b, int64_t *v)
{
	bind_int(b, v);
}

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

/* Set up the result binds of a full row. */
static void
queue_res_bind(struct queue_res *r)
{
	memset(r, 0, sizeof(*r));
	res_int(&r->b[0], &r->id);
	res_buf(&r->b[1], MYSQL_TYPE_STRING, r->slug, sizeof(r->slug) - 1,
	    &r->len[1]);
	res_buf(&r->b[2], MYSQL_TYPE_STRING, r->name, sizeof(r->name) - 1,
	    &r->len[2]);
	res_buf(&r->b[3], MYSQL_TYPE_STRING, r->target,
	    sizeof(r->target) - 1, &r->len[3]);
	r->b[3].is_null = &r->target_null;
	res_buf(&r->b[4], MYSQL_TYPE_STRING, r->domains,
	    sizeof(r->domains) - 1, &r->len[4]);
	res_int(&r->b[5], &r->rate);
	res_int(&r->b[6], &r->burst);
	res_int(&r->b[7], &r->anchor);
	res_int(&r->b[8], &r->anchor_t);
	res_int(&r->b[9], &r->last);
	res_int(&r->b[10], &r->skip);
	res_int(&r->b[11], &r->active);
	res_int(&r->b[12], &r->ttl);
	res_buf(&r->b[13], MYSQL_TYPE_BLOB, r->secret, sizeof(r->secret),
	    &r->len[13]);
	res_buf(&r->b[14], MYSQL_TYPE_BLOB, r->tkey, sizeof(r->tkey),
	    &r->len[14]);
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
	q->adm.rate_per_minute = r->rate;
	q->adm.burst = r->burst;
	q->adm.anchor_number = r->anchor;
	q->adm.anchor_time_ms = r->anchor_t;
	q->adm.last_number = r->last;
	q->adm.skip = r->skip;
	q->adm.active = r->active != 0;
	q->token_ttl_s = r->ttl;
	memcpy(q->secret_sealed, r->secret, r->len[13]);
	q->secret_sealed_len = r->len[13];
	memcpy(q->ticket_key_sealed, r->tkey, r->len[14]);
	q->ticket_key_sealed_len = r->len[14];
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
	free(q);
}

/* db_queue_get / db_queue_get_locked: statement s by slug. */
static enum app_err
queue_get(struct db *db, enum stmt s, const char *slug, struct queue **out)
{
	struct queue_res	 r;
	MYSQL_BIND		 p[1];
	unsigned long		 len;
	int			 has = 0;
	enum app_err		 er;

	*out = NULL;
	if (!slug_valid(slug))
		return APP_NOTFOUND;
	bind_str(&p[0], slug, &len);
	queue_res_bind(&r);
	if ((er = db_run(db, s, p, r.b, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	if ((*out = queue_fill(&r)) == NULL)
		return APP_ENOMEM;
	return APP_OK;
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

enum app_err
db_queue_state(struct db *db, int64_t id, struct adm_queue *adm)
{
	MYSQL_BIND	 p[1], r[7];
	int64_t		 active = 0;
	int		 has = 0;
	enum app_err	 er;

	bind_int(&p[0], &id);
	bind_int(&r[0], &adm->rate_per_minute);
	bind_int(&r[1], &adm->burst);
	bind_int(&r[2], &adm->anchor_number);
	bind_int(&r[3], &adm->anchor_time_ms);
	bind_int(&r[4], &adm->last_number);
	bind_int(&r[5], &adm->skip);
	bind_int(&r[6], &active);
	if ((er = db_run(db, STMT_QUEUE_STATE, p, r, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	adm->active = active != 0;
	return APP_OK;
}

enum app_err
db_queue_join(struct db *db, int64_t id, int64_t now, int64_t *number)
{
	MYSQL_BIND	 p[5];
	enum app_err	 er;
	unsigned int	 e;
	int		 tries = 0;

	/* CREDIT_SQL's now, BURST_SQL has none, T's now, id. */
	bind_int(&p[0], &now);
	bind_int(&p[1], &now);
	bind_int(&p[2], &id);
	for (;;) {
		er = db_run(db, STMT_QUEUE_JOIN, p, NULL, NULL);
		if (er == APP_OK)
			break;
		e = db_last_errno(db);
		if ((e != CR_SERVER_GONE_ERROR && e != ER_LOCK_DEADLOCK) ||
		    tries++ >= DB_JOIN_RETRIES)
			return er;
		log_info("join: retrying after error %u (not applied)", e);
	}
	if (db_affected(db, STMT_QUEUE_JOIN) != 1)
		return APP_NOTFOUND;
	*number = db_insert_id(db, STMT_QUEUE_JOIN);
	return *number >= 1 ? APP_OK : APP_DB;
}

enum app_err
db_queue_insert(struct db *db, struct queue *q)
{
	MYSQL_BIND	 p[14];
	unsigned long	 len[4], slen, tlen;
	int64_t		 active = q->adm.active;
	enum app_err	 er;

	bind_str(&p[0], q->slug, &len[0]);
	bind_str(&p[1], q->name, &len[1]);
	bind_str(&p[2], q->target_url, &len[2]);
	bind_str(&p[3], q->shop_domains, &len[3]);
	bind_int(&p[4], &q->adm.rate_per_minute);
	bind_int(&p[5], &q->adm.burst);
	bind_int(&p[6], &q->adm.anchor_number);
	bind_int(&p[7], &q->adm.anchor_time_ms);
	bind_int(&p[8], &q->adm.last_number);
	bind_int(&p[9], &q->adm.skip);
	bind_int(&p[10], &active);
	bind_int(&p[11], &q->token_ttl_s);
	slen = q->secret_sealed_len;
	tlen = q->ticket_key_sealed_len;
	bind_blob(&p[12], q->secret_sealed, &slen);
	bind_blob(&p[13], q->ticket_key_sealed, &tlen);
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
	MYSQL_BIND	 p[6];
	int64_t		 active = q->adm.active, id = q->id;
	struct adm_queue a = q->adm;
	enum app_err	 er;

	bind_int(&p[0], &a.rate_per_minute);
	bind_int(&p[1], &a.burst);
	bind_int(&p[2], &a.anchor_number);
	bind_int(&p[3], &a.anchor_time_ms);
	bind_int(&p[4], &active);
	bind_int(&p[5], &id);
	if ((er = db_run(db, STMT_QUEUE_SET_STATE, p, NULL, NULL)) != APP_OK)
		return er;
	return APP_OK;
}

enum app_err
db_queue_set_secret(struct db *db, const struct queue *q)
{
	MYSQL_BIND	 p[2];
	unsigned long	 slen = q->secret_sealed_len;
	int64_t		 id = q->id;

	bind_blob(&p[0], q->secret_sealed, &slen);
	bind_int(&p[1], &id);
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
	MYSQL_BIND	 p[10];
	unsigned long	 len[3];
	int64_t		 active = q->adm.active, id = q->id;
	int64_t		 ttl = q->token_ttl_s;
	struct adm_queue a = q->adm;

	bind_str(&p[0], q->name, &len[0]);
	bind_str(&p[1], q->target_url, &len[1]);
	bind_str(&p[2], q->shop_domains, &len[2]);
	bind_int(&p[3], &ttl);
	bind_int(&p[4], &a.rate_per_minute);
	bind_int(&p[5], &a.burst);
	bind_int(&p[6], &a.anchor_number);
	bind_int(&p[7], &a.anchor_time_ms);
	bind_int(&p[8], &active);
	bind_int(&p[9], &id);
	return db_run(db, STMT_QUEUE_UPDATE, p, NULL, NULL);
}

enum app_err
db_queue_delete(struct db *db, const char *slug)
{
	MYSQL_BIND	 p[1];
	unsigned long	 len;
	enum app_err	 er;

	if (!slug_valid(slug))
		return APP_NOTFOUND;
	bind_str(&p[0], slug, &len);
	if ((er = db_run(db, STMT_QUEUE_DELETE, p, NULL, NULL)) != APP_OK)
		return er;
	return db_affected(db, STMT_QUEUE_DELETE) == 1 ? APP_OK : APP_NOTFOUND;
}
