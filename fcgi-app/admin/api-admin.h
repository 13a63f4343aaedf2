/*
 * api-admin.h - the REST admin API under /api/admin/queue/ (handlers of
 * the route table).  Every handler runs after auth_admin() set r->who;
 * every change goes through the queue operations (queue-ops.h) with it,
 * so scope and the audit log are decided there.
 */
#ifndef API_ADMIN_H
#define API_ADMIN_H

struct queue;
struct req;

/* GET /sites: {"sites":[...],"next"}; POST /sites: create (session). */
void	 api_sites(struct req *);
/* GET /audit: every queue's audit log (session only). */
void	 api_audit(struct req *);
/* GET, PATCH, DELETE /sites/<id>. */
void	 api_site_get(struct req *);
void	 api_site_patch(struct req *);
void	 api_site_delete(struct req *);
/* POST /sites/<id>/pause, /resume, /rotate-secret (session). */
void	 api_site_pause(struct req *);
void	 api_site_resume(struct req *);
void	 api_site_rotate(struct req *);
/* GET, POST /sites/<id>/keys (session); DELETE /keys/<id> (session). */
void	 api_site_keys(struct req *);
void	 api_key_revoke(struct req *);
/* GET /sites/<id>/audit: the queue's audit log. */
void	 api_site_audit(struct req *);
/*
 * Global functions (session only, an API key gets 403): GET
 * /api/admin/instances, the running pools and workers
 * {"instances":[...]} (instance_row_json()); GET /api/admin/users, the
 * console users {"users":[{"id","name","disabled","createdAt"}]} (never
 * a password hash).
 */
void	 api_instances(struct req *);
void	 api_users(struct req *);

/*
 * Read the queue of the route's ":id" for r->who into *out (free with
 * qops_queue_free()): 404 for a malformed or unknown id, 403 for an API
 * key of another queue whether it exists or not, 503 when the database
 * does not answer.  Returns 0, or -1 after answering.
 */
int	 api_site_load(struct req *, struct queue **out);

#endif /* API_ADMIN_H */
