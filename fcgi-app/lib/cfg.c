/*
 * cfg.c - the configuration file: a table of directives with defaults,
 * parsed line by line; unknown keys and bad values are fatal.
 */
#include "config.h"

#include <sys/stat.h>

#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "log.h"

enum cfg_type {
	CFG_STR,	/* any string, may be empty */
	CFG_INT,	/* decimal integer within [min, max] */
	CFG_OCTAL,	/* octal integer within [min, max] */
	CFG_BOOL	/* on/off, yes/no, 1/0: an int64_t 1 or 0 */
};

struct cfg_key {
	const char	*name;
	enum cfg_type	 type;
	size_t		 off;	/* offset of the field in struct cfg */
	const char	*def;	/* default value, as written in the file */
	int64_t		 min, max;
};

#define S(f)	CFG_STR, offsetof(struct cfg, f)
#define I(f)	CFG_INT, offsetof(struct cfg, f)
#define O(f)	CFG_OCTAL, offsetof(struct cfg, f)
#define B(f)	CFG_BOOL, offsetof(struct cfg, f)

static const struct cfg_key keys[] = {
	{ "listen", S(listen), "unix:/run/aqueue/fcgi.sock", 0, 0 },
	{ "listen-mode", O(listen_mode), "0660", 0, 0777 },
	{ "workers", I(workers), "4", 0, 256 },
	{ "workers-min", I(workers_min), "0", 0, 256 },
	{ "workers-max", I(workers_max), "0", 0, 256 },
	{ "pid-file", S(pid_file), "", 0, 0 },
	{ "db-host", S(db_host), "", 0, 0 },
	{ "db-port", I(db_port), "3306", 1, 65535 },
	{ "db-socket", S(db_socket), "", 0, 0 },
	{ "db-user", S(db_user), "aqueue", 0, 0 },
	{ "db-password", S(db_password), "", 0, 0 },
	{ "db-name", S(db_name), "aqueue", 0, 0 },
	{ "db-timeout", I(db_timeout_s), "3", 1, 60 },
	{ "master-key-file", S(master_key_file), "/etc/aqueue/master.key",
	    0, 0 },
	{ "templates-dir", S(templates_dir), PKGDATADIR "/templates", 0, 0 },
	{ "migrations-dir", S(migrations_dir), PKGDATADIR "/migrations",
	    0, 0 },
	{ "static-url", S(static_url), "/queue-static", 0, 0 },
	{ "status-cache-ms", I(status_cache_ms), "250", 0, 60000 },
	{ "max-body", I(max_body), "65536", 256, 1048576 },
	{ "request-timeout", I(request_timeout_s), "10", 1, 300 },
	{ "token-leeway", I(token_leeway_s), "0", 0, 30 },
	{ "debug", I(debug), "0", 0, 1 },
	{ "web-server-addrs", S(web_server_addrs), "", 0, 0 },
	{ "db-lock-timeout", I(db_lock_timeout_s), "1", 1, 59 },
	{ "db-statement-timeout-ms", I(db_statement_timeout_ms), "1000", 100,
	    59000 },
	{ "db-status-timeout-ms", I(db_status_timeout_ms), "50", 5, 1000 },
	{ "db-visitor-timeout-ms", I(db_visitor_timeout_ms), "1000", 100,
	    10000 },
	{ "token-state-ms", I(token_state_ms), "100", 0, 1000 },
	{ "health-connect-timeout-ms", I(health_connect_timeout_ms), "2000",
	    100, 10000 },
	{ "health-timeout-ms", I(health_timeout_ms), "5000", 200, 30000 },
	{ "health-max-bytes", I(health_max_bytes), "262144", 1024,
	    4194304 },
	{ "instance-report-ms", I(instance_report_ms), "5000", 1000,
	    60000 },
	{ "stats-interval-ms", I(stats_interval_ms), "5000", 0, 3600000 },
	{ "stats-retention", I(stats_retention_s), "172800", 60,
	    31536000 },
	{ "instance-stale-ms", I(instance_stale_ms), "30000", 2000,
	    3600000 },
	{ "metrics-allow", S(metrics_allow), "127.0.0.1,::1", 0, 0 },
	{ "metrics-token", S(metrics_token), "", 0, 0 },
	{ "argon2-t-cost", I(argon2_t_cost), "3", 1, 64 },
	{ "argon2-m-cost", I(argon2_m_cost), "65536", 8, 4194304 },
	{ "argon2-parallelism", I(argon2_parallelism), "1", 1, 64 },
	{ "session-idle", I(session_idle_s), "1800", 1, 604800 },
	{ "session-max", I(session_max_s), "43200", 1, 2592000 },
	{ "login-user-failures", I(login_user_failures), "5", 1, 1000 },
	{ "login-addr-failures", I(login_addr_failures), "20", 1, 100000 },
	{ "login-window", I(login_window_s), "900", 1, 86400 },
	{ "login-user-backoff", I(login_user_backoff_s), "4", 0, 60 },
	{ "login-hashes", I(login_hashes), "1", 1, 64 },
	{ "pow-used-slots", I(pow_used_slots), "262144", 1024, 16777216 },
	{ "bypass-failures", I(bypass_failures), "10", 1, 100000 },
	{ "bypass-window", I(bypass_window_s), "60", 1, 86400 },
	{ "state-dir", S(state_dir), "", 0, 0 },
	{ "base-path", S(base_path), "", 0, 0 },
	{ "db-hosts", S(db_hosts), "", 0, 0 },
	{ "embedded-worker", B(embedded_worker), "off", 0, 1 },
	{ "db-max-connections", I(db_max_connections), "20", 1, 100000 },
	{ "run-dir", S(run_dir), "", 0, 0 },
	{ "log-file", S(log_file), "", 0, 0 },
	{ "loadtest-url", S(loadtest_url), "", 0, 0 },
	{ "loadtest-max-rate", I(loadtest_max_rate), "2000", 1, 100000 },
	{ "loadtest-max-duration", I(loadtest_max_duration_s), "600", 1,
	    86400 },
};

