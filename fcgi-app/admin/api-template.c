/*
 * api-template.c - a queue's custom waiting-room template in the REST
 * admin API (see api-template.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "api-admin.h"
#include "api-template.h"
#include "aqueue.h"
#include "crypto.h"
#include "extern.h"
#include "queue-ops.h"
#include "tmpl-ops.h"

/* The slug of the route's ":id" queue into slug (api_site_load()). */
static int
site_slug(struct req *r, char slug[SLUG_MAX + 1])
{
	struct queue	*q = NULL;

	if (api_site_load(r, &q) == -1)
		return -1;
	snprintf(slug, SLUG_MAX + 1, "%s", q->slug);
	qops_queue_free(q);
	return 0;
}

/* Answer the refusal *err of tmpl-ops.h. */
static void
answer(struct req *r, const struct tops_err *err)
{
	struct json_object	*x;

	if (err->status == 503) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	if (err->reason == NULL) {
		http_app_errf(r, http_err_by_code(err->code), "%s",
		    err->message);
		return;
	}
	x = json_object_new_object();
	json_object_object_add(x, "reason",
	    json_object_new_string(err->reason));
	json_object_object_add(x, "line", json_object_new_int(err->line));
	http_app_err_with(r, http_err_by_code(err->code), err->message, x);
	json_object_put(x);
}

/*
 * Whether Content-Type ct is text/html, with no charset or UTF-8's
 * (RFC 9110 section 8.3; parameters are case-insensitive).  Returns 1/0.
 */
static int
is_html(const char *ct)
{
	const char	*cs;

	if (!req_content_is(ct, "text/html"))
		return 0;
	if ((cs = strcasestr(ct, "charset=")) == NULL)
		return 1;
	cs += 8;
	if (*cs == '"')
		cs++;
	return strncasecmp(cs, "utf-8", 5) == 0 && (cs[5] == '\0' ||
	    cs[5] == '"' || cs[5] == ';' || cs[5] == ' ');
}

/* GET: the template, or 404 while the queue shows the default page. */
static void
get(struct req *r, const char *slug)
{
	struct tops_err	 err;
	char		*html = NULL;
	size_t		 len = 0;

	if (tops_get(r->db, slug, &html, &len, &err, &r->who) != APP_OK) {
		answer(r, &err);
		return;
	}
	if (html == NULL) {
		http_app_err(r, ERR_TEMPLATE_NOT_FOUND);
		return;
	}
	/* Opened in a browser, it stays inert (CSP sandbox). */
	http_header(r, "Content-Security-Policy", "default-src 'none'; "
	    "sandbox");
	http_send(r, 200, "text/html; charset=utf-8", html, len);
	free(html);
}

/* PUT: store the body as the template. */
static void
put(struct req *r, const char *slug)
{
	struct json_object	*o;
	struct tops_err		 err;
	enum http_err		 he;
	uint8_t			 md[SHA256_LEN];
	char			 hex[2 * SHA256_LEN + 1];
	size_t			 i;

	if (!is_html(req_param(r, "CONTENT_TYPE"))) {
		http_app_errf(r, ERR_MEDIA_TYPE, "Send the template as "
		    "text/html (UTF-8).");
		return;
	}
	if ((he = req_read_body(r)) != ERR_OK) {
		http_app_err(r, he);
		return;
	}
	if (r->body == NULL || r->bodylen == 0) {
		http_app_errf(r, ERR_INVALID_TEMPLATE, "The template is "
		    "empty; DELETE goes back to the default page.");
		return;
	}
	if (r->bodylen <= ROOM_TMPL_MAX &&
	    utf8_chars(r->body, r->bodylen) < 0) {
		http_app_err(r, ERR_INVALID_UNICODE);
		return;
	}
	if (tops_put(r->db, slug, r->body, r->bodylen, &err,
	    &r->who) != APP_OK) {
		answer(r, &err);
		return;
	}
	if (crypto_sha256(r->body, r->bodylen, md) == -1) {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	for (i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	o = json_object_new_object();
	json_object_object_add(o, "custom", json_object_new_boolean(1));
	json_object_object_add(o, "bytes",
	    json_object_new_int64((int64_t)r->bodylen));
	json_object_object_add(o, "sha256", json_object_new_string(hex));
	http_json(r, 200, o);
	json_object_put(o);
}

void
api_template(struct req *r)
{
	struct tops_err	 err;
	char		 slug[SLUG_MAX + 1];

	if (site_slug(r, slug) == -1)
		return;
	switch (r->method) {
	case METHOD_PUT:
		put(r, slug);
		break;
	case METHOD_DELETE:
		if (tops_reset(r->db, slug, &err, &r->who) != APP_OK)
			answer(r, &err);
		else
			http_send(r, 204, NULL, NULL, 0);
		break;
	default:
		get(r, slug);
		break;
	}
}
