/*
 * loadtest-sched.c - recurring load tests (see loadtest.h): the next
 * run's time (an interval, or a weekday and time in the operator's
 * zone), making and deleting schedules, and the leader's step that asks
 * for the runs that are due.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cfg.h"
#include "db.h"
#include "db-loadtest.h"
#include "isotime.h"
#include "loadtest.h"
#include "log.h"
#include "principal.h"
#include "queue-audit.h"
#include "queue-ops.h"

static const char *const weekdays[7] = { "sunday", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday" };

int
lt_weekday(const char *name)
{
	int	 i;

	for (i = 0; name != NULL && i < 7; i++)
		if (strcmp(name, weekdays[i]) == 0)
			return i;
	return -1;
}

int64_t
lt_hhmm(const char *s)
{
	if (s == NULL || strlen(s) != 5 || s[2] != ':' ||
	    s[0] < '0' || s[0] > '2' || s[1] < '0' || s[1] > '9' ||
	    s[3] < '0' || s[3] > '5' || s[4] < '0' || s[4] > '9')
		return -1;
	if ((s[0] - '0') * 10 + (s[1] - '0') > 23)
		return -1;
	return ((s[0] - '0') * 10 + (s[1] - '0')) * 60 +
	    (s[3] - '0') * 10 + (s[4] - '0');
}

int
lt_zone_valid(const char *zone)
{
	const char	*dir = getenv("TZDIR"), *p;
	char		 path[512];
	struct stat	 st;

	if (zone == NULL || zone[0] == '\0' || zone[0] == '/' ||
	    strlen(zone) > LT_ZONE_MAX || strstr(zone, "..") != NULL ||
	    strstr(zone, "//") != NULL || zone[strlen(zone) - 1] == '/')
		return 0;
	for (p = zone; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		    *p == '+' || *p == '/'))
			return 0;
	if (dir == NULL || dir[0] == '\0')
		dir = "/usr/share/zoneinfo";
	if (snprintf(path, sizeof(path), "%s/%s", dir, zone) >=
	    (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Set TZ to zone, keeping the old value in old (*had: it was set). */
static void
tz_set(const char *zone, char *old, size_t len, int *had)
{
	const char	*v = getenv("TZ");

	*had = v != NULL;
	if (v != NULL)
		(void)snprintf(old, len, "%s", v);
	(void)setenv("TZ", zone, 1);
	tzset();
}

/* Put TZ back as tz_set() found it. */
static void
tz_restore(const char *old, int had)
{
	if (had)
		(void)setenv("TZ", old, 1);
	else
		(void)unsetenv("TZ");
	tzset();
}

/*
 * The earliest time_t whose local time (in the TZ set) is c's date and
 * time: both readings of a time the clock shows twice are tried, and
 * the first taken; for one it skips, mktime(3)'s reading.  -1 when
 * none.
 */
static time_t
local_first(const struct tm *c)
{
	struct tm	 t, back;
	time_t		 r, best = (time_t)-1;
	int		 dst;

	for (dst = 0; dst <= 1; dst++) {
		t = *c;
		t.tm_isdst = dst;
		if ((r = mktime(&t)) == (time_t)-1 ||
		    localtime_r(&r, &back) == NULL)
			continue;
		if (back.tm_isdst == dst && back.tm_hour == c->tm_hour &&
		    back.tm_min == c->tm_min && back.tm_mday == t.tm_mday &&
		    (best == (time_t)-1 || r < best))
			best = r;
	}
	if (best == (time_t)-1) {
		t = *c;
		t.tm_isdst = -1;
		best = mktime(&t);
	}
	return best;
}

