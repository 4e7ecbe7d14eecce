/* The SQLite store: embedded migrations, statements prepared once, queues, ledger, audit. */
#include "dispatcher/store.h"
#include "dispatcher/store_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dispatcher/errors.h"
#include "queue/mem.h"
#include "schema/migrations.h"

enum stmt_id {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_QUEUE_PUT,
    ST_QUEUE_DELETE,
    ST_QUEUE_ALL,
    ST_PREEMPTIONS_ADD,
    ST_LEDGER_INSERT,
    ST_LEDGER_UPDATE,
    ST_LEDGER_LIVE,
    ST_LEDGER_BINDING,
    ST_LEDGER_PREEMPTED,
    ST_AUDIT_APPEND,
    ST_AUDIT_PAGE,
    ST_AUDIT_PAGE_OBJECT,
    ST_DATA_VERSION,
    ST_DIALECT_PUT,
    ST_DIALECT_DELETE,
    ST_DIALECT_ALL,
    ST_LEDGER_UPDATE_STATE,
    ST_LEDGER_UPDATE_PLACE,
    ST__COUNT
};

/* Every statement the store runs after open. Prepared once, persistent, reused with reset. */
static const char *const stmt_sql[ST__COUNT] = {
    /* IMMEDIATE takes the write lock up front, so a busy database is met at BEGIN (where
     * busy_timeout waits) rather than at the first write of a half-done batch. */
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT store_batch",
    [ST_RELEASE] = "RELEASE store_batch",
    [ST_ROLLBACK_TO] = "ROLLBACK TO store_batch",
    [ST_QUEUE_PUT] =
        "INSERT INTO queues (name, parent, weight, priority, state, queueing_strategy,"
        " guarantee, deserved, capability, gang_timeout_ms, resource_version, created_at,"
        " updated_at, reclaimable, within_queue, min_runtime_ms, preempt_per_minute,"
        " preempt_cooldown_ms, on_cluster_loss, namespace_selector, local_queues,"
        " namespace_limits, owner_limits) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
        " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)"
        " ON CONFLICT (name) DO UPDATE SET parent = excluded.parent,"
        " weight = excluded.weight, priority = excluded.priority, state = excluded.state,"
        " queueing_strategy = excluded.queueing_strategy, guarantee = excluded.guarantee,"
        " deserved = excluded.deserved, capability = excluded.capability,"
        " gang_timeout_ms = excluded.gang_timeout_ms,"
        " resource_version = excluded.resource_version, updated_at = excluded.updated_at,"
        " reclaimable = excluded.reclaimable, within_queue = excluded.within_queue,"
        " min_runtime_ms = excluded.min_runtime_ms,"
        " preempt_per_minute = excluded.preempt_per_minute,"
        " preempt_cooldown_ms = excluded.preempt_cooldown_ms,"
        " on_cluster_loss = excluded.on_cluster_loss,"
        " namespace_selector = excluded.namespace_selector,"
        " local_queues = excluded.local_queues,"
        " namespace_limits = excluded.namespace_limits, owner_limits = excluded.owner_limits",
    [ST_QUEUE_DELETE] = "DELETE FROM queues WHERE name = ?1",
    [ST_QUEUE_ALL] = "SELECT q.name, q.parent, q.weight, q.priority, q.state,"
                     " q.queueing_strategy, q.guarantee, q.deserved, q.capability,"
                     " q.gang_timeout_ms, q.resource_version, q.created_at, q.updated_at,"
                     " q.reclaimable, q.within_queue, q.min_runtime_ms, q.preempt_per_minute,"
                     " q.preempt_cooldown_ms, coalesce(p.made, 0), coalesce(p.suffered, 0),"
                     " q.on_cluster_loss, q.namespace_selector, q.local_queues,"
                     " q.namespace_limits, q.owner_limits"
                     " FROM queues AS q LEFT JOIN queue_preemptions AS p ON p.queue = q.name"
                     " ORDER BY q.name",
    /* A sum past int64 becomes a REAL in SQLite, which the STRICT table refuses: reported as
     * an overflow by store_preemptions_add. */
    [ST_PREEMPTIONS_ADD] =
        "INSERT INTO queue_preemptions (queue, made, suffered, updated_at) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT (queue) DO UPDATE SET made = made + excluded.made,"
        " suffered = suffered + excluded.suffered, updated_at = excluded.updated_at",
    [ST_LEDGER_INSERT] =
        "INSERT INTO ledger (binding, uid, queue, request, priority, state, clusters, reason,"
        " created_at, admitted_at, updated_at, mode, barrier, user_dispatching, attempt,"
        " not_before, dispatched_at, loss, grow, gang_lead)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
        " nullif(?19, ''), ?20)",
    [ST_LEDGER_UPDATE] = "UPDATE ledger SET state = ?2, clusters = coalesce(?3, clusters),"
                         " reason = coalesce(?4, reason), admitted_at = coalesce(?5, admitted_at),"
                         " updated_at = ?6, mode = coalesce(?7, mode), barrier = ?8,"
                         " user_dispatching = ?9, dispatched_at = coalesce(?10, dispatched_at),"
                         " request = coalesce(?11, request), loss = coalesce(?12, loss),"
                         " grow = CASE WHEN ?13 IS NULL THEN grow ELSE nullif(?13, '') END,"
                         " gang_lead = CASE WHEN ?14 IS NULL THEN gang_lead"
                         " ELSE nullif(?14, 0) END"
                         " WHERE id = ?1",
    /* The WHERE is the partial index ledger_live's, so SQLite walks that index in id order
     * instead of the whole history (schema/0001_init.sql). */
    [ST_LEDGER_LIVE] = "SELECT id, binding, uid, queue, request, priority, state, clusters, reason,"
                       " created_at, admitted_at, updated_at, mode, barrier, user_dispatching,"
                       " attempt, not_before, dispatched_at, loss, grow, gang_lead FROM ledger"
                       " WHERE state NOT IN ('released', 'rolledback') ORDER BY id",
    /* Walks the ledger_binding index (schema/0002_ledger_by_binding.sql). */
    [ST_LEDGER_BINDING] = "SELECT id, binding, uid, queue, request, priority, state, clusters,"
                          " reason, created_at, admitted_at, updated_at, mode, barrier,"
                          " user_dispatching, attempt, not_before, dispatched_at, loss, grow,"
                          " gang_lead FROM ledger WHERE binding = ?1 ORDER BY id",
    /* The WHERE is the partial index ledger_preempted's (schema/0007_reclaim_cooling.sql):
     * the walk reads the preemptions only, never the rest of the history. */
    [ST_LEDGER_PREEMPTED] = "SELECT id, binding, uid, queue, request, priority, state, clusters,"
                            " reason, created_at, admitted_at, updated_at, mode, barrier,"
                            " user_dispatching, attempt, not_before, dispatched_at, loss, grow,"
                            " gang_lead FROM ledger WHERE state = 'rolledback'"
                            " AND substr(reason, 1, 10) = 'preempted ' ORDER BY id DESC LIMIT ?1",
    [ST_AUDIT_APPEND] = "INSERT INTO audit (at, actor, action, object, before, after)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_AUDIT_PAGE] = "SELECT id, at, actor, action, object, before, after FROM audit"
                      " WHERE id > ?1 ORDER BY id LIMIT ?2",
    [ST_AUDIT_PAGE_OBJECT] = "SELECT id, at, actor, action, object, before, after FROM audit"
                             " WHERE id > ?1 AND object = ?3 ORDER BY id LIMIT ?2",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_DIALECT_PUT] = "INSERT INTO cluster_dialect (name, dialect, updated_at) VALUES (?1, ?2, ?3)"
                       " ON CONFLICT (name) DO UPDATE SET dialect = excluded.dialect,"
                       " updated_at = excluded.updated_at",
    [ST_DIALECT_DELETE] = "DELETE FROM cluster_dialect WHERE name = ?1",
    [ST_DIALECT_ALL] = "SELECT name, dialect FROM cluster_dialect ORDER BY name",
    /* ST_LEDGER_UPDATE for a row whose text columns all stay (a dispatched or running row, the
     * most common writes): SQLite then skips the CHECKs of the columns not SET (json_valid and
     * json_type of request and clusters, each a parse of the text) and runs fewer opcodes. The
     * same numbers as ST_LEDGER_UPDATE, so one binding code serves the three. */
    [ST_LEDGER_UPDATE_STATE] = "UPDATE ledger SET state = ?2,"
                               " admitted_at = coalesce(?5, admitted_at), updated_at = ?6,"
                               " mode = coalesce(?7, mode), barrier = ?8, user_dispatching = ?9,"
                               " dispatched_at = coalesce(?10, dispatched_at) WHERE id = ?1",
    /* ...and for one that writes its placement and reason only (an admission): request's
     * CHECK (two parses) is skipped too. */
    [ST_LEDGER_UPDATE_PLACE] = "UPDATE ledger SET state = ?2, clusters = coalesce(?3, clusters),"
                               " reason = coalesce(?4, reason),"
                               " admitted_at = coalesce(?5, admitted_at), updated_at = ?6,"
                               " mode = coalesce(?7, mode), barrier = ?8, user_dispatching = ?9,"
                               " dispatched_at = coalesce(?10, dispatched_at) WHERE id = ?1",
};

