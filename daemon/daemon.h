/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * schedlensd's shared state: the configuration (one table in schedlensd.c drives its
 * defaults, the config file and the flags), the live status the recording loop publishes
 * for the HTTP threads, and the entry points of the daemon's files: schedlensd.c (main,
 * config, signals, logging), monitor.c (recording, segments, duty cycle, automatic
 * comparison), serve.c (serving a database without recording) and routes.c (HTTP
 * handlers).
 */
#ifndef SL_DAEMON_H
#define SL_DAEMON_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "api.h"
#include "config.h"
#include "metrics-prom.h"

struct sd_config {
	char *config; /* command line only */
	char *db;
	char *listen;
	char *label;
	char *token_file;
	char *log_level;
	char *event_rows;
	uint64_t segment_ns;
	uint64_t duty_on_ns, duty_period_ns;
	uint64_t window_ns;
	bool record; /* no: serve the database only (serve.c) */
	bool auto_compare;
	uint64_t compare_after; /* windows */
	uint64_t event_keep_ns, window_keep_ns, max_db_bytes;
	uint64_t buffer_kb;
	bool trace_futex;
	uint64_t totals_every_ns;
	uint64_t http_threads, http_max_connections, http_per_ip, http_timeout_ns, http_max_url;
	uint64_t http_header_timeout_ns;
	uint64_t http_max_args;
};

extern const struct sl_cfg_opt sd_options[];

enum sd_log_level { SD_ERR = 3, SD_WARNING = 4, SD_NOTICE = 5, SD_INFO = 6, SD_DEBUG = 7 };

void sd_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sd_set_log_level(const char *name);

/* Set by the signal handlers only; the loop acts on them. */
extern volatile sig_atomic_t sd_stop_requested, sd_reload_requested;

/* What /api/v1/status shows; written by the recording loop under the lock. */
struct sd_status {
	pthread_mutex_t lock;
	double started_mono;
	int64_t run_id;
	char state[16];
	char label[128];
	char kernel[128];
	char boot_id[64];
	char hostname[128];
	char topo_hash[24];
	char *topo_json;
	double events_per_s;
	uint64_t events, lost, gaps, dropped_rows, queue_len, runs_started;
	bool store_full; /* the writer's last write failed for want of space */
	uint64_t store_lost_rows; /* rows never stored because the disk was full */
	int64_t last_comparison_id;
	char last_verdict[32];
};

struct sd_daemon {
	struct sd_config cfg;
	char **argv; /* for reloads: defaults, file, flags again */
	int argc;
	struct sd_status status;
	struct sl_prom *prom;
};

/* Rereads the config file and flags; applies what can change at run time. */
void sd_reload(struct sd_daemon *d);

/*
 * Opens the recorder and the first run (creating the database), starts the HTTP server
 * with ho (*ret_http, stopped by the caller), records until stopped; returns the exit
 * status.
 */
struct sl_http_opts;
struct sl_http;
int sd_monitor_run(struct sd_daemon *d, const struct sl_http_opts *ho, struct sl_http **ret_http);

/*
 * `record no`: serves the existing database (which must exist) without recording until
 * stopped; *ret_http as for sd_monitor_run(). Returns the exit status.
 */
int sd_serve_run(struct sd_daemon *d, const struct sl_http_opts *ho, struct sl_http **ret_http);

/* The HTTP request handler (struct sl_http_opts.handler); ctx is the daemon. */
struct sl_http_req;
struct sl_http_resp;
void sd_route(void *ctx, const struct sl_http_req *req, struct sl_http_resp *resp);
/* The dashboard's static files: served without the token (they hold no data). */
bool sd_public_path(void *ctx, const char *path);

double sd_now_mono(void);

/* Bytes of the database file and its WAL. */
uint64_t sd_db_bytes(const char *path);

#endif
