// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helper of tests/integration/50-lhp-truth.t: threads contending for one lock, each
 * writing the ground truth of lock-holder preemption to a tracefs trace_marker. Every
 * thread loops: "wants L", acquire, "holds L", work for HOLD_US, "released L", release,
 * work for GAP_US. The lock is one of
 *  - mutex: a pthread mutex (waiters sleep in the kernel, the owner wakes one);
 *  - rwlock: a pthread reader-writer lock taken for writing;
 *  - cond: a flag guarded by a mutex, waiters sleep on a condition variable; the
 *    releaser signals after unlocking the mutex, so the flag is the only lock a woken
 *    waiter can wait for (signalled under the mutex, the wakee preempts the releaser and
 *    blocks on the mutex: a real but unmarked lock-holder preemption);
 *  - spin: a test-and-set spinlock with back-off like PostgreSQL's s_lock: spin
 *    SPINS times with a pause, then nanosleep, from 1 ms growing by 1-2x up to 100 ms.
 * A marker write costs 1-2 us; "released L" is written just before a sleeping lock's
 * release and "unlocked L" just after it, "released L" just after a spinlock's release
 * (see thread()).
 *
 * Usage: sl-lockload MODE THREADS SECONDS HOLD_US GAP_US MARKER_FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPINS 100
#define MIN_DELAY_US 1000
#define MAX_DELAY_US 100000

enum mode { M_MUTEX, M_RWLOCK, M_COND, M_SPIN };

static enum mode mode;
static int marker_fd;
static unsigned hold_us, gap_us;
static uint64_t stop_ns;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwl = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool busy;
static atomic_int spin;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void work(unsigned us)
{
	uint64_t end = now_ns() + us * 1000ull;

	while (now_ns() < end)
		;
}

static void mark(const char *what)
{
	/* the truth needs every marker: a failed write is a failed run */
	if (write(marker_fd, what, strlen(what)) < 0) {
		fprintf(stderr, "sl-lockload: cannot write marker: %s\n", strerror(errno));
		exit(1);
	}
}

static void spin_lock(unsigned *seed)
{
	unsigned delay_us = 0;

	for (;;) {
		for (int i = 0; i < SPINS; i++) {
			if (!atomic_load_explicit(&spin, memory_order_relaxed) &&
			    !atomic_exchange_explicit(&spin, 1, memory_order_acquire))
				return;
			__builtin_ia32_pause();
		}
		/* s_lock's perform_spin_delay(): sleep, growing the delay by 1-2x */
		if (!delay_us)
			delay_us = MIN_DELAY_US;
		nanosleep(&(struct timespec){ .tv_nsec = delay_us * 1000l }, NULL);
		delay_us += (unsigned)(delay_us * ((double)rand_r(seed) / RAND_MAX) + 0.5);
		if (delay_us > MAX_DELAY_US)
			delay_us = MIN_DELAY_US;
	}
}

static void acquire(unsigned *seed)
{
	switch (mode) {
	case M_MUTEX:
		pthread_mutex_lock(&mtx);
		break;
	case M_RWLOCK:
		pthread_rwlock_wrlock(&rwl);
		break;
	case M_COND:
		pthread_mutex_lock(&mtx);
		while (busy)
			pthread_cond_wait(&cv, &mtx);
		busy = true;
		pthread_mutex_unlock(&mtx);
		break;
	case M_SPIN:
		spin_lock(seed);
		break;
	}
}

static void release(void)
{
	switch (mode) {
	case M_MUTEX:
		pthread_mutex_unlock(&mtx);
		break;
	case M_RWLOCK:
		pthread_rwlock_unlock(&rwl);
		break;
	case M_COND:
		pthread_mutex_lock(&mtx);
		busy = false;
		pthread_mutex_unlock(&mtx);
		pthread_cond_signal(&cv);
		break;
	case M_SPIN:
		atomic_store_explicit(&spin, 0, memory_order_release);
		break;
	}
}

static void *thread(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (now_ns() < stop_ns) {
		mark("wants L");
		acquire(&seed);
		mark("holds L");
		work(hold_us);
		/* a spinlock's release is a store: marked after it. A sleeping lock's release
		 * may wake the next owner, which may preempt us at once: it is marked before
		 * and after ("unlocked L"), and lhp-truth.py ends the hold at the first of that
		 * wake and the second mark */
		if (mode != M_SPIN)
			mark("released L");
		release();
		mark(mode == M_SPIN ? "released L" : "unlocked L");
		work(gap_us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "mutex", "rwlock", "cond", "spin" };
	pthread_t th[64];
	int n, i;

	if (argc != 7) {
		fprintf(stderr, "usage: sl-lockload mutex|rwlock|cond|spin THREADS SECONDS "
				"HOLD_US GAP_US MARKER_FILE\n");
		return 2;
	}
	for (i = 0; i < 4 && strcmp(argv[1], names[i]); i++)
		;
	n = atoi(argv[2]);
	if (i == 4 || n < 1 || n > 64) {
		fprintf(stderr, "sl-lockload: bad mode '%s' or thread count '%s'\n", argv[1],
			argv[2]);
		return 2;
	}
	mode = (enum mode)i;
	hold_us = (unsigned)atoi(argv[4]);
	gap_us = (unsigned)atoi(argv[5]);
	marker_fd = open(argv[6], O_WRONLY | O_CLOEXEC);
	if (marker_fd < 0) {
		fprintf(stderr, "sl-lockload: cannot open '%s': %s\n", argv[6], strerror(errno));
		return 1;
	}
	stop_ns = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, thread, (void *)(uintptr_t)(i + 1))) {
			fprintf(stderr, "sl-lockload: cannot create thread %d\n", i);
			return 1;
		}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close(marker_fd);
	return 0;
}
