/*
 * health.c - the health URL: its check at save time and its fetch with
 * libcurl (see health.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "aqueue.h"
#include "autorate.h"
#include "cfg.h"
#include "health.h"
#include "log.h"
#include "netrange.h"

/*
 * Whether IPv4 address a (host order) may be used: its class in the
 * table of special-purpose ranges (netrange.h).
 */
static int
v4_allowed(uint32_t a, int allow_private)
{
	uint8_t	 b[4];

	b[0] = (uint8_t)(a >> 24);
	b[1] = (uint8_t)(a >> 16);
	b[2] = (uint8_t)(a >> 8);
	b[3] = (uint8_t)a;
	return net_reachable(net_class_v4(b, NULL), allow_private);
}

/* Whether IPv6 address a may be used, as v4_allowed(). */
static int
v6_allowed(const struct in6_addr *a, int allow_private)
{
	return net_reachable(net_class_v6(a->s6_addr, NULL), allow_private);
}

int
health_addr_allowed(const struct sockaddr *sa, int allow_private)
{
	const struct sockaddr_in	*in;
	const struct sockaddr_in6	*in6;

	switch (sa->sa_family) {
	case AF_INET:
		in = (const struct sockaddr_in *)(const void *)sa;
		return v4_allowed(ntohl(in->sin_addr.s_addr), allow_private);
	case AF_INET6:
		in6 = (const struct sockaddr_in6 *)(const void *)sa;
		return v6_allowed(&in6->sin6_addr, allow_private);
	}
	return 0;
}

/*
 * Whether a DNS-style host looks numeric without being a dotted quad:
 * its last label is all digits, or it starts with "0x", or it is made
 * only of digits, dots and hex letters with a digit first (e.g.
 * "2130706433", "0177.0.0.1", "0x7f.1", "127.1").  Such hosts are read
 * as addresses by some resolvers (inet_aton) and not by others.
 */
static int
numeric_looking(const char *h)
{
	const char	*last = strrchr(h, '.');
	size_t		 i;

	last = last != NULL ? last + 1 : h;
	if (*last != '\0' && strspn(last, "0123456789") == strlen(last))
		return 1;
	for (i = 0; h[i] != '\0'; i++)
		if (h[i] == '0' && (h[i + 1] == 'x' || h[i + 1] == 'X') &&
		    (i == 0 || h[i - 1] == '.'))
			return 1;
	return 0;
}

