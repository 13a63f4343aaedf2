/*
 * visitor.c - what the visitor endpoints share (see visitor.h): the
 * status fields, the body about one number, the admission check against
 * the cached state, the claim rule, the join and the token.  Nothing
 * here answers a request except visitor_number_body().
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "draw.h"
#include "extern.h"
#include "fairness.h"
#include "instance.h"
#include "jsonbody.h"
#include "lease.h"
#include "log.h"
#include "token.h"
#include "visitor.h"

int64_t
visitor_position(const struct qentry *e, int64_t number, int64_t now)
{
	int64_t	 pos;

	/* A number this process issued since it read the row is known. */
	if (adm_prequeue_size(&e->q->adm, now) < 0 &&
	    number <= qcache_issued(e))
		return -1;
	pos = draw_queue_position(&e->q->adm, e->draw_seed,
	    e->have_draw_seed, number, now);
	/* The random order begins after the draw's pre-queue, if any. */
	return pos > 0 ? draw_order_position(&e->q->adm, e->order_key,
	    pos) : pos;
}

int
visitor_waiting(const struct qentry *e, int64_t number, int64_t now)
{
	int64_t	 pos = visitor_position(e, number, now);

	return pos < 0 || pos > adm_serving(&e->q->adm, now);
}

int64_t
visitor_status(const struct qentry *e, int64_t number, int64_t now,
    struct adm_status *st)
{
	int64_t	 pos = visitor_position(e, number, now), left;

	/* A place not drawn yet is not admitted; it waits at its number. */
	adm_status(&e->q->adm, pos > 0 ? pos : number, now, st);
	if (pos <= 0) {
		st->admitted = 0;
		st->ahead = number - 1;
		st->wait_s = -1;
		st->retry_after_s = ADM_RETRY_MIN_S;
	}
	/*
	 * Before the opening nobody's wait is known (the draw decides it);
	 * poll at a tenth of the time left, as the wait's own rule does.
	 */
	if (!st->admitted && adm_prequeue(&e->q->adm, now)) {
		left = (e->q->adm.opens_at_ms - now) / 10000;
		st->wait_s = -1;
		st->retry_after_s = left < ADM_RETRY_MIN_S ? ADM_RETRY_MIN_S :
		    left > ADM_RETRY_MAX_S ? ADM_RETRY_MAX_S : (int)left;
	}
	return pos;
}

int64_t
visitor_status_as(const struct qentry *e, int64_t number, int64_t now,
    int decided, struct adm_status *st)
{
	int64_t	 pos = visitor_status(e, number, now, st);

	/*
	 * The statement decided at its instant: the answer says what it
	 * did, with serving on its side of the place (the position, else the
	 * number; serving only grows,
	 * so both are true of some instant between the statement and now).
	 */
	if (pos > 0)
		number = pos;
	if (decided == 1 && !st->admitted) {
		st->admitted = 1;
		st->serving = st->serving > number ? st->serving : number;
		st->ahead = 0;
		st->wait_s = 0;
		st->retry_after_s = ADM_RETRY_MIN_S;
	} else if (decided == 0 && st->admitted) {
		st->admitted = 0;
		st->serving = number - 1;
		st->ahead = 0;
		st->wait_s = 1;
		st->retry_after_s = ADM_RETRY_MIN_S;
	}
	return pos;
}

int
visitor_status_fill(struct json_object *o, const struct qentry *e,
    int64_t number, int64_t now, int with_active, int decided)
{
	struct adm_status	 st;
	int64_t			 pos, start, size;

	pos = visitor_status_as(e, number, now, decided, &st);
	if (e->q->adm.opens_at_ms > 0) {
		json_object_object_add(o, "position", pos > 0 ?
		    json_object_new_int64(pos) : NULL);
		draw_info_json(o, e->q, e->draw_seed, e->have_draw_seed, now);
	} else if (pos > 0 && adm_order_block(&e->q->adm, number, &start,
	    &size))
		json_object_object_add(o, "position",
		    json_object_new_int64(pos));
	if (with_active)
		json_object_object_add(o, "active",
		    json_object_new_boolean(adm_active_at(&e->q->adm, now)));
	/* Only on hold: numbers taken, nobody new admitted. */
	if (adm_seg_at(&e->q->adm, now) == ADM_SEG_HOLD)
		json_object_object_add(o, "onHold",
		    json_object_new_boolean(1));
	json_object_object_add(o, "number", json_object_new_int64(number));
	json_object_object_add(o, "serving",
	    json_object_new_int64(st.serving));
	json_object_object_add(o, "ahead", json_object_new_int64(st.ahead));
	json_object_object_add(o, "admitted",
	    json_object_new_boolean(st.admitted));
	/* null while paused: nobody knows when the queue resumes. */
	json_object_object_add(o, "estimatedWaitSeconds", st.wait_s < 0 ?
	    NULL : json_object_new_int64(st.wait_s));
	json_object_object_add(o, "retryAfterSeconds",
	    json_object_new_int(st.retry_after_s));
	return st.retry_after_s;
}

