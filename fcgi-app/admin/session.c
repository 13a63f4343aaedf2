/*
 * session.c - the console session of a request (see session.h): the
 * cookie, the live row and the principal it makes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "admin-user.h"
#include "aqueue.h"
#include "extern.h"
#include "principal.h"
#include "session.h"

/* The session of the request being answered (one at a time). */
static struct admin_session	 cur_session;

int
session_cookie(const struct req *r, const char *name, char *out, size_t n)
{
	const char	*h = req_param(r, "HTTP_COOKIE");
	const char	*p, *v;
	size_t		 nl = strlen(name), vl;

	if (h == NULL)
		return 0;
	for (p = h; *p != '\0'; ) {
		p += strspn(p, " ;");
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			v = p + nl + 1;
			vl = strcspn(v, ";");
			while (vl > 0 && v[vl - 1] == ' ')
				vl--;
			if (vl >= n)
				return 0;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return 1;
		}
		p += strcspn(p, ";");
	}
	return 0;
}

const char *
session_client_addr(const struct req *r)
{
	const char	*a = req_remote_addr(r);

	return a != NULL && strlen(a) <= ADMIN_ADDR_MAX ? a : "";
}

enum app_err
session_find(struct req *r)
{
	char		 sid[ADMIN_SID_LEN + 2];
	enum app_err	 er;

	r->session = NULL;
	if (!session_cookie(r, SESSION_COOKIE, sid, sizeof(sid)))
		return APP_NOTFOUND;
	er = admin_session_check(r->db, r->cfg, sid, &cur_session);
	if (er == APP_DB_DOWN || er == APP_DB)
		return APP_DB_DOWN;
	if (er != APP_OK)
		return APP_NOTFOUND;
	r->session = &cur_session;
	memset(&r->who, 0, sizeof(r->who));
	r->who.kind = PRINCIPAL_USER;
	r->who.id = r->session->user_id;
	snprintf(r->who.name, sizeof(r->who.name), "%s", r->session->user);
	snprintf(r->who.addr, sizeof(r->who.addr), "%s",
	    session_client_addr(r));
	return APP_OK;
}

int
session_api(struct req *r)
{
	enum app_err	 er;

	if ((er = session_find(r)) == APP_DB_DOWN) {
		http_app_err(r, ERR_DB_DOWN);
		return -1;
	}
	if (er != APP_OK)
		return 0;
	if (r->method == METHOD_GET || r->method == METHOD_HEAD)
		return 1;
	if (!admin_csrf_ok(r->session, req_param(r, SESSION_CSRF_HEADER))) {
		http_app_err(r, ERR_CSRF);
		return -1;
	}
	return 1;
}