const char *
health_url_check(const char *url, int allow_private)
{
	const char	*p, *auth, *end, *colon;
	char		 host[256];
	size_t		 i, n;
	struct in_addr	 a4;
	struct in6_addr	 a6;
	int64_t		 port;
	char		 portbuf[8];

	if (url == NULL || *url == '\0')
		return "the health URL is empty";
	n = strlen(url);
	if (n > 2048)
		return "the health URL is longer than 2048 bytes";
	for (i = 0; i < n; i++)
		if ((unsigned char)url[i] <= 0x20 ||
		    (unsigned char)url[i] >= 0x7f || url[i] == '\\')
			return "the health URL must be printable ASCII "
			    "without spaces or backslashes";
	if (strncasecmp(url, "http://", 7) == 0)
		auth = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		auth = url + 8;
	else
		return "the health URL must start with http:// or https://";
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			return "the health URL must not hold a user name or "
			    "password";
	if (*auth == '[') {
		p = memchr(auth, ']', (size_t)(end - auth));
		if (p == NULL || (size_t)(p - auth - 1) >= sizeof(host))
			return "the health URL's IPv6 address is malformed";
		memcpy(host, auth + 1, (size_t)(p - auth - 1));
		host[p - auth - 1] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1)
			return "the health URL's IPv6 address is malformed";
		colon = p + 1 < end && p[1] == ':' ? p + 1 : NULL;
		if (p + 1 < end && colon == NULL)
			return "the health URL's host is malformed";
		if (!v6_allowed(&a6, allow_private))
			return "the health URL's address is not a public "
			    "one (loopback, private, link-local, or another "
			    "special-purpose range)";
	} else {
		colon = memchr(auth, ':', (size_t)(end - auth));
		n = (size_t)((colon != NULL ? colon : end) - auth);
		if (n == 0 || n >= sizeof(host))
			return "the health URL has no host, or too long a one";
		for (i = 0; i < n; i++) {
			host[i] = (char)tolower((unsigned char)auth[i]);
			if (!isalnum((unsigned char)host[i]) &&
			    host[i] != '-' && host[i] != '.')
				return "the health URL's host may hold only "
				    "letters, digits, '-' and '.'";
		}
		host[n] = '\0';
		if (n > 1 && host[n - 1] == '.')
			host[--n] = '\0';
		if (inet_pton(AF_INET, host, &a4) == 1) {
			if (!v4_allowed(ntohl(a4.s_addr), allow_private))
				return "the health URL's address is not a "
				    "public one (loopback, private, "
				    "link-local, or another special-purpose "
				    "range)";
		} else if (numeric_looking(host)) {
			return "the health URL's host looks like an address "
			    "but is not a dotted-quad IPv4 address";
		} else if (host[0] == '.' || strstr(host, "..") != NULL) {
			return "the health URL's host is malformed";
		} else if (!allow_private && (strcmp(host, "localhost") == 0 ||
		    (n > 10 && strcmp(host + n - 10, ".localhost") == 0)))
			return "the health URL's host is localhost";
	}
	if (colon != NULL) {
		n = (size_t)(end - colon - 1);
		if (n == 0 || n >= sizeof(portbuf))
			return "the health URL's port is malformed";
		memcpy(portbuf, colon + 1, n);
		portbuf[n] = '\0';
		if (parse_int64(portbuf, 1, 65535, &port) == -1)
			return "the health URL's port must be 1 to 65535";
	}
	return NULL;
}

/* What the curl callbacks share. */
struct fetch {
	char	*buf;
	size_t	 len, cap, max;
	int	 too_large;
	int	 blocked;
	int	 allow_private;
};

/* CURLOPT_WRITEFUNCTION: keep at most f->max bytes, then stop. */
static size_t
on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct fetch	*f = arg;
	size_t		 n = size * nmemb;
	char		*nb;

	if (n > f->max - f->len) {
		f->too_large = 1;
		return 0;
	}
	if (f->len + n + 1 > f->cap) {
		f->cap = f->len + n + 1 > f->cap * 2 ? f->len + n + 1 :
		    f->cap * 2;
		if ((nb = try_malloc(f->cap)) == NULL)
			return 0;
		if (f->len > 0)
			memcpy(nb, f->buf, f->len);
		free(f->buf);
		f->buf = nb;
	}
	memcpy(f->buf + f->len, ptr, n);
	f->len += n;
	f->buf[f->len] = '\0';
	return n;
}

/*
 * CURLOPT_OPENSOCKETFUNCTION: refuse an address that is not allowed,
 * before connecting to it; the socket returned is the one curl connects
 * with, to exactly this address (no second resolution).
 */