int
visitor_number_body(struct req *r, struct json_object **body,
    int64_t *number, const char **ticket)
{
	enum http_err		 er;
	size_t			 len;

	*ticket = NULL;
	if ((er = req_body_json(r, body, 1)) != ERR_OK) {
		http_app_err(r, er);
		return -1;
	}
	if (jsonbody_get_int(*body, "number", 1, VISITOR_NUMBER_MAX,
	    number) != 0) {
		http_app_err(r, ERR_INVALID_NUMBER);
		return -1;
	}
	*ticket = jsonbody_get_str(*body, "ticket", &len);
	if (*ticket != NULL && len != strlen(*ticket))
		*ticket = NULL;
	return 0;
}

char *
visitor_token(struct req *r, int64_t number)
{
	const struct qentry	*e = r->qe;
	char			*tok;

	tok = token_sign(e->q->slug, e->secret, SECRET_LEN, number,
	    r->now_ms / 1000, e->q->token_ttl_s, 0);
	if (tok != NULL) {
		/* Counted for /metrics in shared memory: no database work. */
		instance_token_issued(e->q->id);
		/* The served order of the fairness report: first tokens. */
		fair_served_record(r->db, e->q->id, number);
	}
	return tok;
}

enum http_err
visitor_admitted(struct req *r, int64_t number, int trusted, int *admitted)
{
	struct qentry	*e = r->qe;
	enum app_err	 er;
	int64_t		 pos, fresh = r->cfg->token_state_ms;
	int		 done;

	*admitted = 0;
	/*
	 * A token is never decided from a state older than token-state-ms
	 * (at most the cache's own bound): an operator's pause or rate
	 * change holds for /token on every process within that bound (SPEC
	 * section 3), and the copy agrees with the row (admission.h).
	 */
	if (fresh > ADM_TICK_MS / 2)
		fresh = ADM_TICK_MS / 2;
	if (trusted && (r->now_ms - e->state_ms > fresh ||
	    r->now_ms < e->state_ms)) {
		er = qcache_refresh(r, e, 0, &done);
		if (er == APP_NOTFOUND)
			return ERR_QUEUE_NOT_FOUND;
		if (er != APP_OK)
			return ERR_DB_DOWN;
	}
	if (number > qcache_issued(e)) {
		er = qcache_refresh(r, e, !trusted, &done);
		if (er == APP_BUSY)
			return ERR_BUSY;
		if (er == APP_NOTFOUND)
			return ERR_QUEUE_NOT_FOUND;
		if (er != APP_OK)
			return ERR_DB_DOWN;
		if (number > qcache_issued(e))
			return ERR_NUMBER_NOT_FOUND;
	}
	pos = visitor_position(e, number, r->now_ms);
	*admitted = pos > 0 && adm_admitted(&e->q->adm, pos, r->now_ms);
	return ERR_OK;
}

enum http_err
visitor_claim(struct req *r, int64_t number)
{
	enum http_err	 er;
	int		 admitted;

	if ((er = visitor_admitted(r, number, 1, &admitted)) != ERR_OK)
		return er;
	if (!admitted)
		return ERR_NOT_ADMITTED;
	if (adm_claim_expired(&r->qe->q->adm,
	    visitor_position(r->qe, number, r->now_ms), r->now_ms))
		return ERR_TICKET_EXPIRED;
	return ERR_OK;
}

