// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus text exposition of the daemon's counters and the newest findings. Counters
 * live in a fixed table of (kernel, group) series so a host with thousands of short-lived
 * comms still exposes a bounded number of series; everything is rendered under one mutex
 * from plain integers, so a scrape never touches the database except for the findings.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-prom.h"

struct series {
	char kernel[128];
	char grp[SL_GROUP_LEN];
	uint64_t wk_class[SL_RREL_COUNT], wk_state[SL_TS_COUNT];
	uint64_t wakeups_new, missed_idle, missed_smt, stacked, migrations, switches;
	uint64_t preempt_wakeup, preempt_tick, same_group, lhp, lhp_cost_ns, hub, windows;
	uint64_t spin_lhp, spin_cost_ns;
};

#define MAX_SERIES (SL_PROM_MAX_KERNELS * (SL_PROM_MAX_GROUPS + 2))

struct sl_prom {
	pthread_mutex_t lock;
	char host[128];
	char kernel[128]; /* of the process values */
	struct sl_prom_process proc;
	int nr_series;
	struct series series[MAX_SERIES];
	int groups_per_kernel[SL_PROM_MAX_KERNELS];
	char kernels[SL_PROM_MAX_KERNELS][128];
	int nr_kernels;
};

struct sl_prom *sl_prom_new(const char *host)
{
	struct sl_prom *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	snprintf(p->host, sizeof(p->host), "%s", host ? host : "");
	return p;
}

void sl_prom_free(struct sl_prom *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void sl_prom_escape(char *dst, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 3 < size; s++) {
		if (*s == '\\' || *s == '"') {
			dst[n++] = '\\';
			dst[n++] = *s;
		} else if (*s == '\n') {
			dst[n++] = '\\';
			dst[n++] = 'n';
		} else {
			dst[n++] = *s;
		}
	}
	dst[n] = '\0';
}

/* The series of (kernel, grp); past the group budget the group becomes "other". */
static struct series *find_series(struct sl_prom *p, const char *kernel, const char *grp)
{
	int k;
	struct series *s;

	for (k = 0; k < p->nr_kernels; k++)
		if (!strcmp(p->kernels[k], kernel))
			break;
	if (k == p->nr_kernels) {
		if (k == SL_PROM_MAX_KERNELS)
			return NULL;
		snprintf(p->kernels[k], sizeof(p->kernels[k]), "%s", kernel);
		p->nr_kernels++;
	}
	for (int again = 0; again < 2; again++) {
		for (int i = 0; i < p->nr_series; i++) {
			s = &p->series[i];
			if (!strcmp(s->kernel, kernel) && !strcmp(s->grp, grp))
				return s;
		}
		if (strcmp(grp, SL_GROUP_ALL) && strcmp(grp, "other") &&
		    p->groups_per_kernel[k] >= SL_PROM_MAX_GROUPS) {
			grp = "other";
			continue;
		}
		break;
	}
	if (p->nr_series == MAX_SERIES)
		return NULL;
	s = &p->series[p->nr_series++];
	snprintf(s->kernel, sizeof(s->kernel), "%s", kernel);
	snprintf(s->grp, sizeof(s->grp), "%s", grp);
	if (strcmp(grp, SL_GROUP_ALL))
		p->groups_per_kernel[k]++;
	return s;
}

void sl_prom_add_window(struct sl_prom *p, const char *kernel, const struct sl_window_rec *w)
{
	struct series *s;

	pthread_mutex_lock(&p->lock);
	s = find_series(p, kernel, w->grp);
	if (s) {
		for (int c = 0; c < SL_RREL_COUNT; c++)
			s->wk_class[c] += w->class_prev[c];
		for (int c = 0; c < SL_TS_COUNT; c++)
			s->wk_state[c] += w->target_state[c];
		s->wakeups_new += w->wakeups_new;
		s->missed_idle += w->missed_idle;
		s->missed_smt += w->missed_smt;
		s->stacked += w->stacked;
		s->migrations += w->migrations;
		s->switches += w->switches;
		s->preempt_wakeup += w->preempt_wakeup;
		s->preempt_tick += w->preempt_tick;
		s->same_group += w->preempt_same_group;
		s->lhp += w->lhp_count;
		s->lhp_cost_ns += w->lhp_cost_ns;
		s->hub += w->hub_preemptions;
		s->spin_lhp += w->spin_count;
		s->spin_cost_ns += w->spin_cost_ns;
		s->windows++;
	}
	pthread_mutex_unlock(&p->lock);
}

