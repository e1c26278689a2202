// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fleet comparison through Prometheus (compare-prom.h). For each counter family of
 * window-counters.h that /metrics exports, and for schedlens_window_seconds_total (the
 * rates' denominator), one query_range per side asks for
 *   sum by (host, group[, key]) (increase(FAMILY{MATCHER}[STEP]))
 * at every step; each (host, group, step) becomes one window record, each host one unit,
 * and compare.c's tests run on them unchanged (sl_cmp_test). The latency quantiles come from
 * the coarse histogram schedlens_wakeup_latency_seconds (hist.h): its buckets' increases are
 * spread over the fine buckets they cover, so quantiles are interpolated within them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "compare-local.h"
#include "compare-prom.h"
#include "curl-lazy.h"
#include "error.h"
#include "window-counters.h"

#define MAX_RESPONSE (256u << 20) /* one query's JSON */
#define MAX_HOSTS 4096
#define MAX_STEPS 11000 /* Prometheus refuses more points per series */
#define DUR (SL_WIN_NR) /* the slot of window seconds after the counters */
#define LAT (DUR + 1) /* then the latency histogram's cumulative buckets (le order) */
#define SLOTS (LAT + SL_HIST_COARSE)
#define LAT_FAMILY "schedlens_wakeup_latency_seconds_bucket"

/* One (host, group) of a side: its steps' values, allocated on first use. */
struct cell {
	int host;
	char grp[SL_GROUP_LEN];
	double (**step)[SLOTS];
};

struct side {
	char **hosts;
	int nr_hosts;
	struct cell *cells;
	int nr_cells;
	bool latency; /* some host exported the latency histogram */
};

struct fetch {
	const struct sl_curl *cu;
	CURL *h;
	const struct sl_fleet_opts *f;
	char url[1024];
	uint64_t start, end, nsteps;
	char *body;
	size_t len;
	bool too_big;
};

void sl_fleet_opts_default(struct sl_fleet_opts *f)
{
	memset(f, 0, sizeof(*f));
	f->range_s = 86400;
	f->step_s = 60;
	f->timeout_s = 30;
}

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct fetch *fe = ctx;
	size_t len = size * n;
	char *b;

	if (fe->len + len > MAX_RESPONSE) {
		fe->too_big = true;
		return 0;
	}
	if (!(b = realloc(fe->body, fe->len + len + 1)))
		return 0;
	memcpy(b + fe->len, p, len);
	fe->body = b;
	fe->len += len;
	b[fe->len] = '\0';
	return len;
}

/* The connection's socket, close-on-exec like every fd of ours. */
static curl_socket_t open_socket(void *ctx, curlsocktype purpose, struct curl_sockaddr *a)
{
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/*
 * libcurl 7.88 opens the wakeup socketpair of the easy handle's internal multi handle without
 * SOCK_CLOEXEC (strace showed it) and offers no option for it; it lives as long as the
 * handle. After each request every descriptor above stderr that lacks FD_CLOEXEC gets it:
 * nothing of ours forks while a request runs, and none of our descriptors is meant to be
 * inherited.
 */
static void cloexec_leftovers(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name), fl;

		if (fd > 2 && fd != dirfd(d) && (fl = fcntl(fd, F_GETFD)) >= 0 &&
		    !(fl & FD_CLOEXEC))
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
	closedir(d);
}

