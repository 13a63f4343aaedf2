/*
 * aqueuectl.c - the operator CLI: apply migrations, create, update, list,
 * show, pause, resume, re-rate, rotate the secret of and delete queues;
 * the user, key, audit, autorate and report commands.  Every operation
 * is in the library (queue-ops.c, schema.c); this file reads the command
 * line and prints.
 */
#include "config.h"

#include <sys/types.h>

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "admission.h"
#include "aqueue.h"
#include "ctl.h"
#include "cfg.h"
#include "db.h"
#include "draw.h"
#include "log.h"
#include "principal.h"
#include "queue-ops.h"
#include "schema.h"
#include "ctl-user.h"

#define EXIT_FAIL	1	/* the operation failed */
#define EXIT_USAGE	2	/* bad command line or values */
#define EXIT_EXISTS	3	/* create: the slug is taken */
#define EXIT_NOQUEUE	4	/* no such queue */

#define NAME_COL_MAX	32	/* characters of a name in the list table */

/* Who every change of this run is audited as: "cli:<login>". */
static struct principal	 cli_who;

static const char usage_text[] =
    "usage: aqueuectl [-f config] command [arguments]\n"
    "\n"
    "commands:\n"
    "  init [--web-dir DIR] [--htaccess standard|userdir] [--db-host H|\n"
    "         --db-socket S] [--db-user U] [--db-name N]\n"
    "         [--db-password-file F] [--force]\n"
    "                       a new installation in one step: the\n"
    "                       configuration (0600), the master key, the\n"
    "                       schema, the web folder (shared hosting)\n"
    "  doctor [--url URL]   check the installation as its user sees it;\n"
    "                       one line per check, what to fix\n"
    "  migrate              apply pending database migrations\n"
    "  create SLUG --name NAME --rate N [the options of update]\n"
    "                       make a queue; prints its signing secret once\n"
    "  update SLUG [--name NAME] [--rate N] [--target URL] [--domains LIST]\n"
    "         [--burst N] [--token-ttl S] [--claim-window S]\n"
    "         [--header-image URL] [--display-name TEXT] [--message TEXT]\n"
    "         [--accent #rrggbb] [--json-status 200|202|429]\n"
    "         [--json-cookie SUFFIX] [--opens-at MS|ISO-8601|none]\n"
    "         [--abandon on|off] [--abandon-grace S] [--pow on|off]\n"
    "         [--pow-bits N] [--session-renewal on|off]\n"
    "         [--method fifo|passthrough|hold] [--total-active-users N]\n"
    "         [--load-test-queue on|off] [--number-block N]\n"
    "                       change settings (--target '' removes it)\n"
    "  list [--json]        every queue: slug, name, active, rate,\n"
    "                       last number issued, serving\n"
    "  show SLUG            one queue's settings and state, as JSON\n"
    "  exists SLUG          exit 0 if the queue exists, 1 if not\n"
    "  pause SLUG           stop admitting (serving freezes)\n"
    "  resume SLUG          admit again from where it stopped\n"
    "  set-rate SLUG N      admit N visitors per minute\n"
    "  rotate-secret SLUG   new signing secret, printed once\n"
    "  delete SLUG --yes    remove a queue for good\n"
    "  user add|passwd|disable|enable NAME, user list [--json]\n"
    "                       console users (passwords asked, never argv)\n"
    "  autorate show SLUG   auto-rate settings and state, as JSON\n"
    "  autorate set SLUG [--health-url URL] [--rules 'PATH OP N, ...']\n"
    "         [--allow-private 0|1] [--interval S] [--min N] [--max N]\n"
    "         [--step N] [--cut PCT] [--cooldown S] [--band PCT]\n"
    "         [--failures N] [--dry-run 0|1]\n"
    "                       change auto-rate settings (a new URL or\n"
    "                       rules turn it off until tested again)\n"
    "  autorate test SLUG   poll the health URL once and judge it; a\n"
    "                       pass is recorded (exit 1 if it fails)\n"
    "  autorate enable SLUG | autorate disable SLUG\n"
    "                       turn auto-rate on (needs a passing test) or off\n"
    "  autorate log SLUG [--limit N]\n"
    "                       the latest decisions, newest first, as JSON\n"
    "  report SLUG [--json|--csv] [--since MS] [--until MS]\n"
    "                       fairness: served-order inversions, waits\n"
    "                       P50/P90/P99, admissions per minute vs rate\n"
    "  key create SLUG --name NAME\n"
    "                       make an API key for the queue; prints it once\n"
    "  key list [SLUG]      API keys (id, queue, name, prefix, last use)\n"
    "  key revoke ID        refuse the key from now on\n"
    "  bypass create SLUG --label LABEL [--uses N] [--expires TIME]\n"
    "                       a VIP bypass code; prints it (and its\n"
    "                       gateway link) once\n"
    "  bypass list SLUG     the queue's codes as JSON lines, never the\n"
    "                       code itself\n"
    "  bypass disable ID | bypass enable ID | bypass delete ID\n"
    "  template set SLUG FILE|-\n"
    "                       store the queue's custom waiting-room\n"
    "                       template (HTML, at most 51200 bytes)\n"
    "  template reset SLUG  back to the default room page\n"
    "  template show SLUG   print the stored template\n"
    "  loadtest run SLUG --rate N --duration S [--profile mix|status|join]\n"
    "         [--wait]      a load test against a test queue (a worker\n"
    "                       with loadtest-url runs it); --wait follows it\n"
    "  loadtest run SLUG --profile replay --source SRC --from TIME --to TIME\n"
    "         [--speed X] [--volume Y] [--wait]\n"
    "                       replay SRC's arrivals in that window, X times\n"
    "                       faster, Y times as many\n"
    "  loadtest list [SLUG] [--limit N] | loadtest show ID | loadtest wait ID\n"
    "                       runs as JSON lines; one with its series\n"
    "  loadtest schedule add SLUG --rate N --duration S [--profile P]\n"
    "         (--every MINUTES | --weekly DAY HH:MM ZONE)\n"
    "                       a recurring load test (an interval's first\n"
    "                       run now; DAY sunday..saturday, ZONE an IANA\n"
    "                       time zone such as Europe/Madrid)\n"
    "  loadtest schedule list | loadtest schedule delete ID\n"
    "  audit [--queue SLUG] [--actor NAME] [--action ACTION] [--limit N]\n"
    "                       the audit log, newest first, as JSON lines\n"
    "\n"
    "options:\n"
    "  -f config            configuration file (default: $AQUEUE_CONF,\n"
    "                       else PREFIX/etc/aqueue.conf of this\n"
    "                       installation if it exists, else\n"
    "                       /etc/aqueue/aqueue.conf)\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 done, 1 failed, 2 bad usage or value, 3 queue or\n"
    "user exists, 4 no such queue, 5 no such user, 6 a load test\n"
    "flagged as a regression\n";