struct store {
    sqlite3 *db;
    sqlite3_stmt *st[ST__COUNT];
    int schema_version;
    int iterating; /* inside a foreach callback: the read statement is still stepping */
    char errmsg[256];
};

static const char *const queue_states[] = {"Open", "Closed", "Draining"};
static const char *const queue_strategies[] = {"BestEffortFIFO", "StrictFIFO"};
static const char *const queue_withins[] = {"Never", "LowerPriority"};
#define STORE_PREEMPT_PER_MINUTE_MAX 10000 /* schema/0004_queue_preemption.sql's CHECK */
static const char *const queue_on_loss[] = {"Requeue", "Replace"};
static const char *const ledger_states[] = {"pending", "admitted", "dispatched",
                                            "running", "released", "rolledback"};
/* The first four of ledger_states are live: what ST_LEDGER_LIVE may return. */
#define LEDGER_LIVE_STATES 4
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The one place SQLite result codes become muster codes. Extended codes are on, so constraint
 * failures can be told apart: a duplicate is the caller's conflict, a CHECK is a bad value. */
int store__code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return 0;
    case SQLITE_NOMEM:
        return MUSTER_ENOMEM;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return MUSTER_EBUSY;
    case SQLITE_CONSTRAINT:
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            return MUSTER_EEXIST;
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            return MUSTER_ECONFLICT;
        return MUSTER_EINVAL;
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
        return MUSTER_EINVAL;
    case SQLITE_TOOBIG:
        return MUSTER_ELIMIT;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return MUSTER_EIO;
    default: /* SQLITE_ERROR, CORRUPT, NOTADB, SCHEMA, ...: the database itself is wrong */
        return MUSTER_ESTORE;
    }
}

void store__msg_set(char *buf, size_t cap, const char *fmt, ...)
{
    if (!buf || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

/* Records a SQLite failure of operation `what` and returns its muster code. SQLite's own
 * message names tables, columns and constraints but never bound values, so no row data (which
 * may be secret) reaches the buffer. */
static int store_fail(struct store *s, int rc, const char *what)
{
    store__msg_set(s->errmsg, sizeof s->errmsg, "%s: %s", what, sqlite3_errmsg(s->db));
    return store__code(rc);
}

static int store_invalid(struct store *s, int code, const char *what, const char *why)
{
    store__msg_set(s->errmsg, sizeof s->errmsg, "%s: %s", what, why);
    return code;
}

/* Common entry check: a store in the middle of a foreach must not be re-entered, since the
 * read statement still holds its cursor. */
static int store_enter(struct store *s)
{
    if (!s)
        return MUSTER_EINVAL;
    if (s->iterating)
        return store_invalid(s, MUSTER_EBUSY, "store", "called from inside a foreach callback");
    return 0;
}

/* Rolls back whatever transaction is open, ignoring errors: used on failure paths, where the
 * first error is the one to report and an I/O error may already have rolled back. */
static void store_rollback_quietly(struct store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return;
    sqlite3_step(s->st[ST_ROLLBACK]);
    sqlite3_reset(s->st[ST_ROLLBACK]);
}

/* Steps a write statement to completion and resets it for the next use. */
static int step_done(struct store *s, enum stmt_id id, const char *what)
{
    sqlite3_stmt *st = s->st[id];
    int rc = sqlite3_step(st);
    int err = 0;
    if (rc != SQLITE_DONE)
        err = store_fail(s, rc, what);
    sqlite3_reset(st);
    return err;
}

static int bind_text(sqlite3_stmt *st, int idx, const char *v)
{
    if (!v)
        return sqlite3_bind_null(st, idx);
    /* STATIC: the caller's string outlives the step; the statement is reset before return. */
    return sqlite3_bind_text(st, idx, v, -1, SQLITE_STATIC);
}

static int in_set(const char *v, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v, set[i]) == 0)
            return 1;
    }
    return 0;
}

int64_t store__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- open / close ---- */

