/*
 * api-autorate.h - a queue's auto-rate in the REST admin API (handlers
 * of the route table, after auth_admin() set r->who).
 */
#ifndef API_AUTORATE_H
#define API_AUTORATE_H

struct req;

/* GET, PATCH /sites/<id>/autorate: the settings (PATCH: and "enabled"). */
void	 api_autorate_get(struct req *);
void	 api_autorate_patch(struct req *);
/* POST /sites/<id>/autorate/test: the one-time test, judged. */
void	 api_autorate_test(struct req *);
/* GET /sites/<id>/autorate/log?limit=N: newest first, {"log":[...]}. */
void	 api_autorate_log(struct req *);

/* GET /sites/<id>/fairness and .../fairness.csv: the fairness report. */
void	 api_fairness(struct req *);
void	 api_fairness_csv(struct req *);

#endif /* API_AUTORATE_H */
