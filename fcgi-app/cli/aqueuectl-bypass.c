/*
 * aqueuectl-bypass.c - "aqueuectl bypass ...": a queue's VIP bypass
 * codes (bypass.h) from the command line, audited as the CLI.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "bypass.h"
#include "crypto.h"
#include "ctl.h"
#include "isotime.h"

/* Tell why on stderr; the exit status for err. */
static int
failed(const struct bypass_err *err)
{
	fprintf(stderr, "aqueuectl: %s: %s\n", err->code, err->message);
	return ctl_exit_of(err->status);
}

/* bypass create SLUG --label L [--uses N] [--expires TIME]. */
static int
create(struct db *db, int argc, char *argv[], const struct principal *who)
{
	struct bypass_err	 err;
	const char		*label = NULL;
	char			*code = NULL;
	int64_t			 limit = 0, expires = 0, id;
	int			 i;

	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--label") == 0 && i + 1 < argc)
			label = argv[++i];
		else if (strcmp(argv[i], "--uses") == 0 && i + 1 < argc) {
			if (parse_int64(argv[++i], 1, BYPASS_USES_MAX,
			    &limit) == -1) {
				fprintf(stderr, "aqueuectl: --uses: a whole "
				    "number from 1 to 1000000\n");
				return 2;
			}
		} else if (strcmp(argv[i], "--expires") == 0 &&
		    i + 1 < argc) {
			if (strcmp(argv[++i], "none") != 0 &&
			    iso_time_parse(argv[i], &expires) == -1) {
				fprintf(stderr, "aqueuectl: --expires: Unix "
				    "milliseconds or ISO 8601 with a zone "
				    "(e.g. 2026-12-24T18:00:00Z), or none\n");
				return 2;
			}
		} else
			return CTL_USAGE;
	}
	if (label == NULL)
		return CTL_USAGE;
	if (bypass_create(db, argv[2], label, limit, expires, &code, &id,
	    &err, who) != APP_OK)
		return failed(&err);
	printf("code: %s\nlink: /queue/%s/enter?code=%s\nid: %lld\n", code,
	    argv[2], code, (long long)id);
	crypto_wipe(code, strlen(code));
	free(code);
	return 0;
}

int
ctl_bypass(struct db *db, int argc, char *argv[], const struct principal *who)
{
	struct bypass_code	*c = NULL;
	struct bypass_err	 err;
	struct json_object	*o;
	size_t			 n = 0, i;
	int64_t			 id;
	enum app_err		 er;

	if (argc >= 3 && strcmp(argv[1], "create") == 0)
		return create(db, argc, argv, who);
	if (argc != 3)
		return CTL_USAGE;
	if (strcmp(argv[1], "list") == 0) {
		if (bypass_list(db, argv[2], &c, &n, &err, who) != APP_OK)
			return failed(&err);
		for (i = 0; i < n; i++) {
			o = bypass_json(&c[i]);
			printf("%s\n", json_object_to_json_string_ext(o,
			    JSON_C_TO_STRING_PLAIN |
			    JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
		}
		free(c);
		return 0;
	}
	if (parse_int64(argv[2], 1, INT64_MAX, &id) == -1) {
		fprintf(stderr, "aqueuectl: a code's id is a whole number "
		    "(bypass list SLUG shows them)\n");
		return 2;
	}
	if (strcmp(argv[1], "disable") == 0)
		er = bypass_set_enabled(db, id, 0, NULL, &err, who);
	else if (strcmp(argv[1], "enable") == 0)
		er = bypass_set_enabled(db, id, 1, NULL, &err, who);
	else if (strcmp(argv[1], "delete") == 0)
		er = bypass_delete(db, id, NULL, &err, who);
	else
		return CTL_USAGE;
	if (er != APP_OK)
		return failed(&err);
	printf("code %lld %sd\n", (long long)id, argv[1]);
	return 0;
}
