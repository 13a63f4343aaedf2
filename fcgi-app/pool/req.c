/*
 * req.c - the request layer: turn FastCGI parameters into a struct req
 * (method, path, declared query fields), the request's headers, the
 * request body per CONTENT_LENGTH (FastCGI spec section 6.2: the web
 * server sends CONTENT_LENGTH bytes on FCGI_STDIN; CGI/1.1, RFC 3875
 * section 4.1.2), its strict JSON object, and form fields.  Failures
 * are enum http_err values for http_app_err().
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "cfg.h"
#include "extern.h"
#include "jsonbody.h"
#include "log.h"

#define FIELD_VAL_MAX	(16 * 1024)	/* bytes of one decoded value */

static const char *const field_names[FIELD__MAX] = {
	"number",	/* FIELD_NUMBER */
	"token",	/* FIELD_TOKEN */
	"return",	/* FIELD_RETURN */
	"code",		/* FIELD_CODE */
	"lang",		/* FIELD_LANG */
	"limit",	/* FIELD_LIMIT */
	"cursor",	/* FIELD_CURSOR */
	"actor",	/* FIELD_ACTOR */
	"action",	/* FIELD_ACTION */
	"since",	/* FIELD_SINCE */
	"until",	/* FIELD_UNTIL */
	"queue",	/* FIELD_QUEUE */
};

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
req_pct_decode(const char *s, size_t len, int strict, size_t *outlen)
{
	char	*out;
	size_t	 i, j;
	int	 hi, lo;

	*outlen = 0;
	if ((out = try_malloc(len + 1)) == NULL)
		return NULL;
	for (i = j = 0; i < len; i++) {
		if (s[i] == '+')
			out[j++] = ' ';
		else if (s[i] == '%' && i + 2 < len &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0 &&
		    (!strict || hi != 0 || lo != 0)) {
			out[j++] = (char)(hi << 4 | lo);
			i += 2;
		} else if (s[i] == '%' && strict) {
			free(out);
			return NULL;
		} else
			out[j++] = s[i];
	}
	out[j] = '\0';
	*outlen = j;
	return out;
}

void
req_parse_query(const char *qs, struct field_val fields[FIELD__MAX])
{
	const char	*p, *amp, *eq;
	size_t		 klen, vlen, dlen, i;
	char		*key, *val;

	if (qs == NULL)
		return;
	for (p = qs; *p != '\0'; p = *amp == '\0' ? amp : amp + 1) {
		if ((amp = strchr(p, '&')) == NULL)
			amp = p + strlen(p);
		eq = memchr(p, '=', (size_t)(amp - p));
		klen = (size_t)((eq != NULL ? eq : amp) - p);
		vlen = eq != NULL ? (size_t)(amp - eq - 1) : 0;
		if (klen == 0 || klen > 32)
			continue;
		if ((key = req_pct_decode(p, klen, 0, &dlen)) == NULL)
			continue;
		for (i = 0; i < FIELD__MAX; i++)
			if (strlen(key) == dlen &&
			    strcmp(key, field_names[i]) == 0)
				break;
		free(key);
		if (i == FIELD__MAX)
			continue;	/* undeclared: dropped */
		if (fields[i].state != FIELD_ABSENT) {
			free(fields[i].val);
			fields[i].val = NULL;
			fields[i].state = FIELD_BAD;
			continue;
		}
		if (vlen > FIELD_VAL_MAX * 3 ||
		    (val = req_pct_decode(eq != NULL ? eq + 1 : amp, vlen, 0,
		    &dlen)) == NULL) {
			fields[i].state = FIELD_BAD;
			continue;
		}
		if (dlen != strlen(val) || dlen > FIELD_VAL_MAX) {
			free(val);
			fields[i].state = FIELD_BAD;
			continue;
		}
		fields[i].state = FIELD_OK;
		fields[i].val = val;
		fields[i].len = dlen;
	}
}

