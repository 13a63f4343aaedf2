/*
 * page-metrics.h - GET /metrics, Prometheus metrics in the OpenMetrics
 * text format (see page-metrics.c).
 */
#ifndef PAGE_METRICS_H
#define PAGE_METRICS_H

struct req;

/*
 * Answer the request: the metrics for a client in metrics-allow or with
 * the metrics token, else 401/403 (answered here).  Can't fail.
 */
void	 page_metrics(struct req *r);

#endif /* PAGE_METRICS_H */
