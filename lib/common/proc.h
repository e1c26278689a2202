/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc says about live tasks: the thread group of a pid, for grouping threads
 * under their process (docs/metrics.md: a task's group is its thread-group leader's comm), and
 * which processes hold files open under a directory (what keeps a tracefs instance busy).
 */
#ifndef SL_PROC_H
#define SL_PROC_H

#include <stddef.h>
#include <stdint.h>

/* Tgid of pid from <proc_root>/<pid>/status ("/proc" if NULL); -1 if gone or unreadable. */
int32_t sl_proc_tgid(const char *proc_root, int32_t pid);

/*
 * Processes with an open fd on a file under dir (an absolute path, no trailing '/'), from
 * the links in <proc_root>/<pid>/fd ("/proc" if NULL), the caller's own pid included.
 * Writes "123 (sleep), 456 (sh)" into buf (truncated with "..." if it does not fit;
 * "" if none) and returns how many processes were found, or a negative errno if
 * proc_root cannot be read. Processes we may not look into are not counted.
 */
int sl_proc_holders(const char *proc_root, const char *dir, char *buf, size_t len);

#endif
