/*
 * test-fcgi-guard.c - the pool's check of a FastCGI connection's first
 * records (fcgi-guard.c) before libfcgi reads them.  The streams are
 * built here by hand from the FastCGI 1.0 specification (3.3 records,
 * 3.4 name-value pairs, 5.1 BEGIN_REQUEST): the four hostile PARAMS
 * streams of CVE-2025-23016 (declared lengths that add up past INT_MAX,
 * or far past the bytes sent) are refused, at once and whole; valid
 * streams (1- and 4-byte lengths, pairs and length fields split across
 * records, padding, an empty PARAMS stream, exactly 64 KiB) pass; every
 * cut-short prefix of a valid stream asks for more.  Then the accept
 * path on real sockets: a refused connection never reaches libfcgi, a
 * valid one is read by libfcgi with its parameters, a stream arriving
 * in parts waits, a silent one times out, and the IPv4 allowlist.
 * Promise kept: a request the web server forwards is answered (valid
 * streams are handed on as they are); no hostile one ends a worker.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "aqueue.h"
#include "fcgi-guard.h"
#include "tap.h"

#define WHY_BIG	"a name-value pair declares more bytes than the " \
		"parameters may hold"
#define WHY_PAST "a name-value pair runs past the end of the parameters"
#define WHY_CUT	"a name-value pair is cut off at the end of the parameters"
#define WHY_OTHER "a record other than the request's PARAMS before its " \
		"parameters end"
#define WHY_LONG "parameters longer than 64 KiB"
#define WHY_END	"the parameters do not end within the first 80 KiB"

/* A stream being built. */
struct buf {
	uint8_t	 b[200000];
	size_t	 n;
};

static struct buf	 s;

/* Append one record: version 1, type t, request id, content, padding. */
static void
rec_v(int ver, int t, int id, const void *c, size_t len, int pad)
{
	uint8_t	*h = s.b + s.n;

	h[0] = (uint8_t)ver;
	h[1] = (uint8_t)t;
	h[2] = (uint8_t)(id >> 8);
	h[3] = (uint8_t)id;
	h[4] = (uint8_t)(len >> 8);
	h[5] = (uint8_t)len;
	h[6] = (uint8_t)pad;
	h[7] = 0;
	s.n += 8;
	if (len > 0)
		memcpy(s.b + s.n, c, len);
	s.n += len;
	memset(s.b + s.n, 0, (size_t)pad);
	s.n += (size_t)pad;
}

static void
rec(int t, const void *c, size_t len, int pad)
{
	rec_v(1, t, 1, c, len, pad);
}

/* BEGIN_REQUEST of request 1 with role, flags 0. */
static void
begin(int role)
{
	uint8_t	 body[8] = { 0 };

	s.n = 0;
	body[0] = (uint8_t)(role >> 8);
	body[1] = (uint8_t)role;
	rec(1, body, sizeof(body), 0);
}

/* Put a name-value length at p: 1 byte, or 4 when four is set. */
static size_t
put_len(uint8_t *p, uint32_t v, int four)
{
	if (!four) {
		p[0] = (uint8_t)v;
		return 1;
	}
	p[0] = (uint8_t)((v >> 24) | 0x80);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return 4;
}

/* One encoded pair into p; returns its size. */
static size_t
pair(uint8_t *p, const char *name, const char *value, int four)
{
	size_t	 n = 0, nl = strlen(name), vl = strlen(value);

	n += put_len(p + n, (uint32_t)nl, four || nl > 127);
	n += put_len(p + n, (uint32_t)vl, four || vl > 127);
	memcpy(p + n, name, nl);
	n += nl;
	memcpy(p + n, value, vl);
	return n + vl;
}

static enum fcgi_guard
check(const char **why)
{
	return fcgi_guard_check(s.b, s.n, why);
}

/* The hostile stream of CVE-2025-23016 with lengths nl and vl. */
static void
hostile(uint32_t nl, uint32_t vl)
{
	uint8_t	 c[24];
	size_t	 n;

	begin(1);
	n = put_len(c, nl, 1);
	n += put_len(c + n, vl, 1);
	memset(c + n, 'A', 16);
	rec(4, c, n + 16, 0);
	rec(4, NULL, 0, 0);
	rec(5, NULL, 0, 0);
}

