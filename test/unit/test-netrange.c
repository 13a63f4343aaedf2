/*
 * test-netrange.c - the address classes of outbound requests
 * (netrange.c) and the health URL's check of address literals
 * (health.c): one address in every range of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries, written here by hand from the
 * registries (not derived from the table under test), each never
 * reachable, also with the private network allowed; the private-use
 * ranges reachable only when allowed; and the public addresses just
 * outside each range's edges reachable.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <stdio.h>
#include <string.h>

#include "health.h"
#include "netrange.h"
#include "tap.h"

/* An address literal and its registry entry, as the registry says. */
struct sample {
	const char	*addr;
	const char	*what;
};

/* Special-purpose: never reached. */
static const struct sample special[] = {
	{ "0.0.0.0", "0.0.0.0/8 this network" },
	{ "0.255.255.254", "0.0.0.0/8 this network" },
	{ "169.254.169.254", "169.254.0.0/16 link-local (metadata)" },
	{ "169.254.0.1", "169.254.0.0/16 link-local" },
	{ "192.0.0.1", "192.0.0.0/24 IETF protocol assignments" },
	{ "192.0.0.8", "192.0.0.8/32 IPv4 dummy address" },
	{ "192.0.0.9", "192.0.0.9/32 PCP anycast" },
	{ "192.0.0.10", "192.0.0.10/32 TURN anycast" },
	{ "192.0.0.170", "192.0.0.170/32 NAT64/DNS64 discovery" },
	{ "192.0.0.255", "192.0.0.0/24 (last)" },
	{ "192.0.2.1", "192.0.2.0/24 TEST-NET-1" },
	{ "192.31.196.1", "192.31.196.0/24 AS112-v4" },
	{ "192.52.193.1", "192.52.193.0/24 AMT" },
	{ "192.88.99.1", "192.88.99.0/24 6to4 relay anycast" },
	{ "192.175.48.1", "192.175.48.0/24 direct delegation AS112" },
	{ "198.18.0.1", "198.18.0.0/15 benchmarking" },
	{ "198.19.255.254", "198.18.0.0/15 benchmarking (last)" },
	{ "198.51.100.7", "198.51.100.0/24 TEST-NET-2" },
	{ "203.0.113.9", "203.0.113.0/24 TEST-NET-3" },
	{ "224.0.0.1", "224.0.0.0/4 multicast" },
	{ "239.255.255.250", "224.0.0.0/4 multicast (SSDP)" },
	{ "240.0.0.1", "240.0.0.0/4 reserved" },
	{ "255.255.255.255", "255.255.255.255/32 limited broadcast" },
	{ "::", "::/128 unspecified" },
	{ "::ffff:127.0.0.1", "::ffff:0:0/96 IPv4-mapped" },
	{ "::ffff:8.8.8.8", "::ffff:0:0/96 IPv4-mapped (public v4)" },
	{ "::7f00:1", "::/96 IPv4-compatible" },
	{ "64:ff9b::7f00:1", "64:ff9b::/96 NAT64" },
	{ "64:ff9b::a9fe:a9fe", "64:ff9b::/96 NAT64 (metadata)" },
	{ "64:ff9b:1::1", "64:ff9b:1::/48 NAT64 local use" },
	{ "64:ff9b:1:ffff::1", "64:ff9b:1::/48 NAT64 local use (last)" },
	{ "100::1", "100::/64 discard-only" },
	{ "100:0:0:1::1", "100:0:0:1::/64 dummy prefix" },
	{ "2001::1", "2001::/32 Teredo" },
	{ "2001:1::1", "2001:1::1/128 PCP anycast" },
	{ "2001:1::2", "2001:1::2/128 TURN anycast" },
	{ "2001:2::1", "2001:2::/48 benchmarking" },
	{ "2001:3::1", "2001:3::/32 AMT" },
	{ "2001:4:112::1", "2001:4:112::/48 AS112-v6" },
	{ "2001:10::1", "2001:10::/28 ORCHID (deprecated)" },
	{ "2001:20::1", "2001:20::/28 ORCHIDv2" },
	{ "2001:30::1", "2001:30::/28 drone remote ID" },
	{ "2001:1ff::1", "2001::/23 IETF protocol assignments (last)" },
	{ "2001:db8::1", "2001:db8::/32 documentation" },
	{ "2002:7f00:1::1", "2002::/16 6to4 (loopback inside)" },
	{ "2002:c0a8:101::1", "2002::/16 6to4" },
	{ "2620:4f:8000::1", "2620:4f:8000::/48 direct delegation AS112" },
	{ "3fff::1", "3fff::/20 documentation" },
	{ "3fff:fff::1", "3fff::/20 documentation (last)" },
	{ "5f00::1", "5f00::/16 SRv6 SIDs" },
	{ "fe80::1", "fe80::/10 link-local" },
	{ "febf::1", "fe80::/10 link-local (last)" },
	{ "fec0::1", "fec0::/10 site-local (deprecated)" },
	{ "ff02::1", "ff00::/8 multicast" },
	{ "1::1", "outside 2000::/3: reserved by the IETF" },
	{ "4000::1", "outside 2000::/3: reserved by the IETF" },
	{ "e000::1", "outside 2000::/3: reserved by the IETF" },
};

