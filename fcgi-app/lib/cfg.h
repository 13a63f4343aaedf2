/*
 * cfg.h - the configuration file: "key = value" lines, '#' comments,
 * blank lines ignored.  Every key, its default and its meaning are listed
 * once, in the table in cfg.c, and documented in deploy/aqueue.conf.sample.
 */
#ifndef CFG_H
#define CFG_H

#include <sys/types.h>

#include <stdint.h>
#include <time.h>

#include "crypto.h"

struct cfg {
	char	*listen;	/* "unix:/path", "host:port", or "" (fd 0) */
	int64_t	 listen_mode;	/* unix socket permission bits (octal) */
	int64_t	 workers;	/* pool processes 1..256; 0: no master */
	int64_t	 workers_min;	/* elastic pool: fewest processes, 0: off */
	int64_t	 workers_max;	/* elastic pool: most processes, 0: off */
	char	*pid_file;	/* master's pid, or "" for none */
	char	*db_host;	/* "" with db_socket set */
	int64_t	 db_port;
	char	*db_socket;
	char	*db_user;
	char	*db_password;
	char	*db_name;
	int64_t	 db_timeout_s;	/* connect/read/write timeout, seconds */
	char	*master_key_file;	/* 64 hex digits, mode 0600 */
	char	*templates_dir;
	char	*migrations_dir;
	char	*static_url;	/* URL prefix of static/, e.g. /queue-static */
	int64_t	 status_cache_ms;	/* queue row cache lifetime, ms */
	int64_t	 max_body;	/* request body limit, bytes */
	int64_t	 request_timeout_s;	/* one request's time limit */
	int64_t	 token_leeway_s;	/* clock leeway for exp/nbf/iat */
	int64_t	 debug;		/* 1 = log debug messages */
	char	*web_server_addrs;	/* IPv4 allowlist "a,b", or "" */
	int64_t	 db_lock_timeout_s;	/* server-side lock waits, seconds */
	int64_t	 db_statement_timeout_ms; /* server-side statement time */
	int64_t	 db_status_timeout_ms;	/* pool: a cache read may wait */
	int64_t	 db_visitor_timeout_ms;	/* pool: a visitor's DB work */
	int64_t	 token_state_ms;	/* /token trusts state this long */
	int64_t	 health_connect_timeout_ms;	/* auto-rate: connect */
	int64_t	 health_timeout_ms;	/* auto-rate: whole request */
	int64_t	 health_max_bytes;	/* auto-rate: response size cap */
	int64_t	 instance_report_ms;	/* pool reports itself, ms */
	int64_t	 stats_interval_ms;	/* queue samples, ms; 0 = none */
	int64_t	 stats_retention_s;	/* samples kept, seconds */
	int64_t	 instance_stale_ms;	/* unseen instances dropped, ms */
	char	*metrics_allow;	/* /metrics client addresses "a,b/n" */
	char	*metrics_token;	/* /metrics bearer token, or "" */
	int64_t	 argon2_t_cost;	/* Argon2id passes */
	int64_t	 argon2_m_cost;	/* Argon2id memory, KiB */
	int64_t	 argon2_parallelism;	/* Argon2id lanes */
	int64_t	 session_idle_s;	/* console session idle expiry */
	int64_t	 session_max_s;	/* console session absolute expiry */
	int64_t	 login_user_failures;	/* failed logins per user name
					   from one address ... */
	int64_t	 login_addr_failures;	/* ... per client address ... */
	int64_t	 login_window_s;	/* ... within this many seconds */
	int64_t	 login_user_backoff_s;	/* per name, from anywhere: at most
					   this pace after its failures */
	int64_t	 login_hashes;	/* password hashes at once per pool */
	int64_t	 pow_used_slots;	/* spent challenges remembered */
	int64_t	 bypass_failures;	/* codes that admit nobody, per
					   address ... */
	int64_t	 bypass_window_s;	/* ... within this many seconds */
	char	*state_dir;	/* poll documents written here, or "" */
	char	*base_path;	/* install's URL prefix, e.g. /warteraum */
	char	*db_hosts;	/* cluster nodes "h:p,h:p", writer first */
	int64_t	 embedded_worker;	/* 1: the pool runs the jobs */
	int64_t	 db_max_connections;	/* the installation's budget */
	char	*run_dir;	/* lock files of the budget, or "" */
	char	*log_file;	/* the programs' log, or "" (stderr) */
	char	*loadtest_url;	/* the room's URL for load tests, or "" */
	int64_t	 loadtest_max_rate;	/* requests per second, at most */
	int64_t	 loadtest_max_duration_s;	/* seconds, at most */

