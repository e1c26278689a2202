/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Importing a recorded trace: a trace.dat (lib/import-dat) or ftrace text
 * (lib/import-text), told apart by content, is analysed through a session exactly like a
 * live recording and stored as a run with source 'trace.dat' or 'text'. The traced host's
 * topology is the caller's to give (saved with `schedlens topology --save` there); with
 * none, placement classes are stored as unknown, never guessed. A trace without
 * sched_waking is analysed with wakers taken from sched_wakeup's context and the run is
 * flagged. The run is marked incomplete and interrupted (import_error 'interrupted') from
 * the start, so a killed import leaves a run that says so; at the end it is marked
 * complete, or keeps the error and its line or file offset when bad input stopped it, or
 * 'interrupted ...' when the caller's stop flag did.
 */
#ifndef SL_IMPORT_H
#define SL_IMPORT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "session.h"
#include "topo.h"

enum sl_import_format {
	SL_IMPORT_AUTO,
	SL_IMPORT_DAT,
	SL_IMPORT_TEXT,
};

/* "trace.dat", "text" (the runs.source values), "auto" */
const char *sl_import_format_name(enum sl_import_format f);

struct sl_import_progress {
	uint64_t events; /* sched events fed so far */
	uint64_t done; /* bytes (text) or file offset (trace.dat) reached */
	uint64_t total; /* file size */
	double elapsed_s;
};

struct sl_import_opts {
	const char *path;
	enum sl_import_format format; /* AUTO: from the content */
	const char *db_path; /* NULL: analyse only */
	const char *label; /* runs.workload */
	const char *kernel_release; /* overrides the file's; needed for text to be useful */
	const char *hostname; /* overrides the file's (trace.dat uname); default "unknown" */
	const struct sl_topo *topo; /* the traced host's; NULL: classes unavailable */
	const struct sl_engine_config *engine; /* NULL: defaults */
	const struct sl_sched_handler *handler; /* an extra analysis, may be NULL */
	bool windows_only; /* store windows (and tasks) only: no per-event rows, no facts */
	void (*progress)(void *ctx, const struct sl_import_progress *p); /* ~5 times a second */
	void *progress_ctx;
	/*
	 * May be NULL. When it becomes nonzero (a signal handler stores the signal number),
	 * the import stops within a batch of events: what was read is analysed and stored,
	 * the run is marked interrupted and -EINTR is returned.
	 */
	const volatile sig_atomic_t *stop;
};

struct sl_import_result {
	enum sl_import_format format;
	uint64_t events[SL_EV_TYPE_MAX]; /* events fed, by type */
	uint64_t events_total;
	uint64_t units; /* records (trace.dat) or lines (text) read */
	uint64_t skipped; /* records or lines that were not sched events */
	/* text: of those, lines other than blank ones, comments and trace-cmd headers (other
	 * events, garbage), stored as runs.skipped_lines; and the number of the first */
	uint64_t skipped_lines, first_skipped_line;
	int interrupted; /* the *opts->stop value that stopped the import, or 0 */
	int nr_cpus; /* the file's (trace.dat) or highest CPU seen + 1 (text) */
	unsigned long file_version; /* trace.dat only */
	int nr_instances; /* trace.dat buffer instances */
	bool nsec; /* text: nanosecond timestamps */
	bool complete; /* every event of the file was analysed */
	bool waker_from_wakeup; /* no sched_waking in the trace */
	bool topo_known;
	char kernel_release[128];
	char hostname[128];
	char trace_clock[32]; /* "" when the file does not say (text) */
	char dat_reader[16]; /* trace.dat: "schedlens" or "libtracecmd" (see import-dat.h) */
	char error[512]; /* why the import stopped, when !complete */
	double cpu_s; /* CPU time spent importing: all threads, and the trace.dat reader child */
	double wall_s;
	struct sl_session_result session;
};

/* The format of the file's content: -SL_EFORMAT when it is neither. */
int sl_import_detect(const char *path, enum sl_import_format *ret_format);

/*
 * Imports the file. Returns 0 when the whole file was analysed (and stored), or a negative
 * code with a message; *ret is filled in either case (free with sl_import_result_free).
 * When bad input (or opts->stop) stops the import after the run was created, the events
 * before the error are stored, the run is marked incomplete with the error, and the error
 * (-EINTR for a stop) is returned.
 */
int sl_import_run(const struct sl_import_opts *opts, struct sl_import_result *ret);

void sl_import_result_free(struct sl_import_result *r);

#endif
