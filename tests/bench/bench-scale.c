// SPDX-License-Identifier: GPL-2.0-only
/*
 * Import at scale (issue 19, item 4): a 192-CPU host (tests/fixtures/mksysfs 4x24x2)
 * against a 16-CPU one (4x2x2, the lab guest's shape). slsynth writes the same workload
 * on each as ftrace text (`--policy llc-scan --clients 300 --backends 300 --text`; the
 * 16-CPU run's duration is chosen so that both traces hold about as many events), then
 * `schedlens import FILE --sysfs DIR -o DB` runs in a child, with per-event rows (the
 * default) and `--windows-only`, 3 interleaved rounds. Printed, per shape and mode:
 * events per CPU-second (events over the child's user + system time from wait4(), every
 * thread; median of the rounds), the peak of the child's anonymous memory (RssAnon of
 * /proc/PID/status, sampled every 5 ms: a peak shorter than 5 ms can be missed; until
 * ca5d42d the input was mapped and RSS counted the file) beside its VmHWM (since then the
 * whole peak), and the database's bytes per event; then the 192-CPU throughput as a share of
 * the 16-CPU one, per round, median. The targets: anonymous memory < 500 MB at
 * 50 M events, throughput within 20% of the 16-CPU figure. Figures only, no verdict.
 *
 *   SL_BENCH_SCALE_SECONDS  simulated seconds of the 192-CPU trace (default 2: ~1.6 M
 *                           events, 240 MB of text; the 50 M events is ~60)
 *   SL_BENCH_SCALE_ROUNDS   1..3 rounds (default 3; 1 for the size in minutes)
 *   TMPDIR                  where the traces go (default /var/tmp: GBs at large sizes)
 *
 * Needs SL_SRC (mksysfs) and SL_BUILD (schedlens, slsynth), set by `make bench`.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 3 /* at most; SL_BENCH_SCALE_ROUNDS may ask for fewer */
#define SAMPLE_US 5000

struct shape {
	const char *name; /* mksysfs shape */
	int cpus;
	double seconds; /* simulated */
	uint64_t events;
	double text_mb;
};

