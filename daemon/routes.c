// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd's HTTP routes. Handlers only validate parameters and call lib/ (api.h,
 * api-web.h, compare.h, metrics-prom.h), which return JSON or text; lib/serve/http.c does the rest. Each
 * server thread keeps its own read-only connection to the database. Request paths are
 * matched exactly, never mapped to files: the dashboard's files are compiled in
 * (web-assets.h, generated from web/ by scripts/embed-web) and found by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api-events.h"
#include "api-web.h"
#include "compare.h"
#include "daemon.h"
#include "error.h"
#include "export-text.h"
#include "http.h"
#include "version.h"
#include "web-assets.h"

static pthread_key_t store_key;
static pthread_once_t store_once = PTHREAD_ONCE_INIT;
/* the comparison's bootstrap is CPU-heavy: one at a time from the API */
static int compare_busy;

static void close_store(void *p)
{
	sl_store_close(p);
}

static void make_key(void)
{
	pthread_key_create(&store_key, close_store);
}

static struct sl_store *thread_store(struct sd_daemon *d, struct sl_http_resp *resp)
{
	struct sl_store *s;
	int err;

	pthread_once(&store_once, make_key);
	s = pthread_getspecific(store_key);
	if (s)
		return s;
	err = sl_store_open(d->cfg.db, SL_STORE_RDONLY, &s);
	if (err < 0) {
		sl_http_error(resp, 503, "database unavailable: %s", sl_errmsg(err));
		return NULL;
	}
	pthread_setspecific(store_key, s);
	return s;
}

/* Strict unsigned decimal: digits only, no sign, no blanks, fits in 62 bits. */
static bool parse_id(const char *s, size_t len, int64_t *ret)
{
	int64_t v = 0;

	if (!len || len > 18)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return true;
}

/* An optional numeric query argument in [lo, hi]; false after filling a 400. */
static bool arg_u64(const struct sl_http_req *req, struct sl_http_resp *resp, const char *name,
		    uint64_t lo, uint64_t hi, uint64_t *ret)
{
	const char *v = sl_http_query(req, name);
	int64_t x;

	if (!v)
		return true;
	if (!parse_id(v, strlen(v), &x) || (uint64_t)x < lo || (uint64_t)x > hi) {
		sl_http_error(resp, 400, "'%s' must be a whole number in %llu..%llu", name,
			      (unsigned long long)lo, (unsigned long long)hi);
		return false;
	}
	*ret = x;
	return true;
}

/* Group names are comms or "tgid:N" or "*": printable, short. */
static bool valid_group(const char *g)
{
	size_t n = strlen(g);

	if (!n || n >= SL_GROUP_LEN)
		return false;
	for (; *g; g++)
		if ((unsigned char)*g < 0x20 || *g == 0x7f)
			return false;
	return true;
}

static bool only_args(const struct sl_http_req *req, struct sl_http_resp *resp,
		      const char *const *allowed)
{
	const char *bad;

	if (sl_http_query_only(req, allowed, &bad))
		return true;
	sl_http_error(resp, 400, "unknown query argument '%.64s'", bad);
	return false;
}

/* Maps a lib error to a status and message. */
static void lib_error(struct sl_http_resp *resp, int err)
{
	int status = err == -ENOENT	? 404 :
		     err == -SL_EUSAGE	? 400 :
		     err == -SL_ENOTOPO ? 404 :
		     err == -EBUSY	? 503 :
					  500;

	sl_http_error(resp, status, "%s", sl_errmsg(err));
}

static void reply_json(struct sl_http_resp *resp, int err, json_t *j)
{
	if (err < 0)
		lib_error(resp, err);
	else
		resp->json = j;
}

