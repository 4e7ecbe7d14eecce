-- What a queue does with a dispatched gang when a cluster holding a share of it is lost
-- (docs/dispatcher.md, "A cluster lost"): Requeue rolls the whole gang back and requeues it in
-- its place in line; Replace places the lost share again on other clusters, else requeues.
ALTER TABLE queues ADD COLUMN on_cluster_loss TEXT NOT NULL DEFAULT 'Requeue'
    CHECK (on_cluster_loss IN ('Requeue', 'Replace'));