/* Runs a PRAGMA that answers one text row and copies the answer into out. */
static int pragma_text(sqlite3 *db, const char *sql, char *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    out[0] = '\0';
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char *t = sqlite3_column_text(st, 0);
            snprintf(out, cap, "%s", t ? (const char *)t : "");
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* Connection settings that must hold before anything is written. */
static int configure(struct store *s, const char *path, enum store_sync sync, int busy_ms,
                     char *err, size_t errcap)
{
    sqlite3 *db = s->db;
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, busy_ms);

    char mode[32];
    int rc = pragma_text(db, "PRAGMA journal_mode = WAL", mode, sizeof mode);
    if (rc != SQLITE_OK) {
        store__msg_set(err, errcap, "store: %s: setting WAL mode: %s", path, sqlite3_errmsg(db));
        return store__code(rc);
    }
    /* In-memory and temporary databases (tests) have no file and cannot use WAL. */
    const char *file = sqlite3_db_filename(db, "main");
    if (file && file[0] && strcmp(mode, "wal") != 0) {
        store__msg_set(err, errcap, "store: %s: WAL mode refused (journal_mode is %s)", path, mode);
        return MUSTER_ESTORE;
    }
    rc = sqlite3_exec(
        db, sync == STORE_SYNC_NORMAL ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL",
        NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        store__msg_set(err, errcap, "store: %s: setting synchronous: %s", path, sqlite3_errmsg(db));
        return store__code(rc);
    }
    return 0;
}

static void store_free(struct store *s)
{
    for (size_t i = 0; i < ST__COUNT; i++)
        sqlite3_finalize(s->st[i]);
    /* close_v2 so a statement we failed to finalize cannot leave the handle open forever. */
    sqlite3_close_v2(s->db);
    muster_free(s);
}

int store_open(const char *path, const struct store_options *opt, struct store **out, char *err,
               size_t errcap)
{
    store__msg_set(err, errcap, "%s", "");
    if (out)
        *out = NULL;
    if (!path || !out) {
        store__msg_set(err, errcap, "store: open: no path or no result pointer");
        return MUSTER_EINVAL;
    }
    enum store_sync sync = opt ? opt->sync : STORE_SYNC_FULL;
    int busy_ms =
        opt && opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms : STORE_DEFAULT_BUSY_TIMEOUT_MS;
    if (sync != STORE_SYNC_FULL && sync != STORE_SYNC_NORMAL) {
        store__msg_set(err, errcap, "store: open: unknown synchronous setting %d", (int)sync);
        return MUSTER_EINVAL;
    }

    struct store *s = muster_calloc(1, sizeof *s);
    if (!s) {
        store__msg_set(err, errcap, "store: open: out of memory");
        return MUSTER_ENOMEM;
    }
    /* SQLite's allocation statistics (sqlite3_memory_used, the soft heap limit: muster reads
     * neither) take a global mutex around every malloc and free it makes, a few per row
     * written. A process-wide setting, accepted only before SQLite's first use: later it
     * answers SQLITE_MISUSE and changes nothing, which is fine. */
    static int memstatus_off;
    if (!memstatus_off) {
        memstatus_off = 1;
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    }
    /* NOMUTEX: a store belongs to the event loop thread; SQLite's per-call mutex is waste. */
    int rc = sqlite3_open_v2(
        path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        store__msg_set(err, errcap, "store: open %s: %s", path,
                       s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        int code = store__code(rc);
        store_free(s);
        return code;
    }
    int code = configure(s, path, sync, busy_ms, err, errcap);
    if (code == 0)
        code = store__migrate(s->db, schema_migrations, schema_migrations_count, err, errcap);
    /* After the migrations, not before: a migration that rebuilds a table must run with
     * foreign keys off (SQLite's documented ALTER procedure); store__migrate checks them. */
    if (code == 0) {
        char fk[8];
        rc = sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = pragma_text(s->db, "PRAGMA foreign_keys", fk, sizeof fk);
        if (rc != SQLITE_OK || strcmp(fk, "1") != 0) {
            store__msg_set(err, errcap, "store: %s: foreign keys cannot be enabled", path);
            code = rc != SQLITE_OK ? store__code(rc) : MUSTER_ESTORE;
        }
    }
    if (code == 0) {
        rc = store__read_user_version(s->db, &s->schema_version);
        if (rc != SQLITE_OK) {
            store__msg_set(err, errcap, "store: %s: read user_version: %s", path,
                           sqlite3_errmsg(s->db));
            code = store__code(rc);
        }
    }
    for (size_t i = 0; code == 0 && i < ST__COUNT; i++) {
        rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
        if (rc != SQLITE_OK) {
            /* The schema is not the one this binary expects (or was tampered with). */
            store__msg_set(err, errcap, "store: %s: preparing statement %zu: %s", path, i,
                           sqlite3_errmsg(s->db));
            code = store__migration_code(rc);
        }
    }
    if (code != 0) {
        store_free(s);
        return code;
    }
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    store_rollback_quietly(s);
    /* Lets SQLite refresh planner statistics it found missing; cheap when nothing changed. */
    sqlite3_exec(s->db, "PRAGMA optimize", NULL, NULL, NULL);
    store_free(s);
}

const char *store_errmsg(const struct store *s)
{
    return s ? s->errmsg : "no store";
}

sqlite3 *store__db(struct store *s)
{
    return s ? s->db : NULL;
}

int store_schema_version(const struct store *s)
{
    return s ? s->schema_version : 0;
}

int store_data_version(struct store *s, int64_t *out)
{
    int err = store_enter(s);
    if (err)
        return err;
    sqlite3_stmt *st = s->st[ST_DATA_VERSION];
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        err = store_fail(s, rc, "data version");
    sqlite3_reset(st);
    return err;
}

/* ---- transactions ---- */

int store_begin(struct store *s)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!sqlite3_get_autocommit(s->db))
        return store_invalid(s, MUSTER_EINVAL, "begin", "a transaction is already open");
    return step_done(s, ST_BEGIN, "begin");
}

int store_commit(struct store *s)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (sqlite3_get_autocommit(s->db))
        return store_invalid(s, MUSTER_EINVAL, "commit", "no transaction is open");
    err = step_done(s, ST_COMMIT, "commit");
    /* A failed COMMIT (deferred foreign key, BUSY) leaves the transaction open; the contract
     * is that none is open afterwards, so the caller has one state to reason about. */
    if (err)
        store_rollback_quietly(s);
    return err;
}

int store_rollback(struct store *s)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (sqlite3_get_autocommit(s->db))
        return 0;
    return step_done(s, ST_ROLLBACK, "rollback");
}

/* ---- queues ---- */

