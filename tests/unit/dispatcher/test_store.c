/* Tests for dispatcher/store.c: migrations, settings, queues, ledger, audit, crash safety. */
#include "dispatcher/store.h"
#include "dispatcher/store_int.h"
#include "dispatcher/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* Removes a database file and its WAL/SHM companions. */
static void db_remove(const char *path)
{
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

/* A fresh database path in the scratch directory. */
static void fresh_path(char *buf, size_t cap, const char *name)
{
    test_tmp_path(buf, cap, name);
    db_remove(buf);
}

static struct store *open_ok(const char *path, enum store_sync sync)
{
    struct store_options o = {.sync = sync};
    struct store *s = NULL;
    char err[512];
    int rc = store_open(path, &o, &s, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "store_open: %s (%s)\n", err, muster_errname(rc));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

/* One integer answered by sql on db (-1 on any failure). */
static long long query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static int highest_version(void)
{
    return schema_migrations[schema_migrations_count - 1].version;
}

/* ---- migrations ---- */

static void test_open_fresh_and_reopen(void)
{
    char path[512];
    fresh_path(path, sizeof path, "fresh.db");
    struct store *s = open_ok(path, STORE_SYNC_FULL);
    CU_ASSERT_EQUAL(store_schema_version(s), highest_version());
    sqlite3 *db = store__db(s);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA synchronous"), 2); /* FULL */
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA foreign_keys"), 1);
    CU_ASSERT(query_int(db, "PRAGMA busy_timeout") == STORE_DEFAULT_BUSY_TIMEOUT_MS);
    sqlite3_stmt *st = NULL;
    CU_ASSERT_EQUAL(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    store_close(s);

    /* Reopening applies nothing twice. */
    struct store_options o = {.sync = STORE_SYNC_NORMAL, .busy_timeout_ms = 1234};
    char err[256];
    CU_ASSERT_EQUAL_FATAL(store_open(path, &o, &s, err, sizeof err), 0);
    db = store__db(s);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA synchronous"), 1); /* NORMAL */
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA busy_timeout"), 1234);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM schema_migrations"),
                    (long long)schema_migrations_count);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), highest_version());
    store_close(s);
    store_close(NULL);
    db_remove(path);
}

static void test_newer_database_refused(void)
{
    char path[512], err[512];
    fresh_path(path, sizeof path, "newer.db");
    store_close(open_ok(path, STORE_SYNC_FULL));
    sqlite3 *db = raw_open(path);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", highest_version() + 7);
    CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    struct store *s = (struct store *)&s; /* must be reset to NULL */
    CU_ASSERT_EQUAL(store_open(path, NULL, &s, err, sizeof err), MUSTER_ESCHEMA);
    CU_ASSERT_PTR_NULL(s);
    char want[64];
    snprintf(want, sizeof want, "version %d", highest_version() + 7);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    snprintf(want, sizeof want, "(%d)", highest_version());
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    db_remove(path);
}

static void test_failed_migration_keeps_old_version(void)
{
    char path[512], err[512];
    fresh_path(path, sizeof path, "failmig.db");
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    struct schema_migration table[] = {
        schema_migrations[0],
        {900, "0900_good", "CREATE TABLE good (x INTEGER) STRICT;"},
        /* Creates a table, then fails: the table must not survive. */
        {901, "0901_bad", "CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);"},
        {902, "0902_never", "CREATE TABLE never (x INTEGER);"},
    };
    CU_ASSERT_EQUAL(store__migrate(db, table, 4, err, sizeof err), MUSTER_ESCHEMA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "0901_bad"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "version 900"));
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 900);
    CU_ASSERT_EQUAL(query_int(db, "SELECT max(version) FROM schema_migrations"), 900);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'good'"), 1);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN "
                                  "('half', 'never')"),
                    0);
    CU_ASSERT(sqlite3_get_autocommit(db));

    /* Fixed migration: applied from where it stopped. */
    table[2].sql = "CREATE TABLE half (x INTEGER);";
    CU_ASSERT_EQUAL(store__migrate(db, table, 4, err, sizeof err), 0);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 902);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM schema_migrations"), 4);

    /* Foreign keys are off while migrating, but violations are still caught. */
    struct schema_migration orphan[] = {
        schema_migrations[0],
        {950, "0950_orphan",
         "INSERT INTO queues (name, parent, created_at, updated_at)"
         " VALUES ('lost', 'no-such-parent', 1, 1);"},
    };
    CU_ASSERT_EQUAL(store__migrate(db, orphan, 2, err, sizeof err), MUSTER_ESCHEMA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "foreign key"));
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 902);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM queues WHERE name = 'lost'"), 0);

    /* A table out of order is refused before anything runs. */
    struct schema_migration bad_order[] = {table[0], table[2], table[1]};
    CU_ASSERT_EQUAL(store__migrate(db, bad_order, 3, err, sizeof err), MUSTER_ESCHEMA);
    sqlite3_close(db);
    db_remove(path);

    /* A fresh database whose first migration fails stays empty at version 0. */
    fresh_path(path, sizeof path, "failmig0.db");
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    struct schema_migration first_bad[] = {{1, "0001_bad", "CREATE TABLE t (x); SELEC 1;"}};
    CU_ASSERT_EQUAL(store__migrate(db, first_bad, 1, err, sizeof err), MUSTER_ESCHEMA);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 0);
    CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM sqlite_schema"), 0);
    sqlite3_close(db);
    db_remove(path);
}

static void test_open_errors(void)
{
    char err[512];
    struct store *s = NULL;
    CU_ASSERT_EQUAL(store_open("/nonexistent-dir/x/y.db", NULL, &s, err, sizeof err), MUSTER_EIO);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dir/x/y.db"));
    CU_ASSERT_EQUAL(store_open(NULL, NULL, &s, err, sizeof err), MUSTER_EINVAL);
    struct store_options bad = {.sync = (enum store_sync)9};
    CU_ASSERT_EQUAL(store_open(":memory:", &bad, &s, err, sizeof err), MUSTER_EINVAL);

    /* Not a database at all. */
    char path[512];
    fresh_path(path, sizeof path, "garbage.db");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < 512; i++)
        fputs("not a database ", f);
    fclose(f);
    CU_ASSERT_EQUAL(store_open(path, NULL, &s, err, sizeof err), MUSTER_ESTORE);
    CU_ASSERT_PTR_NULL(s);
    db_remove(path);

    /* Allocation failure of the store itself. */
    muster_mem_fail_after(0);
    CU_ASSERT_EQUAL(store_open(":memory:", NULL, &s, err, sizeof err), MUSTER_ENOMEM);
    muster_mem_reset();
    CU_ASSERT_PTR_NULL(s);
}

/* ---- queues ---- */

struct queue_seen {
    int n;
    char names[8][32];
    char parents[8][32];
    int64_t created[8];
    int64_t weight[8];
};

static int collect_queue(void *ud, const struct store_queue *q)
{
    struct queue_seen *seen = ud;
    if (seen->n >= 8)
        return MUSTER_ELIMIT;
    snprintf(seen->names[seen->n], 32, "%s", q->name);
    snprintf(seen->parents[seen->n], 32, "%s", q->parent ? q->parent : "-");
    seen->created[seen->n] = q->created_at;
    seen->weight[seen->n] = q->weight;
    seen->n++;
    return 0;
}

static struct store_queue queue_row(const char *name, const char *parent)
{
    return (struct store_queue){.name = name,
                                .parent = parent,
                                .weight = 1,
                                .state = "Open",
                                .queueing_strategy = "BestEffortFIFO",
                                .guarantee = "{\"cpu\":\"8\"}",
                                .gang_timeout_ms = 300000,
                                .resource_version = 1,
                                .created_at = 1000,
                                .updated_at = 1000};
}

static int count_queue(void *ud, const struct store_queue *q)
{
    (void)q;
    ++*(int *)ud;
    return 0;
}

/* A follower's connection sees the leader's commits through data_version, and nothing else
 * moves it: not its own reads, not a commit of its own. */
