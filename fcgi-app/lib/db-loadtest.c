/*
 * db-loadtest.c - load tests' rows and their series (see
 * db-loadtest.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-loadtest.h"
#include "db-private.h"


/*
 * One row's result buffers: the struct fetched into (a run or a
 * schedule), its string members (address, capacity) and the binds of
 * every column, set by its describe function (run_describe(),
 * sched_describe()).
 */
#define ROW_STR_MAX	9
#define ROW_INT_MAX	24
struct row {
	union {
		struct lt_run		 run;
		struct lt_schedule	 sched;
	}		 rec;
	size_t		 size;		/* of the struct in rec */
	size_t		 nstr;
	char		*str[ROW_STR_MAX];
	size_t		 cap[ROW_STR_MAX];
	unsigned long	 len[ROW_STR_MAX];
	my_bool		 null[ROW_STR_MAX];
	MYSQL_BIND	 b[ROW_STR_MAX + ROW_INT_MAX];
};

/*
 * Bind w's columns: nstr strings str[i] of cap[i] bytes at column
 * col[i], nint integers iv[i] at column icol[i].  Can't fail.
 */
static void
row_bind(struct row *w, char *const *str, const size_t *cap,
    const int *col, size_t nstr, int64_t *const *iv, const int *icol,
    size_t nint)
{
	size_t	 i;

	w->nstr = nstr;
	for (i = 0; i < nstr; i++) {
		w->str[i] = str[i];
		w->cap[i] = cap[i];
		db_bind_res_str(&w->b[col[i]], str[i], cap[i] - 1, &w->len[i],
		    &w->null[i]);
	}
	for (i = 0; i < nint; i++)
		db_bind_int(&w->b[icol[i]], iv[i]);
}

/* A run's row (LT_COLS of db-stmt.c) into w->rec.run. */
static void
run_describe(struct row *w)
{
	struct lt_run	*r = &w->rec.run;
	char		*str[] = { r->slug, r->profile, r->requested_by,
	    r->status, r->runner, r->flag_reason, r->error, r->replay_slug,
	    r->served_by };
	const size_t	 cap[] = { sizeof(r->slug), sizeof(r->profile),
	    sizeof(r->requested_by), sizeof(r->status), sizeof(r->runner),
	    sizeof(r->flag_reason), sizeof(r->error), sizeof(r->replay_slug),
	    sizeof(r->served_by) };
	static const int col[] = { 2, 3, 6, 7, 8, 19, 21, 27, 32 };
	int64_t		*iv[] = { &r->id, &r->queue_id, &r->rate,
	    &r->duration_s, &r->created_ms, &r->started_ms, &r->finished_ms,
	    &r->sent, &r->ok, &r->errors, &r->p50_us, &r->p95_us, &r->p99_us,
	    &r->flagged, &r->elapsed_ms, &r->now_ms, &r->joins, &r->polls,
	    &r->claims, &r->replay_queue_id, &r->replay_from_ms,
	    &r->replay_to_ms, &r->replay_speed_milli, &r->replay_volume_milli };
	static const int icol[] = { 0, 1, 4, 5, 9, 10, 11, 12, 13, 14, 15,
	    16, 17, 18, 20, 22, 23, 24, 25, 26, 28, 29, 30, 31 };

	w->size = sizeof(*r);
	row_bind(w, str, cap, col, sizeof(col) / sizeof(col[0]), iv, icol,
	    sizeof(icol) / sizeof(icol[0]));
}

/* A schedule's row (LTS_COLS of db-stmt.c) into w->rec.sched. */
static void
sched_describe(struct row *w)
{
	struct lt_schedule	*s = &w->rec.sched;
	char			*str[] = { s->slug, s->profile, s->zone,
	    s->created_by };
	const size_t		 cap[] = { sizeof(s->slug), sizeof(s->profile),
	    sizeof(s->zone), sizeof(s->created_by) };
	static const int	 col[] = { 2, 3, 9, 11 };
	int64_t			*iv[] = { &s->id, &s->queue_id, &s->rate,
	    &s->duration_s, &s->every_min, &s->weekday, &s->at_min,
	    &s->next_ms, &s->created_ms, &s->last_run_id };
	static const int	 icol[] = { 0, 1, 4, 5, 6, 7, 8, 10, 12, 13 };

	w->size = sizeof(*s);
	row_bind(w, str, cap, col, sizeof(col) / sizeof(col[0]), iv, icol,
	    sizeof(icol) / sizeof(icol[0]));
}

/*
 * Make room for one more element of size bytes in the array *v of *n
 * (*cap allocated, doubled when full).  Returns the new element, or
 * NULL when out of memory (*v unchanged).
 */