static int queue_check(struct store *s, const struct store_queue *q)
{
    const char *what = "queues: put";
    if (!q)
        return store_invalid(s, MUSTER_EINVAL, what, "no queue");
    if (!q->name || !q->name[0])
        return store_invalid(s, MUSTER_EINVAL, what, "name is missing");
    if (q->parent && !q->parent[0])
        return store_invalid(s, MUSTER_EINVAL, what, "parent is empty (use NULL for the root)");
    if (!q->state || !in_set(q->state, queue_states, COUNT_OF(queue_states)))
        return store_invalid(s, MUSTER_EINVAL, what, "state is not Open, Closed or Draining");
    if (!q->queueing_strategy ||
        !in_set(q->queueing_strategy, queue_strategies, COUNT_OF(queue_strategies)))
        return store_invalid(s, MUSTER_EINVAL, what,
                             "queueing_strategy is not BestEffortFIFO or StrictFIFO");
    if (q->weight < 1 || q->weight > 1000000)
        return store_invalid(s, MUSTER_ERANGE, what, "weight is outside 1..1000000");
    if (q->gang_timeout_ms <= 0)
        return store_invalid(s, MUSTER_ERANGE, what, "gang_timeout_ms is not positive");
    if (q->not_reclaimable < 0 || q->not_reclaimable > 1)
        return store_invalid(s, MUSTER_EINVAL, what, "not_reclaimable is neither 0 nor 1");
    if (q->within_queue && !in_set(q->within_queue, queue_withins, COUNT_OF(queue_withins)))
        return store_invalid(s, MUSTER_EINVAL, what, "within_queue is not Never or LowerPriority");
    if (q->min_runtime_ms < 0 || q->preempt_cooldown_ms < 0)
        return store_invalid(s, MUSTER_ERANGE, what,
                             "min_runtime_ms or preempt_cooldown_ms is "
                             "negative");
    if (q->preempt_per_minute < 0 || q->preempt_per_minute > STORE_PREEMPT_PER_MINUTE_MAX)
        return store_invalid(s, MUSTER_ERANGE, what, "preempt_per_minute is outside 0..10000");
    if (q->on_cluster_loss && !in_set(q->on_cluster_loss, queue_on_loss, COUNT_OF(queue_on_loss)))
        return store_invalid(s, MUSTER_EINVAL, what, "on_cluster_loss is not Requeue or Replace");
    return 0;
}

int store_queue_put(struct store *s, const struct store_queue *q)
{
    int err = store_enter(s);
    if (err)
        return err;
    err = queue_check(s, q);
    if (err)
        return err;
    sqlite3_stmt *st = s->st[ST_QUEUE_PUT];
    int rc = bind_text(st, 1, q->name);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, q->parent);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, q->weight);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 4, q->priority);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 5, q->state);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 6, q->queueing_strategy);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 7, q->guarantee ? q->guarantee : "{}");
    if (rc == SQLITE_OK)
        rc = bind_text(st, 8, q->deserved ? q->deserved : "{}");
    if (rc == SQLITE_OK)
        rc = bind_text(st, 9, q->capability ? q->capability : "{}");
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 10, q->gang_timeout_ms);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 11, q->resource_version);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 12, q->created_at);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 13, q->updated_at);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 14, !q->not_reclaimable);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 15, q->within_queue ? q->within_queue : "Never");
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 16, q->min_runtime_ms);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 17, q->preempt_per_minute);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 18, q->preempt_cooldown_ms);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 19, q->on_cluster_loss ? q->on_cluster_loss : "Requeue");
    if (rc == SQLITE_OK)
        rc = bind_text(st, 20, q->namespace_selector);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 21, q->local_queues);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 22, q->namespace_limits);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 23, q->owner_limits);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "queues: put: bind");
    return step_done(s, ST_QUEUE_PUT, "queues: put");
}

int store_queue_delete(struct store *s, const char *name)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!name || !name[0])
        return store_invalid(s, MUSTER_EINVAL, "queues: delete", "name is missing");
    sqlite3_stmt *st = s->st[ST_QUEUE_DELETE];
    int rc = bind_text(st, 1, name);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "queues: delete: bind");
    err = step_done(s, ST_QUEUE_DELETE, "queues: delete");
    if (err == MUSTER_ECONFLICT)
        return store_invalid(s, err, "queues: delete", "another queue still names it as parent");
    if (err)
        return err;
    if (sqlite3_changes(s->db) == 0)
        return store_invalid(s, MUSTER_ENOENT, "queues: delete", "no such queue");
    return 0;
}

/* Column readers for rows coming out of SQLite, which is treated as external input: a wrong
 * type is reported, never coerced. 0, MUSTER_ESTORE or MUSTER_ENOMEM. */
static int col_text(sqlite3_stmt *st, int i, int nullable, const char **out)
{
    int t = sqlite3_column_type(st, i);
    if (t == SQLITE_NULL && nullable) {
        *out = NULL;
        return 0;
    }
    if (t != SQLITE_TEXT)
        return MUSTER_ESTORE;
    *out = (const char *)sqlite3_column_text(st, i);
    return *out ? 0 : MUSTER_ENOMEM;
}

static int col_int(sqlite3_stmt *st, int i, int nullable, int64_t *out)
{
    int t = sqlite3_column_type(st, i);
    if (t == SQLITE_NULL && nullable) {
        *out = 0;
        return 0;
    }
    if (t != SQLITE_INTEGER)
        return MUSTER_ESTORE;
    *out = sqlite3_column_int64(st, i);
    return 0;
}

static const char *const queue_cols[] = {
    "name",
    "parent",
    "weight",
    "priority",
    "state",
    "queueing_strategy",
    "guarantee",
    "deserved",
    "capability",
    "gang_timeout_ms",
    "resource_version",
    "created_at",
    "updated_at",
    "reclaimable",
    "within_queue",
    "min_runtime_ms",
    "preempt_per_minute",
    "preempt_cooldown_ms",
    "queue_preemptions.made",
    "queue_preemptions.suffered",
    "on_cluster_loss",
    "namespace_selector",
    "local_queues",
    "namespace_limits",
    "owner_limits",
};

