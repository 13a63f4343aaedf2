/*
 * db-bypass.c - VIP bypass codes and the failures of their guessing
 * (see db-bypass.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-bypass.h"
#include "db-private.h"

/* Bind a 32-byte hash input. */
static void
bind_hash(MYSQL_BIND *b, const uint8_t *hash, unsigned long *len)
{
	*len = BYPASS_HASH_LEN;
	db_bind_blob(b, hash, len);
}

/* Result buffers of a code's row (BYPASS_COLS of db.c). */
struct code_res {
	struct bypass_code	 c;
	unsigned long		 len[2];
	my_bool			 null[2];
	MYSQL_BIND		 b[10];
};

static void
code_res_bind(struct code_res *r)
{
	memset(r, 0, sizeof(*r));
	db_bind_int(&r->b[0], &r->c.id);
	db_bind_int(&r->b[1], &r->c.queue_id);
	db_bind_res_str(&r->b[2], r->c.slug, sizeof(r->c.slug) - 1, &r->len[0],
	    &r->null[0]);
	db_bind_res_str(&r->b[3], r->c.label, sizeof(r->c.label) - 1,
	    &r->len[1], &r->null[1]);
	db_bind_int(&r->b[4], &r->c.use_limit);
	db_bind_int(&r->b[5], &r->c.uses);
	db_bind_int(&r->b[6], &r->c.expires_ms);
	db_bind_int(&r->b[7], &r->c.disabled);
	db_bind_int(&r->b[8], &r->c.created_ms);
	db_bind_int(&r->b[9], &r->c.now_ms);
}

/* The fetched row of r, its strings ended, into *out. */
static void
code_res_get(struct code_res *r, struct bypass_code *out)
{
	size_t	 n;

	n = r->null[0] ? 0 : r->len[0];
	r->c.slug[n < sizeof(r->c.slug) ? n : sizeof(r->c.slug) - 1] = '\0';
	n = r->null[1] ? 0 : r->len[1];
	r->c.label[n < sizeof(r->c.label) ? n : sizeof(r->c.label) - 1] =
	    '\0';
	*out = r->c;
}

enum app_err
db_bypass_insert(struct db *db, int64_t queue_id, const char *label,
    const uint8_t hash[BYPASS_HASH_LEN], int64_t use_limit,
    int64_t expires_ms, int64_t *id)
{
	MYSQL_BIND	 p[5];
	unsigned long	 len[2];
	enum app_err	 er;

	db_bind_int(&p[0], &queue_id);
	db_bind_str(&p[1], label, &len[0]);
	bind_hash(&p[2], hash, &len[1]);
	db_bind_opt_int(&p[3], &use_limit);
	db_bind_opt_int(&p[4], &expires_ms);
	er = db_run(db, STMT_BYPASS_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_DUP_ENTRY)
		return APP_INVALID;
	if (er == APP_DB && db_last_errno(db) == ER_NO_REFERENCED_ROW_2)
		return APP_NOTFOUND;
	if (er != APP_OK)
		return er;
	*id = db_insert_id(db, STMT_BYPASS_INSERT);
	return APP_OK;
}

/* State of db_bypass_list() while rows come in. */
struct code_list {
	struct code_res		 r;
	struct bypass_code	*c;
	size_t			 n, cap;
};

/* db_run_each() callback.  Returns 0, or -1 on allocation failure. */
static int
code_list_row(void *arg)
{
	struct code_list	*l = arg;
	struct bypass_code	*nc;
	size_t			 cap;

	if (l->n == l->cap) {
		cap = l->cap == 0 ? 8 : l->cap * 2;
		if ((nc = try_reallocarray(l->c, cap, sizeof(*nc))) == NULL)
			return -1;
		l->c = nc;
		l->cap = cap;
	}
	code_res_get(&l->r, &l->c[l->n++]);
	return 0;
}

enum app_err
db_bypass_list(struct db *db, int64_t queue_id, struct bypass_code **out,
    size_t *n)
{
	struct code_list	*l;
	MYSQL_BIND		 p[1];
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	db_bind_int(&p[0], &queue_id);
	code_res_bind(&l->r);
	er = db_run_each(db, STMT_BYPASS_LIST, p, l->r.b, code_list_row, l);
	if (er != APP_OK) {
		free(l->c);
		free(l);
		return er;
	}
	*out = l->c;
	*n = l->n;
	free(l);
	return APP_OK;
}

