/*
 * log.c - one-line event log to stderr or syslog, with client text made
 * safe (control characters and non-ASCII escaped as \xNN).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char	*prog = "aqueue";
static int		 use_syslog;
static int		 debug;

void
log_open(const char *name, int syslog_on)
{
	prog = name;
	use_syslog = syslog_on;
	if (use_syslog)
		openlog(prog, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_set_debug(int on)
{
	debug = on;
}

/*
 * Format, escape and write one event.  errnum >= 0 appends strerror.
 */
static void
emit(int pri, const char *level, int errnum, const char *fmt, va_list ap)
{
	char	 raw[2048], safe[4096];
	size_t	 i, j;

	vsnprintf(raw, sizeof(raw), fmt, ap);
	for (i = j = 0; raw[i] != '\0' && j + 5 < sizeof(safe); i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c < 0x20 || c >= 0x7f) {
			snprintf(safe + j, 5, "\\x%02x", c);
			j += 4;
		} else
			safe[j++] = (char)c;
	}
	safe[j] = '\0';

	if (use_syslog) {
		if (errnum >= 0)
			syslog(pri, "%s: %s", safe, strerror(errnum));
		else
			syslog(pri, "%s", safe);
		return;
	}

	char		 date[32];
	time_t		 t = time(NULL);
	struct tm	 tm;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (errnum >= 0)
		fprintf(stderr, "[%s] %s %s[%ld]: %s: %s\n", date, level, prog,
		    (long)getpid(), safe, strerror(errnum));
	else
		fprintf(stderr, "[%s] %s %s[%ld]: %s\n", date, level, prog,
		    (long)getpid(), safe);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	int	 e = errno;

	va_start(ap, fmt);
	emit(LOG_WARNING, "WARN", e, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	emit(LOG_WARNING, "WARN", -1, fmt, ap);
	va_end(ap);
}

void
log_error(const char *fmt, ...)
{
	va_list	 ap;
	int	 e = errno;

	va_start(ap, fmt);
	emit(LOG_ERR, "ERROR", e, fmt, ap);
	va_end(ap);
}

void
log_errorx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	emit(LOG_ERR, "ERROR", -1, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	emit(LOG_INFO, "INFO", -1, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	emit(LOG_DEBUG, "DEBUG", -1, fmt, ap);
	va_end(ap);
}
