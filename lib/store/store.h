/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SQLite store: one file that the recorder or daemon writes while the CLI and the
 * HTTP API read it. sl_store_open() opens (or creates) the file, refuses files that are
 * not ours or newer than this binary, and migrates older ones with the embedded
 * schema/NNNN-*.sql in one transaction. Hosts and runs are written directly; the bulk
 * rows (slices, wakeups, preemptions, tasks, windows, CPU counts) go through a writer
 * thread fed by a bounded queue that never blocks the caller: when it is full a row is
 * dropped and counted, and the count is stored in runs.dropped_rows. Retention deletes old
 * rows by whole chunks. Every function returns 0 or a negative code with a message naming
 * the file and what to do (sl_errmsg()).
 */
#ifndef SL_STORE_H
#define SL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

struct sl_store;
struct sl_writer;
struct sqlite3;

enum sl_store_flags {
	SL_STORE_CREATE = 1 << 0, /* create the file if missing (the directory must exist) */
	SL_STORE_RDONLY = 1 << 1, /* reader: never writes, never migrates */
	/* a new file's schema through every migration instead of schema/current.sql in one
	 * step (tests/unit/t-store-current.c compares the two) */
	SL_STORE_BY_MIGRATIONS = 1 << 2,
};

struct sl_store_opts {
	unsigned int flags; /* enum sl_store_flags */
	unsigned int busy_ms; /* wait this long for a lock before -EBUSY; 0 = 5000 */
	int schema_version; /* migrate only up to this version; 0 = latest (tests) */
	int64_t max_page_count; /* hard size limit in pages, beyond it writes fail as
				    with a full disk; 0 = none (tests, tiny devices) */
	/*
	 * Page size of a file this open creates (a power of two, 512-65536); 0 = SQLite's
	 * 4096. Fixed for the file's life: SQLite cannot change it in WAL mode.
	 */
	int page_size;
};

/*
 * The page size of files created by one-shot bulk writers (import, record): a quarter of
 * the writer's write and read system calls of 4 KiB pages (each page goes to the WAL,
 * then to the file at checkpoint). The daemon keeps 4 KiB: a quiet host's commits rewrite
 * a few pages each, four times the bytes with 16 KiB ones. README, "Importing traces".
 */
#define SL_STORE_BULK_PAGE_SIZE 16384

/*
 * Opens the store at path with default options and the given flags. On success
 * *ret_store is set and the caller closes it with sl_store_close(). Errors: -ENOENT (no
 * file and no SL_STORE_CREATE), -SL_EFORMAT (not a schedlens database), -SL_ESCHEMA (newer
 * than this binary, or older and opened read-only), -EBUSY (locked), -EROFS, -ENOSPC,
 * -SL_EDB (corrupt or other).
 */
int sl_store_open(const char *path, unsigned int flags, struct sl_store **ret_store);
/* The same with explicit options (opts may be NULL). */
int sl_store_open_opts(const char *path, const struct sl_store_opts *opts,
		       struct sl_store **ret_store);
/* Closes the store; NULL is fine. Stop its writers first. */
void sl_store_close(struct sl_store *store);

/* The file name given at open; owned by the store. */
const char *sl_store_path(const struct sl_store *store);
/* The schema version of the open file (SL_SCHEMA_VERSION once migrated). */
int sl_store_schema_version(const struct sl_store *store);
/* The version this binary writes. */
int sl_store_schema_latest(void);
/*
 * The store's SQLite connection, for lib/ modules that query it (compare, API); owned by
 * the store. Not for use from the writer thread.
 */
struct sqlite3 *sl_store_db(struct sl_store *store);

/*
 * Registers the module of the per-event tables (sched_slices, wakeups, preemptions,
 * sched_facts: virtual tables over segments, store-segments.c) on a connection schedlens
 * did not open, so that SQL on them works there. schedlens's own connections have it.
 * Returns an SQLite code.
 */
int sl_store_register_segments(struct sqlite3 *db);