enum http_err
visitor_join(struct req *r, int64_t *number, int *admitted)
{
	struct qentry		*e = r->qe;
	enum app_err		 er;
	int64_t			 n, last = 0, pos, fresh, at = 0;
	int			 done, tries = 0;

	*admitted = 0;
	lease_note_join(e->q->id);
	/*
	 * The cached row decides a lease's number, at this moment (the
	 * request may have waited): no older than a token's state may be
	 * (visitor_admitted()), else read again.
	 */
	fresh = r->cfg->token_state_ms < ADM_TICK_MS / 2 ?
	    r->cfg->token_state_ms : ADM_TICK_MS / 2;
	if (lease_live(e) && (((r->now_ms = db_clock_ms(r->db)) -
	    e->state_ms <= fresh && r->now_ms >= e->state_ms) ||
	    qcache_refresh(r, e, 0, &done) == APP_OK) &&
	    lease_take(e, r->now_ms, number)) {
		pos = visitor_position(e, *number, r->now_ms);
		*admitted = pos > 0 && adm_admitted(&e->q->adm, pos,
		    r->now_ms);
		return ERR_OK;
	}
	n = lease_size(e);
again:
	/* Joins stuck on the database never hold every worker. */
	if (writers_enter() != APP_OK)
		return ERR_BUSY;
	if (n > 1) {
		at = mono_ms();
		er = db_queue_lease(r->db, e->q->id, DB_NOW, n, &last,
		    admitted);
		if (er == APP_OK) {
			*number = last - n + 1;
			lease_set(e->q->id, *number, last, at);
		}
	} else
		er = db_queue_join(r->db, e->q->id, DB_NOW, number, admitted);
	/*
	 * A join given up on (answered 503) may still write: its slot is
	 * kept until it is done (the child's loop gives it back).
	 */
	if (!db_inflight(r->db))
		writers_leave();
	if (er == APP_NOTFOUND && n > 1) {
		/* The row takes no lease (any more): a plain join. */
		n = 1;
		goto again;
	}
	if (er == APP_NOTFOUND) {
		/* Paused, gone, or a scheduled change is due: look again. */
		er = qcache_refresh(r, e, 0, &done);
		if (er != APP_OK)
			return er == APP_NOTFOUND ? ERR_QUEUE_NOT_FOUND :
			    ERR_DB_DOWN;
		/*
		 * Due by the database's clock, which refused the join
		 * (ours moved on since the request began).
		 */
		r->now_ms = db_clock_ms(r->db);
		if (e->q->adm.pend_at_ms > 0 &&
		    e->q->adm.pend_at_ms <= r->now_ms && tries++ < 2) {
			if (writers_enter() != APP_OK)
				return ERR_BUSY;
			er = db_queue_materialize(r->db, e->q->id);
			writers_leave();
			if (er != APP_OK)
				return ERR_DB_DOWN;
			goto again;
		}
		if (!adm_active_at(&e->q->adm, r->now_ms))
			return ERR_QUEUE_PAUSED;
		/*
		 * The row is there, open, nothing due now: a change that
		 * was due when the statement ran has been applied since by
		 * another process (the worker schedules one every second
		 * while number blocks leave numbers unused), so join
		 * again while time is left.
		 */
		if (tries++ < 2 && db_time_left_ms(r->db) > 0)
			goto again;
		/*
		 * Otherwise the statement's only other condition is its
		 * deadline in the server's clock (this process's estimate
		 * of it can lag after a slow round trip, e.g. while the
		 * pool moves to another node).  Nothing was issued: 503,
		 * try again.
		 */
		log_info("join: the database got to it after its deadline; "
		    "nothing issued");
		return ERR_DB_DOWN;
	}
	if (er != APP_OK)
		return ERR_DB_DOWN;
	/*
	 * The statement decided (number, admitted at its instant); the
	 * cached state stays as it was read, and agrees with the row
	 * (admission.h).  Status and tokens now know the number exists.
	 */
	r->now_ms = db_clock_ms(r->db);
	qcache_note_issued(e, n > 1 ? last : *number);
	/*
	 * Around a scheduled opening this join may have closed the
	 * pre-queue (or come after it): read the row once more, so that
	 * the answer says on which side the number landed.  Only while
	 * the cached row still collects and the opening is at most 2 s
	 * ahead (our estimate of the database's clock may lag).
	 */
	if (e->q->adm.draw_open && r->now_ms >= e->q->adm.opens_at_ms - 2000)
		(void)qcache_refresh(r, e, 0, &done);
	return ERR_OK;
}
