/*
 * fcgi-guard.h - the pool's own check of a FastCGI connection's first
 * records (BEGIN_REQUEST and the PARAMS stream) before libfcgi parses
 * them: libfcgi's parameter reader trusts the name and value lengths a
 * peer declares (CVE-2025-23016; the fixed Debian build still aborts on
 * lengths that add up past INT_MAX), so a stream whose declared lengths
 * do not fit the bytes it carries never reaches it.
 */
#ifndef FCGI_GUARD_H
#define FCGI_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <fcgiapp.h>

/*
 * The most PARAMS content (bytes, all records together) a connection
 * may send: nginx sends its parameters in one record (below 64 KiB),
 * Apache and lighttpd send far less than this for any request their
 * own header limits let through.
 */
#define FCGI_GUARD_PARAMS_MAX	65536
/*
 * The most bytes from the start of the connection to the end of the
 * empty PARAMS record (the record headers and padding included): what
 * is looked at without being read.
 */
#define FCGI_GUARD_PEEK_MAX	81920
/* The longest wait for the whole parameter stream, in ms. */
#define FCGI_GUARD_WAIT_MS	2000

enum fcgi_guard {
	FCGI_GUARD_OK,		/* complete and valid: libfcgi may read it */
	FCGI_GUARD_MORE,	/* valid so far, not complete yet */
	FCGI_GUARD_BAD,		/* refused: *why says why */
	FCGI_GUARD__MAX
};

/*
 * Check the first len bytes of a FastCGI connection, b[0..len), against
 * the FastCGI 1.0 specification, section 3.3 (records: version 1, an
 * 8-byte header, contentLength and paddingLength) and 3.4 (name-value
 * pairs: a length is one byte below 0x80 or four bytes with the high
 * bit set, 31 bits), with what the pool accepts on top: the first
 * record is BEGIN_REQUEST (section 5.1: request id not 0, an 8-byte
 * body, role 1 to 3; without padding, which libfcgi 2.4.2 would read as
 * the next record), then only PARAMS records of that request id until
 * the empty one that ends the stream (section 6.2), with at most
 * FCGI_GUARD_PARAMS_MAX bytes of content, ending within
 * FCGI_GUARD_PEEK_MAX bytes; every pair's declared nameLength +
 * valueLength fits the bytes left in the PARAMS stream (pairs and
 * length fields may span records).  Bytes after the empty PARAMS record
 * (STDIN) are not looked at.
 * Returns FCGI_GUARD_OK, FCGI_GUARD_MORE (a longer prefix of the same
 * stream is needed; never when len >= FCGI_GUARD_PEEK_MAX) or
 * FCGI_GUARD_BAD with *why set to a static English phrase (why may be
 * NULL).  Pure: no allocation, no system call.
 */
enum fcgi_guard	 fcgi_guard_check(const uint8_t *b, size_t len,
		    const char **why);

/*
 * Accept one connection on the non-blocking listening socket lfd
 * (accept4(2), close-on-exec), refuse it when it is IPv4 and allow (the
 * web-server allowlist, "a,b" of IPv4 addresses, or NULL for none)
 * does not name its address (as libfcgi's own accept does with
 * FCGI_WEB_SERVER_ADDRS), look at its first records without reading
 * them (recv(2) MSG_PEEK) for up to wait_ms ms until
 * fcgi_guard_check() says OK or BAD, and on OK hand the connection to
 * libfcgi: fr (set up by FCGX_InitRequest, no request open) gets it as
 * its ipcFd and FCGX_Accept_r() reads the request; fr's listening
 * socket is set to -1, so that libfcgi never accepts a connection on
 * its own (one this check has not seen).  A refused connection is
 * closed and logged (one warning line).
 * Returns 0 with the request open in fr (finish with FCGX_Finish_r),
 * or -1: nobody was waiting (errno EAGAIN: another process took it),
 * the connection was refused, or libfcgi failed (then fr has no
 * connection).
 */
int		 fcgi_guard_accept(FCGX_Request *fr, int lfd, int64_t wait_ms,
		    const char *allow);

/*
 * Print to f what `aqueue-fcgi --version` says about the libfcgi the
 * program was built against: deb, the Debian package's version (or
 * "unknown"), upstream, the version pkg-config gave (or "unknown"), and
 * old: 1 when that build lacks the fix for CVE-2025-23016 (Debian below
 * 2.4.2-2+deb12u1, or upstream below 2.4.5), 0 when it has it, -1 when
 * neither version is known.  For old != 0 a warning line says so and
 * that the pool's own check of the parameter stream is active.  Can't
 * fail (errors of f are the caller's).
 */
void		 fcgi_guard_version(FILE *f, const char *deb,
		    const char *upstream, int old);

#endif /* FCGI_GUARD_H */
