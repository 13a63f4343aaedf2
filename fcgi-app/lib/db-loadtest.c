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

#define LT_NSTR	9	/* string columns of a run's row */
#define LT_NINT	24	/* integer columns */

/* Result buffers of a run's row (LT_COLS of db-stmt.c). */
struct run_res {
	struct lt_run	 r;
	unsigned long	 len[LT_NSTR];
	my_bool		 null[LT_NSTR];
	MYSQL_BIND	 b[LT_NSTR + LT_NINT];
};

/* The string columns: their index in LT_COLS and their buffer. */
static void
run_res_bind(struct run_res *x)
{
	struct lt_run	*r = &x->r;
	char		*str[LT_NSTR] = { r->slug, r->profile,
	    r->requested_by, r->status, r->runner, r->flag_reason,
	    r->error, r->replay_slug, r->served_by };
	size_t		 cap[LT_NSTR] = { sizeof(r->slug),
	    sizeof(r->profile), sizeof(r->requested_by), sizeof(r->status),
	    sizeof(r->runner), sizeof(r->flag_reason), sizeof(r->error),
	    sizeof(r->replay_slug), sizeof(r->served_by) };
	const int	 col[LT_NSTR] = { 2, 3, 6, 7, 8, 19, 21, 27, 32 };
	int64_t		*iv[LT_NINT] = { &r->id, &r->queue_id, &r->rate,
	    &r->duration_s, &r->created_ms, &r->started_ms, &r->finished_ms,
	    &r->sent, &r->ok, &r->errors, &r->p50_us, &r->p95_us, &r->p99_us,
	    &r->flagged, &r->elapsed_ms, &r->now_ms, &r->joins, &r->polls,
	    &r->claims, &r->replay_queue_id, &r->replay_from_ms,
	    &r->replay_to_ms, &r->replay_speed_milli, &r->replay_volume_milli };
	const int	 icol[LT_NINT] = { 0, 1, 4, 5, 9, 10, 11, 12, 13, 14,
	    15, 16, 17, 18, 20, 22, 23, 24, 25, 26, 28, 29, 30, 31 };
	size_t		 i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < LT_NSTR; i++)
		db_bind_res_str(&x->b[col[i]], str[i], cap[i] - 1, &x->len[i],
		    &x->null[i]);
	for (i = 0; i < LT_NINT; i++)
		db_bind_int(&x->b[icol[i]], iv[i]);
}

/* The fetched row of x, its strings ended, into *out. */
static void
run_res_get(struct run_res *x, struct lt_run *out)
{
	struct lt_run	*r = &x->r;
	char		*str[LT_NSTR] = { r->slug, r->profile,
	    r->requested_by, r->status, r->runner, r->flag_reason,
	    r->error, r->replay_slug, r->served_by };
	size_t		 cap[LT_NSTR] = { sizeof(r->slug),
	    sizeof(r->profile), sizeof(r->requested_by), sizeof(r->status),
	    sizeof(r->runner), sizeof(r->flag_reason), sizeof(r->error),
	    sizeof(r->replay_slug), sizeof(r->served_by) };
	size_t		 i, n;

	for (i = 0; i < LT_NSTR; i++) {
		n = x->null[i] ? 0 : x->len[i];
		str[i][n < cap[i] ? n : cap[i] - 1] = '\0';
	}
	*out = *r;
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
	struct run_res	*x;
	MYSQL_BIND	 p[1];
	enum app_err	 er;
	int		 found = 0;

	memset(out, 0, sizeof(*out));
	if ((x = try_calloc(1, sizeof(*x))) == NULL)
		return APP_ENOMEM;
	run_res_bind(x);
	db_bind_int(&p[0], &id);
	if ((er = db_run(db, STMT_LT_GET, p, x->b, &found)) == APP_OK &&
	    found)
		run_res_get(x, out);
	free(x);
	if (er != APP_OK)
		return er;
	return found ? APP_OK : APP_NOTFOUND;
}

/* State of a list of runs while rows come in. */
struct run_list {
	struct run_res	 x;
	struct lt_run	*r;
	size_t		 n, cap;
};

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

