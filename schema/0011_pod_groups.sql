-- One gang made of several ResourceBindings (docs/dispatcher.md, "One gang, several RBs"): the
-- Pods of a Kueue pod group (or of a hub PodGroup larger than one Pod) are one RB each, and one of
-- them, the lead, holds the gang: its row carries the summed request and the placement, and the
-- engine holds it alone. Each other member's row, once the gang is admitted, names the lead's row
-- here, so a restart knows which rows the lead's entry already counts (the start-up load skips
-- them) and which RBs the lead's commit protocol patches. NULL: a gang of its own (or a member
-- still waiting, which holds nothing). Cleared when the gang is rolled back.
ALTER TABLE ledger ADD COLUMN gang_lead INTEGER CHECK (gang_lead IS NULL OR gang_lead > 0);