static void *
append(void **v, size_t *n, size_t *cap, size_t size)
{
	void	*nv;
	size_t	 c;

	if (*n == *cap) {
		c = *cap == 0 ? 16 : *cap * 2;
		if ((nv = try_reallocarray(*v, c, size)) == NULL)
			return NULL;
		*v = nv;
		*cap = c;
	}
	return (char *)*v + (*n)++ * size;
}

/* State of a list of rows while they come in. */
struct row_list {
	struct row	 w;
	void		*v;
	size_t		 n, cap;
};

/*
 * db_run_each() callback: the fetched row, its strings ended, appended.
 * Returns 0, or -1 on allocation failure.
 */
static int
row_list_row(void *arg)
{
	struct row_list	*l = arg;
	struct row	*w = &l->w;
	void		*e;
	size_t		 i, n;

	for (i = 0; i < w->nstr; i++) {
		n = w->null[i] ? 0 : w->len[i];
		w->str[i][n < w->cap[i] ? n : w->cap[i] - 1] = '\0';
	}
	if ((e = append(&l->v, &l->n, &l->cap, w->size)) == NULL)
		return -1;
	memcpy(e, &w->rec, w->size);
	return 0;
}

/*
 * Run statement s with p; each row described by describe() into a new
 * array *out of *n (NULL when none), freed with free().  Returns as
 * db_run_each().
 */
static enum app_err
row_list(struct db *db, enum stmt s, MYSQL_BIND *p,
    void (*describe)(struct row *), void **out, size_t *n)
{
	struct row_list	*l;
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	describe(&l->w);
	er = db_run_each(db, s, p, l->w.b, row_list_row, l);
	if (er == APP_OK) {
		*out = l->v;
		*n = l->n;
	} else
		free(l->v);
	free(l);
	return er;
}

/* Run statement s with p as a list of runs into *out, *n. */
static enum app_err
run_list(struct db *db, enum stmt s, MYSQL_BIND *p, struct lt_run **out,
    size_t *n)
{
	void		*v = NULL;
	enum app_err	 er;

	er = row_list(db, s, p, run_describe, &v, n);
	*out = v;
	return er;
}

/* Run statement st with p as a list of schedules into *out, *n. */
static enum app_err
sched_list(struct db *db, enum stmt st, MYSQL_BIND *p,
    struct lt_schedule **out, size_t *n)
{
	void		*v = NULL;
	enum app_err	 er;

	er = row_list(db, st, p, sched_describe, &v, n);
	*out = v;
	return er;
}

enum app_err
db_lt_insert(struct db *db, const struct lt_run *r, int64_t *id)
{
	struct lt_run	 t = *r;
	MYSQL_BIND	 p[10];
	unsigned long	 len[2];
	enum app_err	 er;

	db_bind_int(&p[0], &t.queue_id);
	db_bind_str(&p[1], t.profile, &len[0]);
	db_bind_int(&p[2], &t.rate);
	db_bind_int(&p[3], &t.duration_s);
	db_bind_str(&p[4], t.requested_by, &len[1]);
	db_bind_int(&p[5], &t.replay_queue_id);
	db_bind_int(&p[6], &t.replay_from_ms);
	db_bind_int(&p[7], &t.replay_to_ms);
	db_bind_int(&p[8], &t.replay_speed_milli);
	db_bind_int(&p[9], &t.replay_volume_milli);
	er = db_run(db, STMT_LT_INSERT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_NO_REFERENCED_ROW_2)
		return APP_NOTFOUND;
	if (er != APP_OK)
		return er;
	*id = db_insert_id(db, STMT_LT_INSERT);
	return APP_OK;
}

enum app_err
db_lt_get(struct db *db, int64_t id, struct lt_run *out)
{
	struct lt_run	*r = NULL;
	MYSQL_BIND	 p[1];
	size_t		 n = 0;
	enum app_err	 er;

	memset(out, 0, sizeof(*out));
	db_bind_int(&p[0], &id);
	if ((er = run_list(db, STMT_LT_GET, p, &r, &n)) == APP_OK) {
		if (n == 0)
			er = APP_NOTFOUND;
		else
			*out = r[0];
	}
	free(r);
	return er;
}

enum app_err
db_lt_list(struct db *db, int64_t queue_id, int64_t limit,
    struct lt_run **out, size_t *n)
{
	MYSQL_BIND	 p[3];

	db_bind_int(&p[0], &queue_id);
	db_bind_int(&p[1], &queue_id);
	db_bind_int(&p[2], &limit);
	return run_list(db, STMT_LT_LIST, p, out, n);
}

enum app_err
db_lt_latest(struct db *db, struct lt_run **out, size_t *n)
{
	return run_list(db, STMT_LT_LATEST, NULL, out, n);
}

