// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's per-CPU sizing for hosts up to 1024 CPUs and beyond (issue 19): reader
 * threads are ceil(CPUs / 16), and the chunks a CPU may hold for the merge shrink above
 * 64 CPUs so that all CPUs together stay within the budget (128 MiB of chunks) instead of
 * 2 GiB at 1024 CPUs, never below MIN_QUEUED_CHUNKS; the fds a recording holds, which at
 * 1024 CPUs pass the usual soft limit of 1024 (the recorder raises it: raise_fd_limit()).
 * Pure functions: no tracefs needed.
 */
#include "recorder-local.h"
#include "tap.h"

int main(void)
{
	static const struct {
		int cpus, readers;
	} r[] = { { 1, 1 },	{ 2, 1 },     { 16, 1 },    { 17, 2 },	  { 192, 12 },
		  { 1023, 64 }, { 1024, 64 }, { 1025, 65 }, { 4096, 256 } };
	size_t worst = 0;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		is_int(recorder_nr_readers(r[i].cpus, 16), r[i].readers, "%d CPUs: %d readers",
		       r[i].cpus, r[i].readers);
	is_int(recorder_nr_readers(1024, 8), 128, "8 CPUs per reader: 128 readers for 1024");

	is_int(recorder_queue_cap(2), MAX_QUEUED_CHUNKS, "2 CPUs: 32 chunks each, as before");
	is_int(recorder_queue_cap(64), MAX_QUEUED_CHUNKS, "64 CPUs: 32 chunks each, as before");
	is_int(recorder_queue_cap(192), 10, "192 CPUs: 10 chunks each");
	is_int(recorder_queue_cap(512), MIN_QUEUED_CHUNKS, "512 CPUs: the minimum, 4");
	is_int(recorder_queue_cap(1024), MIN_QUEUED_CHUNKS, "1024 CPUs: the minimum, 4");
	is_int(recorder_queue_cap(0), MAX_QUEUED_CHUNKS, "0 CPUs (not yet known): the default");
	for (int n = 1; n <= 1024; n++) {
		size_t bytes = (size_t)recorder_queue_cap(n) * n * sizeof(struct chunk);

		worst = bytes > worst ? bytes : worst;
	}
	tap_diag("a chunk is %zu bytes; worst queued total up to 1024 CPUs %.1f MiB",
		 sizeof(struct chunk), worst / 1048576.0);
	ok(worst <= (size_t)1024 * MIN_QUEUED_CHUNKS * sizeof(struct chunk) &&
		   worst <= (size_t)QUEUED_CHUNKS_BUDGET * 2 * sizeof(struct chunk),
	   "queued chunks of all CPUs, 1..1024 CPUs: at most 4 x 1024 chunks (%zu B)", worst);
	is_int(recorder_fds(2, 16), 7, "2 CPUs: 7 fds (2 per CPU, 3 per reader)");
	is_int(recorder_fds(1024, 16), 2240, "1024 CPUs: 2240 fds, beyond a soft limit of 1024");
	return tap_done();
}
