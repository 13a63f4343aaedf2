/*
 * console-users.c - the console's page of console users (see
 * console-users.h).  Every change goes through admin-user.h, the same
 * functions as aqueuectl user, which check the name and the password,
 * hash it and write the audit row as the logged-in user, from the
 * request's address, in the change's transaction.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin-user.h"
#include "aqueue.h"
#include "console-users.h"
#include "console.h"
#include "crypto.h"
#include "extern.h"
#include "log.h"
#include "page-console.h"

/* A message above the list: an error (role alert) or a result. */
struct note {
	const char	*error;
	const char	*done;
};

/* The form fields of a new password (typed twice), label ids by id. */
static void
password_fields(struct buf *b, const char *id, const char *label)
{
	html_raw(b, "<p class=\"field\"><label for=\"");
	html_attr(b, id);
	html_raw(b, "-pw\">");
	html_text(b, label);
	html_raw(b, "</label><input id=\"");
	html_attr(b, id);
	html_raw(b, "-pw\" name=\"password\" type=\"password\" "
	    "autocomplete=\"new-password\" required minlength=\"12\" "
	    "aria-describedby=\"");
	html_attr(b, id);
	html_raw(b, "-h\"><small id=\"");
	html_attr(b, id);
	html_raw(b, "-h\">12 to 1024 bytes</small></p><p class=\"field\">"
	    "<label for=\"");
	html_attr(b, id);
	html_raw(b, "-again\">The same password again</label><input id=\"");
	html_attr(b, id);
	html_raw(b, "-again\" name=\"again\" type=\"password\" "
	    "autocomplete=\"new-password\" required minlength=\"12\"></p>");
}

/* One user's row: name, state, times, the actions. */
static void
user_row(struct req *r, struct buf *b, const struct admin_user *u,
    size_t i)
{
	char	 t[40], id[32];
	int	 self = r->session != NULL && r->session->user_id == u->id;

	html_raw(b, "<tr><th scope=\"row\">");
	html_text(b, u->name);
	if (self)
		html_raw(b, " <small>(you)</small>");
	html_raw(b, "</th><td>");
	html_text(b, u->disabled ? "disabled" : "enabled");
	html_raw(b, "</td><td>");
	console_utc_text(u->created_ms, t, sizeof(t));
	html_text(b, t);
	html_raw(b, "</td><td>");
	console_utc_text(u->last_login_ms, t, sizeof(t));
	html_text(b, t);
	html_raw(b, "</td><td class=\"row-actions\">");
	/* A user never disables themself (admin_user_disable()). */
	if (!self || u->disabled) {
		html_raw(b, "<form method=\"post\" action=\"/admin/users/");
		html_raw(b, u->disabled ? "enable\">" : "disable\">");
		console_csrf_field(r, b);
		html_raw(b, "<input type=\"hidden\" name=\"name\" value=\"");
		html_attr(b, u->name);
		html_raw(b, u->disabled ? "\"><button type=\"submit\">Enable" :
		    "\"><button type=\"submit\">Disable");
		html_raw(b, "<span class=\"vh\"> ");
		html_text(b, u->name);
		html_raw(b, "</span></button></form>");
	}
	snprintf(id, sizeof(id), "u%zu", i);
	html_raw(b, "<details><summary>Reset password<span class=\"vh\"> "
	    "of ");
	html_text(b, u->name);
	html_raw(b, "</span></summary><form method=\"post\" "
	    "action=\"/admin/users/password\">");
	console_csrf_field(r, b);
	html_raw(b, "<input type=\"hidden\" name=\"name\" value=\"");
	html_attr(b, u->name);
	html_raw(b, "\">");
	password_fields(b, id, "New password");
	html_raw(b, "<p><button type=\"submit\">Set password<span "
	    "class=\"vh\"> of ");
	html_text(b, u->name);
	html_raw(b, "</span></button></p></form></details></td></tr>");
}

/* The page: the note, the list, the form of a new user; status. */
static void
users_page(struct req *r, int status, const struct note *n,
    const char *name)
{
	struct buf		 b = { NULL, 0, 0 };
	struct admin_user	*u = NULL;
	size_t			 nu = 0, i;
	enum app_err		 er;

	if ((er = db_admin_user_list(r->db, &u, &nu)) != APP_OK) {
		http_app_err(r, http_err_of(er));
		return;
	}
	if (n != NULL && n->error != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\" "
		    "id=\"users-error\">");
		html_text(&b, n->error);
		html_raw(&b, " Nothing was changed.</p>");
	}
	if (n != NULL && n->done != NULL) {
		html_raw(&b, "<p class=\"done\" role=\"status\" "
		    "id=\"users-done\">");
		html_text(&b, n->done);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<p>Who may log in to this console. Every change is "
	    "written to the <a href=\"/admin/audit\">audit log</a>, as on "
	    "the server with <code>aqueuectl user</code>. A disabled user "
	    "cannot log in, and a new password ends the user's sessions."
	    "</p><div class=\"scroll\" " SCROLL("Console users")
	    "><table id=\"users\"><caption>Users</caption><thead><tr>"
	    "<th scope=\"col\">Name</th><th scope=\"col\">State</th>"
	    "<th scope=\"col\">Created</th><th scope=\"col\">Last log-in"
	    "</th><th scope=\"col\"><span class=\"vh\">Actions</span></th>"
	    "</tr></thead><tbody>");
	for (i = 0; i < nu; i++)
		user_row(r, &b, &u[i], i);
	html_raw(&b, "</tbody></table></div><h2 id=\"add-h\">Add a user</h2>"
	    "<form method=\"post\" action=\"/admin/users\" class=\"settings\" "
	    "aria-labelledby=\"add-h\">");
	console_csrf_field(r, &b);
	html_raw(&b, "<p class=\"field\"><label for=\"new-name\">User name"
	    "</label><input id=\"new-name\" name=\"name\" required "
	    "maxlength=\"64\" autocomplete=\"off\" spellcheck=\"false\" "
	    "aria-describedby=\"new-name-h\" value=\"");
	html_attr(&b, name != NULL ? name : "");
	html_raw(&b, "\"><small id=\"new-name-h\">1 to 64 characters: "
	    "A-Z a-z 0-9 . _ @ -</small></p>");
	password_fields(&b, "new", "Password");
	html_raw(&b, "<p><button type=\"submit\">Add user</button></p>"
	    "</form>");
	console_page(r, status, "Users", NULL, &b);
	buf_free(&b);
	free(u);
}