static void test_data_version(void)
{
    char path[512];
    fresh_path(path, sizeof path, "version.db");
    struct store *leader = open_ok(path, STORE_SYNC_FULL);
    struct store *follower = open_ok(path, STORE_SYNC_FULL);
    int64_t v0 = -1, v1 = -1, v2 = -1, v3 = -1;
    CU_ASSERT_EQUAL(store_data_version(follower, &v0), 0);
    CU_ASSERT(v0 >= 0);
    struct store_queue root = queue_row("root", NULL);
    int nq = 0;
    CU_ASSERT_EQUAL(store_queue_foreach(follower, count_queue, &nq), 0);
    CU_ASSERT_EQUAL(store_data_version(follower, &v1), 0);
    CU_ASSERT_EQUAL(v1, v0); /* reading changes nothing */
    CU_ASSERT_EQUAL(store_queue_put(leader, &root), 0);
    CU_ASSERT_EQUAL(store_data_version(follower, &v2), 0);
    CU_ASSERT_NOT_EQUAL(v2, v1); /* the other connection committed */
    CU_ASSERT_EQUAL(store_data_version(follower, &v3), 0);
    CU_ASSERT_EQUAL(v3, v2); /* and nothing since */
    int64_t l0 = -1, l1 = -1;
    CU_ASSERT_EQUAL(store_data_version(leader, &l0), 0);
    struct store_queue a = queue_row("team-a", "root");
    CU_ASSERT_EQUAL(store_queue_put(leader, &a), 0);
    CU_ASSERT_EQUAL(store_data_version(leader, &l1), 0);
    CU_ASSERT_EQUAL(l1, l0); /* its own commit does not count */
    store_close(follower);
    store_close(leader);
}

static void test_queues(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_queue root = queue_row("root", NULL);
    struct store_queue a = queue_row("team-a", "root");
    CU_ASSERT_EQUAL(store_queue_put(s, &root), 0);
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);

    /* Upsert keeps created_at, replaces the rest. */
    a.weight = 5;
    a.created_at = 9999;
    a.updated_at = 2000;
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);

    /* Children before parents inside one transaction: checked at commit. */
    struct store_queue c = queue_row("team-c", "org-x");
    struct store_queue x = queue_row("org-x", "root");
    CU_ASSERT_EQUAL(store_begin(s), 0);
    CU_ASSERT_EQUAL(store_queue_put(s, &c), 0);
    CU_ASSERT_EQUAL(store_queue_put(s, &x), 0);
    CU_ASSERT_EQUAL(store_commit(s), 0);

    struct queue_seen seen = {0};
    CU_ASSERT_EQUAL(store_queue_foreach(s, collect_queue, &seen), 0);
    /* root and default come with the schema. */
    CU_ASSERT_EQUAL_FATAL(seen.n, 5);
    CU_ASSERT_STRING_EQUAL(seen.names[0], "default");
    CU_ASSERT_STRING_EQUAL(seen.parents[0], "root");
    CU_ASSERT_STRING_EQUAL(seen.names[1], "org-x");
    CU_ASSERT_STRING_EQUAL(seen.names[2], "root");
    CU_ASSERT_STRING_EQUAL(seen.parents[2], "-");
    CU_ASSERT_STRING_EQUAL(seen.names[3], "team-a");
    CU_ASSERT_EQUAL(seen.created[3], 1000);
    CU_ASSERT_EQUAL(seen.weight[3], 5);
    CU_ASSERT_STRING_EQUAL(seen.parents[4], "org-x");

    /* A missing parent outside a transaction fails at once; nothing is written. */
    struct store_queue orphan = queue_row("orphan", "nope");
    CU_ASSERT_EQUAL(store_queue_put(s, &orphan), MUSTER_ECONFLICT);
    /* ...and inside one, at commit, which rolls everything back. */
    CU_ASSERT_EQUAL(store_begin(s), 0);
    struct store_queue b = queue_row("team-b", "root");
    CU_ASSERT_EQUAL(store_queue_put(s, &b), 0);
    CU_ASSERT_EQUAL(store_queue_put(s, &orphan), 0);
    CU_ASSERT_EQUAL(store_commit(s), MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(store_commit(s), MUSTER_EINVAL); /* nothing left open */
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_queue_foreach(s, collect_queue, &seen), 0);
    CU_ASSERT_EQUAL(seen.n, 5); /* team-b and the orphan were rolled back */

    /* Bad values, in C and by the schema. */
    struct store_queue bad = queue_row("bad", "root");
    bad.state = "Sleeping";
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "state"));
    bad = queue_row("bad", "root");
    bad.weight = 0;
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_ERANGE);
    bad = queue_row("bad", "root");
    bad.capability = "[1,2]";
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_EINVAL);
    bad.capability = "{not json";
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(strstr(store_errmsg(s), "not json"));

    /* Deletes: a parent with children is refused, leaves go, missing is ENOENT. */
    CU_ASSERT_EQUAL(store_queue_delete(s, "org-x"), MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(store_queue_delete(s, "team-c"), 0);
    CU_ASSERT_EQUAL(store_queue_delete(s, "org-x"), 0);
    CU_ASSERT_EQUAL(store_queue_delete(s, "org-x"), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(store_queue_delete(s, NULL), MUSTER_EINVAL);

    /* A callback's non-zero return stops the walk and is returned. */
    memset(&seen, 0, sizeof seen);
    seen.n = 8;
    CU_ASSERT_EQUAL(store_queue_foreach(s, collect_queue, &seen), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(store_queue_foreach(s, NULL, NULL), MUSTER_EINVAL);
    store_close(s);
}

/* ---- ledger ---- */

static struct store_ledger_row ledger_row(const char *binding, const char *state)
{
    return (struct store_ledger_row){.binding = binding,
                                     .uid = "0b3f-uid",
                                     .queue = "team-a",
                                     .request = "{\"cpu\":\"4\",\"nvidia.com/gpu\":\"8\"}",
                                     .priority = 10,
                                     .state = state,
                                     .created_at = 5000,
                                     .updated_at = 5000};
}

struct live_seen {
    int n;
    int stop_after;
    int64_t ids[16];
    char bindings[16][48];
    char states[16][16];
    char clusters[16][64];
    int64_t admitted[16];
};

static int collect_live(void *ud, const struct store_ledger_row *r)
{
    struct live_seen *seen = ud;
    if (seen->n >= 16 || (seen->stop_after && seen->n == seen->stop_after))
        return 42;
    seen->ids[seen->n] = r->id;
    snprintf(seen->bindings[seen->n], 48, "%s", r->binding);
    snprintf(seen->states[seen->n], 16, "%s", r->state);
    snprintf(seen->clusters[seen->n], 64, "%s", r->clusters);
    seen->admitted[seen->n] = r->admitted_at;
    seen->n++;
    return 0;
}

static void test_ledger_rows(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row r1 = ledger_row("ns/a", "pending");
    struct store_ledger_row r2 = ledger_row("ns/b", "pending");
    int64_t id1 = 0, id2 = 0;
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r1, &id1), 0);
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r2, &id2), 0);
    CU_ASSERT(id1 > 0 && id2 > id1);

    /* One live row per binding; the message names no value. */
    struct store_ledger_row dup = ledger_row("ns/a", "pending");
    dup.reason = "s3cr3t-token";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &dup, NULL), MUSTER_EEXIST);
    CU_ASSERT_PTR_NULL(strstr(store_errmsg(s), "s3cr3t"));
    CU_ASSERT_PTR_NULL(strstr(store_errmsg(s), "ns/a"));
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "ledger"));

    /* Admit r1: clusters and admitted_at set; reason kept (NULL). */
    struct store_ledger_row up = {.id = id1,
                                  .state = "admitted",
                                  .clusters = "[{\"name\":\"a\",\"replicas\":2}]",
                                  .admitted_at = 6000,
                                  .updated_at = 6000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    struct live_seen seen = {0};
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), 0);
    CU_ASSERT_EQUAL_FATAL(seen.n, 2);
    CU_ASSERT_EQUAL(seen.ids[0], id1);
    CU_ASSERT_STRING_EQUAL(seen.states[0], "admitted");
    CU_ASSERT_STRING_EQUAL(seen.clusters[0], "[{\"name\":\"a\",\"replicas\":2}]");
    CU_ASSERT_EQUAL(seen.admitted[0], 6000);
    CU_ASSERT_STRING_EQUAL(seen.bindings[1], "ns/b");
    CU_ASSERT_EQUAL(seen.admitted[1], 0);
    CU_ASSERT_STRING_EQUAL(seen.clusters[1], "[]");

    /* A dispatched gang that shrank: its request and clusters updated in place, with the
     * reason; a request that is not a JSON object is refused and changes nothing. */
    up = (struct store_ledger_row){.id = id1,
                                   .state = "dispatched",
                                   .clusters = "[{\"name\":\"a\",\"replicas\":1}]",
                                   .request = "{\"cpu\":\"1\"}",
                                   .reason = "scaled down from 2 to 1 replicas",
                                   .updated_at = 6500};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT request = '{\"cpu\":\"1\"}' AND reason = "
                                            "'scaled down from 2 to 1 replicas' FROM ledger "
                                            "WHERE id = 1"),
                    1);
    up.request = "[1]";
    CU_ASSERT_NOT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT request = '{\"cpu\":\"1\"}' FROM ledger "
                                            "WHERE id = 1"),
                    1);
    up = (struct store_ledger_row){.id = id1, .state = "admitted", .updated_at = 6600};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0); /* NULL request: kept */
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT request = '{\"cpu\":\"1\"}' FROM ledger "
                                            "WHERE id = 1"),
                    1);

    /* Released rows leave the live set, and free the binding for a new attempt. */
    up = (struct store_ledger_row){.id = id1, .state = "released", .updated_at = 7000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(store_ledger_insert(s, &dup, NULL), 0);
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), 0);
    CU_ASSERT_EQUAL(seen.n, 2);
    CU_ASSERT_EQUAL(seen.ids[0], id2);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT admitted_at FROM ledger WHERE id = 1"), 6000);

    /* Reviving the released row would make a second live row for ns/a. */
    up = (struct store_ledger_row){.id = id1, .state = "pending", .updated_at = 8000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EEXIST);
    up.id = 999;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_ENOENT);
    up.state = "bogus";
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EINVAL);

    /* Bad inserts. */
    struct store_ledger_row bad = ledger_row("ns/c", "flying");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &bad, NULL), MUSTER_EINVAL);
    bad = ledger_row(NULL, "pending");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &bad, NULL), MUSTER_EINVAL);
    bad = ledger_row("ns/c", "pending");
    bad.request = "[\"cpu\"]";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &bad, NULL), MUSTER_EINVAL);
    bad.request = "{}";
    bad.clusters = "{}";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &bad, NULL), MUSTER_EINVAL);

    /* Stop value and re-entry from a callback. */
    memset(&seen, 0, sizeof seen);
    seen.stop_after = 1;
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), 42);
    CU_ASSERT_EQUAL(seen.n, 1);
    store_close(s);
}

