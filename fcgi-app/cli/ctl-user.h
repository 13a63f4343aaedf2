/*
 * ctl-user.h - the "user" commands of the operator CLI.
 */
#ifndef CTL_USER_H
#define CTL_USER_H

#include <stddef.h>

struct cfg;
struct db;
struct principal;

/*
 * aqueuectl user add NAME | list [--json] | disable NAME | enable NAME |
 * passwd NAME.  Passwords are read from the terminal with echo off (asked
 * twice), or as one line from standard input when it is not a terminal;
 * never from the command line.  argv[0] is "user".  Returns the exit
 * status: 0 done, 1 failed, 2 bad usage or value, 3 the user exists,
 * 5 no such user.  Changes are audited as made by who.
 */
int	 ctl_user(struct db *, const struct cfg *, int argc, char *argv[],
	    const struct principal *who);

/*
 * Read one line into buf of size n without its newline: from the
 * terminal with echo off when stdin is one (prompt on stderr), else from
 * stdin.  For passwords, never taken from the command line.  Returns 0,
 * or -1 (end of input, too long).
 */
int	 ctl_read_secret(const char *prompt, char *buf, size_t n);

#endif /* CTL_USER_H */
