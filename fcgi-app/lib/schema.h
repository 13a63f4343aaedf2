/*
 * schema.h - the database schema: apply the numbered migration files
 * (migrations/NNNN-name.sql, one statement each, forward only) that are
 * not yet recorded in schema_migrations.
 */
#ifndef SCHEMA_H
#define SCHEMA_H

#include "aqueue.h"

struct db;

/*
 * Apply, in file name order, every NNNN-name.sql of dir whose version is
 * not recorded; call applied(name, arg) after each (may be NULL).  Sets
 * *count to the number applied.  Refuses a connection that is not
 * utf8mb4.  Returns APP_OK; APP_DB_DOWN when the database does not
 * answer; APP_SYSTEM when dir or a file cannot be read; APP_DB when the
 * connection is not utf8mb4 or a migration fails (each logged, with the
 * file's name, at ERROR level).  Files applied before a failure stay
 * applied and recorded.
 */
enum app_err	 schema_migrate(struct db *, const char *dir,
		    void (*applied)(const char *name, void *arg), void *arg,
		    int *count);

#endif /* SCHEMA_H */
