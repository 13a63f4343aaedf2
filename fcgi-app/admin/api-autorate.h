/*
 * api-autorate.h - a queue's auto-rate in the REST admin API (handlers
 * of the route table, after auth_admin() set r->who).
 */
#ifndef API_AUTORATE_H
#define API_AUTORATE_H

#include <stdint.h>

#include "aqueue.h"

struct ar_err;
struct ar_eval;
struct req;

/* GET, PATCH /sites/<id>/autorate: the settings (PATCH: and "enabled"). */
void	 api_autorate_get(struct req *);
void	 api_autorate_patch(struct req *);
/* POST /sites/<id>/autorate/test: the one-time test, judged. */
void	 api_autorate_test(struct req *);
/*
 * The one-time test of queue slug's health URL for r->who (arops_test()),
 * as both the API and the console run it: one at a time in the pool,
 * with the timeouts cut to a short bound.  Fills *ev.  Returns APP_OK
 * (passed or not: see ev->state), APP_BUSY when another test is
 * running (nothing done), or arops_test()'s failure with *err filled.
 */
enum app_err	 api_autorate_run_test(struct req *, const char *slug,
		    struct ar_eval *ev, struct ar_err *err);

/* GET /sites/<id>/autorate/log?limit=N: newest first, {"log":[...]}. */
void	 api_autorate_log(struct req *);

/*
 * The period of a fairness report from the query: since and until, Unix
 * ms, each absent or empty for no bound (0), else a whole number (since
 * from 0, until from 1), given once, until after since.  The API and
 * the console's report page take it alike.  Returns 0, or -1 (both 0)
 * when a bound is bad; answers nothing.
 */
int	 api_fair_period(const struct req *, int64_t *since,
	    int64_t *until);

/*
 * GET /sites/<id>/fairness and .../fairness.csv[?since=MS&until=MS]: the
 * fairness report (400 invalid_period for a bad period).
 */
void	 api_fairness(struct req *);
void	 api_fairness_csv(struct req *);

#endif /* API_AUTORATE_H */
