/*
 * http.c - every response goes out through http_send(): status,
 * content type, security headers, no caching, the handler's extra
 * headers, then the body; every error answer through http_app_err()
 * and the one table of enum http_err.  Also the growable buffer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "extern.h"
#include "instance.h"
#include "loadtest.h"
#include "log.h"

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t	 cap = b->cap == 0 ? 1024 : b->cap;
		char	*np;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((np = try_realloc(b->p, cap)) == NULL) {
			log_warnx("out of memory");
			exit(1);
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_puts(b, s);
	free(s);
}

void
buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* The reason phrase of status (RFC 9110 section 15), or "Unknown". */
static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 302: return "Found";
	case 303: return "See Other";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 409: return "Conflict";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Content";
	case 423: return "Locked";
	case 425: return "Too Early";
	case 428: return "Precondition Required";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Unknown";
	}
}

void
http_header(struct req *r, const char *name, const char *fmt, ...)
{
	va_list	 ap;
	char	*v;

	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	if (strpbrk(v, "\r\n") != NULL)
		log_warnx("header %s dropped: CR or LF in value", name);
	else
		buf_printf(&r->hdrs, "%s: %s\r\n", name, v);
	free(v);
}

/*
 * For a load test's request (X-Aqueue-Loadtest with the installation's
 * token, lt_header_token()): the header naming this process, so that
 * the runner knows which pool processes served it.  Anyone else gets
 * nothing (the token is compared in constant time).
 */
static void
loadtest_instance(struct req *r, FCGX_Stream *out)
{
	static char	 tok[LT_HEADER_TOKEN_MAX];
	static int	 have = -1;
	const char	*v = r->loadtest;
	char		 id[160];

	if (v == NULL)
		return;
	if (have == -1)
		have = lt_header_token(r->cfg->master_key, tok,
		    sizeof(tok)) == 0;
	if (have && strlen(v) == strlen(tok) &&
	    crypto_ct_equal(v, tok, strlen(tok)) &&
	    instance_id("pool", id, sizeof(id)) == 0)
		FCGX_FPrintF(out, "X-Aqueue-Instance: %s\r\n", id);
}

void
http_send(struct req *r, int status, const char *ctype, const void *body,
    size_t len)
{
	FCGX_Stream	*out = r->fcgx->out;

	if (r->responded) {
		log_warnx("second response for one request dropped");
		return;
	}
	r->responded = 1;
	r->status = status;
	/* libfcgi's printf knows no %zu: lengths go through %lu. */
	FCGX_FPrintF(out, "Status: %d %s\r\n", status, reason(status));
	if (ctype != NULL)
		FCGX_FPrintF(out, "Content-Type: %s\r\n"
		    "Content-Length: %lu\r\n", ctype, (unsigned long)len);
	/* A handler's own Cache-Control replaces the default no-store. */
	if (r->hdrs.len == 0 || (strncasecmp(r->hdrs.p, "Cache-Control:",
	    14) != 0 && strcasestr(r->hdrs.p, "\nCache-Control:") == NULL))
		FCGX_PutS("Cache-Control: no-store\r\n", out);
	FCGX_PutS("X-Content-Type-Options: nosniff\r\n"
	    "X-Frame-Options: DENY\r\n"
	    "Referrer-Policy: no-referrer\r\n"
	    "Content-Security-Policy: default-src 'self'; img-src 'self' "
	    "https: data:; object-src 'none'; base-uri 'none'; "
	    "frame-ancestors 'none'; form-action 'self'\r\n", out);
	if (r->hdrs.len > 0)
		FCGX_PutStr(r->hdrs.p, (int)r->hdrs.len, out);
	loadtest_instance(r, out);
	FCGX_PutS("\r\n", out);
	if (body != NULL && len > 0 && r->method != METHOD_HEAD)
		FCGX_PutStr(body, (int)len, out);
}

void
http_json(struct req *r, int status, struct json_object *o)
{
	size_t		 len;
	const char	*s = json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);

	http_send(r, status, "application/json; charset=utf-8", s, len);
}

void
http_redirect(struct req *r, const char *location)
{
	http_header(r, "Location", "%s", location);
	http_send(r, 302, NULL, NULL, 0);
}

int
http_retry_jitter(int lo, int hi)
{
	uint32_t	 v;

	if (hi <= lo || crypto_random(&v, sizeof(v)) == -1)
		return lo;
	return lo + (int)(v % (uint32_t)(hi - lo + 1));
}