/* One query_range; *ret is its data.result array (a new reference). */
static int query(struct fetch *fe, const char *promql, json_t **ret)
{
	char *q = fe->cu->easy_escape(fe->h, promql, 0), post[4096];
	json_t *root, *res;
	json_error_t je;
	long code = 0;
	CURLcode rc;
	int err = 0;

	if (!q)
		return -ENOMEM;
	snprintf(post, sizeof(post), "query=%s&start=%llu&end=%llu&step=%llu", q,
		 (unsigned long long)fe->start, (unsigned long long)fe->end,
		 (unsigned long long)fe->f->step_s);
	fe->cu->free(q);
	free(fe->body);
	fe->body = NULL;
	fe->len = 0;
	fe->cu->easy_setopt(fe->h, CURLOPT_POSTFIELDS, post);
	rc = fe->cu->easy_perform(fe->h);
	cloexec_leftovers();
	if (rc != CURLE_OK)
		return sl_error(-SL_EUSAGE, "cannot query '%s': %s", fe->url,
				fe->too_big ? "response too large" : fe->cu->easy_strerror(rc));
	fe->cu->easy_getinfo(fe->h, CURLINFO_RESPONSE_CODE, &code);
	root = fe->body ? json_loadb(fe->body, fe->len, 0, &je) : NULL;
	if (!root)
		return sl_error(-SL_EUSAGE, "'%s' answered HTTP %ld without a Prometheus JSON body",
				fe->url, code);
	if (strcmp(json_string_value(json_object_get(root, "status")) ?: "", "success")) {
		err = sl_error(-SL_EUSAGE, "prometheus at '%s' refused '%s': %s", fe->url, promql,
			       json_string_value(json_object_get(root, "error")) ?: "no reason");
	} else if (!json_is_array(res = json_object_get(json_object_get(root, "data"), "result"))) {
		err = sl_error(-SL_EUSAGE, "'%s' answered '%s' without a result", fe->url, promql);
	} else {
		*ret = json_incref(res);
	}
	json_decref(root);
	return err;
}

static int host_index(struct side *s, const char *host)
{
	char **h;

	for (int i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i], host))
			return i;
	if (s->nr_hosts == MAX_HOSTS)
		return sl_error(-SL_EUSAGE, "more than %d hosts", MAX_HOSTS);
	if (!(h = realloc(s->hosts, sizeof(*h) * (s->nr_hosts + 1))))
		return -ENOMEM;
	s->hosts = h;
	if (!(h[s->nr_hosts] = strdup(host)))
		return -ENOMEM;
	return s->nr_hosts++;
}

static struct cell *find_cell(struct side *s, int host, const char *grp, uint64_t nsteps)
{
	struct cell *c;

	for (int i = 0; i < s->nr_cells; i++)
		if (s->cells[i].host == host && !strcmp(s->cells[i].grp, grp))
			return &s->cells[i];
	if (!(c = realloc(s->cells, sizeof(*c) * (s->nr_cells + 1))))
		return NULL;
	s->cells = c;
	c = &s->cells[s->nr_cells];
	memset(c, 0, sizeof(*c));
	c->host = host;
	snprintf(c->grp, sizeof(c->grp), "%s", grp);
	if (!(c->step = calloc(nsteps, sizeof(*c->step))))
		return NULL;
	s->nr_cells++;
	return c;
}

static void free_side(struct side *s, uint64_t nsteps)
{
	for (int i = 0; i < s->nr_hosts; i++)
		free(s->hosts[i]);
	free(s->hosts);
	for (int i = 0; i < s->nr_cells; i++) {
		for (uint64_t k = 0; s->cells[i].step && k < nsteps; k++)
			free(s->cells[i].step[k]);
		free(s->cells[i].step);
	}
	free(s->cells);
}

/* Slot of a histogram series: its le bound among hist.h's coarse bounds; -1 for none. */
static int bucket_slot(json_t *metric)
{
	const char *v = json_string_value(json_object_get(metric, "le"));
	double le;

	if (!v)
		return -1;
	if (!strcmp(v, "+Inf"))
		return LAT + SL_HIST_COARSE - 1;
	le = strtod(v, NULL) * 1e9;
	for (unsigned int i = 1; i < SL_HIST_COARSE; i++)
		if (fabs(le - (double)sl_hist_bucket_lo_ns(sl_hist_coarse_lo(i))) < 500)
			return LAT + (int)i - 1;
	return -1;
}

/*
 * Slot of a family's series: the family's counter whose label value is the series' (key
 * NULL: the family's only counter), DUR for window seconds, a bucket slot for the latency
 * histogram, -1 for none.
 */
