/*
 * db-draw.c - the rows of a scheduled opening's draw and of abandonment
 * detection: the opening's settings, seeds, closing pre-queues,
 * heartbeats and the worker's abandonment bookkeeping (see db.h).
 */
#include "config.h"

#include <string.h>

#include <mysql.h>

#include "aqueue.h"
#include "db-private.h"

/* State of db_draw_seedless() while the rows come in. */
struct seedless {
	struct draw_pending	*out, row;
	size_t			 max, n;
	unsigned long		 len;
};

static int
seedless_row(void *arg)
{
	struct seedless	*s = arg;

	if (s->n == s->max)
		return 0;
	s->row.slug[s->len < SLUG_MAX ? s->len : SLUG_MAX] = '\0';
	s->out[s->n++] = s->row;
	return 0;
}

enum app_err
db_draw_seedless(struct db *db, struct draw_pending *out, size_t max,
    size_t *n)
{
	struct seedless	 s;
	MYSQL_BIND	 r[3];
	enum app_err	 er;

	memset(&s, 0, sizeof(s));
	s.out = out;
	s.max = max;
	db_bind_int(&r[0], &s.row.id);
	memset(&r[1], 0, sizeof(r[1]));
	r[1].buffer_type = MYSQL_TYPE_STRING;
	r[1].buffer = s.row.slug;
	r[1].buffer_length = SLUG_MAX;
	r[1].length = &s.len;
	db_bind_int(&r[2], &s.row.arm);
	*n = 0;
	if ((er = db_run_each(db, STMT_DRAW_SEEDLESS, NULL, r, seedless_row,
	    &s)) != APP_OK)
		return er;
	*n = s.n;
	return APP_OK;
}

enum app_err
db_draw_set_seed(struct db *db, int64_t id, int64_t arm,
    const uint8_t *sealed, size_t len, const char *hash_hex, int *stored)
{
	MYSQL_BIND	 p[4];
	unsigned long	 blen = len, hlen;
	enum app_err	 er;

	*stored = 0;
	db_bind_blob(&p[0], sealed, &blen);
	db_bind_str(&p[1], hash_hex, &hlen);
	db_bind_int(&p[2], &id);
	db_bind_int(&p[3], &arm);
	if ((er = db_run(db, STMT_DRAW_SET_SEED, p, NULL, NULL)) != APP_OK)
		return er;
	*stored = db_affected(db, STMT_DRAW_SET_SEED) == 1;
	return APP_OK;
}

/* State of db_draw_close() while the due ids come in. */
struct due {
	int64_t	 id, ids[64];
	size_t	 n;
};

static int
due_row(void *arg)
{
	struct due	*d = arg;

	if (d->n < sizeof(d->ids) / sizeof(d->ids[0]))
		d->ids[d->n++] = d->id;
	return 0;
}

enum app_err
db_draw_close(struct db *db, int64_t *closed)
{
	struct due	 d;
	MYSQL_BIND	 r[1], p[1];
	size_t		 i;
	enum app_err	 er;

	*closed = 0;
	memset(&d, 0, sizeof(d));
	db_bind_int(&r[0], &d.id);
	if ((er = db_run_each(db, STMT_DRAW_DUE, NULL, r, due_row, &d)) !=
	    APP_OK)
		return er;
	for (i = 0; i < d.n; i++) {
		db_bind_int(&p[0], &d.ids[i]);
		if ((er = db_run(db, STMT_DRAW_CLOSE, p, NULL, NULL)) != APP_OK)
			return er;
		*closed += db_affected(db, STMT_DRAW_CLOSE);
	}
	return APP_OK;
}

enum app_err
db_draw_next(struct db *db, int64_t *next_ms)
{
	MYSQL_BIND	 r[1];
	int		 has = 0;
	enum app_err	 er;

	*next_ms = 0;
	db_bind_int(&r[0], next_ms);
	if ((er = db_run(db, STMT_DRAW_NEXT, NULL, r, &has)) != APP_OK)
		return er;
	if (!has)
		*next_ms = 0;
	return APP_OK;
}

enum app_err
db_presence_seen(struct db *db, int64_t id, int64_t number,
    int64_t coalesce_ms)
{
	MYSQL_BIND	 p[3];

	db_bind_int(&p[0], &id);
	db_bind_int(&p[1], &number);
	db_bind_int(&p[2], &coalesce_ms);
	return db_run(db, STMT_PRESENCE_SEEN, p, NULL, NULL);
}

/* State of db_abandon_queues() while the rows come in. */
struct slugs {
	char		 (*out)[SLUG_MAX + 1];
	char		 slug[SLUG_MAX + 1];
	size_t		 max, n;
	unsigned long	 len;
};

static int
slugs_row(void *arg)
{
	struct slugs	*s = arg;

	if (s->n == s->max)
		return 0;
	memcpy(s->out[s->n], s->slug, s->len);
	s->out[s->n][s->len] = '\0';
	s->n++;
	return 0;
}