/*
 * The answers of enum http_err.  A row with a Retry-After range (the
 * 503s) sends a random whole number of seconds from it, also as
 * "retryAfterSeconds".
 */
static const struct {
	int		 status;
	const char	*code;
	const char	*message;
	int		 retry_lo, retry_hi;	/* seconds; 0: none */
} errs[ERR__MAX] = {
	[ERR_INTERNAL] = { 500, "internal_error", "Internal error.", 0, 0 },
	[ERR_DB_DOWN] = { 503, "service_unavailable", "The waiting room's "
	    "database does not answer; try again shortly.",
	    HTTP_DOWN_RETRY_MIN_S, HTTP_DOWN_RETRY_MAX_S },
	[ERR_BUSY] = { 503, "busy", "Too many look-ups right now; try again "
	    "in a second.", HTTP_BUSY_RETRY_MIN_S, HTTP_BUSY_RETRY_MAX_S },
	[ERR_NOT_FOUND] = { 404, "not_found", "No such endpoint.", 0, 0 },
	[ERR_METHOD] = { 405, "method_not_allowed", "This endpoint does not "
	    "take this method.", 0, 0 },
	[ERR_LENGTH_REQUIRED] = { 411, "length_required", "A request body "
	    "needs a Content-Length.", 0, 0 },
	[ERR_BAD_LENGTH] = { 400, "invalid_content_length", "Content-Length "
	    "is not a plain decimal number.", 0, 0 },
	[ERR_TOO_LARGE] = { 413, "body_too_large", "The request body is too "
	    "large.", 0, 0 },
	[ERR_INCOMPLETE] = { 400, "incomplete_body", "The request body is "
	    "shorter than its Content-Length.", 0, 0 },
	[ERR_MEDIA_TYPE] = { 415, "unsupported_media_type", "Send the body "
	    "as application/json.", 0, 0 },
	[ERR_INVALID_JSON] = { 400, "invalid_json", "The body must be one "
	    "strict JSON object.", 0, 0 },
	[ERR_INVALID_UNICODE] = { 400, "invalid_unicode", "The body must be "
	    "Unicode text: UTF-8 bytes, and no \\u escape of an unpaired "
	    "surrogate.", 0, 0 },
	[ERR_QUEUE_NOT_FOUND] = { 404, "queue_not_found", "No such queue.",
	    0, 0 },
	[ERR_NUMBER_NOT_FOUND] = { 404, "number_not_found", "This number has "
	    "not been issued.", 0, 0 },
	[ERR_KEY_NOT_FOUND] = { 404, "key_not_found", "No such API key.",
	    0, 0 },
	[ERR_NO_TARGET] = { 404, "no_target_url", "This waiting room has no "
	    "target URL configured.", 0, 0 },
	[ERR_QUEUE_PAUSED] = { 423, "queue_paused", "This waiting room is "
	    "paused: no numbers are issued right now.", 0, 0 },
	[ERR_NOT_ADMITTED] = { 425, "not_admitted", "This number is not "
	    "admitted yet.", 0, 0 },
	[ERR_TICKET_EXPIRED] = { 403, "ticket_expired", "This number was "
	    "admitted longer ago than its claim window: take a new number.",
	    0, 0 },
	[ERR_INVALID_TICKET] = { 403, "invalid_ticket", "The ticket does not "
	    "match this number.", 0, 0 },
	[ERR_INVALID_NUMBER] = { 400, "invalid_number", "number must be a "
	    "whole number from 1.", 0, 0 },
	[ERR_INVALID_RETURN] = { 400, "invalid_return_url", "The return URL "
	    "is not one of this waiting room's shop pages.", 0, 0 },
	[ERR_ORIGIN] = { 403, "origin_not_allowed", "This origin may not "
	    "take a number in this waiting room.", 0, 0 },
	[ERR_NOT_DELIBERATE] = { 403, "not_deliberate", "Only the visitor's "
	    "own request takes a number: not a prefetch, prerender, HEAD or "
	    "no-cors request.", 0, 0 },
	[ERR_FORBIDDEN] = { 403, "forbidden", "This API key belongs to "
	    "another queue.", 0, 0 },
	[ERR_MISSING_CREDENTIALS] = { 401, "missing_credentials", "This "
	    "endpoint needs an API key (Authorization: Bearer qak_...) or a "
	    "console session.", 0, 0 },
	[ERR_INVALID_API_KEY] = { 401, "invalid_api_key", "This is not a "
	    "valid API key.", 0, 0 },
	[ERR_INVALID_TOKEN] = { 401, "invalid_token", "This token does not "
	    "open the metrics.", 0, 0 },
	[ERR_NOT_LOGGED_IN] = { 401, "not_logged_in", "Log in to the console "
	    "first.", 0, 0 },
	[ERR_CSRF] = { 403, "csrf_failed", "A console session's change needs "
	    "its CSRF token in X-CSRF-Token.", 0, 0 },
	[ERR_INVALID_LIMIT] = { 400, "invalid_limit", "limit must be a whole "
	    "number in the endpoint's range.", 0, 0 },
	[ERR_INVALID_CURSOR] = { 400, "invalid_cursor", "cursor must be the "
	    "\"next\" of the previous page.", 0, 0 },
	[ERR_INVALID_FILTER] = { 400, "invalid_filter", "actor and action are "
	    "given once; since and until are Unix times in ms.", 0, 0 },
	[ERR_INVALID_PERIOD] = { 400, "invalid_period", "since and until "
	    "are given once each, as Unix times in ms, since before until.",
	    0, 0 },
	[ERR_MISSING_VALUE] = { 422, "missing_value", "A required setting is "
	    "missing.", 0, 0 },
	[ERR_INVALID_VALUE] = { 422, "invalid_value", "A setting has an "
	    "invalid value.", 0, 0 },
	[ERR_INVALID_SLUG] = { 422, "invalid_slug", "The slug must be 1-63 "
	    "of a-z 0-9 -, starting with a letter or digit.", 0, 0 },
	[ERR_QUEUE_EXISTS] = { 409, "queue_exists", "A queue with this slug "
	    "exists.", 0, 0 },
	[ERR_INVALID_HEALTH_URL] = { 422, "invalid_health_url", "The health "
	    "URL is not valid.", 0, 0 },
	[ERR_INVALID_RULES] = { 422, "invalid_rules", "The auto-rate rules "
	    "are not valid.", 0, 0 },
	[ERR_TEST_REQUIRED] = { 409, "test_required", "A new health URL, "
	    "rules or network setting need a passing test before auto-rate "
	    "can be enabled: save them, test, then enable.", 0, 0 },
	[ERR_SETTINGS_CHANGED] = { 409, "settings_changed", "The auto-rate "
	    "settings changed meanwhile; test again.", 0, 0 },
	[ERR_POW_REQUIRED] = { 428, "pow_required", "This waiting room "
	    "checks browsers with a small computation before it issues a "
	    "number: take the challenge in this answer (or GET "
	    "/queue/<slug>/pow), find a nonce such that SHA-256(challenge + "
	    "\".\" + nonce) begins with bits zero bits, and send "
	    "{\"pow\":{\"challenge\":\"...\",\"nonce\":\"...\"}}. The "
	    "hosted waiting room does this by itself.", 0, 0 },
	[ERR_POW_MALFORMED] = { 428, "pow_malformed", "pow must be an object "
	    "whose challenge is a string and whose nonce is a string of 1 to "
	    "64 printable ASCII characters.", 0, 0 },
	[ERR_CHALLENGE_INVALID] = { 428, "challenge_invalid", "This "
	    "challenge was not issued by this waiting room, or it was "
	    "changed.", 0, 0 },
	[ERR_CHALLENGE_MISMATCH] = { 428, "challenge_mismatch", "This "
	    "challenge belongs to another waiting room.", 0, 0 },
	[ERR_CHALLENGE_EXPIRED] = { 428, "challenge_expired", "This "
	    "challenge is older than 300 seconds: solve the one in this "
	    "answer.", 0, 0 },
	[ERR_INSUFFICIENT_WORK] = { 428, "insufficient_work", "The nonce "
	    "does not give enough leading zero bits for this challenge.",
	    0, 0 },
	[ERR_CHALLENGE_USED] = { 428, "challenge_used", "This challenge was "
	    "used already: solve the one in this answer.", 0, 0 },
	[ERR_INVALID_BODY] = { 400, "invalid_body", "The body lacks a member "
	    "this endpoint needs.", 0, 0 },
	[ERR_INVALID_CODE] = { 404, "invalid_code", "This code admits nobody "
	    "here.", 0, 0 },
	[ERR_TOO_MANY_ATTEMPTS] = { 429, "too_many_attempts", "Too many "
	    "failed attempts came from this address: wait and try again.",
	    0, 0 },
	[ERR_TEMPLATE_TOO_LARGE] = { 413, "template_too_large", "A template "
	    "has at most 51200 bytes.", 0, 0 },
	[ERR_INVALID_TEMPLATE] = { 422, "invalid_template", "The template "
	    "breaks a rule; \"line\" and \"reason\" say where and which.",
	    0, 0 },
	[ERR_TEMPLATE_NOT_FOUND] = { 404, "template_not_found", "This queue "
	    "shows the default waiting-room page: it has no custom template.",
	    0, 0 },
	[ERR_RENEWAL_OFF] = { 403, "renewal_disabled", "This waiting room "
	    "does not renew sessions: a token ends at its expiry.", 0, 0 },
	[ERR_BYPASS_NO_RENEW] = { 403, "bypass_not_renewed", "A bypass pass "
	    "ends at its expiry: its code's limits are checked when it is "
	    "redeemed, so the pass is not renewed.", 0, 0 },
	[ERR_NOT_TEST_QUEUE] = { 422, "not_a_test_queue", "Load tests run "
	    "only against a test queue (loadTestQueue on).", 0, 0 },
	[ERR_LOADTESTS_OFF] = { 409, "load_tests_unavailable", "Load tests "
	    "are off in this installation: set loadtest-url.", 0, 0 },
	[ERR_LOADTEST_NOT_FOUND] = { 404, "load_test_not_found", "No load "
	    "test with this id.", 0, 0 },
};

