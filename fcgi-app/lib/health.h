/*
 * health.h - the auto-rate's outbound request: a shop's health URL,
 * checked when it is saved and fetched with libcurl under strict limits
 * (CASES C20: no redirect, http and https only, every resolved address
 * checked and the connection pinned to it, timeouts, a size cap).
 */
#ifndef HEALTH_H
#define HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

struct cfg;
struct ar_eval;

/*
 * Check a health URL when it is saved: printable ASCII, at most 2048
 * bytes, scheme http or https, no userinfo, a host of letters, digits,
 * '-' and '.' or a bracketed IPv6 literal, an optional port 1..65535.
 * Refused always: a host that only looks numeric without being a
 * dotted-quad IPv4 literal ("2130706433", "0177.0.0.1", "0x7f.1"), and
 * an address literal of any special-purpose range (netrange.h: the IANA
 * registries, e.g. link-local with the cloud metadata address, the
 * documentation and benchmarking ranges, 192.0.0.0/24, NAT64, 6to4,
 * IPv4-mapped, multicast).  Refused unless allow_private: "localhost"
 * (with or without a trailing dot, or under .localhost), and loopback,
 * private (RFC 1918), shared (RFC 6598) and unique local (RFC 4193)
 * literals.  A name is not resolved here (its addresses are
 * checked on every fetch).  Returns NULL when acceptable, else a static
 * message saying why not.
 */
const char *health_url_check(const char *url, int allow_private);

/*
 * Whether the fetch may connect to address sa (AF_INET or AF_INET6),
 * with the same classes as health_url_check().  Returns 1 or 0.
 */
int	 health_addr_allowed(const struct sockaddr *sa, int allow_private);

/*
 * Fetch url once with libcurl: CURLOPT_PROTOCOLS_STR and
 * CURLOPT_REDIR_PROTOCOLS_STR "http,https", no redirects followed (a
 * 3xx is blocked_redirect), no proxy, CURLOPT_NOSIGNAL, connect and total
 * timeouts and the body cap of c (health-connect-timeout-ms,
 * health-timeout-ms, health-max-bytes: too_large), every address checked
 * by health_addr_allowed() in an open-socket callback before the
 * connect (so the checked address is the one used: blocked_address).
 * Sets ev->response_ms (time to the whole answer) and ev->http_status;
 * a non-2xx answer is http_status, no answer unreachable or timeout.
 * On success returns 0 and *body (NUL-terminated, *len bytes; the caller
 * frees it); else -1 with ev->state AR_UNKNOWN and ev->reason set.
 */
int	 health_fetch(const struct cfg *c, const char *url,
	    int allow_private, char **body, size_t *len,
	    struct ar_eval *ev);

/*
 * The same fetch without blocking, for a caller that must stay free
 * between its steps (the worker's job table, also when it runs inside
 * the FastCGI processes): health_start() sets the request up with every
 * limit above and returns it (the caller frees it with
 * health_job_free()), or NULL with ev set (a refused URL, no memory);
 * health_step() moves it on without waiting (libcurl's multi interface)
 * and returns 0 while it is under way, or 1 when it is done: then
 * *result is what health_fetch() would have returned, with *body and
 * ev as it sets them.  No step waits for the network.
 */
struct health_job;
struct health_job *health_start(const struct cfg *c, const char *url,
	    int allow_private, struct ar_eval *ev);
int	 health_step(struct health_job *, int *result, char **body,
	    size_t *len, struct ar_eval *ev);
void	 health_job_free(struct health_job *);

#endif /* HEALTH_H */
