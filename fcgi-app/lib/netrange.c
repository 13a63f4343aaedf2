/*
 * netrange.c - the address classes of outbound requests (see
 * netrange.h): the IANA Special-Purpose Address Registries, IPv4
 * (RFC 6890, 6598, 7335, 7450, 7526, 7535, 8155, 8880) and IPv6
 * (RFC 6890, 4380, 5180, 6052, 6666, 7343, 7723, 8215, 9374, 9602,
 * 9637, 9780), with multicast and the reserved rest of the IPv6 space.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "netrange.h"

#define V4(a, b, c, d)	0, { a, b, c, d }
#define V6		1

const struct net_range net_ranges[] = {
	/* IPv4, in address order. */
	{ V4(0, 0, 0, 0), 8, NET_SPECIAL, "this network" },
	{ V4(10, 0, 0, 0), 8, NET_PRIVATE, "private-use (RFC 1918)" },
	{ V4(100, 64, 0, 0), 10, NET_PRIVATE,
	    "shared address space (RFC 6598)" },
	{ V4(127, 0, 0, 0), 8, NET_PRIVATE, "loopback" },
	{ V4(169, 254, 0, 0), 16, NET_SPECIAL,
	    "link-local (cloud metadata)" },
	{ V4(172, 16, 0, 0), 12, NET_PRIVATE, "private-use (RFC 1918)" },
	{ V4(192, 0, 0, 0), 24, NET_SPECIAL,
	    "IETF protocol assignments (DS-Lite, NAT64 discovery)" },
	{ V4(192, 0, 2, 0), 24, NET_SPECIAL, "documentation (TEST-NET-1)" },
	{ V4(192, 31, 196, 0), 24, NET_SPECIAL, "AS112-v4" },
	{ V4(192, 52, 193, 0), 24, NET_SPECIAL, "AMT" },
	{ V4(192, 88, 99, 0), 24, NET_SPECIAL,
	    "6to4 relay anycast (deprecated)" },
	{ V4(192, 168, 0, 0), 16, NET_PRIVATE, "private-use (RFC 1918)" },
	{ V4(192, 175, 48, 0), 24, NET_SPECIAL,
	    "direct delegation AS112 service" },
	{ V4(198, 18, 0, 0), 15, NET_SPECIAL, "benchmarking" },
	{ V4(198, 51, 100, 0), 24, NET_SPECIAL,
	    "documentation (TEST-NET-2)" },
	{ V4(203, 0, 113, 0), 24, NET_SPECIAL,
	    "documentation (TEST-NET-3)" },
	{ V4(224, 0, 0, 0), 4, NET_SPECIAL, "multicast" },
	{ V4(240, 0, 0, 0), 4, NET_SPECIAL,
	    "reserved, limited broadcast" },
	{ V4(0, 0, 0, 0), 0, NET_PUBLIC, "public IPv4" },
	/* IPv6: the more specific first. */
	{ V6, { 0 }, 128, NET_SPECIAL, "unspecified" },
	{ V6, { [15] = 1 }, 128, NET_PRIVATE, "loopback" },
	{ V6, { [10] = 0xff, [11] = 0xff }, 96, NET_SPECIAL,
	    "IPv4-mapped" },
	{ V6, { 0 }, 96, NET_SPECIAL, "IPv4-compatible (deprecated)" },
	{ V6, { 0, 0x64, 0xff, 0x9b }, 96, NET_SPECIAL,
	    "IPv4/IPv6 translation (NAT64)" },
	{ V6, { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, NET_SPECIAL,
	    "IPv4/IPv6 translation, local use (NAT64)" },
	{ V6, { 1, 0 }, 64, NET_SPECIAL, "discard-only" },
	{ V6, { 1, 0, 0, 0, 0, 0, 0, 1 }, 64, NET_SPECIAL,
	    "dummy prefix" },
	{ V6, { 0x20, 0x01, 0x0d, 0xb8 }, 32, NET_SPECIAL,
	    "documentation" },
	{ V6, { 0x20, 0x01 }, 23, NET_SPECIAL,
	    "IETF protocol assignments (Teredo, ORCHID, AMT, "
	    "benchmarking)" },
	{ V6, { 0x20, 0x02 }, 16, NET_SPECIAL, "6to4" },
	{ V6, { 0x26, 0x20, 0x00, 0x4f, 0x80, 0x00 }, 48, NET_SPECIAL,
	    "direct delegation AS112 service" },
	{ V6, { 0x3f, 0xff }, 20, NET_SPECIAL, "documentation" },
	{ V6, { 0x20 }, 3, NET_PUBLIC, "global unicast" },
	{ V6, { 0x5f, 0x00 }, 16, NET_SPECIAL,
	    "segment routing (SRv6) SIDs" },
	{ V6, { 0xfc }, 7, NET_PRIVATE, "unique local" },
	{ V6, { 0xfe, 0x80 }, 10, NET_SPECIAL, "link-local" },
	{ V6, { 0xfe, 0xc0 }, 10, NET_SPECIAL, "site-local (deprecated)" },
	{ V6, { 0xff }, 8, NET_SPECIAL, "multicast" },
	{ V6, { 0 }, 0, NET_SPECIAL, "reserved by the IETF" },
};

const size_t	net_ranges_n = sizeof(net_ranges) / sizeof(net_ranges[0]);

/*
 * Whether the first plen bits of a and b (n bytes each) agree.  Returns
 * 1 or 0.
 */
static int
prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int plen)
{
	unsigned int	 whole = plen / 8, rest = plen % 8;
	uint8_t		 mask;

	if (memcmp(a, b, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (uint8_t)(0xff << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

/* The first range of family v6 holding a.  Can't fail. */
static const struct net_range *
lookup(int v6, const uint8_t *a)
{
	size_t	 i;

	for (i = 0; i < net_ranges_n; i++)
		if (net_ranges[i].v6 == v6 &&
		    prefix_eq(a, net_ranges[i].addr, net_ranges[i].plen))
			return &net_ranges[i];
	/* Not reached: each family ends with a prefix of length 0. */
	return &net_ranges[net_ranges_n - 1];
}

enum net_class
net_class_v4(const uint8_t a[4], const struct net_range **range)
{
	const struct net_range	*r = lookup(0, a);

	if (range != NULL)
		*range = r;
	return r->cls;
}

enum net_class
net_class_v6(const uint8_t a[16], const struct net_range **range)
{
	const struct net_range	*r = lookup(1, a);

	if (range != NULL)
		*range = r;
	return r->cls;
}

int
net_reachable(enum net_class cls, int allow_private)
{
	return cls == NET_PUBLIC || (cls == NET_PRIVATE && allow_private);
}
