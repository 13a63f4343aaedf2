/*
 * aqueuectl.c - the operator CLI: apply migrations, create queues (the
 * signing secret is printed once and stored sealed), change rate, pause,
 * resume, rotate the secret, show a queue's state.
 */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <mysql.h>

#include "admission.h"
#include "aqueue.h"
#include "cfg.h"
#include "crypto.h"
#include "db.h"
#include "log.h"
#include "urlcheck.h"

#define EXIT_EXISTS	3	/* create: the slug is taken */
#define EXIT_NOQUEUE	4	/* no such queue */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: aqueuectl [-f config] migrate\n"
	    "       aqueuectl [-f config] create slug --name name "
	    "--target url --domains list\n"
	    "                 --rate per-minute [--burst n] "
	    "[--token-ttl seconds]\n"
	    "       aqueuectl [-f config] exists | show | pause | resume | "
	    "rotate-secret slug\n"
	    "       aqueuectl [-f config] set-rate slug per-minute\n");
	exit(2);
}

/* Order migration file names. */
static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read a whole (small) file into a new string, or NULL. */
static char *
slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    n > 1024 * 1024 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Apply every migrations/NNNN-name.sql not yet recorded, in order.  Each
 * file holds one statement (MariaDB commits DDL implicitly).
 */
static int
cmd_migrate(struct db *db, const struct cfg *c)
{
	DIR		*d;
	struct dirent	*de;
	char		*names[1000], *sql, *path;
	size_t		 n = 0, i;
	int64_t		 v;
	int		 applied, rc = 0, done = 0;
	char		 num[5];
	const char	*cs;

	if (db_ensure(db) != APP_OK) {
		log_warnx("cannot connect to the database");
		return 1;
	}
	cs = mysql_character_set_name(db_mysql(db));
	if (strcmp(cs, "utf8mb4") != 0) {
		log_warnx("the server refused utf8mb4 (connection uses %s)",
		    cs);
		return 1;
	}
	if (db_exec_static(db, "CREATE TABLE IF NOT EXISTS schema_migrations "
	    "(version INT UNSIGNED NOT NULL PRIMARY KEY, name VARCHAR(200) "
	    "NOT NULL, applied_at TIMESTAMP(3) NOT NULL DEFAULT "
	    "CURRENT_TIMESTAMP(3)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
	    "COLLATE=utf8mb4_unicode_ci") != APP_OK)
		return 1;
	if ((d = opendir(c->migrations_dir)) == NULL) {
		log_warn("%s", c->migrations_dir);
		return 1;
	}
	while ((de = readdir(d)) != NULL && n < 1000) {
		size_t len = strlen(de->d_name);
		if (len < 10 || strspn(de->d_name, "0123456789") != 4 ||
		    de->d_name[4] != '-' ||
		    strcmp(de->d_name + len - 4, ".sql") != 0)
			continue;
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), namecmp);
	for (i = 0; i < n && rc == 0; i++) {
		memcpy(num, names[i], 4);
		num[4] = '\0';
		v = strtol(num, NULL, 10);
		if (db_migration_applied(db, v, &applied) != APP_OK) {
			rc = 1;
			break;
		}
		if (applied)
			continue;
		path = xasprintf("%s/%s", c->migrations_dir, names[i]);
		sql = slurp(path);
		if (sql == NULL) {
			log_warn("%s", path);
			rc = 1;
		} else if (db_exec_static(db, sql) != APP_OK ||
		    db_migration_record(db, v, names[i]) != APP_OK) {
			log_warnx("migration %s failed", names[i]);
			rc = 1;
		} else {
			printf("applied %s\n", names[i]);
			done++;
		}
		free(sql);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (rc == 0)
		printf("schema up to date (%d applied)\n", done);
	return rc;
}

/*
 * Make a new signing secret for q: 32 random bytes as base64url text
 * (the HMAC key is that text, so any JWT library takes it as a string),
 * sealed under the master key bound to the slug.  Returns the secret
 * text the caller prints once and frees, or NULL.
 */
