/* Benchmark of dispatcher/store.c: ledger commits against raw SQLite, and the start-up scan. */
#include "bench/bench.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dispatcher/store.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "schema/migrations.h"

#define BATCH 100          /* rows per commit: one dispatch cycle's decisions */
#define COMMIT_ROWS 100000 /* per side: 1,000 commits */
#define SCAN_ROWS 1000000
#define SCAN_BATCH 50000 /* rows per transaction while filling the scan database */
#define BINDING_CAP 40

static const char *const ROW_UID = "6f1c2a9e-4b7d-4e0f-9a51-3c8d2e7b6a10";
static const char *const ROW_QUEUE = "team-a";
static const char *const ROW_REQUEST =
    "{\"cpu\":\"32\",\"memory\":\"128Gi\",\"nvidia.com/gpu\":\"8\"}";
static const char *const ROW_CLUSTERS = "[{\"name\":\"member-1\",\"replicas\":4}]";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void db_path(char *buf, size_t cap, const char *name)
{
    const char *dir = getenv("MUSTER_BENCH_DIR");
    snprintf(buf, cap, "%s/muster-bench-%ld-%s", dir && dir[0] ? dir : "/tmp", (long)getpid(),
             name);
}

static void db_remove(const char *path)
{
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_store: %s: %s\n", what, why);
    exit(1);
}

static struct store_ledger_row bench_row(const char *binding, int64_t i)
{
    return (struct store_ledger_row){.binding = binding,
                                     .uid = ROW_UID,
                                     .queue = ROW_QUEUE,
                                     .request = ROW_REQUEST,
                                     .priority = i % 100,
                                     .state = "admitted",
                                     .clusters = ROW_CLUSTERS,
                                     .reason = "",
                                     .created_at = 1700000000000 + i,
                                     .admitted_at = 1700000000000 + i,
                                     .updated_at = 1700000000000 + i};
}

/* ---- raw SQLite: the same table, rows, batching and PRAGMAs, without the store ---- */

struct raw {
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *insert;
};

static void raw_exec(sqlite3 *db, const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(sql, sqlite3_errmsg(db));
}

static sqlite3_stmt *raw_prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
        die(sql, sqlite3_errmsg(db));
    return st;
}

