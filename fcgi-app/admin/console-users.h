/*
 * console-users.h - the console's page of console users (admin-user.h):
 * the list (name, state, created, last log-in from the audit log), a
 * new user, disabling and enabling, a new password.  Each answers after
 * console_auth() (a session, the CSRF token of a change).
 */
#ifndef CONSOLE_USERS_H
#define CONSOLE_USERS_H

struct req;

/*
 * GET /admin/users: the list and the form of a new user.  POST: add
 * the user of the form's name, password and again (the same password
 * typed twice): 201 with the list; 422 a bad name or password or two
 * different passwords, 409 the name exists, each with the reason and
 * nothing changed.
 */
void	 console_users(struct req *);

/*
 * POST /admin/users/disable, .../enable (the form's name) and
 * .../password (name, password, again): the change, then the list
 * with what was done (200).  A user cannot disable themself (403); no
 * such user 404; a bad password 422; nothing changed on a refusal.
 */
void	 console_user_action(struct req *);

#endif /* CONSOLE_USERS_H */
