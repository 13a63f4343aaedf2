/*
 * db-stats.c - the tables instance and queue_stats.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "aqueue.h"
#include "db-private.h"
#include "db-stats.h"

/* Bind a double, for input or result. */
static void
bind_double(MYSQL_BIND *b, double *v)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_DOUBLE;
	b->buffer = v;
}

/* Bind a string result buffer of cap bytes (one kept for the NUL). */
static void
bind_res_str(MYSQL_BIND *b, char *buf, size_t cap, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = cap - 1;
	b->length = len;
}

enum app_err
db_instance_upsert(struct db *db, const struct instance_row *r)
{
	MYSQL_BIND	 p[10];
	unsigned long	 l0, l1, l2, l8;
	int64_t		 pid = r->pid, workers = r->workers, busy = r->busy;
	int64_t		 rss = r->rss_kb, leader = r->leader;
	double		 cpu = r->cpu_pct;

	db_bind_str(&p[0], r->id, &l0);
	db_bind_str(&p[1], r->kind, &l1);
	db_bind_str(&p[2], r->host, &l2);
	db_bind_int(&p[3], &pid);
	db_bind_int(&p[4], &workers);
	db_bind_int(&p[5], &busy);
	bind_double(&p[6], &cpu);
	db_bind_int(&p[7], &rss);
	db_bind_str(&p[8], r->rps_json, &l8);
	db_bind_int(&p[9], &leader);
	return db_run(db, STMT_INSTANCE_UPSERT, p, NULL, NULL);
}

enum app_err
db_instance_delete(struct db *db, const char *id)
{
	MYSQL_BIND	 p[1];
	unsigned long	 l;

	db_bind_str(&p[0], id, &l);
	return db_run(db, STMT_INSTANCE_DELETE, p, NULL, NULL);
}

enum app_err
db_instance_purge(struct db *db, int64_t older_ms)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &older_ms);
	return db_run(db, STMT_INSTANCE_PURGE, p, NULL, NULL);
}

/* Rows collected by db_instance_list() and db_stats_series(). */
struct collect {
	void		*rows;
	size_t		 n, cap, size;
	const void	*cur;		/* the bound result row */
};

/* Append the bound row; 0, or -1 out of memory. */
static int
collect_row(void *arg)
{
	struct collect	*c = arg;
	void		*np;
	size_t		 ncap;

	if (c->n == c->cap) {
		ncap = c->cap == 0 ? 16 : c->cap * 2;
		if (ncap > SIZE_MAX / c->size ||
		    (np = try_malloc(ncap * c->size)) == NULL)
			return -1;
		if (c->n > 0)
			memcpy(np, c->rows, c->n * c->size);
		free(c->rows);
		c->rows = np;
		c->cap = ncap;
	}
	memcpy((char *)c->rows + c->n * c->size, c->cur, c->size);
	c->n++;
	return 0;
}

/* An instance row while it is fetched, with its string lengths. */
struct inst_res {
	struct instance_row	 row;
	unsigned long		 len[4];
};

/* NUL-terminate the strings of the fetched row. */
static int
inst_row(void *arg)
{
	struct collect	*c = arg;
	struct inst_res	*r = (struct inst_res *)(uintptr_t)c->cur;

	r->row.id[r->len[0] < INSTANCE_ID_MAX ? r->len[0] :
	    INSTANCE_ID_MAX] = '\0';
	r->row.kind[r->len[1] < 16 ? r->len[1] : 16] = '\0';
	r->row.host[r->len[2] < sizeof(r->row.host) - 1 ? r->len[2] :
	    sizeof(r->row.host) - 1] = '\0';
	r->row.rps_json[r->len[3] < INSTANCE_RPS_MAX ? r->len[3] :
	    INSTANCE_RPS_MAX] = '\0';
	return collect_row(c);
}

enum app_err
db_instance_list(struct db *db, int64_t within_ms,
    struct instance_row **out, size_t *n)
{
	MYSQL_BIND	 p[1], b[12];
	struct inst_res	 r;
	struct collect	 c;
	struct instance_row *w = &r.row;
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(struct instance_row);
	c.cur = &r;	/* row is the first member */
	db_bind_int(&p[0], &within_ms);
	bind_res_str(&b[0], w->id, sizeof(w->id), &r.len[0]);
	bind_res_str(&b[1], w->kind, sizeof(w->kind), &r.len[1]);
	bind_res_str(&b[2], w->host, sizeof(w->host), &r.len[2]);
	db_bind_int(&b[3], &w->pid);
	db_bind_int(&b[4], &w->workers);
	db_bind_int(&b[5], &w->busy);
	bind_double(&b[6], &w->cpu_pct);
	db_bind_int(&b[7], &w->rss_kb);
	bind_res_str(&b[8], w->rps_json, sizeof(w->rps_json), &r.len[3]);
	db_bind_int(&b[9], &w->leader);
	db_bind_int(&b[10], &w->started_ms);
	db_bind_int(&b[11], &w->seen_ms);
	er = db_run_each(db, STMT_INSTANCE_LIST, p, b, inst_row, &c);
	if (er != APP_OK) {
		free(c.rows);
		return er;
	}
	*out = c.rows;
	*n = c.n;
	return APP_OK;
}