/* One CPU of a host's topology, as stored in the cpus table. */
struct sl_cpu_row {
	int cpu;
	bool online;
	int core, llc, package, node; /* dense indices; node -1 when unknown */
};

/*
 * A host: name, machine id and topology. A host whose topology changed (hotplug, new
 * hardware) is a new hosts row: the topology is part of its identity.
 */
struct sl_host_info {
	const char *hostname; /* required */
	const char *machine_id; /* /etc/machine-id, NULL = "" */
	const char *topo_hash; /* 16 hex digits (sl_topo_hash_str), required */
	const char *topo_json; /* sl_topo_to_json() text, may be NULL */
	int nr_cpus;
	const struct sl_cpu_row *cpus; /* nr_cpu_rows entries, stored once per host row */
	int nr_cpu_rows;
};

/* Finds or inserts the host (and its cpus rows); *ret_host_id is its id. */
int sl_store_host_upsert(struct sl_store *store, const struct sl_host_info *host,
			 int64_t *ret_host_id);

/* What a run records about itself; strings may be NULL (stored as NULL or ''). */
struct sl_run_meta {
	int64_t host_id;
	const char *kernel_release; /* uname -r, required */
	const char *kernel_version; /* uname -v */
	const char *cmdline; /* /proc/cmdline */
	const char *boot_id; /* /proc/sys/kernel/random/boot_id */
	const char *preempt_mode; /* none, voluntary, full, lazy, ... */
	const char *sched_features; /* debugfs sched/features text, if readable */
	const char *sched_sysctls; /* "name=value" lines, if readable */
	const char *workload; /* user label, "" if none */
	const char *params; /* JSON object of what was run (record --param), NULL if none */
	const char *source; /* "live", "trace.dat", "text"; NULL = "live" */
	const char *trace_clock; /* "mono", "boot", "local", ... */
	const char *recorder_version; /* NULL = this binary's SL_VERSION */
	int nr_cpus;
	uint64_t start_wall_ns; /* Unix ns; 0 = now */
	uint64_t start_ns; /* trace clock at start */
};

/* Inserts a run; *ret_run_id is its id, for every row pushed to the writer. */
int sl_store_run_begin(struct sl_store *store, const struct sl_run_meta *meta, int64_t *ret_run_id);

struct sl_run_totals {
	uint64_t end_ns; /* trace clock; 0 = leave unset (progress update) */
	uint64_t end_wall_ns; /* Unix ns; 0 = now, when end_ns is set */
	uint64_t events; /* source events read */
	uint64_t lost_events; /* events the kernel dropped */
	bool gaps; /* the run has holes (lost events, reader stalls) */
};

/*
 * Records a run's totals. May be called periodically with running totals and once at the
 * end. runs.dropped_rows is not set here: the writer adds its drops itself.
 */
int sl_store_run_end(struct sl_store *store, int64_t run_id, const struct sl_run_totals *t);

/*
 * The span of one row of window_bins (schema 12): a run's windows summed per group and
 * 10 minutes of its trace clock (bin_ns = start_ns - start_ns % SL_BIN_NS).
 */
#define SL_BIN_NS 600000000000

/*
 * Sums run_id's windows into window_bins (store-bins.c), replacing its bins, in one
 * transaction: called once the run has all its windows (sl_session_close()). Whole-run
 * questions then read the bins. A 7-day run of 4 groups takes a few seconds.
 */
int sl_store_run_bins(struct sl_store *store, int64_t run_id);

/* Sets runs.facts = 1 (store-runs.c): the export of run_id may rely on its facts. */
int sl_store_run_set_facts(struct sl_store *store, int64_t run_id);

/* What an import says about its run (runs.complete, waker_from_wakeup, import_*). */
struct sl_run_import {
	bool complete; /* the whole file was read */
	bool waker_from_wakeup; /* wakers came from sched_wakeup (no sched_waking) */
	const char *path; /* the imported file */
	const char *error; /* why it stopped early, NULL if it did not */
	uint64_t skipped_lines;
};

