/*
 * ctl-user.c - aqueuectl user add / list / disable / enable / passwd.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <json-c/json.h>

#include "admin-user.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "ctl-user.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_EXISTS	3
#define EXIT_NOUSER	5

static const char user_usage[] =
    "usage: aqueuectl user add NAME      new console user (password asked)\n"
    "       aqueuectl user passwd NAME   new password; ends its sessions\n"
    "       aqueuectl user disable NAME  no more log-ins; ends its sessions\n"
    "       aqueuectl user enable NAME\n"
    "       aqueuectl user list [--json]\n"
    "passwords: from the terminal (echo off), else one line on stdin;\n"
    "at least 12 bytes\n";

int
ctl_read_secret(const char *prompt, char *buf, size_t n)
{
	struct termios	 old, quiet;
	int		 tty = isatty(STDIN_FILENO), rc = 0;
	size_t		 len;

	if (tty) {
		fputs(prompt, stderr);
		fflush(stderr);
		if (tcgetattr(STDIN_FILENO, &old) == -1)
			return -1;
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		quiet.c_lflag |= ECHONL;
		if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == -1)
			return -1;
	}
	if (fgets(buf, (int)n, stdin) == NULL)
		rc = -1;
	if (tty)
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
	if (rc == -1)
		return -1;
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if (len == n - 1)
		return -1;
	if (len > 0 && buf[len - 1] == '\r')
		buf[--len] = '\0';
	return 0;
}

/* The new password into pw (asked twice on a terminal).  0 or -1. */
static int
new_password(char *pw, size_t n)
{
	char	 again[ADMIN_PASSWORD_MAX + 2];
	int	 same;

	if (ctl_read_secret("Password: ", pw, n) == -1) {
		fprintf(stderr, "aqueuectl: no password read\n");
		return -1;
	}
	if (!admin_password_valid(pw)) {
		fprintf(stderr, "aqueuectl: the password must have %d to %d "
		    "bytes\n", ADMIN_PASSWORD_MIN, ADMIN_PASSWORD_MAX);
		return -1;
	}
	if (!isatty(STDIN_FILENO))
		return 0;
	if (ctl_read_secret("Password again: ", again, sizeof(again)) == -1)
		return -1;
	same = strcmp(pw, again) == 0;
	crypto_wipe(again, sizeof(again));
	if (!same) {
		fprintf(stderr, "aqueuectl: the passwords differ\n");
		return -1;
	}
	return 0;
}

/* Exit status and message for a failed operation on user name. */
static int
failed(enum app_err er, const char *name)
{
	if (er == APP_NOTFOUND) {
		fprintf(stderr, "aqueuectl: no user %s\n", name);
		return EXIT_NOUSER;
	}
	if (er == APP_DB_DOWN)
		fprintf(stderr, "aqueuectl: the database does not answer\n");
	else
		fprintf(stderr, "aqueuectl: failed (see the log)\n");
	return EXIT_FAIL;
}

/* user list [--json]. */
static int
user_list(struct db *db, int json)
{
	struct admin_user	*u;
	struct json_object	*a;
	size_t			 n, i;
	enum app_err		 er;

	if ((er = db_admin_user_list(db, &u, &n)) != APP_OK)
		return failed(er, "");
	if (json) {
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a, admin_user_json(&u[i]));
		puts(json_object_to_json_string_ext(a,
		    JSON_C_TO_STRING_PLAIN));
		json_object_put(a);
	} else {
		printf("%-32s  %s\n", "NAME", "DISABLED");
		for (i = 0; i < n; i++)
			printf("%-32s  %s\n", u[i].name,
			    u[i].disabled ? "yes" : "no");
	}
	free(u);
	return 0;
}

int
ctl_user(struct db *db, const struct cfg *c, int argc, char *argv[],
    const struct principal *who)
{
	char		 pw[ADMIN_PASSWORD_MAX + 2];
	const char	*why, *name;
	int64_t		 id;
	enum app_err	 er;
	int		 rc;

	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return user_list(db, 0);
	if (argc == 3 && strcmp(argv[1], "list") == 0 &&
	    strcmp(argv[2], "--json") == 0)
		return user_list(db, 1);
	if (argc != 3) {
		fputs(user_usage, stderr);
		return EXIT_USAGE;
	}
	name = argv[2];
	if (strcmp(argv[1], "disable") == 0 ||
	    strcmp(argv[1], "enable") == 0) {
		er = admin_user_disable(db, name,
		    strcmp(argv[1], "disable") == 0, who);
		if (er != APP_OK)
			return failed(er, name);
		printf("user %s %sd\n", name, argv[1]);
		return 0;
	}
	if (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "passwd") != 0) {
		fputs(user_usage, stderr);
		return EXIT_USAGE;
	}
	if (!admin_name_valid(name)) {
		fprintf(stderr, "aqueuectl: a user name has 1 to %d "
		    "characters of A-Z a-z 0-9 . _ @ -\n", ADMIN_NAME_MAX);
		return EXIT_USAGE;
	}
	if (new_password(pw, sizeof(pw)) == -1) {
		crypto_wipe(pw, sizeof(pw));
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "add") == 0) {
		er = admin_user_add(db, c, name, pw, &id, &why, who);
		crypto_wipe(pw, sizeof(pw));
		if (er == APP_INVALID && why != NULL &&
		    strcmp(why, "exists") == 0) {
			fprintf(stderr, "aqueuectl: user %s exists\n", name);
			return EXIT_EXISTS;
		}
		if (er != APP_OK)
			return failed(er, name);
		printf("user %s added\n", name);
		return 0;
	}
	er = admin_user_passwd(db, c, name, pw, who);
	crypto_wipe(pw, sizeof(pw));
	if (er != APP_OK)
		return failed(er, name);
	rc = 0;
	printf("password of %s changed; its sessions ended\n", name);
	return rc;
}
