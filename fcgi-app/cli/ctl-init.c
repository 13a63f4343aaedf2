/*
 * ctl-init.c - "aqueuectl init": an installation from nothing in one
 * step, as the account that runs it: the configuration file (from the
 * shipped shared-hosting one, mode 0600), the master key (0600), the
 * folders for the log and the connection budget, the schema, and (with
 * --web-dir) the web folder: .htaccess, aqueue.fcgi, static/, state/.
 * Everything that exists is kept, so it can run again.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aqueue.h"
#include "ctl.h"
#include "cfg.h"
#include "crypto.h"
#include "ctl-user.h"
#include "db.h"
#include "schema.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

static const char init_usage[] =
    "usage: aqueuectl [-f config] init [--web-dir DIR]\n"
    "           [--htaccess standard|userdir]\n"
    "           [--db-host HOST [--db-port N] | --db-socket PATH]\n"
    "           [--db-user USER] [--db-name NAME]\n"
    "           [--db-password-file FILE] [--force]\n"
    "Writes the configuration (default PREFIX/etc/aqueue.conf), the\n"
    "master key beside it, the schema, and with --web-dir the web folder\n"
    "(.htaccess, aqueue.fcgi, static/, state/).  The database password\n"
    "is read from FILE, else from the terminal (echo off), else as one\n"
    "line from stdin.  A configuration that exists is kept unless\n"
    "--force.\n";

/* The keys init writes, and their values. */
struct kv {
	const char	*key;
	char		*val;
	int		 done;	/* written into the file */
};

#define KV_MAX	16

struct init {
	char		 prefix[PATH_MAX];	/* of this installation */
	char		 share[PATH_MAX];	/* prefix/share/aditus-queue */
	char		 conf[PATH_MAX];	/* the configuration file */
	char		 confdir[PATH_MAX];
	const char	*web;			/* --web-dir, or NULL */
	const char	*htaccess;		/* "standard" or "userdir" */
	struct kv	 kv[KV_MAX];
	size_t		 nkv;
	const char	*drop[1];		/* a key to comment out */
	const char	*instead[1];		/* the key written there */
	size_t		 ndrop;
};

/*
 * Format a path into buf of size n.  A path too long for PATH_MAX ends
 * the program (exit 1, said): nothing sensible can be done with it.
 */
static void
pathf(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list	 ap;
	int	 len;

	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= n) {
		fprintf(stderr, "aqueuectl: a path is too long\n");
		exit(1);
	}
}

/* Set key to a copy of val (the last value wins). */
static void
kv_set(struct init *in, const char *key, const char *val)
{
	size_t	 i;

	for (i = 0; i < in->nkv; i++)
		if (strcmp(in->kv[i].key, key) == 0) {
			free(in->kv[i].val);
			in->kv[i].val = xstrdup(val);
			return;
		}
	if (in->nkv == KV_MAX)
		return;
	in->kv[in->nkv].key = key;
	in->kv[in->nkv].val = xstrdup(val);
	in->kv[in->nkv].done = 0;
	in->nkv++;
}