enum app_err
db_abandon_queues(struct db *db, char (*out)[SLUG_MAX + 1], size_t max,
    size_t *n)
{
	struct slugs	 s;
	MYSQL_BIND	 r[1];
	enum app_err	 er;

	memset(&s, 0, sizeof(s));
	s.out = out;
	s.max = max;
	memset(&r[0], 0, sizeof(r[0]));
	r[0].buffer_type = MYSQL_TYPE_STRING;
	r[0].buffer = s.slug;
	r[0].buffer_length = SLUG_MAX;
	r[0].length = &s.len;
	*n = 0;
	er = db_run_each(db, STMT_ABANDON_QUEUES, NULL, r, slugs_row, &s);
	if (er != APP_OK)
		return er;
	*n = s.n;
	return APP_OK;
}

enum app_err
db_abandon_marks(struct db *db, int64_t id, struct abandon_marks *m)
{
	MYSQL_BIND	 p[1], r[3];
	int		 has = 0;
	enum app_err	 er;

	memset(m, 0, sizeof(*m));
	db_bind_int(&p[0], &id);
	db_bind_int(&r[0], &m->grace_s);
	db_bind_int(&r[1], &m->done);
	db_bind_int(&r[2], &m->total);
	if ((er = db_run(db, STMT_ABANDON_MARKS, p, r, &has)) != APP_OK)
		return er;
	return has ? APP_OK : APP_NOTFOUND;
}

/* Bind (id, lo, hi, since) of the two range statements. */
static void
range_bind(MYSQL_BIND *p, int64_t *id, int64_t *lo, int64_t *hi,
    int64_t *since)
{
	db_bind_int(&p[0], id);
	db_bind_int(&p[1], lo);
	db_bind_int(&p[2], hi);
	db_bind_int(&p[3], since);
}

enum app_err
db_abandon_present(struct db *db, int64_t id, int64_t lo, int64_t hi,
    int64_t since_ms, int64_t *n)
{
	MYSQL_BIND	 p[4], r[1];
	int		 has = 0;

	*n = 0;
	range_bind(p, &id, &lo, &hi, &since_ms);
	db_bind_int(&r[0], n);
	return db_run(db, STMT_ABANDON_PRESENT, p, r, &has);
}

enum app_err
db_abandon_mark(struct db *db, int64_t id, int64_t lo, int64_t hi,
    int64_t since_ms, int64_t *n)
{
	MYSQL_BIND	 p[4];
	enum app_err	 er;

	*n = 0;
	range_bind(p, &id, &lo, &hi, &since_ms);
	if ((er = db_run(db, STMT_ABANDON_MARK_RANGE, p, NULL, NULL)) !=
	    APP_OK)
		return er;
	*n = db_affected(db, STMT_ABANDON_MARK_RANGE);
	return APP_OK;
}

enum app_err
db_abandon_save(struct db *db, int64_t id, const struct abandon_marks *m,
    int64_t added)
{
	MYSQL_BIND	 p[3];
	struct abandon_marks c = *m;

	db_bind_int(&p[0], &c.done);
	db_bind_int(&p[1], &added);
	db_bind_int(&p[2], &id);
	return db_run(db, STMT_ABANDON_SAVE, p, NULL, NULL);
}

enum app_err
db_presence_prune(struct db *db, int64_t id, int64_t upto)
{
	MYSQL_BIND	 p[2];

	db_bind_int(&p[0], &id);
	db_bind_int(&p[1], &upto);
	return db_run(db, STMT_PRESENCE_PRUNE, p, NULL, NULL);
}

enum app_err
db_issue_mark_add(struct db *db, int64_t id, int64_t now_ms, int64_t last,
    int64_t every_ms)
{
	MYSQL_BIND	 p[5];
	int64_t		 since = now_ms - every_ms;

	db_bind_int(&p[0], &id);
	db_bind_int(&p[1], &now_ms);
	db_bind_int(&p[2], &last);
	db_bind_int(&p[3], &id);
	db_bind_int(&p[4], &since);
	return db_run(db, STMT_ISSUE_MARK_ADD, p, NULL, NULL);
}

enum app_err
db_issue_mark_get(struct db *db, int64_t id, int64_t at_ms,
    int64_t *mark_ms, int64_t *number, int *found)
{
	MYSQL_BIND	 p[2], r[2];
	enum app_err	 er;

	*mark_ms = *number = 0;
	*found = 0;
	db_bind_int(&p[0], &id);
	db_bind_int(&p[1], &at_ms);
	db_bind_int(&r[0], mark_ms);
	db_bind_int(&r[1], number);
	if ((er = db_run(db, STMT_ISSUE_MARK_GET, p, r, found)) != APP_OK)
		return er;
	if (!*found)
		*mark_ms = *number = 0;
	return APP_OK;
}

enum app_err
db_issue_mark_prune(struct db *db, int64_t id, int64_t before_ms)
{
	MYSQL_BIND	 p[2];

	db_bind_int(&p[0], &id);
	db_bind_int(&p[1], &before_ms);
	return db_run(db, STMT_ISSUE_MARK_PRUNE, p, NULL, NULL);
}
