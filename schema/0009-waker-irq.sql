-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 9: wakeups made from interrupt context.
--
-- wakeups.waker_irq: 1 when the sched_waking fired in a hard or soft interrupt or an NMI
--   (a timer ending a sleep, a device): waker_pid is then the task the interrupt hit, not
--   a task that woke this one, and lock-holder preemption counts no waker for it. 0 for
--   rows of older schemas and for sources without the flags (trace text without its
--   flags column).
ALTER TABLE wakeups ADD COLUMN waker_irq INTEGER NOT NULL DEFAULT 0;