static void get_status(struct sd_daemon *d, struct sl_http_resp *resp)
{
	struct sd_status *s = &d->status, c;
	struct sl_api_status st;

	pthread_mutex_lock(&s->lock);
	c = *s;
	c.topo_json = NULL;
	pthread_mutex_unlock(&s->lock);
	st = (struct sl_api_status){
		.version = SL_VERSION,
		.uptime_s = sd_now_mono() - c.started_mono,
		.run_id = c.run_id,
		.label = c.label,
		.kernel_release = c.kernel,
		.boot_id = c.boot_id,
		.hostname = c.hostname,
		.state = c.state,
		.events_per_s = c.events_per_s,
		.events = c.events,
		.lost_events = c.lost,
		.gaps = c.gaps,
		.dropped_rows = c.dropped_rows,
		.queue_len = c.queue_len,
		.runs_started = c.runs_started,
		.store_state = c.store_full  ? "disk full" :
			       d->cfg.record ? "ok" :
					       "read-only",
		.store_lost_rows = c.store_lost_rows,
		.db_bytes = sd_db_bytes(d->cfg.db),
		.db_path = d->cfg.db,
		.last_comparison_id = c.last_comparison_id,
		.last_comparison_verdict = c.last_verdict,
	};
	resp->json = sl_api_status_json(&st);
}

