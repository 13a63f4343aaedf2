/*
 * ctl.h - the operator CLI's command groups that live in files of
 * their own (aqueuectl-*.c), called from aqueuectl.c's main().
 */
#ifndef CTL_H
#define CTL_H

struct cfg;
struct db;
struct principal;

/*
 * What a command group returns for a bad command line: main() then
 * prints the usage on stderr and exits 2.
 */
#define CTL_USAGE	(-1)

/*
 * The exit status for an operation refused with HTTP-style status
 * (the status of the API's answer to the same request): 4 for 404 (no
 * such queue or item), 2 for 413 and 422 (a refused value, nothing
 * changed), else 1.  See EXIT STATUS in aqueuectl(8).
 */
int	 ctl_exit_of(int status);

/*
 * "autorate show|set|test|enable|disable|log SLUG ...": argv[0] is
 * "autorate"; changes are made as who (the CLI's principal).  Returns
 * the exit status (0 done; 1 failed, or the test did not pass; 2 bad
 * value; 4 no such queue) or CTL_USAGE.
 */
int	 ctl_autorate(struct db *, const struct cfg *, int argc,
	    char *argv[], const struct principal *who);

/*
 * "report SLUG [--json|--csv] [--since MS] [--until MS]": the fairness
 * report.
 * Returns the exit status (0 done, 1 failed, 4 no such queue) or
 * CTL_USAGE.
 */
int	 ctl_report(struct db *, int argc, char *argv[]);

/*
 * "init [--web-dir DIR] [--htaccess standard|userdir] [--db-...]": set
 * an installation up from nothing (ctl-init.c).  conf is the -f file
 * (given: it was named; else this installation's PREFIX/etc/aqueue.conf
 * is written).  Needs no configuration to exist.  Returns the exit
 * status (0 done, 1 failed, 2 bad usage).
 */
int	 ctl_init(const char *conf, int given, int argc, char *argv[]);

/*
 * "doctor [--url URL]": check the installation as its user sees it and
 * print one line per check, "ok" or "FIX" with what to do (doctor.c).
 * Returns 0 when nothing needs fixing, 1 when something does, or
 * CTL_USAGE.
 */
int	 ctl_doctor(struct db *, const struct cfg *, const char *conf,
	    int argc, char *argv[]);

/*
 * "bypass create SLUG --label L [--uses N] [--expires TIME] | list SLUG
 * | disable ID | enable ID | delete ID": VIP bypass codes, changes made
 * as who.  Returns the exit status (0 done, 1 failed, 2 bad usage or
 * value, 4 no such queue or code).
 */
int	 ctl_bypass(struct db *, int argc, char *argv[],
	    const struct principal *who);

/*
 * "loadtest run SLUG --profile mix|status|join --rate N --duration S
 * [--wait] | list [SLUG] [--limit N] | show ID | wait ID | schedule add
 * SLUG ... (--every MIN | --weekly DAY HH:MM ZONE) | schedule list |
 * schedule delete ID": built-in load tests (loadtest.h), as who.
 * Returns the exit status (0 done, 1 failed, 2 bad usage or value (or
 * not a test queue), 4 no such queue or run, 6 the run ended flagged as
 * a regression).
 */
int	 ctl_loadtest(struct db *, const struct cfg *, int argc,
	    char *argv[], const struct principal *who);

/*
 * "template set SLUG FILE|- | reset SLUG | show SLUG": a queue's custom
 * waiting-room template, changes made as who.  Returns the exit status
 * (0 done, 1 failed, 2 bad usage or template refused (the reason and
 * line on stderr), 4 no such queue, or show without a template).
 */
int	 ctl_template(struct db *, int argc, char *argv[],
	    const struct principal *who);

#endif /* CTL_H */
