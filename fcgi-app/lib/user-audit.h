/*
 * user-audit.h - the audit log's rows of what changes who can act: a
 * console user added, disabled, enabled, its password changed; log-ins
 * that succeeded, failed or were throttled, log-outs (API keys and
 * bypass codes have their rows where they change).  Each row says who,
 * when (the database's time), from which address and about which user,
 * never a password or hash.
 */
#ifndef USER_AUDIT_H
#define USER_AUDIT_H

#include <stdint.h>

#include "aqueue.h"

struct db;
struct principal;

/*
 * Write the audit row of action (e.g. "user_add", "login_failed") by
 * who about console user name (id user_id, 0 when it does not exist),
 * with reason (a short code such as "wrong_password", or NULL) in the
 * row's after part.  Inside the caller's transaction, or on its own.
 * Returns APP_OK, APP_ENOMEM, APP_DB or APP_DB_DOWN.
 */
enum app_err user_audit(struct db *, const struct principal *who,
	    const char *action, int64_t user_id, const char *name,
	    const char *reason);

#endif /* USER_AUDIT_H */