/* Records *imp on run_id's row, in one transaction (store-runs.c). */
int sl_store_run_set_import(struct sl_store *store, int64_t run_id,
			    const struct sl_run_import *imp);

/*
 * Retention. Per-event rows (sched_slices, wakeups, preemptions, sched_facts), windows and
 * cpu_counts are written in chunks: a new chunk starts every chunk_span_ns of wall time
 * or chunk_rows rows. Whole closed chunks are deleted, oldest first, when their newest row
 * is older than the keep span, when a per-event table holds more than event_max_rows, or
 * when the file's used bytes exceed max_bytes (per-event chunks first, then windows and
 * cpu_counts). 0 means "no limit" for the keeps and caps; the defaults below are what
 * sl_retention_default() gives.
 */
struct sl_retention {
	uint64_t event_keep_ns; /* default 24 h */
	uint64_t event_max_rows; /* per table; default 50 M */
	uint64_t window_keep_ns; /* windows and cpu_counts; default 400 days */
	uint64_t max_bytes; /* default 0: no size cap */
	uint64_t chunk_span_ns; /* default 10 min */
	uint64_t chunk_rows; /* default 1 M */
};

void sl_retention_default(struct sl_retention *r);

struct sl_retention_stats {
	uint64_t chunks_deleted;
	uint64_t rows_deleted;
};

/*
 * Applies the policy once on the store's connection, as of now_wall_ns (Unix ns; 0 = now),
 * to closed chunks only. stats may be NULL. The writer thread calls the same code itself
 * every few seconds; this is for `schedlens prune` and tests.
 */
int sl_store_retention(struct sl_store *store, const struct sl_retention *policy,
		       uint64_t now_wall_ns, struct sl_retention_stats *stats);

/*
 * A run's status as SQL over runs r: 'complete', 'interrupted' (an import killed or stopped
 * by a signal: import_error NULL or 'interrupted...') or 'error' (bad input stopped it).
 */
#define SL_RUN_STATUS_SQL                                                       \
	"(CASE WHEN r.complete THEN 'complete' WHEN r.import_error IS NULL OR " \
	"r.import_error LIKE 'interrupted%' THEN 'interrupted' ELSE 'error' END)"

struct sl_delete_stats {
	uint64_t runs; /* runs deleted */
	uint64_t rows; /* rows deleted with them, every table */
	uint64_t comparisons; /* comparisons that used one of them, deleted with their findings */
	int64_t bytes_before, bytes_after; /* the file's size (main file + WAL) */
};

/*
 * Deletes the runs ids[0..nr) and every row derived from them (tasks, slices, wakeups,
 * preemptions, facts, windows, CPU counts, first switches, wakings, the chunks that held
 * only their rows, and the comparisons that used any of them with their findings) in one
 * transaction, then gives the space back with VACUUM and a WAL checkpoint. A missing id
 * is an error (-ENOENT) and nothing is deleted. -EBUSY when a writer holds the file
 * longer than the busy timeout. The store must be open read-write with no writer.
 */
int sl_store_delete_runs(struct sl_store *store, const int64_t *ids, size_t nr,
			 struct sl_delete_stats *ret_stats);

/* Row types of the writer, also indices of the per-type counters. */
enum sl_row_type {
	SL_ROW_SLICE,
	SL_ROW_WAKEUP,
	SL_ROW_PREEMPT,
	SL_ROW_TASK,
	SL_ROW_WINDOW,
	SL_ROW_FACT, /* lib/store/facts.h */
	SL_ROW_CPU_COUNT, /* lib/engine/cpu-counts.h; kept like windows */
	SL_ROW_TYPES
};

struct sl_writer_opts {
	size_t capacity; /* rows queued; default 131072. The last 1/8 is kept for tasks,
				     windows and CPU counts: event rows are dropped first */
	unsigned int commit_ms; /* commit at least this often; default 250 */
	size_t commit_rows; /* or after this many rows; default 200000 */
	unsigned int retention_ms; /* apply retention this often; default 10000, 0 = never */
	struct sl_retention retention; /* all zero = sl_retention_default() */
	bool start_paused; /* do not consume until sl_writer_resume() (tests) */
	int64_t max_page_count; /* as in sl_store_opts */
	unsigned int full_retry_ms; /* the disk is full: try writing again this often; 1000 */
};