/* db_run_each() callback.  Returns 0, or -1 on allocation failure. */
static int
run_list_row(void *arg)
{
	struct run_list	*l = arg;
	struct lt_run	*r;

	if ((r = append((void **)&l->r, &l->n, &l->cap, sizeof(*r))) ==
	    NULL)
		return -1;
	run_res_get(&l->x, r);
	return 0;
}

/* Run statement s with p as a list of runs into *out, *n. */
static enum app_err
run_list(struct db *db, enum stmt s, MYSQL_BIND *p, struct lt_run **out,
    size_t *n)
{
	struct run_list	*l;
	enum app_err	 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	run_res_bind(&l->x);
	er = db_run_each(db, s, p, l->x.b, run_list_row, l);
	if (er == APP_OK) {
		*out = l->r;
		*n = l->n;
	} else
		free(l->r);
	free(l);
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

#define LTS_NSTR	4	/* string columns of a schedule's row */
#define LTS_NINT	10	/* integer columns */

/* Result buffers of a schedule's row (LTS_COLS of db-stmt.c). */
struct sched_res {
	struct lt_schedule	 s;
	unsigned long		 len[LTS_NSTR];
	my_bool			 null[LTS_NSTR];
	MYSQL_BIND		 b[LTS_NSTR + LTS_NINT];
};

static void
sched_res_bind(struct sched_res *x)
{
	struct lt_schedule	*s = &x->s;
	char			*str[LTS_NSTR] = { s->slug, s->profile,
	    s->zone, s->created_by };
	size_t			 cap[LTS_NSTR] = { sizeof(s->slug),
	    sizeof(s->profile), sizeof(s->zone), sizeof(s->created_by) };
	const int		 col[LTS_NSTR] = { 2, 3, 9, 11 };
	int64_t			*iv[LTS_NINT] = { &s->id, &s->queue_id,
	    &s->rate, &s->duration_s, &s->every_min, &s->weekday, &s->at_min,
	    &s->next_ms, &s->created_ms, &s->last_run_id };
	const int		 icol[LTS_NINT] = { 0, 1, 4, 5, 6, 7, 8, 10,
	    12, 13 };
	size_t			 i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < LTS_NSTR; i++)
		db_bind_res_str(&x->b[col[i]], str[i], cap[i] - 1, &x->len[i],
		    &x->null[i]);
	for (i = 0; i < LTS_NINT; i++)
		db_bind_int(&x->b[icol[i]], iv[i]);
}

static void
sched_res_get(struct sched_res *x, struct lt_schedule *out)
{
	struct lt_schedule	*s = &x->s;
	char			*str[LTS_NSTR] = { s->slug, s->profile,
	    s->zone, s->created_by };
	size_t			 cap[LTS_NSTR] = { sizeof(s->slug),
	    sizeof(s->profile), sizeof(s->zone), sizeof(s->created_by) };
	size_t			 i, n;

	for (i = 0; i < LTS_NSTR; i++) {
		n = x->null[i] ? 0 : x->len[i];
		str[i][n < cap[i] ? n : cap[i] - 1] = '\0';
	}
	*out = *s;
}

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

/* State of a list of schedules while rows come in. */
struct sched_list {
	struct sched_res	 x;
	struct lt_schedule	*s;
	size_t			 n, cap;
};

/* db_run_each() callback.  Returns 0, or -1 on allocation failure. */
static int
sched_list_row(void *arg)
{
	struct sched_list	*l = arg;
	struct lt_schedule	*s;

	if ((s = append((void **)&l->s, &l->n, &l->cap, sizeof(*s))) ==
	    NULL)
		return -1;
	sched_res_get(&l->x, s);
	return 0;
}

/* Run statement st with p as a list of schedules into *out, *n. */
static enum app_err
sched_list(struct db *db, enum stmt st, MYSQL_BIND *p,
    struct lt_schedule **out, size_t *n)
{
	struct sched_list	*l;
	enum app_err		 er;

	*out = NULL;
	*n = 0;
	if ((l = try_calloc(1, sizeof(*l))) == NULL)
		return APP_ENOMEM;
	sched_res_bind(&l->x);
	er = db_run_each(db, st, p, l->x.b, sched_list_row, l);
	if (er == APP_OK) {
		*out = l->s;
		*n = l->n;
	} else
		free(l->s);
	free(l);
	return er;
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