/* State of db_lt_seconds() while rows come in. */
struct sec_list {
	struct lt_second	 s;
	MYSQL_BIND		 b[7];
	struct lt_second	*v;
	size_t			 n, cap;
};

/* db_run_each() callback.  Returns 0, or -1 on allocation failure. */
static int
sec_list_row(void *arg)
{
	struct sec_list		*l = arg;
	struct lt_second	*s;

	if ((s = append((void **)&l->v, &l->n, &l->cap, sizeof(*s))) ==
	    NULL)
		return -1;
	*s = l->s;
	return 0;
}

enum app_err
db_lt_seconds(struct db *db, int64_t id, struct lt_second **out,
    size_t *n)
{
	struct sec_list	*l;
	MYSQL_BIND	 p[1];
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	db_bind_int(&l->b[0], &l->s.sec);
	db_bind_int(&l->b[1], &l->s.sent);
	db_bind_int(&l->b[2], &l->s.ok);
	db_bind_int(&l->b[3], &l->s.errors);
	db_bind_int(&l->b[4], &l->s.p50_us);
	db_bind_int(&l->b[5], &l->s.p95_us);
	db_bind_int(&l->b[6], &l->s.p99_us);
	db_bind_int(&p[0], &id);
	er = db_run_each(db, STMT_LT_SECONDS, p, l->b, sec_list_row, l);
	if (er == APP_OK) {
		*out = l->v;
		*n = l->n;
	} else
		free(l->v);
	free(l);
	return er;
}

enum app_err
db_lt_claim(struct db *db, const char *runner, int64_t stale_ms,
    int64_t *id)
{
	MYSQL_BIND	 p[1];
	unsigned long	 len;
	enum app_err	 er;

	*id = 0;
	db_bind_int(&p[0], &stale_ms);
	if ((er = db_run(db, STMT_LT_STALE, p, NULL, NULL)) != APP_OK)
		return er;
	db_bind_str(&p[0], runner, &len);
	if ((er = db_run(db, STMT_LT_CLAIM, p, NULL, NULL)) != APP_OK)
		return er;
	if (db_affected(db, STMT_LT_CLAIM) == 1)
		*id = db_insert_id(db, STMT_LT_CLAIM);
	return APP_OK;
}

enum app_err
db_lt_progress(struct db *db, const struct lt_run *r,
    const struct lt_second *s, int *live)
{
	MYSQL_BIND	 p[11];
	struct lt_run	 t = *r;
	struct lt_second u;
	enum app_err	 er;

	db_bind_int(&p[0], &t.sent);
	db_bind_int(&p[1], &t.ok);
	db_bind_int(&p[2], &t.errors);
	db_bind_int(&p[3], &t.p50_us);
	db_bind_int(&p[4], &t.p95_us);
	db_bind_int(&p[5], &t.p99_us);
	db_bind_int(&p[6], &t.elapsed_ms);
	db_bind_int(&p[7], &t.joins);
	db_bind_int(&p[8], &t.polls);
	db_bind_int(&p[9], &t.claims);
	db_bind_int(&p[10], &t.id);
	*live = 1;
	if ((er = db_run(db, STMT_LT_PROGRESS, p, NULL, NULL)) != APP_OK)
		return er;
	if (db_affected(db, STMT_LT_PROGRESS) == 0) {
		*live = 0;
		return APP_OK;
	}
	if (s == NULL)
		return er;
	u = *s;
	db_bind_int(&p[0], &t.id);
	db_bind_int(&p[1], &u.sec);
	db_bind_int(&p[2], &u.sent);
	db_bind_int(&p[3], &u.ok);
	db_bind_int(&p[4], &u.errors);
	db_bind_int(&p[5], &u.p50_us);
	db_bind_int(&p[6], &u.p95_us);
	db_bind_int(&p[7], &u.p99_us);
	return db_run(db, STMT_LT_SECOND, p, NULL, NULL);
}

enum app_err
db_lt_finish(struct db *db, int64_t id, const char *status,
    const char *error, int flagged, const char *reason,
    const char *served_by, const char *runner)
{
	MYSQL_BIND	 p[7];
	unsigned long	 len[5];
	int64_t		 f = flagged != 0;

	db_bind_str(&p[0], status, &len[0]);
	db_bind_str(&p[1], error, &len[1]);
	db_bind_int(&p[2], &f);
	db_bind_str(&p[3], reason, &len[2]);
	db_bind_str(&p[4], served_by, &len[3]);
	db_bind_int(&p[5], &id);
	db_bind_str(&p[6], runner, &len[4]);
	return db_run(db, STMT_LT_FINISH, p, NULL, NULL);
}

