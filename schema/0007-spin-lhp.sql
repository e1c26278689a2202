-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 6: lock-holder preemption with spinning waiters, apart from sleeping ones.
-- A spinner of a preemption is a task of the victim's group that went to sleep while the
-- victim was off-CPU and was woken by no member of its group (a timer: a spinlock's
-- back-off, like PostgreSQL's s_lock) before the victim's LHP horizon passed.
--
-- preemptions.spinners: such tasks (hubs excluded); spin_cost_ns: the sum over them of
--   t1 - the start of their first such sleep. Rows of older schemas read 0.
-- windows.spin_count: preemptions with at least one spinner; spin_cost_ns: their cost.
ALTER TABLE preemptions ADD COLUMN spinners INTEGER NOT NULL DEFAULT 0;
ALTER TABLE preemptions ADD COLUMN spin_cost_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE windows ADD COLUMN spin_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE windows ADD COLUMN spin_cost_ns INTEGER NOT NULL DEFAULT 0;
