/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prometheus exposition (text format 0.0.4) of what the daemon has seen: counters summed
 * from the window records as the engine emits them (wakeups by placement class, missed
 * idle, preemptions by cause, LHP count and cost, lost events), labelled by kernel and
 * group, and gauges for the newest comparison's flagged findings. Cardinality is bounded:
 * at most SL_PROM_MAX_GROUPS groups per kernel, the rest are summed into group="other".
 * Thread-safe: the recording thread adds, HTTP threads render.
 */
#ifndef SL_METRICS_PROM_H
#define SL_METRICS_PROM_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "records.h"

#define SL_PROM_MAX_GROUPS 32
#define SL_PROM_MAX_KERNELS 4

struct sl_prom;

/* New, empty exposition; host is a constant label (may be NULL). NULL on ENOMEM. */
struct sl_prom *sl_prom_new(const char *host);
void sl_prom_free(struct sl_prom *p);

/* Adds one window record of a run on kernel (the "*" window feeds the unlabelled totals). */
void sl_prom_add_window(struct sl_prom *p, const char *kernel, const struct sl_window_rec *w);

/* Process-level values, replaced on each call. */
struct sl_prom_process {
	uint64_t events; /* delivered by the recorder, this process */
	uint64_t lost_events; /* dropped by the kernel */
	uint64_t dropped_rows; /* refused by the store's full queue */
	uint64_t runs_started;
	double uptime_s;
	int recording; /* 1 recording, 0 paused by the duty cycle */
	uint64_t db_bytes; /* the file and its WAL */
	uint64_t db_limit_bytes; /* max-db-size: cap on the used pages, 0 = none */
};

void sl_prom_set_process(struct sl_prom *p, const char *kernel, const struct sl_prom_process *proc);

/*
 * The exposition text; findings is sl_api_findings()'s object (flagged findings of the
 * newest comparison become gauges) or NULL. Caller frees. NULL on ENOMEM.
 */
char *sl_prom_render(struct sl_prom *p, const json_t *findings, size_t *ret_len);

/*
 * The window counters only, as OpenMetrics samples stamped wall_ns (Unix ns, written in
 * seconds with ms precision) and without HELP/TYPE lines: one instant of a history file
 * (prom-history.h). The caller writes the final "# EOF".
 */
void sl_prom_render_history(struct sl_prom *p, FILE *f, uint64_t wall_ns);

/* Appends s to a label value with Prometheus escaping (\\, \", \n). */
void sl_prom_escape(char *dst, size_t size, const char *s);

#endif
