/*
 * aqueuectl-autorate.c - "aqueuectl autorate ...": a queue's auto-rate
 * settings, the one-time test of its health URL, on/off, its log.  Every
 * operation is in the library (autorate-ops.c); this file reads the
 * command line and prints JSON.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "ctl.h"
#include "autorate.h"
#include "db.h"

/* Print o pretty-printed and release it. */
static void
print(struct json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/*
 * Say why an operation failed ("aqueuectl: CODE: message" on stderr) and
 * return the exit status: 4 no such queue, 2 a refused value, else 1.
 */
static int
report(const struct ar_err *err)
{
	fprintf(stderr, "aqueuectl: %s: %s\n", err->code, err->message);
	return ctl_exit_of(err->status);
}

/* Print the settings of slug; returns the exit status. */
static int
show(struct db *db, const char *slug)
{
	struct ar_settings	 s;
	struct ar_err		 err;

	if (arops_get(db, slug, &s, &err) != APP_OK)
		return report(&err);
	print(ar_settings_json(&s, slug));
	return 0;
}

/* autorate set SLUG --field value ...; returns the exit status. */
static int
set(struct db *db, int argc, char *argv[], const struct principal *who)
{
	struct option		 opts[AR_F__MAX + 1];
	struct ar_settings	 in;
	struct ar_err		 err;
	unsigned int		 bits = 0;
	int			 f, ch;

	memset(opts, 0, sizeof(opts));
	for (f = 0; f < AR_F__MAX; f++) {
		opts[f].name = ar_field((enum ar_field)f)->opt;
		opts[f].has_arg = required_argument;
		opts[f].val = 256 + f;
	}
	memset(&in, 0, sizeof(in));
	optind = 3;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch < 256 || ch >= 256 + AR_F__MAX)
			return CTL_USAGE;
		if (ar_field_set(&in, &bits, (enum ar_field)(ch - 256),
		    optarg, &err) != APP_OK)
			return report(&err);
	}
	if (optind != argc || bits == 0)
		return CTL_USAGE;
	if (arops_set(db, argv[2], &in, bits, &err, who) != APP_OK)
		return report(&err);
	return show(db, argv[2]);
}

int
ctl_autorate(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	struct ar_eval		 ev;
	struct ar_err		 err;
	struct json_object	*o;
	const char		*sub, *slug;
	int64_t			 limit = 20;
	enum app_err		 er;

	if (argc < 3)
		return CTL_USAGE;
	sub = argv[1];
	slug = argv[2];
	if (strcmp(sub, "show") == 0 && argc == 3)
		return show(db, slug);
	if (strcmp(sub, "set") == 0)
		return set(db, argc, argv, who);
	if (strcmp(sub, "test") == 0 && argc == 3) {
		er = arops_test(db, c, slug, &ev, &err, who);
		if (er != APP_OK && strcmp(err.code, "settings_changed") != 0)
			return report(&err);
		o = ar_eval_json(&ev);
		json_object_object_add(o, "passed",
		    json_object_new_boolean(er == APP_OK &&
		    ev.state != AR_UNKNOWN));
		print(o);
		if (er != APP_OK)
			return report(&err);
		return ev.state == AR_UNKNOWN ? 1 : 0;
	}
	if ((strcmp(sub, "enable") == 0 || strcmp(sub, "disable") == 0) &&
	    argc == 3) {
		if (arops_enable(db, slug, sub[0] == 'e', &err, who) != APP_OK)
			return report(&err);
		return show(db, slug);
	}
	if (strcmp(sub, "log") == 0 && (argc == 3 || (argc == 5 &&
	    strcmp(argv[3], "--limit") == 0))) {
		if (argc == 5 && parse_int64(argv[4], 1, 1000, &limit) == -1) {
			fprintf(stderr, "aqueuectl: --limit: an integer from "
			    "1 to 1000\n");
			return 2;
		}
		if (arops_log(db, slug, limit, &o, &err) != APP_OK)
			return report(&err);
		print(o);
		return 0;
	}
	return CTL_USAGE;
}