/* An update that writes no text column (a row dispatched or running), or only its clusters and
 * reason (an admission), runs one of the store's shorter statements, and leaves the row as the
 * full statement does: two rows alike, the same updates, the second forced through the full
 * statement by restating its request, end alike column for column; and each of the columns
 * written is written. */
static void test_ledger_state_update(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    int64_t ids[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        struct store_ledger_row r = ledger_row(i ? "ns/full" : "ns/short", "pending");
        r.clusters = "[{\"name\":\"a\",\"replicas\":2}]";
        r.reason = "admitted";
        r.loss = "{\"cluster\":\"a\"}";
        r.grow = "{\"cpu\":\"1\"}";
        r.mode = "resume";
        r.barrier = 1;
        r.user_dispatching = 0;
        r.attempt = 3;
        r.not_before = 4000;
        r.admitted_at = 4500;
        r.gang_lead = 1;
        CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &ids[i]), 0);
    }
    const struct store_ledger_row steps[] = {
        {.state = "dispatched",
         .updated_at = 6000,
         .dispatched_at = 6000,
         .barrier = 1,
         .user_dispatching = 1},
        {.state = "running", .updated_at = 7000, .mode = "assign", .user_dispatching = -1},
        {.state = "admitted", .updated_at = 8000, .admitted_at = 8000},
        {.state = "admitted",
         .updated_at = 8500,
         .clusters = "[{\"name\":\"b\",\"replicas\":3}]",
         .reason = "admitted again",
         .barrier = 1},
        {.state = "dispatched", .updated_at = 8600, .reason = "moved"},
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        for (int i = 0; i < 2; i++) {
            struct store_ledger_row up = steps[k];
            up.id = ids[i];
            if (i) /* what the row holds: the full statement */
                up.request = "{\"cpu\":\"4\",\"nvidia.com/gpu\":\"8\"}";
            CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
        }
        CU_ASSERT_EQUAL(query_int(store__db(s),
                                  "SELECT count(DISTINCT json_array(uid, queue, request, priority,"
                                  " state, clusters, reason, created_at, admitted_at, updated_at,"
                                  " mode, barrier, user_dispatching, attempt, not_before,"
                                  " dispatched_at, loss, grow, gang_lead)) FROM ledger"),
                        1);
    }
    CU_ASSERT_EQUAL(
        query_int(store__db(s),
                  "SELECT state = 'dispatched' AND updated_at = 8600 AND admitted_at = 8000"
                  " AND dispatched_at = 6000 AND mode = 'assign' AND barrier = 0"
                  " AND user_dispatching = 0 AND gang_lead = 1 AND attempt = 3"
                  " AND clusters = '[{\"name\":\"b\",\"replicas\":3}]' AND reason = 'moved'"
                  " AND loss IS NOT NULL AND grow IS NOT NULL FROM ledger WHERE id = 1"),
        1);
    /* the short statements' refusals are the full one's */
    struct store_ledger_row up = {.id = ids[0], .state = "running", .clusters = "{}"};
    CU_ASSERT_NOT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT state = 'dispatched' AND clusters LIKE '[%'"
                                            " FROM ledger WHERE id = 1"),
                    1);
    up = (struct store_ledger_row){.id = ids[0], .state = "pending", .updated_at = 9000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    struct store_ledger_row again = ledger_row("ns/short", "pending");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &again, NULL), MUSTER_EEXIST);
    up.id = 999;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_ENOENT);
    store_close(s);
}

static int reenter(void *ud, const struct store_ledger_row *r);

/* A binding's history: every attempt, finished ones too, oldest first; other bindings apart. */
static void test_ledger_history(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row r = ledger_row("ns/a", "pending");
    int64_t first = 0, other = 0, second = 0;
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, &first), 0);
    r.binding = "ns/ab";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, &other), 0);
    struct store_ledger_row up = {.id = first,
                                  .state = "rolledback",
                                  .clusters = "[{\"name\":\"a\",\"replicas\":2}]",
                                  .reason = "gang timeout",
                                  .admitted_at = 6000,
                                  .updated_at = 7000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    r.binding = "ns/a";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, &second), 0);

    struct live_seen seen = {0};
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/a", collect_live, &seen), 0);
    CU_ASSERT_EQUAL_FATAL(seen.n, 2);
    CU_ASSERT_EQUAL(seen.ids[0], first);
    CU_ASSERT_STRING_EQUAL(seen.states[0], "rolledback");
    CU_ASSERT_STRING_EQUAL(seen.clusters[0], "[{\"name\":\"a\",\"replicas\":2}]");
    CU_ASSERT_EQUAL(seen.admitted[0], 6000);
    CU_ASSERT_EQUAL(seen.ids[1], second);
    CU_ASSERT_STRING_EQUAL(seen.states[1], "pending");

    /* Unknown binding: no call. Stop value, bad arguments, re-entry. */
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/none", collect_live, &seen), 0);
    CU_ASSERT_EQUAL(seen.n, 0);
    seen.stop_after = 1;
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/a", collect_live, &seen), 42);
    CU_ASSERT_EQUAL(seen.n, 1);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "", collect_live, &seen), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/a", NULL, NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/a", reenter, s), MUSTER_EBUSY);
    /* The statement was reset and its binding cleared: the next walk starts afresh. */
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/ab", collect_live, &seen), 0);
    CU_ASSERT_EQUAL(seen.n, 1);
    CU_ASSERT_EQUAL(seen.ids[0], other);
    /* The lookup goes through the ledger_binding index, not a scan of the whole ledger. */
    sqlite3_stmt *st = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(store__db(s),
                                             "EXPLAIN QUERY PLAN SELECT id FROM ledger"
                                             " WHERE binding = 'ns/a' ORDER BY id",
                                             -1, &st, NULL),
                          SQLITE_OK);
    int indexed = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        indexed |= strstr((const char *)sqlite3_column_text(st, 3), "ledger_binding") != NULL;
    sqlite3_finalize(st);
    CU_ASSERT(indexed);
    store_close(s);
}

static int reenter(void *ud, const struct store_ledger_row *r)
{
    struct store *s = ud;
    struct store_ledger_row again = ledger_row("ns/re", "pending");
    return store_ledger_insert(s, &again, NULL);
}

static void test_ledger_reentry_refused(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row r = ledger_row("ns/a", "pending");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, NULL), 0);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, reenter, s), MUSTER_EBUSY);
    /* The store works normally afterwards. */
    r.binding = "ns/b";
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, NULL), 0);
    store_close(s);
}

static long long count_rows(struct store *s)
{
    return query_int(store__db(s), "SELECT count(*) FROM ledger");
}

