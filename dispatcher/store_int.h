/* Internals of dispatcher/store.c shared with its tests only: the migration applier. */
#ifndef MUSTER_DISPATCHER_STORE_INT_H
#define MUSTER_DISPATCHER_STORE_INT_H

#include <sqlite3.h>
#include <stddef.h>

#include "schema/migrations.h"

struct store;

/* Applies to db, in order, each migration of table[0..n) whose version is above the database's
 * PRAGMA user_version. Each runs in its own IMMEDIATE transaction together with its
 * schema_migrations row and the new user_version, so a failing migration leaves the database at
 * the previous version. table must be strictly increasing in version and its first migration
 * must create schema_migrations. Returns 0, or MUSTER_ESCHEMA (user_version above table's
 * highest version, a failed migration, a malformed table) or the mapped SQLite error, with a
 * message naming the versions in err. store_open calls it with the embedded schema_migrations. */
int store__migrate(sqlite3 *db, const struct schema_migration *table, size_t n, char *err,
                   size_t errcap);

/* The store's connection, for tests that inspect its PRAGMAs. Owned by s; do not close it. */
sqlite3 *store__db(struct store *s);

#endif