/* err, or ERR_INTERNAL for ERR_OK and values out of range. */
static enum http_err
err_row(enum http_err err)
{
	return err > ERR_OK && err < ERR__MAX ? err : ERR_INTERNAL;
}

/*
 * Send {"error": code, "message": message[, "field": field]} and the
 * members of extra (NULL: none) with the status of err's row, and the
 * row's Retry-After.  Can't fail visibly.
 */
static void
send_err(struct req *r, enum http_err err, const char *message,
    const char *field, struct json_object *extra)
{
	struct json_object	*o = json_object_new_object();
	int			 s;

	err = err_row(err);
	if (extra != NULL) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(o, k, json_object_get(v));
	}
	json_object_object_add(o, "error",
	    json_object_new_string(errs[err].code));
	json_object_object_add(o, "message", json_object_new_string(message));
	if (field != NULL)
		json_object_object_add(o, "field",
		    json_object_new_string(field));
	if (errs[err].retry_hi > 0) {
		s = http_retry_jitter(errs[err].retry_lo, errs[err].retry_hi);
		json_object_object_add(o, "retryAfterSeconds",
		    json_object_new_int(s));
		http_header(r, "Retry-After", "%d", s);
	}
	http_json(r, errs[err].status, o);
	json_object_put(o);
}