/*
 * Starts a writer thread with its own connection to the store's file (so the store
 * stays usable from the caller's thread). opts may be NULL. The store must have been
 * opened read-write and must outlive the writer. Stop it with sl_writer_stop().
 */
int sl_writer_start(struct sl_store *store, const struct sl_writer_opts *opts,
		    struct sl_writer **ret_writer);

/*
 * Queue one row, copied; never blocks on I/O (only, now and then, on the queue's short
 * mutex). Returns false, and counts the row as dropped for its run, when the queue is full
 * or the writer has failed for good. One thread at a time pushes, the producer: the one
 * that also calls sl_writer_idle(), sl_writer_flush() and sl_writer_stop(). Per-event rows
 * (slices, wakeups, preemptions, facts) wait in its open segments until one is full, the
 * thread asks for them (a commit is due) and the producer pushes again or calls
 * sl_writer_idle(), or a flush or stop.
 */
bool sl_writer_push_slice(struct sl_writer *w, const struct sl_slice_rec *rec);
bool sl_writer_push_wakeup(struct sl_writer *w, const struct sl_wakeup_rec *rec);
bool sl_writer_push_preempt(struct sl_writer *w, const struct sl_preempt_rec *rec);
bool sl_writer_push_task(struct sl_writer *w, const struct sl_task_rec *rec);
bool sl_writer_push_window(struct sl_writer *w, const struct sl_window_rec *rec);
struct sl_fact_rec;
bool sl_writer_push_fact(struct sl_writer *w, const struct sl_fact_rec *rec);
bool sl_writer_push_cpu_count(struct sl_writer *w, const struct sl_cpu_count_rec *rec);

/*
 * The producer has nothing to push for now: hands the thread the rows it asked for. A loop
 * that waits for events calls it each time round, so that a trickle of rows is committed
 * within commit_ms.
 */
void sl_writer_idle(struct sl_writer *w);

/* Unblocks a writer started with start_paused. */
void sl_writer_resume(struct sl_writer *w);

/*
 * Waits until every row pushed before the call is committed (or failed). Returns 0, or
 * the first write error since the previous flush, with its message.
 */
int sl_writer_flush(struct sl_writer *w);

struct sl_writer_stats {
	uint64_t pushed[SL_ROW_TYPES]; /* queued (per-event rows once their segment is) */
	uint64_t dropped[SL_ROW_TYPES]; /* refused: queue full */
	uint64_t written[SL_ROW_TYPES]; /* committed */
	uint64_t failed; /* rows lost to failed transactions (disk full...) */
	/*
	 * The last write failed for want of space (SQLITE_FULL, ENOSPC, EDQUOT): the writer
	 * drops rows unwritten, counting them, and tries again every full_retry_ms; a commit
	 * that succeeds clears it.
	 */
	bool disk_full;
	uint64_t full_dropped; /* rows lost to a full disk (part of failed) */
	uint64_t full_episodes; /* times the disk became full */
	uint64_t commits;
	uint64_t chunks_deleted; /* by retention */
	size_t queue_len; /* rows queued for the thread, not yet in its hands */
	size_t queue_max; /* high-water mark of those and the rows the producer holds */
};

void sl_writer_get_stats(struct sl_writer *w, struct sl_writer_stats *stats);
/* Total rows dropped because the queue was full, of every row type. */
uint64_t sl_writer_dropped(struct sl_writer *w);
uint64_t sl_writer_stats_dropped(const struct sl_writer_stats *stats);

/*
 * Commits what is queued, stops the thread, closes its connection and frees w (NULL is
 * fine). Returns 0 or the last write error not yet returned by sl_writer_flush().
 */
int sl_writer_stop(struct sl_writer *w);

#endif
