// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stand-in server of the dashboard's browser test while schedlensd has no routes: serves
 * web/ from a directory and /api/v1 from lib/api, lib/api-web and lib/compare over one
 * read-only store, with the paths and parameters of issue 9. Not a daemon: no recording,
 * no retention. The test uses schedlensd itself as soon as it answers /api/v1/runs.
 *
 *   sl-api-serve DB WEBDIR 127.0.0.1:PORT
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api-web.h"
#include "api.h"
#include "compare.h"
#include "error.h"
#include "http.h"
#include "store.h"

static struct sl_store *store;
static const char *webdir, *dbpath;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = 1;
}

static int64_t qint(const struct sl_http_req *req, const char *name, int64_t def)
{
	const char *v = sl_http_query(req, name);

	return v && *v ? strtoll(v, NULL, 10) : def;
}

static void file(const char *path, struct sl_http_resp *resp)
{
	static const char *const types[][2] = { { ".html", "text/html; charset=utf-8" },
						{ ".css", "text/css" },
						{ ".js", "text/javascript" } };
	char full[4096];
	FILE *f;
	long n;
	char *buf;

	if (!strcmp(path, "/"))
		path = "/index.html";
	if (strstr(path, "..") || snprintf(full, sizeof(full), "%s%s", webdir, path) >= 4000 ||
	    !(f = fopen(full, "rb"))) {
		sl_http_error(resp, 404, "no such file");
		return;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) == (size_t)n) {
		resp->body = buf;
		resp->len = n;
		resp->free_body = true;
		resp->content_type = "application/octet-stream";
		for (size_t i = 0; i < 3; i++)
			if (strstr(path, types[i][0]))
				resp->content_type = types[i][1];
	} else {
		free(buf);
		sl_http_error(resp, 500, "cannot read");
	}
	fclose(f);
}

/* "6.1.0" -> kernel; "runs:1,2" -> ids */
static void side(const char *v, const char **kernel, int64_t *ids, int *n)
{
	*n = 0;
	if (strncmp(v, "runs:", 5)) {
		*kernel = v;
		return;
	}
	for (const char *p = v + 5; *p && *n < 64;) {
		char *end;

		ids[(*n)++] = strtoll(p, &end, 10);
		p = *end ? end + 1 : end;
	}
}

static void route(void *ctx, const struct sl_http_req *req, struct sl_http_resp *resp)
{
	const char *p = sl_http_path(req);
	json_t *j = NULL;
	int64_t run = 0;
	char rest[64] = "";
	int err = 0;

	if (strncmp(p, "/api/v1/", 8)) {
		file(p, resp);
		return;
	}
	p += 8;
	pthread_mutex_lock(&lock);
	if (!strcmp(p, "status")) {
		struct sl_api_status st = { .version = "sl-api-serve",
					    .uptime_s = 1,
					    .run_id = -1,
					    .hostname = "db-demo-80",
					    .kernel_release = "3.6.0-demo",
					    .state = "stopped",
					    .db_path = dbpath,
					    .last_comparison_id = -1 };
		j = sl_api_status_json(&st);
	} else if (!strcmp(p, "runs")) {
		err = sl_api_runs(store, (int)qint(req, "limit", 100), &j);
	} else if (!strcmp(p, "findings")) {
		err = sl_api_findings(store, (int)qint(req, "limit", 10), false, &j);
	} else if (!strcmp(p, "topology")) {
		sqlite3 *db = sl_store_db(store);
		sqlite3_stmt *st;

		sqlite3_prepare_v2(db, "SELECT topo_json, topo_hash FROM hosts ORDER BY id LIMIT 1",
				   -1, &st, NULL);
		if (sqlite3_step(st) == SQLITE_ROW)
			err = sl_api_topology((const char *)sqlite3_column_text(st, 0),
					      (const char *)sqlite3_column_text(st, 1), &j);
		else
			err = sl_error(-ENOENT, "no host");
		sqlite3_finalize(st);
	} else if (!strcmp(p, "compare")) {
		struct sl_compare_opts o;
		struct sl_comparison *c;
		int64_t b[64], cd[64];
		const char *g = sl_http_query(req, "group"), *bs = sl_http_query(req, "baseline"),
			   *cs = sl_http_query(req, "candidate");

		sl_compare_opts_default(&o);
		if (!bs || !cs) {
			err = sl_error(-SL_EUSAGE, "baseline and candidate are required");
		} else {
			side(bs, &o.baseline_kernel, b, &o.nr_baseline_runs);
			side(cs, &o.candidate_kernel, cd, &o.nr_candidate_runs);
			o.baseline_runs = b;
			o.candidate_runs = cd;
			if (g && *g) {
				o.groups = &g;
				o.nr_groups = 1;
			}
			o.resamples = 300;
			if (!(err = sl_compare(store, &o, &c))) {
				j = sl_comparison_to_json(c);
				sl_comparison_free(c);
			}
		}
	} else if (sscanf(p, "runs/%lld/%63s", (long long *)&run, rest) >= 1) {
		if (!*rest) {
			err = sl_api_run(store, run, &j);
		} else if (!strcmp(rest, "windows")) {
			struct sl_api_window_query q = { .from_ns = qint(req, "from", 0),
							 .to_ns = qint(req, "to", 0),
							 .group = sl_http_query(req, "group"),
							 .metric = sl_http_query(req, "metric"),
							 .limit = (int)qint(req, "limit", 0) };
			err = sl_api_windows(store, run, &q, &j);
		} else if (!strcmp(rest, "placement")) {
			err = sl_api_placement(store, run, &j);
		} else if (!strcmp(rest, "preemptions")) {
			err = sl_api_preemptions(store, run, (int)qint(req, "limit", 100), &j);
		} else if (!strcmp(rest, "cpus")) {
			err = sl_api_cpus(store, run, qint(req, "from", 0), qint(req, "to", 0), &j);
		} else if (!strcmp(rest, "latency")) {
			err = sl_api_latency(store, run, sl_http_query(req, "group"), &j);
		} else if (!strcmp(rest, "lhp")) {
			err = sl_api_lhp(store, run, (int)qint(req, "limit", 50), &j);
		} else {
			err = sl_error(-ENOENT, "no such endpoint");
		}
	} else {
		err = sl_error(-ENOENT, "no such endpoint");
	}
	pthread_mutex_unlock(&lock);
	if (err)
		sl_http_error(resp,
			      err == -ENOENT	? 404 :
			      err == -SL_EUSAGE ? 400 :
						  500,
			      "%s", sl_errmsg(err));
	else
		resp->json = j;
}

int main(int argc, char **argv)
{
	struct sl_http_opts o = { .threads = 4,
				  .max_connections = 64,
				  .per_ip_connections = 64,
				  .timeout_s = 30,
				  .max_url = 4096,
				  .max_query_args = 16,
				  .handler = route };
	struct sl_http *h;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: sl-api-serve DB WEBDIR ADDR:PORT\n");
		return 2;
	}
	dbpath = argv[1];
	webdir = argv[2];
	o.listen = argv[3];
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	err = sl_store_open(dbpath, 0, &store);
	if (!err)
		err = sl_http_start(&o, &h);
	if (err) {
		fprintf(stderr, "sl-api-serve: %s\n", sl_errmsg(err));
		return 1;
	}
	printf("listening on %s\n", o.listen);
	fflush(stdout);
	while (!stop)
		pause();
	sl_http_stop(h);
	sl_store_close(store);
	return 0;
}