/* Fills q from the current row of ST_QUEUE_ALL; a bad column is named in s->errmsg. */
static int queue_row(struct store *s, sqlite3_stmt *st, struct store_queue *q)
{
    int bad = 0;
    int err = col_text(st, 0, 0, &q->name);
    if (!err && !q->name[0])
        err = MUSTER_ESTORE;
    if (!err) {
        bad = 1;
        err = col_text(st, 1, 1, &q->parent);
        if (!err && q->parent && !q->parent[0])
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 2;
        err = col_int(st, 2, 0, &q->weight);
        if (!err && (q->weight < 1 || q->weight > 1000000))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 3;
        err = col_int(st, 3, 0, &q->priority);
    }
    if (!err) {
        bad = 4;
        err = col_text(st, 4, 0, &q->state);
        if (!err && !in_set(q->state, queue_states, COUNT_OF(queue_states)))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 5;
        err = col_text(st, 5, 0, &q->queueing_strategy);
        if (!err && !in_set(q->queueing_strategy, queue_strategies, COUNT_OF(queue_strategies)))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 6;
        err = col_text(st, 6, 0, &q->guarantee);
    }
    if (!err) {
        bad = 7;
        err = col_text(st, 7, 0, &q->deserved);
    }
    if (!err) {
        bad = 8;
        err = col_text(st, 8, 0, &q->capability);
    }
    if (!err) {
        bad = 9;
        err = col_int(st, 9, 0, &q->gang_timeout_ms);
        if (!err && q->gang_timeout_ms <= 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 10;
        err = col_int(st, 10, 0, &q->resource_version);
    }
    if (!err) {
        bad = 11;
        err = col_int(st, 11, 0, &q->created_at);
    }
    if (!err) {
        bad = 12;
        err = col_int(st, 12, 0, &q->updated_at);
    }
    int64_t reclaimable = 1;
    if (!err) {
        bad = 13;
        err = col_int(st, 13, 0, &reclaimable);
        if (!err && reclaimable != 0 && reclaimable != 1)
            err = MUSTER_ESTORE;
        q->not_reclaimable = !reclaimable;
    }
    if (!err) {
        bad = 14;
        err = col_text(st, 14, 0, &q->within_queue);
        if (!err && !in_set(q->within_queue, queue_withins, COUNT_OF(queue_withins)))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 15;
        err = col_int(st, 15, 0, &q->min_runtime_ms);
        if (!err && q->min_runtime_ms < 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 16;
        err = col_int(st, 16, 0, &q->preempt_per_minute);
        if (!err &&
            (q->preempt_per_minute < 0 || q->preempt_per_minute > STORE_PREEMPT_PER_MINUTE_MAX))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 17;
        err = col_int(st, 17, 0, &q->preempt_cooldown_ms);
        if (!err && q->preempt_cooldown_ms < 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 18;
        err = col_int(st, 18, 0, &q->preemptions_made);
        if (!err && q->preemptions_made < 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 19;
        err = col_int(st, 19, 0, &q->preemptions_suffered);
        if (!err && q->preemptions_suffered < 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 20;
        err = col_text(st, 20, 0, &q->on_cluster_loss);
        if (!err && !in_set(q->on_cluster_loss, queue_on_loss, COUNT_OF(queue_on_loss)))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 21;
        err = col_text(st, 21, 1, &q->namespace_selector); /* the table's CHECK keeps it JSON */
    }
    if (!err) {
        bad = 22;
        err = col_text(st, 22, 1, &q->local_queues);
    }
    if (!err) {
        bad = 23;
        err = col_text(st, 23, 1, &q->namespace_limits);
    }
    if (!err) {
        bad = 24;
        err = col_text(st, 24, 1, &q->owner_limits);
    }
    if (err == MUSTER_ESTORE)
        store__msg_set(s->errmsg, sizeof s->errmsg,
                       "queues: read: column %s holds an invalid value", queue_cols[bad]);
    else if (err)
        store_invalid(s, err, "queues: read", "out of memory");
    return err;
}

/* Steps st to its end, handing each row to each_row (which decodes it and calls the caller's
 * callback); a non-zero return stops the walk and is returned. The statement is reset either
 * way, and s refuses re-entry while rows are being handed out. */
static int store_walk(struct store *s, sqlite3_stmt *st, const char *what,
                      int (*each_row)(struct store *s, sqlite3_stmt *st, void *ctx), void *ctx)
{
    int err = 0;
    s->iterating = 1;
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            err = store_fail(s, rc, what);
            break;
        }
        err = each_row(s, st, ctx);
        if (err)
            break;
    }
    s->iterating = 0;
    sqlite3_reset(st);
    return err;
}

struct queue_walk {
    int (*cb)(void *ud, const struct store_queue *q);
    void *ud;
};

static int queue_each_row(struct store *s, sqlite3_stmt *st, void *ctx)
{
    struct queue_walk *w = ctx;
    struct store_queue q;
    int err = queue_row(s, st, &q);
    return err ? err : w->cb(w->ud, &q);
}

int store_queue_foreach(struct store *s, int (*cb)(void *ud, const struct store_queue *q), void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!cb)
        return store_invalid(s, MUSTER_EINVAL, "queues: foreach", "no callback");
    struct queue_walk w = {cb, ud};
    return store_walk(s, s->st[ST_QUEUE_ALL], "queues: read", queue_each_row, &w);
}

int store_preemptions_add(struct store *s, const char *queue, int64_t made, int64_t suffered,
                          int64_t at_ms)
{
    const char *what = "queue_preemptions: add";
    int err = store_enter(s);
    if (err)
        return err;
    if (!queue || !queue[0])
        return store_invalid(s, MUSTER_EINVAL, what, "queue is missing");
    if (made < 0 || suffered < 0)
        return store_invalid(s, MUSTER_EINVAL, what, "a count is negative");
    sqlite3_stmt *st = s->st[ST_PREEMPTIONS_ADD];
    int rc = bind_text(st, 1, queue);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 2, made);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, suffered);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 4, at_ms);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "queue_preemptions: add: bind");
    err = step_done(s, ST_PREEMPTIONS_ADD, what);
    if (err == MUSTER_ECONFLICT)
        return store_invalid(s, err, what, "no such queue");
    if (err == MUSTER_EINVAL) /* made + n past int64 becomes a REAL, which STRICT refuses */
        return store_invalid(s, MUSTER_ERANGE, what, "a count would overflow");
    return err;
}

/* ---- ledger ---- */

/* The commit protocol's columns: the same ranges as the table's CHECKs, caught before any
 * transaction starts. */
static int ledger_check_protocol(struct store *s, const struct store_ledger_row *r,
                                 const char *what)
{
    if (r->mode && strcmp(r->mode, "assign") != 0 && strcmp(r->mode, "resume") != 0)
        return store_invalid(s, MUSTER_EINVAL, what, "mode is neither assign nor resume");
    if (r->barrier < 0 || r->barrier > 1)
        return store_invalid(s, MUSTER_EINVAL, what, "barrier is neither 0 nor 1");
    if (r->user_dispatching < -1 || r->user_dispatching > 1)
        return store_invalid(s, MUSTER_EINVAL, what, "user_dispatching is not -1, 0 or 1");
    if (r->attempt < 0 || r->not_before < 0 || r->dispatched_at < 0)
        return store_invalid(s, MUSTER_ERANGE, what, "attempt or a time is negative");
    if (r->gang_lead < -1)
        return store_invalid(s, MUSTER_EINVAL, what, "gang_lead is below -1");
    return 0;
}

