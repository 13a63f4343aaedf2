/*
 * http.c - every response goes out through http_send(): status,
 * content type, security headers, no caching, the handler's extra
 * headers, then the body.  Also the growable buffer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "crypto.h"
#include "extern.h"
#include "log.h"

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t	 cap = b->cap == 0 ? 1024 : b->cap;
		char	*np;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((np = realloc(b->p, cap)) == NULL) {
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
	if (vasprintf(&s, fmt, ap) < 0) {
		log_warnx("out of memory");
		exit(1);
	}
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
	if (vasprintf(&v, fmt, ap) < 0) {
		log_warnx("out of memory");
		exit(1);
	}
	va_end(ap);
	if (strpbrk(v, "\r\n") != NULL)
		log_warnx("header %s dropped: CR or LF in value", name);
	else
		buf_printf(&r->hdrs, "%s: %s\r\n", name, v);
	free(v);
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
http_error_obj(struct req *r, int status, const char *code,
    const char *message, struct json_object *extra)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(code));
	json_object_object_add(o, "message", json_object_new_string(message));
	if (extra != NULL) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(o, k, json_object_get(v));
	}
	http_json(r, status, o);
	json_object_put(o);
}

void
http_error(struct req *r, int status, const char *code, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0) {
		log_warnx("out of memory");
		exit(1);
	}
	va_end(ap);
	http_error_obj(r, status, code, msg, NULL);
	free(msg);
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

/* A 503 whose Retry-After, also in the body, is drawn from [lo, hi]. */
static void
unavailable_json(struct req *r, int lo, int hi, const char *code,
    const char *message)
{
	struct json_object	*extra = json_object_new_object();
	int			 s = http_retry_jitter(lo, hi);

	json_object_object_add(extra, "retryAfterSeconds",
	    json_object_new_int(s));
	http_header(r, "Retry-After", "%d", s);
	http_error_obj(r, 503, code, message, extra);
	json_object_put(extra);
}

void
http_busy(struct req *r)
{
	unavailable_json(r, HTTP_BUSY_RETRY_MIN_S, HTTP_BUSY_RETRY_MAX_S,
	    "busy", "Too many look-ups right now; try again in a second.");
}

void
http_take_refused(struct req *r, enum url_take v)
{
	if (v == URL_TAKE_NOT_DELIBERATE)
		http_error(r, 403, "not_deliberate", "Only the visitor's own "
		    "request takes a number: not a prefetch, prerender, HEAD "
		    "or no-cors request.");
	else
		http_error(r, 403, "origin_not_allowed", "This origin may not "
		    "take a number in this waiting room.");
}

void
http_db_down(struct req *r)
{
	unavailable_json(r, HTTP_DOWN_RETRY_MIN_S, HTTP_DOWN_RETRY_MAX_S,
	    "service_unavailable", "The waiting room's database does not "
	    "answer; try again shortly.");
}