static void test_ledger_batch(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row rows[3] = {ledger_row("ns/a", "pending"), ledger_row("ns/b", "pending"),
                                       ledger_row("ns/c", "admitted")};
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, rows, 3), 0);
    CU_ASSERT(rows[0].id > 0 && rows[1].id > rows[0].id && rows[2].id > rows[1].id);
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, rows, 0), 0);

    /* Mixed batch failing on its last row: the update and insert before it are undone, and
     * the new row's id is not handed out. */
    struct store_ledger_row mixed[3] = {
        {.id = rows[0].id, .state = "released", .updated_at = 9000},
        ledger_row("ns/d", "pending"),
        ledger_row("ns/b", "pending"), /* ns/b is live: duplicate */
    };
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, mixed, 3), MUSTER_EEXIST);
    CU_ASSERT_EQUAL(mixed[1].id, 0);
    CU_ASSERT_EQUAL(mixed[2].id, 0);
    CU_ASSERT_EQUAL(count_rows(s), 3);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT count(*) FROM ledger WHERE state = 'released'"),
                    0);
    CU_ASSERT(sqlite3_get_autocommit(store__db(s)));

    /* A row that fails validation costs no transaction at all. */
    mixed[2] = ledger_row("ns/e", "nope");
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, mixed, 3), MUSTER_EINVAL);
    mixed[2].state = "pending";
    mixed[2].id = -4;
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, mixed, 3), MUSTER_EINVAL);
    mixed[2].id = 0;
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, mixed, 3), 0);
    CU_ASSERT(mixed[1].id > 0 && mixed[2].id > mixed[1].id);
    CU_ASSERT_EQUAL(count_rows(s), 5);

    /* Inside a caller's transaction a failing batch undoes only itself. */
    CU_ASSERT_EQUAL(store_begin(s), 0);
    CU_ASSERT_EQUAL(store_begin(s), MUSTER_EINVAL);
    struct store_ledger_row before = ledger_row("ns/f", "pending");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &before, NULL), 0);
    struct store_ledger_row inner[2] = {ledger_row("ns/g", "pending"),
                                        ledger_row("ns/f", "pending")};
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, inner, 2), MUSTER_EEXIST);
    CU_ASSERT_EQUAL(inner[0].id, 0);
    inner[1].binding = "ns/h";
    CU_ASSERT_EQUAL(store_ledger_write_batch(s, inner, 2), 0);
    CU_ASSERT_EQUAL(store_commit(s), 0);
    CU_ASSERT_EQUAL(count_rows(s), 8);

    /* Rollback discards; rollback with nothing open is harmless. */
    CU_ASSERT_EQUAL(store_begin(s), 0);
    struct store_ledger_row gone = ledger_row("ns/gone", "pending");
    CU_ASSERT_EQUAL(store_ledger_insert(s, &gone, NULL), 0);
    CU_ASSERT_EQUAL(store_rollback(s), 0);
    CU_ASSERT_EQUAL(store_rollback(s), 0);
    CU_ASSERT_EQUAL(count_rows(s), 8);
    CU_ASSERT_EQUAL(store_commit(s), MUSTER_EINVAL);
    store_close(s);
}

/* ---- reading back a database that was tampered with ---- */

static void test_bad_rows_out_of_sqlite(void)
{
    char path[512];
    fresh_path(path, sizeof path, "tampered.db");
    store_close(open_ok(path, STORE_SYNC_FULL));

    sqlite3 *db = raw_open(path);
    /* A state the schema forbids, slipped past the CHECK. */
    CU_ASSERT_EQUAL(sqlite3_exec(db,
                                 "PRAGMA ignore_check_constraints = ON;"
                                 "INSERT INTO ledger (binding, queue, request, state, created_at,"
                                 " updated_at) VALUES ('ns/x', 'q', '{}', 'bogus', 1, 1);"
                                 "UPDATE queues SET weight = 0 WHERE name = 'root';",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(db);

    struct store *s = open_ok(path, STORE_SYNC_FULL);
    struct live_seen seen = {0};
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), MUSTER_ESTORE);
    CU_ASSERT_EQUAL(seen.n, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "column state"));
    CU_ASSERT_PTR_NULL(strstr(store_errmsg(s), "bogus"));
    struct queue_seen qs = {0};
    CU_ASSERT_EQUAL(store_queue_foreach(s, collect_queue, &qs), MUSTER_ESTORE);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "column weight"));
    store_close(s);

    /* A ledger rebuilt without types or NOT NULL: NULL where text is expected, text where an
     * integer is expected. */
    db = raw_open(path);
    CU_ASSERT_EQUAL(sqlite3_exec(db,
                                 "DROP TABLE ledger;"
                                 "CREATE TABLE ledger (id INTEGER PRIMARY KEY, binding, uid, queue,"
                                 " request, priority, state, clusters, reason, created_at,"
                                 " admitted_at, updated_at, mode, barrier, user_dispatching,"
                                 " attempt, not_before, dispatched_at, loss, grow, gang_lead);"
                                 "CREATE INDEX ledger_live ON ledger (id)"
                                 " WHERE state NOT IN ('released', 'rolledback');"
                                 "INSERT INTO ledger VALUES (1, 'ns/a', '', 'q', '{}', 0,"
                                 " 'pending', '[]', '', 1, NULL, 1, 'assign', 0, -1, 0, 0, NULL,"
                                 " NULL, NULL, NULL);"
                                 "INSERT INTO ledger VALUES (2, NULL, '', 'q', '{}', 0,"
                                 " 'pending', '[]', '', 1, NULL, 1, 'assign', 0, -1, 0, 0, NULL,"
                                 " NULL, NULL, NULL);",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(db);
    s = open_ok(path, STORE_SYNC_FULL);
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), MUSTER_ESTORE);
    CU_ASSERT_EQUAL(seen.n, 1); /* row 1 was good and delivered */
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "row 2: column binding"));
    CU_ASSERT_EQUAL(sqlite3_exec(store__db(s),
                                 "UPDATE ledger SET binding = 'ns/b', priority = 'high'"
                                 " WHERE id = 2",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), MUSTER_ESTORE);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "column priority"));
    /* The commit protocol's columns are checked as strictly. */
    CU_ASSERT_EQUAL(sqlite3_exec(store__db(s),
                                 "UPDATE ledger SET priority = 0, mode = 'guess' WHERE id = 2",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), MUSTER_ESTORE);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "column mode"));
    CU_ASSERT_EQUAL(sqlite3_exec(store__db(s),
                                 "UPDATE ledger SET mode = 'resume', user_dispatching = 7"
                                 " WHERE id = 2",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_live, &seen), MUSTER_ESTORE);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "column user_dispatching"));
    store_close(s);
    db_remove(path);
}

/* ---- audit ---- */

