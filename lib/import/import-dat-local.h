/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What import-dat.c (libtracecmd, in a child process or this one; the walk that checks
 * records and batches events) and import-dat-own.c (our own reader: the mapped file's
 * per-CPU pages merged by timestamp) share: the open file and one walk over its records.
 */
#ifndef SL_IMPORT_DAT_LOCAL_H
#define SL_IMPORT_DAT_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dat-file.h"
#include "import-dat.h"
#include "sched-fields.h"

struct tracecmd_input;
struct tep_handle;

#define BATCH 8192 /* events a batch: 512 KiB through the pipe, fewer wakeups */

struct sl_dat {
	struct tracecmd_input *top;
	struct tracecmd_input **handles; /* top first, then the instances */
	int nr_handles;
	struct tep_handle *tep;
	struct sl_sched_fields sf;
	struct sl_dat_info info;
	char *uname;
	uint64_t size;
	uint64_t offset;
	/* the reader child (see sl_dat_open); pid 0: reading in this process */
	pid_t child;
	int from_child, to_child;
	double child_cpu_s;
	char strs[4][256]; /* the info's strings, as the child sent them */
	/* our own reader: the mapped file, its container and the tep of its sched formats */
	bool own;
	void *map;
	size_t map_len;
	struct sl_dat_file file;
	struct tep_handle *own_tep;
};

struct walk {
	struct sl_dat *d;
	int max_cpus;
	uint64_t *cpu_ts; /* newest timestamp per CPU, +1 */
	struct sl_event buf[BATCH];
	size_t n;
	uint64_t records;
	int (*batch)(void *ctx, const struct sl_event *ev, size_t n);
	void *ctx;
	int err;
	/* where the record being read lies, for messages */
	uint64_t rec_offset; /* libtracecmd: its file offset */
	const struct sl_dat_pages *rec_pages; /* own reader: its CPU's page walk */
	char where[160];
};

/* the sched fields of d's tep (d->tep) and its prev_state encoding */
int dat_resolve_fields(struct sl_dat *d, const char *path);
/* the file's uname line into d->info (kernel release, host name) */
void dat_parse_uname(struct sl_dat *d, const char *u);

struct walk *dat_walk_new(struct sl_dat *d, int max_cpus,
			  int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx);
/*
 * One record of CPU cpu at ts: checks it, and queues a lost-events marker (missed: 0, -1
 * for an unknown count, or the count) and its sched event, if it is one. Returns 0, or
 * nonzero with w->err set.
 */
int dat_emit(struct walk *w, int cpu, uint64_t ts, const void *data, int size, long long missed);
/* Flushes what is queued unless the walk failed; returns the walk's result and frees it. */
int dat_walk_end(struct walk *w, uint64_t *ret_records);

/* Opens path with our own reader: 0, SL_DAT_UNSUPPORTED (use libtracecmd) or an error. */
int dat_open_own(struct sl_dat *d, const char *path);
/* Undoes dat_open_own(), for the fallback to libtracecmd. */
void dat_close_own(struct sl_dat *d);
/* Every record of the open file, merged by timestamp, in batches. */
int dat_read_own(struct sl_dat *d, int max_cpus,
		 int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		 uint64_t *ret_records);

#endif