static int counter_of(int first, int end, const char *key, json_t *metric)
{
	const char *v;

	if (first == LAT)
		return bucket_slot(metric);
	if (first == DUR)
		return DUR;
	if (!key)
		return first;
	if (!(v = json_string_value(json_object_get(metric, key))))
		return -1;
	for (int i = first; i < end; i++)
		if (sl_window_counters[i].prom_value &&
		    !strcmp(sl_window_counters[i].prom_value, v))
			return i;
	return -1;
}

/* Stores one family's result: every series' values into its host's and group's steps. */
static int store_result(struct fetch *fe, struct side *s, int first, int end, const char *key,
			json_t *result)
{
	size_t i, j;
	json_t *series, *pt;

	json_array_foreach(result, i, series)
	{
		json_t *metric = json_object_get(series, "metric");
		const char *host = json_string_value(json_object_get(metric, "host"));
		const char *grp = json_string_value(json_object_get(metric, "group"));
		int k = counter_of(first, end, key, metric), hi;
		struct cell *c;

		if (!host || !grp || k < 0)
			continue;
		if ((hi = host_index(s, host)) < 0)
			return hi;
		if (!(c = find_cell(s, hi, grp, fe->nsteps)))
			return -ENOMEM;
		json_array_foreach(json_object_get(series, "values"), j, pt)
		{
			double ts = json_number_value(json_array_get(pt, 0));
			const char *val = json_string_value(json_array_get(pt, 1));
			double v = val ? strtod(val, NULL) : NAN;
			uint64_t at;

			if (!(ts >= (double)fe->start) || !isfinite(v) || v < 0)
				continue;
			at = ((uint64_t)llround(ts) - fe->start) / fe->f->step_s;
			if (at >= fe->nsteps)
				continue;
			if (!c->step[at] && !(c->step[at] = calloc(1, sizeof(*c->step[at]))))
				return -ENOMEM;
			(*c->step[at])[k] = v;
		}
	}
	return 0;
}

/* Every exported family, window seconds and the latency histogram of one side. */
static int fetch_side(struct fetch *fe, const char *matcher, struct side *s)
{
	char promql[1024];
	int err = 0, end;

	for (int first = 0; first <= LAT && !err; first = end) {
		const char *fam = "schedlens_window_seconds_total", *key = NULL;
		json_t *result = NULL;

		end = first + 1;
		if (first == LAT) {
			fam = LAT_FAMILY;
			key = "le";
		} else if (first < SL_WIN_NR) {
			if (!sl_window_counters[first].prom)
				continue;
			fam = sl_window_counters[first].prom;
			key = sl_window_counters[first].prom_key;
			while (end < SL_WIN_NR && sl_window_counters[end].prom &&
			       !strcmp(sl_window_counters[end].prom, fam))
				end++;
		}
		snprintf(promql, sizeof(promql),
			 "sum by (host, group%s%s) (increase(%s{%s}[%llus]))", key ? ", " : "",
			 key ? key : "", fam, matcher, (unsigned long long)fe->f->step_s);
		if (!(err = query(fe, promql, &result)))
			err = store_result(fe, s, first, end, key, result);
		if (first == LAT && json_array_size(result))
			s->latency = true;
		json_decref(result);
	}
	return err;
}

static int cmp_host(const void *a, const void *b, void *ctx)
{
	char **h = ctx;

	return strcmp(h[*(const int *)a], h[*(const int *)b]);
}

/* A step's latency histogram from its cumulative bucket increases (clamped monotone). */
static void step_latency(const double *v, struct sl_hist *h)
{
	double coarse[SL_HIST_COARSE], below = 0;

	for (int i = 0; i < SL_HIST_COARSE; i++) {
		double cum = v[LAT + i] > below ? v[LAT + i] : below;

		coarse[i] = cum - below;
		below = cum;
	}
	sl_hist_from_coarse(h, coarse);
}

