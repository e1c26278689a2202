// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd: the continuous monitoring daemon. This file holds the configuration table
 * (one table drives the defaults, the config file, the flags and --print-config, as in
 * Redis), logging to stderr with syslog level prefixes that journald understands, the
 * signal handlers (they only set flags), and main(): configure, start the HTTP server,
 * hand over to the recording loop in monitor.c, shut down in order.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "error.h"
#include "http.h"
#include "version.h"

#define DEFAULT_DB "/var/lib/schedlens/schedlens.db"
#define DEFAULT_LISTEN "127.0.0.1:9347"

#define OPT(n, t, f, d, lo, hi, fl, h)                                                   \
	{                                                                                \
		.name = n, .type = t, .offset = offsetof(struct sd_config, f), .def = d, \
		.min = lo, .max = hi, .flags = fl, .help = h                             \
	}
#define ENUM(n, f, d, ch, fl, h)                                                                   \
	{                                                                                          \
		.name = n, .type = SL_CFG_ENUM, .offset = offsetof(struct sd_config, f), .def = d, \
		.choices = ch, .flags = fl, .help = h                                              \
	}

const struct sl_cfg_opt sd_options[] = {
	OPT("config", SL_CFG_STR, config, "", 0, 0, SL_CFG_NOFILE,
	    "config file of 'name value' lines (read before the other flags)"),
	OPT("db", SL_CFG_STR, db, DEFAULT_DB, 0, 0, 0, "SQLite database (created if missing)"),
	OPT("listen", SL_CFG_STR, listen, DEFAULT_LISTEN, 0, 0, 0,
	    "HTTP address IPv4:PORT or [IPv6]:PORT; not loopback requires token-file"),
	OPT("token-file", SL_CFG_STR, token_file, "", 0, 0, 0,
	    "file holding the bearer token every request must carry (empty: none)"),
	OPT("record", SL_CFG_BOOL, record, "yes", 0, 0, 0,
	    "record this machine into db; no: only serve db's runs (API and dashboard)"),
	OPT("label", SL_CFG_STR, label, "", 0, 0, SL_CFG_RELOAD,
	    "workload label of the runs (comparisons pair runs of one label), from the next segment"),
	ENUM("log-level", log_level, "info", "debug|info|warning|error", SL_CFG_RELOAD,
	     "messages on stderr at this level and above: debug|info|warning|error"),
	OPT("segment", SL_CFG_DURATION, segment_ns, "1h", 10000000000ull, 0, SL_CFG_RELOAD,
	    "cut the recording into runs this long (segments serve as runs for comparison)"),
	OPT("duty-on", SL_CFG_DURATION, duty_on_ns, "0", 0, 0, SL_CFG_RELOAD,
	    "duty cycle: record this long out of every duty-period (0: always record)"),
	OPT("duty-period", SL_CFG_DURATION, duty_period_ns, "1m", 1000000000ull, 0, SL_CFG_RELOAD,
	    "duty cycle period"),
	OPT("window", SL_CFG_DURATION, window_ns, "1s", 100000000ull, 3600000000000ull, 0,
	    "analysis window"),
	OPT("auto-compare", SL_CFG_BOOL, auto_compare, "yes", 0, 0, SL_CFG_RELOAD,
	    "compare a new kernel with the previous run's kernel (same label and topology)"),
	OPT("compare-after", SL_CFG_UINT, compare_after, "300", 2, 1000000, SL_CFG_RELOAD,
	    "windows of the new kernel to record before the automatic comparison"),
	ENUM("event-rows", event_rows, "notable", "all|preemptions|notable|none", 0,
	     "per-event rows besides windows: all|preemptions|notable (preemptions with "
	     "same-group preemptor, hub victim, waiters or LHP cost)|none"),
	OPT("event-keep", SL_CFG_DURATION, event_keep_ns, "24h", 0, 0, SL_CFG_RELOAD,
	    "keep per-event rows this long (from the next segment)"),
	OPT("window-keep", SL_CFG_DURATION, window_keep_ns, "400d", 0, 0, SL_CFG_RELOAD,
	    "keep windows this long (from the next segment)"),
	OPT("max-db-size", SL_CFG_SIZE, max_db_bytes, "0", 0, 0, SL_CFG_RELOAD,
	    "size cap of the database, oldest chunks deleted first (0: none; next segment)"),
	OPT("buffer-kb", SL_CFG_UINT, buffer_kb, "8192", 64, 4194304, 0,
	    "per-CPU trace ring buffer in KiB"),
	OPT("trace-futex", SL_CFG_BOOL, trace_futex, "yes", 0, 0, 0,
	    "trace futex(2) calls, so lock-holder preemption tells one lock from another "
	    "(every syscall then takes the kernel's slower entry path)"),
	OPT("totals-every", SL_CFG_DURATION, totals_every_ns, "10s", 1000000000ull, 0, 0,
	    "write the running run totals this often"),
	OPT("http-threads", SL_CFG_UINT, http_threads, "2", 1, 16, 0, "HTTP thread pool size"),
	/* libmicrohttpd counts a closed connection until its worker has cleaned it up, which
	 * lags on a busy host: 128/64 reset connections of `ab -c 50` while recording */
	OPT("http-max-connections", SL_CFG_UINT, http_max_connections, "4096", 1, 10000, 0,
	    "concurrent HTTP connections (more than 5 addresses' http-per-ip: room for others)"),
	OPT("http-per-ip", SL_CFG_UINT, http_per_ip, "256", 1, 10000, 0,
	    "concurrent HTTP connections per client address"),
	OPT("http-timeout", SL_CFG_DURATION, http_timeout_ns, "10s", 1000000000ull,
	    3600000000000ull, 0, "idle HTTP connection timeout"),
	OPT("http-header-timeout", SL_CFG_DURATION, http_header_timeout_ns, "10s", 100000000ull,
	    3600000000000ull, 0,
	    "total time from accept (or the previous response) to a request's complete headers"),
	OPT("http-max-url", SL_CFG_SIZE, http_max_url, "4k", 256, 65536, 0,
	    "longest request target (path and query) accepted"),
	OPT("http-max-args", SL_CFG_UINT, http_max_args, "16", 1, 256, 0,
	    "most query arguments accepted"),
	{ 0 },
};

