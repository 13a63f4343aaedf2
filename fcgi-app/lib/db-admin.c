/*
 * db-admin.c - API key and audit log rows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-private.h"

/* NUL-terminate a fetched string of *len bytes in buf (cap + 1). */
static void
res_end(char *buf, size_t cap, unsigned long len, my_bool isnull)
{
	buf[isnull ? 0 : (len < cap ? len : cap)] = '\0';
}

enum app_err
db_key_insert(struct db *db, int64_t queue_id, const char *name,
    const uint8_t hash[KEY_HASH_LEN], const char *prefix, int64_t *id)
{
	MYSQL_BIND	 p[4];
	unsigned long	 len[3];
	enum app_err	 er;

	db_bind_int(&p[0], &queue_id);
	db_bind_str(&p[1], name, &len[0]);
	len[1] = KEY_HASH_LEN;
	db_bind_blob(&p[2], hash, &len[1]);
	db_bind_str(&p[3], prefix, &len[2]);
	er = db_run(db, STMT_KEY_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_DUP_ENTRY)
		return APP_INVALID;
	if (er == APP_DB && db_last_errno(db) == ER_NO_REFERENCED_ROW_2)
		return APP_NOTFOUND;
	if (er != APP_OK)
		return er;
	*id = db_insert_id(db, STMT_KEY_INSERT);
	return APP_OK;
}

/* Result buffers of a key row (the common columns of STMT_KEY_*). */
struct key_res {
	struct api_key	 k;
	unsigned long	 len[3];
	my_bool		 null[6];
	uint8_t		 hash[KEY_HASH_LEN];
	unsigned long	 hlen;
	MYSQL_BIND	 b[10];
};

/* Bind the first 9 columns of a key row (and the hash as the 10th). */
static void
key_res_bind(struct key_res *r)
{
	memset(r, 0, sizeof(*r));
	db_bind_int(&r->b[0], &r->k.id);
	db_bind_int(&r->b[1], &r->k.queue_id);
	db_bind_res_str(&r->b[2], r->k.queue_slug, sizeof(r->k.queue_slug) - 1,
	    &r->len[0], &r->null[0]);
	db_bind_res_str(&r->b[3], r->k.name, sizeof(r->k.name) - 1, &r->len[1],
	    &r->null[1]);
	db_bind_res_str(&r->b[4], r->k.prefix, sizeof(r->k.prefix) - 1,
	    &r->len[2], &r->null[2]);
	db_bind_int(&r->b[5], &r->k.created_ms);
	db_bind_int(&r->b[6], &r->k.last_used_ms);
	r->b[6].is_null = &r->null[3];
	db_bind_int(&r->b[7], &r->k.revoked_ms);
	r->b[7].is_null = &r->null[4];
	db_bind_int(&r->b[8], &r->k.db_now_ms);
	memset(&r->b[9], 0, sizeof(r->b[9]));
	r->b[9].buffer_type = MYSQL_TYPE_BLOB;
	r->b[9].buffer = r->hash;
	r->b[9].buffer_length = sizeof(r->hash);
	r->b[9].length = &r->hlen;
}

/* The fetched row of r as a finished struct api_key in *out. */
static void
key_res_get(struct key_res *r, struct api_key *out)
{
	res_end(r->k.queue_slug, sizeof(r->k.queue_slug) - 1, r->len[0],
	    r->null[0]);
	res_end(r->k.name, sizeof(r->k.name) - 1, r->len[1], r->null[1]);
	res_end(r->k.prefix, sizeof(r->k.prefix) - 1, r->len[2], r->null[2]);
	if (r->null[3])
		r->k.last_used_ms = 0;
	if (r->null[4])
		r->k.revoked_ms = 0;
	*out = r->k;
}

/* State of db_key_list() while rows come in. */
struct key_list {
	struct key_res	 r;
	struct api_key	*k;
	size_t		 n, cap;
};

/* db_run_each() callback.  Returns 0, or -1 on allocation failure. */
static int
key_list_row(void *arg)
{
	struct key_list	*l = arg;
	struct api_key	*nk;
	size_t		 cap;

	if (l->n == l->cap) {
		cap = l->cap == 0 ? 8 : l->cap * 2;
		if ((nk = try_reallocarray(l->k, cap, sizeof(*nk))) == NULL)
			return -1;
		l->k = nk;
		l->cap = cap;
	}
	key_res_get(&l->r, &l->k[l->n++]);
	return 0;
}

