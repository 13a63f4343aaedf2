/*
 * log.h - one line per event: "[UTC date] LEVEL prog[pid]: msg" on stderr
 * (or syslog once log_open() chose it).  Text that came from a client
 * must go through the %s of these functions: control characters and
 * non-ASCII bytes are written as \xNN, so one event stays one line.
 */
#ifndef LOG_H
#define LOG_H

/* Set the program name and whether to use syslog(3) instead of stderr. */
void	 log_open(const char *prog, int use_syslog);

/* Debug messages are dropped unless enabled.  Can't fail. */
void	 log_set_debug(int on);

/* err(3)-style: log_warn appends ": strerror(errno)", log_warnx not. */
void	 log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A failure the program cannot go on from (ERROR level; LOG_ERR in
 * syslog): log_error appends ": strerror(errno)", log_errorx not.
 */
void	 log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_errorx(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
void	 log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	 log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LOG_H */
