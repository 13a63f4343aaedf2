/*
 * db-template.c - a queue's custom waiting-room template (see
 * db-template.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <mysqld_error.h>

#include "aqueue.h"
#include "db-private.h"
#include "db-template.h"
#include "room-tmpl.h"

enum app_err
db_template_get(struct db *db, int64_t queue_id, char **html, size_t *len,
    int *found)
{
	MYSQL_BIND	 p[1], res[1];
	unsigned long	 n = 0;
	my_bool		 isnull = 0, trunc = 0;
	enum app_err	 er;
	char		*buf;

	*html = NULL;
	*len = 0;
	*found = 0;
	/* One byte more than the limit: a longer row shows as truncated. */
	if ((buf = try_malloc(ROOM_TMPL_MAX + 2)) == NULL)
		return APP_ENOMEM;
	db_bind_int(&p[0], &queue_id);
	memset(res, 0, sizeof(res));
	res[0].buffer_type = MYSQL_TYPE_STRING;
	res[0].buffer = buf;
	res[0].buffer_length = ROOM_TMPL_MAX + 1;
	res[0].length = &n;
	res[0].is_null = &isnull;
	res[0].error = &trunc;
	if ((er = db_run(db, STMT_TEMPLATE_GET, p, res, found)) != APP_OK ||
	    !*found || isnull || trunc || n > ROOM_TMPL_MAX) {
		free(buf);
		*found = 0;
		return er;
	}
	buf[n] = '\0';
	*html = buf;
	*len = n;
	return APP_OK;
}

enum app_err
db_template_put(struct db *db, int64_t queue_id, const char *html,
    size_t len)
{
	MYSQL_BIND	 p[2];
	unsigned long	 n;
	enum app_err	 er;

	db_bind_int(&p[0], &queue_id);
	db_bind_str(&p[1], html, &n);
	n = (unsigned long)len;
	p[1].buffer_length = n;
	er = db_run(db, STMT_TEMPLATE_PUT, p, NULL, NULL);
	if (er == APP_DB && db_last_errno(db) == ER_NO_REFERENCED_ROW_2)
		return APP_NOTFOUND;
	return er;
}

enum app_err
db_template_delete(struct db *db, int64_t queue_id, int *deleted)
{
	MYSQL_BIND	 p[1];
	enum app_err	 er;

	*deleted = 0;
	db_bind_int(&p[0], &queue_id);
	if ((er = db_run(db, STMT_TEMPLATE_DELETE, p, NULL, NULL)) != APP_OK)
		return er;
	*deleted = db_affected(db, STMT_TEMPLATE_DELETE) > 0;
	return APP_OK;
}