void
http_app_err(struct req *r, enum http_err err)
{
	if (err == ERR_TOO_LARGE && r->cfg != NULL)
		http_app_errf(r, err, "The request body is larger than %lld "
		    "bytes.", (long long)r->cfg->max_body);
	else
		send_err(r, err, errs[err_row(err)].message, NULL, NULL);
}

void
http_app_errf(struct req *r, enum http_err err, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	send_err(r, err, msg, NULL, NULL);
	free(msg);
}

void
http_app_err_field(struct req *r, enum http_err err, const char *field,
    const char *message)
{
	send_err(r, err, message, field, NULL);
}

void
http_app_err_with(struct req *r, enum http_err err, const char *message,
    struct json_object *extra)
{
	send_err(r, err, message != NULL ? message :
	    errs[err_row(err)].message, NULL, extra);
}

enum http_err
http_err_of(enum app_err er)
{
	switch (er) {
	case APP_DB_DOWN:
		return ERR_DB_DOWN;
	case APP_BUSY:
		return ERR_BUSY;
	default:
		return ERR_INTERNAL;
	}
}

enum http_err
http_err_by_code(const char *code)
{
	int	 i;

	for (i = ERR_OK + 1; i < ERR__MAX; i++)
		if (code != NULL && strcmp(errs[i].code, code) == 0)
			return (enum http_err)i;
	return ERR_INTERNAL;
}

int
http_err_status(enum http_err err)
{
	return errs[err_row(err)].status;
}

const char *
http_err_code(enum http_err err)
{
	return errs[err_row(err)].code;
}

const char *
http_err_message(enum http_err err)
{
	return errs[err_row(err)].message;
}

void
http_take_refused(struct req *r, enum url_take v)
{
	http_app_err(r, v == URL_TAKE_NOT_DELIBERATE ? ERR_NOT_DELIBERATE :
	    ERR_ORIGIN);
}
