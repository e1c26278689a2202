/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Run metadata: what kernel and machine a recording was made on, so runs can be compared
 * by kernel release, preempt mode and scheduler settings. Everything is read from /proc,
 * /sys and debugfs where readable; a field that cannot be read is NULL, never invented.
 */
#ifndef SL_HOSTINFO_H
#define SL_HOSTINFO_H

struct sl_hostinfo {
	char *kernel_release; /* uname -r */
	char *kernel_version; /* uname -v */
	char *machine; /* uname -m */
	char *hostname;
	char *cmdline; /* /proc/cmdline, without the newline */
	char *boot_id; /* /proc/sys/kernel/random/boot_id */
	char *machine_id; /* /etc/machine-id */
	char *cpu_model; /* first "model name" of /proc/cpuinfo */
	char *preempt_mode; /* debugfs sched/preempt's chosen mode, else from uname -v */
	char *sched_features; /* debugfs sched/features, if debugfs is mounted */
	char *sched_sysctls; /* "name=value" lines: kernel.sched_* and debugfs sched tunables */
	int nr_cpus; /* configured CPUs */
};

/*
 * Reads this host's metadata. Returns 0 and a struct the caller frees with
 * sl_hostinfo_free() (strings included), or -ENOMEM.
 */
int sl_hostinfo_read(struct sl_hostinfo **ret);
void sl_hostinfo_free(struct sl_hostinfo *hi);

/* Picks the active mode out of "none voluntary (full) lazy"; caller frees. NULL if none. */
char *sl_hostinfo_parse_preempt(const char *text);

#endif