static const char usage_text[] =
	"usage: schedlensd [--config FILE] [--db PATH] [--listen ADDR:PORT] [--label NAME]\n"
	"                  [--token-file FILE] [--OPTION VALUE ...] [--print-config]\n"
	"Every setting of --print-config is also a flag (--name VALUE) and a config-file line.\n";

volatile sig_atomic_t sd_stop_requested, sd_reload_requested;
static int log_level = SD_INFO;
static bool journal;

void sd_set_log_level(const char *name)
{
	log_level = !strcmp(name, "debug")   ? SD_DEBUG :
		    !strcmp(name, "warning") ? SD_WARNING :
		    !strcmp(name, "error")   ? SD_ERR :
					       SD_INFO;
}

void sd_log(int level, const char *fmt, ...)
{
	static const char *const names[] = { [SD_ERR] = "error",
					     [SD_WARNING] = "warning",
					     [5] = "notice",
					     [SD_INFO] = "info",
					     [SD_DEBUG] = "debug" };
	char line[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* journald reads "<N>" as the priority; a terminal gets a readable word */
	if (journal)
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "schedlensd: %s: %s\n", names[level], line);
}

static void on_stop(int sig)
{
	sd_stop_requested = 1;
}

static void on_hup(int sig)
{
	sd_reload_requested = 1;
}

double sd_now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t sd_db_bytes(const char *path)
{
	char wal[4352];
	struct stat st;
	uint64_t n = 0;

	if (stat(path, &st) == 0)
		n += st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &st) == 0)
		n += st.st_size;
	return n;
}

static const char *const skip_config[] = { "config", NULL };

/* Defaults, then the config file named on the command line, then the other flags. */
static int configure(struct sd_config *cfg, int argc, char **argv)
{
	int err, next;

	if ((err = sl_config_defaults(sd_options, cfg)))
		return err;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			err = sl_config_set(sd_options, cfg, "config", argv[i + 1]);
		else if (!strncmp(argv[i], "--config=", 9))
			err = sl_config_set(sd_options, cfg, "config", argv[i] + 9);
		if (err)
			return err;
	}
	if (cfg->config[0] && (err = sl_config_load_file(sd_options, cfg, cfg->config)))
		return err;
	if ((err = sl_config_parse_args(sd_options, cfg, argc, argv, 1, skip_config, &next)))
		return err;
	if (next < argc)
		return sl_error(-SL_EUSAGE, "unexpected argument '%s'", argv[next]);
	if (cfg->duty_on_ns && cfg->duty_on_ns >= cfg->duty_period_ns)
		return sl_error(-SL_EUSAGE, "duty-on must be shorter than duty-period");
	return 0;
}

static size_t field_size(const struct sl_cfg_opt *o)
{
	if (o->type == SL_CFG_BOOL)
		return sizeof(bool);
	if (o->type == SL_CFG_STR || o->type == SL_CFG_ENUM)
		return sizeof(char *);
	return sizeof(uint64_t);
}