static void test_audit(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_audit a = {.at = 1700000000000,
                            .actor = "ops-token",
                            .action = "queue.update",
                            .object = "queues/team-a",
                            .before = "{\"weight\":1}",
                            .after = "{\"weight\":2}"};
    int64_t id1 = 0, id2 = 0;
    CU_ASSERT_EQUAL(store_audit_append(s, &a, &id1), 0);
    a.before = NULL; /* a create has no before */
    CU_ASSERT_EQUAL(store_audit_append(s, &a, &id2), 0);
    CU_ASSERT(id1 > 0 && id2 > id1);
    a.after = "{broken";
    CU_ASSERT_EQUAL(store_audit_append(s, &a, NULL), MUSTER_EINVAL);
    a.after = NULL;
    a.actor = "";
    CU_ASSERT_EQUAL(store_audit_append(s, &a, NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT count(*) FROM audit"), 2);
    CU_ASSERT_EQUAL(store_audit_append(NULL, &a, NULL), MUSTER_EINVAL);
    store_close(s);
}

struct audit_seen {
    int64_t ids[8];
    char actors[8][32];
    int null_before[8];
    size_t n;
    size_t stop_after; /* 0: never stop */
};

static int audit_seen_cb(void *ud, int64_t id, const struct store_audit *rec)
{
    struct audit_seen *w = ud;
    if (w->n < 8) {
        w->ids[w->n] = id;
        snprintf(w->actors[w->n], sizeof w->actors[w->n], "%s", rec->actor);
        w->null_before[w->n] = rec->before == NULL;
    }
    w->n++;
    return w->stop_after && w->n == w->stop_after ? 7 : 0;
}

static int audit_reenter_cb(void *ud, int64_t id, const struct store_audit *rec)
{
    (void)id;
    (void)rec;
    struct store *s = ud;
    struct store_audit a = {1, "x", "y", "z", NULL, NULL};
    return store_audit_append(s, &a, NULL); /* not allowed inside the walk */
}

static void test_audit_foreach(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct audit_seen w = {0};
    CU_ASSERT_EQUAL(store_audit_foreach(s, 0, 10, audit_seen_cb, &w), 0);
    CU_ASSERT_EQUAL(w.n, 0);
    char actor[16];
    int64_t ids[5];
    for (int i = 0; i < 5; i++) {
        snprintf(actor, sizeof actor, "user-%d", i);
        struct store_audit a = {.at = 1700000000000 + i,
                                .actor = actor,
                                .action = "queue.create",
                                .object = "queues/a",
                                .before = i % 2 ? "{\"w\":1}" : NULL,
                                .after = "{\"w\":2}"};
        CU_ASSERT_EQUAL(store_audit_append(s, &a, &ids[i]), 0);
    }
    /* Pages: ids above after_id, in id order, at most limit. */
    CU_ASSERT_EQUAL(store_audit_foreach(s, 0, 2, audit_seen_cb, &w), 0);
    CU_ASSERT_EQUAL(w.n, 2);
    CU_ASSERT_EQUAL(w.ids[0], ids[0]);
    CU_ASSERT_EQUAL(w.ids[1], ids[1]);
    CU_ASSERT_STRING_EQUAL(w.actors[1], "user-1");
    CU_ASSERT(w.null_before[0] && !w.null_before[1]);
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(store_audit_foreach(s, ids[1], 100, audit_seen_cb, &w), 0);
    CU_ASSERT_EQUAL(w.n, 3);
    CU_ASSERT_EQUAL(w.ids[0], ids[2]);
    CU_ASSERT_STRING_EQUAL(w.actors[2], "user-4");
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(store_audit_foreach(s, ids[4], 100, audit_seen_cb, &w), 0);
    CU_ASSERT_EQUAL(w.n, 0);
    /* A non-zero return stops the walk and is returned; the store is usable afterwards. */
    memset(&w, 0, sizeof w);
    w.stop_after = 2;
    CU_ASSERT_EQUAL(store_audit_foreach(s, 0, 100, audit_seen_cb, &w), 7);
    CU_ASSERT_EQUAL(w.n, 2);
    CU_ASSERT_EQUAL(store_audit_foreach(s, 0, 100, audit_reenter_cb, s), MUSTER_EBUSY);
    struct store_audit a = {1, "x", "y", "z", NULL, NULL};
    CU_ASSERT_EQUAL(store_audit_append(s, &a, NULL), 0);
    CU_ASSERT_EQUAL(store_audit_foreach(s, 0, 10, NULL, NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_audit_foreach(NULL, 0, 10, audit_seen_cb, &w), MUSTER_EINVAL);
    store_close(s);
}

/* ---- crash safety ---- */

#define CRASH_N 200

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    /* xorshift64: reproducible from the printed seed. */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The child: writes batch after batch of CRASH_N rows, each tagged with its batch number in
 * priority and reason, until it is killed. Never returns. */
static void crash_child(const char *path, enum store_sync sync, long first, int ready_fd)
{
    struct store_options o = {.sync = sync};
    struct store *s = NULL;
    char err[256];
    if (store_open(path, &o, &s, err, sizeof err) != 0)
        _exit(3);
    if (write(ready_fd, "r", 1) != 1)
        _exit(4);
    static struct store_ledger_row rows[CRASH_N];
    static char bindings[CRASH_N][48];
    char reason[32];
    for (long b = first;; b++) {
        snprintf(reason, sizeof reason, "batch-%ld", b);
        for (int i = 0; i < CRASH_N; i++) {
            snprintf(bindings[i], sizeof bindings[i], "crash/b%ld-r%d", b, i);
            rows[i] = ledger_row(bindings[i], "pending");
            rows[i].priority = b;
            rows[i].reason = reason;
        }
        if (store_ledger_write_batch(s, rows, CRASH_N) != 0)
            _exit(5);
    }
}

/* Checks the database after a kill; returns the number of whole batches, or -1. */
static long crash_verify(const char *path)
{
    sqlite3 *db = raw_open(path);
    sqlite3_stmt *st = NULL;
    long batches = -1;
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL),
                          SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    const char *ok = (const char *)sqlite3_column_text(st, 0);
    int intact = ok && strcmp(ok, "ok") == 0;
    CU_ASSERT(intact);
    sqlite3_finalize(st);
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db,
                                             "SELECT priority, count(*), count(DISTINCT reason)"
                                             " FROM ledger GROUP BY priority ORDER BY priority",
                                             -1, &st, NULL),
                          SQLITE_OK);
    long expect = 0;
    int good = intact;
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
            CU_ASSERT_EQUAL(rc, SQLITE_DONE);
            break;
        }
        long b = (long)sqlite3_column_int64(st, 0);
        long n = (long)sqlite3_column_int64(st, 1);
        if (b != expect || n != CRASH_N || sqlite3_column_int64(st, 2) != 1) {
            fprintf(stderr, "crash: batch %ld has %ld rows (expected batch %ld, %d rows)\n", b, n,
                    expect, CRASH_N);
            good = 0;
        }
        expect++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    CU_ASSERT(good);
    if (good)
        batches = expect;
    return batches;
}

static int count_live(void *ud, const struct store_ledger_row *r)
{
    (*(long *)ud)++;
    return 0;
}

static void test_crash_consistency(void)
{
    const char *env = getenv("MUSTER_CRASH_ITERATIONS");
    long iterations = env ? strtol(env, NULL, 10) : 50;
    if (iterations <= 0)
        iterations = 50;
    const char *seed_env = getenv("MUSTER_CRASH_SEED");
    rng_state = seed_env ? strtoull(seed_env, NULL, 0) : 0x6d75737465720001ULL;
    if (rng_state == 0)
        rng_state = 1;
    printf("\n    crash test: %ld iterations, seed 0x%llx\n", iterations,
           (unsigned long long)rng_state);

    char path[512];
    long first = 0, total_batches = 0, empty_kills = 0;
    for (long it = 0; it < iterations; it++) {
        /* A new file every 25 runs keeps integrity_check (the slow part) fast on long runs. */
        if (it % 25 == 0) {
            if (it > 0)
                db_remove(path);
            fresh_path(path, sizeof path, "crash.db");
            store_close(open_ok(path, STORE_SYNC_FULL));
            first = 0;
        }
        /* Every tenth run with FULL, the production default; NORMAL for the rest. */
        enum store_sync sync = it % 10 == 9 ? STORE_SYNC_FULL : STORE_SYNC_NORMAL;
        int fds[2];
        CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            crash_child(path, sync, first, fds[1]);
        }
        close(fds[1]);
        char c;
        ssize_t got = read(fds[0], &c, 1);
        close(fds[0]);
        CU_ASSERT_EQUAL(got, 1); /* the child opened the store */
        long delay_us = (long)(rng_next() % 30001);
        struct timespec ts = {.tv_sec = 0, .tv_nsec = delay_us * 1000};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status = 0;
        CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
        /* Killed, not exited: an exit means the child hit an error. */
        CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        long batches = crash_verify(path);
        CU_ASSERT_FATAL(batches >= first);
        if (batches == first)
            empty_kills++;
        total_batches += batches - first;

        /* The store itself opens it and sees every row. */
        struct store *s = open_ok(path, STORE_SYNC_FULL);
        long live = 0;
        CU_ASSERT_EQUAL(store_ledger_foreach_live(s, count_live, &live), 0);
        CU_ASSERT_EQUAL(live, batches * CRASH_N);
        store_close(s);
        first = batches;
    }
    db_remove(path);
    printf("    crash test: %ld batches committed before kills, %ld kills before the first\n",
           total_batches, empty_kills);
}

struct proto_seen {
    char mode[16];
    int barrier, user_dispatching;
    int64_t attempt, not_before, dispatched_at;
};

static int collect_proto(void *ud, const struct store_ledger_row *r)
{
    struct proto_seen *p = ud;
    snprintf(p->mode, sizeof p->mode, "%s", r->mode);
    p->barrier = r->barrier;
    p->user_dispatching = r->user_dispatching;
    p->attempt = r->attempt;
    p->not_before = r->not_before;
    p->dispatched_at = r->dispatched_at;
    return 0;
}

/* The commit protocol's columns survive a round trip, an update that leaves mode NULL keeps
 * it, and values outside their range are refused before any write. */
/* schema/0005: a queue's onClusterLoss and a row's loss record round-trip; an update without
 * a loss record keeps the row's; a record that is not a JSON object is refused. */