static int ledger_check_insert(struct store *s, const struct store_ledger_row *r)
{
    const char *what = "ledger: insert";
    if (!r)
        return store_invalid(s, MUSTER_EINVAL, what, "no row");
    if (!r->binding || !r->binding[0])
        return store_invalid(s, MUSTER_EINVAL, what, "binding is missing");
    if (!r->queue || !r->queue[0])
        return store_invalid(s, MUSTER_EINVAL, what, "queue is missing");
    if (!r->request)
        return store_invalid(s, MUSTER_EINVAL, what, "request is missing");
    if (!r->state || !in_set(r->state, ledger_states, COUNT_OF(ledger_states)))
        return store_invalid(s, MUSTER_EINVAL, what, "state is not a ledger state");
    if (r->admitted_at < 0)
        return store_invalid(s, MUSTER_ERANGE, what, "admitted_at is negative");
    return ledger_check_protocol(s, r, what);
}

static int ledger_check_update(struct store *s, const struct store_ledger_row *r)
{
    const char *what = "ledger: update";
    if (!r)
        return store_invalid(s, MUSTER_EINVAL, what, "no row");
    if (r->id <= 0)
        return store_invalid(s, MUSTER_EINVAL, what, "id is not positive");
    if (!r->state || !in_set(r->state, ledger_states, COUNT_OF(ledger_states)))
        return store_invalid(s, MUSTER_EINVAL, what, "state is not a ledger state");
    if (r->admitted_at < 0)
        return store_invalid(s, MUSTER_ERANGE, what, "admitted_at is negative");
    return ledger_check_protocol(s, r, what);
}

/* Runs one checked insert; the caller owns the transaction. */
static int ledger_insert_one(struct store *s, const struct store_ledger_row *r, int64_t *id)
{
    sqlite3_stmt *st = s->st[ST_LEDGER_INSERT];
    int rc = bind_text(st, 1, r->binding);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, r->uid ? r->uid : "");
    if (rc == SQLITE_OK)
        rc = bind_text(st, 3, r->queue);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 4, r->request);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 5, r->priority);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 6, r->state);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 7, r->clusters ? r->clusters : "[]");
    if (rc == SQLITE_OK)
        rc = bind_text(st, 8, r->reason ? r->reason : "");
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 9, r->created_at);
    if (rc == SQLITE_OK)
        rc =
            r->admitted_at ? sqlite3_bind_int64(st, 10, r->admitted_at) : sqlite3_bind_null(st, 10);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 11, r->updated_at);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 12, r->mode ? r->mode : "assign");
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 13, r->barrier);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 14, r->user_dispatching);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 15, r->attempt);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 16, r->not_before);
    if (rc == SQLITE_OK)
        rc = r->dispatched_at ? sqlite3_bind_int64(st, 17, r->dispatched_at)
                              : sqlite3_bind_null(st, 17);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 18, r->loss);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 19, r->grow);
    if (rc == SQLITE_OK)
        rc =
            r->gang_lead > 0 ? sqlite3_bind_int64(st, 20, r->gang_lead) : sqlite3_bind_null(st, 20);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "ledger: insert: bind");
    int err = step_done(s, ST_LEDGER_INSERT, "ledger: insert");
    if (err == MUSTER_EEXIST)
        return store_invalid(s, err, "ledger: insert", "the binding already has a live row");
    if (!err)
        *id = sqlite3_last_insert_rowid(s->db);
    return err;
}

static int ledger_update_one(struct store *s, const struct store_ledger_row *r)
{
    /* NULL text and gang_lead 0 keep what the row holds: the statement that leaves them out */
    enum stmt_id id = ST_LEDGER_UPDATE;
    if (!r->request && !r->loss && !r->grow && r->gang_lead == 0)
        id = r->clusters || r->reason ? ST_LEDGER_UPDATE_PLACE : ST_LEDGER_UPDATE_STATE;
    sqlite3_stmt *st = s->st[id];
    int rc = sqlite3_bind_int64(st, 1, r->id);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, r->state);
    if (rc == SQLITE_OK && id != ST_LEDGER_UPDATE_STATE)
        rc = bind_text(st, 3, r->clusters);
    if (rc == SQLITE_OK && id != ST_LEDGER_UPDATE_STATE)
        rc = bind_text(st, 4, r->reason);
    if (rc == SQLITE_OK)
        rc = r->admitted_at ? sqlite3_bind_int64(st, 5, r->admitted_at) : sqlite3_bind_null(st, 5);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 6, r->updated_at);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 7, r->mode);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 8, r->barrier);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 9, r->user_dispatching);
    if (rc == SQLITE_OK)
        rc = r->dispatched_at ? sqlite3_bind_int64(st, 10, r->dispatched_at)
                              : sqlite3_bind_null(st, 10);
    if (id == ST_LEDGER_UPDATE) {
        if (rc == SQLITE_OK)
            rc = bind_text(st, 11, r->request);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 12, r->loss);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 13, r->grow);
        if (rc == SQLITE_OK) /* 0 keeps it, -1 clears it */
            rc = r->gang_lead ? sqlite3_bind_int64(st, 14, r->gang_lead < 0 ? 0 : r->gang_lead)
                              : sqlite3_bind_null(st, 14);
    }
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "ledger: update: bind");
    int err = step_done(s, id, "ledger: update");
    if (err == MUSTER_EEXIST)
        return store_invalid(s, err, "ledger: update", "the binding already has a live row");
    if (err)
        return err;
    if (sqlite3_changes(s->db) == 0)
        return store_invalid(s, MUSTER_ENOENT, "ledger: update", "no row with that id");
    return 0;
}

int store_ledger_insert(struct store *s, const struct store_ledger_row *row, int64_t *id)
{
    int err = store_enter(s);
    if (err)
        return err;
    err = ledger_check_insert(s, row);
    if (err)
        return err;
    int64_t newid = 0;
    err = ledger_insert_one(s, row, &newid);
    if (!err && id)
        *id = newid;
    return err;
}

int store_ledger_update_state(struct store *s, const struct store_ledger_row *row)
{
    int err = store_enter(s);
    if (err)
        return err;
    err = ledger_check_update(s, row);
    if (err)
        return err;
    return ledger_update_one(s, row);
}

