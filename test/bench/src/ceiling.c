/*
 * ceiling.c - the trivial FastCGI responders the benchmark measures the
 * product against, behind the same nginx: what libfcgi and the database
 * allow at most on this machine, with nothing of the waiting room in it.
 *
 *   ceiling -s SOCKET -n PROCS [-b BYTES]
 *	answers every request with a JSON body of BYTES bytes (default
 *	160): the FastCGI ceiling of the status poll.
 *   ceiling -s SOCKET -n PROCS [-b BYTES] -d DBSOCKET -u USER -p PWFILE
 *	    -D DATABASE
 *	before answering, does the join's one-row increment, one round
 *	trip like the product's join:
 *	    UPDATE bench_counter SET n = LAST_INSERT_ID(n + 1) WHERE id = 1
 *	(prepared once per process; the number read with
 *	mysql_stmt_insert_id()) and puts the number in the body: the join
 *	ceiling.
 *
 * The parent opens SOCKET (mode 0666, for nginx's workers), forks PROCS
 * children that each run an FCGX_Accept_r() loop with one database
 * connection, and on SIGTERM or SIGINT stops them and removes SOCKET.
 * Exits 1 on a usage or set-up error, with a message on stderr.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcgiapp.h>
#include <mysql.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROCS	64

static volatile sig_atomic_t	 stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct opts {
	const char	*sock, *dbsock, *user, *pwfile, *db;
	int		 procs;
	size_t		 bytes;
};

/* read_password: the first line of PATH; NULL (message printed) on error. */
static char *
read_password(const char *path)
{
	static char	 pw[256];
	FILE		*f = fopen(path, "r");

	if (f == NULL || fgets(pw, sizeof(pw), f) == NULL) {
		fprintf(stderr, "ceiling: cannot read %s\n", path);
		if (f != NULL)
			fclose(f);
		return NULL;
	}
	fclose(f);
	pw[strcspn(pw, "\r\n")] = '\0';
	return pw;
}

/* child: one process's accept loop; returns the process's exit code. */
static int
child(const struct opts *o, int fd)
{
	static const char	 sql[] =
	    "UPDATE bench_counter SET n = LAST_INSERT_ID(n + 1) WHERE id = 1";
	FCGX_Request		 rq;
	MYSQL			*db = NULL;
	MYSQL_STMT		*st = NULL;
	char			*body;
	const char		*pw;
	unsigned long long	 number = 0;
	int			 len;

	if ((body = malloc(o->bytes + 1)) == NULL)
		return 1;
	if (o->dbsock != NULL) {
		if ((pw = read_password(o->pwfile)) == NULL)
			return 1;
		db = mysql_init(NULL);
		if (db == NULL || mysql_real_connect(db, NULL, o->user, pw,
		    o->db, 0, o->dbsock, 0) == NULL ||
		    (st = mysql_stmt_init(db)) == NULL ||
		    mysql_stmt_prepare(st, sql, sizeof(sql) - 1) != 0) {
			fprintf(stderr, "ceiling: database: %s\n",
			    db != NULL ? mysql_error(db) : "no memory");
			return 1;
		}
	}
	FCGX_InitRequest(&rq, fd, 0);
	while (!stop && FCGX_Accept_r(&rq) == 0) {
		if (st != NULL) {
			if (mysql_stmt_execute(st) != 0) {
				FCGX_FPrintF(rq.out, "Status: 503\r\n"
				    "Content-Type: application/json\r\n\r\n"
				    "{\"error\":\"database\"}\n");
				FCGX_Finish_r(&rq);
				continue;
			}
			number = mysql_stmt_insert_id(st);
		}
		/* The body: the number, padded with spaces to o->bytes. */
		len = snprintf(body, o->bytes + 1, "{\"number\":%llu}", number);
		if (len < 0)
			len = 0;
		if ((size_t)len < o->bytes) {
			memset(body + len, ' ', o->bytes - (size_t)len - 1);
			body[o->bytes - 1] = '\n';
			len = (int)o->bytes;
		}
		FCGX_FPrintF(rq.out, "Content-Type: application/json\r\n"
		    "Cache-Control: no-store\r\n\r\n");
		FCGX_PutStr(body, len, rq.out);
		FCGX_Finish_r(&rq);
	}
	if (st != NULL)
		mysql_stmt_close(st);
	if (db != NULL)
		mysql_close(db);
	free(body);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct opts		 o = { .procs = 4, .bytes = 160 };
	struct sigaction	 sa;
	pid_t			 kids[MAX_PROCS];
	int			 c, fd, i, status;

	while ((c = getopt(argc, argv, "b:D:d:n:p:s:u:")) != -1) {
		switch (c) {
		case 'b':
			o.bytes = strtoul(optarg, NULL, 10);
			break;
		case 'D':
			o.db = optarg;
			break;
		case 'd':
			o.dbsock = optarg;
			break;
		case 'n':
			o.procs = (int)strtol(optarg, NULL, 10);
			break;
		case 'p':
			o.pwfile = optarg;
			break;
		case 's':
			o.sock = optarg;
			break;
		case 'u':
			o.user = optarg;
			break;
		default:
			return 1;
		}
	}
	if (o.sock == NULL || o.procs < 1 || o.procs > MAX_PROCS ||
	    o.bytes < 32 || o.bytes > 65536 || (o.dbsock != NULL &&
	    (o.user == NULL || o.pwfile == NULL || o.db == NULL))) {
		fprintf(stderr, "usage: ceiling -s SOCKET -n PROCS [-b BYTES]"
		    " [-d DBSOCKET -u USER -p PWFILE -D DATABASE]\n");
		return 1;
	}
	if (FCGX_Init() != 0 || (fd = FCGX_OpenSocket(o.sock, 1024)) < 0) {
		fprintf(stderr, "ceiling: cannot listen on %s\n", o.sock);
		return 1;
	}
	chmod(o.sock, 0666);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < o.procs; i++) {
		if ((kids[i] = fork()) == 0)
			_exit(child(&o, fd));
		if (kids[i] < 0) {
			fprintf(stderr, "ceiling: fork: %s\n", strerror(errno));
			o.procs = i;
			stop = 1;
			break;
		}
	}
	while (!stop)
		pause();
	for (i = 0; i < o.procs; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < o.procs; i++)
		waitpid(kids[i], &status, 0);
	unlink(o.sock);
	return 0;
}