static int loss_of(void *ud, const struct store_ledger_row *row)
{
    snprintf(ud, 256, "%s", row->loss ? row->loss : "(null)");
    return 0;
}

static int on_loss_of(void *ud, const struct store_queue *q)
{
    if (strcmp(q->name, "lq") == 0)
        snprintf(ud, 16, "%s", q->on_cluster_loss);
    return 0;
}

static void test_cluster_loss_columns(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_queue q = queue_row("lq", "root");
    char pol[16] = "";
    CU_ASSERT_EQUAL_FATAL(store_queue_put(s, &q), 0);
    CU_ASSERT_EQUAL(store_queue_foreach(s, on_loss_of, pol), 0);
    CU_ASSERT_STRING_EQUAL(pol, "Requeue"); /* NULL writes the default */
    q.on_cluster_loss = "Replace";
    CU_ASSERT_EQUAL(store_queue_put(s, &q), 0);
    CU_ASSERT_EQUAL(store_queue_foreach(s, on_loss_of, pol), 0);
    CU_ASSERT_STRING_EQUAL(pol, "Replace");
    q.on_cluster_loss = "Maybe";
    CU_ASSERT_EQUAL(store_queue_put(s, &q), MUSTER_EINVAL);

    struct store_ledger_row r = ledger_row("ns/l", "dispatched");
    int64_t id = 0;
    char got[256] = "";
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &id), 0);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/l", loss_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "(null)");
    struct store_ledger_row up = {.id = id,
                                  .state = "admitted",
                                  .updated_at = 2,
                                  .loss = "{\"cluster\":\"m2\",\"decision\":\"Replace\"}"};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    up.loss = NULL;
    up.state = "dispatched";
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/l", loss_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "{\"cluster\":\"m2\",\"decision\":\"Replace\"}");
    up.loss = "[1]";
    CU_ASSERT_NOT_EQUAL(store_ledger_update_state(s, &up), 0);
    store_close(s);
}

/* schema/0006: a waiting delta on the live row round-trips; an update without one keeps it, ""
 * clears it (the delta admitted in the same update as the grown request); not an object is
 * refused. */
static int grow_of(void *ud, const struct store_ledger_row *row)
{
    snprintf(ud, 256, "%s|%s", row->grow ? row->grow : "(null)", row->request);
    return 0;
}

static void test_growth_column(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row r = ledger_row("ns/g", "running");
    int64_t id = 0;
    char got[256] = "";
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &id), 0);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, grow_of, got), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "(null)|"));
    const char *d = "{\"replicas\":4,\"request\":{\"cpu\":\"4\"},\"since\":7}";
    struct store_ledger_row up = {.id = id, .state = "running", .updated_at = 2, .grow = d};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    up.grow = NULL;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0); /* kept */
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, grow_of, got), 0);
    CU_ASSERT_EQUAL(strncmp(got, d, strlen(d)), 0);
    up.grow = "[4]";
    CU_ASSERT_NOT_EQUAL(store_ledger_update_state(s, &up), 0);
    up.grow = "";
    up.state = "admitted";
    up.request = "{\"cpu\":\"8\"}";
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0); /* admitted: cleared, grown */
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/g", grow_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "(null)|{\"cpu\":\"8\"}");
    store_close(s);
}

static void test_ledger_protocol_columns(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row r = ledger_row("ns/p", "admitted");
    r.mode = "resume";
    r.barrier = 1;
    r.user_dispatching = -1;
    r.attempt = 3;
    r.not_before = 9000;
    r.admitted_at = 6000;
    int64_t id = 0;
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &id), 0);
    struct proto_seen p = {{0}, 0, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_proto, &p), 0);
    CU_ASSERT_STRING_EQUAL(p.mode, "resume");
    CU_ASSERT_EQUAL(p.barrier, 1);
    CU_ASSERT_EQUAL(p.user_dispatching, -1);
    CU_ASSERT_EQUAL(p.attempt, 3);
    CU_ASSERT_EQUAL(p.not_before, 9000);
    CU_ASSERT_EQUAL(p.dispatched_at, 0);

    struct store_ledger_row up = {.id = id,
                                  .state = "dispatched",
                                  .barrier = 0,
                                  .user_dispatching = 1,
                                  .dispatched_at = 7000,
                                  .updated_at = 7000};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, collect_proto, &p), 0);
    CU_ASSERT_STRING_EQUAL(p.mode, "resume");
    CU_ASSERT_EQUAL(p.barrier, 0);
    CU_ASSERT_EQUAL(p.user_dispatching, 1);
    CU_ASSERT_EQUAL(p.dispatched_at, 7000);

    up.mode = "maybe";
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EINVAL);
    up.mode = NULL;
    up.barrier = 2;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EINVAL);
    up.barrier = 0;
    up.user_dispatching = -2;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EINVAL);
    struct store_ledger_row bad = ledger_row("ns/q", "pending");
    bad.attempt = -1;
    CU_ASSERT_EQUAL(store_ledger_insert(s, &bad, NULL), MUSTER_ERANGE);
    store_close(s);
}

/* ---- reclaim and preemption (schema/0004_queue_preemption.sql) ---- */

/* One queue's reclaim fields and counts as store_queue_foreach hands them out. */
struct reclaim_seen {
    const char *want;
    int found, not_reclaimable;
    char within[32];
    int64_t min_runtime_ms, per_minute, cooldown_ms, made, suffered;
};

static int collect_reclaim(void *ud, const struct store_queue *q)
{
    struct reclaim_seen *r = ud;
    if (strcmp(q->name, r->want) != 0)
        return 0;
    r->found = 1;
    r->not_reclaimable = q->not_reclaimable;
    snprintf(r->within, sizeof r->within, "%s", q->within_queue ? q->within_queue : "(null)");
    r->min_runtime_ms = q->min_runtime_ms;
    r->per_minute = q->preempt_per_minute;
    r->cooldown_ms = q->preempt_cooldown_ms;
    r->made = q->preemptions_made;
    r->suffered = q->preemptions_suffered;
    return 0;
}

static struct reclaim_seen reclaim_of(struct store *s, const char *name)
{
    struct reclaim_seen r = {.want = name};
    CU_ASSERT_EQUAL(store_queue_foreach(s, collect_reclaim, &r), 0);
    CU_ASSERT(r.found);
    return r;
}

/* The fields round-trip; zero values read back as the defaults; bad values are refused. */
static void test_queue_reclaim_fields(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_queue a = queue_row("team-a", "root");
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);
    struct reclaim_seen r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.not_reclaimable, 0);
    CU_ASSERT_STRING_EQUAL(r.within, "Never");
    CU_ASSERT_EQUAL(r.min_runtime_ms + r.per_minute + r.cooldown_ms + r.made + r.suffered, 0);

    a.not_reclaimable = 1;
    a.within_queue = "LowerPriority";
    a.min_runtime_ms = 600000;
    a.preempt_per_minute = 4;
    a.preempt_cooldown_ms = 120000;
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);
    r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.not_reclaimable, 1);
    CU_ASSERT_STRING_EQUAL(r.within, "LowerPriority");
    CU_ASSERT_EQUAL(r.min_runtime_ms, 600000);
    CU_ASSERT_EQUAL(r.per_minute, 4);
    CU_ASSERT_EQUAL(r.cooldown_ms, 120000);

    struct store_queue bad = queue_row("bad", "root");
    bad.within_queue = "Always";
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "within_queue"));
    bad = queue_row("bad", "root");
    bad.not_reclaimable = 2;
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_EINVAL);
    bad = queue_row("bad", "root");
    bad.min_runtime_ms = -1;
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_ERANGE);
    bad = queue_row("bad", "root");
    bad.preempt_per_minute = 10001;
    CU_ASSERT_EQUAL(store_queue_put(s, &bad), MUSTER_ERANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(store_errmsg(s), "preempt_per_minute"));

    /* The schema refuses what C would have (a row written by another tool), and a bad value
     * in the table stops a read naming the column. */
    sqlite3 *db = store__db(s);
    CU_ASSERT_NOT_EQUAL(sqlite3_exec(db,
                                     "UPDATE queues SET within_queue = 'x' WHERE name = "
                                     "'team-a'",
                                     NULL, NULL, NULL),
                        SQLITE_OK);
    CU_ASSERT_NOT_EQUAL(
        sqlite3_exec(db, "UPDATE queues SET preempt_cooldown_ms = -1", NULL, NULL, NULL),
        SQLITE_OK);
    store_close(s);
}

/* Counts start at 0 without a row, add up, survive a spec change (a put does not touch them),
 * refuse an unknown queue and negative counts, and go with their queue. */