int store_ledger_write_batch(struct store *s, struct store_ledger_row *rows, size_t n)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!rows && n > 0)
        return store_invalid(s, MUSTER_EINVAL, "ledger: batch", "no rows");
    if (n == 0)
        return 0;
    /* Check everything first: a bad row is the caller's bug and costs no transaction. */
    for (size_t i = 0; i < n; i++) {
        if (rows[i].id < 0)
            return store_invalid(s, MUSTER_EINVAL, "ledger: batch", "negative id");
        err = rows[i].id == 0 ? ledger_check_insert(s, &rows[i]) : ledger_check_update(s, &rows[i]);
        if (err)
            return err;
    }
    int own = sqlite3_get_autocommit(s->db);
    err = step_done(s, own ? ST_BEGIN : ST_SAVEPOINT, "ledger: batch: begin");
    if (err)
        return err;
    /* New ids are parked negated in rows[] until the commit holds: a failure then knows which
     * rows to put back to 0 without allocating, and callers never see an id that was undone. */
    for (size_t i = 0; i < n && !err; i++) {
        if (rows[i].id == 0) {
            int64_t id = 0;
            err = ledger_insert_one(s, &rows[i], &id);
            if (!err)
                rows[i].id = -id;
        } else {
            err = ledger_update_one(s, &rows[i]);
        }
    }
    if (!err)
        err = step_done(s, own ? ST_COMMIT : ST_RELEASE, "ledger: batch: commit");
    if (err) {
        /* Undo errors are ignored: the first failure is the one to report, and an I/O error
         * may already have rolled the transaction back. */
        if (own) {
            store_rollback_quietly(s);
        } else if (!sqlite3_get_autocommit(s->db)) {
            sqlite3_step(s->st[ST_ROLLBACK_TO]);
            sqlite3_reset(s->st[ST_ROLLBACK_TO]);
            sqlite3_step(s->st[ST_RELEASE]);
            sqlite3_reset(s->st[ST_RELEASE]);
        }
        for (size_t i = 0; i < n; i++) {
            if (rows[i].id < 0)
                rows[i].id = 0;
        }
        return err;
    }
    for (size_t i = 0; i < n; i++) {
        if (rows[i].id < 0)
            rows[i].id = -rows[i].id;
    }
    return 0;
}

static const char *const ledger_cols[] = {
    "id",          "binding",    "uid",           "queue",   "request",
    "priority",    "state",      "clusters",      "reason",  "created_at",
    "admitted_at", "updated_at", "mode",          "barrier", "user_dispatching",
    "attempt",     "not_before", "dispatched_at", "loss",    "grow",
    "gang_lead",
};

/* Fills r from the current row of ST_LEDGER_LIVE (which runs once per live row at start-up) or
 * ST_LEDGER_BINDING: type checks and a few strcmp, nothing allocated. nstates is how many of
 * ledger_states the row may hold: LEDGER_LIVE_STATES for the live walk, all for history. */
static int ledger_row(struct store *s, sqlite3_stmt *st, size_t nstates, struct store_ledger_row *r)
{
    int bad = 0;
    int err = col_int(st, 0, 0, &r->id);
    if (!err && r->id <= 0)
        err = MUSTER_ESTORE;
    if (!err) {
        bad = 1;
        err = col_text(st, 1, 0, &r->binding);
        if (!err && !r->binding[0])
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 2;
        err = col_text(st, 2, 0, &r->uid);
    }
    if (!err) {
        bad = 3;
        err = col_text(st, 3, 0, &r->queue);
        if (!err && !r->queue[0])
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 4;
        err = col_text(st, 4, 0, &r->request);
    }
    if (!err) {
        bad = 5;
        err = col_int(st, 5, 0, &r->priority);
    }
    if (!err) {
        bad = 6;
        err = col_text(st, 6, 0, &r->state);
        if (!err && !in_set(r->state, ledger_states, nstates))
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 7;
        err = col_text(st, 7, 0, &r->clusters);
    }
    if (!err) {
        bad = 8;
        err = col_text(st, 8, 0, &r->reason);
    }
    if (!err) {
        bad = 9;
        err = col_int(st, 9, 0, &r->created_at);
    }
    if (!err) {
        bad = 10;
        err = col_int(st, 10, 1, &r->admitted_at);
    }
    if (!err) {
        bad = 11;
        err = col_int(st, 11, 0, &r->updated_at);
    }
    if (!err) {
        bad = 12;
        err = col_text(st, 12, 0, &r->mode);
        if (!err && strcmp(r->mode, "assign") != 0 && strcmp(r->mode, "resume") != 0)
            err = MUSTER_ESTORE;
    }
    int64_t v = 0;
    if (!err) {
        bad = 13;
        err = col_int(st, 13, 0, &v);
        if (!err && (v < 0 || v > 1))
            err = MUSTER_ESTORE;
        r->barrier = (int)v;
    }
    if (!err) {
        bad = 14;
        err = col_int(st, 14, 0, &v);
        if (!err && (v < -1 || v > 1))
            err = MUSTER_ESTORE;
        r->user_dispatching = (int)v;
    }
    if (!err) {
        bad = 15;
        err = col_int(st, 15, 0, &r->attempt);
        if (!err && r->attempt < 0)
            err = MUSTER_ESTORE;
    }
    if (!err) {
        bad = 16;
        err = col_int(st, 16, 0, &r->not_before);
    }
    if (!err) {
        bad = 17;
        err = col_int(st, 17, 1, &r->dispatched_at);
    }
    if (!err) {
        bad = 18;
        err = col_text(st, 18, 1, &r->loss);
    }
    if (!err) {
        bad = 19;
        err = col_text(st, 19, 1, &r->grow);
    }
    if (!err) {
        bad = 20;
        r->gang_lead = 0;
        err = col_int(st, 20, 1, &r->gang_lead);
        if (!err && r->gang_lead < 0)
            err = MUSTER_ESTORE;
    }
    if (err == MUSTER_ESTORE)
        /* The id is ours, not the user's: safe to name so an operator can find the row. */
        store__msg_set(s->errmsg, sizeof s->errmsg,
                       "ledger: read: row %lld: column %s holds an "
                       "invalid value",
                       (long long)sqlite3_column_int64(st, 0), ledger_cols[bad]);
    else if (err)
        store_invalid(s, err, "ledger: read", "out of memory");
    return err;
}

struct ledger_walk {
    int (*cb)(void *ud, const struct store_ledger_row *row);
    void *ud;
    size_t nstates;
};

static int ledger_each_row(struct store *s, sqlite3_stmt *st, void *ctx)
{
    struct ledger_walk *w = ctx;
    struct store_ledger_row r;
    int err = ledger_row(s, st, w->nstates, &r);
    return err ? err : w->cb(w->ud, &r);
}

int store_ledger_foreach_live(struct store *s,
                              int (*cb)(void *ud, const struct store_ledger_row *row), void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!cb)
        return store_invalid(s, MUSTER_EINVAL, "ledger: foreach", "no callback");
    struct ledger_walk w = {cb, ud, LEDGER_LIVE_STATES};
    return store_walk(s, s->st[ST_LEDGER_LIVE], "ledger: read", ledger_each_row, &w);
}

