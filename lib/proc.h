/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc says about live tasks: the thread group of a pid, for grouping threads
 * under their process (docs/metrics.md: a task's group is its thread-group leader's comm).
 */
#ifndef SL_PROC_H
#define SL_PROC_H

#include <stdint.h>

/* Tgid of pid from <proc_root>/<pid>/status ("/proc" if NULL); -1 if gone or unreadable. */
int32_t sl_proc_tgid(const char *proc_root, int32_t pid);

#endif