static void
test_hostile(void)
{
	static const uint32_t	 cases[][2] = {
		{ 0x7fffffff, 0x7fffffff }, { 0x7ffffff0, 0x10 },
		{ 0x10, 0x7ffffff0 }, { 1u << 20, 8 } };
	const char		*why;
	size_t			 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hostile(cases[i][0], cases[i][1]);
		is_int(check(&why), FCGI_GUARD_BAD, "C53 (%#x, %#x): refused",
		    cases[i][0], cases[i][1]);
		is_str(why, WHY_BIG, "C53 (%#x, %#x): why", cases[i][0],
		    cases[i][1]);
		/* Up to the two lengths only: refused already. */
		s.n = 16 + 8 + 8;
		is_int(check(&why), FCGI_GUARD_BAD,
		    "C53 (%#x, %#x): refused from its lengths alone",
		    cases[i][0], cases[i][1]);
	}
}

/* A valid request's PARAMS: GET /queue/demo/status, 1-byte lengths. */
static size_t
get_params(uint8_t *c)
{
	size_t	 n = 0;

	n += pair(c + n, "REQUEST_METHOD", "GET", 0);
	n += pair(c + n, "REQUEST_URI", "/queue/demo/status?number=1", 0);
	n += pair(c + n, "QUERY_STRING", "number=1", 0);
	n += pair(c + n, "CONTENT_LENGTH", "", 0);
	return n;
}

/* Every prefix of s shorter than upto: "more"; returns how many not. */
static int
prefixes_more(size_t upto)
{
	size_t	 k;
	int	 bad = 0;

	for (k = 0; k < upto; k++)
		if (fcgi_guard_check(s.b, k, NULL) != FCGI_GUARD_MORE)
			bad++;
	return bad;
}

static void
test_valid(void)
{
	static uint8_t	 c[70000];
	static char	 big[300], name[201];
	const char	*why = "x";
	size_t		 n, full, cut;

	/* 1-byte lengths, one record, padded to 8. */
	begin(1);
	n = get_params(c);
	rec(4, c, n, (int)((8 - n % 8) % 8));
	rec(4, NULL, 0, 0);
	full = s.n;
	rec(5, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_OK, "1-byte lengths: accepted");
	ok(why == NULL, "1-byte lengths: no reason");
	is_int(prefixes_more(full), 0,
	    "1-byte lengths: each of the %zu shorter prefixes needs more",
	    full);
	s.n = full;
	is_int(check(NULL), FCGI_GUARD_OK,
	    "ends with the empty PARAMS header: accepted");

	/* 4-byte lengths: long ones, and a short one in the long form. */
	memset(big, 'v', sizeof(big) - 1);
	memset(name, 'N', sizeof(name) - 1);
	memcpy(name, "HTTP_X_", 7);
	begin(1);
	n = pair(c, name, big, 0);
	n += pair(c + n, "REQUEST_METHOD", "GET", 1);
	rec(4, c, n, 3);
	rec(4, NULL, 0, 0);
	full = s.n;
	is_int(check(NULL), FCGI_GUARD_OK, "4-byte lengths: accepted");
	is_int(prefixes_more(full), 0,
	    "4-byte lengths: each of the %zu shorter prefixes needs more",
	    full);

	/*
	 * Split across records: a value after 5 of its bytes, a 4-byte
	 * length after 2 of its bytes, a name-value pair's two lengths.
	 */
	begin(2);
	n = pair(c, "HTTP_COOKIE", "aq=0123456789", 0);
	n += pair(c + n, "REQUEST_METHOD", "POST", 1);
	rec(4, c, 2 + 11 + 5, 0);
	cut = 2 + 11 + 5;
	rec(4, c + cut, 8 + 2, 6);
	cut += 10;
	rec(4, c + cut, n - cut, 1);
	rec(4, NULL, 0, 0);
	full = s.n;
	is_int(check(NULL), FCGI_GUARD_OK,
	    "pairs and a length split across records (role 2): accepted");
	is_int(prefixes_more(full), 0,
	    "split: each of the %zu shorter prefixes needs more", full);

	/* No parameters at all. */
	begin(1);
	rec(4, NULL, 0, 0);
	is_int(check(NULL), FCGI_GUARD_OK, "empty PARAMS stream: accepted");
	is_int(s.n, 24, "empty PARAMS stream: 24 bytes");

	/* Role 3, a padded empty PARAMS record at the end. */
	begin(3);
	rec(4, NULL, 0, 8);
	is_int(check(NULL), FCGI_GUARD_OK, "role 3: accepted");

	/* Exactly 64 KiB of parameters in two records. */
	begin(1);
	n = put_len(c, 10, 1);
	n += put_len(c + n, 65536 - 8 - 10, 1);
	memset(c + n, 'x', 65536 - n);
	rec(4, c, 40000, 0);
	rec(4, c + 40000, 65536 - 40000, 0);
	rec(4, NULL, 0, 0);
	is_int(check(NULL), FCGI_GUARD_OK, "exactly 64 KiB: accepted");
	/* The same pair declaring one byte more. */
	begin(1);
	n = put_len(c, 10, 1);
	n += put_len(c + n, 65536 - 8 - 10 + 1, 1);
	rec(4, c, 40000, 0);
	rec(4, c + 40000, 65536 - 40000, 0);
	rec(4, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_BAD,
	    "a pair one byte longer than 64 KiB allow: refused");
	is_str(why, WHY_BIG, "one byte over: why");
	/* 65537 bytes of parameters (empty pairs after the first). */
	memset(c, 0, sizeof(c));
	begin(1);
	n = pair(c, "A", "B", 0);
	rec(4, c, 40000, 0);
	rec(4, c, 25537, 0);
	rec(4, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_BAD, "65537 bytes: refused");
	is_str(why, WHY_LONG, "65537 bytes: why");
}