/* Print the usage: to stdout and exit 0 when asked, else stderr, 2. */
static void
usage(int asked)
{
	fputs(usage_text, asked ? stdout : stderr);
	exit(asked ? 0 : EXIT_USAGE);
}


/*
 * Tell the operator why an operation on slug (may be NULL) failed, on
 * stderr, and return the exit status for it.
 */
static int
report(const struct qops_err *err, const char *slug)
{
	int	 f = err->field;

	switch (err->reason) {
	case QOPS_R_MISSING:
		fprintf(stderr, "aqueuectl: --%s is required\n",
		    qops_field((enum qops_field)f)->opt);
		return EXIT_USAGE;
	case QOPS_R_INVALID:
		if (f < 0) {
			fprintf(stderr, "aqueuectl: bad value\n");
			return EXIT_USAGE;
		}
		fprintf(stderr, "aqueuectl: bad value for --%s: must be %s\n",
		    qops_field((enum qops_field)f)->opt,
		    qops_field((enum qops_field)f)->rule);
		return EXIT_USAGE;
	case QOPS_R_UNICODE:
		fprintf(stderr, "aqueuectl: bad value for --%s: not valid "
		    "UTF-8\n", qops_field((enum qops_field)f)->opt);
		return EXIT_USAGE;
	case QOPS_R_SLUG:
		fprintf(stderr, "aqueuectl: bad slug: %s\n",
		    qops_reason_text(err->reason) + strlen("the slug "));
		return EXIT_USAGE;
	case QOPS_R_EXISTS:
		fprintf(stderr, "aqueuectl: queue exists: %s\n", slug);
		return EXIT_EXISTS;
	case QOPS_R_NOT_FOUND:
		if (slug != NULL && db_queue_slug_valid(slug))
			fprintf(stderr, "aqueuectl: no such queue: %s\n", slug);
		else
			fprintf(stderr, "aqueuectl: no such queue (not a "
			    "valid slug)\n");
		return EXIT_NOQUEUE;
	default:
		fprintf(stderr, "aqueuectl: %s\n",
		    qops_reason_text(err->reason));
		return EXIT_FAIL;
	}
}

