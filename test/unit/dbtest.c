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
	    "claim_window_s = ?, tick = ?, l_tick = ?, l_tick1 = ?, "
	    "l_tick2 = ?, pend_at_ms = ?, pend_rate = ?, pend_burst = ?, "
	    "pend_active = ?, pend_skip = ?, pend_floor = ?, claim_grid = ?, "
	    "claim_front = ?, claim_front1 = ?, claim_dead = ?, "
	    "opens_at_ms = NULLIF(?, 0), draw_open = ?, draw_count = ?, "
	    "rand_from = ?, rand_to = ?, rand_block = ? WHERE id = ?";
	MYSQL_STMT	*st = mysql_stmt_init(my);
	MYSQL_BIND	 b[30];
	int64_t		 v[30] = {
		a->rate_per_minute, a->burst, a->anchor_number,
		a->anchor_time_ms, a->last_number, a->skip, a->active,
		a->floor, a->claim_window_s, a->tick, a->l_tick, a->l_tick1,
		a->l_tick2, a->pend_at_ms, a->pend_rate, a->pend_burst,
		a->pend_active, a->pend_skip, a->pend_floor, a->claim_grid,
		a->claim_front, a->claim_front1, a->claim_dead,
		a->opens_at_ms, a->draw_open, a->draw_count, a->rand_from,
		a->rand_to, a->rand_block < 1 ? 1 : a->rand_block, id
	};
	size_t		 i;
	int		 rc;

	memset(b, 0, sizeof(b));
	for (i = 0; i < 30; i++) {
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
