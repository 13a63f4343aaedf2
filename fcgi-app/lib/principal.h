/*
 * principal.h - who asks for a change: a console user (session cookie),
 * an API key (Authorization: Bearer qak_...), the operator CLI on the
 * server, or the background worker.  The router resolves it before an
 * admin handler runs; queue operations take it to decide scope and to
 * write the audit log in the same transaction as the change.
 */
#ifndef PRINCIPAL_H
#define PRINCIPAL_H

#include <stdint.h>

enum principal_kind {
	PRINCIPAL_NONE = 0,	/* nobody: visitor endpoints */
	PRINCIPAL_USER,		/* console user, every queue */
	PRINCIPAL_KEY,		/* API key, its one queue only */
	PRINCIPAL_CLI,		/* aqueuectl on the server, every queue */
	PRINCIPAL_WORKER	/* background worker (auto-rate, draw) */
};

struct principal {
	enum principal_kind kind;
	int64_t		 id;		/* user id or key id; 0 otherwise */
	int64_t		 queue_id;	/* key: its queue; 0 = every queue */
	char		 name[128];	/* user or key name, "cli:<login>",
					   "worker"; UTF-8, for the audit */
	char		 addr[64];	/* client address (REMOTE_ADDR), or
					   "" outside a request */
};

#endif /* PRINCIPAL_H */