/* Print the warnings of *err on stderr.  Can't fail. */
static void
warnings(const struct qops_err *err)
{
	unsigned int	 bit;

	for (bit = 1; bit != 0; bit <<= 1)
		if (err->warnings & bit)
			fprintf(stderr, "aqueuectl: warning: %s (%s)\n",
			    qops_warning_text(bit), qops_warning_code(bit));
}

/* schema_migrate() callback: say what was applied. */
static void
applied_one(const char *name, void *arg)
{
	(void)arg;
	printf("applied %s\n", name);
}

/* Apply pending migrations, naming each.  Returns the exit status. */
static int
cmd_migrate(struct db *db, const struct cfg *c)
{
	int	 n;

	if (schema_migrate(db, c->migrations_dir, applied_one, NULL, &n) !=
	    APP_OK) {
		fprintf(stderr, "aqueuectl: migrate failed (see above)\n");
		return EXIT_FAIL;
	}
	printf("schema up to date (%d applied)\n", n);
	return 0;
}

/*
 * Read the --field options of create/update (argv[0] is the command,
 * argv[1] the slug) into *spec.  Returns 0, or the exit status after a
 * message.
 */
static int
spec_args(int argc, char *argv[], struct qops_spec *spec)
{
	struct option	 opts[QOPS_F__MAX + 2];
	struct qops_err	 err;
	int		 f, ch;

	memset(spec, 0, sizeof(*spec));
	memset(opts, 0, sizeof(opts));
	for (f = 0; f < QOPS_F__MAX; f++) {
		opts[f].name = qops_field((enum qops_field)f)->opt;
		opts[f].has_arg = required_argument;
		opts[f].val = 256 + f;
	}
	opts[f].name = "help";
	opts[f].val = 'h';
	optind = 2;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 'h')
			usage(1);
		if (ch < 256 || ch >= 256 + QOPS_F__MAX)
			usage(0);
		if (qops_spec_set(spec, (enum qops_field)(ch - 256), optarg,
		    &err) != APP_OK)
			return report(&err, NULL);
	}
	if (optind != argc)
		usage(0);
	return 0;
}

/*
 * create SLUG --name ... --rate ...: print the new queue's id and its
 * signing secret (once), warnings on stderr.  Returns the exit status.
 */
static int
cmd_create(struct db *db, const struct cfg *c, int argc, char *argv[])
{
	struct qops_spec	 spec;
	struct qops_err		 err;
	char			*secret;
	int64_t			 id;
	int			 rc;

	if (argc < 2 || argv[1][0] == '-')
		usage(0);
	if ((rc = spec_args(argc, argv, &spec)) != 0)
		return rc;
	if (qops_create(db, c, argv[1], &spec, &secret, &id, &err,
	    &cli_who) != APP_OK)
		return report(&err, argv[1]);
	warnings(&err);
	printf("queue %s created (id %lld)\n", argv[1], (long long)id);
	printf("The signing secret is shown only now; keep it for token "
	    "verification:\n");
	printf("secret: %s\n", secret);
	qops_secret_free(secret);
	return 0;
}

/* update SLUG --field value...: change settings.  Returns exit status. */
static int
cmd_update(struct db *db, int argc, char *argv[])
{
	struct qops_spec	 spec;
	struct qops_err		 err;
	int			 rc;

	if (argc < 2 || argv[1][0] == '-')
		usage(0);
	if ((rc = spec_args(argc, argv, &spec)) != 0)
		return rc;
	if (spec.set == 0) {
		fprintf(stderr, "aqueuectl: update: nothing to change\n");
		return EXIT_USAGE;
	}
	if (qops_update(db, argv[1], &spec, &err, &cli_who) != APP_OK)
		return report(&err, argv[1]);
	warnings(&err);
	printf("ok\n");
	return 0;
}

