/*
 * db-console.c - console users, sessions and failed log-ins.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-console.h"
#include "db-private.h"

/* Bind a string result buffer of cap bytes (one kept for the NUL). */
static void
res_str(MYSQL_BIND *b, char *buf, size_t cap, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = cap - 1;
	b->length = len;
}

/* Terminate a fetched string of len bytes in a buffer of cap bytes. */
static void
term(char *buf, size_t cap, unsigned long len)
{
	buf[len < cap - 1 ? len : cap - 1] = '\0';
}

enum app_err
db_admin_user_insert(struct db *db, const char *name, const char *hash,
    int64_t *id)
{
	MYSQL_BIND	 p[2];
	unsigned long	 l0, l1;
	enum app_err	 er;

	db_bind_str(&p[0], name, &l0);
	db_bind_str(&p[1], hash, &l1);
	er = db_run(db, STMT_ADMIN_USER_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_DUP_ENTRY)
		return APP_INVALID;
	if (er == APP_OK)
		*id = db_insert_id(db, STMT_ADMIN_USER_INSERT);
	return er;
}

/* Result binds of a user row. */
struct user_res {
	struct admin_user u;
	unsigned long	 len[2];
	MYSQL_BIND	 b[6];	/* the list's 6 columns; a get reads 5 */
};

static void
user_bind(struct user_res *r)
{
	memset(r, 0, sizeof(*r));
	db_bind_int(&r->b[0], &r->u.id);
	res_str(&r->b[1], r->u.name, sizeof(r->u.name), &r->len[0]);
	res_str(&r->b[2], r->u.hash, sizeof(r->u.hash), &r->len[1]);
	db_bind_int(&r->b[3], &r->u.created_ms);
	db_bind_int(&r->b[4], &r->u.disabled);
	db_bind_int(&r->b[5], &r->u.last_login_ms);
}

static void
user_term(struct user_res *r)
{
	term(r->u.name, sizeof(r->u.name), r->len[0]);
	term(r->u.hash, sizeof(r->u.hash), r->len[1]);
}

