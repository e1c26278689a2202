/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session is one run being analysed: events from any source go into the engine, whose
 * records go through the store's writer into the database (if one is given), and the
 * run's totals per group are kept for the summary that `schedlens record` and
 * `schedlens import` print. The recorder, the importers and the daemon all use it, so
 * every source is analysed and stored the same way.
 */
#ifndef SL_SESSION_H
#define SL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "records.h"
#include "store.h"
#include "topo.h"

struct sl_session_opts {
	const char *db_path; /* NULL: analyse without storing */
	const struct sl_topo *topo; /* NULL: placement classes are unavailable */
	const char *hostname; /* the traced host's; required when storing */
	const char *machine_id;
	struct sl_run_meta meta; /* host_id is filled in by the session */
	struct sl_engine_config engine; /* topo and run_id are filled in by the session */
	bool windows_only; /* store no per-event rows (slices, wakeups, ...) */
	bool wait_for_writer; /* imports: wait for the writer rather than drop rows */
	int page_size; /* of a database file the session creates: sl_store_opts.page_size */
	struct sl_retention retention; /* all zero: sl_retention_default() */
	bool keep_preemptions; /* with windows_only: still store preemption rows (few) */
	/*
	 * With keep_preemptions: only the preemptions an LHP drill-down needs (a same-group
	 * preemptor, a hub victim, waiters, delayed wakeups or an LHP cost); the others, most
	 * of them, are counted in the windows only. Saves the daemon most of its writer CPU.
	 */
	bool notable_preemptions_only;
	/* Called with every window record as the engine emits it (the daemon's counters). */
	void (*on_window)(void *ctx, const struct sl_window_rec *rec);
	void *on_window_ctx;
};

/*
 * Run totals of one group, summed over its window rows: the metric table's columns
 * (sums[SL_WC_...], from sl_metrics_columns), so the summary's values are sl_metric_value
 * of them, what `schedlens diff` would compute for the same windows.
 */
struct sl_group_total {
	char grp[SL_GROUP_LEN];
	double sums[SL_WC_COUNT];
	struct sl_hist latency;
};

struct sl_session_result {
	int64_t run_id; /* -1 when not stored */
	struct sl_engine_stats engine;
	struct sl_writer_stats writer;
	int nr_groups;
	struct sl_group_total *groups; /* [0] is "*", then by wakeups + switches, descending */
};

struct sl_session;

/*
 * Opens the database (creating it), stores the host and begins the run, starts the
 * writer and the engine. Returns 0 and a session, or a negative code with a message.
 */
int sl_session_open(const struct sl_session_opts *opts, struct sl_session **ret_session);

void sl_session_feed(struct sl_session *s, const struct sl_event *ev, size_t n);
void sl_session_set_tgid(struct sl_session *s, int32_t pid, int32_t tgid);
int sl_session_add_handler(struct sl_session *s, const struct sl_sched_handler *h);
int64_t sl_session_run_id(const struct sl_session *s);

/* Live figures of an open session: the engine's counters and the writer's queue. */
struct sl_session_stats {
	struct sl_engine_stats engine;
	struct sl_writer_stats writer; /* zero when not storing */
	uint64_t dropped_rows; /* writer rows refused, all types */
};

void sl_session_get_stats(const struct sl_session *s, struct sl_session_stats *ret);

/*
 * Records running totals on the open run's row (totals->end_ns 0: a progress update), so
 * a reader or a restart after a crash sees how far the run got. No-op without a store.
 */
int sl_session_update_totals(struct sl_session *s, const struct sl_run_totals *totals);

/*
 * Nothing to feed for now: the writer gets the rows it waits for (sl_writer_idle()). A
 * recording loop calls it each time round, so that a trickle of rows is committed. NULL is
 * fine.
 */
void sl_session_idle(struct sl_session *s);

/* Waits until every row emitted so far is committed (0 without a store). */
int sl_session_flush(struct sl_session *s);

/* The session's read-write store connection (NULL without one), for the caller's thread. */
struct sl_store *sl_session_store(struct sl_session *s);

/*
 * Ends the run: finishes the engine at totals->end_ns, writes everything, records the
 * totals on the run row and closes the database. Fills *ret (caller frees with
 * sl_session_result_free) even on error. The session is freed in every case.
 */
int sl_session_close(struct sl_session *s, const struct sl_run_totals *totals,
		     struct sl_session_result *ret);
/*
 * sl_session_close() that hands its store connection to the caller instead of closing it
 * (*ret_store NULL without one; the caller closes it with sl_store_close()): what an
 * import writes on the run row last needs no connection of its own, whose opening and
 * final checkpoint cost a small import a third of its time.
 */
int sl_session_close_keep_store(struct sl_session *s, const struct sl_run_totals *totals,
				struct sl_session_result *ret, struct sl_store **ret_store);

void sl_session_result_free(struct sl_session_result *r);

#endif
