/*
 * page-bypass.h - a visitor redeems a VIP bypass code (bypass.h): POST
 * /queue/<slug>/bypass {"code"} answers the token as JSON, and the
 * gateway link takes ?code= on the same path.  Every code that does not
 * redeem (unknown, malformed, disabled, expired, used up) gets the same
 * answer, after the same queries; failures are counted per client
 * address (bypass-failures within bypass-window seconds), and past the
 * limit every attempt, a valid code's too, is refused before any
 * look-up.
 */
#ifndef PAGE_BYPASS_H
#define PAGE_BYPASS_H

#include <stddef.h>
#include <stdint.h>

struct req;

/* What a redemption came to. */
enum bypass_visit {
	BYPASS_VISIT_OK,	/* *token is a bypass token */
	BYPASS_VISIT_REFUSED,	/* the code admits nobody (counted) */
	BYPASS_VISIT_THROTTLED,	/* too many failures from this address */
	BYPASS_VISIT_BUSY,	/* the pool's writes are stuck: retry */
	BYPASS_VISIT_DOWN,	/* the database does not answer */
	BYPASS_VISIT_ERROR	/* internal (logged) */
};

/*
 * Redeem code (len bytes) on the route's queue for the request's client
 * address (its throttle, the single statement that takes a use, the
 * failure recorded and audited).  On BYPASS_VISIT_OK *token is the
 * token (caller frees); on BYPASS_VISIT_THROTTLED *retry_s the seconds
 * until an attempt is taken again.  Sends nothing.
 */
enum bypass_visit page_bypass_redeem(struct req *, const char *code,
	    size_t len, char **token, int64_t *retry_s);

/*
 * POST /queue/<slug>/bypass {"code": "..."}: 200 {queue, token,
 * tokenType, expiresInSeconds, targetUrl, bypass: true}; 404
 * invalid_code for every code that admits nobody; 429 with Retry-After
 * past the failure limit; 423 while the queue is paused; the deliberate
 * request rule of every path that admits (req_take_number()).
 */
void	 page_bypass(struct req *);

#endif /* PAGE_BYPASS_H */
