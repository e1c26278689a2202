/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the lab's commands share (cmd-lab.c: run, fetch, ab, explain; cmd-lab-upgrade.c):
 * the experiment's options, its two sides, one `lab run` of a side and the comparison of
 * the runs made so far.
 */
#ifndef SL_LAB_LOCAL_H
#define SL_LAB_LOCAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_RUNS 64
#define MAX_GROUPS 16

struct sl_comparison;

/* The lab command whose options lab_args() parses: each takes a few of its own. */
enum lab_cmd { LAB_AB, LAB_EXPLAIN, LAB_UPGRADE };

/* One side of an A/B experiment: what `lab run` is given. */
struct lab_side {
	char kernel[PATH_MAX];
	char features[512]; /* comma-separated, "" for the kernel's defaults */
	char preempt[32]; /* "" for the kernel's default */
	int64_t runs[MAX_RUNS];
	int nr_runs;
};

struct lab_ab {
	const char *db, *label, *workload;
	int max_runs; /* per side, and the number of looks the alpha is spent over */
	double max_minutes;
	double alpha;
	const char *groups[MAX_GROUPS];
	int nr_groups;
	bool json;
	const char *metric, *toggles; /* explain: the metric, the features to flip (NULL: all) */
	int runs_each; /* explain: runs of A, of B and of each flip; upgrade: of A */
	int compare_after; /* upgrade: the daemon's compare-after in windows (0: the run's -d) */
	int duration; /* the runs' -d, 0 for `lab run`'s default */
	char *pass[64]; /* run options passed on to every `lab run` */
	int nr_pass;
	char **command; /* cmd: what follows "--", passed on after it */
	int nr_command;
	struct lab_side side[2];
};

/*
 * The options of command cmd and the three positional arguments (A, B, WORKLOAD) into ab:
 * -1 to go on, else the exit status (help, or a usage error already reported).
 */
int lab_args(int argc, char **argv, struct lab_ab *ab, enum lab_cmd cmd);

/* Sets SL_SCHEDLENS to this binary: the guest gets the schedlens (and schedlensd beside it)
 * that runs the experiment. */
void lab_export_self(void);

/* "KERNEL[:FEATURES][@PREEMPT]" of s into buf. */
const char *lab_side_name(const struct lab_side *s, char *buf, size_t size);

/*
 * One `lab run` of side s with ab's options, its new run appended to s->runs; keep: a
 * directory for what the guest sent, or NULL. A failed run is tried once more. 0 or the
 * exit status, the error reported.
 */
int lab_run_side(struct lab_ab *ab, struct lab_side *s, const char *keep);

/* base's runs against cand's on ab's label and groups, at one of max_looks looks; stored
 * when store. 0 or the exit status. */
int lab_compare_sides(const struct lab_ab *ab, const struct lab_side *base,
		      const struct lab_side *cand, int max_looks, bool store,
		      struct sl_comparison **ret);

/* schedlens lab upgrade (cmd-lab-upgrade.c) */
int cmd_lab_upgrade(int argc, char **argv);

#endif
