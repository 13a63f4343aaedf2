/*
 * page-heartbeat.c - POST /queue/<slug>/heartbeat {"number": N,
 * "ticket": "..."}: a waiting visitor's presence, for abandonment
 * detection (abandon.h).  Always 204 for a well-formed body (SPEC
 * section 4): also when detection is off, the ticket is wrong (a
 * right ticket proves the number was issued: no read needed) or the
 * number is admitted by this process's cached state (then nothing is
 * recorded) and
 * when the database does not answer (a missed heartbeat is harmless:
 * the next one comes well within the grace period).  A malformed body
 * gets the usual 4xx.  One presence write per number per
 * ABANDON_COALESCE_MS at most.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "abandon.h"
#include "extern.h"
#include "page-heartbeat.h"
#include "token.h"
#include "visitor.h"

void
page_heartbeat(struct req *r)
{
	struct qentry		*e = r->qe;
	struct json_object	*body = NULL;
	const char		*ticket;
	int64_t			 number;

	if (visitor_number_body(r, &body, &number, &ticket) == -1)
		goto out;
	if (e->q->abandon && ticket != NULL &&
	    visitor_waiting(e, number, r->now_ms) &&
	    token_ticket_check(e->ticket_key, TICKET_KEY_LEN, e->q->slug,
	    number, ticket) && writers_enter() == APP_OK) {
		(void)db_presence_seen(r->db, e->q->id, number,
		    ABANDON_COALESCE_MS);
		writers_leave();
	}
	http_send(r, 204, NULL, NULL, 0);
out:
	json_object_put(body);
}