static void raw_open(struct raw *r, const char *path)
{
    if (sqlite3_open_v2(path, &r->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        die("raw open", sqlite3_errmsg(r->db));
    sqlite3_busy_timeout(r->db, STORE_DEFAULT_BUSY_TIMEOUT_MS);
    raw_exec(r->db, "PRAGMA journal_mode = WAL");
    raw_exec(r->db, "PRAGMA synchronous = FULL");
    for (size_t i = 0; i < schema_migrations_count; i++)
        raw_exec(r->db, schema_migrations[i].sql);
    raw_exec(r->db, "PRAGMA foreign_keys = ON");
    r->begin = raw_prepare(r->db, "BEGIN IMMEDIATE");
    r->commit = raw_prepare(r->db, "COMMIT");
    r->insert =
        raw_prepare(r->db, "INSERT INTO ledger (binding, uid, queue, request, priority, state,"
                           " clusters, reason, created_at, admitted_at, updated_at)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
}

static void raw_step(sqlite3 *db, sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        die("raw step", sqlite3_errmsg(db));
    sqlite3_reset(st);
}

static void raw_write_batch(struct raw *r, const struct store_ledger_row *rows, size_t n)
{
    raw_step(r->db, r->begin);
    for (size_t i = 0; i < n; i++) {
        const struct store_ledger_row *w = &rows[i];
        sqlite3_stmt *st = r->insert;
        sqlite3_bind_text(st, 1, w->binding, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, w->uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, w->queue, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, w->request, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, w->priority);
        sqlite3_bind_text(st, 6, w->state, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, w->clusters, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, w->reason, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 9, w->created_at);
        sqlite3_bind_int64(st, 10, w->admitted_at);
        sqlite3_bind_int64(st, 11, w->updated_at);
        raw_step(r->db, st);
    }
    raw_step(r->db, r->commit);
}

static void raw_close(struct raw *r)
{
    sqlite3_finalize(r->begin);
    sqlite3_finalize(r->commit);
    sqlite3_finalize(r->insert);
    sqlite3_close(r->db);
}

/* ---- commit rate ---- */

static struct store *bench_open(const char *path, enum store_sync sync)
{
    struct store_options o = {.sync = sync};
    struct store *s = NULL;
    char err[512];
    if (store_open(path, &o, &s, err, sizeof err) != 0)
        die("store_open", err);
    return s;
}

static void bench_commits(void)
{
    const size_t total = COMMIT_ROWS;
    char *bindings = muster_malloc(total * BINDING_CAP);
    struct store_ledger_row *rows = muster_malloc(total * sizeof *rows);
    struct store_ledger_row *raw_rows = muster_malloc(total * sizeof *raw_rows);
    if (!bindings || !rows || !raw_rows)
        die("commits", "out of memory");
    /* Rows are built before the clock starts; both sides get identical ones. */
    for (size_t i = 0; i < total; i++) {
        char *b = bindings + i * BINDING_CAP;
        snprintf(b, BINDING_CAP, "ml-training/job-%06zu", i);
        rows[i] = bench_row(b, (int64_t)i);
    }
    memcpy(raw_rows, rows, total * sizeof *rows);

    char store_path[512], raw_path[512];
    db_path(store_path, sizeof store_path, "store.db");
    db_path(raw_path, sizeof raw_path, "raw.db");
    db_remove(store_path);
    db_remove(raw_path);
    struct store *s = bench_open(store_path, STORE_SYNC_FULL); /* the default durability */
    struct raw raw = {0};
    raw_open(&raw, raw_path);

    /* Batches alternate between the two sides, swapping who goes first, so fsync latency
     * drifts (and other load on the disk) hit both alike. */
    double t_store = 0, t_raw = 0;
    for (size_t k = 0; k < total / BATCH; k++) {
        for (int side = 0; side < 2; side++) {
            int do_store = (side == 0) == (k % 2 == 0);
            double t0 = now_s();
            if (do_store) {
                if (store_ledger_write_batch(s, rows + k * BATCH, BATCH) != 0)
                    die("store_ledger_write_batch", store_errmsg(s));
                t_store += now_s() - t0;
            } else {
                raw_write_batch(&raw, raw_rows + k * BATCH, BATCH);
                t_raw += now_s() - t0;
            }
        }
    }
    store_close(s);
    raw_close(&raw);
    db_remove(store_path);
    db_remove(raw_path);
    muster_free(bindings);
    muster_free(rows);
    muster_free(raw_rows);

    double store_rate = (double)total / t_store;
    double raw_rate = (double)total / t_raw;
    printf("BENCH store_commits_per_s %.0f rows/s\n", store_rate);
    printf("BENCH sqlite_raw_inserts_per_s %.0f rows/s\n", raw_rate);
    printf("BENCH store_commit_ratio %.3f ratio\n", store_rate / raw_rate);
}

/* ---- start-up scan ---- */

struct scan_acc {
    long rows;
    uint64_t sum; /* touches every row's fields so the walk cannot be skipped */
};

static int scan_row(void *ud, const struct store_ledger_row *r)
{
    struct scan_acc *acc = ud;
    acc->rows++;
    acc->sum += (uint64_t)r->id + (uint64_t)r->priority + (unsigned char)r->binding[0] +
                (unsigned char)r->state[0] + (unsigned char)r->request[1];
    return 0;
}

static void bench_scan(void)
{
    char path[512];
    db_path(path, sizeof path, "scan.db");
    db_remove(path);
    char *bindings = muster_malloc((size_t)SCAN_BATCH * BINDING_CAP);
    struct store_ledger_row *rows = muster_malloc((size_t)SCAN_BATCH * sizeof *rows);
    if (!bindings || !rows)
        die("scan", "out of memory");

    /* Filling is not what is measured: NORMAL and big transactions. */
    struct store *s = bench_open(path, STORE_SYNC_NORMAL);
    for (long base = 0; base < SCAN_ROWS; base += SCAN_BATCH) {
        for (long i = 0; i < SCAN_BATCH; i++) {
            char *b = bindings + i * BINDING_CAP;
            snprintf(b, BINDING_CAP, "ml-training/job-%07ld", base + i);
            rows[i] = bench_row(b, base + i);
        }
        if (store_ledger_write_batch(s, rows, SCAN_BATCH) != 0)
            die("scan fill", store_errmsg(s));
    }
    store_close(s);
    muster_free(bindings);
    muster_free(rows);

    /* Measured as musterd starts: a fresh open with the defaults, then the walk. */
    s = bench_open(path, STORE_SYNC_FULL);
    struct scan_acc acc = {0};
    double t0 = now_s();
    int rc = store_ledger_foreach_live(s, scan_row, &acc);
    double dt = now_s() - t0;
    if (rc != 0)
        die("store_ledger_foreach_live", store_errmsg(s));
    if (acc.rows != SCAN_ROWS)
        die("scan", "wrong number of live rows");
    store_close(s);
    db_remove(path);
    printf("BENCH store_scan_1m_ledger_s %.3f s\n", dt);
}

/* ---- a dispatch's writes ---- */

#define LIFE_RBS 20000
#define LIFE_PER_COMMIT 6 /* RBs' rows per transaction: what e2e's loop commits (about 0.16/RB) */

static double cpu_s(int user_only)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    return user_only ? u : u + (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* A binding's four ledger writes as a dispatch makes them (insert pending; admitted, with its
 * clusters; dispatched; running), each commit holding LIFE_PER_COMMIT bindings at each stage,
 * as the loop's flush batches them: the CPU (the process's, user and system, fdatasync
 * included) per binding. */
static void bench_lifecycle(void)
{
    static const char *const states[] = {"pending", "admitted", "dispatched", "running"};
    char path[512];
    db_path(path, sizeof path, "life.db");
    db_remove(path);
    struct store *s = bench_open(path, STORE_SYNC_FULL);
    int64_t *ids = muster_calloc(LIFE_RBS, sizeof *ids);
    char *bindings = muster_malloc((size_t)LIFE_RBS * BINDING_CAP);
    if (!ids || !bindings)
        die("lifecycle", "out of memory");
    for (int i = 0; i < LIFE_RBS; i++)
        snprintf(bindings + (size_t)i * BINDING_CAP, BINDING_CAP, "bench/e%d", i);
    struct store_ledger_row rows[4 * LIFE_PER_COMMIT];
    int at[4 * LIFE_PER_COMMIT];
    double c0 = cpu_s(0), u0 = cpu_s(1);
    for (int base = 0; base < LIFE_RBS + 3 * LIFE_PER_COMMIT; base += LIFE_PER_COMMIT) {
        size_t n = 0;
        for (int stage = 0; stage < 4; stage++) {
            for (int k = 0; k < LIFE_PER_COMMIT; k++) {
                int i = base - stage * LIFE_PER_COMMIT + k;
                if (i < 0 || i >= LIFE_RBS)
                    continue;
                struct store_ledger_row *w = &rows[n];
                int64_t t = 1700000000000 + i;
                if (stage == 0) {
                    *w = bench_row(bindings + (size_t)i * BINDING_CAP, i);
                    w->clusters = NULL;
                    w->reason = NULL;
                    w->admitted_at = 0;
                } else {
                    *w = (struct store_ledger_row){.id = ids[i], .barrier = 1};
                }
                w->state = states[stage];
                w->updated_at = t + stage;
                if (stage == 1) {
                    w->clusters = ROW_CLUSTERS;
                    w->reason = "admitted";
                    w->admitted_at = t + 1;
                }
                if (stage == 2)
                    w->dispatched_at = t + 2;
                at[n++] = i;
            }
        }
        if (n && store_ledger_write_batch(s, rows, n) != 0)
            die("lifecycle: store_ledger_write_batch", store_errmsg(s));
        for (size_t k = 0; k < n; k++)
            if (rows[k].state == states[0])
                ids[at[k]] = rows[k].id;
    }
    double cpu = cpu_s(0) - c0, user = cpu_s(1) - u0;
    store_close(s);
    db_remove(path);
    muster_free(ids);
    muster_free(bindings);
    printf("BENCH store_dispatch_writes_cpu_us_per_rb %.1f us\n", cpu * 1e6 / LIFE_RBS);
    printf("BENCH store_dispatch_writes_user_us_per_rb %.1f us\n", user * 1e6 / LIFE_RBS);
}

void bench_store(void)
{
    bench_lifecycle();
    bench_commits();
    bench_scan();
    fflush(stdout);
}