static char *
new_secret(const struct cfg *c, struct queue *q)
{
	uint8_t	 raw[32];
	char	*secret, *aad;
	int64_t	 n;

	if (crypto_random(raw, sizeof(raw)) == -1 ||
	    (secret = b64url_encode(raw, sizeof(raw))) == NULL)
		return NULL;
	wipe(raw, sizeof(raw));
	aad = xasprintf("queue-secret:%s", q->slug);
	n = seal(c->master_key, aad, secret, strlen(secret),
	    q->secret_sealed, sizeof(q->secret_sealed));
	free(aad);
	if (n < 0) {
		wipe(secret, strlen(secret));
		free(secret);
		return NULL;
	}
	q->secret_sealed_len = (size_t)n;
	return secret;
}

/*
 * Whether s is an absolute http(s) URL of printable ASCII (no spaces,
 * controls or backslashes) with a host and no userinfo (a target like
 * https://user:pw@shop.example/ would hand credentials to every
 * visitor).  Returns 1 or 0.
 */
static int
target_valid(const char *s)
{
	size_t	 i, len = strlen(s), n, alen;

	if (len > URL_MAX)
		return 0;
	if (strncmp(s, "https://", 8) == 0)
		n = 8;
	else if (strncmp(s, "http://", 7) == 0)
		n = 7;
	else
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] >= 0x7f ||
		    s[i] == '\\')
			return 0;
	alen = strcspn(s + n, "/?#");
	return alen > 0 && memchr(s + n, '@', alen) == NULL;
}

/*
 * Whether name is fit to show: no control characters, not blank.
 * Returns 1 or 0.
 */
static int
name_valid(const char *name)
{
	const unsigned char	*p;
	int			 blank = 1;

	for (p = (const unsigned char *)name; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if (*p != ' ')
			blank = 0;
	}
	return !blank;
}

/* Number of UTF-8 characters of s, or -1 if s is not valid UTF-8. */
static int64_t
utf8_chars(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	int64_t			 n = 0;
	int			 k;

	while (*p != '\0') {
		if (*p < 0x80)
			k = 0;
		else if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			k = 1;
		else if ((*p & 0xf0) == 0xe0)
			k = 2;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			k = 3;
		else
			return -1;
		p++;
		while (k-- > 0) {
			if ((*p & 0xc0) != 0x80)
				return -1;
			p++;
		}
		n++;
	}
	return n;
}

