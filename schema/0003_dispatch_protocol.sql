-- What the dispatcher needs to resume or undo the commit protocol after a crash (DESIGN.md,
-- "The commit protocol"), and to keep a requeued binding's back-off across restarts.
--   mode          assign: muster placed the replicas; resume: it only lifted the suspension.
--   barrier       1 when muster itself set spec.suspension.dispatching as the barrier, so it
--                 must restore what the user had (user_dispatching) when it lifts it.
--   user_dispatching  the RB's spec.suspension.dispatching before muster touched it:
--                 -1 absent, 0 false, 1 true. Meaningful only with barrier = 1.
--   attempt       how many times this binding was rolled back before this row.
--   not_before    unix ms: a requeued binding is not admitted before this (back-off).
--   dispatched_at unix ms: when every share was released; the gang timeout counts from here.
ALTER TABLE ledger ADD COLUMN mode TEXT NOT NULL DEFAULT 'assign'
    CHECK (mode IN ('assign', 'resume'));
ALTER TABLE ledger ADD COLUMN barrier INTEGER NOT NULL DEFAULT 0 CHECK (barrier IN (0, 1));
ALTER TABLE ledger ADD COLUMN user_dispatching INTEGER NOT NULL DEFAULT -1
    CHECK (user_dispatching BETWEEN -1 AND 1);
ALTER TABLE ledger ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0 CHECK (attempt >= 0);
ALTER TABLE ledger ADD COLUMN not_before INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN dispatched_at INTEGER;
