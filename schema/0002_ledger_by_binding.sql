-- A binding's decision history (GET /api/v1/bindings/{namespace}/{name}) reads every row of one
-- binding, finished ones included; without this index that is a scan of the whole ledger.
-- Rows of one binding come out of it in id order (the rowid is the index's last column).
CREATE INDEX ledger_binding ON ledger (binding);