/*
 * BEGIN_REQUEST with 32 bytes of padding that are not there, then the
 * PARAMS record (0x10, 0x7ffffff0) and the empty PARAMS and STDIN.
 */
static const uint8_t	 padded_begin[64] = {
	1, 1, 0, 1, 0, 8, 32, 0, 0, 1, 0, 0, 0, 0, 0, 0,
	1, 4, 0, 1, 0, 24, 0, 0, 0x80, 0, 0, 0x10, 0xff, 0xff, 0xff, 0xf0,
	'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A',
	'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A',
	1, 4, 0, 1, 0, 0, 0, 0, 1, 5, 0, 1, 0, 0, 0, 0
};

/* PARAMS content, then the end of the stream: what the check says. */
static const struct {
	const char	*name;
	uint8_t		 c[4];
	size_t		 n;
	enum fcgi_guard	 want;
	const char	*why;
} ends[] = {
	{ "name length 5, 2 bytes", { 5, 0, 'A', 'B' }, 4, FCGI_GUARD_BAD,
	    WHY_PAST },
	{ "a pair that just fits", { 1, 1, 'A', 'B' }, 4, FCGI_GUARD_OK,
	    NULL },
	{ "a 4-byte length cut off", { 0x80, 0 }, 2, FCGI_GUARD_BAD, WHY_CUT },
	{ "no value length", { 0 }, 1, FCGI_GUARD_BAD, WHY_CUT },
};

