// SPDX-License-Identifier: GPL-2.0-only
/*
 * Creation, configuration and removal of the schedlens.<pid> tracefs instance, and the
 * clean-up of instances whose owner died.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "error.h"
#include "proc.h"
#include "tracefs-instance.h"

static const char *const fix_mount = "mount it with 'mount -t tracefs nodev /sys/kernel/tracing'";

static bool tracefs_mounted(char *path, size_t len)
{
	char dev[256], dir[1024], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs")) {
			snprintf(path, len, "%s", dir);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

int sl_instance_check(const char **ret_dir)
{
	char path[1024];
	const char *dir;

	if (!tracefs_mounted(path, sizeof(path)))
		return sl_error(-SL_ETRACE, "tracefs is not mounted; %s", fix_mount);
	/* libtracefs would mount tracefs itself if we asked it first: we checked above */
	dir = tracefs_tracing_dir();
	if (!dir)
		return sl_error(-SL_ETRACE,
				"tracefs is mounted at '%s' but libtracefs cannot use it", path);
	if (access(dir, R_OK | W_OK | X_OK) < 0)
		return sl_error(-EACCES,
				"cannot access '%s': recording needs root (or CAP_SYS_ADMIN and "
				"write access to tracefs); run 'sudo schedlens record'",
				dir);
	if (access(dir, F_OK) == 0) {
		char inst[1100];

		snprintf(inst, sizeof(inst), "%s/instances", dir);
		if (access(inst, W_OK) < 0)
			return sl_error(-SL_ETRACE,
					"'%s' is missing or read-only: this kernel lacks tracefs "
					"instances (needs Linux 3.10 or later)",
					inst);
	}
	if (ret_dir)
		*ret_dir = dir;
	return 0;
}

static bool pid_alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/*
 * Our own instances that could not be removed yet (a process still holds one of their
 * files): a long-running process (the daemon) retries them at its next start, another
 * process once we are gone. Other instances named after our pid belong to a dead process
 * whose pid we reuse: left for the next process.
 */
#define MAX_PENDING 16
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static char pending[MAX_PENDING][64];

static void pending_set(const char *name, bool add)
{
	int free_slot = -1;

	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		if (!strcmp(pending[i], name)) {
			if (!add)
				pending[i][0] = '\0';
			goto out;
		}
		if (!pending[i][0] && free_slot < 0)
			free_slot = i;
	}
	if (add && free_slot >= 0)
		snprintf(pending[free_slot], sizeof(pending[free_slot]), "%s", name);
out:
	pthread_mutex_unlock(&pending_lock);
}

static bool pending_has(const char *name)
{
	bool found = false;

	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING && !found; i++)
		found = !strcmp(pending[i], name);
	pthread_mutex_unlock(&pending_lock);
	return found;
}

/* The owner's pid of "schedlens.<pid>" or "schedlens.<pid>.<n>"; -1 if not one of ours. */
static long owner_pid(const char *name)
{
	const char *num = name + strlen(SL_INSTANCE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, SL_INSTANCE_PREFIX, strlen(SL_INSTANCE_PREFIX)) || *num < '1' ||
	    *num > '9')
		return -1;
	pid = strtol(num, &end, 10);
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		strtol(end + 1, &end, 10);
	return *end || pid <= 0 ? -1 : pid;
}

/* "pid 123 (sleep), 456 (sh)" or what we know when nobody visible holds it. */
static void busy_holders(const char *name, int err, char *buf, size_t len)
{
	char dir[1100], who[400];
	const char *tdir = tracefs_tracing_dir();
	int n;

	if (err != EBUSY) {
		snprintf(buf, len, "%s", strerror(err));
		return;
	}
	snprintf(dir, sizeof(dir), "%s/instances/%s", tdir ? tdir : "/sys/kernel/tracing", name);
	n = sl_proc_holders(NULL, dir, who, sizeof(who));
	if (n > 0)
		snprintf(buf, len, "busy, held open by %s %s", n > 1 ? "pids" : "pid", who);
	else
		snprintf(buf, len, "busy, held by no process we can see in /proc");
}

static void append(char *buf, size_t len, const char *msg)
{
	size_t used = strlen(buf);

	if (used + 3 < len)
		snprintf(buf + used, len - used, "%s%s", used ? "; " : "", msg);
}

