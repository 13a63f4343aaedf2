/*
 * aqueuectl.h - the operator CLI's command groups that live in files of
 * their own (aqueuectl-*.c), called from aqueuectl.c's main().
 */
#ifndef AQUEUECTL_H
#define AQUEUECTL_H

struct cfg;
struct db;

/*
 * Print the usage on stderr and return the exit status of a bad command
 * line (2).
 */
int	 ctl_usage_error(void);

/*
 * "autorate show|set|test|enable|disable|log SLUG ...": argv[0] is
 * "autorate".  Returns the exit status (0 done; 1 failed, or the test
 * did not pass; 2 bad usage or value; 4 no such queue).
 */
int	 ctl_autorate(struct db *, const struct cfg *, int argc,
	    char *argv[]);

#endif /* AQUEUECTL_H */