/* "12" or "12,13": run ids; anything else a kernel release. */
static int parse_side(const char *v, int64_t *ids, int max, int *nr, const char **kernel)
{
	const char *p = v;

	*nr = 0;
	*kernel = NULL;
	if (!*v || strlen(v) > 127)
		return -1;
	if (strspn(v, "0123456789,") != strlen(v)) {
		/* a release: uname -r characters only */
		if (strspn(v,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+~") !=
		    strlen(v))
			return -1;
		*kernel = v;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");

		if (*nr == max || !parse_id(p, n, &ids[*nr]))
			return -1;
		(*nr)++;
		p += n;
		if (*p == ',' && !*++p)
			return -1;
	}
	return 0;
}

/* One filter on runs, "KEY=VALUE": its key into key (size bytes), 0, or -1 if malformed. */
static int parse_where(const char *v, char *key, size_t size, struct sl_run_where *w)
{
	const char *eq = strchr(v, '=');

	if (!eq || eq == v || (size_t)(eq - v) >= size)
		return -1;
	snprintf(key, size, "%.*s", (int)(eq - v), v);
	*w = (struct sl_run_where){ key, eq + 1 };
	return 0;
}

/*
 * where, baseline_where, candidate_where (one KEY=VALUE each, as diff's --where and its
 * one-side forms): each side's filters into w[side] (two at most), a side's own over
 * where's of the same key. 0, or -1 with a 400 sent.
 */
static int compare_where(const struct sl_http_req *req, struct sl_http_resp *resp, char keys[3][64],
			 struct sl_run_where w[2][2], struct sl_compare_opts *o)
{
	static const char *const names[3] = { "where", "baseline_where", "candidate_where" };
	struct sl_run_where one[3];
	bool given[3];

	for (int i = 0; i < 3; i++) {
		const char *v = sl_http_query(req, names[i]);

		given[i] = v != NULL;
		if (v && parse_where(v, keys[i], sizeof(keys[i]), &one[i]) < 0) {
			sl_http_error(resp, 400,
				      "'%s' must be KEY=VALUE (KEY: at most 63 characters)",
				      names[i]);
			return -1;
		}
	}
	for (int s = 0; s < 2; s++) {
		int n = 0;

		if (given[0] && !(given[1 + s] && !strcmp(one[0].key, one[1 + s].key)))
			w[s][n++] = one[0];
		if (given[1 + s])
			w[s][n++] = one[1 + s];
		o->where[s] = w[s];
		o->nr_where[s] = n;
	}
	return 0;
}

static void get_compare(struct sd_daemon *d, const struct sl_http_req *req,
			struct sl_http_resp *resp)
{
	static const char *const args[] = { "baseline",	       "candidate", "group",
					    "label",	       "where",	    "baseline_where",
					    "candidate_where", NULL };
	const char *b = sl_http_query(req, "baseline"), *c = sl_http_query(req, "candidate");
	const char *g = sl_http_query(req, "group"), *label = sl_http_query(req, "label");
	int64_t bids[64], cids[64];
	struct sl_compare_opts o;
	struct sl_comparison *cmp = NULL;
	struct sl_run_where where[2][2];
	char where_keys[3][64];
	struct sl_store *store;
	int err;

	if (!only_args(req, resp, args))
		return;
	sl_compare_opts_default(&o);
	if (!b || !c || parse_side(b, bids, 64, &o.nr_baseline_runs, &o.baseline_kernel) < 0 ||
	    parse_side(c, cids, 64, &o.nr_candidate_runs, &o.candidate_kernel) < 0) {
		sl_http_error(resp, 400,
			      "'baseline' and 'candidate' must each be run ids (12 or 12,13, at "
			      "most 64) or a kernel release");
		return;
	}
	if (!o.baseline_kernel != !o.candidate_kernel) {
		sl_http_error(resp, 400, "compare run ids with run ids, or kernels with kernels");
		return;
	}
	if (g && !valid_group(g)) {
		sl_http_error(resp, 400, "'group' must be 1..%d printable characters",
			      SL_GROUP_LEN - 1);
		return;
	}
	if (label && (!*label || !valid_group(label))) {
		sl_http_error(resp, 400, "'label' must be 1..%d printable characters",
			      SL_GROUP_LEN - 1);
		return;
	}
	if (compare_where(req, resp, where_keys, where, &o) < 0)
		return;
	o.label = label;
	o.baseline_runs = bids;
	o.candidate_runs = cids;
	o.groups = g ? &g : NULL;
	o.nr_groups = g ? 1 : 0;
	o.store = false;
	if (!(store = thread_store(d, resp)))
		return;
	if (__atomic_exchange_n(&compare_busy, 1, __ATOMIC_ACQUIRE)) {
		sl_http_error(resp, 503, "another comparison is running; retry shortly");
		return;
	}
	err = sl_compare(store, &o, &cmp);
	__atomic_store_n(&compare_busy, 0, __ATOMIC_RELEASE);
	if (err < 0) {
		/* -SL_EUSAGE: the selection matches nothing or mixes machines: a 400 */
		lib_error(resp, err);
		sl_comparison_free(cmp);
		return;
	}
	resp->json = sl_comparison_to_json(cmp);
	sl_comparison_free(cmp);
}

static void get_metrics(struct sd_daemon *d, struct sl_http_resp *resp)
{
	struct sl_store *store = thread_store(d, resp);
	json_t *findings = NULL;
	size_t len;
	char *text;

	if (!store)
		return;
	/* a database error must not hide the counters: render without findings */
	if (sl_api_findings(store, 1, true, &findings) < 0)
		findings = NULL;
	text = sl_prom_render(d->prom, findings, &len);
	json_decref(findings);
	if (!text) {
		sl_http_error(resp, 500, "out of memory");
		return;
	}
	resp->body = text;
	resp->len = len;
	resp->free_body = true;
	resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

static ssize_t stream_read(void *stream, char *buf, size_t max)
{
	return sl_db_stream_read(stream, buf, max);
}

static void stream_free(void *stream)
{
	sl_db_stream_free(stream);
}

/* A route's handler: the request's parameters checked, the answer (or error) in resp. */
typedef void (*route_fn)(struct sd_daemon *d, const struct sl_http_req *req,
			 struct sl_http_resp *resp);
/* The same below /api/v1/runs/ID. */
typedef void (*run_route_fn)(struct sd_daemon *d, const struct sl_http_req *req,
			     struct sl_http_resp *resp, int64_t id);

/* Checks a 'group' argument (absent is fine). */
static bool group_arg(struct sl_http_resp *resp, const char *g)
{
	if (g && !valid_group(g)) {
		sl_http_error(resp, 400, "'group' must be 1..%d printable characters",
			      SL_GROUP_LEN - 1);
		return false;
	}
	return true;
}

/* A run's JSON from lib with no arguments to check: the run itself, its placement. */
static void reply_run_json(struct sd_daemon *d, const struct sl_http_req *req,
			   struct sl_http_resp *resp, int64_t id,
			   int (*get)(struct sl_store *store, int64_t run_id, json_t **ret))
{
	static const char *const none[] = { NULL };
	struct sl_store *store;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, none) || !(store = thread_store(d, resp)))
		return;
	err = get(store, id, &j);
	reply_json(resp, err, j);
}

static void get_run(struct sd_daemon *d, const struct sl_http_req *req, struct sl_http_resp *resp,
		    int64_t id)
{
	reply_run_json(d, req, resp, id, sl_api_run);
}

static void get_windows(struct sd_daemon *d, const struct sl_http_req *req,
			struct sl_http_resp *resp, int64_t id)
{
	static const char *const wargs[] = {
		"from", "to", "group", "metric", "limit", "step", NULL
	};
	struct sl_api_window_query q = { .group = sl_http_query(req, "group"),
					 .metric = sl_http_query(req, "metric") };
	struct sl_store *store;
	struct sl_db_stream *ws;
	uint64_t limit = 1000;
	int err;

