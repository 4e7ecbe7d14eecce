/* Internals of dispatcher/store.c shared with its tests only: the migration applier. */
#ifndef MUSTER_DISPATCHER_STORE_INT_H
#define MUSTER_DISPATCHER_STORE_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

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

/* What store.c and store_migrate.c share: SQLite result codes as muster codes (a duplicate is
 * MUSTER_EEXIST, a CHECK MUSTER_EINVAL, ...), a message into a buffer, and the wall clock in
 * unix ms. */
int store__code(int rc);
void store__msg_set(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int64_t store__now_ms(void);
/* PRAGMA user_version of db into *out; a SQLite result code. */
int store__read_user_version(sqlite3 *db, int *out);
/* A migration's SQLite failure as a muster code: a busy, full or unreadable database is
 * itself, anything else a schema problem (MUSTER_ESCHEMA). */
int store__migration_code(int rc);

/* The store's connection, for tests that inspect its PRAGMAs. Owned by s; do not close it. */
sqlite3 *store__db(struct store *s);

#endif
