/*
 * doctor.c - "aqueuectl doctor": check an installation as the account
 * that runs it sees it, and print one line per check: "ok   ..." or
 * "FIX  ...: what to do".  The files (modes, the key, the templates,
 * the web folder), the database (reach, schema, the account's
 * connection limit against db-max-connections), the worker (who leads,
 * when it last reported), the poll documents' age, and with --url what
 * the web server does: the program answers, the static files under the
 * prefix, the OpenAPI document, and whether the Authorization header
 * reaches the program.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "aqueue.h"
#include "ctl.h"
#include "cfg.h"
#include "db.h"
#include "db-slots.h"
#include "db-stats.h"
#include "db-worker.h"
#include "schema.h"

/* Connections kept free below the account's limit: aqueuectl, a spare. */
#define DOCTOR_SPARE	2
/* Poll documents older than this are stale (they are rewritten at 2 Hz). */
#define DOCTOR_DOC_OLD_MS	5000
/* How long doctor waits for an embedded worker to take the lead. */
#define DOCTOR_LEAD_WAIT_MS	6000

static int	 fixes;

/* Print "ok   msg". */
static void
ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
ok(const char *fmt, ...)
{
	va_list	 ap;

	fputs("ok   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Print "FIX  msg" and count it. */
static void
fix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
fix(const char *fmt, ...)
{
	va_list	 ap;

	fixes++;
	fputs("FIX  ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * Format into buf of size n; a result too long is cut (a path that then
 * names nothing: the check says so).  Returns 0, or -1 when cut.
 */
static int
pathf(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list	 ap;
	int	 len;

	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* Monotonic milliseconds. */
static int64_t
mono(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A file that holds secrets: it exists, is this account's, and only it
 * can read it.
 */
static void
check_secret_file(const char *what, const char *path)
{
	struct stat	 st;

	if (stat(path, &st) == -1) {
		fix("%s %s: %s", what, path, strerror(errno));
		return;
	}
	if (st.st_uid != getuid())
		fix("%s %s: owned by uid %ld, not by this account (uid %ld): "
		    "the program runs as this account (suEXEC); make it "
		    "yours", what, path, (long)st.st_uid, (long)getuid());
	else if ((st.st_mode & 077) != 0)
		fix("%s %s: mode %04o, readable by others: chmod 0600 %s",
		    what, path, (unsigned int)(st.st_mode & 07777), path);
	else
		ok("%s %s: mode %04o, yours", what, path,
		    (unsigned int)(st.st_mode & 07777));
}

/* The templates the program loads at start. */
static void
check_templates(const struct cfg *c)
{
	static const char *const names[] = { "waiting-room.html",
	    "unavailable.html", "unknown.html", "embed.js", "admin.html",
	    "lang/en.txt" };
	char	 path[PATH_MAX];
	size_t	 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		(void)pathf(path, sizeof(path), "%s/%s", c->templates_dir,
		    names[i]);
		if (access(path, R_OK) == -1) {
			fix("templates-dir %s: %s: %s (set templates-dir to "
			    "PREFIX/share/aditus-queue/templates of the "
			    "installation)", c->templates_dir, names[i],
			    strerror(errno));
			return;
		}
	}
	ok("templates-dir %s: readable", c->templates_dir);
}

/* A folder the program writes to (run-dir, state-dir, the log's). */
static int
check_writable_dir(const char *what, const char *dir)
{
	struct stat	 st;

	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		fix("%s %s: not a folder (mkdir -p %s)", what, dir, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) == -1) {
		fix("%s %s: not writable by this account", what, dir);
		return -1;
	}
	return 0;
}

/* The web folder beside state-dir, as suEXEC wants it. */
static void
check_web_folder(const struct cfg *c)
{
	char		 web[PATH_MAX], path[PATH_MAX], *slash;
	struct stat	 st;

	if (c->state_dir[0] == '\0')
		return;
	(void)pathf(web, sizeof(web), "%s", c->state_dir);
	if ((slash = strrchr(web, '/')) == NULL || slash == web)
		return;
	*slash = '\0';
	if (stat(web, &st) == -1)
		return;
	if (st.st_uid != getuid() || (st.st_mode & 022) != 0) {
		fix("web folder %s: must be this account's and not writable "
		    "by group or others (suEXEC refuses to run anything "
		    "else): chmod 0755 %s", web, web);
		return;
	}
	(void)pathf(path, sizeof(path), "%s/aqueue.fcgi", web);
	if (stat(path, &st) == -1) {
		fix("web folder %s: no aqueue.fcgi (aqueuectl init "
		    "--web-dir %s puts it there)", web, web);
		return;
	}
	if (st.st_uid != getuid() || (st.st_mode & 022) != 0 ||
	    (st.st_mode & 0100) == 0) {
		fix("%s: must be this account's, executable and not writable "
		    "by group or others: chmod 0755 %s", path, path);
		return;
	}
	/* The web server passes through every folder above it. */
	(void)pathf(path, sizeof(path), "%s", web);
	while ((slash = strrchr(path, '/')) != NULL && slash != path) {
		*slash = '\0';
		if (stat(path, &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
			fix("%s: the web server cannot pass through it to the "
			    "web folder: chmod o+x %s (or ask the host)", path,
			    path);
			return;
		}
	}
	(void)pathf(path, sizeof(path), "%s/.htaccess", web);
	if (access(path, R_OK) == -1) {
		fix("web folder %s: no .htaccess (aqueuectl init --web-dir "
		    "%s puts it there)", web, web);
		return;
	}
	ok("web folder %s: .htaccess, aqueue.fcgi (mode 0%o), yours, not "
	    "writable by others", web, (unsigned int)(st.st_mode & 0777));
}

/* The newest poll document's age in ms into *age, and how many. */
static int
doc_age(const char *dir, int64_t *age, int *n)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	struct timespec	 now;
	char		 path[PATH_MAX];
	int64_t		 newest = -1, t;
	size_t		 len;

	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		(void)pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == -1)
			continue;
		t = (int64_t)st.st_mtim.tv_sec * 1000 +
		    st.st_mtim.tv_nsec / 1000000;
		if (t > newest)
			newest = t;
		(*n)++;
	}
	closedir(d);
	clock_gettime(CLOCK_REALTIME, &now);
	*age = newest < 0 ? -1 : (int64_t)now.tv_sec * 1000 +
	    now.tv_nsec / 1000000 - newest;
	return 0;
}

/* The database: reach, schema, connections against the budget. */
static int
check_database(struct db *db, const struct cfg *c)
{
	int64_t	 user_max, server_max, held, limit, t;
	size_t	 slots_held = 0;
	pid_t	 pids[1];
	int	 pending;

	if (db_now_ms(db, &t) != APP_OK) {
		fix("database %s: does not answer (db-host/db-socket, db-user, "
		    "db-password in the configuration; the log says why)",
		    c->db_name);
		return -1;
	}
	if (schema_pending(db, c->migrations_dir, &pending) != APP_OK)
		fix("database %s: no schema yet: aqueuectl migrate",
		    c->db_name);
	else if (pending > 0)
		fix("database %s: %d migrations pending: aqueuectl migrate",
		    c->db_name, pending);
	else
		ok("database %s: answers, schema up to date", c->db_name);
	if (db_conn_limits(db, &user_max, &server_max, &held) != APP_OK)
		return 0;
	limit = user_max > 0 ? user_max : server_max;
	if (limit > 0 && c->db_max_connections + DOCTOR_SPARE > limit)
		fix("connections: db-max-connections = %lld, but this account "
		    "may hold %lld in all: set db-max-connections = %lld "
		    "(keeps %d for aqueuectl and a spare)",
		    (long long)c->db_max_connections, (long long)limit,
		    (long long)(limit - DOCTOR_SPARE > 1 ? limit -
		    DOCTOR_SPARE : 1), DOCTOR_SPARE);
	else
		ok("connections: db-max-connections = %lld within the "
		    "account's limit of %lld%s (%lld open now)",
		    (long long)c->db_max_connections, (long long)limit,
		    user_max > 0 ? "" : " (the server's)", (long long)held);
	if (c->run_dir[0] == '\0') {
		if (c->workers == 0)
			fix("run-dir is not set: db-max-connections, the "
			    "proof of work's single use, the log-in hash "
			    "limit and the stale answers' floor hold across "
			    "the processes only with it (a folder of this "
			    "account's, e.g. run-dir = ../var/run)");
		return 0;
	}
	if (check_writable_dir("run-dir", c->run_dir) == 0 &&
	    dbslots_count(c, &slots_held, pids, 1) == 0)
		ok("run-dir %s: %zu of %lld connection places in use",
		    c->run_dir, slots_held, (long long)c->db_max_connections);
	return 0;
}

/* The worker: who leads, and its last report. */
static void
check_worker(struct db *db, const struct cfg *c, int waited)
{
	struct instance_row	*rows = NULL;
	size_t			 n = 0, i;
	int64_t			 conn = 0, now, until = mono() +
				    (c->embedded_worker && waited ?
				    DOCTOR_LEAD_WAIT_MS : 0);
	const struct instance_row *lead = NULL;
	struct timespec		 ts = { 0, 250 * 1000 * 1000 };

	for (;;) {
		free(rows);
		rows = NULL;
		if (db_lock_holder(db, DB_LEADER_LOCK, &conn) != APP_OK ||
		    db_instance_list(db, 3 * c->instance_report_ms, &rows,
		    &n) != APP_OK) {
			fix("worker: the database does not answer");
			return;
		}
		for (i = 0, lead = NULL; i < n; i++)
			if (strcmp(rows[i].kind, "worker") == 0 &&
			    rows[i].leader)
				lead = &rows[i];
		if ((conn != 0 && lead != NULL) || mono() >= until)
			break;
		nanosleep(&ts, NULL);
	}
	if (conn == 0)
		fix("worker: none leads (no session holds the lock '%s' of "
		    "database %s): %s", DB_LEADER_LOCK, c->db_name,
		    c->embedded_worker ? "embedded-worker = on: the FastCGI "
		    "processes take it with the next request (run doctor "
		    "with --url, or open the site); if none starts, see "
		    "log-file" : "start it: aqueue-worker --detach (or "
		    "set embedded-worker = on)");
	else if (lead == NULL)
		fix("worker: a session holds the lock '%s' (connection %lld) "
		    "but no leader reported within %lld ms: see its log",
		    DB_LEADER_LOCK, (long long)conn,
		    (long long)(3 * c->instance_report_ms));
	else if (db_now_ms(db, &now) == APP_OK)
		ok("worker: %s leads (%s), last report %lld ms ago",
		    lead->id, c->embedded_worker ? "embedded in a FastCGI "
		    "process" : "aqueue-worker", (long long)(now -
		    lead->seen_ms));
	free(rows);
}

/* The poll documents the worker (or a pool's master) writes. */
static void
check_docs(struct db *db, const struct cfg *c)
{
	struct queue	**qs = NULL;
	size_t		 nq = 0;
	int64_t		 age;
	int		 n;

	if (c->state_dir[0] == '\0') {
		ok("state-dir is not set: visitors' pages poll the program "
		    "(set state-dir for a web server that serves them)");
		return;
	}
	if (check_writable_dir("state-dir", c->state_dir) == -1)
		return;
	if (db_queue_list(db, &qs, &nq) != APP_OK)
		return;
	db_queue_list_free(qs, nq);
	if (doc_age(c->state_dir, &age, &n) == -1)
		return;
	if (nq == 0)
		ok("state-dir %s: writable (no queue yet)", c->state_dir);
	else if (n == 0 || age > DOCTOR_DOC_OLD_MS)
		fix("state-dir %s: %s: nothing writes the poll documents (the "
		    "worker's leader does with embedded-worker = on, else a "
		    "pool's master)", c->state_dir, n == 0 ? "empty" :
		    "older than 5 s");
	else
		ok("state-dir %s: %d poll documents, the newest %lld ms old",
		    c->state_dir, n, (long long)age);
}

/* A response of http_get(). */
struct answer {
	long	 status;
	char	 type[128];
	char	 body[4096];
	size_t	 len;
};

/* CURLOPT_WRITEFUNCTION: keep the first bytes of the body. */
static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct answer	*a = arg;
	size_t		 n = size * nmemb, room = sizeof(a->body) - 1 - a->len;

	if (n < room)
		room = n;
	memcpy(a->body + a->len, p, room);
	a->len += room;
	a->body[a->len] = '\0';
	return n;
}