enum method
req_method_of(const char *m)
{
	if (m == NULL)
		return METHOD_OTHER;
	if (strcmp(m, "GET") == 0)
		return METHOD_GET;
	if (strcmp(m, "HEAD") == 0)
		return METHOD_HEAD;
	if (strcmp(m, "POST") == 0)
		return METHOD_POST;
	if (strcmp(m, "PATCH") == 0)
		return METHOD_PATCH;
	if (strcmp(m, "DELETE") == 0)
		return METHOD_DELETE;
	if (strcmp(m, "OPTIONS") == 0)
		return METHOD_OPTIONS;
	if (strcmp(m, "PUT") == 0)
		return METHOD_PUT;
	return METHOD_OTHER;
}

/* The configured URL prefix (base-path), or "". */
static char cfg_base_path[REQ_BASE_MAX];

/*
 * The first path segments the program answers under: the visitor
 * endpoints, the admin API, the console and the metrics.
 */
static const char *const mounts[] = { "queue", "api", "admin", "metrics" };

void
req_set_base_path(const char *s)
{
	if (s == NULL || strlen(s) >= sizeof(cfg_base_path))
		s = "";
	memcpy(cfg_base_path, s, strlen(s) + 1);
}

int
req_base_valid(const char *s, size_t n)
{
	size_t	 i, seg = 0;

	if (n == 0 || n >= REQ_BASE_MAX || s[0] != '/' || s[n - 1] == '/')
		return 0;
	for (i = 1; i <= n; i++) {
		if (i == n || s[i] == '/') {
			/* Empty, "." and ".." segments. */
			if (seg == 0 || (seg == 1 && s[i - 1] == '.') ||
			    (seg == 2 && s[i - 1] == '.' && s[i - 2] == '.'))
				return 0;
			seg = 0;
			continue;
		}
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '-' || s[i] == '.' || s[i] == '_' || s[i] == '~'))
			return 0;
		seg++;
	}
	return 1;
}

/* Length of s up to '?' (or all of it). */
static size_t
before_query(const char *s)
{
	return strcspn(s, "?");
}

/* Whether p[0..n) begins with "/<mount>" followed by "/" or its end. */
static int
mounted(const char *p, size_t n)
{
	size_t	 i, m;

	if (n < 2 || p[0] != '/')
		return 0;
	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		m = strlen(mounts[i]);
		if (n >= m + 1 && strncmp(p + 1, mounts[i], m) == 0 &&
		    (n == m + 1 || p[m + 1] == '/'))
			return 1;
	}
	return 0;
}