static void test_preemption_counts(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_queue a = queue_row("team-a", "root");
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "team-a", 1, 0, 5000), 0);
    CU_ASSERT_EQUAL(store_begin(s), 0);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "team-a", 2, 3, 6000), 0);
    CU_ASSERT_EQUAL(store_commit(s), 0);
    a.weight = 7;
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);
    struct reclaim_seen r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.made, 3);
    CU_ASSERT_EQUAL(r.suffered, 3);
    r = reclaim_of(s, "default");
    CU_ASSERT_EQUAL(r.made + r.suffered, 0);

    CU_ASSERT_EQUAL(store_preemptions_add(s, "nope", 1, 0, 1), MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "team-a", -1, 0, 1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "", 1, 0, 1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "team-a", INT64_MAX, 0, 1), MUSTER_ERANGE);
    r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.made, 3); /* the refused add changed nothing */

    /* A rolled-back transaction takes its counts with it. */
    CU_ASSERT_EQUAL(store_begin(s), 0);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "team-a", 10, 10, 7000), 0);
    CU_ASSERT_EQUAL(store_rollback(s), 0);
    r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.suffered, 3);

    CU_ASSERT_EQUAL(store_queue_delete(s, "team-a"), 0);
    CU_ASSERT_EQUAL(query_int(store__db(s), "SELECT count(*) FROM queue_preemptions"), 0);
    CU_ASSERT_EQUAL(store_queue_put(s, &a), 0);
    r = reclaim_of(s, "team-a");
    CU_ASSERT_EQUAL(r.made + r.suffered, 0);
    store_close(s);
}

/* A database written before 0004 (migrations 1-3 only) with a queue in it opens, migrates, and
 * its queue reads back with the defaults; the new fields then round-trip through a reopen. */
static void test_migrate_to_queue_preemption(void)
{
    char path[512], err[512];
    fresh_path(path, sizeof path, "pre0004.db");
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    size_t old = 0;
    while (old < schema_migrations_count && schema_migrations[old].version < 4)
        old++;
    CU_ASSERT_EQUAL_FATAL(old, 3);
    CU_ASSERT_EQUAL_FATAL(store__migrate(db, schema_migrations, old, err, sizeof err), 0);
    CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 3);
    CU_ASSERT_EQUAL(sqlite3_exec(db,
                                 "INSERT INTO queues (name, parent, weight, created_at, "
                                 "updated_at) VALUES ('old', 'root', 3, 1, 1)",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(db);

    struct store *s = open_ok(path, STORE_SYNC_FULL);
    CU_ASSERT(store_schema_version(s) >= 4);
    struct reclaim_seen r = reclaim_of(s, "old");
    CU_ASSERT_EQUAL(r.not_reclaimable, 0);
    CU_ASSERT_STRING_EQUAL(r.within, "Never");
    CU_ASSERT_EQUAL(r.min_runtime_ms + r.per_minute + r.cooldown_ms + r.made + r.suffered, 0);
    struct store_queue q = queue_row("old", "root");
    q.not_reclaimable = 1;
    q.within_queue = "LowerPriority";
    q.min_runtime_ms = 1;
    q.preempt_per_minute = 2;
    q.preempt_cooldown_ms = 3;
    CU_ASSERT_EQUAL(store_queue_put(s, &q), 0);
    CU_ASSERT_EQUAL(store_preemptions_add(s, "old", 4, 5, 10), 0);
    store_close(s);

    s = open_ok(path, STORE_SYNC_FULL);
    r = reclaim_of(s, "old");
    CU_ASSERT_EQUAL(r.not_reclaimable, 1);
    CU_ASSERT_STRING_EQUAL(r.within, "LowerPriority");
    CU_ASSERT_EQUAL(r.min_runtime_ms, 1);
    CU_ASSERT_EQUAL(r.per_minute, 2);
    CU_ASSERT_EQUAL(r.cooldown_ms, 3);
    CU_ASSERT_EQUAL(r.made, 4);
    CU_ASSERT_EQUAL(r.suffered, 5);
    store_close(s);
    db_remove(path);
}

/* schema/0008: a queue's namespaceSelector round-trips and NULL stays NULL; a database of the
 * version before it opens with every queue kept and no selector on any. */
static int selector_of(void *ud, const struct store_queue *q)
{
    if (strcmp(q->name, "tq") == 0)
        snprintf(ud, 256, "%s", q->namespace_selector ? q->namespace_selector : "(null)");
    return 0;
}

static int count_queues(void *ud, const struct store_queue *q)
{
    (void)q;
    ++*(int *)ud;
    return 0;
}

static void test_tenancy_column(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_queue q = queue_row("tq", "root");
    char got[256] = "";
    CU_ASSERT_EQUAL_FATAL(store_queue_put(s, &q), 0);
    CU_ASSERT_EQUAL(store_queue_foreach(s, selector_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "(null)");
    q.namespace_selector = "{\"matchLabels\":{\"org\":\"research\"}}";
    CU_ASSERT_EQUAL(store_queue_put(s, &q), 0);
    CU_ASSERT_EQUAL(store_queue_foreach(s, selector_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "{\"matchLabels\":{\"org\":\"research\"}}");
    q.namespace_selector = "[]"; /* the table keeps only JSON objects */
    CU_ASSERT_NOT_EQUAL(store_queue_put(s, &q), 0);
    store_close(s);

    /* the version before: queues written there are all kept by the upgrade */
    char path[512], err[256];
    fresh_path(path, sizeof path, "pre-tenancy.db");
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    size_t before_tenancy = 0; /* the migrations up to 0007 */
    while (before_tenancy < schema_migrations_count &&
           schema_migrations[before_tenancy].version < 8)
        before_tenancy++;
    CU_ASSERT_EQUAL_FATAL(
        store__migrate(db, schema_migrations, before_tenancy, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sqlite3_exec(db,
                                 "INSERT INTO queues (name, parent, created_at, updated_at) VALUES"
                                 " ('a', 'root', 1, 1), ('tq', 'a', 1, 1)",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    long long before = query_int(db, "SELECT count(*) FROM queues");
    CU_ASSERT(before >= 3); /* root (and what the first migration seeds) and these two */
    sqlite3_close(db);
    s = open_ok(path, STORE_SYNC_FULL);
    CU_ASSERT_EQUAL(store_schema_version(s), highest_version());
    int n = 0;
    CU_ASSERT_EQUAL(store_queue_foreach(s, count_queues, &n), 0);
    CU_ASSERT_EQUAL(n, before);
    CU_ASSERT_EQUAL(store_queue_foreach(s, selector_of, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "(null)");
    store_close(s);
    db_remove(path);
}

/* Reclaim's cooling history read back at start-up (schema/0007_reclaim_cooling.sql): the
 * preempted victims' rolledback rows only, newest first, at most limit of them, through the
 * partial index. */
static void test_ledger_preempted(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    /* id order: a preempted (reclaim), a gang timeout, b released with a "preempted" reason
     * (not a rollback), c preempted (priority), a preempted again; and a live row of a */
    static const struct {
        const char *binding, *state, *reason;
        int64_t at;
    } rows[] = {
        {"ns/a", "rolledback", "preempted to reclaim for q (binding ns/big)", 1000},
        {"ns/a", "rolledback", "gang timeout: share in m1 did not run", 2000},
        {"ns/b", "released", "preempted workload finished", 3000},
        {"ns/c", "rolledback", "preempted by a priority 5 gang of its queue q (binding ns/hi)",
         4000},
        {"ns/a", "rolledback", "preempted to reclaim for q (binding ns/big2)", 5000},
        {"ns/a", "pending", "preempted to reclaim for q (binding ns/big2)", 5000},
    };
    int64_t ids[6];
    for (size_t i = 0; i < 6; i++) {
        struct store_ledger_row r = ledger_row(rows[i].binding, "pending");
        r.queue = i == 3 ? "team-c" : "team-a";
        CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &ids[i]), 0);
        if (strcmp(rows[i].state, "pending") == 0)
            continue;
        struct store_ledger_row up = {.id = ids[i],
                                      .state = rows[i].state,
                                      .reason = rows[i].reason,
                                      .updated_at = rows[i].at};
        CU_ASSERT_EQUAL_FATAL(store_ledger_update_state(s, &up), 0);
    }
    struct live_seen seen = {0};
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 512, collect_live, &seen), 0);
    CU_ASSERT_EQUAL_FATAL(seen.n, 3);
    CU_ASSERT_EQUAL(seen.ids[0], ids[4]);
    CU_ASSERT_EQUAL(seen.ids[1], ids[3]);
    CU_ASSERT_EQUAL(seen.ids[2], ids[0]);
    CU_ASSERT_STRING_EQUAL(seen.bindings[1], "ns/c");
    CU_ASSERT_STRING_EQUAL(seen.states[2], "rolledback");

    /* the limit keeps the newest */
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 2, collect_live, &seen), 0);
    CU_ASSERT_EQUAL_FATAL(seen.n, 2);
    CU_ASSERT_EQUAL(seen.ids[0], ids[4]);
    CU_ASSERT_EQUAL(seen.ids[1], ids[3]);
    /* the statement's limit was reset with its binding: the next walk sees all again */
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 512, collect_live, &seen), 0);
    CU_ASSERT_EQUAL(seen.n, 3);

    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 0, collect_live, &seen), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 1, NULL, NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 1, reenter, s), MUSTER_EBUSY);
    memset(&seen, 0, sizeof seen);
    seen.stop_after = 1;
    CU_ASSERT_EQUAL(store_ledger_foreach_preempted(s, 512, collect_live, &seen), 42);
    CU_ASSERT_EQUAL(seen.n, 1);

    /* the walk goes through the partial index, not a scan of the whole history */
    sqlite3_stmt *st = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(store__db(s),
                                             "EXPLAIN QUERY PLAN SELECT id FROM ledger"
                                             " WHERE state = 'rolledback'"
                                             " AND substr(reason, 1, 10) = 'preempted '"
                                             " ORDER BY id DESC LIMIT 512",
                                             -1, &st, NULL),
                          SQLITE_OK);
    int indexed = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        indexed |= strstr((const char *)sqlite3_column_text(st, 3), "ledger_preempted") != NULL;
    sqlite3_finalize(st);
    CU_ASSERT(indexed);
    store_close(s);
}