	if (!only_args(req, resp, wargs) || !arg_u64(req, resp, "from", 0, INT64_MAX, &q.from_ns) ||
	    !arg_u64(req, resp, "to", 1, INT64_MAX, &q.to_ns) ||
	    !arg_u64(req, resp, "limit", 1, 100000, &limit) ||
	    !arg_u64(req, resp, "step", 1, INT64_MAX, &q.step_ns) || !group_arg(resp, q.group))
		return;
	q.limit = limit;
	if (!(store = thread_store(d, resp)))
		return;
	/* up to 100,000 rows: streamed from the statement, never built in memory */
	err = sl_api_windows(store, id, &q, &ws);
	if (err < 0) {
		lib_error(resp, err);
		return;
	}
	resp->stream = ws;
	resp->read = stream_read;
	resp->free_stream = stream_free;
	resp->content_type = "application/json";
}

static void get_placement(struct sd_daemon *d, const struct sl_http_req *req,
			  struct sl_http_resp *resp, int64_t id)
{
	reply_run_json(d, req, resp, id, sl_api_placement);
}

/* 'from' and 'to' (trace-clock ns, both optional) into span: 400 unless to > from */
static bool span_args(const struct sl_http_req *req, struct sl_http_resp *resp,
		      struct sl_api_span *span)
{
	if (!arg_u64(req, resp, "from", 0, INT64_MAX, &span->from_ns) ||
	    !arg_u64(req, resp, "to", 1, INT64_MAX, &span->to_ns))
		return false;
	if (span->to_ns && span->to_ns <= span->from_ns) {
		sl_http_error(resp, 400, "'to' must be greater than 'from'");
		return false;
	}
	return true;
}

static void get_preemptions(struct sd_daemon *d, const struct sl_http_req *req,
			    struct sl_http_resp *resp, int64_t id)
{
	static const char *const pargs[] = { "limit", "from", "to", NULL };
	struct sl_api_span span = { 0 };
	struct sl_store *store;
	uint64_t limit = 100;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, pargs) || !arg_u64(req, resp, "limit", 0, 1000, &limit) ||
	    !span_args(req, resp, &span) || !(store = thread_store(d, resp)))
		return;
	err = sl_api_preemptions(store, id, limit, &span, &j);
	reply_json(resp, err, j);
}

static void get_cpus(struct sd_daemon *d, const struct sl_http_req *req, struct sl_http_resp *resp,
		     int64_t id)
{
	static const char *const cargs[] = { "from", "to", NULL };
	struct sl_api_span span = { 0 };
	struct sl_store *store;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, cargs) || !span_args(req, resp, &span) ||
	    !(store = thread_store(d, resp)))
		return;
	err = sl_api_cpus(store, id, span.from_ns, span.to_ns, &j);
	reply_json(resp, err, j);
}

static void get_latency(struct sd_daemon *d, const struct sl_http_req *req,
			struct sl_http_resp *resp, int64_t id)
{
	static const char *const gargs[] = { "group", "from", "to", NULL };
	const char *g = sl_http_query(req, "group");
	struct sl_api_span span = { 0 };
	struct sl_store *store;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, gargs) || !group_arg(resp, g) || !span_args(req, resp, &span) ||
	    !(store = thread_store(d, resp)))
		return;
	err = sl_api_latency(store, id, g, &span, &j);
	reply_json(resp, err, j);
}

static void get_lhp(struct sd_daemon *d, const struct sl_http_req *req, struct sl_http_resp *resp,
		    int64_t id)
{
	static const char *const pargs[] = { "limit", "from", "to", NULL };
	struct sl_api_span span = { 0 };
	struct sl_store *store;
	uint64_t limit = 50;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, pargs) || !arg_u64(req, resp, "limit", 1, 1000, &limit) ||
	    !span_args(req, resp, &span) || !(store = thread_store(d, resp)))
		return;
	err = sl_api_lhp(store, id, (int)limit, &span, &j);
	reply_json(resp, err, j);
}

