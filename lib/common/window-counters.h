/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-window counters, listed once. Each is a uint64_t field of struct sl_window_rec
 * (records.h) stored in the windows column of the same name (or prefix_name, one per
 * element, for the arrays indexed by an enum). From this list come the struct's fields, the
 * writer's INSERT and binds (store-writer.c), the comparison's SELECT and reader
 * (compare.c), the API's metric whitelist (api.c), the Prometheus counters (metrics-prom.c)
 * and schema/README.md's windows table (checked by tests/unit/t-window-counters.c).
 * docs/adding-a-metric.md says how to add one.
 *
 *   C(field, ID, doc, prom)                       one counter
 *   A(field, n, NAMES, prefix, PREFIX, doc, prom) n counters indexed by an enum; NAMES lists
 *                                                 (index, suffix, SUFFIX) in enum order
 *
 * ID (PREFIX_SUFFIX for an array's) names the counter's column in the metric table:
 * SL_WC_<ID> (metrics.h), what a metric's numerator or denominator refers to. *
 * prom is SL_PROM(name, help) for a Prometheus counter of its own, SL_PROM_L(name, key,
 * value, help) for one series of a labelled family (an array's elements take the label
 * value of their suffix: SL_PROM_A(name, key, help)), or SL_NO_PROM. Consecutive counters
 * with the same name form one family; a counter in ns is exported in seconds. The order is
 * the table's column order (schema/0001-core.sql, then later migrations append): new
 * counters go at the end, with the migration that adds their column.
 */
#ifndef SL_WINDOW_COUNTERS_H
#define SL_WINDOW_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define SL_WIN_REL_NAMES(X, ...)		\
	X(SL_RREL_SAME, same, SAME, __VA_ARGS__)	\
	X(SL_RREL_SMT, smt, SMT, __VA_ARGS__)	\
	X(SL_RREL_LLC, llc, LLC, __VA_ARGS__)	\
	X(SL_RREL_PACKAGE, package, PACKAGE, __VA_ARGS__)\
	X(SL_RREL_REMOTE, remote, REMOTE, __VA_ARGS__)	\
	X(SL_RREL_UNKNOWN, unknown, UNKNOWN, __VA_ARGS__)
#define SL_WIN_STATE_NAMES(X, ...)		\
	X(SL_TS_IDLE, idle, IDLE, __VA_ARGS__)	\
	X(SL_TS_BUSY, busy, BUSY, __VA_ARGS__)	\
	X(SL_TS_CLAIMED, claimed, CLAIMED, __VA_ARGS__)	\
	X(SL_TS_UNKNOWN, unknown, UNKNOWN, __VA_ARGS__)
#define SL_WIN_POL_NAMES(X, ...)			\
	X(SL_POL_PREV_IDLE, prev_idle, PREV_IDLE, __VA_ARGS__)	\
	X(SL_POL_AFFINE, affine, AFFINE, __VA_ARGS__)		\
	X(SL_POL_LLC_SCAN, llc_scan, LLC_SCAN, __VA_ARGS__)	\
	X(SL_POL_BUDDY, buddy, BUDDY, __VA_ARGS__)		\
	X(SL_POL_SMT_FIRST, smt_first, SMT_FIRST, __VA_ARGS__)
/* clang-format on */

#define SL_NO_PROM .prom = 0
#define SL_PROM(name, help) .prom = name, .prom_help = help
#define SL_PROM_L(name, key, value, help) \
	.prom = name, .prom_key = key, .prom_value = value, .prom_help = help
#define SL_PROM_A(name, key, help) .prom = name, .prom_key = key, .prom_help = help

/* clang-format off */
#define SL_WINDOW_COUNTERS(C, A)							\
	C(events, EVENTS, "source events of the whole machine in the window (all groups)",	\
	  SL_NO_PROM)									\
	C(wakeups, WAKEUPS, "wakeups, new tasks included", SL_NO_PROM)				\
	C(wakeups_new, WAKEUPS_NEW, "of which fork placements", SL_NO_PROM)			\
	A(class_prev, SL_RREL_COUNT, SL_WIN_REL_NAMES, prev, PREV,				\
	  "wakeups by class_prev (relation of the chosen CPU to the previous one)",\
	  SL_PROM_A("schedlens_wakeups_total", "class",					\
		    "Wakeups by placement class: relation of the chosen CPU to the "	\
		    "task's previous CPU (group \"*\" is every task)."))			\
	A(class_waker, SL_RREL_COUNT, SL_WIN_REL_NAMES, waker, WAKER,				\
	  "wakeups by class_waker (to the waker's CPU)",					\
	  SL_PROM_A("schedlens_wakeups_by_waker_total", "class",				\
		    "Wakeups by relation of the chosen CPU to the waker's CPU."))		\
	A(target_state, SL_TS_COUNT, SL_WIN_STATE_NAMES, state, STATE,			\
	  "wakeups by target state",							\
	  SL_PROM_A("schedlens_wakeup_target_total", "state",				\
		    "Wakeups by the state of the chosen CPU (claimed: another wakee "	\
		    "was pending)."))							\
	C(missed_idle, MISSED_IDLE, "as in wakeups, counted",					\
	  SL_PROM("schedlens_missed_idle_total",					\
		  "Wakeups placed on a busy or claimed CPU while its LLC had an idle one."))\
	C(missed_smt, MISSED_SMT, "as in wakeups, counted",					\
	  SL_PROM("schedlens_missed_smt_total",					\
		  "Wakeups placed on a busy CPU beside an idle SMT sibling."))		\
	C(stacked, STACKED, "wakeups onto a claimed CPU",					\
	  SL_PROM("schedlens_stacked_total",						\
		  "Wakeups onto a CPU another wakee had already claimed."))		\
	C(migrations, MIGRATIONS, "`sched_migrate_task` moves",					\
	  SL_PROM("schedlens_migrations_total", "Task migrations."))			\
	C(switches, SWITCHES, "switch-outs",							\
	  SL_PROM("schedlens_switches_total", "Context switches (switch-outs)."))	\
	C(preempt_wakeup, PREEMPT_WAKEUP, "preemptions by cause",				\
	  SL_PROM_L("schedlens_preemptions_total", "cause", "wakeup",			\
		    "Preemptions of still-runnable tasks by cause (wakeup or tick)."))	\
	C(preempt_tick, PREEMPT_TICK, "preemptions by cause",					\
	  SL_PROM_L("schedlens_preemptions_total", "cause", "tick", 0))		\
	C(preempt_same_group, PREEMPT_SAME, "preemptions by a task of the same group",		\
	  SL_PROM("schedlens_same_group_preemptions_total",				\
		  "Preemptions where the preemptor was in the victim's group."))	\
	C(lhp_count, LHP_COUNT, "preemptions with at least one waiter",				\
	  SL_PROM("schedlens_lhp_total",						\
		  "Lock-holder preemptions: the victim released same-group waiters on "\
		  "resuming."))								\
	C(lhp_cost_ns, LHP_COST_NS, "their summed cost",					\
	  SL_PROM("schedlens_lhp_cost_seconds_total",					\
		  "Waiter time added by lock-holder preemptions."))			\
	C(hub_preemptions, HUB_PREEMPT, "preemptions of hubs",					\
	  SL_PROM("schedlens_hub_preemptions_total",					\
		  "Preemptions of hub tasks (tasks that wake many of their group)."))	\
	C(lost_events, LOST_EVENTS, "events lost in the window", SL_NO_PROM)			\
	C(policy_known, POLICY_KNOWN, "wakeups whose fingerprint could be computed",		\
	  SL_PROM("schedlens_policy_known_total",					\
		  "Wakeups whose policy fingerprint could be computed."))		\
	A(policy_agree, SL_POL_COUNT, SL_WIN_POL_NAMES, pol, POL,				\
	  "of those, how many each policy would have placed where the kernel did",	\
	  SL_PROM_A("schedlens_policy_agree_total", "policy",				\
		    "Fingerprinted wakeups a reference policy would have placed where the "\
		    "kernel did."))								\
	C(spin_count, SPIN_COUNT, "(schema 7) preemptions with at least one spinner",		\
	  SL_PROM("schedlens_spin_lhp_total",						\
		  "Lock-holder preemptions with spinning waiters: same-group tasks "	\
		  "backing off by timer while the victim was off-CPU."))			\
	C(spin_cost_ns, SPIN_COST_NS, "(schema 7) their summed spin_cost_ns",			\
	  SL_PROM("schedlens_spin_lhp_cost_seconds_total",				\
		  "Spinning waiters' time added by lock-holder preemptions."))
/* clang-format on */

/* The struct's fields (records.h). */
#define SL_WIN_FIELD(f, ID, doc, prom) uint64_t f;
#define SL_WIN_FIELD_A(f, n, NAMES, prefix, PREFIX, doc, prom) uint64_t f[n];

/* ", events, wakeups, ..." and ", ?, ?, ...": one per column, for SQL built at compile time. */
#define SL_WIN_COL(f, ID, doc, prom) ", " #f
#define SL_WIN_COL_E(idx, sfx, SFX, prefix) ", " #prefix "_" #sfx
#define SL_WIN_COL_A(f, n, NAMES, prefix, PREFIX, doc, prom) NAMES(SL_WIN_COL_E, prefix)
#define SL_WINDOW_COLUMNS SL_WINDOW_COUNTERS(SL_WIN_COL, SL_WIN_COL_A)
#define SL_WIN_PARAM(f, ID, doc, prom) ", ?"
#define SL_WIN_PARAM_E(idx, sfx, SFX, prefix) ", ?"
#define SL_WIN_PARAM_A(f, n, NAMES, prefix, PREFIX, doc, prom) NAMES(SL_WIN_PARAM_E, prefix)
#define SL_WINDOW_PARAMS SL_WINDOW_COUNTERS(SL_WIN_PARAM, SL_WIN_PARAM_A)

/* The number of counter columns. */
#define SL_WIN_ONE(f, ID, doc, prom) +1
#define SL_WIN_ONE_E(idx, sfx, SFX, prefix) +1
#define SL_WIN_ONE_A(f, n, NAMES, prefix, PREFIX, doc, prom) NAMES(SL_WIN_ONE_E, prefix)
enum { SL_WIN_NR = 0 SL_WINDOW_COUNTERS(SL_WIN_ONE, SL_WIN_ONE_A) };

/* One counter column, for code that walks them all (window-counters.c has the table). */
struct sl_window_counter {
	const char *column; /* "missed_idle", "prev_same" */
	size_t offset; /* of its uint64_t in struct sl_window_rec */
	const char *doc; /* its sentence in schema/README.md */
	const char *prom; /* Prometheus counter family, NULL if not exported */
	const char *prom_key, *prom_value; /* its label in the family, or NULL */
	const char *prom_help; /* the family's HELP (on its first counter) */
};

extern const struct sl_window_counter sl_window_counters[SL_WIN_NR];

/* Counter i of window w, as an lvalue. */
#define SL_WIN_VALUE(w, i) (*(uint64_t *)((char *)(w) + sl_window_counters[i].offset))
#define SL_WIN_CVALUE(w, i) (*(const uint64_t *)((const char *)(w) + sl_window_counters[i].offset))

#endif
