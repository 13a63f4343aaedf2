/*
 * page-info.c - GET /queue/<slug>/info: public state of the queue and
 * whether it renews sessions, from the cache.
 */
#include "config.h"

#include <json-c/json.h>

#include "aqueue.h"
#include "draw.h"
#include "extern.h"
#include "page-info.h"

void
page_info(struct req *r)
{
	const struct queue	*q = r->qe->q;
	struct json_object	*o = json_object_new_object();
	int64_t			 serving = adm_serving(&q->adm, r->now_ms);

	json_object_object_add(o, "queue", json_object_new_string(q->slug));
	json_object_object_add(o, "name", json_object_new_string(q->name));
	json_object_object_add(o, "active",
	    json_object_new_boolean(adm_active_at(&q->adm, r->now_ms)));
	json_object_object_add(o, "serving", json_object_new_int64(serving));
	json_object_object_add(o, "waiting",
	    json_object_new_int64(adm_waiting(&q->adm, r->now_ms)));
	/* embed.js renews its pass only when the queue says so. */
	json_object_object_add(o, "sessionRenewal",
	    json_object_new_boolean(q->session_renewal != 0));
	if (q->adm.opens_at_ms > 0)
		draw_info_json(o, q, r->qe->draw_seed, r->qe->have_draw_seed,
		    r->now_ms);
	/* Answered from an old row: the database does not answer. */
	if (r->stale)
		json_object_object_add(o, "stale",
		    json_object_new_boolean(1));
	http_json(r, 200, o);
	json_object_put(o);
}
