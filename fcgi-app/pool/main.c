/*
 * main.c - aqueue-fcgi: read the configuration, open the listen socket
 * (or take the one a web server or spawn-fcgi passed on fd 0, as the
 * FastCGI spec section 2.2 describes), load the templates, run the pool.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "cfg.h"
#include "extern.h"
#include "fcgi-guard.h"
#include "log.h"

static void
usage(void)
{
	fprintf(stderr, "usage: aqueue-fcgi [-n] [-f config] | --version\n");
	exit(2);
}

/*
 * --version: the program's version and the libfcgi it was built
 * against (recorded by configure), with a warning when that libfcgi
 * lacks the fix for CVE-2025-23016.  Can't fail.
 */
static void
version(void)
{
	printf("aqueue-fcgi %s\n", PACKAGE_VERSION);
	fcgi_guard_version(stdout, AQ_FCGI_DEB, AQ_FCGI_UPSTREAM,
	    AQ_FCGI_OLD);
}

/*
 * Refuse a listening socket handed over on fd 0 that is TCP on anything
 * but loopback while no web-server allowlist is in effect (FastCGI has
 * no authentication; spawn-fcgi -p binds every interface by default).
 * Returns 0 when acceptable, -1 (logged) otherwise.
 */
static int
fd0_check(const struct cfg *c)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*in = (struct sockaddr_in *)(void *)&ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)(void *)&ss;
	socklen_t		 len = sizeof(ss);

	if (getsockname(0, (struct sockaddr *)(void *)&ss, &len) == -1) {
		log_warn("getsockname on fd 0");
		return -1;
	}
	if (ss.ss_family == AF_UNIX || cfg_web_server_addrs(c) != NULL)
		return 0;
	if (ss.ss_family == AF_INET &&
	    (ntohl(in->sin_addr.s_addr) >> 24) == 127)
		return 0;
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
		return 0;
	log_warnx("the socket on fd 0 is reachable from other hosts, and "
	    "FastCGI has no authentication: bind it to loopback or a unix "
	    "socket, or set web-server-addrs");
	return -1;
}

/*
 * Open the configured listen socket: "unix:/path" (created with mode
 * listen-mode), "host:port" or ":port"; "" means fd 0 must already be a
 * listening socket.  Returns the descriptor or -1 (logged).
 */
static int
open_listen(const struct cfg *c)
{
	const char	*addr = c->listen;
	int		 fd;
	mode_t		 old;

	if (addr[0] == '\0') {
		if (FCGX_IsCGI()) {
			log_warnx("listen is empty but fd 0 is not a socket");
			return -1;
		}
		return fd0_check(c) == -1 ? -1 : 0;
	}
	if (strncmp(addr, "unix:", 5) == 0) {
		addr += 5;
		if (addr[0] != '/') {
			log_warnx("listen: unix socket path must be absolute");
			return -1;
		}
		old = umask(0777 & ~(mode_t)c->listen_mode);
		fd = FCGX_OpenSocket(addr, 1024);
		umask(old);
		if (fd >= 0 && chmod(addr, (mode_t)c->listen_mode) == -1) {
			log_warn("chmod %s", addr);
			close(fd);
			return -1;
		}
	} else
		fd = FCGX_OpenSocket(addr, 1024);
	if (fd < 0) {
		log_warnx("cannot listen on %s", c->listen);
		return -1;
	}
	return fd;
}

int
main(int argc, char *argv[])
{
	struct cfg	 c;
	const char	*conf = cfg_default_path();
	int		 ch, check = 0, fd, rc;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		version();
		return 0;
	}
	log_open("aqueue-fcgi", 0);
	while ((ch = getopt(argc, argv, "f:n")) != -1)
		switch (ch) {
		case 'f':
			conf = optarg;
			break;
		case 'n':
			check = 1;
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	if (cfg_load(conf, &c) == -1 || routes_init(&c) == -1) {
		cfg_free(&c);
		return 1;
	}
	/*
	 * From here on the log goes where the account can read it (a file
	 * that cannot be opened is said where the log went so far).
	 */
	if (!check)
		(void)log_to_file(c.log_file);
	if (check) {
		printf("%s: configuration ok\n", conf);
		routes_free();
		cfg_free(&c);
		return 0;
	}
	/*
	 * libfcgi reads its allowlist from the environment in FCGX_Init()
	 * and closes connections from IPv4 addresses not on it (unix
	 * sockets are not checked: their file mode guards them).
	 */
	if (c.web_server_addrs[0] != '\0' &&
	    setenv("FCGI_WEB_SERVER_ADDRS", c.web_server_addrs, 1) == -1) {
		log_warn("setenv");
		return 1;
	}
	if (FCGX_Init() != 0) {
		log_warnx("FCGX_Init failed");
		return 1;
	}
	if ((fd = open_listen(&c)) == -1) {
		routes_free();
		cfg_free(&c);
		return 1;
	}
	/* Children poll before accept, so the listener must not block. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1) {
		log_warn("fcntl");
		return 1;
	}
	pool_set_argv(argv);
	rc = pool_run(fd, conf, &c);
	routes_free();
	cfg_free(&c);
	return rc;
}
