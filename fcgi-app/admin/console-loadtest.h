/*
 * console-loadtest.h - the console's load tests: GET /admin/loadtests
 * (the form and the runs kept), POST /admin/loadtests (ask for a run;
 * 303 to its page), GET /admin/loadtests/<id> (its figures, chart and
 * per-second table, refreshed from GET /admin/loadtests/<id>/live, the
 * API's JSON of the run, while it runs).
 */
#ifndef CONSOLE_LOADTEST_H
#define CONSOLE_LOADTEST_H

struct req;

void	 console_loadtests(struct req *);	/* GET/POST /admin/loadtests */
void	 console_loadtest(struct req *);	/* GET /admin/loadtests/:id */

#endif /* CONSOLE_LOADTEST_H */
