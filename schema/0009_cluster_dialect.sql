-- The gang dialect an operator set for a member cluster through the admin API
-- (PATCH /api/v1/clusters/{name}, docs/gangobj.md "Dialects"). No row: muster detects the
-- dialect from the Cluster's status.apiEnablements. Kept by name, not by the Cluster object, so
-- an override set before the cluster joins (or while it is away) holds when it (re)appears.
CREATE TABLE cluster_dialect (
    name TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 253),
    dialect TEXT NOT NULL CHECK (dialect IN ('volcano', 'coscheduling', 'yunikorn', 'none')),
    updated_at INTEGER NOT NULL
);