/*
 * Set one key from its text value.  Returns 0, or -1 when the value is
 * malformed or out of range.
 */
static int
set_key(struct cfg *c, const struct cfg_key *k, const char *val)
{
	char	*base = (char *)c + k->off;
	int64_t	 v;
	char	*end;

	switch (k->type) {
	case CFG_STR:
		free(*(char **)(void *)base);
		*(char **)(void *)base = xstrdup(val);
		return 0;
	case CFG_INT:
		if (parse_int64(val, k->min, k->max, &v) == -1)
			return -1;
		*(int64_t *)(void *)base = v;
		return 0;
	case CFG_BOOL:
		if (strcmp(val, "on") == 0 || strcmp(val, "yes") == 0 ||
		    strcmp(val, "1") == 0)
			v = 1;
		else if (strcmp(val, "off") == 0 || strcmp(val, "no") == 0 ||
		    strcmp(val, "0") == 0)
			v = 0;
		else
			return -1;
		*(int64_t *)(void *)base = v;
		return 0;
	case CFG_OCTAL:
		if (*val < '0' || *val > '7')
			return -1;
		errno = 0;
		v = strtoll(val, &end, 8);
		if (errno != 0 || *end != '\0' || v < k->min || v > k->max)
			return -1;
		*(int64_t *)(void *)base = v;
		return 0;
	}
	return -1;
}

/* Strip white space at both ends in place; returns the new start. */
static char *
trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
	    e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int
cfg_hosts_entry(const char **list, int64_t defport, char *host, size_t sz,
    unsigned int *port)
{
	const char	*p = *list, *e, *colon;
	size_t		 n;
	int64_t		 v;
	char		 num[8];

	while (*p == ' ' || *p == ',')
		p++;
	if (*p == '\0') {
		*list = p;
		return 0;
	}
	e = p + strcspn(p, ", ");
	*list = e;
	colon = memchr(p, ':', (size_t)(e - p));
	n = (size_t)((colon != NULL ? colon : e) - p);
	if (n == 0 || n >= sz)
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	v = defport;
	if (colon != NULL) {
		if ((size_t)(e - colon - 1) >= sizeof(num) || e == colon + 1)
			return -1;
		memcpy(num, colon + 1, (size_t)(e - colon - 1));
		num[e - colon - 1] = '\0';
		if (parse_int64(num, 1, 65535, &v) == -1)
			return -1;
	}
	*port = (unsigned int)v;
	return 1;
}

/*
 * Whether db-hosts, when set, is a list of host:port entries.  Returns
 * 0, or -1 (logged).
 */
static int
check_db_hosts(const struct cfg *c, const char *path)
{
	const char	*p = c->db_hosts;
	char		 host[256];
	unsigned int	 port;
	int		 n, entries = 0;

	while ((n = cfg_hosts_entry(&p, c->db_port, host, sizeof(host),
	    &port)) == 1)
		entries++;
	if (n == -1 || (c->db_hosts[0] != '\0' && entries == 0)) {
		log_errorx("%s: db-hosts: want host:port entries separated "
		    "by commas, the writer first", path);
		return -1;
	}
	return 0;
}

