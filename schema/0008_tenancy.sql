-- Who may submit to a queue (docs/queue.md, "Tenancy"): a Kubernetes label selector over the
-- hub's namespaces, as the operator wrote it (canonical JSON). NULL: the queue sets none and
-- inherits its parent's (none up to root: every namespace may submit).
ALTER TABLE queues ADD COLUMN namespace_selector TEXT
    CHECK (namespace_selector IS NULL OR
           (json_valid(namespace_selector) AND json_type(namespace_selector) = 'object'));

-- Kueue's LocalQueues this queue takes, as LocalQueue -> ClusterQueue in Kueue: a JSON array of
-- "<namespace>/<name>" (a workload's kueue.x-k8s.io/queue-name is a LocalQueue of its own
-- namespace). NULL: none. A LocalQueue is taken by at most one queue (the admin API checks).
ALTER TABLE queues ADD COLUMN local_queues TEXT
    CHECK (local_queues IS NULL OR (json_valid(local_queues) AND json_type(local_queues) = 'array'));

-- Limits on each namespace inside the queue's subtree, as the operator wrote them:
-- {"gangs": 2, "resources": {"nvidia.com/gpu": "8"}} (either may be absent). NULL: none.
ALTER TABLE queues ADD COLUMN namespace_limits TEXT
    CHECK (namespace_limits IS NULL OR
           (json_valid(namespace_limits) AND json_type(namespace_limits) = 'object'));

-- The same limits on each owner (the value of musterd's --owner-annotation on the workload's
-- template) inside the queue's subtree. NULL: none.
ALTER TABLE queues ADD COLUMN owner_limits TEXT
    CHECK (owner_limits IS NULL OR
           (json_valid(owner_limits) AND json_type(owner_limits) = 'object'));
