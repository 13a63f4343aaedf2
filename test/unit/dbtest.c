/*
 * dbtest.c - helpers of the unit tests that run against the real MariaDB.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <mysql.h>

#include "admission.h"
#include "dbtest.h"

int
dbtest_set_state(MYSQL *my, int64_t id, const struct adm_queue *a)
{
	static const char sql[] = "UPDATE queue SET rate_per_minute = ?, "
	    "burst = ?, anchor_number = ?, anchor_time_ms = ?, "
	    "last_number = ?, skip_count = ?, active = ?, serving_floor = ?, "
	    "claim_window_s = ?, prev_anchor_number = ?, "
	    "prev_anchor_time_ms = ?, prev_rate = ?, prev_frontier = ?, "
	    "ck_number = ?, ck_time_ms = ?, ck_expired = ?, "
	    "opens_at_ms = NULLIF(?, 0), draw_open = ?, draw_count = ? "
	    "WHERE id = ?";
	MYSQL_STMT	*st = mysql_stmt_init(my);
	MYSQL_BIND	 b[20];
	int64_t		 v[20];
	size_t		 i;
	int		 rc;

	v[0] = a->rate_per_minute;
	v[1] = a->burst;
	v[2] = a->anchor_number;
	v[3] = a->anchor_time_ms;
	v[4] = a->last_number;
	v[5] = a->skip;
	v[6] = a->active;
	v[7] = a->floor;
	v[8] = a->claim_window_s;
	v[9] = a->prev_anchor_number;
	v[10] = a->prev_anchor_time_ms;
	v[11] = a->prev_rate;
	v[12] = a->prev_frontier;
	v[13] = a->ck_number;
	v[14] = a->ck_time_ms;
	v[15] = a->ck_expired;
	v[16] = a->opens_at_ms;
	v[17] = a->draw_open;
	v[18] = a->draw_count;
	v[19] = id;
	memset(b, 0, sizeof(b));
	for (i = 0; i < 20; i++) {
		b[i].buffer_type = MYSQL_TYPE_LONGLONG;
		b[i].buffer = &v[i];
	}
	rc = st != NULL && mysql_stmt_prepare(st, sql, sizeof(sql) - 1) == 0 &&
	    mysql_stmt_bind_param(st, b) == 0 && mysql_stmt_execute(st) == 0;
	if (!rc && st != NULL)
		printf("# dbtest_set_state: %s\n", mysql_stmt_error(st));
	if (st != NULL)
		mysql_stmt_close(st);
	return rc ? 0 : -1;
}

int
dbtest_kill(MYSQL *my, unsigned long id)
{
	char	 sql[64];

	snprintf(sql, sizeof(sql), "KILL %lu", id);
	if (mysql_query(my, sql) != 0) {
		printf("# dbtest_kill: %s\n", mysql_error(my));
		return -1;
	}
	return 0;
}
