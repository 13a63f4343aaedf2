/*
 * aqueuectl-loadtest.c - "aqueuectl loadtest ...": built-in load tests
 * (loadtest.h) from the command line, asked for as the CLI (audited),
 * run by a worker whose configuration has loadtest-url.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "ctl.h"
#include "isotime.h"
#include "db-loadtest.h"
#include "loadtest.h"
#include "queue-ops.h"

#define LIST_MAX	100
#define EXIT_FLAGGED	6	/* done, and flagged as a regression */

/* Print o as one JSON line and release it. */
static void
print_json(struct json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* One line of progress of run r. */
static void
progress(const struct lt_run *r)
{
	printf("%-9s %6.1f s  sent %lld  errors %lld  p50 %.2f ms  p95 %.2f "
	    "ms  p99 %.2f ms\n", r->status, (double)r->elapsed_ms / 1000.0,
	    (long long)r->sent, (long long)r->errors,
	    (double)r->p50_us / 1000.0, (double)r->p95_us / 1000.0,
	    (double)r->p99_us / 1000.0);
	fflush(stdout);
}

/* Whether status s is a run's end. */
static int
ended(const char *s)
{
	return strcmp(s, "pending") != 0 && strcmp(s, "running") != 0;
}

/* The exit status of an ended run r. */
static int
outcome(const struct lt_run *r)
{
	if (strcmp(r->status, "done") != 0) {
		fprintf(stderr, "aqueuectl: load test %lld %s: %s\n",
		    (long long)r->id, r->status, r->error);
		return 1;
	}
	if (r->flagged) {
		fprintf(stderr, "aqueuectl: load test %lld flagged: %s\n",
		    (long long)r->id, r->flag_reason);
		return EXIT_FLAGGED;
	}
	return 0;
}

/*
 * Follow run id until it ends; give up when it is still pending after
 * a minute (no worker with loadtest-url claimed it).  Returns the exit
 * status.
 */
static int
follow(struct db *db, int64_t id)
{
	struct lt_run	 r;
	enum app_err	 er;
	int		 pending = 0;

	for (;;) {
		if ((er = db_lt_get(db, id, &r)) != APP_OK) {
			fprintf(stderr, "aqueuectl: load test %lld: not "
			    "readable (error %d)\n", (long long)id, (int)er);
			return 1;
		}
		progress(&r);
		if (ended(r.status))
			return outcome(&r);
		if (strcmp(r.status, "pending") == 0 && ++pending > 60) {
			fprintf(stderr, "aqueuectl: load test %lld is still "
			    "pending after a minute: no aqueue-worker with "
			    "loadtest-url has claimed it\n", (long long)id);
			return 1;
		}
		sleep(1);
	}
}

/*
 * The options of a run's load at argv[*i]: --rate N (requests per
 * second) and --duration S (seconds) into *rate and *dur (-1 when not
 * a number), *i moved past the value.  Returns 1 when argv[*i] was one
 * of them, else 0.
 */
static int
load_opt(int argc, char *argv[], int *i, int64_t *rate, int64_t *dur)
{
	int	 r = strcmp(argv[*i], "--rate") == 0;

	if ((!r && strcmp(argv[*i], "--duration") != 0) || *i + 1 >= argc)
		return 0;
	(*i)++;
	if (parse_int64(argv[*i], 1, r ? INT64_MAX / 1000000 :
	    INT64_MAX / 1000, r ? rate : dur) == -1)
		*(r ? rate : dur) = -1;
	return 1;
}

/* A scale ("2", "0.5") in thousandths, or -1. */
static int64_t
scale_arg(const char *s)
{
	char	*end;
	double	 d = strtod(s, &end);

	if (end == s || *end != '\0' || !(d >= 0.001 && d <= 1000.0))
		return -1;
	return (int64_t)(d * 1000.0 + 0.5);
}

/*
 * loadtest run SLUG --profile P --rate N --duration S [--wait], or
 * --profile replay --source SRC --from TIME --to TIME [--speed X]
 * [--volume Y] [--wait].
 */
static int
run(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	struct lt_err	 err;
	const char	*profile = "mix", *src = NULL;
	int64_t		 rate = 0, dur = 0, id, from = 0, to = 0;
	int64_t		 speed = 1000, volume = 1000;
	int		 i, wait = 0;
	enum app_err	 er;

	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
			profile = argv[++i];
		else if (strcmp(argv[i], "--source") == 0 && i + 1 < argc)
			src = argv[++i];
		else if ((strcmp(argv[i], "--from") == 0 ||
		    strcmp(argv[i], "--to") == 0) && i + 1 < argc) {
			int64_t	*t = argv[i][2] == 'f' ? &from : &to;

			if (iso_time_parse(argv[i + 1], t) == -1 &&
			    parse_int64(argv[i + 1], 1, INT64_MAX, t) == -1) {
				fprintf(stderr, "aqueuectl: %s: Unix ms or ISO "
				    "8601 with a zone\n", argv[i]);
				return 2;
			}
			i++;
		} else if ((strcmp(argv[i], "--speed") == 0 ||
		    strcmp(argv[i], "--volume") == 0) && i + 1 < argc) {
			int64_t	*v = argv[i][2] == 's' ? &speed : &volume;

			if ((*v = scale_arg(argv[++i])) == -1) {
				fprintf(stderr, "aqueuectl: %s: a number from "
				    "0.001 to 1000\n", argv[i - 1]);
				return 2;
			}
		} else if (load_opt(argc, argv, &i, &rate, &dur))
			continue;
		else if (strcmp(argv[i], "--wait") == 0)
			wait = 1;
		else
			return CTL_USAGE;
	}
	if (strcmp(profile, "replay") == 0) {
		if (src == NULL || from == 0 || to == 0)
			return CTL_USAGE;
		er = lt_ask_replay(db, c, who, argv[2], src, from, to, speed,
		    volume, &id, &err);
	} else if (rate == 0 || dur == 0)
		return CTL_USAGE;
	else
		er = lt_ask(db, c, who, argv[2], profile, rate, dur, &id, &err);
	if (er != APP_OK) {
		fprintf(stderr, "aqueuectl: %s%s%s: %s\n", err.code,
		    err.field != NULL ? " " : "",
		    err.field != NULL ? err.field : "", err.message);
		return ctl_exit_of(err.status);
	}
	printf("load test %lld asked for\n", (long long)id);
	fflush(stdout);
	return wait ? follow(db, id) : 0;
}

