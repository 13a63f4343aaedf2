/*
 * test-dbhosts.c - the db-hosts list of a cluster (writer first): entries,
 * default port, separators, malformed entries.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "tap.h"

/* Parse list; the entries joined as "h:p;h:p", or "ERR" on -1. */
static void
entries(const char *list, char *out, size_t sz)
{
	const char	*p = list;
	char		 host[16], one[64];
	unsigned int	 port;
	int		 n;

	out[0] = '\0';
	while ((n = cfg_hosts_entry(&p, 3306, host, sizeof(host), &port)) ==
	    1) {
		snprintf(one, sizeof(one), "%s%s:%u", out[0] ? ";" : "",
		    host, port);
		strncat(out, one, sz - strlen(out) - 1);
	}
	if (n == -1)
		snprintf(out, sz, "ERR");
}

int
main(void)
{
	char	 got[256];

	entries("127.0.0.1:14661,127.0.0.1:14662,127.0.0.1:14663", got,
	    sizeof(got));
	is_str(got, "127.0.0.1:14661;127.0.0.1:14662;127.0.0.1:14663",
	    "three nodes in order");
	entries("db1, db2:3307 ,db3", got, sizeof(got));
	is_str(got, "db1:3306;db2:3307;db3:3306", "spaces, default port");
	entries("", got, sizeof(got));
	is_str(got, "", "empty list: no entry");
	entries(",,", got, sizeof(got));
	is_str(got, "", "separators only: no entry");
	entries("db1:0", got, sizeof(got));
	is_str(got, "ERR", "port 0 refused");
	entries("db1:65536", got, sizeof(got));
	is_str(got, "ERR", "port 65536 refused");
	entries("db1:x", got, sizeof(got));
	is_str(got, "ERR", "port x refused");
	entries("db1:", got, sizeof(got));
	is_str(got, "ERR", "empty port refused");
	entries(":3306", got, sizeof(got));
	is_str(got, "ERR", "empty host refused");
	entries("a-very-long-host-name:1", got, sizeof(got));
	is_str(got, "ERR", "host longer than the buffer refused");
	entries("db1:3306,db2:99999", got, sizeof(got));
	is_str(got, "ERR", "a bad second entry refused");
	return done_testing();
}