/* Private-use: reached only with the private network allowed. */
static const struct sample private[] = {
	{ "10.0.0.5", "10.0.0.0/8" },
	{ "10.255.255.254", "10.0.0.0/8 (last)" },
	{ "100.64.0.1", "100.64.0.0/10 shared address space" },
	{ "100.127.255.254", "100.64.0.0/10 (last)" },
	{ "127.0.0.1", "127.0.0.0/8 loopback" },
	{ "127.255.255.254", "127.0.0.0/8 loopback (last)" },
	{ "172.16.0.1", "172.16.0.0/12" },
	{ "172.31.255.254", "172.16.0.0/12 (last)" },
	{ "192.168.1.1", "192.168.0.0/16" },
	{ "::1", "::1/128 loopback" },
	{ "fc00::1", "fc00::/7 unique local" },
	{ "fdff:ffff::1", "fc00::/7 unique local (last)" },
};

/* Public: the neighbours of the ranges above, and well-known ones. */
static const struct sample public[] = {
	{ "1.0.0.0", "after 0.0.0.0/8" },
	{ "9.255.255.255", "before 10.0.0.0/8" },
	{ "11.0.0.0", "after 10.0.0.0/8" },
	{ "100.63.255.255", "before 100.64.0.0/10" },
	{ "100.128.0.0", "after 100.64.0.0/10" },
	{ "126.255.255.255", "before 127.0.0.0/8" },
	{ "128.0.0.0", "after 127.0.0.0/8" },
	{ "169.253.255.255", "before 169.254.0.0/16" },
	{ "169.255.0.0", "after 169.254.0.0/16" },
	{ "172.15.255.255", "before 172.16.0.0/12" },
	{ "172.32.0.0", "after 172.16.0.0/12" },
	{ "191.255.255.255", "before 192.0.0.0/24" },
	{ "192.0.1.0", "after 192.0.0.0/24" },
	{ "192.0.3.0", "after 192.0.2.0/24" },
	{ "192.88.98.255", "before 192.88.99.0/24" },
	{ "192.167.255.255", "before 192.168.0.0/16" },
	{ "192.169.0.0", "after 192.168.0.0/16" },
	{ "198.17.255.255", "before 198.18.0.0/15" },
	{ "198.20.0.0", "after 198.18.0.0/15" },
	{ "198.51.99.255", "before 198.51.100.0/24" },
	{ "203.0.114.0", "after 203.0.113.0/24" },
	{ "223.255.255.255", "before 224.0.0.0/4" },
	{ "8.8.8.8", "a public resolver" },
	{ "2001:200::1", "after 2001::/23" },
	{ "2001:db7:ffff::1", "before 2001:db8::/32" },
	{ "2001:db9::1", "after 2001:db8::/32" },
	{ "2003::1", "after 2002::/16" },
	{ "2620:4f:7fff::1", "before 2620:4f:8000::/48" },
	{ "2620:4f:8001::1", "after 2620:4f:8000::/48" },
	{ "3ffe:ffff::1", "before 3fff::/20" },
	{ "2606:4700:4700::1111", "a public resolver" },
	{ "2a00:1450:4001::1", "global unicast" },
};

/* The class of literal a, through the table (v4 or v6 by its form). */
static enum net_class
class_of(const char *a, const char **name)
{
	const struct net_range	*r = NULL;
	uint8_t			 b[16];
	enum net_class		 c;

	if (inet_pton(AF_INET, a, b) == 1)
		c = net_class_v4(b, &r);
	else if (inet_pton(AF_INET6, a, b) == 1)
		c = net_class_v6(b, &r);
	else {
		*name = "(not an address)";
		return (enum net_class)-1;
	}
	*name = r->name;
	return c;
}