int sl_instance_cleanup_stale(int *ret_removed, char *warn, size_t warn_len)
{
	/* filtered here: libtracefs 1.6.4 compiles the regex as POSIX basic (no "+") */
	char **names = tracefs_instances(NULL);
	int removed = 0;

	if (warn_len)
		warn[0] = '\0';
	for (char **n = names; n && *n; n++) {
		struct tracefs_instance *inst;
		long pid = owner_pid(*n);
		char why[600], msg[800];

		if (pid < 0)
			continue;
		if (pid == getpid() ? !pending_has(*n) : pid_alive(pid))
			continue;
		inst = tracefs_instance_alloc(NULL, *n);
		if (!inst)
			continue;
		tracefs_trace_off(inst);
		if (tracefs_instance_destroy(inst) == 0 || errno == ENOENT) {
			removed++;
			pending_set(*n, false);
		} else {
			busy_holders(*n, errno, why, sizeof(why));
			snprintf(msg, sizeof(msg),
				 "cannot remove stale tracefs instance '%s' yet (%s): "
				 "retried by a later recording",
				 *n, why);
			append(warn, warn_len, msg);
		}
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	if (ret_removed)
		*ret_removed = removed;
	return 0;
}

/* A name nobody uses: schedlens.<pid>, else schedlens.<pid>.<n> (ours still busy). */
static int pick_name(const char *name, struct sl_instance *si, int attempt)
{
	if (name) {
		if (attempt)
			return -EEXIST;
		snprintf(si->name, sizeof(si->name), "%s", name);
	} else if (attempt >= 100) {
		return -EEXIST;
	} else if (attempt) {
		snprintf(si->name, sizeof(si->name), SL_INSTANCE_PREFIX "%d.%d", (int)getpid(),
			 attempt);
	} else {
		snprintf(si->name, sizeof(si->name), SL_INSTANCE_PREFIX "%d", (int)getpid());
	}
	return 0;
}

int sl_instance_create(const char *name, struct sl_instance **ret)
{
	struct sl_instance *si = calloc(1, sizeof(*si));
	int err, attempt = 0;

	if (!si)
		return -ENOMEM;
retry:
	if (pick_name(name, si, attempt++) < 0) {
		err = sl_error(-EEXIST, "tracefs instance '%s' exists already", si->name);
		goto fail;
	}
	if (tracefs_instance_exists(si->name))
		goto retry;
	si->inst = tracefs_instance_create(si->name);
	if (!si->inst) {
		err = sl_error(-SL_ETRACE, "cannot create tracefs instance '%s': %s", si->name,
			       strerror(errno));
		goto fail;
	}
	/* create() attaches silently to an instance that appeared meanwhile: not ours */
	if (!tracefs_instance_is_new(si->inst)) {
		tracefs_instance_free(si->inst);
		si->inst = NULL;
		goto retry;
	}
	/* a new instance starts with tracing on: nothing is enabled yet, but keep it quiet */
	if (tracefs_trace_off(si->inst) < 0) {
		err = sl_error(-SL_ETRACE, "cannot turn tracing off in '%s'", si->name);
		tracefs_instance_destroy(si->inst);
		tracefs_instance_free(si->inst);
		goto fail;
	}
	si->tracing_dir = tracefs_tracing_dir();
	*ret = si;
	return 0;
fail:
	free(si);
	return err;
}

int sl_instance_set_clock(struct sl_instance *si)
{
	static const char *const prefer[] = { "mono", "boot", "global" };
	char *avail = tracefs_instance_file_read(si->inst, "trace_clock", NULL);
	char padded[2048];

	if (!avail)
		return sl_error(-SL_ETRACE, "cannot read trace_clock of '%s'", si->name);
	/* the list is "[local] global counter ... mono ...": match whole words */
	snprintf(padded, sizeof(padded), " %s ", avail);
	free(avail);
	for (char *c = padded; *c; c++)
		if (*c == '\n' || *c == '[' || *c == ']')
			*c = ' ';
	for (size_t i = 0; i < sizeof(prefer) / sizeof(prefer[0]); i++) {
		char want[32];

		snprintf(want, sizeof(want), " %s ", prefer[i]);
		if (!strstr(padded, want))
			continue;
		if (tracefs_instance_file_write(si->inst, "trace_clock", prefer[i]) < 0)
			return sl_error(-SL_ETRACE, "cannot set trace_clock '%s' in '%s'",
					prefer[i], si->name);
		snprintf(si->clock, sizeof(si->clock), "%s", prefer[i]);
		return 0;
	}
	return sl_error(-SL_ETRACE,
			"no global trace clock (mono, boot, global) on this kernel: cross-CPU "
			"order would be unreliable");
}

int sl_instance_set_buffer_kb(struct sl_instance *si, size_t kb)
{
	if (tracefs_instance_set_buffer_size(si->inst, kb, -1) < 0)
		return sl_error(-SL_ETRACE, "cannot set buffer_size_kb to %zu in '%s': %s", kb,
				si->name, strerror(errno));
	return 0;
}

int sl_instance_record_tgid(struct sl_instance *si)
{
	if (!tracefs_option_is_supported(si->inst, TRACEFS_OPTION_RECORD_TGID))
		return sl_error(-SL_ETRACE, "this kernel has no record-tgid option");
	if (tracefs_option_enable(si->inst, TRACEFS_OPTION_RECORD_TGID) < 0)
		return sl_error(-SL_ETRACE, "cannot enable record-tgid in '%s'", si->name);
	return 0;
}

bool sl_instance_has_event(struct sl_instance *si, const char *system, const char *event)
{
	return tracefs_event_file_exists(si->inst, system, event, "enable");
}

/* One of the instance's files, opened close-on-exec: an fd, or -errno. */
static int open_instance_file(struct sl_instance *si, const char *file, int flags)
{
	char *path = tracefs_instance_get_file(si->inst, file);
	int fd;

	if (!path)
		return -ENOMEM;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	tracefs_put_tracing_file(path);
	return fd;
}

/*
 * Writes the event's own enable file. tracefs_event_enable() matches system and event as
 * regular expressions against every system and event the kernel has: some 2,600 stat
 * calls here at every start, and the daemon's duty cycle starts anew every period.
 */
int sl_instance_enable_event(struct sl_instance *si, const char *system, const char *event)
{
	char file[256];
	int fd, err = 0;

	snprintf(file, sizeof(file), "events/%s/%s/enable", system, event);
	fd = open_instance_file(si, file, O_WRONLY);
	errno = 0;
	if (fd < 0)
		err = -fd;
	else if (write(fd, "1", 1) != 1)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (err)
		return sl_error(-SL_ETRACE, "cannot enable %s:%s in '%s': %s", system, event,
				si->name, strerror(err));
	return 0;
}

int sl_instance_trace_on(struct sl_instance *si)
{
	if (!si || !si->inst)
		return -EINVAL;
	return tracefs_trace_on(si->inst) < 0 ?
		       sl_error(-SL_ETRACE, "cannot turn tracing on in '%s'", si->name) :
		       0;
}

int sl_instance_trace_off(struct sl_instance *si)
{
	if (!si || !si->inst)
		return 0; /* nothing was created: nothing traces */
	return tracefs_trace_off(si->inst) < 0 ?
		       sl_error(-SL_ETRACE, "cannot turn tracing off in '%s'", si->name) :
		       0;
}

int sl_instance_cpu_stats_open(struct sl_instance *si, int cpu)
{
	char file[64];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	return open_instance_file(si, file, O_RDONLY);
}

int sl_instance_cpu_lost_fd(int fd, unsigned long long *ret_lost)
{
	unsigned long long overrun = 0, dropped = 0;
	char buf[1024], *p;
	ssize_t n;

	/* the kernel formats the file afresh on every read from offset 0 */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -SL_EPARSE;
	buf[n] = '\0';
	/* "commit overrun:" also contains "overrun:": match at a line start */
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "overrun:", 8))
			overrun = strtoull(p + 8, NULL, 10);
		else if (!strncmp(p, "dropped events:", 15))
			dropped = strtoull(p + 15, NULL, 10);
	}
	*ret_lost = overrun + dropped;
	return 0;
}

int sl_instance_cpu_lost(struct sl_instance *si, int cpu, unsigned long long *ret_lost)
{
	int fd = sl_instance_cpu_stats_open(si, cpu), r;

	if (fd < 0)
		return fd;
	r = sl_instance_cpu_lost_fd(fd, ret_lost);
	close(fd);
	return r;
}

int sl_instance_destroy(struct sl_instance *si)
{
	int err = 0;

	if (!si)
		return 0;
	if (si->inst) {
		tracefs_trace_off(si->inst);
		tracefs_event_disable(si->inst, NULL, NULL);
		if (tracefs_instance_destroy(si->inst) < 0 && errno != ENOENT) {
			char why[600];

			err = -errno;
			busy_holders(si->name, errno, why, sizeof(why));
			/* kept in mind: the next recording of this process retries it */
			pending_set(si->name, true);
			err = sl_error(err, "cannot remove tracefs instance '%s' yet (%s): %s",
				       si->name, why,
				       err == -EBUSY ?
					       "removed by a later recording once they close it" :
					       "retried by a later recording");
		}
		tracefs_instance_free(si->inst);
	}
	free(si);
	return err;
}
