/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fleet comparison through Prometheus (docs/fleet.md): the window counters schedlensd
 * exports on /metrics, read back from a Prometheus server as increases per host and step,
 * tested by the comparison of compare.h with hosts in the place of runs and steps in the
 * place of windows.
 */
#ifndef SL_COMPARE_PROM_H
#define SL_COMPARE_PROM_H

#include <stdint.h>

#include "compare.h"

struct sl_fleet_opts {
	const char *url; /* the server: "http://127.0.0.1:9090" (its /api/v1/query_range) */
	const char *matcher[2]; /* baseline, candidate series: 'kernel="6.1.0-50-amd64"' */
	uint64_t range_s; /* how far back from end_s: 86400 */
	uint64_t step_s; /* step (the windows of the test): 60 */
	uint64_t end_s; /* Unix seconds; 0: now */
	long timeout_s; /* per request: 30 */
};

void sl_fleet_opts_default(struct sl_fleet_opts *f);

/*
 * Fetches both sides' counters and tests them with o's settings (o's selection, label,
 * segments, history and store are not used: a fleet has no database). On success *ret is
 * a comparison freed with sl_comparison_free(), whose sides' runs are the hosts' ordinals
 * (desc names them). Errors: -SL_EUSAGE (bad URL or matcher, an unreachable server, an
 * error from Prometheus, no series on a side), -ENOMEM, with a message.
 */
int sl_compare_prom(const struct sl_compare_opts *o, const struct sl_fleet_opts *f,
		    struct sl_comparison **ret);

#endif