/*
 * GET url (with the header hdr unless NULL) into *a.  Returns 0, or -1
 * (no answer: said as a FIX).
 */
static int
http_get(const char *url, const char *hdr, struct answer *a)
{
	CURL			*h;
	struct curl_slist	*l = NULL;
	CURLcode		 rc;
	char			*ct = NULL;

	memset(a, 0, sizeof(*a));
	if ((h = curl_easy_init()) == NULL)
		return -1;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "aqueuectl doctor");
	l = curl_slist_append(l, "Accept: application/json");
	if (hdr != NULL)
		l = curl_slist_append(l, hdr);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a->status);
	if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK &&
	    ct != NULL)
		(void)pathf(a->type, sizeof(a->type), "%s", ct);
	curl_easy_cleanup(h);
	curl_slist_free_all(l);
	if (rc != CURLE_OK) {
		fix("%s: no answer (%s)", url, curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * The static files as the pages link them: static-url under the
 * install's prefix (relative), on the site's host (a path), or as is.
 */
static void
static_base(const struct cfg *c, const char *url, char *out, size_t n)
{
	const char	*s = c->static_url, *p;

	if (strstr(s, "://") != NULL)
		(void)pathf(out, n, "%s", s);
	else if (s[0] == '/') {
		p = strstr(url, "://");
		p = p != NULL ? strchr(p + 3, '/') : NULL;
		(void)pathf(out, n, "%.*s%s", p != NULL ? (int)(p - url) :
		    (int)strlen(url), url, s);
	} else
		(void)pathf(out, n, "%s/%s", url, s);
}

/* What the web server does with the program's URLs under url. */
static void
check_url(const struct cfg *c, const char *base)
{
	static const char *const files[] = { "waiting-room.css",
	    "waiting-room.js", "console.css", "console.js",
	    "uPlot.iife.min.js" };
	struct answer	 a;
	char		 url[2048], u[2300], st[2048];
	size_t		 i, len;

	(void)pathf(url, sizeof(url), "%s", base);
	len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		url[--len] = '\0';
	(void)pathf(u, sizeof(u), "%s/queue/healthz", url);
	if (http_get(u, NULL, &a) == -1)
		return;
	if (a.status != 200 || strstr(a.body, "\"ok\"") == NULL) {
		fix("%s: %ld, not the program's answer: the .htaccess and "
		    "aqueue.fcgi in the web folder, mod_fcgid (the web "
		    "server's error log, or log-file)", u, a.status);
		return;
	}
	ok("%s: the program answers", u);
	static_base(c, url, st, sizeof(st));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		(void)pathf(u, sizeof(u), "%s/%s", st, files[i]);
		if (http_get(u, NULL, &a) == -1)
			return;
		if (a.status != 200) {
			fix("%s: %ld: the static files must be there (static/ "
			    "of the web folder; static-url = %s)", u,
			    a.status, c->static_url);
			return;
		}
	}
	ok("%s/: the static files of the room and the console", st);
	(void)pathf(u, sizeof(u), "%s/api/openapi.json", url);
	if (http_get(u, NULL, &a) == 0) {
		if (a.status == 200 && strstr(a.body, "\"openapi\"") != NULL)
			ok("%s: the OpenAPI document", u);
		else
			fix("%s: %ld: the .htaccess serves static/openapi.json "
			    "there", u, a.status);
	}
	/* A made-up key: the program names it when the header came. */
	(void)pathf(u, sizeof(u), "%s/api/admin/queue/sites", url);
	if (http_get(u, "Authorization: Bearer qak_doctor00000000000000000"
	    "0000000000000000000000", &a) == -1)
		return;
	if (strstr(a.body, "\"invalid_api_key\"") != NULL)
		ok("Authorization: the header reaches the program");
	else if (strstr(a.body, "\"missing_credentials\"") != NULL)
		fix("Authorization: the web server drops the header, so API "
		    "keys cannot work: the .htaccess needs \"CGIPassAuth On\" "
		    "or the lines \"RewriteCond %%{HTTP:Authorization} .\" "
		    "and \"RewriteRule .* - [E=HTTP_AUTHORIZATION:"
		    "%%{HTTP:Authorization}]\" (both in the shipped "
		    "htaccess); never put keys in the query string");
	else
		fix("%s: unexpected answer %ld", u, a.status);
}

int
ctl_doctor(struct db *db, const struct cfg *c, const char *conf, int argc,
    char *argv[])
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*url = NULL;
	char		 dir[PATH_MAX], *slash;
	int		 ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (ch) {
		case 'u':
			url = optarg;
			break;
		default:
			return CTL_USAGE;
		}
	if (optind != argc)
		return CTL_USAGE;
	fixes = 0;
	check_secret_file("config", conf);
	check_secret_file("master key", c->master_key_file);
	check_templates(c);
	if (c->log_file[0] != '\0') {
		(void)pathf(dir, sizeof(dir), "%s", c->log_file);
		if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
			*slash = '\0';
		if (check_writable_dir("log-file's folder", dir) == 0)
			ok("log-file %s: the programs' log (readable by this "
			    "account)", c->log_file);
	} else if (c->workers == 0)
		fix("log-file is not set: the program's messages go to the "
		    "web server's error log, which this account may not "
		    "read (e.g. log-file = ../var/log/aqueue.log)");
	check_web_folder(c);
	if (url != NULL)
		check_url(c, url);
	if (check_database(db, c) == 0) {
		check_worker(db, c, url != NULL);
		check_docs(db, c);
	}
	if (fixes == 0)
		printf("doctor: nothing to fix\n");
	else
		printf("doctor: %d to fix\n", fixes);
	return fixes == 0 ? 0 : 1;
}