/* State of db_lt_prior() while rows come in. */
struct prior {
	int64_t		 p95, ppm;
	MYSQL_BIND	 b[2];
	int64_t		*p95_us, *err_ppm;
	size_t		 n;
};

/* db_run_each() callback.  Returns 0. */
static int
prior_row(void *arg)
{
	struct prior	*l = arg;

	if (l->n < LT_PRIOR_MAX) {
		l->p95_us[l->n] = l->p95;
		l->err_ppm[l->n] = l->ppm;
		l->n++;
	}
	return 0;
}

enum app_err
db_lt_prior(struct db *db, const struct lt_run *r,
    int64_t p95_us[LT_PRIOR_MAX], int64_t err_ppm[LT_PRIOR_MAX],
    size_t *n)
{
	struct prior	 l;
	struct lt_run	 t = *r;
	MYSQL_BIND	 p[10];
	unsigned long	 len;
	enum app_err	 er;

	memset(&l, 0, sizeof(l));
	l.p95_us = p95_us;
	l.err_ppm = err_ppm;
	db_bind_int(&l.b[0], &l.p95);
	db_bind_int(&l.b[1], &l.ppm);
	db_bind_int(&p[0], &t.queue_id);
	db_bind_str(&p[1], t.profile, &len);
	db_bind_int(&p[2], &t.rate);
	db_bind_int(&p[3], &t.duration_s);
	db_bind_int(&p[4], &t.replay_queue_id);
	db_bind_int(&p[5], &t.replay_from_ms);
	db_bind_int(&p[6], &t.replay_to_ms);
	db_bind_int(&p[7], &t.replay_speed_milli);
	db_bind_int(&p[8], &t.replay_volume_milli);
	db_bind_int(&p[9], &t.id);
	er = db_run_each(db, STMT_LT_PRIOR, p, l.b, prior_row, &l);
	*n = l.n;
	return er;
}

/* ---- schedules ------------------------------------------------- */

enum app_err
db_lts_insert(struct db *db, const struct lt_schedule *s, int64_t *id)
{
	struct lt_schedule	 t = *s;
	MYSQL_BIND		 p[10];
	unsigned long		 len[3];
	enum app_err		 er;

	db_bind_int(&p[0], &t.queue_id);
	db_bind_str(&p[1], t.profile, &len[0]);
	db_bind_int(&p[2], &t.rate);
	db_bind_int(&p[3], &t.duration_s);
	db_bind_int(&p[4], &t.every_min);
	db_bind_int(&p[5], &t.weekday);
	db_bind_int(&p[6], &t.at_min);
	db_bind_str(&p[7], t.zone, &len[1]);
	db_bind_opt_int(&p[8], &t.next_ms);
	db_bind_str(&p[9], t.created_by, &len[2]);
	if ((er = db_run(db, STMT_LTS_INSERT, p, NULL, NULL)) != APP_OK)
		return er;
	*id = db_insert_id(db, STMT_LTS_INSERT);
	return APP_OK;
}

enum app_err
db_lts_list(struct db *db, struct lt_schedule **out, size_t *n)
{
	return sched_list(db, STMT_LTS_LIST, NULL, out, n);
}

enum app_err
db_lts_due(struct db *db, struct lt_schedule **out, size_t *n)
{
	return sched_list(db, STMT_LTS_DUE, NULL, out, n);
}

enum app_err
db_lts_get(struct db *db, int64_t id, struct lt_schedule *out)
{
	struct lt_schedule	*s = NULL;
	MYSQL_BIND		 p[1];
	size_t			 n = 0;
	enum app_err		 er;

	db_bind_int(&p[0], &id);
	if ((er = sched_list(db, STMT_LTS_GET, p, &s, &n)) == APP_OK) {
		if (n == 0)
			er = APP_NOTFOUND;
		else
			*out = s[0];
	}
	free(s);
	return er;
}

enum app_err
db_lts_delete(struct db *db, int64_t id)
{
	MYSQL_BIND	 p[1];

	db_bind_int(&p[0], &id);
	return db_run(db, STMT_LTS_DELETE, p, NULL, NULL);
}

enum app_err
db_lts_advance(struct db *db, int64_t id, int64_t old_next,
    int64_t new_next, int64_t run_id, int *moved)
{
	MYSQL_BIND	 p[4];
	enum app_err	 er;

	db_bind_int(&p[0], &new_next);
	db_bind_int(&p[1], &run_id);
	db_bind_int(&p[2], &id);
	db_bind_int(&p[3], &old_next);
	er = db_run(db, STMT_LTS_ADVANCE, p, NULL, NULL);
	*moved = er == APP_OK && db_affected(db, STMT_LTS_ADVANCE) == 1;
	return er;
}
