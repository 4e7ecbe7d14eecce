-- muster's first schema: the queue tree and the admission ledger.
-- Quantities are kept as written (JSON objects of Kubernetes quantity strings) so the API
-- returns what the operator wrote; the engine parses them when it loads.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL            -- unix milliseconds
) STRICT;

CREATE TABLE queues (
    name              TEXT    PRIMARY KEY,
    parent            TEXT,                -- NULL only for root
    weight            INTEGER NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 1000000),
    priority          INTEGER NOT NULL DEFAULT 0,
    state             TEXT    NOT NULL DEFAULT 'Open'
                      CHECK (state IN ('Open', 'Closed', 'Draining')),
    queueing_strategy TEXT    NOT NULL DEFAULT 'BestEffortFIFO'
                      CHECK (queueing_strategy IN ('BestEffortFIFO', 'StrictFIFO')),
    guarantee         TEXT    NOT NULL DEFAULT '{}',   -- {"cpu":"64","nvidia.com/gpu":"8"}
    deserved          TEXT    NOT NULL DEFAULT '{}',
    capability        TEXT    NOT NULL DEFAULT '{}',
    gang_timeout_ms   INTEGER NOT NULL DEFAULT 300000 CHECK (gang_timeout_ms > 0),
    resource_version  INTEGER NOT NULL DEFAULT 1,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

-- One row per admission attempt of a binding. A binding has at most one row that is not
-- finished (released or rolled back); a requeued binding gets a new row.
CREATE TABLE ledger (
    id          INTEGER PRIMARY KEY,
    binding     TEXT    NOT NULL,           -- namespace/name of the ResourceBinding
    uid         TEXT    NOT NULL DEFAULT '',
    queue       TEXT    NOT NULL,
    request     TEXT    NOT NULL,           -- {"cpu":"4","nvidia.com/gpu":"8"}: the whole gang
    priority    INTEGER NOT NULL DEFAULT 0,
    state       TEXT    NOT NULL
                CHECK (state IN ('pending', 'admitted', 'dispatched', 'running',
                                 'released', 'rolledback')),
    clusters    TEXT    NOT NULL DEFAULT '[]',  -- [{"name":"a","replicas":2}]
    reason      TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    admitted_at INTEGER,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX ledger_one_live_row ON ledger (binding)
    WHERE state NOT IN ('released', 'rolledback');
CREATE INDEX ledger_live_state ON ledger (state) WHERE state NOT IN ('released', 'rolledback');
