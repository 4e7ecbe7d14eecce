/* The SQLite store: queues, the admission ledger and the audit log, durable before acted on. */
#ifndef MUSTER_DISPATCHER_STORE_H
#define MUSTER_DISPATCHER_STORE_H

#include <stddef.h>
#include <stdint.h>

struct store;

/* PRAGMA synchronous. FULL is the default: a dispatch decision is acted on only after its
 * ledger row is on disk, so a power cut cannot forget a placement already made on a cluster.
 * NORMAL survives a musterd crash but may lose the last commits on a power cut. */
enum store_sync {
    STORE_SYNC_FULL = 0,
    STORE_SYNC_NORMAL = 1,
};

#define STORE_DEFAULT_BUSY_TIMEOUT_MS 5000

struct store_options {
    enum store_sync sync; /* zero value: STORE_SYNC_FULL */
    int busy_timeout_ms;  /* <= 0: STORE_DEFAULT_BUSY_TIMEOUT_MS */
};

/* A row of the queues table. Text fields are borrowed: on write the caller owns them; in a
 * foreach callback they point into SQLite's buffers and are valid only during the call. */
struct store_queue {
    const char *name;
    const char *parent; /* NULL for the root */
    int64_t weight;     /* 1..1000000 */
    int64_t priority;
    const char *state;             /* "Open", "Closed" or "Draining" */
    const char *queueing_strategy; /* "BestEffortFIFO" or "StrictFIFO" */
    const char *guarantee;   /* JSON object of quantity strings, e.g. {"cpu":"64"}; NULL: "{}" */
    const char *deserved;    /* JSON object; NULL: "{}" */
    const char *capability;  /* JSON object; NULL: "{}" */
    int64_t gang_timeout_ms; /* > 0 */
    int64_t resource_version;
    int64_t created_at; /* unix ms; kept from the first put */
    int64_t updated_at; /* unix ms */
    /* Reclaim and preemption (schema/0004_queue_preemption.sql). Zero values are the
     * defaults, as in struct queue_spec. */
    int not_reclaimable;          /* 1: reclaimable: false; 0: true */
    const char *within_queue;     /* "Never" or "LowerPriority"; NULL is "Never" */
    int64_t min_runtime_ms;       /* >= 0 */
    int64_t preempt_per_minute;   /* 0..10000; 0: no limit */
    int64_t preempt_cooldown_ms;  /* >= 0 */
    /* Read only: the queue's row of queue_preemptions (0 without one), filled by
     * store_queue_foreach; store_queue_put ignores them (store_preemptions_add counts). */
    int64_t preemptions_made, preemptions_suffered;
    const char *on_cluster_loss; /* "Requeue" or "Replace"; NULL on write: "Requeue" */
    /* Tenancy (schema/0008_tenancy.sql): the namespaceSelector as JSON text (a checked
     * metav1.LabelSelector), NULL when the queue sets none (it inherits its parent's). */
    const char *namespace_selector;
    /* Kueue LocalQueues taken, a JSON array of "<namespace>/<name>"; NULL: none. */
    const char *local_queues;
    /* Limits on each namespace in the subtree, JSON {"gangs": N, "resources": {...}}; NULL:
     * none. */
    const char *namespace_limits;
    /* The same per owner (--owner-annotation), JSON; NULL: none. */
    const char *owner_limits;
};

/* A row of the ledger. Text fields are borrowed as in struct store_queue. */
struct store_ledger_row {
    int64_t id;          /* 0 for a row not yet inserted */
    const char *binding; /* "namespace/name" of the ResourceBinding */
    const char *uid;     /* NULL is stored as "" */
    const char *queue;
    const char *request; /* JSON object: the whole gang's request */
    int64_t priority;
    const char *state;    /* pending, admitted, dispatched, running, released, rolledback */
    const char *clusters; /* JSON array, e.g. [{"name":"a","replicas":2}]; NULL: "[]" */
    const char *reason;   /* NULL is stored as "" */
    int64_t created_at;   /* unix ms */
    int64_t admitted_at;  /* unix ms; 0 means not admitted (NULL in the table) */
    int64_t updated_at;   /* unix ms */
    /* The commit protocol's facts (schema/0003_dispatch_protocol.sql). Zero values are the
     * defaults: assign mode, no barrier set by muster, first attempt, no back-off. */
    const char *mode;         /* "assign" or "resume"; NULL is "assign" */
    int barrier;              /* 1: muster set spec.suspension.dispatching itself */
    int user_dispatching;     /* what the RB had before: -1 absent, 0 false, 1 true */
    int64_t attempt;          /* rollbacks before this row */
    int64_t not_before;       /* unix ms; 0: no back-off */
    int64_t dispatched_at;    /* unix ms; 0: not yet (NULL in the table) */
    /* A cluster lost under this row's dispatch (schema/0005_cluster_loss.sql): a JSON object,
     * or NULL for none (an update with NULL keeps what the row holds). */
    const char *loss;
    /* A scale-up (or an elastic gang's rest) waiting to be admitted
     * (schema/0006_ledger_growth.sql): a JSON object. NULL keeps what the row holds on an
     * update (none on an insert); "" clears it. */
    const char *grow;
    /* A member of a gang made of several RBs (schema/0011_pod_groups.sql): its lead's row id.
     * 0: none on an insert and a read; on an update 0 keeps what the row holds and -1 clears
     * it. */
    int64_t gang_lead;
};