int
cfg_listen_loopback(const char *listen)
{
	struct in_addr	 a;
	const char	*colon;
	char		 host[64];
	size_t		 n;

	if (listen == NULL || (colon = strrchr(listen, ':')) == NULL)
		return 0;
	n = (size_t)(colon - listen);
	if (n == 0 || n >= sizeof(host))
		return 0;
	memcpy(host, listen, n);
	host[n] = '\0';
	if (strcmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a) != 1)
		return 0;
	return (ntohl(a.s_addr) >> 24) == 127;
}

const char *
cfg_web_server_addrs(const struct cfg *c)
{
	const char	*env;

	if (c->web_server_addrs != NULL && c->web_server_addrs[0] != '\0')
		return c->web_server_addrs;
	env = getenv("FCGI_WEB_SERVER_ADDRS");
	return env != NULL && *env != '\0' ? env : NULL;
}

/*
 * Check web-server-addrs (IPv4 addresses separated by commas, white
 * space allowed around them) and rewrite it as libfcgi reads
 * FCGI_WEB_SERVER_ADDRS: "a,b" with nothing else.  Then refuse a TCP
 * listen that is not loopback when no allowlist is in effect.  Returns
 * 0, or -1 (logged as "path: ...").
 */
static int
check_listen(struct cfg *c, const char *path)
{
	struct in_addr	 a;
	char		*list = c->web_server_addrs, *out, *tok, *save;
	char		 ip[INET_ADDRSTRLEN];
	size_t		 len = 0;

	out = xmalloc(strlen(list) + 1);
	out[0] = '\0';
	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		tok[strcspn(tok, " \t")] = '\0';
		if (inet_pton(AF_INET, tok, &a) != 1 ||
		    inet_ntop(AF_INET, &a, ip, sizeof(ip)) == NULL ||
		    strcmp(ip, tok) != 0) {
			log_warnx("%s: web-server-addrs: '%s' is not an IPv4 "
			    "address", path, tok);
			free(out);
			return -1;
		}
		len += (size_t)snprintf(out + len, strlen(tok) + 2, "%s%s",
		    len > 0 ? "," : "", tok);
	}
	free(c->web_server_addrs);
	c->web_server_addrs = out;

	if (c->listen[0] == '\0' || strncmp(c->listen, "unix:", 5) == 0 ||
	    cfg_listen_loopback(c->listen))
		return 0;
	if (cfg_web_server_addrs(c) == NULL) {
		log_warnx("%s: listen = %s is reachable from other hosts, and "
		    "FastCGI has no authentication: listen on a unix: socket "
		    "or loopback, or set web-server-addrs to the web servers' "
		    "addresses", path, c->listen);
		return -1;
	}
	return 0;
}

/*
 * The elastic pool's keys: both unset (0), or 1 <= workers-min <
 * workers-max with a master (workers not 0).  Returns 0, or -1
 * (logged).
 */
static int
check_workers(const struct cfg *c, const char *path)
{
	if (c->workers_min == 0 && c->workers_max == 0)
		return 0;
	if (c->workers_min < 1 || c->workers_max <= c->workers_min) {
		log_errorx("%s: workers-min and workers-max go together, with "
		    "1 <= workers-min < workers-max", path);
		return -1;
	}
	if (c->workers == 0) {
		log_errorx("%s: workers = 0 (no master) cannot have "
		    "workers-min and workers-max", path);
		return -1;
	}
	return 0;
}

/*
 * The keys that name files or folders: a relative value is taken from
 * the configuration file's own folder, so that an installation under a
 * prefix (a shared host's account) can ship one file that works
 * wherever the prefix is.
 */
static const size_t path_keys[] = {
	offsetof(struct cfg, pid_file),
	offsetof(struct cfg, master_key_file),
	offsetof(struct cfg, templates_dir),
	offsetof(struct cfg, migrations_dir),
	offsetof(struct cfg, state_dir),
	offsetof(struct cfg, run_dir),
	offsetof(struct cfg, log_file),
};

/*
 * Make the relative path values of c absolute, from the folder of the
 * configuration file at path.  Returns 0, or -1 (logged) when that
 * folder cannot be found.
 */
static int
absolute_paths(struct cfg *c, const char *path)
{
	char	 real[PATH_MAX], *slash, **v, *abs;
	size_t	 i;

	for (i = 0; i < sizeof(path_keys) / sizeof(path_keys[0]); i++) {
		v = (char **)(void *)((char *)c + path_keys[i]);
		if ((*v)[0] == '\0' || (*v)[0] == '/')
			continue;
		if (realpath(path, real) == NULL) {
			log_error("%s", path);
			return -1;
		}
		if ((slash = strrchr(real, '/')) != NULL)
			*slash = '\0';
		abs = xasprintf("%s/%s", real, *v);
		free(*v);
		*v = abs;
	}
	return 0;
}