int64_t
lt_next_weekly(int64_t after_ms, int weekday, int at_min, const char *zone)
{
	char		 old[128];
	struct tm	 tm, c;
	time_t		 t = (time_t)(after_ms / 1000), r = -1;
	int		 had, week;

	if (!lt_zone_valid(zone) || weekday < 0 || weekday > 6 ||
	    at_min < 0 || at_min > 1439)
		return -1;
	tz_set(zone, old, sizeof(old), &had);
	if (localtime_r(&t, &tm) != NULL)
		for (week = 0; week < 3; week++) {
			c = tm;
			c.tm_mday += (weekday - tm.tm_wday + 7) % 7 + 7 * week;
			c.tm_hour = at_min / 60;
			c.tm_min = at_min % 60;
			c.tm_sec = 0;
			c.tm_isdst = -1;
			/* (normalise the day first: mktime() does) */
			r = mktime(&c);
			if (r != (time_t)-1 && (r = local_first(&c)) !=
			    (time_t)-1 &&
			    (int64_t)r * 1000 > after_ms)
				break;
			r = -1;
		}
	tz_restore(old, had);
	return r == (time_t)-1 ? -1 : (int64_t)r * 1000;
}

int64_t
lt_next_every(int64_t due_ms, int64_t now_ms, int64_t every_min)
{
	int64_t	 step = every_min * 60000, next = due_ms + step;

	if (step <= 0)
		return now_ms;
	if (next <= now_ms)
		next += ((now_ms - next) / step + 1) * step;
	return next;
}

enum app_err
lt_schedule_add(struct db *db, const struct cfg *c,
    const struct principal *who, const char *slug, const char *profile,
    int64_t rate, int64_t duration_s, int64_t every_min, int64_t weekday,
    int64_t at_min, const char *zone, int64_t *id, struct lt_err *err)
{
	struct lt_schedule	 s;
	struct json_object	*after;
	enum app_err		 er;
	int64_t			 probe, now;

	/* The run's checks first (queue, scope, values, test queue). */
	memset(&s, 0, sizeof(s));
	if ((er = lt_check_ask(db, c, who, slug, profile, rate, duration_s,
	    &s.queue_id, err)) != APP_OK)
		return er;
	if (every_min != 0 && (every_min < 1 || every_min > LT_EVERY_MAX))
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "everyMinutes", "everyMinutes must be an integer from 1 "
		    "to %d (four weeks)", LT_EVERY_MAX);
	if (every_min != 0 && every_min * 60 <= duration_s)
		return lt_refuse(err, APP_INVALID, 422, "invalid_value",
		    "everyMinutes", "everyMinutes must be longer than the "
		    "run (durationSeconds): runs would pile up");
	if (every_min == 0) {
		if (weekday < 0 || weekday > 6)
			return lt_refuse(err, APP_INVALID, 422, "invalid_value",
			    "weekday", "weekday must be sunday, monday, "
			    "tuesday, wednesday, thursday, friday or "
			    "saturday (or give everyMinutes)");
		if (at_min < 0 || at_min > 1439)
			return lt_refuse(err, APP_INVALID, 422, "invalid_value",
			    "time", "time must be HH:MM, 00:00 to 23:59");
		if (zone == NULL || !lt_zone_valid(zone))
			return lt_refuse(err, APP_INVALID, 422, "invalid_value",
			    "timeZone", "timeZone must be an IANA time zone "
			    "of this system, e.g. Europe/Madrid or UTC");
		if (db_now_ms(db, &now) != APP_OK)
			return lt_refuse(err, APP_DB_DOWN, 503,
			    "service_unavailable", NULL, "The database does "
			    "not answer; try again.");
		if ((probe = lt_next_weekly(now, (int)weekday, (int)at_min,
		    zone)) < 0)
			return lt_refuse(err, APP_INVALID, 422, "invalid_value",
			    "timeZone", "this time zone cannot be used");
		s.next_ms = probe;
		snprintf(s.zone, sizeof(s.zone), "%s", zone);
	} else {
		weekday = -1;
		at_min = 0;
		snprintf(s.zone, sizeof(s.zone), "UTC");
	}
	snprintf(s.profile, sizeof(s.profile), "%s", profile);
	s.rate = rate;
	s.duration_s = duration_s;
	s.every_min = every_min;
	s.weekday = weekday;
	s.at_min = at_min;
	snprintf(s.created_by, sizeof(s.created_by), "%s", who->name);
	after = json_object_new_object();
	json_object_object_add(after, "profile",
	    json_object_new_string(profile));
	json_object_object_add(after, "ratePerSecond",
	    json_object_new_int64(rate));
	json_object_object_add(after, "durationSeconds",
	    json_object_new_int64(duration_s));
	if ((er = db_begin(db)) == APP_OK &&
	    (er = db_lts_insert(db, &s, id)) == APP_OK) {
		json_object_object_add(after, "schedule",
		    json_object_new_int64(*id));
		if ((er = qops_audit_write(db, who, s.queue_id, slug,
		    "loadtest.schedule", NULL, after)) == APP_OK)
			er = db_commit(db);
	}
	if (er != APP_OK)
		db_rollback(db);
	json_object_put(after);
	if (er == APP_OK)
		return APP_OK;
	return lt_refuse(err, er, er == APP_DB_DOWN ? 503 : 500, er ==
	    APP_DB_DOWN ? "service_unavailable" : "internal_error", NULL,
	    "Not saved.");
}