void sl_prom_set_process(struct sl_prom *p, const char *kernel, const struct sl_prom_process *proc)
{
	pthread_mutex_lock(&p->lock);
	snprintf(p->kernel, sizeof(p->kernel), "%s", kernel ? kernel : "");
	p->proc = *proc;
	pthread_mutex_unlock(&p->lock);
}

static const char *const rel_names[SL_RREL_COUNT] = { "same",	 "smt",	   "llc",
						      "package", "remote", "unknown" };
static const char *const state_names[SL_TS_COUNT] = { "idle", "busy", "claimed", "unknown" };

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Prints the {host,kernel,group} label set of a series. */
static void labels(FILE *f, const struct sl_prom *p, const struct series *s, const char *extra_k,
		   const char *extra_v)
{
	char h[256], k[256], g[2 * SL_GROUP_LEN];

	sl_prom_escape(h, sizeof(h), p->host);
	sl_prom_escape(k, sizeof(k), s->kernel);
	sl_prom_escape(g, sizeof(g), s->grp);
	fprintf(f, "{host=\"%s\",kernel=\"%s\",group=\"%s\"", h, k, g);
	if (extra_k)
		fprintf(f, ",%s=\"%s\"", extra_k, extra_v);
	fputc('}', f);
}

#define SIMPLE_COUNTER(field, name, help)                                              \
	do {                                                                           \
		family(f, name, "counter", help);                                      \
		for (int i = 0; i < p->nr_series; i++) {                               \
			fputs(name, f);                                                \
			labels(f, p, &p->series[i], NULL, NULL);                       \
			fprintf(f, " %llu\n", (unsigned long long)p->series[i].field); \
		}                                                                      \
	} while (0)

static void render_counters(FILE *f, struct sl_prom *p)
{
	family(f, "schedlens_wakeups_total", "counter",
	       "Wakeups by placement class: relation of the chosen CPU to the task's previous "
	       "CPU (group \"*\" is every task).");
	for (int i = 0; i < p->nr_series; i++)
		for (int c = 0; c < SL_RREL_COUNT; c++) {
			fputs("schedlens_wakeups_total", f);
			labels(f, p, &p->series[i], "class", rel_names[c]);
			fprintf(f, " %llu\n", (unsigned long long)p->series[i].wk_class[c]);
		}
	family(f, "schedlens_wakeup_target_total", "counter",
	       "Wakeups by the state of the chosen CPU (claimed: another wakee was pending).");
	for (int i = 0; i < p->nr_series; i++)
		for (int c = 0; c < SL_TS_COUNT; c++) {
			fputs("schedlens_wakeup_target_total", f);
			labels(f, p, &p->series[i], "state", state_names[c]);
			fprintf(f, " %llu\n", (unsigned long long)p->series[i].wk_state[c]);
		}
	SIMPLE_COUNTER(missed_idle, "schedlens_missed_idle_total",
		       "Wakeups placed on a busy or claimed CPU while its LLC had an idle one.");
	SIMPLE_COUNTER(missed_smt, "schedlens_missed_smt_total",
		       "Wakeups placed on a busy CPU beside an idle SMT sibling.");
	SIMPLE_COUNTER(stacked, "schedlens_stacked_total",
		       "Wakeups onto a CPU another wakee had already claimed.");
	SIMPLE_COUNTER(migrations, "schedlens_migrations_total", "Task migrations.");
	SIMPLE_COUNTER(switches, "schedlens_switches_total", "Context switches (switch-outs).");
	family(f, "schedlens_preemptions_total", "counter",
	       "Preemptions of still-runnable tasks by cause (wakeup or tick).");
	for (int i = 0; i < p->nr_series; i++) {
		fputs("schedlens_preemptions_total", f);
		labels(f, p, &p->series[i], "cause", "wakeup");
		fprintf(f, " %llu\n", (unsigned long long)p->series[i].preempt_wakeup);
		fputs("schedlens_preemptions_total", f);
		labels(f, p, &p->series[i], "cause", "tick");
		fprintf(f, " %llu\n", (unsigned long long)p->series[i].preempt_tick);
	}
	SIMPLE_COUNTER(same_group, "schedlens_same_group_preemptions_total",
		       "Preemptions where the preemptor was in the victim's group.");
	SIMPLE_COUNTER(
		lhp, "schedlens_lhp_total",
		"Lock-holder preemptions: the victim released same-group waiters on resuming.");
	family(f, "schedlens_lhp_cost_seconds_total", "counter",
	       "Waiter time added by lock-holder preemptions.");
	for (int i = 0; i < p->nr_series; i++) {
		fputs("schedlens_lhp_cost_seconds_total", f);
		labels(f, p, &p->series[i], NULL, NULL);
		fprintf(f, " %.9f\n", p->series[i].lhp_cost_ns / 1e9);
	}
	SIMPLE_COUNTER(hub, "schedlens_hub_preemptions_total",
		       "Preemptions of hub tasks (tasks that wake many of their group).");
	SIMPLE_COUNTER(spin_lhp, "schedlens_spin_lhp_total",
		       "Lock-holder preemptions with spinning waiters: same-group tasks backing "
		       "off by timer while the victim was off-CPU.");
	family(f, "schedlens_spin_lhp_cost_seconds_total", "counter",
	       "Spinning waiters' time added by lock-holder preemptions.");
	for (int i = 0; i < p->nr_series; i++) {
		fputs("schedlens_spin_lhp_cost_seconds_total", f);
		labels(f, p, &p->series[i], NULL, NULL);
		fprintf(f, " %.9f\n", p->series[i].spin_cost_ns / 1e9);
	}
	SIMPLE_COUNTER(windows, "schedlens_windows_total", "Analysis windows emitted.");
}