int
cfg_prefix(char *buf, size_t n)
{
	char	 exe[PATH_MAX], *slash;
	int	 i;

	if (realpath("/proc/self/exe", exe) == NULL)
		return -1;
	for (i = 0; i < 2; i++) {
		if ((slash = strrchr(exe, '/')) == NULL)
			return -1;
		*slash = '\0';
	}
	if ((size_t)snprintf(buf, n, "%s", exe[0] != '\0' ? exe : "/") >= n)
		return -1;
	return 0;
}

const char *
cfg_default_path(void)
{
	static char	 buf[PATH_MAX];
	const char	*env = getenv("AQUEUE_CONF");
	char		 prefix[PATH_MAX];

	if (env != NULL && env[0] != '\0')
		return env;
	if (cfg_prefix(prefix, sizeof(prefix)) == 0 &&
	    (size_t)snprintf(buf, sizeof(buf), "%s/etc/aqueue.conf", prefix) <
	    sizeof(buf) && access(buf, F_OK) == 0)
		return buf;
	return "/etc/aqueue/aqueue.conf";
}

int
cfg_load(const char *path, struct cfg *c)
{
	FILE		*f;
	struct stat	 st;
	char		 line[4096], *p, *eq, *key, *val;
	size_t		 i, lineno = 0;
	int		 rc = 0, open_to_all;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (set_key(c, &keys[i], keys[i].def) == -1) {
			log_errorx("bad default for %s", keys[i].name);
			return -1;
		}

	if ((f = fopen(path, "r")) == NULL) {
		log_error("config %s", path);
		return -1;
	}
	open_to_all = fstat(fileno(f), &st) == 0 && (st.st_mode & S_IROTH);
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			log_errorx("%s:%zu: line too long", path, lineno);
			rc = -1;
			break;
		}
		p = trim(line);
		if (*p == '\0' || *p == '#')
			continue;
		if ((eq = strchr(p, '=')) == NULL) {
			log_errorx("%s:%zu: expected 'key = value'", path,
			    lineno);
			rc = -1;
			continue;
		}
		*eq = '\0';
		key = trim(p);
		val = trim(eq + 1);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(keys[i].name, key) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			log_errorx("%s:%zu: unknown key '%s'", path, lineno,
			    key);
			rc = -1;
			continue;
		}
		if (set_key(c, &keys[i], val) == -1) {
			log_errorx("%s:%zu: bad value for %s: '%s'", path,
			    lineno, key, val);
			rc = -1;
		}
	}
	fclose(f);
	if (rc == -1)
		return -1;
	if (open_to_all && c->db_password[0] != '\0')
		log_warnx("%s is readable by every account on this machine, "
		    "and it holds the database password: chmod 0600 %s",
		    path, path);
	if (absolute_paths(c, path) == -1)
		return -1;
	if (check_listen(c, path) == -1)
		return -1;
	if (check_db_hosts(c, path) == -1)
		return -1;
	if (check_workers(c, path) == -1)
		return -1;
	/*
	 * The server must give up on a statement before the client does,
	 * so that a join answered as failed never commits later.
	 */
	if (c->db_lock_timeout_s >= c->db_timeout_s ||
	    c->db_statement_timeout_ms >= c->db_timeout_s * 1000) {
		log_errorx("%s: db-lock-timeout and db-statement-timeout-ms "
		    "must be below db-timeout", path);
		return -1;
	}
	if (crypto_master_key_load(c->master_key_file, c->master_key) == -1)
		return -1;
	log_set_debug((int)c->debug);
	return 0;
}

void
cfg_free(struct cfg *c)
{
	size_t	 i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].type == CFG_STR) {
			char **p = (char **)(void *)((char *)c + keys[i].off);
			free(*p);
			*p = NULL;
		}
	crypto_wipe(c->master_key, sizeof(c->master_key));
}

void
cfg_stamp(const char *path, struct cfg_stamp *s)
{
	struct stat	 st;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st) == -1)
		return;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtim = st.st_mtim;
	s->ok = 1;
}

int
cfg_changed(const char *path, struct cfg_stamp *seen)
{
	struct cfg_stamp	 now;

	cfg_stamp(path, &now);
	if (!now.ok)
		return 0;
	if (seen->ok && now.dev == seen->dev && now.ino == seen->ino &&
	    now.size == seen->size && now.mtim.tv_sec == seen->mtim.tv_sec &&
	    now.mtim.tv_nsec == seen->mtim.tv_nsec)
		return 0;
	*seen = now;
	return 1;
}
