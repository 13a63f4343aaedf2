/*
 * aqueuectl-report.c - "aqueuectl report SLUG [--json|--csv] [--since
 * MS] [--until MS]": a queue's fairness report (fairness.h) on stdout.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "ctl.h"
#include "db.h"
#include "fairness.h"
#include "queue-ops.h"

int
ctl_report(struct db *db, int argc, char *argv[])
{
	struct json_object	*o;
	struct queue		*q = NULL;
	struct qops_err		 err;
	int64_t			 since = 0, until = 0;
	char			*csv;
	int			 i, as_csv = 0;
	enum app_err		 er;

	if (argc < 2)
		return CTL_USAGE;
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			as_csv = 0;
		else if (strcmp(argv[i], "--csv") == 0)
			as_csv = 1;
		else if (strcmp(argv[i], "--since") == 0 && i + 1 < argc) {
			if (parse_int64(argv[++i], 0, INT64_MAX, &since) ==
			    -1) {
				fprintf(stderr, "aqueuectl: --since: a time in "
				    "Unix milliseconds\n");
				return 2;
			}
		} else if (strcmp(argv[i], "--until") == 0 && i + 1 < argc) {
			if (parse_int64(argv[++i], 1, INT64_MAX, &until) ==
			    -1) {
				fprintf(stderr, "aqueuectl: --until: a time in "
				    "Unix milliseconds\n");
				return 2;
			}
		} else
			return CTL_USAGE;
	}
	/* The API's rule (invalid_period): the end after the start. */
	if (until > 0 && until <= since) {
		fprintf(stderr, "aqueuectl: --until: after --since\n");
		return 2;
	}
	if ((er = qops_get(db, argv[1], &q, &err)) != APP_OK) {
		fprintf(stderr, "aqueuectl: %s: %s\n",
		    qops_reason_code(err.reason), qops_reason_text(err.reason));
		return er == APP_NOTFOUND ? 4 : 1;
	}
	er = fair_report(db, q->id, q->slug, since, until, &o);
	qops_queue_free(q);
	if (er != APP_OK) {
		fprintf(stderr, "aqueuectl: the report failed (%d)\n",
		    (int)er);
		return 1;
	}
	if (as_csv) {
		if ((csv = fair_csv(o)) == NULL) {
			json_object_put(o);
			return 1;
		}
		fputs(csv, stdout);
		free(csv);
	} else
		printf("%s\n", json_object_to_json_string_ext(o,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}