enum app_err
lt_schedule_delete(struct db *db, const struct principal *who, int64_t id,
    struct lt_err *err)
{
	struct lt_schedule	 s;
	struct json_object	*before;
	enum app_err		 er;

	memset(err, 0, sizeof(*err));
	if (who->kind == PRINCIPAL_KEY)
		return lt_refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "An API key cannot change load tests; sign in to the "
		    "console.");
	if ((er = db_lts_get(db, id, &s)) == APP_NOTFOUND)
		return lt_refuse(err, er, 404, "load_test_not_found", NULL,
		    "No load-test schedule with this id.");
	if (er == APP_OK && !qops_in_scope(who, s.queue_id))
		return lt_refuse(err, APP_INVALID, 403, "forbidden", NULL,
		    "This queue is outside your scope.");
	if (er == APP_OK) {
		before = lt_schedule_json(&s);
		if ((er = db_begin(db)) == APP_OK &&
		    (er = db_lts_delete(db, id)) == APP_OK &&
		    (er = qops_audit_write(db, who, s.queue_id, s.slug,
		    "loadtest.unschedule", before, NULL)) == APP_OK)
			er = db_commit(db);
		if (er != APP_OK)
			db_rollback(db);
		json_object_put(before);
	}
	if (er == APP_OK)
		return APP_OK;
	return lt_refuse(err, er, er == APP_DB_DOWN ? 503 : 500, er ==
	    APP_DB_DOWN ? "service_unavailable" : "internal_error", NULL,
	    "Not deleted.");
}

struct json_object *
lt_schedule_json(const struct lt_schedule *s)
{
	struct json_object	*o, *w;
	char			 hm[8];

	if ((o = lt_json_head(s->id, s->slug, s->profile, s->rate,
	    s->duration_s)) == NULL)
		return NULL;
	json_object_object_add(o, "everyMinutes", s->every_min > 0 ?
	    json_object_new_int64(s->every_min) : NULL);
	if (s->every_min == 0 && s->weekday >= 0 && s->weekday <= 6) {
		w = json_object_new_object();
		json_object_object_add(w, "weekday",
		    json_object_new_string(weekdays[s->weekday]));
		snprintf(hm, sizeof(hm), "%02d:%02d", (int)(s->at_min / 60) %
		    24, (int)(s->at_min % 60));
		json_object_object_add(w, "time", json_object_new_string(hm));
		json_object_object_add(w, "timeZone",
		    json_object_new_string(s->zone));
		json_object_object_add(o, "weekly", w);
	} else
		json_object_object_add(o, "weekly", NULL);
	lt_put_time(o, "nextRunAt", s->next_ms);
	json_object_object_add(o, "createdBy",
	    json_object_new_string(s->created_by));
	lt_put_time(o, "createdAt", s->created_ms);
	json_object_object_add(o, "lastRunId", s->last_run_id > 0 ?
	    json_object_new_int64(s->last_run_id) : NULL);
	return o;
}

