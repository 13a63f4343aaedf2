/*
 * netrange.h - which addresses an outbound request of the product (the
 * auto-rate's health check) may reach: every range of the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries (RFC 6890 and its updates),
 * multicast, and the IPv6 space outside global unicast is special and
 * never reached; the private-use ranges (loopback, RFC 1918, shared
 * address space, unique local) are reached only when a queue allows its
 * private network; everything else is public.  One table, first match
 * wins, so a more specific range comes before the one holding it.
 */
#ifndef NETRANGE_H
#define NETRANGE_H

#include <stddef.h>
#include <stdint.h>

enum net_class {
	NET_PUBLIC,	/* reachable */
	NET_PRIVATE,	/* reachable only with the private network allowed */
	NET_SPECIAL	/* never reachable */
};

/* One range of the table. */
struct net_range {
	int		 v6;		/* 0: IPv4, 1: IPv6 */
	uint8_t		 addr[16];	/* network address, network order */
	unsigned int	 plen;		/* prefix length in bits */
	enum net_class	 cls;
	const char	*name;		/* what the registry calls it */
};

/* The table, in match order, and its length. */
extern const struct net_range	net_ranges[];
extern const size_t		net_ranges_n;

/*
 * The class of IPv4 address a (4 bytes, network order) or IPv6 address
 * a (16 bytes), and into *range (when not NULL) the table entry that
 * decided.  Can't fail (the table ends with a catch-all per family).
 */
enum net_class	 net_class_v4(const uint8_t a[4],
		    const struct net_range **range);
enum net_class	 net_class_v6(const uint8_t a[16],
		    const struct net_range **range);

/*
 * Whether an address of class cls may be reached, with the private
 * network allowed (allow_private 1) or not.  Returns 1 or 0.
 */
int		 net_reachable(enum net_class cls, int allow_private);

#endif /* NETRANGE_H */
