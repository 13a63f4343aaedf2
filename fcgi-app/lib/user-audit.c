/*
 * user-audit.c - audit rows about console users and their log-ins (see
 * user-audit.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aqueue.h"
#include "db.h"
#include "principal.h"
#include "queue-audit.h"
#include "user-audit.h"

enum app_err
user_audit(struct db *db, const struct principal *who, const char *action,
    int64_t user_id, const char *name, const char *reason)
{
	struct audit_entry	*e;
	struct json_object	*a;
	enum app_err		 er = APP_ENOMEM;

	if ((a = json_object_new_object()) == NULL)
		return APP_ENOMEM;
	if ((e = try_calloc(1, sizeof(*e))) == NULL)
		goto out;
	json_object_object_add(a, "user", json_object_new_string(name));
	json_object_object_add(a, "userId", user_id > 0 ?
	    json_object_new_int64(user_id) : NULL);
	if (reason != NULL)
		json_object_object_add(a, "reason",
		    json_object_new_string(reason));
	snprintf(e->actor_kind, sizeof(e->actor_kind), "%s",
	    qops_principal_kind(who));
	e->actor_id = who->id;
	snprintf(e->actor_name, sizeof(e->actor_name), "%s", who->name);
	snprintf(e->action, sizeof(e->action), "%s", action);
	e->after_json = (char *)(uintptr_t)json_object_to_json_string_ext(a,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(e->client_addr, sizeof(e->client_addr), "%s", who->addr);
	er = db_audit_insert(db, e);
out:
	free(e);
	json_object_put(a);
	return er;
}