/* "mkdir -p" of path with mode for each folder made.  0 or -1 (said). */
static int
mkdirs(const char *path, mode_t mode)
{
	char	 p[PATH_MAX], *s;

	if ((size_t)snprintf(p, sizeof(p), "%s", path) >= sizeof(p))
		return -1;
	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) == -1 && errno != EEXIST) {
			fprintf(stderr, "aqueuectl: mkdir %s: %s\n", p,
			    strerror(errno));
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, mode) == -1 && errno != EEXIST) {
		fprintf(stderr, "aqueuectl: mkdir %s: %s\n", p,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Copy file from to to with mode (through a temporary file and
 * rename(2)).  Returns 0, or -1 (said).
 */
static int
copy_file(const char *from, const char *to, mode_t mode)
{
	char	 buf[8192], tmp[PATH_MAX];
	ssize_t	 n;
	int	 in, out, rc = -1;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", to) >= sizeof(tmp))
		return -1;
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "aqueuectl: %s: %s\n", from, strerror(errno));
		return -1;
	}
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    mode)) == -1) {
		fprintf(stderr, "aqueuectl: %s: %s\n", tmp, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (n == 0 && fchmod(out, mode) == 0 && close(out) == 0) {
		out = -1;
		if (rename(tmp, to) == 0)
			rc = 0;
	}
	if (out != -1)
		close(out);
	close(in);
	if (rc == -1) {
		fprintf(stderr, "aqueuectl: writing %s: %s\n", to,
		    strerror(errno));
		(void)unlink(tmp);
	}
	return rc;
}

/*
 * Copy the files of folder from into folder to (made with mode 0755),
 * one level deep, files with mode 0644.  Returns the number copied, or
 * -1 (said).
 */
static int
copy_dir(const char *from, const char *to)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 src[PATH_MAX], dst[PATH_MAX];
	int		 n = 0;

	if (mkdirs(to, 0755) == -1 || chmod(to, 0755) == -1)
		return -1;
	if ((d = opendir(from)) == NULL) {
		fprintf(stderr, "aqueuectl: %s: %s\n", from, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(src, sizeof(src), "%s/%s", from,
		    de->d_name) >= sizeof(src) ||
		    (size_t)snprintf(dst, sizeof(dst), "%s/%s", to,
		    de->d_name) >= sizeof(dst))
			continue;
		if (stat(src, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (copy_file(src, dst, 0644) == -1) {
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

/*
 * The master key: 32 random bytes as 64 hex digits in a new file of
 * mode 0600 (an existing key is kept).  Returns 1 made, 0 kept, -1
 * failed (said).
 */
static int
make_key(const char *path)
{
	uint8_t		 raw[MASTER_KEY_LEN];
	char		 hex[MASTER_KEY_LEN * 2 + 2];
	size_t		 i;
	int		 fd, ok;

	if (access(path, F_OK) == 0)
		return 0;
	if (crypto_random(raw, sizeof(raw)) == -1) {
		fprintf(stderr, "aqueuectl: no random bytes for the key\n");
		return -1;
	}
	for (i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	hex[2 * sizeof(raw)] = '\n';
	crypto_wipe(raw, sizeof(raw));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		fprintf(stderr, "aqueuectl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = write(fd, hex, 2 * sizeof(raw) + 1) ==
	    (ssize_t)(2 * sizeof(raw) + 1);
	crypto_wipe(hex, sizeof(hex));
	if (close(fd) == -1 || !ok) {
		fprintf(stderr, "aqueuectl: writing %s failed\n", path);
		(void)unlink(path);
		return -1;
	}
	return 1;
}

/* The key of a "key = value" line (into k of size n), or 0 if none. */
static int
line_key(const char *line, char *k, size_t n)
{
	const char	*p = line, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '#' || *p == '\0' || *p == '\n')
		return 0;
	e = p + strcspn(p, " \t=");
	if ((size_t)(e - p) >= n || strchr(e, '=') == NULL)
		return 0;
	memcpy(k, p, (size_t)(e - p));
	k[e - p] = '\0';
	return 1;
}

/*
 * Write the configuration file: the shipped template with in->kv's
 * values in place of its own (keys it lacks appended, in->drop's keys
 * commented out), mode 0600, through a temporary file.  Returns 0 or
 * -1 (said).
 */
static int
write_conf(struct init *in, const char *tmpl)
{
	FILE	*f, *out;
	char	 line[4096], key[64], tmp[PATH_MAX];
	size_t	 i;
	int	 fd, hit;

	if ((f = fopen(tmpl, "r")) == NULL) {
		fprintf(stderr, "aqueuectl: %s: %s (is the installation "
		    "complete? make install puts it there)\n", tmpl,
		    strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", in->conf) >=
	    sizeof(tmp) ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1 || (out = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "aqueuectl: %s: %s\n", tmp, strerror(errno));
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (!line_key(line, key, sizeof(key))) {
			fputs(line, out);
			continue;
		}
		for (i = 0, hit = 0; i < in->ndrop; i++)
			if (strcmp(in->drop[i], key) == 0)
				hit = 1;
		if (hit) {
			fprintf(out, "# %s", line);
			/* Its replacement where it stood (db-socket). */
			for (i = 0; i < in->nkv; i++)
				if (strcmp(in->kv[i].key,
				    in->instead[0]) == 0 && !in->kv[i].done) {
					fprintf(out, "%s = %s\n", in->kv[i].key,
					    in->kv[i].val);
					in->kv[i].done = 1;
				}
			continue;
		}
		for (i = 0; i < in->nkv; i++)
			if (strcmp(in->kv[i].key, key) == 0)
				break;
		if (i == in->nkv) {
			fputs(line, out);
			continue;
		}
		if (!in->kv[i].done)
			fprintf(out, "%s = %s\n", key, in->kv[i].val);
		in->kv[i].done = 1;
	}
	fclose(f);
	for (i = 0; i < in->nkv; i++)
		if (!in->kv[i].done)
			fprintf(out, "%s = %s\n", in->kv[i].key, in->kv[i].val);
	if (fchmod(fileno(out), 0600) == -1 || fclose(out) != 0 ||
	    rename(tmp, in->conf) == -1) {
		fprintf(stderr, "aqueuectl: writing %s: %s\n", in->conf,
		    strerror(errno));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* The database password: from file (first line), else asked. */
static int
db_password(const char *file, char *pw, size_t n)
{
	FILE	*f;
	size_t	 len;

	if (file == NULL)
		return ctl_read_secret("Database password: ", pw, n);
	if ((f = fopen(file, "r")) == NULL) {
		fprintf(stderr, "aqueuectl: %s: %s\n", file, strerror(errno));
		return -1;
	}
	if (fgets(pw, (int)n, f) == NULL)
		pw[0] = '\0';
	fclose(f);
	len = strlen(pw);
	while (len > 0 && (pw[len - 1] == '\n' || pw[len - 1] == '\r'))
		pw[--len] = '\0';
	return 0;
}

/*
 * The web folder: .htaccess (the chosen variant), aqueue.fcgi, static/
 * and state/, as suEXEC wants them (the folder and the script not
 * writable by group or others).  Returns 0 or -1 (said).
 */
static int
web_folder(const struct init *in, const struct cfg *c)
{
	char		 src[PATH_MAX], dst[PATH_MAX], home[PATH_MAX];
	struct passwd	*pw = getpwuid(getuid());
	FILE		*f;
	int		 n, fd;

	if (mkdirs(in->web, 0755) == -1 || chmod(in->web, 0755) == -1) {
		fprintf(stderr, "aqueuectl: %s: %s\n", in->web,
		    strerror(errno));
		return -1;
	}
	pathf(src, sizeof(src), "%s/apache-shared/%s", in->share,
	    strcmp(in->htaccess, "userdir") == 0 ? "htaccess-userdir" :
	    "htaccess");
	pathf(dst, sizeof(dst), "%s/.htaccess", in->web);
	if (copy_file(src, dst, 0644) == -1)
		return -1;
	/*
	 * The wrapper: the shipped one finds the installation under the
	 * account's home (~/aqueue, ~/aqueue/etc/aqueue.conf); anywhere
	 * else it names this installation's paths.
	 */
	pathf(dst, sizeof(dst), "%s/aqueue.fcgi", in->web);
	pathf(home, sizeof(home), "%s/aqueue", pw != NULL ?
	    pw->pw_dir : "");
	pathf(src, sizeof(src), "%s/etc/aqueue.conf", home);
	if (pw != NULL && strcmp(in->prefix, home) == 0 &&
	    strcmp(in->conf, src) == 0) {
		pathf(src, sizeof(src), "%s/apache-shared/aqueue.fcgi",
		    in->share);
		if (copy_file(src, dst, 0755) == -1)
			return -1;
	} else {
		pathf(src, sizeof(src), "%s.new", dst);
		if ((fd = open(src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0755)) == -1 || (f = fdopen(fd, "w")) == NULL) {
			fprintf(stderr, "aqueuectl: %s: %s\n", src,
			    strerror(errno));
			return -1;
		}
		fprintf(f, "#!/bin/sh\n# aqueue.fcgi - what mod_fcgid runs "
		    "(written by aqueuectl init)\nexec %s/bin/aqueue-fcgi -f "
		    "%s\n", in->prefix, in->conf);
		if (fchmod(fileno(f), 0755) == -1 || fclose(f) != 0 ||
		    rename(src, dst) == -1) {
			fprintf(stderr, "aqueuectl: %s: %s\n", dst,
			    strerror(errno));
			return -1;
		}
	}
	pathf(src, sizeof(src), "%s/static", in->share);
	pathf(dst, sizeof(dst), "%s/static", in->web);
	if ((n = copy_dir(src, dst)) == -1)
		return -1;
	if (c->state_dir[0] != '\0' && (mkdirs(c->state_dir, 0755) == -1 ||
	    chmod(c->state_dir, 0755) == -1)) {
		fprintf(stderr, "aqueuectl: %s: %s\n", c->state_dir,
		    strerror(errno));
		return -1;
	}
	printf("web folder %s: .htaccess (%s), aqueue.fcgi, static/ (%d "
	    "files), state/\n", in->web, in->htaccess, n);
	return 0;
}

/* Copy src into dst of size n; 0, or -1 when it does not fit. */
static int
set_path(char *dst, size_t n, const char *src)
{
	return (size_t)snprintf(dst, n, "%s", src) >= n ? -1 : 0;
}

int
ctl_init(const char *conf, int given, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "web-dir", required_argument, NULL, 'w' },
		{ "htaccess", required_argument, NULL, 'a' },
		{ "db-host", required_argument, NULL, 'H' },
		{ "db-port", required_argument, NULL, 'P' },
		{ "db-socket", required_argument, NULL, 'S' },
		{ "db-user", required_argument, NULL, 'u' },
		{ "db-name", required_argument, NULL, 'n' },
		{ "db-password-file", required_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	struct init	 in;
	struct cfg	 c;
	struct db	*db;
	struct stat	 st;
	const char	*pwfile = NULL, *user = NULL, *name = NULL;
	char		 path[PATH_MAX], pw[512], *slash, web[PATH_MAX];
	int		 ch, force = 0, dbopts = 0, exists, made, n, rc;
	int		 host = 0, sock = 0;
	size_t		 i;

	memset(&in, 0, sizeof(in));
	in.htaccess = "standard";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (ch) {
		case 'w':
			if (realpath(optarg, web) == NULL &&
			    (mkdirs(optarg, 0755) == -1 ||
			    realpath(optarg, web) == NULL)) {
				fprintf(stderr, "aqueuectl: --web-dir %s: %s\n",
				    optarg, strerror(errno));
				return EXIT_FAIL;
			}
			in.web = web;
			break;
		case 'a':
			if (strcmp(optarg, "standard") != 0 &&
			    strcmp(optarg, "userdir") != 0) {
				fputs(init_usage, stderr);
				return EXIT_USAGE;
			}
			in.htaccess = optarg;
			break;
		case 'H':
			kv_set(&in, "db-host", optarg);
			in.drop[0] = "db-socket";
			in.instead[0] = "db-host";
			in.ndrop = 1;
			host++;
			dbopts = 1;
			break;
		case 'P':
			kv_set(&in, "db-port", optarg);
			dbopts = 1;
			break;
		case 'S':
			kv_set(&in, "db-socket", optarg);
			in.drop[0] = "db-host";
			in.instead[0] = "db-socket";
			in.ndrop = 1;
			sock++;
			dbopts = 1;
			break;
		case 'u':
			user = optarg;
			dbopts = 1;
			break;
		case 'n':
			name = optarg;
			dbopts = 1;
			break;
		case 'p':
			pwfile = optarg;
			break;
		case 'F':
			force = 1;
			break;
		default:
			fputs(init_usage, stderr);
			return EXIT_USAGE;
		}
	if (optind != argc || (host > 0 && sock > 0)) {
		fputs(init_usage, stderr);
		return EXIT_USAGE;
	}
	if (cfg_prefix(in.prefix, sizeof(in.prefix)) == -1) {
		fprintf(stderr, "aqueuectl: cannot find this installation's "
		    "folder\n");
		return EXIT_FAIL;
	}
	pathf(in.share, sizeof(in.share), "%s/share/aditus-queue",
	    in.prefix);
	if (stat(in.share, &st) == -1)
		pathf(in.share, sizeof(in.share), "%s", PKGDATADIR);
	/* Without -f: this installation's own file. */
	if (!given && getenv("AQUEUE_CONF") == NULL)
		pathf(path, sizeof(path), "%s/etc/aqueue.conf", in.prefix);
	else if (set_path(path, sizeof(path), conf) == -1)
		return EXIT_USAGE;
	if (path[0] != '/') {
		char	 cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return EXIT_FAIL;
		pathf(in.conf, sizeof(in.conf), "%s/%s", cwd, path);
	} else
		pathf(in.conf, sizeof(in.conf), "%s", path);
	pathf(in.confdir, sizeof(in.confdir), "%s", in.conf);
	if ((slash = strrchr(in.confdir, '/')) != NULL)
		*slash = '\0';
	if (mkdirs(in.confdir, 0700) == -1)
		return EXIT_FAIL;

	exists = access(in.conf, F_OK) == 0;
	if (exists && dbopts && !force) {
		fprintf(stderr, "aqueuectl: %s exists: edit it, or run init "
		    "again with --force to write it anew\n", in.conf);
		return EXIT_FAIL;
	}
	if (!exists || force) {
		if (user != NULL)
			kv_set(&in, "db-user", user);
		if (name != NULL)
			kv_set(&in, "db-name", name);
		if (db_password(pwfile, pw, sizeof(pw)) == -1) {
			fprintf(stderr, "aqueuectl: no database password "
			    "read\n");
			return EXIT_FAIL;
		}
		kv_set(&in, "db-password", pw);
		crypto_wipe(pw, sizeof(pw));
		/* Paths: relative ones work from prefix/etc only. */
		pathf(path, sizeof(path), "%s/etc", in.prefix);
		if (strcmp(in.confdir, path) != 0) {
			pathf(path, sizeof(path), "%s/templates", in.share);
			kv_set(&in, "templates-dir", path);
			pathf(path, sizeof(path), "%s/migrations",
			    in.share);
			kv_set(&in, "migrations-dir", path);
			pathf(path, sizeof(path), "%s/var/run", in.prefix);
			kv_set(&in, "run-dir", path);
			pathf(path, sizeof(path), "%s/var/log/aqueue.log",
			    in.prefix);
			kv_set(&in, "log-file", path);
		}
		if (in.web != NULL) {
			pathf(path, sizeof(path), "%s/state", in.web);
			kv_set(&in, "state-dir", path);
		}
		pathf(path, sizeof(path), "%s/apache-shared/aqueue.conf",
		    in.share);
		rc = write_conf(&in, path);
		for (i = 0; i < in.nkv; i++) {
			if (strcmp(in.kv[i].key, "db-password") == 0)
				crypto_wipe(in.kv[i].val,
				    strlen(in.kv[i].val));
			free(in.kv[i].val);
		}
		if (rc == -1)
			return EXIT_FAIL;
		printf("wrote %s (mode 0600)\n", in.conf);
	} else
		printf("kept %s\n", in.conf);

	/* The key, where the file names it. */
	pathf(path, sizeof(path), "%s/master.key", in.confdir);
	if ((made = make_key(path)) == -1)
		return EXIT_FAIL;
	if (made)
		printf("made %s (mode 0600)\n", path);
	if (cfg_load(in.conf, &c) == -1) {
		fprintf(stderr, "aqueuectl: %s is not valid (see above)\n",
		    in.conf);
		cfg_free(&c);
		return EXIT_FAIL;
	}
	if (c.run_dir[0] != '\0' && mkdirs(c.run_dir, 0700) == -1) {
		cfg_free(&c);
		return EXIT_FAIL;
	}
	if (c.log_file[0] != '\0') {
		pathf(path, sizeof(path), "%s", c.log_file);
		if ((slash = strrchr(path, '/')) != NULL && slash != path) {
			*slash = '\0';
			if (mkdirs(path, 0700) == -1) {
				cfg_free(&c);
				return EXIT_FAIL;
			}
		}
	}
	db = db_open(&c);
	if (schema_migrate(db, c.migrations_dir, NULL, NULL, &n) != APP_OK) {
		fprintf(stderr, "aqueuectl: the schema could not be applied "
		    "to database %s (see above): check db-user, db-password "
		    "and db-name in %s, then run init again\n", c.db_name,
		    in.conf);
		db_close(db);
		cfg_free(&c);
		return EXIT_FAIL;
	}
	db_close(db);
	printf("database %s: schema up to date (%d applied)\n", c.db_name, n);
	rc = 0;
	if (in.web != NULL && web_folder(&in, &c) == -1)
		rc = EXIT_FAIL;
	cfg_free(&c);
	if (rc == 0)
		printf("next: %s/bin/aqueuectl doctor --url "
		    "https://YOUR-SITE/PATH\n", in.prefix);
	return rc;
}
