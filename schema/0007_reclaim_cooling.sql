-- Reclaim's cooling history survives a restart (issue 18, docs/reclaim.md "Cooling"). A
-- preemption's record is already here: its victim's rolledback row, whose reason musterd writes
-- as "preempted ..." (dispatcher/controller/reclaim.c) and whose updated_at is the preemption's
-- time. Start-up reads the last ones back; finished rows pile up over months, so that read walks
-- this index of the preemptions alone, newest first. Same WHERE as the store's query
-- (ST_LEDGER_PREEMPTED in dispatcher/store.c).
CREATE INDEX ledger_preempted ON ledger (id)
    WHERE state = 'rolledback' AND substr(reason, 1, 10) = 'preempted ';