static int dialect_row(void *ud, const char *name, const char *dialect)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 256 - l, "%s=%s ", name, dialect);
    return 0;
}

/* schema/0009_cluster_dialect.sql: an override per cluster, replaced by a new one, removed by
 * NULL, kept across a reopen; a name the table does not know as a dialect is refused. */
static void test_cluster_dialect_table(void)
{
    char path[512];
    fresh_path(path, sizeof path, "dialect.db");
    struct store *s = open_ok(path, STORE_SYNC_FULL);
    char got[256] = "";
    CU_ASSERT_EQUAL(store_cluster_dialect_foreach(s, dialect_row, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "");
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "west", "yunikorn", 1), 0);
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "east", "none", 2), 0);
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "west", "coscheduling", 3), 0);
    CU_ASSERT_NOT_EQUAL(store_cluster_dialect_put(s, "north", "slurm", 4), 0);
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "", "none", 4), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(store_cluster_dialect_foreach(s, dialect_row, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "east=none west=coscheduling ");
    store_close(s);
    s = open_ok(path, STORE_SYNC_FULL);
    got[0] = '\0';
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "east", NULL, 5), 0);
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "nowhere", NULL, 5), 0); /* nothing to remove */
    CU_ASSERT_EQUAL(store_cluster_dialect_foreach(s, dialect_row, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "west=coscheduling ");
    store_close(s);
    db_remove(path);
}

/* schema/0010_cluster_dialect_workload_api.sql: a database at 0009 with overrides in it opens,
 * rebuilds the table with its rows, and then takes workload-api (which 0009's CHECK refused). */
static void test_cluster_dialect_workload_api(void)
{
    char path[512], err[512];
    fresh_path(path, sizeof path, "pre0010.db");
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    size_t old = 0;
    while (old < schema_migrations_count && schema_migrations[old].version < 10)
        old++;
    CU_ASSERT_EQUAL_FATAL(old, 9);
    CU_ASSERT_EQUAL_FATAL(store__migrate(db, schema_migrations, old, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sqlite3_exec(db,
                                 "INSERT INTO cluster_dialect (name, dialect, updated_at) VALUES "
                                 "('west', 'yunikorn', 1), ('east', 'none', 2)",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    CU_ASSERT_NOT_EQUAL(sqlite3_exec(db,
                                     "INSERT INTO cluster_dialect (name, dialect, updated_at) "
                                     "VALUES ('north', 'workload-api', 3)",
                                     NULL, NULL, NULL),
                        SQLITE_OK);
    sqlite3_close(db);

    struct store *s = open_ok(path, STORE_SYNC_FULL);
    CU_ASSERT(store_schema_version(s) >= 10);
    char got[256] = "";
    CU_ASSERT_EQUAL(store_cluster_dialect_foreach(s, dialect_row, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "east=none west=yunikorn ");
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "north", "workload-api", 3), 0);
    CU_ASSERT_NOT_EQUAL(store_cluster_dialect_put(s, "south", "workload_api", 3), 0);
    got[0] = '\0';
    CU_ASSERT_EQUAL(store_cluster_dialect_foreach(s, dialect_row, got), 0);
    CU_ASSERT_STRING_EQUAL(got, "east=none north=workload-api west=yunikorn ");
    store_close(s);
    db_remove(path);
}

/* schema/0011: a pod group member's row names its lead's; an update with 0 keeps it, -1 clears
 * it (the gang rolled back), and below -1 is refused; history reads it too. */
static int lead_of(void *ud, const struct store_ledger_row *row)
{
    int64_t *v = ud;
    v[row->id] = row->gang_lead;
    return 0;
}

static void test_gang_lead_column(void)
{
    struct store *s = open_ok(":memory:", STORE_SYNC_FULL);
    struct store_ledger_row a = ledger_row("ns/a", "pending"), b = ledger_row("ns/b", "pending");
    int64_t ida = 0, idb = 0, got[8] = {0};
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &a, &ida), 0);
    b.gang_lead = ida;
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &b, &idb), 0);
    CU_ASSERT_FATAL(ida > 0 && idb > ida && idb < 8);
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, lead_of, got), 0);
    CU_ASSERT_EQUAL(got[ida], 0);
    CU_ASSERT_EQUAL(got[idb], ida);
    struct store_ledger_row up = {.id = idb, .state = "admitted", .updated_at = 2};
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0); /* 0: kept */
    got[idb] = 0;
    CU_ASSERT_EQUAL(store_ledger_foreach_live(s, lead_of, got), 0);
    CU_ASSERT_EQUAL(got[idb], ida);
    up.gang_lead = -2;
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), MUSTER_EINVAL);
    up.gang_lead = -1;
    up.state = "pending";
    CU_ASSERT_EQUAL(store_ledger_update_state(s, &up), 0); /* cleared */
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(s, "ns/b", lead_of, got), 0);
    CU_ASSERT_EQUAL(got[idb], 0);
    CU_ASSERT_EQUAL(
        sqlite3_exec(store__db(s), "UPDATE ledger SET gang_lead = -3", NULL, NULL, NULL) & 0xff,
        SQLITE_CONSTRAINT);
    store_close(s);
}

static CU_TestInfo tests[] = {
    {"open fresh, reopen, settings", test_open_fresh_and_reopen},
    {"data version moves with other connections' commits", test_data_version},
    {"newer database refused", test_newer_database_refused},
    {"failed migration keeps old version", test_failed_migration_keeps_old_version},
    {"open errors", test_open_errors},
    {"queues", test_queues},
    {"queue reclaim fields", test_queue_reclaim_fields},
    {"preemption counts", test_preemption_counts},
    {"migrate a database from before 0004", test_migrate_to_queue_preemption},
    {"ledger rows", test_ledger_rows},
    {"ledger state update", test_ledger_state_update},
    {"ledger re-entry refused", test_ledger_reentry_refused},
    {"ledger history of one binding", test_ledger_history},
    {"the preemptions read back newest first (schema/0007)", test_ledger_preempted},
    {"ledger batch all or nothing", test_ledger_batch},
    {"ledger protocol columns", test_ledger_protocol_columns},
    {"onClusterLoss and the loss record (schema/0005)", test_cluster_loss_columns},
    {"a waiting delta on the live row (schema/0006)", test_growth_column},
    {"a queue's namespaceSelector, and an upgrade that keeps every queue (schema/0008)",
     test_tenancy_column},
    {"cluster gang dialect overrides (0009)", test_cluster_dialect_table},
    {"cluster gang dialects take workload-api, rows kept (0010)",
     test_cluster_dialect_workload_api},
    {"a pod group member's lead (schema/0011)", test_gang_lead_column},
    {"bad rows out of sqlite", test_bad_rows_out_of_sqlite},
    {"audit", test_audit},
    {"audit pages", test_audit_foreach},
    {"crash consistency", test_crash_consistency},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/store", tests)