/* What a state command does. */
enum state_op { OP_SET_RATE, OP_PAUSE, OP_RESUME, OP_ROTATE };

/*
 * pause, resume, set-rate, rotate-secret on slug: print "ok" or the new
 * secret.  Returns the exit status.
 */
static int
cmd_state(struct db *db, const struct cfg *c, const char *slug,
    enum state_op op, int64_t rate)
{
	struct qops_err	 err;
	enum app_err	 er = APP_OK;
	char		*secret = NULL;

	switch (op) {
	case OP_SET_RATE:
		er = qops_set_rate(db, slug, rate, &err, &cli_who);
		break;
	case OP_PAUSE:
		er = qops_pause(db, slug, &err, &cli_who);
		break;
	case OP_RESUME:
		er = qops_resume(db, slug, &err, &cli_who);
		break;
	case OP_ROTATE:
		er = qops_rotate_secret(db, c, slug, &secret, &err,
		    &cli_who);
		break;
	}
	if (er != APP_OK)
		return report(&err, slug);
	warnings(&err);
	if (secret != NULL) {
		printf("new signing secret of %s (tokens signed with the old "
		    "one no longer verify):\n", slug);
		printf("secret: %s\n", secret);
		qops_secret_free(secret);
	} else
		printf("ok\n");
	return 0;
}