/*
 * The form's password and its repetition: 1 when both are there and
 * equal, else 0 with the page answered (422).  The caller wipes and
 * frees *pw and *again either way.
 */
static int
same_passwords(struct req *r, char **pw, char **again, const char *name)
{
	struct note	 n = { "The two passwords differ.", NULL };

	*pw = req_form(r, "password");
	*again = req_form(r, "again");
	if (*pw != NULL && *again != NULL && strcmp(*pw, *again) == 0)
		return 1;
	users_page(r, 422, &n, name);
	return 0;
}

/* Wipe and free a password taken from the form. */
static void
drop_secret(char *s)
{
	if (s != NULL)
		crypto_wipe(s, strlen(s));
	free(s);
}

/* The page for a failure er of a change (the database's as 503). */
static void
change_failed(struct req *r, enum app_err er, const char *invalid,
    const char *name)
{
	struct note	 n = { NULL, NULL };
	int		 status = 422;

	if (er == APP_DB || er == APP_DB_DOWN) {
		http_app_err(r, ERR_DB_DOWN);
		return;
	}
	if (er == APP_NOTFOUND) {
		n.error = "There is no such user.";
		status = 404;
	} else if (er == APP_INVALID)
		n.error = invalid;
	else {
		http_app_err(r, ERR_INTERNAL);
		return;
	}
	users_page(r, status, &n, name);
}

/* POST /admin/users: a new user from name, password and again. */
static void
user_add(struct req *r)
{
	struct note	 n = { NULL, NULL };
	char		*name = req_form(r, "name"), *pw = NULL, *again = NULL;
	const char	*why = NULL;
	char		 msg[ADMIN_NAME_MAX + 64];
	int64_t		 id;
	enum app_err	 er;

	if (!same_passwords(r, &pw, &again, name))
		goto out;
	er = admin_user_add(r->db, r->cfg, name != NULL ? name : "", pw, &id,
	    &why, &r->who);
	if (er == APP_OK) {
		log_info("console: %s added user %s", r->session->user, name);
		snprintf(msg, sizeof(msg), "User %s was added.", name);
		n.done = msg;
		users_page(r, 201, &n, NULL);
	} else if (er == APP_INVALID && why != NULL &&
	    strcmp(why, "exists") == 0) {
		n.error = "A user of that name exists (names are compared "
		    "without regard to case).";
		users_page(r, 409, &n, name);
	} else
		change_failed(r, er, why != NULL && strcmp(why, "name") == 0 ?
		    "A user name has 1 to 64 characters: A-Z a-z 0-9 . _ @ -." :
		    "A password has 12 to 1024 bytes.", name);
out:
	drop_secret(pw);
	drop_secret(again);
	free(name);
}

void
console_users(struct req *r)
{
	if (r->method == METHOD_POST)
		user_add(r);
	else
		users_page(r, 200, NULL, NULL);
}

void
console_user_action(struct req *r)
{
	struct note	 n = { NULL, NULL };
	const char	*op = strrchr(r->path, '/');
	char		*name = req_form(r, "name"), *pw = NULL, *again = NULL;
	char		 msg[ADMIN_NAME_MAX + 64];
	enum app_err	 er;
	int		 off;

	if (op != NULL && strcmp(op, "/password") == 0) {
		if (!same_passwords(r, &pw, &again, NULL))
			goto out;
		er = admin_user_passwd(r->db, r->cfg, name != NULL ? name :
		    "", pw, &r->who);
		if (er != APP_OK) {
			change_failed(r, er, "A password has 12 to 1024 bytes.",
			    NULL);
			goto out;
		}
		log_info("console: %s set the password of %s",
		    r->session->user, name);
		snprintf(msg, sizeof(msg), "The password of %s was changed, "
		    "and its sessions were ended.", name);
		n.done = msg;
		users_page(r, 200, &n, NULL);
		goto out;
	}
	off = op != NULL && strcmp(op, "/disable") == 0;
	er = admin_user_disable(r->db, name != NULL ? name : "", off,
	    &r->who);
	if (er == APP_INVALID) {
		n.error = "You cannot disable yourself; another user can, or "
		    "aqueuectl user disable on the server.";
		users_page(r, 403, &n, NULL);
		goto out;
	}
	if (er != APP_OK) {
		change_failed(r, er, NULL, NULL);
		goto out;
	}
	log_info("console: %s %s user %s", r->session->user,
	    off ? "disabled" : "enabled", name);
	snprintf(msg, sizeof(msg), off ? "User %s was disabled, and its "
	    "sessions were ended." : "User %s was enabled.", name);
	n.done = msg;
	users_page(r, 200, &n, NULL);
out:
	drop_secret(pw);
	drop_secret(again);
	free(name);
}