enum app_err
db_key_list(struct db *db, int64_t queue_id, struct api_key **out,
    size_t *n)
{
	struct key_list	*l;
	MYSQL_BIND	 p[2];
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	db_bind_opt_int(&p[0], &queue_id);
	db_bind_opt_int(&p[1], &queue_id);
	key_res_bind(&l->r);
	er = db_run_each(db, STMT_KEY_LIST, p, l->r.b, key_list_row, l);
	if (er != APP_OK) {
		free(l->k);
		free(l);
		return er;
	}
	*out = l->k;
	*n = l->n;
	free(l);
	return APP_OK;
}

/*
 * Run statement s (one key row) with the bound parameters p into *out.
 * Returns APP_OK, APP_NOTFOUND or as db_run().
 */
static enum app_err
key_read(struct db *db, enum stmt s, MYSQL_BIND *p, struct api_key *out)
{
	struct key_res	 r;
	int		 has = 0;
	enum app_err	 er;

	key_res_bind(&r);
	if ((er = db_run(db, s, p, r.b, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	key_res_get(&r, out);
	return APP_OK;
}

enum app_err
db_key_by_hash(struct db *db, const uint8_t hash[KEY_HASH_LEN],
    struct api_key *out)
{
	MYSQL_BIND	 p[1];
	unsigned long	 len = KEY_HASH_LEN;

	db_bind_blob(&p[0], hash, &len);
	return key_read(db, STMT_KEY_BY_HASH, p, out);
}

enum app_err
db_key_touch(struct db *db, int64_t id)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &id);
	return db_run(db, STMT_KEY_TOUCH, p, NULL, NULL);
}

enum app_err
db_key_get_locked(struct db *db, int64_t id, struct api_key *out)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &id);
	return key_read(db, STMT_KEY_GET_LOCKED, p, out);
}

enum app_err
db_key_revoke(struct db *db, int64_t id)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &id);
	return db_run(db, STMT_KEY_REVOKE, p, NULL, NULL);
}

enum app_err
db_audit_insert(struct db *db, const struct audit_entry *e)
{
	MYSQL_BIND	 p[9];
	unsigned long	 len[7];
	int64_t		 actor_id = e->actor_id, queue_id = e->queue_id;

	db_bind_str(&p[0], e->actor_kind, &len[0]);
	db_bind_opt_int(&p[1], &actor_id);
	db_bind_str(&p[2], e->actor_name, &len[1]);
	db_bind_opt_int(&p[3], &queue_id);
	db_bind_str(&p[4], e->queue_slug[0] != '\0' ? e->queue_slug : NULL,
	    &len[2]);
	db_bind_str(&p[5], e->action, &len[3]);
	db_bind_str(&p[6], e->before_json, &len[4]);
	db_bind_str(&p[7], e->after_json, &len[5]);
	db_bind_str(&p[8], e->client_addr, &len[6]);
	return db_run(db, STMT_AUDIT_INSERT, p, NULL, NULL);
}

/* Result buffers of an audit row. */
struct audit_res {
	struct audit_entry	 e;
	char			 before[AUDIT_JSON_MAX + 1];
	char			 after[AUDIT_JSON_MAX + 1];
	unsigned long		 len[7];
	my_bool			 null[9];
	MYSQL_BIND		 b[11];
	struct audit_entry	*out;
	size_t			 n, cap;
};

/* db_run_each() callback: copy one row.  Returns 0 or -1 (ENOMEM). */
static int
audit_row(void *arg)
{
	struct audit_res	*r = arg;
	struct audit_entry	*ne, *e;
	size_t			 cap;

	if (r->n == r->cap) {
		cap = r->cap == 0 ? 16 : r->cap * 2;
		if ((ne = try_reallocarray(r->out, cap, sizeof(*ne))) == NULL)
			return -1;
		r->out = ne;
		r->cap = cap;
	}
	e = &r->out[r->n];
	*e = r->e;
	res_end(e->actor_kind, sizeof(e->actor_kind) - 1, r->len[0],
	    r->null[0]);
	res_end(e->actor_name, sizeof(e->actor_name) - 1, r->len[1],
	    r->null[1]);
	res_end(e->queue_slug, sizeof(e->queue_slug) - 1, r->len[2],
	    r->null[2]);
	res_end(e->action, sizeof(e->action) - 1, r->len[3], r->null[3]);
	res_end(e->client_addr, sizeof(e->client_addr) - 1, r->len[6],
	    r->null[6]);
	if (r->null[7])
		e->actor_id = 0;
	if (r->null[8])
		e->queue_id = 0;
	e->before_json = e->after_json = NULL;
	if (!r->null[4] && (e->before_json = try_strndup(r->before,
	    r->len[4])) == NULL)
		return -1;
	if (!r->null[5] && (e->after_json = try_strndup(r->after,
	    r->len[5])) == NULL) {
		free(e->before_json);
		return -1;
	}
	r->n++;
	return 0;
}

