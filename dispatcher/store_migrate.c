/* The store's migrations (schema/NNNN_*.sql, embedded): each applied in its own transaction
 * with its schema_migrations row and the new user_version (store_int.h, store__migrate). */
#include "dispatcher/store_int.h"

#include "dispatcher/errors.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

int store__read_user_version(sqlite3 *db, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* A migration whose SQL fails is a schema problem; but a busy, full or unreadable database is
 * reported as itself, so the operator fixes the right thing. */
int store__migration_code(int rc)
{
    int code = store__code(rc);
    if (code == MUSTER_EBUSY || code == MUSTER_EIO || code == MUSTER_ENOMEM)
        return code;
    return MUSTER_ESCHEMA;
}

static void rollback_quietly(sqlite3 *db)
{
    /* Some errors (IOERR, FULL, NOMEM) have already rolled the transaction back. */
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* Sets *found when PRAGMA foreign_key_check reports any row. */
static int foreign_key_violations(sqlite3 *db, int *found)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        *found = rc == SQLITE_ROW;
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Records migration m as applied, inside the caller's transaction. */
static int record_migration(sqlite3 *db, const struct schema_migration *m)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(
        db, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)", -1,
        &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 1, m->version);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, store__now_ms());
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return rc;
    /* PRAGMA takes no parameters; the version is an int we control. */
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", m->version);
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int store__migrate(sqlite3 *db, const struct schema_migration *table, size_t n, char *err,
                   size_t errcap)
{
    if (!db || (!table && n > 0))
        return MUSTER_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (!table[i].sql || !table[i].name || table[i].version <= 0 ||
            (i > 0 && table[i].version <= table[i - 1].version)) {
            store__msg_set(err, errcap, "migration table entry %zu is malformed or out of order",
                           i);
            return MUSTER_ESCHEMA;
        }
    }
    int highest = n ? table[n - 1].version : 0;

    /* One migration per transaction, and the version is re-read under the write lock each
     * time, so two musterd starting on one file cannot apply a migration twice. */
    for (;;) {
        int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            store__msg_set(err, errcap, "migrations: begin: %s", sqlite3_errmsg(db));
            return store__code(rc);
        }
        int cur = 0;
        rc = store__read_user_version(db, &cur);
        if (rc != SQLITE_OK) {
            store__msg_set(err, errcap, "migrations: read user_version: %s", sqlite3_errmsg(db));
            rollback_quietly(db);
            return store__code(rc);
        }
        if (cur > highest) {
            rollback_quietly(db);
            store__msg_set(err, errcap,
                           "database schema version %d is newer than this musterd supports (%d): "
                           "run a musterd at least as new as the one that wrote it, or restore a "
                           "backup taken before the upgrade",
                           cur, highest);
            return MUSTER_ESCHEMA;
        }
        size_t i = 0;
        while (i < n && table[i].version <= cur)
            i++;
        if (i == n) {
            rollback_quietly(db); /* nothing was written */
            return 0;
        }
        char *emsg = NULL;
        rc = sqlite3_exec(db, table[i].sql, NULL, NULL, &emsg);
        if (rc != SQLITE_OK) {
            store__msg_set(err, errcap,
                           "migration %s (version %d) failed: %s; database left at version %d",
                           table[i].name, table[i].version, emsg ? emsg : sqlite3_errstr(rc), cur);
            sqlite3_free(emsg);
            rollback_quietly(db);
            return store__migration_code(rc);
        }
        /* Foreign keys are off while migrating (a table rebuild needs that), so check here
         * what they would have refused. */
        int violations = 0;
        rc = foreign_key_violations(db, &violations);
        if (rc == SQLITE_OK && violations) {
            store__msg_set(
                err, errcap,
                "migration %s (version %d) leaves foreign key violations; database left at "
                "version %d",
                table[i].name, table[i].version, cur);
            rollback_quietly(db);
            return MUSTER_ESCHEMA;
        }
        if (rc == SQLITE_OK)
            rc = record_migration(db, &table[i]);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            store__msg_set(err, errcap,
                           "migration %s (version %d): recording it failed: %s; database left at "
                           "version %d",
                           table[i].name, table[i].version, sqlite3_errmsg(db), cur);
            rollback_quietly(db);
            return store__migration_code(rc);
        }
    }
}