static void render_process(FILE *f, struct sl_prom *p)
{
	char h[256], k[256];

	sl_prom_escape(h, sizeof(h), p->host);
	sl_prom_escape(k, sizeof(k), p->kernel);
	family(f, "schedlens_events_total", "counter", "Scheduler events read by the recorder.");
	fprintf(f, "schedlens_events_total{host=\"%s\",kernel=\"%s\"} %llu\n", h, k,
		(unsigned long long)p->proc.events);
	family(f, "schedlens_lost_events_total", "counter",
	       "Events the kernel dropped before the recorder read them.");
	fprintf(f, "schedlens_lost_events_total{host=\"%s\",kernel=\"%s\"} %llu\n", h, k,
		(unsigned long long)p->proc.lost_events);
	family(f, "schedlens_dropped_rows_total", "counter",
	       "Rows the store refused because its queue was full.");
	fprintf(f, "schedlens_dropped_rows_total{host=\"%s\"} %llu\n", h,
		(unsigned long long)p->proc.dropped_rows);
	family(f, "schedlens_runs_started_total", "counter", "Runs (segments) this process began.");
	fprintf(f, "schedlens_runs_started_total{host=\"%s\"} %llu\n", h,
		(unsigned long long)p->proc.runs_started);
	family(f, "schedlens_recording", "gauge",
	       "1 while recording, 0 while the duty cycle pauses.");
	fprintf(f, "schedlens_recording{host=\"%s\"} %d\n", h, p->proc.recording);
	family(f, "schedlens_uptime_seconds", "gauge", "Seconds since the daemon started.");
	fprintf(f, "schedlens_uptime_seconds{host=\"%s\"} %.3f\n", h, p->proc.uptime_s);
	family(f, "schedlens_db_bytes", "gauge", "Size of the database file.");
	fprintf(f, "schedlens_db_bytes{host=\"%s\"} %llu\n", h,
		(unsigned long long)p->proc.db_bytes);
}

