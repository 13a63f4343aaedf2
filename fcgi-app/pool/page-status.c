/*
 * page-status.c - GET /queue/<slug>/status?number=N: read-only, answered
 * from the process's cached queue row; a number above the cached last
 * number forces one (paced) fresh read before it is called unknown.
 */
#include "config.h"

#include <json-c/json.h>

#include "aqueue.h"
#include "extern.h"
#include "page-status.h"
#include "visitor.h"

void
page_status(struct req *r)
{
	struct qentry		*e = r->qe;
	struct field_val	*f = &r->fields[FIELD_NUMBER];
	struct json_object	*o;
	int64_t			 number;
	int			 retry, admitted;
	enum http_err		 er;

	if (f->state != FIELD_OK ||
	    parse_int64(f->val, 1, VISITOR_NUMBER_MAX, &number) == -1) {
		http_app_err(r, ERR_INVALID_NUMBER);
		return;
	}
	if ((er = visitor_admitted(r, number, 0, &admitted)) != ERR_OK) {
		http_app_err(r, er);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "queue", json_object_new_string(e->q->slug));
	json_object_object_add(o, "name", json_object_new_string(e->q->name));
	retry = visitor_status_fill(o, e, number, r->now_ms, 1, -1);
	/* Answered from an old row: the database does not answer. */
	if (r->stale)
		json_object_object_add(o, "stale",
		    json_object_new_boolean(1));
	http_header(r, "Retry-After", "%d", retry);
	http_json(r, 200, o);
	json_object_put(o);
}