/* The side's windows into d, host by host (sorted by name), then group, then step. */
static int load_side(const struct fetch *fe, const struct side *s, int side, const char *matcher,
		     struct sl_cmp_data *d, struct sl_cmp_side *cs)
{
	struct sl_window_rec *w = malloc(sizeof(*w));
	int *order = calloc(s->nr_hosts + 1, sizeof(int)), err = 0, units = 0;
	size_t o;

	if (!w || !order || !(cs->runs = calloc(s->nr_hosts + 1, sizeof(*cs->runs)))) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < s->nr_hosts; i++)
		order[i] = i;
	qsort_r(order, s->nr_hosts, sizeof(int), cmp_host, s->hosts);
	o = (size_t)snprintf(cs->desc, sizeof(cs->desc), "%s hosts=", matcher);
	for (int r = 0; r < s->nr_hosts && !err; r++) {
		int h = order[r];
		size_t before = 0;

		for (int i = 0; i < s->nr_cells && !err; i++) {
			const struct cell *c = &s->cells[i];

			if (c->host != h)
				continue;
			for (uint64_t k = 0; k < fe->nsteps && !err; k++) {
				const double *v = c->step[k] ? *c->step[k] : NULL;

				if (!v || !(v[DUR] > 0))
					continue;
				memset(w, 0, sizeof(*w));
				snprintf(w->grp, sizeof(w->grp), "%s", c->grp);
				w->start_ns = (fe->start + k * fe->f->step_s) * 1000000000ull;
				w->dur_ns = (uint64_t)llround(v[DUR] * 1e9);
				for (int j = 0; j < SL_WIN_NR; j++) {
					size_t len = strlen(sl_window_counters[j].column);
					bool ns = len > 3 &&
						  !strcmp(sl_window_counters[j].column + len - 3,
							  "_ns");

					SL_WIN_VALUE(w, j) =
						(uint64_t)llround(ns ? v[j] * 1e9 : v[j]);
				}
				step_latency(v, &w->latency);
				err = sl_cmp_data_add(d, side, side * MAX_HOSTS + r + 1, w);
				before++;
			}
		}
		if (!before)
			continue;
		cs->runs[cs->nr_runs++] = r + 1;
		units++;
		if (o < sizeof(cs->desc))
			o += (size_t)snprintf(cs->desc + o, sizeof(cs->desc) - o, "%s%s",
					      units > 1 ? "," : "", s->hosts[h]);
	}
	if (!err && !units)
		err = sl_error(-SL_EUSAGE,
			       "no schedlens series match {%s} in the %llu s before %llu", matcher,
			       (unsigned long long)fe->f->range_s, (unsigned long long)fe->end);
out:
	free(order);
	free(w);
	return err;
}

/* The side's kernel: the value of a kernel="..." matcher, else the matcher itself. */
static void side_kernel(const char *matcher, char *buf, size_t size)
{
	size_t len = strlen(matcher);

	if (!strncmp(matcher, "kernel=\"", 8) && len > 9 && matcher[len - 1] == '"' &&
	    !strpbrk(matcher + 8, ",{}") && !memchr(matcher + 8, '"', len - 9))
		snprintf(buf, size, "%.*s", (int)(len - 9), matcher + 8);
	else
		snprintf(buf, size, "%s", matcher);
}

/* Without a latency histogram from any host the quantiles are dropped, with a note. */
static void drop_quantiles(struct sl_comparison *c)
{
	size_t n = 0;
	int dropped = 0;

	for (size_t i = 0; i < c->nr_findings; i++) {
		if (c->findings[i].metric->kind == SL_MK_QUANTILE) {
			c->insufficient -= c->findings[i].verdict == SL_V_INSUFFICIENT;
			dropped++;
			continue;
		}
		c->findings[n++] = c->findings[i];
	}
	c->nr_findings = n;
	if (dropped)
		sl_cmp_note(c, "latency quantiles not compared: no host exports "
			       "schedlens_wakeup_latency_seconds");
}

