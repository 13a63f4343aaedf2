/*
 * fcgi-guard.c - the pool's own check of a FastCGI connection's
 * BEGIN_REQUEST and PARAMS records before libfcgi parses them (see
 * fcgi-guard.h), and the accept that applies it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "aqueue.h"
#include "fcgi-guard.h"
#include "log.h"

#define HDR_LEN		8	/* FastCGI spec 3.3: FCGI_HEADER_LEN */
#define BEGIN_LEN	8	/* spec 5.1: FCGI_BeginRequestBody */
#define T_BEGIN		1	/* FCGI_BEGIN_REQUEST */
#define T_PARAMS	4	/* FCGI_PARAMS */
#define ROLE_MAX	3	/* FCGI_RESPONDER 1, AUTHORIZER 2, FILTER 3 */
#define SLEEP_MAX_MS	50	/* between looks at a stream still coming */

/* The name-value pairs of the PARAMS stream, walked across records. */
struct pairs {
	uint64_t	 pos;	/* bytes of PARAMS content walked */
	uint64_t	 skip;	/* name and value bytes still to come */
	uint32_t	 len[2];	/* nameLength, valueLength */
	int		 nlen;	/* how many of len[] are complete */
	int		 have;	/* bytes of the length field being read */
	int		 want;	/* its size, 1 or 4; 0: none begun */
};

/*
 * Walk n bytes of PARAMS content p (FastCGI spec 3.4).  Returns 0, or
 * -1 with *why set when a pair declares more name and value bytes than
 * the stream may still hold (FCGI_GUARD_PARAMS_MAX in all).
 */
static int
pairs_feed(struct pairs *s, const uint8_t *p, size_t n, const char **why)
{
	size_t	 k;

	while (n > 0) {
		if (s->skip > 0) {
			k = s->skip < n ? (size_t)s->skip : n;
			s->skip -= k;
			s->pos += k;
			p += k;
			n -= k;
			continue;
		}
		if (s->want == 0) {
			s->want = (*p & 0x80) != 0 ? 4 : 1;
			s->have = 0;
			s->len[s->nlen] = 0;
		}
		s->len[s->nlen] = (s->len[s->nlen] << 8) |
		    (s->have == 0 ? (uint32_t)(*p & 0x7f) : *p);
		s->have++;
		s->pos++;
		p++;
		n--;
		if (s->have < s->want)
			continue;
		s->want = 0;
		if (++s->nlen < 2)
			continue;
		s->nlen = 0;
		s->skip = (uint64_t)s->len[0] + s->len[1];
		if (s->skip > FCGI_GUARD_PARAMS_MAX - s->pos) {
			*why = "a name-value pair declares more bytes than the "
			    "parameters may hold";
			return -1;
		}
	}
	return 0;
}

/* The request id of the record header h. */
static unsigned int
rec_id(const uint8_t *h)
{
	return ((unsigned int)h[2] << 8) | h[3];
}

/* The content length of the record header h. */
static size_t
rec_len(const uint8_t *h)
{
	return ((size_t)h[4] << 8) | h[5];
}

/*
 * The end of the PARAMS stream: every pair complete.  Returns
 * FCGI_GUARD_OK or FCGI_GUARD_BAD (*why set).
 */
static enum fcgi_guard
pairs_end(const struct pairs *s, const char **why)
{
	if (s->skip > 0) {
		*why = "a name-value pair runs past the end of the parameters";
		return FCGI_GUARD_BAD;
	}
	if (s->want != 0 || s->nlen != 0) {
		*why = "a name-value pair is cut off at the end of the "
		    "parameters";
		return FCGI_GUARD_BAD;
	}
	return FCGI_GUARD_OK;
}