enum app_err
db_admin_user_get(struct db *db, const char *name, struct admin_user *u)
{
	MYSQL_BIND	 p[1];
	unsigned long	 l;
	struct user_res	 r;
	int		 has = 0;
	enum app_err	 er;

	user_bind(&r);
	db_bind_str(&p[0], name, &l);
	if ((er = db_run(db, STMT_ADMIN_USER_GET, p, r.b, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	user_term(&r);
	*u = r.u;
	return APP_OK;
}

/* Users collected by db_admin_user_list(). */
struct user_list {
	struct user_res	 r;
	struct admin_user *rows;
	size_t		 n, cap;
};

static int
user_row(void *arg)
{
	struct user_list	*l = arg;
	struct admin_user	*np;
	size_t			 ncap;

	if (l->n == l->cap) {
		ncap = l->cap == 0 ? 8 : l->cap * 2;
		if ((np = try_malloc(ncap * sizeof(*np))) == NULL)
			return -1;
		if (l->n > 0)
			memcpy(np, l->rows, l->n * sizeof(*np));
		free(l->rows);
		l->rows = np;
		l->cap = ncap;
	}
	user_term(&l->r);
	l->rows[l->n++] = l->r.u;
	return 0;
}

enum app_err
db_admin_user_list(struct db *db, struct admin_user **out, size_t *n)
{
	struct user_list	 l;
	enum app_err		 er;

	memset(&l, 0, sizeof(l));
	user_bind(&l.r);
	*out = NULL;
	*n = 0;
	er = db_run_each(db, STMT_ADMIN_USER_LIST, NULL, l.r.b, user_row, &l);
	if (er != APP_OK) {
		free(l.rows);
		return er;
	}
	*out = l.rows;
	*n = l.n;
	return APP_OK;
}

enum app_err
db_admin_user_set_hash(struct db *db, int64_t id, const char *hash)
{
	MYSQL_BIND	 p[2];
	unsigned long	 l;

	db_bind_str(&p[0], hash, &l);
	db_bind_int(&p[1], &id);
	return db_run(db, STMT_ADMIN_USER_SET_HASH, p, NULL, NULL);
}

enum app_err
db_admin_user_set_disabled(struct db *db, int64_t id, int disabled)
{
	MYSQL_BIND	 p[2];
	int64_t		 d = disabled ? 1 : 0;

	db_bind_int(&p[0], &d);
	db_bind_int(&p[1], &id);
	return db_run(db, STMT_ADMIN_USER_SET_DISABLED, p, NULL, NULL);
}

enum app_err
db_admin_session_insert(struct db *db, const uint8_t hash[32],
    int64_t user_id, const char *csrf, const char *addr)
{
	MYSQL_BIND	 p[4];
	unsigned long	 l0 = 32, l2, l3;

	db_bind_blob(&p[0], hash, &l0);
	db_bind_int(&p[1], &user_id);
	db_bind_str(&p[2], csrf, &l2);
	db_bind_str(&p[3], addr, &l3);
	return db_run(db, STMT_ADMIN_SESSION_INSERT, p, NULL, NULL);
}

enum app_err
db_admin_session_get(struct db *db, const uint8_t hash[32], int64_t idle_ms,
    int64_t max_ms, struct admin_session *s)
{
	MYSQL_BIND	 p[3], r[5];
	unsigned long	 l0 = 32, len[2];
	int		 has = 0;
	enum app_err	 er;

	memset(s, 0, sizeof(*s));
	db_bind_blob(&p[0], hash, &l0);
	db_bind_int(&p[1], &idle_ms);
	db_bind_int(&p[2], &max_ms);
	db_bind_int(&r[0], &s->user_id);
	res_str(&r[1], s->user, sizeof(s->user), &len[0]);
	res_str(&r[2], s->csrf, sizeof(s->csrf), &len[1]);
	db_bind_int(&r[3], &s->created_ms);
	db_bind_int(&r[4], &s->last_seen_ms);
	if ((er = db_run(db, STMT_ADMIN_SESSION_GET, p, r, &has)) != APP_OK)
		return er;
	if (!has)
		return APP_NOTFOUND;
	term(s->user, sizeof(s->user), len[0]);
	term(s->csrf, sizeof(s->csrf), len[1]);
	return APP_OK;
}

/* Run a statement whose one parameter is a session id hash. */
static enum app_err
by_hash(struct db *db, enum stmt st, const uint8_t hash[32])
{
	MYSQL_BIND	 p[1];
	unsigned long	 l = 32;

	db_bind_blob(&p[0], hash, &l);
	return db_run(db, st, p, NULL, NULL);
}

enum app_err
db_admin_session_touch(struct db *db, const uint8_t hash[32])
{
	return by_hash(db, STMT_ADMIN_SESSION_TOUCH, hash);
}

enum app_err
db_admin_session_delete(struct db *db, const uint8_t hash[32])
{
	return by_hash(db, STMT_ADMIN_SESSION_DELETE, hash);
}

enum app_err
db_admin_session_end_user(struct db *db, int64_t user_id)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &user_id);
	return db_run(db, STMT_ADMIN_SESSION_END_USER, p, NULL, NULL);
}

enum app_err
db_admin_session_purge(struct db *db, int64_t idle_ms, int64_t max_ms)
{
	MYSQL_BIND	 p[2];

	db_bind_int(&p[0], &idle_ms);
	db_bind_int(&p[1], &max_ms);
	return db_run(db, STMT_ADMIN_SESSION_PURGE, p, NULL, NULL);
}

enum app_err
db_login_stats(struct db *db, const char *name, const char *addr,
    int64_t window_ms, struct login_counts *n)
{
	MYSQL_BIND	 p[11], r[7];
	unsigned long	 ln, la;
	int64_t		*cols[7] = { &n->pair, &n->pair_oldest, &n->addr,
			    &n->addr_oldest, &n->user, &n->user_last, &n->now };
	/* Which parameter is the name (1) or the address (0). */
	static const int is_name[10] = { 1, 0, 1, 0, 0, 0, 1, 1, 1, 0 };
	size_t		 i;
	int		 has = 0;
	enum app_err	 er;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < 10; i++)
		db_bind_str(&p[i], is_name[i] ? name : addr,
		    is_name[i] ? &ln : &la);
	db_bind_int(&p[10], &window_ms);
	for (i = 0; i < 7; i++)
		db_bind_int(&r[i], cols[i]);
	er = db_run(db, STMT_LOGIN_STATS, p, r, &has);
	if (er == APP_OK && !has)
		er = APP_DB;
	return er;
}

enum app_err
db_login_fail(struct db *db, const char *user, const char *addr)
{
	MYSQL_BIND	 p[2];
	unsigned long	 l0, l1;

	db_bind_str(&p[0], user, &l0);
	db_bind_str(&p[1], addr, &l1);
	return db_run(db, STMT_LOGIN_FAIL_INSERT, p, NULL, NULL);
}

enum app_err
db_login_purge(struct db *db, int64_t window_ms)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &window_ms);
	return db_run(db, STMT_LOGIN_FAIL_PURGE, p, NULL, NULL);
}

enum app_err
db_login_reset(struct db *db, const char *user, const char *addr)
{
	MYSQL_BIND	 p[2];
	unsigned long	 l0, l1;

	db_bind_str(&p[0], user, &l0);
	db_bind_str(&p[1], addr, &l1);
	return db_run(db, STMT_LOGIN_RESET_USER, p, NULL, NULL);
}
