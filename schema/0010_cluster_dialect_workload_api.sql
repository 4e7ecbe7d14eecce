-- Issue 19: the Kubernetes Workload API (scheduling.k8s.io/v1alpha2 PodGroups) as a member's gang
-- dialect, 'workload-api' (docs/gangobj.md "Dialects"). SQLite cannot change a CHECK in place, so
-- the table is rebuilt with its rows.
CREATE TABLE cluster_dialect_next (
    name TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 253),
    dialect TEXT NOT NULL
        CHECK (dialect IN ('volcano', 'coscheduling', 'yunikorn', 'none', 'workload-api')),
    updated_at INTEGER NOT NULL
);
INSERT INTO cluster_dialect_next (name, dialect, updated_at)
    SELECT name, dialect, updated_at FROM cluster_dialect;
DROP TABLE cluster_dialect;
ALTER TABLE cluster_dialect_next RENAME TO cluster_dialect;
