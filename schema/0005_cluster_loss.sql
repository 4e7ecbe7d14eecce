-- What a queue does with a dispatched gang when a cluster holding a share of it is lost
-- (docs/dispatcher.md, "A cluster lost"): Requeue rolls the whole gang back and requeues it in
-- its place in line; Replace places the lost share again on other clusters, else requeues.
ALTER TABLE queues ADD COLUMN on_cluster_loss TEXT NOT NULL DEFAULT 'Requeue'
    CHECK (on_cluster_loss IN ('Requeue', 'Replace'));

-- A cluster lost under the row's dispatch, and the decision, as a structured record beside the
-- reason sentence: {"cluster":"m2","trigger":"NotReady","detail":"NotReady for 5m0s",
-- "decision":"Requeue","from":[{"name":"m2","replicas":2},...]} where "from" is the placement
-- the gang held when the cluster was lost. Written on the rolledback row of a Requeue and on the
-- pending row it inserts (so a restart still says why the binding waits; it stays on that row
-- once admitted), and on the row a Replace admits again with the new placement (whose own
-- clusters then replace "from"). NULL: no loss.
ALTER TABLE ledger ADD COLUMN loss TEXT
    CHECK (loss IS NULL OR (json_valid(loss) AND json_type(loss) = 'object'));
