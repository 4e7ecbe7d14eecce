-- Issue 18: the reclaim and preemption fields of a queue, and the preemptions it made and
-- suffered. Every column's default is the field's default, so queues written before this
-- migration read back as reclaimable, withinQueue Never, no minRuntime, no rate limit and no
-- cool-down.
--   reclaimable          1: its unused guarantee may be lent while musterd lends (--reclaim).
--   within_queue         preemption.withinQueue.
--   min_runtime_ms       preemption.minRuntime: a gang younger than this is never a victim.
--   preempt_per_minute   preemption.maxPerMinute: gangs of this queue preempted in any
--                        minute at most; 0: no limit.
--   preempt_cooldown_ms  preemption.cooldown: a preempted gang is not preempted again sooner.
ALTER TABLE queues ADD COLUMN reclaimable INTEGER NOT NULL DEFAULT 1
    CHECK (reclaimable IN (0, 1));
ALTER TABLE queues ADD COLUMN within_queue TEXT NOT NULL DEFAULT 'Never'
    CHECK (within_queue IN ('Never', 'LowerPriority'));
ALTER TABLE queues ADD COLUMN min_runtime_ms INTEGER NOT NULL DEFAULT 0
    CHECK (min_runtime_ms >= 0);
ALTER TABLE queues ADD COLUMN preempt_per_minute INTEGER NOT NULL DEFAULT 0
    CHECK (preempt_per_minute BETWEEN 0 AND 10000);
ALTER TABLE queues ADD COLUMN preempt_cooldown_ms INTEGER NOT NULL DEFAULT 0
    CHECK (preempt_cooldown_ms >= 0);

-- Preemptions, counted per queue for as long as the queue exists: made (gangs preempted so a
-- gang of this queue could run) and suffered (gangs of this queue preempted). Status, not spec:
-- a count never changes a queue's resourceVersion, so it lives beside the queue, and a queue
-- without a row has made and suffered none. The eviction increments them in the transaction
-- that records its decision (store_preemptions_add).
CREATE TABLE queue_preemptions (
    queue      TEXT    PRIMARY KEY REFERENCES queues (name) ON DELETE CASCADE,
    made       INTEGER NOT NULL DEFAULT 0 CHECK (made >= 0),
    suffered   INTEGER NOT NULL DEFAULT 0 CHECK (suffered >= 0),
    updated_at INTEGER NOT NULL             -- unix milliseconds
) STRICT;