int store_ledger_foreach_binding(struct store *s, const char *binding,
                                 int (*cb)(void *ud, const struct store_ledger_row *row), void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!cb || !binding || !binding[0])
        return store_invalid(s, MUSTER_EINVAL, "ledger: history", "no callback or binding");
    sqlite3_stmt *st = s->st[ST_LEDGER_BINDING];
    int rc = bind_text(st, 1, binding);
    if (rc != SQLITE_OK) {
        sqlite3_reset(st);
        return store_fail(s, rc, "ledger: history: bind");
    }
    struct ledger_walk w = {cb, ud, COUNT_OF(ledger_states)};
    err = store_walk(s, st, "ledger: read", ledger_each_row, &w);
    sqlite3_clear_bindings(st);
    return err;
}

int store_ledger_foreach_preempted(struct store *s, size_t limit,
                                   int (*cb)(void *ud, const struct store_ledger_row *row),
                                   void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!cb || limit == 0 || limit > INT64_MAX)
        return store_invalid(s, MUSTER_EINVAL, "ledger: preemptions", "no callback or limit");
    sqlite3_stmt *st = s->st[ST_LEDGER_PREEMPTED];
    int rc = sqlite3_bind_int64(st, 1, (sqlite3_int64)limit);
    if (rc != SQLITE_OK) {
        sqlite3_reset(st);
        return store_fail(s, rc, "ledger: preemptions: bind");
    }
    struct ledger_walk w = {cb, ud, COUNT_OF(ledger_states)};
    err = store_walk(s, st, "ledger: read", ledger_each_row, &w);
    sqlite3_clear_bindings(st);
    return err;
}

/* ---- audit ---- */

int store_audit_append(struct store *s, const struct store_audit *rec, int64_t *id)
{
    int err = store_enter(s);
    if (err)
        return err;
    const char *what = "audit: append";
    if (!rec)
        return store_invalid(s, MUSTER_EINVAL, what, "no record");
    if (!rec->actor || !rec->actor[0] || !rec->action || !rec->action[0] || !rec->object ||
        !rec->object[0])
        return store_invalid(s, MUSTER_EINVAL, what, "actor, action or object is missing");
    sqlite3_stmt *st = s->st[ST_AUDIT_APPEND];
    int rc = sqlite3_bind_int64(st, 1, rec->at);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, rec->actor);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 3, rec->action);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 4, rec->object);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 5, rec->before);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 6, rec->after);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "audit: append: bind");
    err = step_done(s, ST_AUDIT_APPEND, what);
    if (!err && id)
        *id = sqlite3_last_insert_rowid(s->db);
    return err;
}

struct audit_walk {
    int (*cb)(void *ud, int64_t id, const struct store_audit *rec);
    void *ud;
};

static int audit_each_row(struct store *s, sqlite3_stmt *st, void *ctx)
{
    struct audit_walk *w = ctx;
    int64_t id = 0;
    struct store_audit a;
    int err = col_int(st, 0, 0, &id);
    if (!err)
        err = col_int(st, 1, 0, &a.at);
    if (!err)
        err = col_text(st, 2, 0, &a.actor);
    if (!err)
        err = col_text(st, 3, 0, &a.action);
    if (!err)
        err = col_text(st, 4, 0, &a.object);
    if (!err)
        err = col_text(st, 5, 1, &a.before);
    if (!err)
        err = col_text(st, 6, 1, &a.after);
    if (err == MUSTER_ESTORE)
        store__msg_set(s->errmsg, sizeof s->errmsg, "audit: read: row %lld is invalid",
                       (long long)id);
    else if (err)
        store_invalid(s, err, "audit: read", "out of memory");
    return err ? err : w->cb(w->ud, id, &a);
}

int store_audit_foreach(struct store *s, int64_t after_id, size_t limit,
                        int (*cb)(void *ud, int64_t id, const struct store_audit *rec), void *ud)
{
    return store_audit_foreach_object(s, NULL, after_id, limit, cb, ud);
}

int store_audit_foreach_object(struct store *s, const char *object, int64_t after_id, size_t limit,
                               int (*cb)(void *ud, int64_t id, const struct store_audit *rec),
                               void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    if (!cb)
        return store_invalid(s, MUSTER_EINVAL, "audit: foreach", "no callback");
    sqlite3_stmt *st = s->st[object ? ST_AUDIT_PAGE_OBJECT : ST_AUDIT_PAGE];
    int rc = sqlite3_bind_int64(st, 1, after_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 2, limit > INT64_MAX ? INT64_MAX : (int64_t)limit);
    if (rc == SQLITE_OK && object)
        rc = bind_text(st, 3, object);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "audit: foreach: bind");
    struct audit_walk w = {cb, ud};
    return store_walk(s, st, "audit: read", audit_each_row, &w);
}

/* ---- cluster gang dialects (schema/0009_cluster_dialect.sql) ---- */

int store_cluster_dialect_put(struct store *s, const char *name, const char *dialect, int64_t at)
{
    int err = store_enter(s);
    if (err)
        return err;
    const char *what = "cluster dialect: put";
    if (!name || !name[0])
        return store_invalid(s, MUSTER_EINVAL, what, "no cluster name");
    enum stmt_id id = dialect ? ST_DIALECT_PUT : ST_DIALECT_DELETE;
    sqlite3_stmt *st = s->st[id];
    int rc = bind_text(st, 1, name);
    if (rc == SQLITE_OK && dialect)
        rc = bind_text(st, 2, dialect);
    if (rc == SQLITE_OK && dialect)
        rc = sqlite3_bind_int64(st, 3, at);
    if (rc != SQLITE_OK) {
        sqlite3_reset(st);
        return store_fail(s, rc, "cluster dialect: put: bind");
    }
    return step_done(s, id, what);
}

int store_cluster_dialect_foreach(struct store *s,
                                  int (*cb)(void *ud, const char *name, const char *dialect),
                                  void *ud)
{
    int err = store_enter(s);
    if (err)
        return err;
    sqlite3_stmt *st = s->st[ST_DIALECT_ALL];
    int rc;
    s->iterating = 1;
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(st, 0),
                   *d = (const char *)sqlite3_column_text(st, 1);
        err = n && d ? cb(ud, n, d) : store_invalid(s, MUSTER_ESTORE, "cluster dialect", "null");
    }
    s->iterating = 0;
    if (!err && rc != SQLITE_DONE)
        err = store_fail(s, rc, "cluster dialect: read");
    sqlite3_reset(st);
    return err;
}
