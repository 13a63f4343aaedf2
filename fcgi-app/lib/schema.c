/*
 * schema.c - apply pending migration files in order and record them.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "db.h"
#include "log.h"
#include "schema.h"

#define MIGRATIONS_MAX	1000	/* files looked at */
#define MIGRATION_SIZE	(1024 * 1024)	/* bytes per file, at most */

/* Order migration file names.  Can't fail. */
static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Read a whole (small) file into a new string the caller frees, or NULL
 * (errno set by the failing call, or EFBIG-like sizes refused).
 */
static char *
slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    n > MIGRATION_SIZE || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Whether name is NNNN-something.sql (at least one character of name).
 * Returns 1 or 0.
 */
static int
migration_name(const char *name)
{
	size_t	 len = strlen(name);

	return len >= 10 && strspn(name, "0123456789") == 4 &&
	    name[4] == '-' && strcmp(name + len - 4, ".sql") == 0;
}

enum app_err
schema_migrate(struct db *db, const char *dir,
    void (*applied)(const char *, void *), void *arg, int *count)
{
	DIR		*d;
	struct dirent	*de;
	char		*names[MIGRATIONS_MAX], *sql, *path, num[5];
	size_t		 n = 0, i;
	int64_t		 v;
	int		 done;
	enum app_err	 er;
	const char	*cs;

	*count = 0;
	if ((er = db_ensure(db)) != APP_OK) {
		log_errorx("cannot connect to the database");
		return er;
	}
	if ((cs = db_charset(db)) == NULL || strcmp(cs, "utf8mb4") != 0) {
		log_errorx("the server refused utf8mb4 (connection uses %s)",
		    cs != NULL ? cs : "nothing");
		return APP_DB;
	}
	if ((er = db_migration_table(db)) != APP_OK)
		return er;
	if ((d = opendir(dir)) == NULL) {
		log_error("migrations %s", dir);
		return APP_SYSTEM;
	}
	while ((de = readdir(d)) != NULL && n < MIGRATIONS_MAX)
		if (migration_name(de->d_name))
			names[n++] = xstrdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), namecmp);
	for (i = 0; i < n && er == APP_OK; i++) {
		memcpy(num, names[i], 4);
		num[4] = '\0';
		v = strtol(num, NULL, 10);
		if ((er = db_migration_applied(db, v, &done)) != APP_OK)
			break;
		if (done)
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		if ((sql = slurp(path)) == NULL) {
			log_error("migration %s", path);
			er = APP_SYSTEM;
		} else if ((er = db_exec_static(db, sql)) != APP_OK ||
		    (er = db_migration_record(db, v, names[i])) != APP_OK)
			log_errorx("migration %s failed", names[i]);
		else {
			(*count)++;
			if (applied != NULL)
				applied(names[i], arg);
		}
		free(sql);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return er;
}
