/*
 * console-instances.h - the running instances in the console: the page
 * /admin/instances, its live JSON, and the tables the queue dashboard
 * shows too.
 */
#ifndef CONSOLE_INSTANCES_H
#define CONSOLE_INSTANCES_H

#include <stdint.h>

struct buf;
struct json_object;
struct req;

/*
 * The instances of list (a JSON array of instance_row_json() objects)
 * as two tables into b: #instances (kind, host, PID, processes, busy,
 * CPU %, RSS KiB, started and last report as UTC times with their age
 * in words at now_ms) and #instance-rates (one row per instance, one
 * column per request kind of instance.h but healthz, in requests per
 * second with two decimals; data-kinds lists the kinds for
 * console.js).  Can't fail.
 */
void	 console_instances_tables(struct buf *b, struct json_object *list,
	    int64_t now_ms);

/* GET /admin/instances: the page, refreshed by console.js. */
void	 console_instances(struct req *);

/*
 * GET /admin/instances/live: {"nowMs": the database's time, Unix ms,
 * "instances": [...]}; 503 when the database does not answer.
 */
void	 console_instances_live(struct req *);

#endif /* CONSOLE_INSTANCES_H */