/* One audit record. before/after are JSON text or NULL. */
struct store_audit {
    int64_t at; /* unix ms */
    const char *actor;
    const char *action;
    const char *object;
    const char *before;
    const char *after;
};

/* A store is used from one thread (the event loop's); it is not safe to share between threads.
 *
 * Opens (creating if needed) the database at path, applies the embedded migrations newer than
 * its PRAGMA user_version, sets WAL, synchronous, busy_timeout and foreign_keys, and prepares
 * every statement. opt may be NULL for the defaults. On success *out owns the store (close it
 * with store_close). On failure *out is NULL, a message for a person is written to err (if
 * errcap > 0), and the return is MUSTER_ESCHEMA when the database was written by a newer
 * musterd or a migration failed, MUSTER_EINVAL for bad arguments, MUSTER_ENOMEM, or
 * MUSTER_ESTORE / MUSTER_EIO / MUSTER_EBUSY from SQLite. */
int store_open(const char *path, const struct store_options *opt, struct store **out, char *err,
               size_t errcap);

/* Rolls back an open transaction, finalizes the statements and closes the database.
 * NULL is a no-op. */
void store_close(struct store *s);

/* The message of the last failure on s ("" if none yet): the table, operation and what was
 * wrong, never row values (which may be secret), so it may be logged or shown by the admin API.
 * Owned by s; valid until the next failing call or store_close. */
const char *store_errmsg(const struct store *s);

/* The schema version of the open database (its PRAGMA user_version). */
int store_schema_version(const struct store *s);

/* SQLite's PRAGMA data_version: it changes when another connection (another process: the
 * leader, seen by a follower) has committed to the database since the last call, and only then.
 * 0 or an error from SQLite. */
int store_data_version(struct store *s, int64_t *out);

/* Groups the following writes in one IMMEDIATE transaction. MUSTER_EINVAL if one is already
 * open (transactions do not nest), or an error from SQLite. */
int store_begin(struct store *s);

/* Commits the transaction opened by store_begin. On failure (e.g. a deferred foreign key
 * violation, a full disk) the transaction is rolled back and the error returned; either way no
 * transaction is open afterwards. MUSTER_EINVAL if none was open. */
int store_commit(struct store *s);

/* Rolls back the open transaction. 0 if none was open, so it is safe on every error path. */
int store_rollback(struct store *s);

/* Inserts q or, if a queue of that name exists, replaces every field but created_at.
 * MUSTER_EINVAL for a missing field or a value the schema rejects (unknown state, JSON that is
 * not an object), MUSTER_ERANGE for weight or gang_timeout_ms out of range. A parent that does not
 * exist is reported at commit (MUSTER_ECONFLICT): immediately outside a transaction, or by
 * store_commit inside one, so a tree can be written parents-last. */
int store_queue_put(struct store *s, const struct store_queue *q);

/* Deletes the queue called name. MUSTER_ENOENT if there is none, MUSTER_ECONFLICT (at once or at
 * store_commit) if another queue still names it as parent. */
int store_queue_delete(struct store *s, const char *name);

/* Calls cb for every queue in name order. A non-zero return from cb stops the walk and is
 * returned. A row that fails validation (the database is external input) stops the walk with
 * MUSTER_ESTORE; rows before it were delivered. Errors found before the walk starts (bad
 * arguments, SQLite) are returned without calling cb. */
int store_queue_foreach(struct store *s, int (*cb)(void *ud, const struct store_queue *q),
                        void *ud);