static void print_value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.9g\n", v);
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Gauges for the flagged findings of the newest comparison only: bounded by the metric table. */
static void render_findings(FILE *f, const struct sl_prom *p, const json_t *findings)
{
	static const char *const gauges[][3] = {
		{ "schedlens_finding_relative_change", "rel_change",
		  "Relative change of a flagged metric in the newest comparison." },
		{ "schedlens_finding_baseline_value", "baseline_value",
		  "Baseline value of a flagged metric in the newest comparison (display unit)." },
		{ "schedlens_finding_candidate_value", "candidate_value",
		  "Candidate value of a flagged metric in the newest comparison (display unit)." },
	};
	const json_t *comp = json_array_get(json_object_get(findings, "comparisons"), 0);
	const json_t *arr = json_object_get(findings, "findings"), *fi;
	json_int_t id = json_integer_value(json_object_get(comp, "id"));
	char h[256], b[512], c[512], m[128], g[128], v[64];
	static const char *const verdicts[] = { "regression",	"improvement", "change",
						"inconclusive", "equivalent",  "insufficient_data" };
	const char *cv = json_string_value(json_object_get(comp, "verdict")) ?: "";
	int counts[3] = { 0 };
	size_t i;

	family(f, "schedlens_findings", "gauge",
	       "Findings of the newest comparison by verdict (flagged, inconclusive, equivalent).");
	sl_prom_escape(h, sizeof(h), p->host);
	if (!comp) {
		for (int k = 0; k < 5; k++)
			fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"%s\"} 0\n", h,
				verdicts[k]);
		return;
	}
	sl_prom_escape(b, sizeof(b), json_string_value(json_object_get(comp, "baseline")) ?: "");
	sl_prom_escape(c, sizeof(c), json_string_value(json_object_get(comp, "candidate")) ?: "");
	json_array_foreach(arr, i, fi)
	{
		const char *verdict = json_string_value(json_object_get(fi, "verdict")) ?: "";

		if (json_integer_value(json_object_get(fi, "comparison_id")) != id)
			continue;
		counts[0] += !strcmp(verdict, "regression");
		counts[1] += !strcmp(verdict, "improvement");
		counts[2] += !strcmp(verdict, "change");
	}
	fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"regression\"} %d\n", h, counts[0]);
	fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"improvement\"} %d\n", h, counts[1]);
	fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"change\"} %d\n", h, counts[2]);
	fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"inconclusive\"} %lld\n", h,
		(long long)json_integer_value(json_object_get(comp, "inconclusive")));
	fprintf(f, "schedlens_findings{host=\"%s\",verdict=\"equivalent\"} %lld\n", h,
		(long long)json_integer_value(json_object_get(comp, "equivalent")));
	/* a state set: 1 for the newest comparison's verdict, 0 for the others */
	family(f, "schedlens_comparison_verdict", "gauge",
	       "Verdict of the newest comparison: 1 for its verdict, 0 for the others.");
	for (int k = 0; k < 6; k++)
		fprintf(f,
			"schedlens_comparison_verdict{host=\"%s\",comparison=\"%lld\",verdict=\"%s\"} %d\n",
			h, (long long)id, verdicts[k], !strcmp(cv, verdicts[k]));
	for (int k = 0; k < 3; k++) {
		family(f, gauges[k][0], "gauge", gauges[k][2]);
		json_array_foreach(arr, i, fi)
		{
			const char *verdict = json_string_value(json_object_get(fi, "verdict")) ?:
												  "";

			if (json_integer_value(json_object_get(fi, "comparison_id")) != id ||
			    (strcmp(verdict, "regression") && strcmp(verdict, "improvement") &&
			     strcmp(verdict, "change")))
				continue;
			sl_prom_escape(m, sizeof(m),
				       json_string_value(json_object_get(fi, "metric")) ?: "");
			sl_prom_escape(g, sizeof(g),
				       json_string_value(json_object_get(fi, "group")) ?: "");
			sl_prom_escape(v, sizeof(v), verdict);
			fprintf(f,
				"%s{host=\"%s\",comparison=\"%lld\",baseline=\"%s\",candidate=\"%s\","
				"metric=\"%s\",group=\"%s\",verdict=\"%s\"}",
				gauges[k][0], h, (long long)id, b, c, m, g, v);
			print_value(f, num(fi, gauges[k][1]));
		}
	}
}

char *sl_prom_render(struct sl_prom *p, const json_t *findings, size_t *ret_len)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	pthread_mutex_lock(&p->lock);
	render_counters(f, p);
	render_process(f, p);
	render_findings(f, p, findings);
	pthread_mutex_unlock(&p->lock);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	if (ret_len)
		*ret_len = len;
	return out;
}
