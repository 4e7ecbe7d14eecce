-- A dispatched gang that grows (docs/dispatcher.md, "Scale up"): the difference waits as an
-- admission of its own, recorded on the gang's live row rather than as a row of its own, since
-- the ledger keeps one live row per binding (0002) and the delta has no life apart from the gang
-- (a scale down cancels it, a release or rollback ends it with the row). A JSON object:
-- {"replicas":4,"request":{"cpu":"4","nvidia.com/gpu":"8"},"since":1764190000000,
--  "elastic":false} -- the replicas and the whole request still to admit, when it was asked
-- for (its place in line), and whether it is an elastic gang's rest (admitted at min-member).
-- NULL: nothing waits. Once the delta is admitted the same update writes the grown request and
-- placement and clears it, in one transaction.
ALTER TABLE ledger ADD COLUMN grow TEXT
    CHECK (grow IS NULL OR (json_valid(grow) AND json_type(grow) = 'object'));
