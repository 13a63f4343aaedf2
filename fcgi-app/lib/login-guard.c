/*
 * login-guard.c - the log-in's throttles, decided before any hash (see
 * login-guard.h).
 */
#include "config.h"

#include <stdint.h>

#include "aqueue.h"
#include "cfg.h"
#include "db-console.h"
#include "login-guard.h"

int64_t
login_guard_pace_s(const struct cfg *c, int64_t count)
{
	int64_t	 over = count - c->login_user_failures, s = 1;

	if (c->login_user_backoff_s <= 0 || over < 0)
		return 0;
	/* 1, 2, 4, ... seconds: doubling, never past the cap. */
	while (over-- > 0 && s < c->login_user_backoff_s)
		s *= 2;
	return s < c->login_user_backoff_s ? s : c->login_user_backoff_s;
}

/* Seconds (at least 1) from now until until_ms, rounded up. */
static int64_t
secs_until(int64_t until_ms, int64_t now)
{
	int64_t	 s = (until_ms - now + 999) / 1000;

	return s < 1 ? 1 : s;
}

enum login_guard
login_guard_decide(const struct cfg *c, const struct login_counts *n,
    int64_t *retry_s)
{
	enum login_guard	 v = LOGIN_GUARD_OK;
	int64_t			 win = c->login_window_s * 1000, pace, s;

	*retry_s = 0;
	if (n->pair >= c->login_user_failures) {
		v = LOGIN_GUARD_PAIR;
		*retry_s = secs_until(n->pair_oldest + win, n->now);
	}
	if (n->addr >= c->login_addr_failures) {
		if (v == LOGIN_GUARD_OK)
			v = LOGIN_GUARD_ADDR;
		s = secs_until(n->addr_oldest + win, n->now);
		if (s > *retry_s)
			*retry_s = s;
	}
	pace = login_guard_pace_s(c, n->user);
	if (pace > 0 && n->now < n->user_last + pace * 1000) {
		if (v == LOGIN_GUARD_OK)
			v = LOGIN_GUARD_PACE;
		s = secs_until(n->user_last + pace * 1000, n->now);
		if (s > *retry_s)
			*retry_s = s;
	}
	return v;
}

enum app_err
login_guard_check(struct db *db, const struct cfg *c, const char *name,
    const char *addr, enum login_guard *verdict, int64_t *retry_s)
{
	struct login_counts	 n;
	enum app_err		 er;

	*verdict = LOGIN_GUARD_OK;
	*retry_s = 0;
	if ((er = db_login_stats(db, name, addr, c->login_window_s * 1000,
	    &n)) != APP_OK)
		return er;
	*verdict = login_guard_decide(c, &n, retry_s);
	return APP_OK;
}