/* Print o pretty-printed and release it. */
static void
print_json(struct json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/*
 * Print a queue's configuration and live state as JSON; with exists_only
 * print nothing and return 0 or 1 (2 when the database fails).
 */
static int
cmd_show(struct db *db, const char *slug, int exists_only)
{
	struct queue	*q = NULL;
	struct qops_err	 err;
	enum app_err	 er;

	er = qops_get(db, slug, &q, &err);
	if (exists_only && er != APP_OK && er != APP_NOTFOUND) {
		(void)report(&err, slug);
		return 2;
	}
	if (exists_only) {
		qops_queue_free(q);
		return er == APP_OK ? 0 : 1;
	}
	if (er != APP_OK)
		return report(&err, slug);
	print_json(qops_site_json(db, q, qops_now(db)));
	qops_queue_free(q);
	return 0;
}

/* Characters of the UTF-8 string s (continuation bytes not counted). */
static size_t
chars(const char *s)
{
	size_t	 n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/*
 * Print at most max characters of the UTF-8 string s (ending in "..."
 * when cut), padded with spaces to max characters.
 */
static void
print_cell(const char *s, size_t max)
{
	size_t	 n = chars(s), i, bytes;

	if (n > max) {
		/* Up to the first byte of character max - 2. */
		for (i = 0, bytes = 0; s[bytes] != '\0'; bytes++)
			if (((unsigned char)s[bytes] & 0xc0) != 0x80 &&
			    i++ == max - 3)
				break;
		printf("%.*s...", (int)bytes, s);
		return;
	}
	printf("%s%*s", s, (int)(max - n), "");
}

/* Print every queue as a table, or with json as a JSON array. */
static int
cmd_list(struct db *db, int argc, char *argv[])
{
	struct queue	**qs = NULL;
	struct qops_err	 err;
	struct json_object *a;
	size_t		 n, i, wslug = 4, wname = 4, w;
	int64_t		 now;
	int		 json = 0;

	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		json = 1;
	else if (argc != 1)
		usage(0);
	if (qops_list(db, &qs, &n, &err) != APP_OK)
		return report(&err, NULL);
	now = qops_now(db);
	if (json) {
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a,
			    qops_site_json(db, qs[i], now));
		print_json(a);
		qops_list_free(qs, n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if ((w = strlen(qs[i]->slug)) > wslug)
			wslug = w;
		if ((w = chars(qs[i]->name)) > wname)
			wname = w > NAME_COL_MAX ? NAME_COL_MAX : w;
	}
	printf("%-*s  %-*s  %-6s  %8s  %10s  %10s\n", (int)wslug, "SLUG",
	    (int)wname, "NAME", "ACTIVE", "RATE/MIN", "LAST", "SERVING");
	for (i = 0; i < n; i++) {
		printf("%-*s  ", (int)wslug, qs[i]->slug);
		print_cell(qs[i]->name, wname);
		printf("  %-6s  %8lld  %10lld  %10lld\n",
		    adm_settled_active(&qs[i]->adm) ? "yes" : "no",
		    (long long)adm_settled_rate(&qs[i]->adm),
		    (long long)qs[i]->adm.last_number,
		    (long long)adm_serving(&qs[i]->adm, now));
	}
	qops_list_free(qs, n);
	return 0;
}

/* Delete a queue; refused without --yes. */
static int
cmd_delete(struct db *db, int argc, char *argv[])
{
	struct qops_err	 err;
	const char	*slug = NULL;
	int		 i, yes = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--yes") == 0)
			yes = 1;
		else if (argv[i][0] != '-' && slug == NULL)
			slug = argv[i];
		else
			usage(0);
	}
	if (slug == NULL)
		usage(0);
	if (!yes) {
		fprintf(stderr, "aqueuectl: delete removes the queue, its "
		    "numbers and its secrets for good;\n"
		    "run it again with --yes to confirm\n");
		return EXIT_USAGE;
	}
	if (qops_delete(db, slug, &err, &cli_who) != APP_OK)
		return report(&err, slug);
	printf("queue %s deleted\n", slug);
	return 0;
}

/* Fill *who as the CLI run by this user: "cli:<login>". */
static void
cli_principal(struct principal *who)
{
	struct passwd	*pw = getpwuid(getuid());

	memset(who, 0, sizeof(*who));
	who->kind = PRINCIPAL_CLI;
	if (pw != NULL && pw->pw_name != NULL)
		snprintf(who->name, sizeof(who->name), "cli:%s", pw->pw_name);
	else
		snprintf(who->name, sizeof(who->name), "cli:uid%lu",
		    (unsigned long)getuid());
}

/* Print o on one line and release it. */
static void
print_line(struct json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* Print the keys k[0..n) as JSON lines (the admin API's objects). */
static void
print_keys(const struct api_key *k, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		print_line(qops_key_json(&k[i]));
}

/*
 * key create SLUG --name NAME | key list [SLUG] | key revoke ID.
 * Returns the exit status.
 */
static int
cmd_key(struct db *db, int argc, char *argv[])
{
	struct qops_err	 err;
	struct api_key	*k = NULL;
	char		*key;
	size_t		 n;
	int64_t		 id;

	if (argc == 5 && strcmp(argv[1], "create") == 0 &&
	    strcmp(argv[3], "--name") == 0) {
		if (qops_key_create(db, argv[2], argv[4], &key, &id, &err,
		    &cli_who) != APP_OK)
			return report(&err, argv[2]);
		printf("API key %lld of queue %s created.  It is shown only "
		    "now; keep it secret:\n", (long long)id, argv[2]);
		printf("key: %s\n", key);
		qops_secret_free(key);
		return 0;
	}
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "list") == 0) {
		if (qops_key_list(db, argc == 3 ? argv[2] : NULL, &k, &n,
		    &err, &cli_who) != APP_OK)
			return report(&err, argc == 3 ? argv[2] : NULL);
		print_keys(k, n);
		free(k);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "revoke") == 0) {
		if (parse_int64(argv[2], 1, INT64_MAX, &id) == -1) {
			fprintf(stderr, "aqueuectl: key revoke: the id is a "
			    "positive integer (see key list)\n");
			return EXIT_USAGE;
		}
		if (qops_key_revoke(db, id, &err, &cli_who) != APP_OK) {
			if (err.reason == QOPS_R_KEY_NOT_FOUND) {
				fprintf(stderr, "aqueuectl: no such API key: "
				    "%lld\n", (long long)id);
				return EXIT_FAIL;
			}
			return report(&err, NULL);
		}
		printf("ok\n");
		return 0;
	}
	usage(0);
	return EXIT_USAGE;
}

/* Print the audit rows e[0..n) as JSON lines (the API's objects). */
static void
print_audit(const struct audit_entry *e, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		print_line(qops_audit_json(&e[i]));
}

/*
 * audit [--queue SLUG] [--actor NAME] [--action A] [--limit N]: the
 * audit log, newest first.  Returns the exit status.
 */