/* The health URL of literal a: bracketed when it is IPv6. */
static void
url_of(const char *a, char *buf, size_t n)
{
	if (strchr(a, ':') != NULL)
		snprintf(buf, n, "http://[%s]:8080/health", a);
	else
		snprintf(buf, n, "http://%s:8080/health", a);
}

/* health_addr_allowed() on the sockaddr of literal a. */
static int
addr_allowed(const char *a, int allow_private)
{
	struct sockaddr_in	 in;
	struct sockaddr_in6	 in6;

	memset(&in, 0, sizeof(in));
	memset(&in6, 0, sizeof(in6));
	if (inet_pton(AF_INET, a, &in.sin_addr) == 1) {
		in.sin_family = AF_INET;
		return health_addr_allowed((struct sockaddr *)&in,
		    allow_private);
	}
	inet_pton(AF_INET6, a, &in6.sin6_addr);
	in6.sin6_family = AF_INET6;
	return health_addr_allowed((struct sockaddr *)&in6, allow_private);
}

static void
test_special(void)
{
	const char	*name;
	char		 url[128];
	size_t		 i;

	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		is_int(class_of(special[i].addr, &name), NET_SPECIAL,
		    "%s (%s) is special: %s", special[i].addr,
		    special[i].what, name);
		url_of(special[i].addr, url, sizeof(url));
		ok(health_url_check(url, 1) != NULL,
		    "%s refused when saved, also with the private network "
		    "allowed", url);
		is_int(addr_allowed(special[i].addr, 1), 0,
		    "%s refused at connect, also with the private network "
		    "allowed", special[i].addr);
	}
}

static void
test_private(void)
{
	const char	*name;
	char		 url[128];
	size_t		 i;

	for (i = 0; i < sizeof(private) / sizeof(private[0]); i++) {
		is_int(class_of(private[i].addr, &name), NET_PRIVATE,
		    "%s (%s) is private: %s", private[i].addr,
		    private[i].what, name);
		url_of(private[i].addr, url, sizeof(url));
		ok(health_url_check(url, 0) != NULL,
		    "%s refused by default", url);
		is_str(health_url_check(url, 1), NULL,
		    "%s taken with the private network allowed", url);
		is_int(addr_allowed(private[i].addr, 0), 0,
		    "%s refused at connect by default", private[i].addr);
		is_int(addr_allowed(private[i].addr, 1), 1,
		    "%s reached with the private network allowed",
		    private[i].addr);
	}
}

static void
test_public(void)
{
	const char	*name;
	char		 url[128];
	size_t		 i;

	for (i = 0; i < sizeof(public) / sizeof(public[0]); i++) {
		is_int(class_of(public[i].addr, &name), NET_PUBLIC,
		    "%s (%s) is public: %s", public[i].addr,
		    public[i].what, name);
		url_of(public[i].addr, url, sizeof(url));
		is_str(health_url_check(url, 0), NULL, "%s taken", url);
		is_int(addr_allowed(public[i].addr, 0), 1,
		    "%s reached", public[i].addr);
	}
}

/* Every range of the table is met by one of the samples above. */
static void
test_coverage(void)
{
	const struct net_range	*r;
	const struct sample	*all[3] = { special, private, public };
	size_t			 lens[3] = {
		sizeof(special) / sizeof(special[0]),
		sizeof(private) / sizeof(private[0]),
		sizeof(public) / sizeof(public[0])
	};
	uint8_t			 b[16];
	size_t			 i, k, j;
	int			 met;

	for (i = 0; i < net_ranges_n; i++) {
		met = 0;
		for (k = 0; k < 3 && !met; k++)
			for (j = 0; j < lens[k] && !met; j++) {
				if (inet_pton(AF_INET, all[k][j].addr, b) ==
				    1) {
					(void)net_class_v4(b, &r);
				} else {
					inet_pton(AF_INET6, all[k][j].addr, b);
					(void)net_class_v6(b, &r);
				}
				met = r == &net_ranges[i];
			}
		ok(met, "range %zu (%s, /%u) has a sample", i,
		    net_ranges[i].name, net_ranges[i].plen);
	}
}

int
main(void)
{
	test_special();
	test_private();
	test_public();
	test_coverage();
	is_int(net_reachable(NET_PUBLIC, 0), 1, "public: reached");
	is_int(net_reachable(NET_PRIVATE, 0), 0, "private: not by default");
	is_int(net_reachable(NET_PRIVATE, 1), 1, "private: when allowed");
	is_int(net_reachable(NET_SPECIAL, 1), 0, "special: never");
	return done_testing();
}