/*
 * Run statement s (one code row) with the parameters p into *out;
 * *found says whether there was one.  Returns as db_run().
 */
static enum app_err
code_read(struct db *db, enum stmt s, MYSQL_BIND *p, struct bypass_code *out,
    int *found)
{
	struct code_res	*r;
	enum app_err	 er;

	*found = 0;
	memset(out, 0, sizeof(*out));
	if ((r = try_calloc(1, sizeof(*r))) == NULL)
		return APP_ENOMEM;
	code_res_bind(r);
	if ((er = db_run(db, s, p, r->b, found)) == APP_OK && *found)
		code_res_get(r, out);
	free(r);
	return er;
}

enum app_err
db_bypass_get_locked(struct db *db, int64_t id, struct bypass_code *out)
{
	MYSQL_BIND	 p[1];
	enum app_err	 er;
	int		 found;

	db_bind_int(&p[0], &id);
	if ((er = code_read(db, STMT_BYPASS_GET_LOCKED, p, out, &found)) !=
	    APP_OK)
		return er;
	return found ? APP_OK : APP_NOTFOUND;
}

enum app_err
db_bypass_set_disabled(struct db *db, int64_t id, int disabled)
{
	MYSQL_BIND	 p[2];
	int64_t		 d = disabled ? 1 : 0;

	db_bind_int(&p[0], &d);
	db_bind_int(&p[1], &id);
	return db_run(db, STMT_BYPASS_SET_DISABLED, p, NULL, NULL);
}

enum app_err
db_bypass_delete(struct db *db, int64_t id)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &id);
	return db_run(db, STMT_BYPASS_DELETE, p, NULL, NULL);
}

enum app_err
db_bypass_redeem(struct db *db, int64_t queue_id,
    const uint8_t hash[BYPASS_HASH_LEN], int *taken)
{
	MYSQL_BIND	 p[2];
	unsigned long	 len;
	enum app_err	 er;

	*taken = 0;
	bind_hash(&p[0], hash, &len);
	db_bind_int(&p[1], &queue_id);
	if ((er = db_run(db, STMT_BYPASS_REDEEM, p, NULL, NULL)) != APP_OK)
		return er;
	*taken = db_affected(db, STMT_BYPASS_REDEEM) == 1;
	return APP_OK;
}

enum app_err
db_bypass_why(struct db *db, int64_t queue_id,
    const uint8_t hash[BYPASS_HASH_LEN], struct bypass_code *out,
    int *found)
{
	MYSQL_BIND	 p[2];
	unsigned long	 len;

	bind_hash(&p[0], hash, &len);
	db_bind_int(&p[1], &queue_id);
	return code_read(db, STMT_BYPASS_WHY, p, out, found);
}

enum app_err
db_bypass_fail_count(struct db *db, const char *addr, int64_t window_ms,
    int64_t *count, int64_t *oldest_ms, int64_t *now_ms)
{
	MYSQL_BIND	 p[2], r[3];
	unsigned long	 l;
	int		 has = 0;
	enum app_err	 er;

	*count = *oldest_ms = *now_ms = 0;
	db_bind_str(&p[0], addr, &l);
	db_bind_int(&p[1], &window_ms);
	db_bind_int(&r[0], count);
	db_bind_int(&r[1], oldest_ms);
	db_bind_int(&r[2], now_ms);
	er = db_run(db, STMT_BYPASS_FAIL_COUNT, p, r, &has);
	if (er == APP_OK && !has)
		er = APP_DB;
	return er;
}

enum app_err
db_bypass_fail(struct db *db, const char *addr)
{
	MYSQL_BIND	 p[1];
	unsigned long	 l;

	db_bind_str(&p[0], addr, &l);
	return db_run(db, STMT_BYPASS_FAIL_INSERT, p, NULL, NULL);
}

enum app_err
db_bypass_fail_purge(struct db *db, int64_t window_ms)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &window_ms);
	return db_run(db, STMT_BYPASS_FAIL_PURGE, p, NULL, NULL);
}