/* The direct waiters of the costliest LHP events (api-events.h), for their evidence. */
static void get_lhp_waiters(struct sd_daemon *d, const struct sl_http_req *req,
			    struct sl_http_resp *resp, int64_t id)
{
	static const char *const pargs[] = { "limit", "from", "to", NULL };
	struct sl_api_span span = { 0 };
	struct sl_store *store;
	uint64_t limit = 20;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, pargs) || !arg_u64(req, resp, "limit", 1, 100, &limit) ||
	    !span_args(req, resp, &span) || !(store = thread_store(d, resp)))
		return;
	err = sl_api_lhp_waiters(store, id, (int)limit, &span, &j);
	reply_json(resp, err, j);
}

/* The wakeups behind a finding: group, time range, worst first (api-events.h). */
static void get_wakeups(struct sd_daemon *d, const struct sl_http_req *req,
			struct sl_http_resp *resp, int64_t id)
{
	static const char *const wargs[] = { "group", "from", "to", "order", "limit", NULL };
	struct sl_api_wakeup_query q = { .group = sl_http_query(req, "group") };
	const char *order = sl_http_query(req, "order");
	uint64_t limit = 50;
	struct sl_store *store;
	json_t *j = NULL;
	int err, o = order ? sl_api_wakeup_order(order) : SL_WAKEUPS_LATENCY;

	if (!only_args(req, resp, wargs) || !group_arg(resp, q.group) ||
	    !span_args(req, resp, &q.span) || !arg_u64(req, resp, "limit", 1, 1000, &limit))
		return;
	if (o < 0) {
		sl_http_error(resp, 400, "'order' must be latency, missed or time");
		return;
	}
	if (!(store = thread_store(d, resp)))
		return;
	q.order = (enum sl_api_wakeup_order)o;
	q.limit = (int)limit;
	err = sl_api_wakeups(store, id, &q, &j);
	reply_json(resp, err, j);
}

/*
 * A slice of the run as ftrace text (export-text.h), for trace-cmd, KernelShark or
 * Perfetto. Built in memory, so it is capped: past TRACE_MAX_LINES the answer is 413.
 */
#define TRACE_MAX_LINES 200000

static void get_trace(struct sd_daemon *d, const struct sl_http_req *req, struct sl_http_resp *resp,
		      int64_t id)
{
	static const char *const targs[] = { "from", "to", NULL };
	struct sl_export_slice slice = { .max_lines = TRACE_MAX_LINES };
	struct sl_api_span span = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (!only_args(req, resp, targs) || !span_args(req, resp, &span))
		return;
	slice.from_ns = span.from_ns;
	slice.to_ns = span.to_ns;
	if (!(f = open_memstream(&text, &len))) {
		sl_http_error(resp, 500, "out of memory");
		return;
	}
	err = sl_export_text_slice(d->cfg.db, id, &slice, f, NULL);
	if (fclose(f) && err >= 0)
		err = sl_error(-ENOMEM, "out of memory");
	if (err < 0) {
		free(text);
		if (err == -E2BIG)
			sl_http_error(resp, 413, "%s", sl_errmsg(err));
		else
			lib_error(resp, err);
		return;
	}
	resp->body = text;
	resp->len = len;
	resp->free_body = true;
	resp->content_type = "text/plain; charset=utf-8";
}

/* /api/v1/runs/ID and below, by what follows the id ("" for the run itself). */
static const struct {
	const char *sub;
	run_route_fn get;
} run_routes[] = {
	{ "", get_run },
	{ "/windows", get_windows },
	{ "/placement", get_placement },
	{ "/preemptions", get_preemptions },
	{ "/cpus", get_cpus },
	{ "/latency", get_latency },
	{ "/lhp", get_lhp },
	{ "/lhp-waiters", get_lhp_waiters },
	{ "/wakeups", get_wakeups },
	{ "/trace", get_trace },
};

static void run_route(struct sd_daemon *d, const struct sl_http_req *req, struct sl_http_resp *resp,
		      int64_t id, const char *sub)
{
	for (size_t i = 0; i < sizeof(run_routes) / sizeof(run_routes[0]); i++)
		if (!strcmp(sub, run_routes[i].sub)) {
			run_routes[i].get(d, req, resp, id);
			return;
		}
	sl_http_error(resp, 404, "not found");
}