/* Copy s[0..n) into buf of size sz; -1 (buf "") when it does not fit. */
static int
copy_path(char *buf, size_t sz, const char *s, size_t n)
{
	if (n >= sz) {
		buf[0] = '\0';
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

int
req_route_path(const struct req_paths *p, const char *base_path,
    char *path, size_t psz, char *base, size_t bsz)
{
	const char	*uri = p->request_uri, *c;
	size_t		 un = uri != NULL ? before_query(uri) : 0, bn, n;
	char		 sp[1024];

	path[0] = '\0';
	base[0] = '\0';
	/* A configured prefix, when REQUEST_URI is under it. */
	bn = base_path != NULL ? strlen(base_path) : 0;
	if (bn > 0 && bn < bsz && un > bn &&
	    strncmp(uri, base_path, bn) == 0 && uri[bn] == '/') {
		memcpy(base, base_path, bn + 1);
		return copy_path(path, psz, uri + bn, un - bn);
	}
	/* REQUEST_URI itself: every install at the server's root. */
	if (uri != NULL && mounted(uri, un))
		return copy_path(path, psz, uri, un);
	/* Under a prefix: the first candidate the program answers under. */
	c = NULL;
	n = 0;
	if (p->redirect_uri != NULL &&
	    mounted(p->redirect_uri, before_query(p->redirect_uri))) {
		c = p->redirect_uri;
		n = before_query(c);
	} else if (p->path_info != NULL && p->path_info[0] != '\0' &&
	    (size_t)snprintf(sp, sizeof(sp), "%s%s", p->script_name != NULL ?
	    p->script_name : "", p->path_info) < sizeof(sp) &&
	    mounted(sp, strlen(sp))) {
		c = sp;
		n = strlen(sp);
	} else if (p->path_info != NULL &&
	    mounted(p->path_info, strlen(p->path_info))) {
		c = p->path_info;
		n = strlen(c);
	}
	if (c == NULL) {
		/* Nothing the program answers under: 404 for this path. */
		if (uri != NULL)
			return copy_path(path, psz, uri, un);
		if ((size_t)snprintf(path, psz, "%s%s", p->script_name != NULL ?
		    p->script_name : "", p->path_info != NULL ? p->path_info :
		    "") >= psz) {
			path[0] = '\0';
			return -1;
		}
		return 0;
	}
	if (copy_path(path, psz, c, n) == -1)
		return -1;
	/* The prefix: what REQUEST_URI has before the route. */
	if (uri != NULL && un > n && memcmp(uri + un - n, c, n) == 0 &&
	    req_base_valid(uri, un - n) && un - n < bsz)
		(void)copy_path(base, bsz, uri, un - n);
	return 0;
}

/* The path parameters of fr. */
static void
req_paths_of(FCGX_Request *fr, struct req_paths *p)
{
	p->request_uri = FCGX_GetParam("REQUEST_URI", fr->envp);
	p->redirect_uri = FCGX_GetParam("REDIRECT_URI", fr->envp);
	p->script_name = FCGX_GetParam("SCRIPT_NAME", fr->envp);
	p->path_info = FCGX_GetParam("PATH_INFO", fr->envp);
}

void
req_peek(FCGX_Request *fr, char *buf, size_t sz, enum method *m,
    const char **accept)
{
	struct req_paths	 p;
	char			 base[REQ_BASE_MAX];

	req_paths_of(fr, &p);
	(void)req_route_path(&p, cfg_base_path, buf, sz, base, sizeof(base));
	*m = req_method_of(FCGX_GetParam("REQUEST_METHOD", fr->envp));
	*accept = FCGX_GetParam("HTTP_ACCEPT", fr->envp);
}

void
req_init(struct req *r, FCGX_Request *fr, const struct cfg *c,
    struct db *db)
{
	struct req_paths	 p;

	memset(r, 0, sizeof(*r));
	r->fcgx = fr;
	r->cfg = c;
	r->db = db;
	r->now_ms = db_clock_ms(db);
	r->method_name = FCGX_GetParam("REQUEST_METHOD", fr->envp);
	r->method = req_method_of(r->method_name);
	r->origin = FCGX_GetParam("HTTP_ORIGIN", fr->envp);
	r->loadtest = FCGX_GetParam("HTTP_X_AQUEUE_LOADTEST", fr->envp);
	r->accept = FCGX_GetParam("HTTP_ACCEPT", fr->envp);

	req_paths_of(fr, &p);
	(void)req_route_path(&p, cfg_base_path, r->path, sizeof(r->path),
	    r->base, sizeof(r->base));
	if (c->debug)
		log_debug("route %s base \"%s\" (REQUEST_URI %s, "
		    "REDIRECT_URI %s, SCRIPT_NAME %s, PATH_INFO %s)", r->path,
		    r->base, p.request_uri != NULL ? p.request_uri : "-",
		    p.redirect_uri != NULL ? p.redirect_uri : "-",
		    p.script_name != NULL ? p.script_name : "-",
		    p.path_info != NULL ? p.path_info : "-");
	req_parse_query(FCGX_GetParam("QUERY_STRING", fr->envp), r->fields);
}

void
req_free(struct req *r)
{
	size_t	 i;

	for (i = 0; i < FIELD__MAX; i++)
		free(r->fields[i].val);
	free(r->body);
	buf_free(&r->hdrs);
}

enum http_err
req_content_length(const char *v, int64_t max, int64_t *len, int *absent)
{
	int64_t	 n;
	size_t	 i;

	*len = 0;
	*absent = v == NULL || v[0] == '\0';
	if (*absent)
		return ERR_OK;
	for (i = 0; v[i] != '\0'; i++)
		if (v[i] < '0' || v[i] > '9' || i >= 19)
			return ERR_BAD_LENGTH;
	if (parse_int64(v, 0, INT64_MAX, &n) == -1)
		return ERR_BAD_LENGTH;
	if (n > max)
		return ERR_TOO_LARGE;
	*len = n;
	return ERR_OK;
}

enum http_err
req_read_body(struct req *r)
{
	enum http_err	 er;
	int64_t		 len, paused;
	int		 absent, got;

	er = req_content_length(req_param(r, "CONTENT_LENGTH"),
	    r->body_max > r->cfg->max_body ? r->body_max : r->cfg->max_body,
	    &len, &absent);
	if (er != ERR_OK)
		return er;
	/* A slow client's time is not the database's (db_deadline()). */
	paused = r->db != NULL ? db_deadline_pause(r->db) : 0;
	if (absent) {
		/* Bytes on stdin without a length: refuse (411). */
		got = FCGX_GetChar(r->fcgx->in);
		if (r->db != NULL)
			db_deadline_resume(r->db, paused);
		if (got != EOF)
			return ERR_LENGTH_REQUIRED;
		/*
		 * EOF with an error: the connection went before the web
		 * server ended stdin (it gave up on the request), so nothing
		 * may be done for it.
		 */
		if (FCGX_GetError(r->fcgx->in) != 0)
			return ERR_INCOMPLETE;
		return ERR_OK;
	}
	if ((r->body = try_malloc((size_t)len + 1)) == NULL)
		return ERR_INTERNAL;
	got = len > 0 ? FCGX_GetStr(r->body, (int)len, r->fcgx->in) : 0;
	if (r->db != NULL)
		db_deadline_resume(r->db, paused);
	if (got < 0 || got != len)
		return ERR_INCOMPLETE;
	r->body[len] = '\0';
	r->bodylen = (size_t)len;
	return ERR_OK;
}

enum http_err
req_body_json(struct req *r, struct json_object **out, int required)
{
	enum jsonbody_err	 why;
	enum http_err		 er;

	*out = NULL;
	if ((er = req_read_body(r)) != ERR_OK)
		return er;
	if (r->bodylen == 0 && !required)
		return ERR_OK;
	if (r->bodylen > 0 && !req_is_json(req_param(r, "CONTENT_TYPE")))
		return ERR_MEDIA_TYPE;
	if ((*out = jsonbody_parse(r->body, r->bodylen, &why)) == NULL ||
	    !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		return why == JSONBODY_UNICODE ? ERR_INVALID_UNICODE :
		    ERR_INVALID_JSON;
	}
	return ERR_OK;
}

/*
 * Call fn(name, name length, value, value length, arg) for every
 * name=value pair of the form body (read before; a pair without "=" has
 * an empty value and no name match), undecoded, until it returns
 * nonzero.  Returns what fn returned last, 0 for an empty body.
 */
static int
form_each(const struct req *r, int (*fn)(const char *, size_t,
    const char *, size_t, void *), void *arg)
{
	const char	*p, *end, *eq, *amp;
	int		 rc = 0;

	if (r->body == NULL)
		return 0;
	end = r->body + r->bodylen;
	for (p = r->body; p < end && rc == 0; p = amp + 1) {
		if ((amp = memchr(p, '&', (size_t)(end - p))) == NULL)
			amp = end;
		eq = memchr(p, '=', (size_t)(amp - p));
		rc = eq == NULL ? fn(p, (size_t)(amp - p), NULL, 0, arg) :
		    fn(p, (size_t)(eq - p), eq + 1, (size_t)(amp - eq - 1),
		    arg);
	}
	return rc;
}

/* What form_find() looks for, and what it found. */
struct form_hit {
	const char	*name;
	const char	*val;		/* undecoded; NULL: not yet */
	size_t		 len;
	int		 twice;
};

/* form_each(): note the value of the name sought; stop at a second. */
static int
form_find(const char *n, size_t nl, const char *v, size_t vl, void *arg)
{
	struct form_hit	*h = arg;

	if (v == NULL || nl != strlen(h->name) || memcmp(n, h->name, nl) != 0)
		return 0;
	if (h->val != NULL) {
		h->twice = 1;
		return 1;
	}
	h->val = v;
	h->len = vl;
	return 0;
}

char *
req_form(const struct req *r, const char *name)
{
	struct form_hit	 h = { name, NULL, 0, 0 };
	size_t		 len;

	(void)form_each(r, form_find, &h);
	if (h.val == NULL || h.twice)
		return NULL;
	return req_pct_decode(h.val, h.len, 1, &len);
}

int
req_form_given(const struct req *r, const char *name)
{
	struct form_hit	 h = { name, NULL, 0, 0 };

	(void)form_each(r, form_find, &h);
	return h.val != NULL;
}

/*
 * form_each(): 1 when the pair (name and value together; "=" is ASCII
 * either way) decodes strictly to bytes that are not UTF-8.
 */
static int
form_bad_utf8(const char *n, size_t nl, const char *v, size_t vl, void *arg)
{
	char	*d;
	size_t	 len;
	int	 bad;

	(void)arg;
	if ((d = req_pct_decode(n, v != NULL ? (size_t)(v + vl - n) : nl, 1,
	    &len)) == NULL)
		return 0;
	bad = utf8_chars(d, len) < 0;
	free(d);
	return bad;
}

int
req_form_utf8(const struct req *r)
{
	return form_each(r, form_bad_utf8, NULL) == 0;
}

const char *
req_param(const struct req *r, const char *name)
{
	return FCGX_GetParam(name, r->fcgx->envp);
}

const char *
req_authorization(const struct req *r)
{
	const char	*v;

	v = req_param(r, "HTTP_AUTHORIZATION");
	if (v != NULL && v[0] != '\0')
		return v;
	v = req_param(r, "REDIRECT_HTTP_AUTHORIZATION");
	if (v != NULL && v[0] != '\0')
		return v;
	return NULL;
}

const char *
req_remote_addr(const struct req *r)
{
	return req_param(r, "REMOTE_ADDR");
}

int
req_content_is(const char *ct, const char *type)
{
	size_t	 n = strlen(type);

	if (ct == NULL || strncasecmp(ct, type, n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return *ct == '\0' || *ct == ';';
}

int
req_is_json(const char *ct)
{
	return req_content_is(ct, "application/json");
}

void
req_fetch_meta(const struct req *r, struct fetch_meta *m)
{
	FCGX_ParamArray	 env = r->fcgx->envp;
	const char	*https, *scheme;

	memset(m, 0, sizeof(*m));
	m->origin = r->origin;
	m->site = FCGX_GetParam("HTTP_SEC_FETCH_SITE", env);
	m->mode = FCGX_GetParam("HTTP_SEC_FETCH_MODE", env);
	m->dest = FCGX_GetParam("HTTP_SEC_FETCH_DEST", env);
	m->sec_purpose = FCGX_GetParam("HTTP_SEC_PURPOSE", env);
	m->purpose = FCGX_GetParam("HTTP_PURPOSE", env);
	m->x_purpose = FCGX_GetParam("HTTP_X_PURPOSE", env);
	m->x_moz = FCGX_GetParam("HTTP_X_MOZ", env);
	m->host = FCGX_GetParam("HTTP_HOST", env);
	https = FCGX_GetParam("HTTPS", env);
	scheme = FCGX_GetParam("REQUEST_SCHEME", env);
	if (https != NULL && *https != '\0' && strcasecmp(https, "off") != 0)
		m->scheme = "https";
	else if (scheme != NULL && strcmp(scheme, "https") == 0)
		m->scheme = "https";
	else
		m->scheme = "http";
	m->head = r->method == METHOD_HEAD;
}

enum url_take
req_take_number(const struct req *r, enum url_take_kind kind)
{
	struct fetch_meta	 m;

	req_fetch_meta(r, &m);
	return url_take_number(&m, r->qe != NULL ? &r->qe->domains : NULL,
	    kind);
}

void
req_static_url(struct buf *out, const struct req *r)
{
	const char	*u = r->cfg->static_url;

	if (u[0] != '/' && strstr(u, "://") == NULL) {
		html_attr(out, r->base);
		html_attr(out, "/");
	}
	html_attr(out, u);
}