void sd_reload(struct sd_daemon *d)
{
	struct sd_config fresh = { 0 };
	int err = configure(&fresh, d->argc, d->argv);

	if (err) {
		sd_log(SD_ERR, "reload: %s; keeping the running configuration", sl_errmsg(err));
		sl_config_free(sd_options, &fresh);
		return;
	}
	for (const struct sl_cfg_opt *o = sd_options; o->name; o++) {
		char tmp[sizeof(uint64_t)], *v;

		if (!sl_config_differs(o, &d->cfg, &fresh))
			continue;
		if (!(o->flags & SL_CFG_RELOAD)) {
			sd_log(SD_WARNING, "reload: '%s' changes only after a restart", o->name);
			continue;
		}
		v = sl_config_format(o, &fresh);
		sd_log(SD_INFO, "reload: %s = %s", o->name, v ? v : "?");
		free(v);
		/* swap, so the old string (if any) is freed with fresh below */
		memcpy(tmp, (char *)&d->cfg + o->offset, field_size(o));
		memcpy((char *)&d->cfg + o->offset, (char *)&fresh + o->offset, field_size(o));
		memcpy((char *)&fresh + o->offset, tmp, field_size(o));
	}
	sl_config_free(sd_options, &fresh);
	sd_set_log_level(d->cfg.log_level);
	sd_log(SD_INFO, "configuration reloaded");
}

/*
 * --help, --version and --print-config, then the settings (defaults, config file, flags)
 * into d->cfg: -1 to go on, else the exit status.
 */
static int command_line(struct sd_daemon *d, int argc, char **argv)
{
	bool print = false;
	int n = 1, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("schedlensd %s\n", SL_VERSION);
			return 0;
		}
	}
	/* --print-config is not a setting: take it out before the table sees argv */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--print-config"))
			print = true;
		else
			argv[n++] = argv[i];
	}
	argc = d->argc = n;
	err = configure(&d->cfg, argc, argv);
	if (err) {
		fprintf(stderr, "schedlensd: %s\n%s", sl_errmsg(err), usage_text);
		sl_config_free(sd_options, &d->cfg);
		return 2;
	}
	if (print) {
		char *text = sl_config_dump(sd_options, &d->cfg);

		fputs(text ? text : "", stdout);
		free(text);
		sl_config_free(sd_options, &d->cfg);
		return 0;
	}
	return -1;
}

/*
 * Checks the listen address (not loopback needs a token), then records and serves, or only
 * serves, until asked to stop: the exit status. The monitor opens the database and starts
 * the server once it exists.
 */
static int run(struct sd_daemon *d, const char *token, struct sl_http **ret_http)
{
	struct sl_http_opts ho = {
		.listen = d->cfg.listen,
		.token = token,
		.threads = d->cfg.http_threads,
		.max_connections = d->cfg.http_max_connections,
		.per_ip_connections = d->cfg.http_per_ip,
		.timeout_s = d->cfg.http_timeout_ns / 1000000000ull,
		.header_timeout_ms = d->cfg.http_header_timeout_ns / 1000000ull,
		.max_url = d->cfg.http_max_url,
		.max_query_args = d->cfg.http_max_args,
		.handler = sd_route,
		.public_path = sd_public_path,
		.ctx = d,
	};
	bool loopback = false;
	char sa[128];
	int err;

	if ((err = sl_http_parse_listen(d->cfg.listen, sa, sizeof(sa), &loopback)) < 0 ||
	    (!loopback && !token &&
	     (err = sl_error(-SL_EUSAGE, "listening on '%s' (not loopback) requires --token-file",
			     d->cfg.listen)))) {
		sd_log(SD_ERR, "%s", sl_errmsg(err));
		return 2;
	}
	return d->cfg.record ? sd_monitor_run(d, &ho, ret_http) : sd_serve_run(d, &ho, ret_http);
}

int main(int argc, char **argv)
{
	struct sd_daemon d = { .argc = argc, .argv = argv };
	struct sigaction stop = { .sa_handler = on_stop }, hup = { .sa_handler = on_hup };
	struct sl_http *http = NULL;
	char *token = NULL;
	int err, ret;

	journal = getenv("JOURNAL_STREAM") != NULL;
	if ((ret = command_line(&d, argc, argv)) >= 0)
		return ret;
	sd_set_log_level(d.cfg.log_level);
	if (d.cfg.token_file[0]) {
		bool exposed = false;

		if ((err = sl_config_read_token(d.cfg.token_file, &token, &exposed)) < 0) {
			sd_log(SD_ERR, "%s", sl_errmsg(err));
			sl_config_free(sd_options, &d.cfg);
			return 1;
		}
		if (exposed)
			sd_log(SD_WARNING,
			       "token file '%s' is readable by its group or others (chmod 600 it)",
			       d.cfg.token_file);
	}
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &hup, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_mutex_init(&d.status.lock, NULL);
	d.status.run_id = -1;
	d.status.last_comparison_id = -1;
	d.status.started_mono = sd_now_mono();
	snprintf(d.status.state, sizeof(d.status.state), "starting");

	ret = run(&d, token, &http);
	sl_http_stop(http);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	sl_prom_free(d.prom);
	free(d.status.topo_json);
	sl_config_free(sd_options, &d.cfg);
	return ret;
}
