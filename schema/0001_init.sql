-- muster's first schema: the queue tree, the admission ledger and the audit log.
-- Quantities are kept as written (JSON objects of Kubernetes quantity strings) so the API
-- returns what the operator wrote; the engine parses them when it loads.
-- Never edit this file once released: add a new NNNN_name.sql (docs/store.md, Migrations).

-- One row per applied migration; the store writes it in the migration's own transaction.
CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL            -- unix milliseconds
) STRICT;

CREATE TABLE queues (
    name              TEXT    PRIMARY KEY,
    -- NULL only for root. Deferred so a whole tree can be written in one transaction in any
    -- order; the check runs at COMMIT.
    parent            TEXT    REFERENCES queues (name) DEFERRABLE INITIALLY DEFERRED,
    weight            INTEGER NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 1000000),
    priority          INTEGER NOT NULL DEFAULT 0,
    state             TEXT    NOT NULL DEFAULT 'Open'
                      CHECK (state IN ('Open', 'Closed', 'Draining')),
    queueing_strategy TEXT    NOT NULL DEFAULT 'BestEffortFIFO'
                      CHECK (queueing_strategy IN ('BestEffortFIFO', 'StrictFIFO')),
    guarantee         TEXT    NOT NULL DEFAULT '{}'   -- {"cpu":"64","nvidia.com/gpu":"8"}
                      CHECK (json_valid(guarantee) AND json_type(guarantee) = 'object'),
    deserved          TEXT    NOT NULL DEFAULT '{}'
                      CHECK (json_valid(deserved) AND json_type(deserved) = 'object'),
    capability        TEXT    NOT NULL DEFAULT '{}'
                      CHECK (json_valid(capability) AND json_type(capability) = 'object'),
    gang_timeout_ms   INTEGER NOT NULL DEFAULT 300000 CHECK (gang_timeout_ms > 0),
    resource_version  INTEGER NOT NULL DEFAULT 1,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

-- The foreign key looks children up by parent on every delete.
CREATE INDEX queues_parent ON queues (parent);

-- root and default always exist (the engine makes them too); queues name them as parents.
INSERT INTO queues (name, parent, created_at, updated_at)
VALUES ('root', NULL, CAST(strftime('%s', 'now') AS INTEGER) * 1000,
        CAST(strftime('%s', 'now') AS INTEGER) * 1000),
       ('default', 'root', CAST(strftime('%s', 'now') AS INTEGER) * 1000,
        CAST(strftime('%s', 'now') AS INTEGER) * 1000);

-- One row per admission attempt of a binding. A binding has at most one row that is not
-- finished (released or rolled back); a requeued binding gets a new row.
CREATE TABLE ledger (
    id          INTEGER PRIMARY KEY,
    binding     TEXT    NOT NULL,           -- namespace/name of the ResourceBinding
    uid         TEXT    NOT NULL DEFAULT '',
    queue       TEXT    NOT NULL,
    request     TEXT    NOT NULL            -- {"cpu":"4","nvidia.com/gpu":"8"}: the whole gang
                CHECK (json_valid(request) AND json_type(request) = 'object'),
    priority    INTEGER NOT NULL DEFAULT 0,
    state       TEXT    NOT NULL
                CHECK (state IN ('pending', 'admitted', 'dispatched', 'running',
                                 'released', 'rolledback')),
    clusters    TEXT    NOT NULL DEFAULT '[]'   -- [{"name":"a","replicas":2}]
                CHECK (json_valid(clusters) AND json_type(clusters) = 'array'),
    reason      TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    admitted_at INTEGER,                    -- NULL until admitted
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX ledger_one_live_row ON ledger (binding)
    WHERE state NOT IN ('released', 'rolledback');
-- Start-up walks the live rows in id order; finished rows pile up over months, so the walk
-- goes through this index instead of scanning history. Same WHERE as the store's query.
CREATE INDEX ledger_live ON ledger (id) WHERE state NOT IN ('released', 'rolledback');

-- Who changed what through the admin API. before/after are the object as JSON (NULL when it
-- did not exist before / no longer exists after).
CREATE TABLE audit (
    id      INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,               -- unix milliseconds
    actor   TEXT    NOT NULL,               -- token name, never the token
    action  TEXT    NOT NULL,               -- e.g. queue.create, queue.update, ledger.release
    object  TEXT    NOT NULL,               -- e.g. queues/team-a
    before  TEXT    CHECK (before IS NULL OR json_valid(before)),
    after   TEXT    CHECK (after IS NULL OR json_valid(after))
) STRICT;

CREATE INDEX audit_at ON audit (at);