static int
cmd_create(struct db *db, const struct cfg *c, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "target", required_argument, NULL, 't' },
		{ "domains", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "token-ttl", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct queue		 q;
	struct shop_domains	 sd;
	const char		*name = NULL, *target = NULL, *domains = "";
	int64_t			 rate = -1, burst = 0, ttl = 600, chars;
	uint8_t			 tkey[TICKET_KEY_LEN];
	char			*secret = NULL, *aad;
	int64_t			 n, now;
	enum app_err		 er;
	int			 ch, rc = 1;

	if (argc < 2)
		usage();
	memset(&q, 0, sizeof(q));
	q.slug = argv[1];
	optind = 2;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'n': name = optarg; break;
		case 't': target = optarg; break;
		case 'd': domains = optarg; break;
		case 'r':
			if (parse_int64(optarg, ADM_RATE_MIN, ADM_RATE_MAX,
			    &rate) == -1)
				errx_usage:
				{
					fprintf(stderr, "aqueuectl: bad value "
					    "'%s'\n", optarg);
					return 2;
				}
			break;
		case 'b':
			if (parse_int64(optarg, 0, ADM_BURST_MAX, &burst) == -1)
				goto errx_usage;
			break;
		case 'l':
			if (parse_int64(optarg, 1, 86400, &ttl) == -1)
				goto errx_usage;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!slug_valid(q.slug)) {
		fprintf(stderr, "aqueuectl: bad slug: 1-%d of a-z 0-9 -, "
		    "starting with a letter or digit\n", SLUG_MAX);
		return 2;
	}
	if (name == NULL || rate < 0) {
		fprintf(stderr, "aqueuectl: --name and --rate are required\n");
		return 2;
	}
	chars = utf8_chars(name);
	if (chars < 1 || chars > NAME_MAX_CHARS || !name_valid(name)) {
		fprintf(stderr, "aqueuectl: --name must be 1-%d characters "
		    "of UTF-8, not blank, without control characters\n",
		    NAME_MAX_CHARS);
		return 2;
	}
	if (target != NULL && !target_valid(target)) {
		fprintf(stderr, "aqueuectl: --target must be an http(s) URL "
		    "with a host and without user:password@\n");
		return 2;
	}
	if (shop_domains_parse(domains, &sd) == -1) {
		fprintf(stderr, "aqueuectl: bad --domains list\n");
		return 2;
	}
	q.name = (char *)(uintptr_t)name;
	q.target_url = (char *)(uintptr_t)target;
	q.shop_domains = (char *)(uintptr_t)domains;
	q.token_ttl_s = ttl;
	/* Time is the database's (SPEC section 3), as for every host. */
	if (db_now_ms(db, &now) != APP_OK) {
		fprintf(stderr, "aqueuectl: database unavailable\n");
		goto out;
	}
	adm_init(&q.adm, rate, burst, now);

	if (crypto_random(tkey, sizeof(tkey)) == -1)
		goto out;
	aad = xasprintf("queue-ticket-key:%s", q.slug);
	n = seal(c->master_key, aad, tkey, sizeof(tkey), q.ticket_key_sealed,
	    sizeof(q.ticket_key_sealed));
	free(aad);
	wipe(tkey, sizeof(tkey));
	if (n < 0)
		goto out;
	q.ticket_key_sealed_len = (size_t)n;
	if ((secret = new_secret(c, &q)) == NULL)
		goto out;
	er = db_queue_insert(db, &q);
	if (er == APP_INVALID) {
		fprintf(stderr, "aqueuectl: queue '%s' exists\n", q.slug);
		rc = EXIT_EXISTS;
		goto out;
	}
	if (er != APP_OK) {
		fprintf(stderr, "aqueuectl: could not create the queue\n");
		goto out;
	}
	printf("queue %s created (id %lld)\n", q.slug, (long long)q.id);
	printf("The signing secret is shown only now; keep it for token "
	    "verification:\n");
	printf("secret: %s\n", secret);
	rc = 0;
out:
	if (secret != NULL) {
		wipe(secret, strlen(secret));
		free(secret);
	}
	return rc;
}

/* What a state command does to the locked row. */
enum state_op { OP_SET_RATE, OP_PAUSE, OP_RESUME, OP_ROTATE };

/*
 * Lock the row, apply op (re-anchoring through the admission module so
 * that serving stays continuous), write it back, commit.
 */
static int
cmd_state(struct db *db, const struct cfg *c, const char *slug,
    enum state_op op, int64_t rate)
{
	struct queue	*q = NULL;
	enum app_err	 er;
	char		*secret = NULL;
	int		 rc = 1;
	int64_t		 now;

	if ((er = db_begin(db)) != APP_OK) {
		fprintf(stderr, "aqueuectl: database unavailable\n");
		return 1;
	}
	er = db_queue_get_locked(db, slug, &q);
	if (er == APP_NOTFOUND) {
		fprintf(stderr, "aqueuectl: no queue '%s'\n", slug);
		rc = EXIT_NOQUEUE;
		goto out;
	}
	if (er != APP_OK || (er = db_now_ms(db, &now)) != APP_OK)
		goto out;
	switch (op) {
	case OP_SET_RATE:
		adm_set_rate(&q->adm, rate, now);
		er = db_queue_set_state(db, q);
		break;
	case OP_PAUSE:
		if (q->adm.active)
			adm_pause(&q->adm, now);
		er = db_queue_set_state(db, q);
		break;
	case OP_RESUME:
		if (!q->adm.active)
			adm_resume(&q->adm, now);
		er = db_queue_set_state(db, q);
		break;
	case OP_ROTATE:
		if ((secret = new_secret(c, q)) == NULL) {
			er = APP_CRYPTO;
			break;
		}
		er = db_queue_set_secret(db, q);
		break;
	}
	if (er != APP_OK || (er = db_commit(db)) != APP_OK)
		goto out;
	if (secret != NULL) {
		printf("new signing secret of %s (tokens signed with the old "
		    "one no longer verify):\n", slug);
		printf("secret: %s\n", secret);
	} else
		printf("ok\n");
	rc = 0;
out:
	if (rc != 0)
		db_rollback(db);
	if (secret != NULL) {
		wipe(secret, strlen(secret));
		free(secret);
	}
	db_queue_free(q);
	return rc;
}