/* loadtest list [SLUG] [--limit N]. */
static int
list(struct db *db, int argc, char *argv[])
{
	struct lt_run	*r = NULL;
	struct queue	*q = NULL;
	struct qops_err	 qe;
	int64_t		 limit = 20, qid = 0;
	size_t		 n = 0, i;
	int		 a;

	for (a = 2; a < argc; a++) {
		if (strcmp(argv[a], "--limit") == 0 && a + 1 < argc) {
			if (parse_int64(argv[++a], 1, LIST_MAX, &limit) == -1)
				return CTL_USAGE;
		} else if (qid == 0 && argv[a][0] != '-') {
			if (qops_get(db, argv[a], &q, &qe) != APP_OK) {
				fprintf(stderr, "aqueuectl: no queue %s\n",
				    argv[a]);
				return 4;
			}
			qid = q->id;
			qops_queue_free(q);
		} else
			return CTL_USAGE;
	}
	if (db_lt_list(db, qid, limit, &r, &n) != APP_OK) {
		fprintf(stderr, "aqueuectl: the load tests are not readable\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		print_json(lt_run_json(&r[i], NULL, 0));
	free(r);
	return 0;
}

/* loadtest show ID. */
static int
show(struct db *db, const char *arg)
{
	struct lt_run		 r;
	struct lt_second	*s = NULL;
	size_t			 n = 0;
	int64_t			 id;
	enum app_err		 er;

	if (parse_int64(arg, 1, INT64_MAX, &id) == -1)
		return CTL_USAGE;
	if ((er = db_lt_get(db, id, &r)) == APP_NOTFOUND) {
		fprintf(stderr, "aqueuectl: no load test %lld\n",
		    (long long)id);
		return 4;
	}
	if (er != APP_OK || db_lt_seconds(db, id, &s, &n) != APP_OK) {
		fprintf(stderr, "aqueuectl: load test %lld is not readable\n",
		    (long long)id);
		return 1;
	}
	print_json(lt_run_json(&r, s, n));
	free(s);
	return 0;
}

/*
 * loadtest schedule add SLUG --rate N --duration S [--profile P]
 * (--every MINUTES | --weekly DAY HH:MM ZONE).
 */
static int
schedule_add(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	struct lt_err	 err;
	const char	*profile = "mix", *zone = NULL;
	int64_t		 rate = 0, dur = 0, every = 0, wd = -1, at = -1, id;
	int		 i, when = 0;

	for (i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
			profile = argv[++i];
		else if (load_opt(argc, argv, &i, &rate, &dur))
			continue;
		else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc) {
			if (parse_int64(argv[++i], 1, INT64_MAX / 60000,
			    &every) == -1)
				every = -1;
			when++;
		} else if (strcmp(argv[i], "--weekly") == 0 && i + 3 < argc) {
			wd = lt_weekday(argv[++i]);
			at = lt_hhmm(argv[++i]);
			zone = argv[++i];
			when++;
		} else
			return CTL_USAGE;
	}
	if (rate == 0 || dur == 0 || when != 1)
		return CTL_USAGE;
	if (lt_schedule_add(db, c, who, argv[3], profile, rate, dur, every,
	    wd, at, zone, &id, &err) != APP_OK) {
		fprintf(stderr, "aqueuectl: %s%s%s: %s\n", err.code,
		    err.field != NULL ? " " : "",
		    err.field != NULL ? err.field : "", err.message);
		return ctl_exit_of(err.status);
	}
	printf("load-test schedule %lld made\n", (long long)id);
	return 0;
}

/* loadtest schedule add ... | list | delete ID. */
static int
schedule(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	struct lt_schedule	*s = NULL;
	struct lt_err		 err;
	size_t			 n = 0, i;
	int64_t			 id;

	if (argc >= 4 && strcmp(argv[2], "add") == 0)
		return schedule_add(db, c, argc, argv, who);
	if (argc == 3 && strcmp(argv[2], "list") == 0) {
		if (db_lts_list(db, &s, &n) != APP_OK) {
			fprintf(stderr, "aqueuectl: the schedules are not "
			    "readable\n");
			return 1;
		}
		for (i = 0; i < n; i++)
			print_json(lt_schedule_json(&s[i]));
		free(s);
		return 0;
	}
	if (argc == 4 && strcmp(argv[2], "delete") == 0) {
		if (parse_int64(argv[3], 1, INT64_MAX, &id) == -1)
			return CTL_USAGE;
		if (lt_schedule_delete(db, who, id, &err) != APP_OK) {
			fprintf(stderr, "aqueuectl: %s: %s\n", err.code,
			    err.message);
			return ctl_exit_of(err.status);
		}
		printf("load-test schedule %lld deleted\n", (long long)id);
		return 0;
	}
	return CTL_USAGE;
}

int
ctl_loadtest(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	if (argc >= 3 && strcmp(argv[1], "schedule") == 0)
		return schedule(db, c, argc, argv, who);
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return run(db, c, argc, argv, who);
	if (argc >= 2 && strcmp(argv[1], "list") == 0)
		return list(db, argc, argv);
	if (argc == 3 && strcmp(argv[1], "show") == 0)
		return show(db, argv[2]);
	if (argc == 3 && strcmp(argv[1], "wait") == 0) {
		int64_t	 id;

		if (parse_int64(argv[2], 1, INT64_MAX, &id) == -1)
			return CTL_USAGE;
		return follow(db, id);
	}
	return CTL_USAGE;
}
