/*
 * log.c - one-line event log to stderr or syslog, with client text made
 * safe (control characters and non-ASCII escaped as \xNN).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

int
log_to_file(const char *path)
{
	int	 fd;

	if (path == NULL || path[0] == '\0')
		return 0;
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0600)) == -1) {
		log_warn("log-file %s", path);
		return -1;
	}
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) == -1) {
			log_warn("log-file %s: dup2", path);
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
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

	char		 date[32], line[4352];
	time_t		 t = time(NULL);
	struct tm	 tm;
	int		 n;
	ssize_t		 w;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* One write per line: processes sharing a log-file never mix. */
	if (errnum >= 0)
		n = snprintf(line, sizeof(line), "[%s] %s %s[%ld]: %s: %s\n",
		    date, level, prog, (long)getpid(), safe,
		    strerror(errnum));
	else
		n = snprintf(line, sizeof(line), "[%s] %s %s[%ld]: %s\n",
		    date, level, prog, (long)getpid(), safe);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	w = write(STDERR_FILENO, line, (size_t)n);
	(void)w;
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