enum fcgi_guard
fcgi_guard_check(const uint8_t *b, size_t len, const char **why)
{
	struct pairs	 s;
	const uint8_t	*h;
	const char	*none;
	size_t		 off, clen, have, total = 0;
	unsigned int	 id, role;

	if (why == NULL)
		why = &none;
	*why = NULL;
	memset(&s, 0, sizeof(s));
	if (len >= 1 && b[0] != 1) {
		*why = "not FastCGI version 1";
		return FCGI_GUARD_BAD;
	}
	if (len >= 2 && b[1] != T_BEGIN) {
		*why = "the first record is not BEGIN_REQUEST";
		return FCGI_GUARD_BAD;
	}
	if (len < HDR_LEN)
		return FCGI_GUARD_MORE;
	id = rec_id(b);
	if (id == 0 || rec_len(b) != BEGIN_LEN) {
		*why = "BEGIN_REQUEST with request id 0 or a body not of 8 "
		    "bytes";
		return FCGI_GUARD_BAD;
	}
	/*
	 * libfcgi 2.4.2 does not skip this record's padding (it resets
	 * the padding before reading PARAMS): it would read the padding
	 * as the next record, not what is checked here.
	 */
	if (b[6] != 0) {
		*why = "BEGIN_REQUEST with padding";
		return FCGI_GUARD_BAD;
	}
	if (len < HDR_LEN + BEGIN_LEN)
		return FCGI_GUARD_MORE;
	role = ((unsigned int)b[HDR_LEN] << 8) | b[HDR_LEN + 1];
	if (role == 0 || role > ROLE_MAX) {
		*why = "BEGIN_REQUEST with an unknown role";
		return FCGI_GUARD_BAD;
	}
	off = HDR_LEN + BEGIN_LEN;
	for (;;) {
		if (off + HDR_LEN > FCGI_GUARD_PEEK_MAX) {
			*why = "the parameters do not end within the first "
			    "80 KiB";
			return FCGI_GUARD_BAD;
		}
		if (len < off + HDR_LEN)
			return FCGI_GUARD_MORE;
		h = b + off;
		if (h[0] != 1) {
			*why = "a record is not FastCGI version 1";
			return FCGI_GUARD_BAD;
		}
		if (h[1] != T_PARAMS || rec_id(h) != id) {
			*why = "a record other than the request's PARAMS "
			    "before its parameters end";
			return FCGI_GUARD_BAD;
		}
		clen = rec_len(h);
		if (clen == 0)
			return pairs_end(&s, why);
		if (clen > FCGI_GUARD_PARAMS_MAX - total) {
			*why = "parameters longer than 64 KiB";
			return FCGI_GUARD_BAD;
		}
		total += clen;
		if (off + HDR_LEN + clen + h[6] > FCGI_GUARD_PEEK_MAX) {
			*why = "the parameters do not end within the first "
			    "80 KiB";
			return FCGI_GUARD_BAD;
		}
		have = len - off - HDR_LEN;
		if (have > clen)
			have = clen;
		if (pairs_feed(&s, h + HDR_LEN, have, why) == -1)
			return FCGI_GUARD_BAD;
		if (len < off + HDR_LEN + clen + h[6])
			return FCGI_GUARD_MORE;
		off += HDR_LEN + clen + h[6];
	}
}

/*
 * Whether the IPv4 address a is in allow ("a,b"; NULL or "" allows
 * every address), as libfcgi's ClientAddrOK() decides.
 */
static int
addr_allowed(const struct in_addr *a, const char *allow)
{
	struct in_addr	 x;
	char		 one[INET_ADDRSTRLEN];
	size_t		 n;

	if (allow == NULL || *allow == '\0')
		return 1;
	while (*allow != '\0') {
		n = strcspn(allow, ",");
		if (n < sizeof(one)) {
			memcpy(one, allow, n);
			one[n] = '\0';
			if (inet_pton(AF_INET, one, &x) == 1 &&
			    x.s_addr == a->s_addr)
				return 1;
		}
		allow += n;
		if (*allow == ',')
			allow++;
	}
	return 0;
}

/*
 * Look at the first bytes of the connection fd (without reading them)
 * until fcgi_guard_check() decides or wait_ms ms have passed.  Returns
 * FCGI_GUARD_OK, or FCGI_GUARD_BAD with *why set.
 */