static void
test_malformed(void)
{
	uint8_t		 c[300];
	const char	*why;
	size_t		 i, n;

	begin(1);
	s.b[0] = 2;
	is_int(check(&why), FCGI_GUARD_BAD, "version 2: refused");
	is_str(why, "not FastCGI version 1", "version 2: why");
	is_int(fcgi_guard_check(s.b, 1, NULL), FCGI_GUARD_BAD,
	    "version 2: refused from its first byte");

	s.n = 0;
	rec(4, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_BAD, "PARAMS first: refused");
	is_str(why, "the first record is not BEGIN_REQUEST",
	    "PARAMS first: why");

	s.n = 0;
	memset(c, 0, 8);
	c[1] = 1;
	rec_v(1, 1, 0, c, 8, 0);
	is_int(check(&why), FCGI_GUARD_BAD, "request id 0: refused");
	is_str(why, "BEGIN_REQUEST with request id 0 or a body not of 8 "
	    "bytes", "request id 0: why");
	s.n = 0;
	rec(1, c, 9, 7);
	is_int(check(NULL), FCGI_GUARD_BAD, "9-byte BEGIN body: refused");
	/*
	 * A padded BEGIN_REQUEST whose padding, for this check, would hide
	 * a C53 pair that libfcgi (which does not skip it) reads: found by
	 * fuzz-fcgi.
	 */
	s.n = sizeof(padded_begin);
	memcpy(s.b, padded_begin, s.n);
	is_int(check(&why), FCGI_GUARD_BAD, "a padded BEGIN_REQUEST: refused");
	is_str(why, "BEGIN_REQUEST with padding",
	    "a padded BEGIN_REQUEST: why");
	is_int(fcgi_guard_check(s.b, 8, NULL), FCGI_GUARD_BAD,
	    "a padded BEGIN_REQUEST: refused from its header");
	for (i = 0; i <= 4; i += 4) {
		begin((int)i);
		is_int(check(&why), FCGI_GUARD_BAD, "role %zu: refused", i);
		is_str(why, "BEGIN_REQUEST with an unknown role",
		    "role %zu: why", i);
	}

	begin(1);
	rec(5, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_BAD, "STDIN before PARAMS: refused");
	is_str(why, WHY_OTHER, "STDIN before PARAMS: why");
	begin(1);
	n = pair(c, "A", "B", 0);
	rec(4, c, n, 0);
	rec_v(1, 4, 2, c, n, 0);
	is_int(check(&why), FCGI_GUARD_BAD,
	    "PARAMS of another request id: refused");
	is_str(why, WHY_OTHER, "another request id: why");
	begin(1);
	rec_v(1, 9, 0, NULL, 0, 0);
	is_int(check(NULL), FCGI_GUARD_BAD,
	    "a management record before PARAMS: refused");
	begin(1);
	rec_v(2, 4, 1, NULL, 0, 0);
	is_int(check(&why), FCGI_GUARD_BAD, "PARAMS of version 2: refused");
	is_str(why, "a record is not FastCGI version 1",
	    "PARAMS of version 2: why");

	/* Name length 5 with 2 bytes sent, then the end. */
	/* Name length 5 with 2 bytes sent so far. */
	begin(1);
	memcpy(c, "\005\000AB", 4);
	rec(4, c, 4, 4);
	is_int(check(NULL), FCGI_GUARD_MORE, "a pair not ended yet: more");
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		begin(1);
		rec(4, ends[i].c, ends[i].n, 0);
		rec(4, NULL, 0, 0);
		is_int(check(&why), ends[i].want, "%s: %s", ends[i].name,
		    ends[i].want == FCGI_GUARD_OK ? "accepted" : "refused");
		is_str(why, ends[i].why, "%s: why", ends[i].name);
	}

	/* Records of one byte each and 255 of padding: too long. */
	begin(1);
	c[0] = 0;
	c[1] = 0;
	while (s.n < 90000)
		rec(4, c, 1, 255);
	is_int(check(&why), FCGI_GUARD_BAD, "over 80 KiB of records: refused");
	is_str(why, WHY_END, "over 80 KiB: why");
	n = 0;
	for (i = FCGI_GUARD_PEEK_MAX; i <= FCGI_GUARD_PEEK_MAX + 300; i++)
		if (fcgi_guard_check(s.b, i, NULL) == FCGI_GUARD_MORE)
			n++;
	is_int(n, 0, "never 'more' once FCGI_GUARD_PEEK_MAX bytes are there");
	is_int(fcgi_guard_check(s.b, 4000, NULL), FCGI_GUARD_MORE,
	    "the first 4000 bytes of it: more");
}

/*
 * A unix socket at path: listening (non-blocking, as the pool's) when
 * listening is set, else connected to it (the client's end).
 */