static const struct sl_web_asset *find_asset(const char *name)
{
	for (size_t i = 0; i < sl_web_nr_assets; i++)
		if (!strcmp(sl_web_assets[i].name, name))
			return &sl_web_assets[i];
	return NULL;
}

bool sd_public_path(void *ctx, const char *path)
{
	return path[0] == '/' && find_asset(!strcmp(path, "/") ? "index.html" : path + 1);
}

static void route_status(struct sd_daemon *d, const struct sl_http_req *req,
			 struct sl_http_resp *resp)
{
	static const char *const none[] = { NULL };

	if (only_args(req, resp, none))
		get_status(d, resp);
}

static void route_runs(struct sd_daemon *d, const struct sl_http_req *req,
		       struct sl_http_resp *resp)
{
	static const char *const largs[] = { "limit", NULL };
	struct sl_store *store;
	uint64_t limit = 100;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, largs) || !arg_u64(req, resp, "limit", 1, 1000, &limit) ||
	    !(store = thread_store(d, resp)))
		return;
	err = sl_api_runs(store, limit, &j);
	reply_json(resp, err, j);
}

static void route_findings(struct sd_daemon *d, const struct sl_http_req *req,
			   struct sl_http_resp *resp)
{
	static const char *const fargs[] = { "limit", "all", NULL };
	const char *all = sl_http_query(req, "all");
	struct sl_store *store;
	uint64_t limit = 10;
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, fargs) || !arg_u64(req, resp, "limit", 1, 100, &limit))
		return;
	if (all && strcmp(all, "0") && strcmp(all, "1")) {
		sl_http_error(resp, 400, "'all' must be 0 or 1");
		return;
	}
	if (!(store = thread_store(d, resp)))
		return;
	err = sl_api_findings(store, limit, !(all && !strcmp(all, "1")), &j);
	reply_json(resp, err, j);
}

static void route_topology(struct sd_daemon *d, const struct sl_http_req *req,
			   struct sl_http_resp *resp)
{
	static const char *const none[] = { NULL };
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, none))
		return;
	/* set once before the server starts, never changed: no lock needed */
	err = sl_api_topology(d->status.topo_json, d->status.topo_hash, &j);
	reply_json(resp, err, j);
}

static void route_metric_table(struct sd_daemon *d, const struct sl_http_req *req,
			       struct sl_http_resp *resp)
{
	static const char *const none[] = { NULL };
	json_t *j = NULL;
	int err;

	if (!only_args(req, resp, none))
		return;
	err = sl_api_metrics(&j);
	reply_json(resp, err, j);
}

static void route_metrics(struct sd_daemon *d, const struct sl_http_req *req,
			  struct sl_http_resp *resp)
{
	(void)req;
	get_metrics(d, resp);
}

/* Exact paths; /api/v1/runs/ID... and the dashboard's files are matched after these. */
static const struct {
	const char *path;
	route_fn get;
} routes[] = {
	{ "/api/v1/status", route_status },	   { "/api/v1/runs", route_runs },
	{ "/api/v1/compare", get_compare },	   { "/api/v1/findings", route_findings },
	{ "/api/v1/topology", route_topology },	   { "/metrics", route_metrics },
	{ "/api/v1/metrics", route_metric_table },
};

void sd_route(void *ctx, const struct sl_http_req *req, struct sl_http_resp *resp)
{
	struct sd_daemon *d = ctx;
	const char *path = sl_http_path(req);
	const struct sl_web_asset *a;

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(path, routes[i].path)) {
			routes[i].get(d, req, resp);
			return;
		}
	if (!strncmp(path, "/api/v1/runs/", 13)) {
		const char *p = path + 13;
		size_t n = strcspn(p, "/");
		int64_t id;

		if (!parse_id(p, n, &id)) {
			sl_http_error(resp, 404, "no such run '%.32s': run ids are numbers", p);
			return;
		}
		run_route(d, req, resp, id, p + n);
	} else if ((a = find_asset(!strcmp(path, "/") ? "index.html" : path + 1)) &&
		   path[0] == '/') {
		resp->body = a->data;
		resp->len = a->len;
		resp->content_type = a->type;
		resp->cache_control = "no-cache";
	} else {
		sl_http_error(resp, 404, "not found");
	}
}