static int
cmd_audit(struct db *db, int argc, char *argv[])
{
	struct audit_filter	 f;
	struct audit_entry	*e = NULL;
	struct qops_err		 err;
	struct queue		*q = NULL;
	const char		*slug = NULL;
	size_t			 n;
	int			 a;

	memset(&f, 0, sizeof(f));
	f.limit = 100;
	for (a = 1; a + 1 < argc; a += 2) {
		if (strcmp(argv[a], "--queue") == 0)
			slug = argv[a + 1];
		else if (strcmp(argv[a], "--actor") == 0)
			f.actor = argv[a + 1];
		else if (strcmp(argv[a], "--action") == 0)
			f.action = argv[a + 1];
		else if (strcmp(argv[a], "--limit") != 0 ||
		    parse_int64(argv[a + 1], 1, 1000, &f.limit) == -1)
			usage(0);
	}
	if (a != argc)
		usage(0);
	if (slug != NULL) {
		if (qops_get(db, slug, &q, &err) != APP_OK)
			return report(&err, slug);
		f.queue_id = q->id;
		qops_queue_free(q);
	}
	if (qops_audit_list(db, &f, &e, &n, &err, &cli_who) != APP_OK)
		return report(&err, slug);
	print_audit(e, n);
	db_audit_list_free(e, n);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cfg	 c;
	struct db	*db;
	const char	*conf = cfg_default_path(), *cmd;
	int		 ch, rc, given = 0;
	int64_t		 rate;

	log_open("aqueuectl", 0);
	while ((ch = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1)
		switch (ch) {
		case 'f':
			conf = optarg;
			given = 1;
			break;
		case 'h':
			usage(1);
			break;
		default:
			usage(0);
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(0);
	/* "aqueuectl COMMAND --help" needs no configuration either. */
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0))
		usage(1);
	/* init makes the configuration; it needs none. */
	if (strcmp(argv[0], "init") == 0)
		return ctl_init(conf, given, argc, argv);
	if (cfg_load(conf, &c) == -1) {
		fprintf(stderr, "aqueuectl: cannot use the configuration %s "
		    "(name another with -f FILE or AQUEUE_CONF)\n", conf);
		cfg_free(&c);
		return EXIT_FAIL;
	}
	cli_principal(&cli_who);
	db = db_open(&c);
	cmd = argv[0];
	if (strcmp(cmd, "migrate") == 0 && argc == 1)
		rc = cmd_migrate(db, &c);
	else if (strcmp(cmd, "create") == 0)
		rc = cmd_create(db, &c, argc, argv);
	else if (strcmp(cmd, "update") == 0)
		rc = cmd_update(db, argc, argv);
	else if (strcmp(cmd, "list") == 0)
		rc = cmd_list(db, argc, argv);
	else if (strcmp(cmd, "delete") == 0)
		rc = cmd_delete(db, argc, argv);
	else if (strcmp(cmd, "user") == 0)
		rc = ctl_user(db, &c, argc, argv, &cli_who);
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
			fprintf(stderr, "aqueuectl: bad value for rate: must "
			    "be %s\n", qops_field(QOPS_F_RATE)->rule);
			rc = EXIT_USAGE;
		} else
			rc = cmd_state(db, &c, argv[1], OP_SET_RATE, rate);
	} else if (strcmp(cmd, "key") == 0)
		rc = cmd_key(db, argc, argv);
	else if (strcmp(cmd, "audit") == 0)
		rc = cmd_audit(db, argc, argv);
	else if (strcmp(cmd, "autorate") == 0)
		rc = ctl_autorate(db, &c, argc, argv, &cli_who);
	else if (strcmp(cmd, "report") == 0)
		rc = ctl_report(db, argc, argv);
	else if (strcmp(cmd, "doctor") == 0)
		rc = ctl_doctor(db, &c, conf, argc, argv);
	else if (strcmp(cmd, "bypass") == 0)
		rc = ctl_bypass(db, argc, argv, &cli_who);
	else if (strcmp(cmd, "template") == 0)
		rc = ctl_template(db, argc, argv, &cli_who);
	else if (strcmp(cmd, "loadtest") == 0)
		rc = ctl_loadtest(db, &c, argc, argv, &cli_who);
	else
		usage(0);
	if (rc == CTL_USAGE) {
		fputs(usage_text, stderr);
		rc = EXIT_USAGE;
	}
	db_close(db);
	cfg_free(&c);
	return rc;
}

int
ctl_exit_of(int status)
{
	switch (status) {
	case 404:
		return 4;
	case 413:
	case 422:
		return 2;
	default:
		return 1;
	}
}
