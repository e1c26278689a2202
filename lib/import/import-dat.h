/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.dat reading through libtracecmd: file versions 6 and 7, compressed or not, the top
 * buffer and every buffer instance (`trace-cmd record -B name`), all CPUs, merged by
 * timestamp. Sched records are decoded with lib/sched-fields (offsets resolved once), and
 * the sched_switch prev_state encoding is derived from the file's own print fmt by
 * printing probe records through libtraceevent, so the R+ bit is right for the traced
 * kernel, whatever it was.
 */
#ifndef SL_IMPORT_DAT_H
#define SL_IMPORT_DAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct sl_dat;

/* What the file says about the traced host. Strings are owned by the sl_dat. */
struct sl_dat_info {
	unsigned long file_version; /* 6 or 7 */
	int nr_cpus;
	int nr_instances; /* buffer instances besides the top buffer */
	const char *hostname; /* from the uname option; NULL if absent */
	const char *kernel_release; /* likewise */
	const char *kernel_version;
	const char *trace_clock; /* "local", "mono", ...; NULL if absent */
	bool has_waking; /* sched_waking is in the file's formats */
	const char *reader; /* "schedlens" (lib/import/dat-file.c) or "libtracecmd" (the fallback) */
};

/*
 * Opens a trace.dat and resolves the sched event fields. Our own reader is used unless the
 * file needs libtracecmd or the environment says SL_DAT_READER=libtracecmd (to cross-check
 * a file, or to work around a reader bug). Returns 0 and a handle (free with
 * sl_dat_close()), or a negative code with a message: -SL_EFORMAT (not a trace.dat or an
 * unsupported one), -SL_ETRACE (no sched_switch or wakeup events recorded).
 */
int sl_dat_open(const char *path, struct sl_dat **ret_dat);
void sl_dat_close(struct sl_dat *d);
const struct sl_dat_info *sl_dat_info(const struct sl_dat *d);

/*
 * Calls batch with the file's sched events in timestamp order, in batches; a lost-events
 * marker precedes a record after which the file says events were missed. CPUs at or
 * above max_cpus (0: the file's CPU count) and timestamps going backwards on a CPU are
 * errors naming the record's file offset. batch returning nonzero stops the walk and is
 * returned. *ret_records counts every record read (sched or not).
 */
int sl_dat_read(struct sl_dat *d, int max_cpus,
		int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		uint64_t *ret_records);

/* Bytes of the file (for progress) and the offset of the last record read. */
uint64_t sl_dat_size(const struct sl_dat *d);
uint64_t sl_dat_offset(const struct sl_dat *d);
/*
 * libtracecmd runs in a child process that sends the decoded events (a crash there is a
 * corrupt file, not ours): ends that child if it still runs and returns its CPU seconds
 * (0 if none ran or d is NULL), which belong to the import's CPU time.
 */
double sl_dat_child_cpu_s(struct sl_dat *d);

#endif