	uint8_t	 master_key[MASTER_KEY_LEN];	/* loaded by cfg_load */
};

/*
 * Read the file at path into *c, after setting every key to its default.
 * A relative path value (master-key-file, templates-dir, migrations-dir,
 * state-dir, run-dir, log-file, pid-file) is taken from the folder of
 * the file at path.  A file readable by every account that sets
 * db-password is used, with a warning.
 * Unknown keys, malformed values, values out of range, and an unreadable
 * master key file are errors: each is logged at ERROR level (as
 * "file:line: ..." where there is a line) and the
 * function returns -1 (then *c must still be released with cfg_free).
 * Returns 0 on success.
 */
int	 cfg_load(const char *path, struct cfg *c);

/*
 * The configuration file a program uses when given none: $AQUEUE_CONF
 * when set, else <prefix>/etc/aqueue.conf of the installation the
 * program runs from (cfg_prefix()) when that file exists (an account's
 * own installation), else /etc/aqueue/aqueue.conf.  Static or the
 * environment's; can't fail.
 */
const char *cfg_default_path(void);

/*
 * The installation's prefix, found from the running program's own
 * path (/proc/self/exe): the folder above its bin/.  Into buf of size
 * n.  Returns 0, or -1 when it cannot be found or does not fit.
 */
int	 cfg_prefix(char *buf, size_t n);

/*
 * Whether a TCP listen address "host:port" (host may be empty: every
 * interface) binds to loopback only: host "localhost" or an IPv4 literal
 * in 127.0.0.0/8.  Returns 1 if so, else 0.
 */
int	 cfg_listen_loopback(const char *listen);

/*
 * Take the next entry of a db-hosts list ("host:port,host:port"; commas
 * or spaces between entries; a missing port is defport) from *list and
 * advance it.  host gets the host (size sz), *port the port.  Returns 1
 * for an entry, 0 at the end of the list, -1 for a malformed entry (an
 * empty or too long host, a port not in 1..65535).  Can't fail
 * otherwise.  The key's check (cfg_load) and db.c's connect both walk
 * the list with it.
 */
int	 cfg_hosts_entry(const char **list, int64_t defport, char *host,
	    size_t sz, unsigned int *port);

/*
 * The web-server allowlist in effect: c->web_server_addrs when set, else
 * the environment's FCGI_WEB_SERVER_ADDRS (libfcgi's own), else NULL.
 * FastCGI has no authentication, so a pool listening on anything but
 * loopback TCP or a Unix socket must have one (cfg_load refuses such a
 * "listen" otherwise).  The string is c's or the environment's.
 */
const char *cfg_web_server_addrs(const struct cfg *c);

/* What identifies a version of a configuration file. */
struct cfg_stamp {
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtim;
	int		 ok;		/* stat(2) succeeded */
};

/* The stamp of path now into *s (ok 0 when it cannot be read). */
void	 cfg_stamp(const char *path, struct cfg_stamp *s);

/*
 * Whether the file at path differs from the stamp *seen, which is then
 * updated (a change is reported once).  A file that cannot be read is
 * no change (it may be being replaced).  Returns 1 or 0.
 */
int	 cfg_changed(const char *path, struct cfg_stamp *seen);

/* Release the strings of *c and wipe the key.  Accepts a zeroed struct. */
void	 cfg_free(struct cfg *c);

#endif /* CFG_H */