static curl_socket_t
on_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct fetch	*f = arg;

	if (purpose != CURLSOCKTYPE_IPCXN ||
	    !health_addr_allowed(&a->addr, f->allow_private)) {
		f->blocked = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* Set ev to unknown with reason r; returns -1. */
static int
unknown(struct ar_eval *ev, const char *r)
{
	ev->state = AR_UNKNOWN;
	ev->reason = r;
	return -1;
}

/* A fetch under way (health.h). */
struct health_job {
	CURLM		*m;
	CURL		*h;
	struct fetch	 f;
	char		*url;
};

void
health_job_free(struct health_job *j)
{
	if (j == NULL)
		return;
	if (j->h != NULL) {
		if (j->m != NULL)
			curl_multi_remove_handle(j->m, j->h);
		curl_easy_cleanup(j->h);
	}
	if (j->m != NULL)
		curl_multi_cleanup(j->m);
	free(j->f.buf);
	free(j->url);
	free(j);
}

struct health_job *
health_start(const struct cfg *c, const char *url, int allow_private,
    struct ar_eval *ev)
{
	struct health_job	*j;
	CURL			*h;

	ev->response_ms = -1;
	ev->http_status = 0;
	if (health_url_check(url, allow_private) != NULL) {
		(void)unknown(ev, "blocked_address");
		return NULL;
	}
	if ((j = try_malloc(sizeof(*j))) == NULL) {
		(void)unknown(ev, "unreachable");
		return NULL;
	}
	memset(j, 0, sizeof(*j));
	j->f.max = (size_t)c->health_max_bytes;
	j->f.allow_private = allow_private;
	if ((j->url = try_strndup(url, strlen(url))) == NULL ||
	    (j->m = curl_multi_init()) == NULL ||
	    (j->h = h = curl_easy_init()) == NULL) {
		health_job_free(j);
		(void)unknown(ev, "unreachable");
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 0L);
	curl_easy_setopt(h, CURLOPT_PROXY, "");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)c->health_connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->health_timeout_ms);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)c->health_max_bytes);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &j->f);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_socket);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &j->f);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "aqueue-worker (auto-rate)");
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL);
	if (curl_multi_add_handle(j->m, h) != CURLM_OK) {
		health_job_free(j);
		(void)unknown(ev, "unreachable");
		return NULL;
	}
	return j;
}

/*
 * Judge the finished transfer of j (its result rc): as health_fetch()
 * describes.  Returns 0 with *body (the caller's), or -1 with ev set.
 */
static int
finish(struct health_job *j, CURLcode rc, char **body, size_t *len,
    struct ar_eval *ev)
{
	long		 status = 0;
	curl_off_t	 total = 0;

	curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(j->h, CURLINFO_TOTAL_TIME_T, &total);
	ev->http_status = (int)status;
	if (rc == CURLE_OK || j->f.too_large)
		ev->response_ms = (int64_t)(total / 1000);
	if (j->f.too_large || rc == CURLE_FILESIZE_EXCEEDED)
		return unknown(ev, "too_large");
	if (rc != CURLE_OK) {
		if (j->f.blocked)
			return unknown(ev, "blocked_address");
		if (rc == CURLE_OPERATION_TIMEDOUT)
			return unknown(ev, "timeout");
		log_debug("health %s: %s", j->url, curl_easy_strerror(rc));
		return unknown(ev, "unreachable");
	}
	if (status >= 300 && status < 400)
		return unknown(ev, "blocked_redirect");
	if (status < 200 || status >= 300)
		return unknown(ev, "http_status");
	if (j->f.buf == NULL && (j->f.buf = try_malloc(1)) != NULL)
		j->f.buf[0] = '\0';
	if (j->f.buf == NULL)
		return unknown(ev, "unreachable");
	*body = j->f.buf;
	*len = j->f.len;
	j->f.buf = NULL;
	return 0;
}

int
health_step(struct health_job *j, int *result, char **body, size_t *len,
    struct ar_eval *ev)
{
	CURLMsg		*msg;
	int		 running = 0, left;

	*body = NULL;
	*len = 0;
	if (curl_multi_perform(j->m, &running) != CURLM_OK) {
		*result = unknown(ev, "unreachable");
		return 1;
	}
	while ((msg = curl_multi_info_read(j->m, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE && msg->easy_handle == j->h) {
			*result = finish(j, msg->data.result, body, len, ev);
			return 1;
		}
	if (running == 0) {
		*result = unknown(ev, "unreachable");
		return 1;
	}
	return 0;
}

int
health_fetch(const struct cfg *c, const char *url, int allow_private,
    char **body, size_t *len, struct ar_eval *ev)
{
	struct health_job	*j;
	int			 result = -1;

	*body = NULL;
	*len = 0;
	if ((j = health_start(c, url, allow_private, ev)) == NULL)
		return -1;
	while (!health_step(j, &result, body, len, ev))
		(void)curl_multi_poll(j->m, NULL, 0, 100, NULL);
	health_job_free(j);
	return result;
}
