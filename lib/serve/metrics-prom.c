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
#include "store-query.h"

struct series {
	char kernel[128];
	char grp[SL_GROUP_LEN];
	uint64_t counter[SL_WIN_NR]; /* window-counters.h: those with a Prometheus name */
	uint64_t windows;
	uint64_t dur_ns; /* the windows' summed length: the denominator of every rate */
	uint64_t lat[SL_HIST_COARSE]; /* wakeup latencies in hist.h's coarse buckets */
	uint64_t lat_total;
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
		for (int i = 0; i < SL_WIN_NR; i++)
			s->counter[i] += SL_WIN_CVALUE(w, i);
		s->windows++;
		s->dur_ns += w->dur_ns;
		for (unsigned int b = 0; b < SL_HIST_BUCKETS; b++)
			s->lat[sl_hist_coarse_of(b)] += w->latency.counts[b];
		s->lat_total += w->latency.total;
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

/* A sample's end: "\n", or " <seconds>\n" for a sample with a timestamp (OpenMetrics). */
static void end_sample(FILE *f, const char *ts)
{
	if (ts)
		fprintf(f, " %s", ts);
	fputc('\n', f);
}

/* A counter's value: counts as integers, times in ns as seconds. */
static void print_counter(FILE *f, const struct sl_window_counter *c, uint64_t v, const char *ts)
{
	size_t len = strlen(c->column);

	if (len > 3 && !strcmp(c->column + len - 3, "_ns"))
		fprintf(f, " %.9f", v / 1e9);
	else
		fprintf(f, " %llu", (unsigned long long)v);
	end_sample(f, ts);
}

/*
 * The window counters with a Prometheus name; consecutive ones of a name are one family.
 * With ts (history) every sample carries it and the HELP/TYPE lines are left out: they
 * may appear only once per family in an OpenMetrics file.
 */
static void render_counters(FILE *f, struct sl_prom *p, const char *ts)
{
	int end;

	for (int first = 0; first < SL_WIN_NR; first = end) {
		const struct sl_window_counter *c = &sl_window_counters[first];

		end = first + 1;
		if (!c->prom)
			continue;
		while (end < SL_WIN_NR && sl_window_counters[end].prom &&
		       !strcmp(sl_window_counters[end].prom, c->prom))
			end++;
		if (!ts)
			family(f, c->prom, "counter", c->prom_help);
		for (int i = 0; i < p->nr_series; i++)
			for (int k = first; k < end; k++) {
				const struct sl_window_counter *e = &sl_window_counters[k];

				fputs(e->prom, f);
				labels(f, p, &p->series[i], e->prom_key, e->prom_value);
				print_counter(f, e, p->series[i].counter[k], ts);
			}
	}
	if (!ts)
		family(f, "schedlens_windows_total", "counter", "Analysis windows emitted.");
	for (int i = 0; i < p->nr_series; i++) {
		fputs("schedlens_windows_total", f);
		labels(f, p, &p->series[i], NULL, NULL);
		fprintf(f, " %llu", (unsigned long long)p->series[i].windows);
		end_sample(f, ts);
	}
	if (!ts)
		family(f, "schedlens_window_seconds_total", "counter",
		       "Summed length of the analysis windows emitted (the time the counters "
		       "cover).");
	for (int i = 0; i < p->nr_series; i++) {
		fputs("schedlens_window_seconds_total", f);
		labels(f, p, &p->series[i], NULL, NULL);
		fprintf(f, " %.9f", p->series[i].dur_ns / 1e9);
		end_sample(f, ts);
	}
}

/*
 * Wakeup latency as a histogram in the coarse buckets of hist.h (48 series per kernel and
 * group, not the 337 fine ones), for series that have seen a wakeup. There is no _sum:
 * the windows keep counts per bucket, not the latencies' total.
 */
static void render_latency(FILE *f, struct sl_prom *p, const char *ts)
{
	const char *name = "schedlens_wakeup_latency_seconds";
	char le[32];

	if (!ts)
		family(f, name, "histogram",
		       "Wakeup latency (sched_waking to the wakee running); bucket bounds are "
		       "whole microseconds.");
	for (int i = 0; i < p->nr_series; i++) {
		const struct series *s = &p->series[i];
		uint64_t cum = 0;

		if (!s->lat_total)
			continue;
		for (unsigned int b = 0; b < SL_HIST_COARSE; b++) {
			cum += s->lat[b];
			if (b + 1 < SL_HIST_COARSE)
				snprintf(le, sizeof(le), "%.6f",
					 sl_hist_bucket_lo_ns(sl_hist_coarse_lo(b + 1)) / 1e9);
			else
				snprintf(le, sizeof(le), "+Inf");
			fprintf(f, "%s_bucket", name);
			labels(f, p, s, "le", le);
			fprintf(f, " %llu", (unsigned long long)cum);
			end_sample(f, ts);
		}
		fprintf(f, "%s_count", name);
		labels(f, p, s, NULL, NULL);
		fprintf(f, " %llu", (unsigned long long)s->lat_total);
		end_sample(f, ts);
	}
}

void sl_prom_render_history(struct sl_prom *p, FILE *f, uint64_t wall_ns)
{
	char ts[32];

	snprintf(ts, sizeof(ts), "%llu.%03llu", (unsigned long long)(wall_ns / 1000000000),
		 (unsigned long long)(wall_ns / 1000000 % 1000));
	pthread_mutex_lock(&p->lock);
	render_counters(f, p, ts);
	render_latency(f, p, ts);
	pthread_mutex_unlock(&p->lock);
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
	family(f, "schedlens_db_limit_bytes", "gauge",
	       "Size cap of the database (max-db-size; 0: none): past it the oldest rows go.");
	fprintf(f, "schedlens_db_limit_bytes{host=\"%s\"} %llu\n", h,
		(unsigned long long)p->proc.db_limit_bytes);
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

/*
 * Unconfirmed changes are inconclusive findings too, so they get a gauge of their own: a
 * verdict label would count them twice in a sum over schedlens_findings. An alert on
 * "unconfirmed after an upgrade" asks for more runs a side, not a rollback.
 */
static void render_unconfirmed(FILE *f, const char *host, json_int_t n)
{
	family(f, "schedlens_unconfirmed_changes", "gauge",
	       "Unconfirmed changes of the newest comparison: headline metrics past their "
	       "margin whose interval excludes 0, discoveries at a false discovery rate of " SL_UNCONFIRMED_FDR_SQL
	       ", not significant after the family-wise adjustment.");
	fprintf(f, "schedlens_unconfirmed_changes{host=\"%s\"} %lld\n", host, (long long)n);
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
		render_unconfirmed(f, h, 0);
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
	render_unconfirmed(f, h, json_integer_value(json_object_get(comp, "unconfirmed")));
	/*
	 * A state set: 1 for the newest comparison's verdict, 0 for the others. Its sides ride
	 * along so that an alert on it can say which kernels it compared.
	 */
	family(f, "schedlens_comparison_verdict", "gauge",
	       "Verdict of the newest comparison: 1 for its verdict, 0 for the others.");
	for (int k = 0; k < 6; k++)
		fprintf(f,
			"schedlens_comparison_verdict{host=\"%s\",comparison=\"%lld\",baseline=\"%s\","
			"candidate=\"%s\",verdict=\"%s\"} %d\n",
			h, (long long)id, b, c, verdicts[k], !strcmp(cv, verdicts[k]));
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
	render_counters(f, p, NULL);
	render_latency(f, p, NULL);
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