enum app_err
db_named_lock(struct db *db, const char *name, int *held)
{
	MYSQL_BIND	 p[2], r[1];
	unsigned long	 l0, l1;
	int64_t		 v = 0;
	int		 has = 0;
	enum app_err	 er;

	*held = 0;
	db_bind_str(&p[0], name, &l0);
	db_bind_str(&p[1], name, &l1);
	db_bind_int(&r[0], &v);
	if ((er = db_run(db, STMT_STATS_LOCK, p, r, &has)) != APP_OK)
		return er;
	*held = has && v == 1;
	return APP_OK;
}

enum app_err
db_stats_prev(struct db *db, int64_t queue_id, int64_t at_ms,
    int64_t *issued, int64_t *sampled_ms, int *found)
{
	MYSQL_BIND	 p[2], r[2];
	int64_t		 iss = 0, at = 0;
	int		 has = 0;
	enum app_err	 er;

	*found = 0;
	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &at_ms);
	db_bind_int(&r[0], &iss);
	db_bind_int(&r[1], &at);
	if (at_ms >= 0 && (er = db_run(db, STMT_STATS_PREV, p, r, &has)) !=
	    APP_OK)
		return er;
	if (!has && (er = db_run(db, STMT_STATS_FIRST, p, r, &has)) !=
	    APP_OK)
		return er;
	if (has) {
		*found = 1;
		*issued = iss;
		*sampled_ms = at;
	}
	return APP_OK;
}

enum app_err
db_stats_insert(struct db *db, const struct stats_row *s)
{
	MYSQL_BIND	 p[8];
	struct stats_row r = *s;

	db_bind_int(&p[0], &r.queue_id);
	db_bind_int(&p[1], &r.sampled_ms);
	db_bind_int(&p[2], &r.waiting);
	bind_double(&p[3], &r.inflow_per_min);
	db_bind_int(&p[4], &r.rate_per_minute);
	db_bind_int(&p[5], &r.serving);
	db_bind_int(&p[6], &r.issued);
	db_bind_int(&p[7], &r.active);
	return db_run(db, STMT_STATS_INSERT, p, NULL, NULL);
}

enum app_err
db_prune(struct db *db, enum db_prune what, int64_t before_ms,
    int64_t max, int64_t *deleted)
{
	/* Each deletes rows older than its first parameter, at most its
	 * second. */
	static const enum stmt	 stmts[DB_PRUNE__MAX] = {
		STMT_STATS_PURGE,	/* DB_PRUNE_STATS */
		STMT_AR_LOG_PRUNE,	/* DB_PRUNE_AR_LOG */
		STMT_SERVED_PRUNE,	/* DB_PRUNE_SERVED */
	};
	MYSQL_BIND		 p[2];
	enum app_err		 er;

	*deleted = 0;
	if (what >= DB_PRUNE__MAX || max < 1)
		return APP_INVALID;
	db_bind_int(&p[0], &before_ms);
	db_bind_int(&p[1], &max);
	if ((er = db_run(db, stmts[what], p, NULL, NULL)) != APP_OK)
		return er;
	*deleted = db_affected(db, stmts[what]);
	return APP_OK;
}

enum app_err
db_stats_series(struct db *db, int64_t queue_id, int64_t since_ms,
    struct stats_row **out, size_t *n)
{
	MYSQL_BIND	 p[2], b[7];
	struct stats_row r;
	struct collect	 c;
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(r);
	c.cur = &r;
	r.queue_id = queue_id;
	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &since_ms);
	db_bind_int(&b[0], &r.sampled_ms);
	db_bind_int(&b[1], &r.waiting);
	bind_double(&b[2], &r.inflow_per_min);
	db_bind_int(&b[3], &r.rate_per_minute);
	db_bind_int(&b[4], &r.serving);
	db_bind_int(&b[5], &r.issued);
	db_bind_int(&b[6], &r.active);
	er = db_run_each(db, STMT_STATS_SERIES, p, b, collect_row, &c);
	if (er != APP_OK) {
		free(c.rows);
		return er;
	}
	*out = c.rows;
	*n = c.n;
	return APP_OK;
}
