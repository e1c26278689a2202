/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A database's windows as the history of the counters schedlensd exports on /metrics: an
 * OpenMetrics file whose samples carry the wall time each window ended, for
 * `promtool tsdb create-blocks-from openmetrics` (docs/fleet.md). The values are what a
 * daemon that recorded those runs would have exported at those instants.
 */
#ifndef SL_PROM_HISTORY_H
#define SL_PROM_HISTORY_H

#include <stdio.h>

#include "store.h"

/*
 * Writes every run's windows of store to out, in wall-time order, one instant per window
 * end (all series of that window's host), then "# EOF". Counters accumulate per host label
 * (the run's hostname, or host when not NULL) and kernel as in schedlensd. *ret_instants,
 * when not NULL, is how many instants were written. 0, -ENOENT (no windows), -SL_EDB,
 * -EIO, -ENOMEM with a message.
 */
int sl_prom_history_write(struct sl_store *store, const char *host, FILE *out,
			  size_t *ret_instants);

#endif
