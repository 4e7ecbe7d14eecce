-- Who may submit to a queue (docs/queue.md, "Tenancy"): a Kubernetes label selector over the
-- hub's namespaces, as the operator wrote it (canonical JSON). NULL: the queue sets none and
-- inherits its parent's (none up to root: every namespace may submit).
ALTER TABLE queues ADD COLUMN namespace_selector TEXT
    CHECK (namespace_selector IS NULL OR
           (json_valid(namespace_selector) AND json_type(namespace_selector) = 'object'));
