// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helper of tests/integration/20-store-crash.t: writes to a store as fast as it can until
 * it is killed. It begins a run, prints "run <id>", then forever pushes batches of wakeups
 * (ts_ns = 0, 1, 2, ... in push order), slices and one window per batch, flushes, and after
 * each successful flush prints "committed <n>": every wakeup with ts_ns < n is committed.
 * The test SIGKILLs it at a random moment and checks that all of that is in the file.
 * Before "run" it applies retention so that every closed chunk (all rows of the previous,
 * killed runs) is deleted: this exercises retention on a crashed file and keeps the file,
 * and so the test's integrity checks, small.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "store.h"

#define BATCH 5000

/* write(2), not stdio: what was printed is in the file when the process is killed */
static void say(const char *what, long long v)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s %lld\n", what, v);

	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		exit(1);
}

static int fail(int err)
{
	fprintf(stderr, "sl-crash-writer: %s\n", sl_errmsg(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct sl_host_info h = { .hostname = "crash",
				  .topo_hash = "00000000000000c4",
				  .nr_cpus = 2 };
	struct sl_run_meta m = { .kernel_release = "crash-test", .workload = "crash" };
	struct sl_writer_opts o = { .commit_ms = 20, .retention = { .chunk_rows = 20000 } };
	struct sl_store *st;
	struct sl_writer *w;
	uint64_t seq = 0;
	int64_t run;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: sl-crash-writer DB\n");
		return 2;
	}
	err = sl_store_open(argv[1], SL_STORE_CREATE, &st);
	if (!err)
		err = sl_store_host_upsert(st, &h, &m.host_id);
	if (!err)
		err = sl_store_run_begin(st, &m, &run);
	/* the writer closes the chunks a killed writer left open; its own are still empty */
	if (!err)
		err = sl_writer_start(st, &o, &w);
	if (!err)
		err = sl_store_retention(st, &(struct sl_retention){ .event_keep_ns = 1 }, 0, NULL);
	if (err)
		return fail(err);
	say("run", (long long)run);
	for (;;) {
		struct sl_window_rec win = { .run_id = run, .start_ns = seq, .dur_ns = BATCH };

		strcpy(win.grp, SL_GROUP_ALL);
		for (int i = 0; i < BATCH; i++, seq++) {
			struct sl_wakeup_rec r = { .run_id = run,
						   .ts_ns = seq,
						   .pid = (int32_t)(seq % 1000),
						   .target_cpu = (int32_t)(seq & 1),
						   .latency_ns = seq % 100000 };
			struct sl_slice_rec s = { .run_id = run,
						  .start_ns = seq,
						  .dur_ns = 1000,
						  .cpu = (int32_t)(seq & 1),
						  .pid = (int32_t)(seq % 1000),
						  .end_state = 'S' };

			/* this test wants every row: wait for room rather than drop */
			while (!sl_writer_push_wakeup(w, &r))
				usleep(100);
			while (!sl_writer_push_slice(w, &s))
				usleep(100);
			sl_hist_add(&win.latency, r.latency_ns);
		}
		win.wakeups = BATCH;
		while (!sl_writer_push_window(w, &win))
			usleep(100);
		err = sl_writer_flush(w);
		if (err)
			return fail(err);
		say("committed", (long long)seq);
	}
}