static enum fcgi_guard
peek_check(int fd, int64_t wait_ms, const char **why)
{
	static uint8_t	 buf[FCGI_GUARD_PEEK_MAX];
	struct pollfd	 pfd;
	enum fcgi_guard	 v;
	ssize_t		 n;
	int64_t		 left, until = now_ms() + wait_ms;
	int		 hup = 0, nap = 1;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
		if (n == 0) {
			*why = "the connection ended before the parameters";
			return FCGI_GUARD_BAD;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			*why = "the connection failed before the parameters "
			    "ended";
			return FCGI_GUARD_BAD;
		}
		if (n > 0) {
			v = fcgi_guard_check(buf, (size_t)n, why);
			if (v != FCGI_GUARD_MORE)
				return v;
		}
		/* The peer has finished sending: nothing more will come. */
		if (hup) {
			*why = "the connection ended before the parameters";
			return FCGI_GUARD_BAD;
		}
		if ((left = until - now_ms()) <= 0) {
			*why = "the parameters did not arrive in time";
			return FCGI_GUARD_BAD;
		}
		pfd.fd = fd;
		pfd.events = POLLIN | POLLRDHUP;
		pfd.revents = 0;
		/*
		 * Bytes already there keep POLLIN set, so a stream that is
		 * still coming is looked at again after a short nap.
		 */
		if (poll(&pfd, 1, n > 0 ? 0 : (int)left) > 0 &&
		    (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
			hup = 1;
		else if (n > 0) {
			(void)poll(NULL, 0, (int)(nap < left ? nap : left));
			nap = nap * 2 > SLEEP_MAX_MS ? SLEEP_MAX_MS : nap * 2;
		}
	}
}

int
fcgi_guard_accept(FCGX_Request *fr, int lfd, int64_t wait_ms,
    const char *allow)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*in = (struct sockaddr_in *)(void *)&ss;
	socklen_t		 sl = sizeof(ss);
	const char		*why = NULL;
	char			 ip[INET_ADDRSTRLEN];
	int			 fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if ((fd = accept4(lfd, (struct sockaddr *)(void *)&ss, &sl,
	    SOCK_CLOEXEC)) == -1)
		return -1;
	if (ss.ss_family == AF_INET) {
		/* As libfcgi: answers go out at once (no Nagle). */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if (!addr_allowed(&in->sin_addr, allow)) {
			if (inet_ntop(AF_INET, &in->sin_addr, ip,
			    sizeof(ip)) == NULL)
				snprintf(ip, sizeof(ip), "?");
			log_warnx("FastCGI connection from %s refused: not "
			    "in web-server-addrs", ip);
			close(fd);
			errno = EACCES;
			return -1;
		}
	}
	if (peek_check(fd, wait_ms, &why) != FCGI_GUARD_OK) {
		log_warnx("FastCGI connection refused before libfcgi read "
		    "it: %s", why != NULL ? why : "?");
		close(fd);
		errno = EPROTO;
		return -1;
	}
	/*
	 * libfcgi 2.4.2: FCGX_Accept_r() first finishes the open request,
	 * closing its connection unless keepConnection; it accepts only
	 * when ipcFd < 0.  It then reads BEGIN_REQUEST (which sets
	 * keepConnection from the web server's flags) and the parameters,
	 * which this check has seen complete.
	 */
	fr->listen_sock = -1;
	fr->ipcFd = fd;
	fr->keepConnection = 1;
	if (FCGX_Accept_r(fr) < 0) {
		log_warnx("FastCGI request checked but libfcgi refused it");
		return -1;
	}
	return 0;
}

void
fcgi_guard_version(FILE *f, const char *deb, const char *upstream, int old)
{
	fprintf(f, "libfcgi (built against): Debian package %s, upstream "
	    "%s\n", deb, upstream);
	if (old == 1)
		fprintf(f, "warning: this libfcgi lacks the fix for "
		    "CVE-2025-23016 (Debian 2.4.2-2+deb12u1, upstream 2.4.5); "
		    "the pool's own check of the FastCGI parameter stream is "
		    "active\n");
	else if (old != 0)
		fprintf(f, "warning: the libfcgi version is unknown (the fix "
		    "for CVE-2025-23016 is in Debian 2.4.2-2+deb12u1 and "
		    "upstream 2.4.5); the pool's own check of the FastCGI "
		    "parameter stream is active\n");
}