/* Print a queue's configuration and live state as JSON. */
static int
cmd_show(struct db *db, const char *slug, int exists_only)
{
	struct queue		*q = NULL;
	struct json_object	*o;
	enum app_err		 er;
	int64_t			 now, serving;

	er = db_queue_get(db, slug, &q);
	if (er == APP_OK)
		now = db_clock_ms(db);	/* the read learnt the DB's clock */
	if (er == APP_NOTFOUND)
		return exists_only ? 1 : EXIT_NOQUEUE;
	if (er != APP_OK) {
		fprintf(stderr, "aqueuectl: database unavailable\n");
		return exists_only ? 2 : 1;
	}
	if (!exists_only) {
		serving = adm_serving(&q->adm, now);
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(q->id));
		json_object_object_add(o, "slug",
		    json_object_new_string(q->slug));
		json_object_object_add(o, "name",
		    json_object_new_string(q->name));
		json_object_object_add(o, "targetUrl", q->target_url ?
		    json_object_new_string(q->target_url) : NULL);
		json_object_object_add(o, "shopDomains",
		    json_object_new_string(q->shop_domains));
		json_object_object_add(o, "ratePerMinute",
		    json_object_new_int64(q->adm.rate_per_minute));
		json_object_object_add(o, "burst",
		    json_object_new_int64(adm_burst(&q->adm)));
		json_object_object_add(o, "active",
		    json_object_new_boolean(q->adm.active));
		json_object_object_add(o, "lastNumber",
		    json_object_new_int64(q->adm.last_number));
		json_object_object_add(o, "serving",
		    json_object_new_int64(serving));
		json_object_object_add(o, "tokenTtlSeconds",
		    json_object_new_int64(q->token_ttl_s));
		printf("%s\n", json_object_to_json_string_ext(o,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	db_queue_free(q);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct cfg	 c;
	struct db	*db;
	const char	*conf = getenv("AQUEUE_CONF"), *cmd;
	int		 ch, rc;
	int64_t		 rate;

	log_open("aqueuectl", 0);
	if (conf == NULL)
		conf = "/etc/aqueue/aqueue.conf";
	while ((ch = getopt(argc, argv, "+f:")) != -1)
		switch (ch) {
		case 'f':
			conf = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	if (cfg_load(conf, &c) == -1) {
		cfg_free(&c);
		return 1;
	}
	db = db_open(&c);
	cmd = argv[0];
	if (strcmp(cmd, "migrate") == 0 && argc == 1)
		rc = cmd_migrate(db, &c);
	else if (strcmp(cmd, "create") == 0)
		rc = cmd_create(db, &c, argc, argv);
	else if (strcmp(cmd, "exists") == 0 && argc == 2)
		rc = cmd_show(db, argv[1], 1);
	else if (strcmp(cmd, "show") == 0 && argc == 2)
		rc = cmd_show(db, argv[1], 0);
	else if (strcmp(cmd, "pause") == 0 && argc == 2)
		rc = cmd_state(db, &c, argv[1], OP_PAUSE, 0);
	else if (strcmp(cmd, "resume") == 0 && argc == 2)
		rc = cmd_state(db, &c, argv[1], OP_RESUME, 0);
	else if (strcmp(cmd, "rotate-secret") == 0 && argc == 2)
		rc = cmd_state(db, &c, argv[1], OP_ROTATE, 0);
	else if (strcmp(cmd, "set-rate") == 0 && argc == 3) {
		if (parse_int64(argv[2], ADM_RATE_MIN, ADM_RATE_MAX,
		    &rate) == -1) {
			fprintf(stderr, "aqueuectl: rate must be %d-%d\n",
			    ADM_RATE_MIN, ADM_RATE_MAX);
			rc = 2;
		} else
			rc = cmd_state(db, &c, argv[1], OP_SET_RATE, rate);
	} else
		usage();
	db_close(db);
	cfg_free(&c);
	return rc;
}
