/*
 * fuzz-fcgi.c - the FastCGI record stream the pool reads (CASES C53):
 * the input is written as it is to a connection of a listening socket,
 * libfcgi's FCGX_Accept_r() reads the records and the name-value pairs
 * of PARAMS (its ReadParams(), whose length fields a peer chooses), and
 * what the pool then takes from them is parsed: the path (req_route_path),
 * the query (req_parse_query), CONTENT_LENGTH (req_content_length).  A
 * hostile stream is refused, never a crash.
 *
 * As in the pool, the connection is taken by fcgi_guard_accept()
 * (fcgi-guard.c): it looks at the first records before libfcgi does
 * and hands libfcgi only streams whose PARAMS pairs fit the bytes sent.
 * Every input goes through it, also one that declares lengths adding up
 * past INT_MAX, on which libfcgi 2.4.2-2+deb12u1 (Debian bookworm, with
 * the fix for CVE-2025-23016) still asserts: such a stream must be
 * refused by the check, so the assert is never reached.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "extern.h"
#include "fcgi-guard.h"
#include "fuzz.h"

static int	 lfd = -1;
static char	 path[108];

int	LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_un	 sa;

	(void)argc;
	(void)argv;
	if (FCGX_Init() != 0)
		abort();
	snprintf(path, sizeof(path), "/tmp/aqueue-fuzz-fcgi.%ld",
	    (long)getpid());
	unlink(path);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if ((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 4) == -1)
		abort();
	/* The pool's listening socket does not block either. */
	if (fcntl(lfd, F_SETFL, O_NONBLOCK) == -1)
		abort();
	return 0;
}

/* What the pool takes from the parameters of r. */
static void
take(FCGX_Request *r)
{
	struct field_val	 f[FIELD__MAX];
	struct req_paths	 p;
	char			 route[512], base[REQ_BASE_MAX];
	const char		*qs;
	int64_t			 len;
	int			 absent, i;

	memset(&p, 0, sizeof(p));
	p.request_uri = FCGX_GetParam("REQUEST_URI", r->envp);
	p.redirect_uri = FCGX_GetParam("REDIRECT_URI", r->envp);
	p.script_name = FCGX_GetParam("SCRIPT_NAME", r->envp);
	p.path_info = FCGX_GetParam("PATH_INFO", r->envp);
	(void)req_route_path(&p, "", route, sizeof(route), base,
	    sizeof(base));
	memset(f, 0, sizeof(f));
	if ((qs = FCGX_GetParam("QUERY_STRING", r->envp)) != NULL)
		req_parse_query(qs, f);
	for (i = 0; i < FIELD__MAX; i++)
		free(f[i].val);
	(void)req_content_length(FCGX_GetParam("CONTENT_LENGTH", r->envp),
	    65536, &len, &absent);
	(void)req_method_of(FCGX_GetParam("REQUEST_METHOD", r->envp));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un	 sa;
	FCGX_Request		 r;
	ssize_t			 w;
	size_t			 off = 0;
	int			 c;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if ((c = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(c, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    fcntl(c, F_SETFL, O_NONBLOCK) == -1)
		abort();
	/* What the socket buffers (the reader comes after): no wait. */
	while (off < size && (w = write(c, data + off, size - off)) > 0)
		off += (size_t)w;
	shutdown(c, SHUT_WR);
	if (FCGX_InitRequest(&r, lfd, FCGI_FAIL_ACCEPT_ON_INTR) != 0)
		abort();
	/* The writer is done: a stream cut short is refused at once. */
	if (fcgi_guard_accept(&r, lfd, FCGI_GUARD_WAIT_MS, NULL) == 0)
		take(&r);
	FCGX_Finish_r(&r);
	FCGX_Free(&r, 1);
	close(c);
	return 0;
}