/* The next time of schedule s, due at s->next_ms, now now_ms. */
static int64_t
next_of(const struct lt_schedule *s, int64_t now_ms)
{
	int64_t	 t;

	if (s->every_min > 0)
		return lt_next_every(s->next_ms, now_ms, s->every_min);
	t = lt_next_weekly(now_ms > s->next_ms ? now_ms : s->next_ms,
	    (int)s->weekday, (int)s->at_min, s->zone);
	/* A zone gone from the system: try again in a week, in UTC. */
	return t > 0 ? t : now_ms + 7 * 86400000LL;
}

/*
 * Whether schedule s may ask for a run now: its checks pass today (the
 * queue still a test queue, the values within the limits of c) and its
 * last run has ended.  Logs why not.  Returns 1 or 0.
 */
static int
may_run(struct db *db, const struct cfg *c, const struct principal *who,
    const struct lt_schedule *s)
{
	struct lt_run	 last;
	struct lt_err	 err;
	int64_t		 qid;

	if (lt_check_ask(db, c, who, s->slug, s->profile, s->rate,
	    s->duration_s, &qid, &err) != APP_OK) {
		log_warnx("load-test schedule %lld: no run (%s: %s)",
		    (long long)s->id, err.code, err.message);
		return 0;
	}
	if (s->last_run_id > 0 && db_lt_get(db, s->last_run_id, &last) ==
	    APP_OK && (strcmp(last.status, "pending") == 0 ||
	    strcmp(last.status, "running") == 0)) {
		log_warnx("load-test schedule %lld: no run (load test %lld "
		    "has not ended)", (long long)s->id,
		    (long long)s->last_run_id);
		return 0;
	}
	return 1;
}

enum app_err
lt_schedules_run(struct db *db, const struct cfg *c, int *made)
{
	struct lt_schedule	*s = NULL;
	struct principal	 who;
	size_t			 n = 0, i;
	enum app_err		 er;
	int64_t			 now, run;
	int			 moved, go;

	*made = 0;
	if ((er = db_now_ms(db, &now)) != APP_OK ||
	    (er = db_lts_due(db, &s, &n)) != APP_OK)
		return er;
	memset(&who, 0, sizeof(who));
	who.kind = PRINCIPAL_WORKER;
	for (i = 0; i < n && er == APP_OK; i++) {
		snprintf(who.name, sizeof(who.name), "schedule:%lld",
		    (long long)s[i].id);
		run = 0;
		go = may_run(db, c, &who, &s[i]);
		if ((er = db_begin(db)) != APP_OK)
			break;
		/* Not now: the next time moves on all the same. */
		if (!go) {
			if ((er = db_lts_advance(db, s[i].id, s[i].next_ms,
			    next_of(&s[i], now), s[i].last_run_id, &moved)) ==
			    APP_OK && moved && (er = db_commit(db)) == APP_OK)
				continue;
			db_rollback(db);
			continue;
		}
		if ((er = lt_insert_run(db, s[i].queue_id, s[i].profile,
		    s[i].rate, s[i].duration_s, &who, &run)) == APP_OK &&
		    (er = db_lts_advance(db, s[i].id, s[i].next_ms,
		    next_of(&s[i], now), run, &moved)) == APP_OK && moved)
			er = db_commit(db);
		else {
			/* Another leader moved it on first: no run. */
			db_rollback(db);
			continue;
		}
		if (er != APP_OK)
			db_rollback(db);
		else {
			(*made)++;
			log_info("load-test schedule %lld: load test %lld "
			    "asked for", (long long)s[i].id, (long long)run);
		}
	}
	free(s);
	return er;
}