/* Adds made and suffered (each >= 0) to the preemption counts of queue, creating its row at
 * the first count; updated_at is at_ms. Meant to run inside the transaction that records a
 * preemption. MUSTER_EINVAL (no queue name, a negative count), MUSTER_ECONFLICT when no queue
 * of that name exists, MUSTER_ERANGE when a count would overflow. Deleting a queue deletes its
 * counts. */
int store_preemptions_add(struct store *s, const char *queue, int64_t made, int64_t suffered,
                          int64_t at_ms);

/* Inserts row (its id is ignored) and stores the new id in *id (id may be NULL).
 * MUSTER_EEXIST if the binding already has a live row, MUSTER_EINVAL for a missing or malformed
 * field (unknown state, request not a JSON object, clusters not a JSON array). */
int store_ledger_insert(struct store *s, const struct store_ledger_row *row, int64_t *id);

/* Updates the mutable columns of the row row->id: state and updated_at always; clusters,
 * reason and request (a gang that shrank while dispatched holds less) unless NULL; admitted_at
 * unless 0. The other fields are ignored. MUSTER_ENOENT if the
 * row does not exist, MUSTER_EEXIST if it would make a second live row for its binding. */
int store_ledger_update_state(struct store *s, const struct store_ledger_row *row);

/* Writes rows[0..n) in one transaction: a row with id 0 is inserted (as store_ledger_insert)
 * and gets its new id written back into rows[i].id; a row with id > 0 is an update (as
 * store_ledger_update_state). All or nothing: on any failure everything is rolled back, the ids
 * are left as they were, and the error is returned. Inside a caller's store_begin transaction
 * the batch is a savepoint of it. */
int store_ledger_write_batch(struct store *s, struct store_ledger_row *rows, size_t n);

/* Calls cb for every row whose state is not released or rolledback, in id order. cb's row
 * points into SQLite's buffers, valid only during the call; cb must not call back into s.
 * Stopping and errors as in store_queue_foreach. */
int store_ledger_foreach_live(struct store *s,
                              int (*cb)(void *ud, const struct store_ledger_row *row), void *ud);

/* Calls cb for every row of binding ("namespace/name"), finished ones included, in id order
 * (oldest attempt first): the binding's decision history. No row is no call and 0. Rows,
 * stopping and errors as in store_ledger_foreach_live; MUSTER_EINVAL for an empty binding. */
int store_ledger_foreach_binding(struct store *s, const char *binding,
                                 int (*cb)(void *ud, const struct store_ledger_row *row), void *ud);

/* Calls cb for the last limit (1 or more) preemptions, newest first: the rolledback rows whose
 * reason starts "preempted " (a preempted victim's, dispatcher/controller/reclaim.c), whose
 * updated_at is the preemption's time. Rows, stopping and errors as in
 * store_ledger_foreach_live; MUSTER_EINVAL for no callback or a limit of 0. */
int store_ledger_foreach_preempted(struct store *s, size_t limit,
                                   int (*cb)(void *ud, const struct store_ledger_row *row),
                                   void *ud);

/* Appends rec to the audit log and stores its id in *id (id may be NULL). MUSTER_EINVAL if
 * actor, action or object is missing or before/after is not JSON. */
int store_audit_append(struct store *s, const struct store_audit *rec, int64_t *id);

/* Calls cb for at most limit audit rows whose id is above after_id, in id order (a page: pass
 * the last id seen to get the next). rec points into SQLite's buffers, valid only during the
 * call; cb must not call back into s. Stopping and errors as in store_queue_foreach. */
int store_audit_foreach(struct store *s, int64_t after_id, size_t limit,
                        int (*cb)(void *ud, int64_t id, const struct store_audit *rec), void *ud);

/* The same for the rows of one object only ("queues/team-a": who changed that queue). */
int store_audit_foreach_object(struct store *s, const char *object, int64_t after_id,
                               size_t limit,
                               int (*cb)(void *ud, int64_t id, const struct store_audit *rec),
                               void *ud);

/* The gang dialect an operator set for cluster name (schema/0009_cluster_dialect.sql): dialect
 * is "volcano", "coscheduling", "yunikorn" or "none" (the table's CHECK refuses others), NULL
 * removes the override (the dialect is detected again). at is unix ms. 0 or a MUSTER_* code. */
int store_cluster_dialect_put(struct store *s, const char *name, const char *dialect, int64_t at);

/* Calls cb for every override, by name; a non-zero return from cb stops the walk and is
 * returned. cb must not call back into s. */
int store_cluster_dialect_foreach(struct store *s,
                                  int (*cb)(void *ud, const char *name, const char *dialect),
                                  void *ud);

#endif