struct result {
	uint64_t events;
	double cpu_s[ROUNDS];
	long anon_kb[ROUNDS], hwm_kb[ROUNDS]; /* peaks */
	double db_bytes;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int rounds = ROUNDS;

static double median(const double *v, int n)
{
	double s[ROUNDS];

	memcpy(s, v, sizeof(double) * n);
	qsort(s, n, sizeof(s[0]), cmp_double);
	return s[n / 2];
}

static long max_long(const long *v, int n)
{
	long m = 0;

	for (int i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* "Key:   123 kB" of /proc/PID/status, in kB; -1 if absent (the child is gone) */
static long status_kb(pid_t pid, const char *key, long *ret_other, const char *other)
{
	char path[64], line[256];
	size_t klen = strlen(key), olen = other ? strlen(other) : 0;
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtol(line + klen + 1, NULL, 10);
		else if (other && !strncmp(line, other, olen) && line[olen] == ':')
			*ret_other = strtol(line + olen + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

/*
 * Runs argv with stdout to out_path (stderr to /dev/null) and samples its RssAnon until
 * it exits: *cpu_s its user + system time, *anon_kb and *hwm_kb the peaks. 0 or -1.
 */
static int run_sampled(char *const argv[], const char *out_path, double *cpu_s, long *anon_kb,
		       long *hwm_kb)
{
	struct rusage ru;
	int status;
	pid_t pid;

	*anon_kb = *hwm_kb = 0;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (out < 0 || null < 0 || dup2(out, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		long hwm = 0, anon = status_kb(pid, "RssAnon", &hwm, "VmHWM");
		pid_t r = wait4(pid, &status, WNOHANG, &ru);

		if (r == pid)
			break;
		if (r < 0)
			return -1;
		if (anon > *anon_kb)
			*anon_kb = anon;
		if (hwm > *hwm_kb)
			*hwm_kb = hwm;
		usleep(SAMPLE_US);
	}
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		 ru.ru_stime.tv_usec / 1e6;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int sh(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		printf("scale: failed: %s\n", cmd);
	return r != 0 ? -1 : 0;
}

/* "events N" from slsynth's summary in path */
static uint64_t truth_events(const char *path)
{
	char line[512];
	uint64_t n = 0;
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "events %" SCNu64, &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static double file_mb(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size / 1e6;
}

/* Generates the text trace of shape s (its sysfs made) into dir; fills events and size. */
static int generate(const char *build, const char *dir, struct shape *s)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "'%s/slsynth' --sysfs '%s/%s' --policy llc-scan --clients 300 --backends 300 "
		 "--duration %.3f --text > '%s/%s.txt' 2> '%s/%s.truth'",
		 build, dir, s->name, s->seconds, dir, s->name, dir, s->name);
	if (sh(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/%s.truth", dir, s->name);
	s->events = truth_events(cmd);
	snprintf(cmd, sizeof(cmd), "%s/%s.txt", dir, s->name);
	s->text_mb = file_mb(cmd);
	return s->events ? 0 : -1;
}

/* Events per simulated second of shape s, from a short run without text. */
static double probe_rate(const char *build, const char *dir, const struct shape *s)
{
	char cmd[4096], path[1024];

	snprintf(path, sizeof(path), "%s/%s.probe", dir, s->name);
	snprintf(cmd, sizeof(cmd),
		 "'%s/slsynth' --sysfs '%s/%s' --policy llc-scan --clients 300 --backends 300 "
		 "--duration 0.5 > '%s'",
		 build, dir, s->name, path);
	return sh(cmd) ? 0 : truth_events(path) / 0.5;
}

/* Round r of one import of shape s, windows_only or not, into res. */
static int import(const char *build, const char *dir, const struct shape *s, bool windows_only,
		  int r, struct result *res)
{
	char cli[4096], txt[4096], sysfs[4096], db[4096], out[4096], line[4096];
	char *argv[10];
	int n = 0;
	FILE *f;

	snprintf(cli, sizeof(cli), "%s/schedlens", build);
	snprintf(txt, sizeof(txt), "%s/%s.txt", dir, s->name);
	snprintf(sysfs, sizeof(sysfs), "%s/%s", dir, s->name);
	snprintf(db, sizeof(db), "%s/%s.db", dir, s->name);
	snprintf(out, sizeof(out), "%s/%s.json", dir, s->name);
	unlink(db);
	argv[n++] = cli;
	argv[n++] = "import";
	argv[n++] = txt;
	argv[n++] = "--sysfs";
	argv[n++] = sysfs;
	argv[n++] = "-o";
	argv[n++] = db;
	argv[n++] = "--json";
	if (windows_only)
		argv[n++] = "--windows-only";
	argv[n] = NULL;
	if (run_sampled(argv, out, &res->cpu_s[r], &res->anon_kb[r], &res->hwm_kb[r])) {
		printf("scale: schedlens import '%s'%s failed\n", txt,
		       windows_only ? " --windows-only" : "");
		return -1;
	}
	f = fopen(out, "re");
	if (!f || !fgets(line, sizeof(line), f) || !strstr(line, "\"events_total\":")) {
		if (f)
			fclose(f);
		printf("scale: no --json result from import of '%s'\n", txt);
		return -1;
	}
	fclose(f);
	res->events = strtoull(strstr(line, "\"events_total\":") + 15, NULL, 10);
	res->db_bytes = file_mb(db) * 1e6;
	unlink(db);
	return 0;
}

static void print_result(const struct shape *s, const char *mode, const struct result *res)
{
	double cpu = median(res->cpu_s, rounds);

	printf("scale: %4d CPUs (%s) %-14s %9" PRIu64 " events  %6.2f CPU-s  %5.2f M "
	       "events/CPU-s  anon peak %6.1f MB  (VmHWM %6.1f MB)  db %.2f B/event\n",
	       s->cpus, s->name, mode, res->events, cpu, cpu > 0 ? res->events / cpu / 1e6 : 0,
	       max_long(res->anon_kb, rounds) / 1024.0, max_long(res->hwm_kb, rounds) / 1024.0,
	       res->events ? res->db_bytes / res->events : 0);
}

/* The median over the rounds of big's rate over small's in the same round. */
static double ratio(const struct result *big, const struct result *small)
{
	double v[ROUNDS];

	for (int r = 0; r < rounds; r++)
		v[r] = big->cpu_s[r] > 0 && small->cpu_s[r] > 0 ?
			       (big->events / big->cpu_s[r]) / (small->events / small->cpu_s[r]) :
			       0;
	return median(v, rounds);
}

int main(void)
{
	const char *src = getenv("SL_SRC") ? getenv("SL_SRC") : ".";
	const char *build = getenv("SL_BUILD") ? getenv("SL_BUILD") : "build";
	const char *secs = getenv("SL_BENCH_SCALE_SECONDS"), *tmp = getenv("TMPDIR");
	struct shape big = { "4x24x2", 192, secs ? atof(secs) : 2 }, small = { "4x2x2", 16 };
	struct result big_rows = {}, small_rows = {}, big_win = {}, small_win = {};
	char dir[512], cmd[4096], path[1100];
	double rate_big, rate_small;
	int err = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("SL_BENCH_SCALE_ROUNDS"))
		rounds = atoi(getenv("SL_BENCH_SCALE_ROUNDS"));
	if (rounds < 1 || rounds > ROUNDS) {
		printf("scale: SL_BENCH_SCALE_ROUNDS must be 1..%d\n", ROUNDS);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/slsynth", build);
	if (access(path, X_OK)) {
		printf("scale: skipped (needs %s: make bench builds it)\n", path);
		return 0;
	}
	/* /var/tmp: at the sizes the traces are GBs, too big for a tmpfs /tmp */
	snprintf(dir, sizeof(dir), "%s/sl-bench-scale-XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cmd, sizeof(cmd),
		 "'%s/tests/fixtures/mksysfs' %s '%s/%s' && '%s/tests/fixtures/mksysfs' %s '%s/%s'",
		 src, big.name, dir, big.name, src, small.name, dir, small.name);
	if (big.seconds <= 0 || big.seconds > 3600 || sh(cmd) || generate(build, dir, &big))
		goto out;
	/* as many events on 16 CPUs as on 192: the rate per simulated second differs */
	rate_big = probe_rate(build, dir, &big);
	rate_small = probe_rate(build, dir, &small);
	if (rate_big <= 0 || rate_small <= 0)
		goto out;
	small.seconds = big.seconds * rate_big / rate_small;
	if (generate(build, dir, &small))
		goto out;
	printf("scale: slsynth --policy llc-scan --clients 300 --backends 300 --text: %s %.3f s "
	       "simulated, %" PRIu64 " events, %.0f MB of text; %s %.3f s, %" PRIu64
	       " events, %.0f MB; %d rounds\n",
	       big.name, big.seconds, big.events, big.text_mb, small.name, small.seconds,
	       small.events, small.text_mb, rounds);
	for (int r = 0; r < rounds; r++) {
		if (import(build, dir, &big, false, r, &big_rows) ||
		    import(build, dir, &small, false, r, &small_rows) ||
		    import(build, dir, &big, true, r, &big_win) ||
		    import(build, dir, &small, true, r, &small_win))
			goto out;
	}
	print_result(&big, "every row", &big_rows);
	print_result(&small, "every row", &small_rows);
	print_result(&big, "windows-only", &big_win);
	print_result(&small, "windows-only", &small_win);
	printf("scale: 192-CPU events/CPU-s as a share of the 16-CPU figure (median of per-round "
	       "ratios; target >= 0.80): every row %.2f, windows-only %.2f\n",
	       ratio(&big_rows, &small_rows), ratio(&big_win, &small_win));
	err = 0;
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		err = -1;
	return err ? 1 : 0;
}