static int
unix_socket(const char *path, int listening)
{
	struct sockaddr_un	 sa;
	int			 fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (listening)
		unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    (listening ? bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(fd, 8) == -1 || fcntl(fd, F_SETFL, O_NONBLOCK) == -1 :
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* Connect to path and send the stream s; the client's end. */
static int
send_stream(const char *path)
{
	int	 fd = unix_socket(path, 0);

	if (write(fd, s.b, s.n) != (ssize_t)s.n) {
		perror("write");
		exit(1);
	}
	return fd;
}

/* Whether envp has the entry "kv". */
static int
has_env(char **envp, const char *kv)
{
	for (; envp != NULL && *envp != NULL; envp++)
		if (strcmp(*envp, kv) == 0)
			return 1;
	return 0;
}

/* What the client reads before the end (0: closed, -1: reset). */
static ssize_t
client_reads(int cfd)
{
	char	 b[64];

	return read(cfd, b, sizeof(b));
}

static void
test_accept(void)
{
	FCGX_Request	 r;
	uint8_t		 c[512];
	char		 path[64];
	int		 lfd, cfd, rc, e;
	int64_t		 t0;
	size_t		 n, half;
	pid_t		 pid;

	snprintf(path, sizeof(path), "/tmp/aq-test-guard.%ld",
	    (long)getpid());
	lfd = unix_socket(path, 1);
	FCGX_InitRequest(&r, lfd, 0);

	errno = 0;
	is_int(fcgi_guard_accept(&r, lfd, 200, NULL), -1,
	    "accept with nobody waiting: -1");
	is_int(errno, EAGAIN, "accept with nobody waiting: EAGAIN");

	/* A valid request: libfcgi reads it, parameters and all. */
	begin(1);
	n = get_params(c);
	rec(4, c, n, 0);
	rec(4, NULL, 0, 0);
	rec(5, NULL, 0, 0);
	cfd = send_stream(path);
	is_int(fcgi_guard_accept(&r, lfd, 2000, NULL), 0,
	    "a valid request: accepted");
	ok(has_env(r.envp, "REQUEST_METHOD=GET") &&
	    has_env(r.envp, "QUERY_STRING=number=1") &&
	    has_env(r.envp, "FCGI_ROLE=RESPONDER"),
	    "a valid request: libfcgi read its parameters");
	ok(r.ipcFd >= 0 && (fcntl(r.ipcFd, F_GETFD) & FD_CLOEXEC) != 0,
	    "the connection is close-on-exec");
	FCGX_FPrintF(r.out, "Status: 204 No Content\r\n\r\n");
	/* Sent all: libfcgi's close need not wait for the client. */
	shutdown(cfd, SHUT_WR);
	r.keepConnection = 0;
	FCGX_Finish_r(&r);
	is_int(r.ipcFd, -1, "finished: libfcgi closed the connection");
	ok(client_reads(cfd) > 0, "the client got an answer");
	close(cfd);

	/* The four hostile streams: closed, libfcgi never sees them. */
	hostile(0x7fffffff, 0x7fffffff);
	cfd = send_stream(path);
	errno = 0;
	rc = fcgi_guard_accept(&r, lfd, 2000, NULL);
	e = errno;
	is_int(rc, -1, "C53 stream: refused");
	is_int(e, EPROTO, "C53 stream: EPROTO");
	is_int(r.ipcFd, -1, "C53 stream: no connection handed on");
	ok(client_reads(cfd) <= 0, "C53 stream: the client sees it closed");
	close(cfd);

	/* Cut short, the client done: refused at once. */
	begin(1);
	n = get_params(c);
	rec(4, c, n, 0);
	cfd = send_stream(path);
	shutdown(cfd, SHUT_WR);
	t0 = now_ms();
	is_int(fcgi_guard_accept(&r, lfd, 5000, NULL), -1,
	    "cut short, client done: refused");
	ok(now_ms() - t0 < 1000, "cut short, client done: refused at once "
	    "(%lld ms)", (long long)(now_ms() - t0));
	close(cfd);

	/* Cut short, the client silent: refused when the wait is over. */
	cfd = send_stream(path);
	t0 = now_ms();
	is_int(fcgi_guard_accept(&r, lfd, 300, NULL), -1,
	    "cut short, client silent: refused");
	ok(now_ms() - t0 >= 300 && now_ms() - t0 < 3000,
	    "cut short, client silent: after the 300 ms wait (%lld ms)",
	    (long long)(now_ms() - t0));
	close(cfd);

	/* Arriving in two parts 150 ms apart: waited for, accepted. */
	rec(4, NULL, 0, 0);
	rec(5, NULL, 0, 0);
	half = s.n / 2;
	cfd = unix_socket(path, 0);
	if ((pid = fork()) == 0) {
		struct timespec	 ts = { 0, 150 * 1000 * 1000 };

		if (write(cfd, s.b, half) != (ssize_t)half)
			_exit(1);
		nanosleep(&ts, NULL);
		if (write(cfd, s.b + half, s.n - half) !=
		    (ssize_t)(s.n - half))
			_exit(1);
		_exit(0);
	}
	is_int(fcgi_guard_accept(&r, lfd, 2000, NULL), 0,
	    "a stream in two parts: accepted");
	ok(has_env(r.envp, "REQUEST_URI=/queue/demo/status?number=1"),
	    "a stream in two parts: libfcgi read its parameters");
	waitpid(pid, NULL, 0);
	shutdown(cfd, SHUT_WR);
	r.keepConnection = 0;
	FCGX_Finish_r(&r);
	close(cfd);
	close(lfd);
	unlink(path);
}

static int	 tcp_errno;

/*
 * A TCP connection from 127.0.0.1 against the allowlist allow: what
 * fcgi_guard_accept() returns (its errno in tcp_errno).
 */
static int
tcp_try(const char *allow)
{
	struct sockaddr_in	 sa;
	socklen_t		 sl = sizeof(sa);
	FCGX_Request		 r;
	int			 lfd, cfd, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 4) == -1 || fcntl(lfd, F_SETFL, O_NONBLOCK) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) == -1 ||
	    (cfd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(cfd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		perror("tcp");
		exit(1);
	}
	begin(1);
	rec(4, NULL, 0, 0);
	rec(5, NULL, 0, 0);
	if (write(cfd, s.b, s.n) != (ssize_t)s.n)
		exit(1);
	FCGX_InitRequest(&r, lfd, 0);
	rc = fcgi_guard_accept(&r, lfd, 2000, allow);
	tcp_errno = errno;
	close(cfd);
	if (rc == 0) {
		r.keepConnection = 0;
		FCGX_Finish_r(&r);
	}
	close(lfd);
	return rc;
}

static void
test_allow(void)
{
	is_int(tcp_try(NULL), 0, "TCP, no allowlist: accepted");
	is_int(tcp_try("10.0.0.1,127.0.0.1"), 0,
	    "TCP from 127.0.0.1, on the allowlist: accepted");
	is_int(tcp_try("10.0.0.1,127.0.0.2"), -1,
	    "TCP from 127.0.0.1, not on the allowlist: refused");
	is_int(tcp_errno, EACCES, "not on the allowlist: EACCES");
}

/* What fcgi_guard_version() prints for deb, up, old. */
static const char *
version_text(const char *deb, const char *up, int old)
{
	static char	 out[1024];
	FILE		*f;

	memset(out, 0, sizeof(out));
	if ((f = fmemopen(out, sizeof(out) - 1, "w")) == NULL)
		return "";
	fcgi_guard_version(f, deb, up, old);
	fclose(f);
	return out;
}

static void
test_version(void)
{
	is_str(version_text("2.4.2-2+deb12u1", "2.4.2", 0),
	    "libfcgi (built against): Debian package 2.4.2-2+deb12u1, "
	    "upstream 2.4.2\n", "a fixed libfcgi: one line, no warning");
	is_str(version_text("2.4.2-2", "2.4.2", 1),
	    "libfcgi (built against): Debian package 2.4.2-2, upstream "
	    "2.4.2\nwarning: this libfcgi lacks the fix for CVE-2025-23016 "
	    "(Debian 2.4.2-2+deb12u1, upstream 2.4.5); the pool's own check "
	    "of the FastCGI parameter stream is active\n",
	    "an old libfcgi: the warning names the active check");
	ok(strstr(version_text("unknown", "unknown", -1),
	    "warning: the libfcgi version is unknown") != NULL,
	    "an unknown libfcgi: a warning");
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (FCGX_Init() != 0)
		return 1;
	test_hostile();
	test_valid();
	test_malformed();
	test_accept();
	test_allow();
	test_version();
	return done_testing();
}
