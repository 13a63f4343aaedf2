/*
 * statedoc.c - the poll document: built from a queue row, answered by
 * the app as a fallback, and written as files by the pool's master.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "db.h"
#include "extern.h"
#include "log.h"
#include "statedoc.h"

struct json_object *
statedoc_new(const struct queue *q, int64_t issued, int64_t now)
{
	struct json_object	*o = json_object_new_object();
	int64_t			 serving = adm_serving(&q->adm, now), p;

	if (issued < q->adm.last_number)
		issued = q->adm.last_number;
	json_object_object_add(o, "queue", json_object_new_string(q->slug));
	json_object_object_add(o, "active",
	    json_object_new_boolean(adm_active_at(&q->adm, now)));
	/* Only on hold: numbers taken, nobody new admitted. */
	if (adm_seg_at(&q->adm, now) == ADM_SEG_HOLD)
		json_object_object_add(o, "onHold",
		    json_object_new_boolean(1));
	json_object_object_add(o, "serving", json_object_new_int64(serving));
	json_object_object_add(o, "ratePerMinute",
	    json_object_new_int64(adm_rate_at(&q->adm, now)));
	json_object_object_add(o, "lastNumber",
	    json_object_new_int64(issued));
	json_object_object_add(o, "waiting",
	    json_object_new_int64(issued > serving ? issued - serving : 0));
	/*
	 * A scheduled opening: pre-queue numbers are admitted by their drawn
	 * position, which only /status computes (the seed stays secret
	 * until the opening); the page asks it while it holds one.
	 */
	if (q->adm.opens_at_ms > 0) {
		p = adm_prequeue_size(&q->adm, now);
		json_object_object_add(o, "opensAt",
		    json_object_new_int64(q->adm.opens_at_ms));
		json_object_object_add(o, "preQueue", p < 0 ? NULL :
		    json_object_new_int64(p));
	}
	/*
	 * A random order: its numbers are admitted by their position,
	 * which only the join and /status compute (the order key stays
	 * secret); the page asks /status for it.
	 */
	if (q->adm.rand_from > 0) {
		json_object_object_add(o, "randomFrom",
		    json_object_new_int64(q->adm.rand_from));
		json_object_object_add(o, "randomTo", q->adm.rand_to > 0 ?
		    json_object_new_int64(q->adm.rand_to) : NULL);
	}
	json_object_object_add(o, "updatedAt", json_object_new_int64(now));
	json_object_object_add(o, "refreshSeconds",
	    json_object_new_int(STATEDOC_REFRESH_S));
	return o;
}

void
page_state(struct req *r)
{
	struct json_object	*o = statedoc_new(r->qe->q,
	    qcache_issued(r->qe), r->now_ms);

	http_header(r, "Cache-Control", "public, max-age=1");
	http_json(r, 200, o);
	json_object_put(o);
}

/* Write o to dir/slug.json through a temporary file.  Returns 0 or -1. */
static int
write_one(const char *dir, const char *slug, struct json_object *o)
{
	char		*tmp, *path;
	const char	*s;
	size_t		 len;
	FILE		*f;
	int		 rc = -1;

	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
	tmp = xasprintf("%s/.%s.json.%ld", dir, slug, (long)getpid());
	path = xasprintf("%s/%s.json", dir, slug);
	if ((f = fopen(tmp, "w")) == NULL)
		goto out;
	if (fwrite(s, 1, len, f) != len || fputc('\n', f) == EOF) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(path);
	return rc;
}

/*
 * Remove dir/<slug>.json of every slug not among qs[0..n) (a deleted
 * queue's document must not be served on).  Other files stay.
 */
static void
remove_gone(const char *dir, struct queue **qs, size_t n)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 len, i;
	char		*path;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 5 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		for (i = 0; i < n; i++)
			if (strlen(qs[i]->slug) == len - 5 &&
			    strncmp(qs[i]->slug, de->d_name, len - 5) == 0)
				break;
		if (i < n)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		(void)unlink(path);
		free(path);
	}
	closedir(d);
}

int
statedoc_write_all(const struct cfg *c, struct db *db)
{
	static int		 failing;
	struct queue		**qs = NULL;
	struct json_object	*o;
	size_t			 n = 0, i;
	int64_t			 now;
	int			 written = 0;

	if (c->state_dir[0] == '\0')
		return 0;
	if (db_queue_list(db, &qs, &n) != APP_OK ||
	    db_now_ms(db, &now) != APP_OK) {
		if (!failing++)
			log_warnx("state documents: the database does not "
			    "answer; the files age (clients fall back)");
		db_queue_list_free(qs, n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		o = statedoc_new(qs[i], 0, now);
		if (write_one(c->state_dir, qs[i]->slug, o) == 0)
			written++;
		else if (!failing++)
			log_warn("state documents: %s", c->state_dir);
		json_object_put(o);
	}
	remove_gone(c->state_dir, qs, n);
	db_queue_list_free(qs, n);
	if (written == (int)n)
		failing = 0;
	return written == (int)n ? written : -1;
}

int
statedoc_write_one(const struct cfg *c, const struct queue *q, int64_t now)
{
	struct json_object	*o;
	int			 rc;

	if (c->state_dir[0] == '\0')
		return 0;
	o = statedoc_new(q, 0, now);
	rc = write_one(c->state_dir, q->slug, o);
	json_object_put(o);
	return rc;
}

void
statedoc_prune(const struct cfg *c, struct queue **qs, size_t n)
{
	if (c->state_dir[0] != '\0')
		remove_gone(c->state_dir, qs, n);
}