static int check_input(const struct sl_fleet_opts *f)
{
	if (!f->url || (strncmp(f->url, "http://", 7) && strncmp(f->url, "https://", 8)))
		return sl_error(-SL_EUSAGE, "bad Prometheus URL '%s' (http://HOST:PORT)",
				f->url ? f->url : "");
	for (int s = 0; s < 2; s++)
		if (!f->matcher[s] || !*f->matcher[s] || strpbrk(f->matcher[s], "{}\n") ||
		    !strpbrk(f->matcher[s], "=~"))
			return sl_error(-SL_EUSAGE,
					"bad %s matcher '%s' (label matchers such as "
					"'kernel=\"6.1.0-50-amd64\"')",
					s ? "candidate" : "baseline",
					f->matcher[s] ? f->matcher[s] : "");
	if (!f->step_s || !f->range_s || f->range_s / f->step_s >= MAX_STEPS)
		return sl_error(-SL_EUSAGE, "range %llu s in steps of %llu s: at most %d steps",
				(unsigned long long)f->range_s, (unsigned long long)f->step_s,
				MAX_STEPS - 1);
	return 0;
}

int sl_compare_prom(const struct sl_compare_opts *o, const struct sl_fleet_opts *f,
		    struct sl_comparison **ret)
{
	struct fetch fe = { .f = f };
	struct side sides[2] = { 0 };
	struct sl_cmp_data *d = NULL;
	struct sl_comparison *c = NULL;
	size_t len;
	int err;

	if ((err = check_input(f)))
		return err;
	fe.end = f->end_s ? f->end_s : (uint64_t)time(NULL);
	fe.start = fe.end > f->range_s ? fe.end - f->range_s : 0;
	fe.nsteps = f->range_s / f->step_s + 1;
	len = strlen(f->url);
	while (len && f->url[len - 1] == '/')
		len--;
	snprintf(fe.url, sizeof(fe.url), "%.*s/api/v1/query_range", (int)len, f->url);
	if ((err = sl_curl_load(&fe.cu)))
		return err;
	if (!(fe.h = fe.cu->easy_init()) || !(d = sl_cmp_data_new()) ||
	    !(c = calloc(1, sizeof(*c)))) {
		err = -ENOMEM;
		goto out;
	}
	fe.cu->easy_setopt(fe.h, CURLOPT_URL, fe.url);
	fe.cu->easy_setopt(fe.h, CURLOPT_WRITEFUNCTION, on_data);
	fe.cu->easy_setopt(fe.h, CURLOPT_WRITEDATA, &fe);
	fe.cu->easy_setopt(fe.h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	fe.cu->easy_setopt(fe.h, CURLOPT_TIMEOUT, f->timeout_s > 0 ? f->timeout_s : 30L);
	fe.cu->easy_setopt(fe.h, CURLOPT_NOSIGNAL, 1L);
	fe.cu->easy_setopt(fe.h, CURLOPT_PROTOCOLS_STR, "http,https");
	for (int s = 0; s < 2 && !err; s++)
		err = fetch_side(&fe, f->matcher[s], &sides[s]);
	for (int s = 0; s < 2 && !err; s++) {
		side_kernel(f->matcher[s], c->side[s].kernel, sizeof(c->side[s].kernel));
		err = load_side(&fe, &sides[s], s, f->matcher[s], d, &c->side[s]);
	}
	if (err)
		goto out;
	sl_cmp_note(c,
		    "fleet: hosts serve as runs and %llu s steps of Prometheus increase() as "
		    "windows",
		    (unsigned long long)f->step_s);
	if ((err = sl_cmp_test(o, d, c)))
		goto out;
	if (sides[0].latency && sides[1].latency)
		sl_cmp_note(c, "latency quantiles from /metrics's histogram of two buckets an "
			       "octave, interpolated within each bucket");
	else
		drop_quantiles(c);
	*ret = c;
	c = NULL;
out:
	for (int s = 0; s < 2; s++)
		free_side(&sides[s], fe.nsteps);
	sl_comparison_free(c);
	sl_cmp_data_free(d);
	if (fe.h)
		fe.cu->easy_cleanup(fe.h);
	free(fe.body);
	return err;
}
