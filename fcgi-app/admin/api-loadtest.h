/*
 * api-loadtest.h - load tests in the REST admin API, for a console
 * session only (an API key gets 403 from the router):
 * POST /api/admin/loadtests {queue, profile, ratePerSecond,
 * durationSeconds} (202 {id, ...}), GET /api/admin/loadtests
 * [?queue=<slug>&limit=N] and GET /api/admin/loadtests/<id> (with its
 * per-second series).  Validation, scope and the audit log are
 * lt_ask()'s (loadtest.h), the same as the CLI's.
 */
#ifndef API_LOADTEST_H
#define API_LOADTEST_H

struct req;

/* GET: {"loadtests": [...]}, newest first; POST: ask for a run. */
void	 api_loadtests(struct req *);

/* GET: one run with its series; 404 load_test_not_found. */
void	 api_loadtest(struct req *);

/*
 * /api/admin/loadtest-schedules: GET {"schedules": [...]}; POST
 * {queue, profile, ratePerSecond, durationSeconds, everyMinutes | weekly
 * {weekday, time "HH:MM", timeZone}}: 201 with the schedule (an
 * interval's first run is asked for at once).  DELETE
 * /api/admin/loadtest-schedules/<id>: 204.
 */
void	 api_loadtest_schedules(struct req *);
void	 api_loadtest_schedule(struct req *);

#endif /* API_LOADTEST_H */