enum app_err
db_audit_list(struct db *db, const struct audit_filter *f,
    struct audit_entry **out, size_t *n)
{
	struct audit_res	*r;
	MYSQL_BIND		 p[10];
	unsigned long		 len[2];
	int64_t			 before = f->before_id > 0 ? f->before_id :
				    INT64_MAX, queue = f->queue_id;
	int64_t			 since = f->since_ms, limit = f->limit;
	int64_t			 until = f->until_ms > 0 ? f->until_ms :
				    INT64_MAX;
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	if ((r = try_calloc(1, sizeof(*r))) == NULL)
		return APP_ENOMEM;
	db_bind_int(&p[0], &before);
	db_bind_opt_int(&p[1], &queue);
	db_bind_opt_int(&p[2], &queue);
	db_bind_str(&p[3], f->actor, &len[0]);
	db_bind_str(&p[4], f->actor, &len[0]);
	db_bind_str(&p[5], f->action, &len[1]);
	db_bind_str(&p[6], f->action, &len[1]);
	db_bind_int(&p[7], &since);
	db_bind_int(&p[8], &until);
	db_bind_int(&p[9], &limit);

	db_bind_int(&r->b[0], &r->e.id);
	db_bind_int(&r->b[1], &r->e.at_ms);
	db_bind_res_str(&r->b[2], r->e.actor_kind, sizeof(r->e.actor_kind) - 1,
	    &r->len[0], &r->null[0]);
	db_bind_int(&r->b[3], &r->e.actor_id);
	r->b[3].is_null = &r->null[7];
	db_bind_res_str(&r->b[4], r->e.actor_name, sizeof(r->e.actor_name) - 1,
	    &r->len[1], &r->null[1]);
	db_bind_int(&r->b[5], &r->e.queue_id);
	r->b[5].is_null = &r->null[8];
	db_bind_res_str(&r->b[6], r->e.queue_slug, sizeof(r->e.queue_slug) - 1,
	    &r->len[2], &r->null[2]);
	db_bind_res_str(&r->b[7], r->e.action, sizeof(r->e.action) - 1,
	    &r->len[3], &r->null[3]);
	db_bind_res_str(&r->b[8], r->before, AUDIT_JSON_MAX, &r->len[4],
	    &r->null[4]);
	db_bind_res_str(&r->b[9], r->after, AUDIT_JSON_MAX, &r->len[5],
	    &r->null[5]);
	db_bind_res_str(&r->b[10], r->e.client_addr,
	    sizeof(r->e.client_addr) - 1, &r->len[6], &r->null[6]);
	er = db_run_each(db, STMT_AUDIT_LIST, p, r->b, audit_row, r);
	if (er != APP_OK) {
		db_audit_list_free(r->out, r->n);
		free(r);
		return er;
	}
	*out = r->out;
	*n = r->n;
	free(r);
	return APP_OK;
}

void
db_audit_list_free(struct audit_entry *e, size_t n)
{
	size_t	 i;

	if (e == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(e[i].before_json);
		free(e[i].after_json);
	}
	free(e);
}

enum app_err
db_queue_times(struct db *db, int64_t id, int64_t *created_ms,
    int64_t *changed_ms, int64_t *unused)
{
	MYSQL_BIND	 p[1], r[3];
	int		 has = 0;
	enum app_err	 er;

	*created_ms = *changed_ms = *unused = 0;
	db_bind_int(&p[0], &id);
	db_bind_int(&r[0], created_ms);
	db_bind_int(&r[1], changed_ms);
	db_bind_int(&r[2], unused);
	if ((er = db_run(db, STMT_QUEUE_TIMES, p, r, &has)) != APP_OK)
		return er;
	return has ? APP_OK : APP_NOTFOUND;
}
