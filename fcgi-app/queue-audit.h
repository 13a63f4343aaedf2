/*
 * queue-audit.h - the helpers queue-ops.c shares with queue-audit.c:
 * the error record of an operation, the principal's rights, the audit
 * log's rows.  Not for use outside queue-ops.c and queue-audit.c; the
 * public functions of both are in queue-ops.h.
 */
#ifndef QUEUE_AUDIT_H
#define QUEUE_AUDIT_H

#include "aqueue.h"
#include "principal.h"
#include "queue-ops.h"

struct db;
struct json_object;

/* Clear *err for a new operation.  Can't fail. */
void		 qops_err_init(struct qops_err *err);

/* Record reason r (and field f, or -1) in *err.  Returns er. */
enum app_err	 qops_refuse(struct qops_err *err, enum app_err er,
		    enum qops_reason r, int f);

/*
 * Record the reason that goes with er (a failure of the db or crypto
 * layer: APP_NOTFOUND, APP_DB_DOWN, else internal) in *err.  Returns er.
 */
enum app_err	 qops_failed(struct qops_err *err, enum app_err er);

/* Refuse with QOPS_R_FORBIDDEN.  Returns APP_INVALID. */
enum app_err	 qops_forbid(struct qops_err *err);

/*
 * Whether who may do what no API key may: create and delete queues,
 * rotate secrets, manage keys.  Returns 1 or 0.
 */
int		 qops_may_manage(const struct principal *who);

/*
 * Write the audit row of action on q with every setting of the rows
 * before and after (NULL: none), for creation and deletion, inside the
 * caller's transaction.  Returns APP_OK, APP_ENOMEM, APP_DB or
 * APP_DB_DOWN.
 */
enum app_err	 qops_audit(struct db *, const struct principal *who,
		    const struct queue *q, const char *action,
		    const struct queue *before, const struct queue *after);

/*
 * Write the audit row of a change of q: the members of before
 * (qops_queue_fields() of the row before; owned by the caller) whose
 * value differs in q now, before and after, in one row.  Nothing is
 * written when none differs; with no_values (secret rotation) the row
 * is written without values.  Returns as qops_audit().
 */
enum app_err	 qops_audit_change(struct db *, const struct principal *who,
		    const struct queue *q, const char *action,
		    struct json_object *before, int no_values);

#endif /* QUEUE_AUDIT_H */
