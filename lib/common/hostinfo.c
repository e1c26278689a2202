// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run metadata from uname, /proc, /etc and debugfs (see hostinfo.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hostinfo.h"

/* Whole file as a string with trailing whitespace cut; NULL if unreadable or empty. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *sl_hostinfo_parse_preempt(const char *text)
{
	const char *open, *close;

	if (!text)
		return NULL;
	open = strchr(text, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!open || !close || close == open + 1)
		return NULL;
	return strndup(open + 1, close - open - 1);
}

static char *preempt_from_version(const char *version)
{
	if (!version)
		return NULL;
	/* "#1 SMP PREEMPT_DYNAMIC ..." tells the build, not the boot-time choice */
	if (strstr(version, "PREEMPT_RT"))
		return strdup("rt");
	if (strstr(version, "PREEMPT_DYNAMIC"))
		return strdup("dynamic (mode unknown: mount debugfs to read sched/preempt)");
	if (strstr(version, "PREEMPT "))
		return strdup("full");
	return strdup("none or voluntary (build option; not visible without debugfs)");
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	char *model = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		model = strdup(colon);
		break;
	}
	fclose(f);
	return model;
}

/* Appends "prefix<name>=<value>\n" for each readable regular file in dir matching filter. */
static void add_dir(char **buf, size_t *len, const char *dir, const char *prefix,
		    const char *name_prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[1024], *val, *nb;
		size_t need;

		if (de->d_name[0] == '.' || strncmp(de->d_name, name_prefix, strlen(name_prefix)))
			continue;
		/* big tables (debug, domains) are not tunables */
		if (!strcmp(de->d_name, "debug") || !strcmp(de->d_name, "features") ||
		    !strcmp(de->d_name, "preempt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		val = read_text(path);
		if (!val || strchr(val, '\n')) {
			free(val);
			continue;
		}
		need = strlen(prefix) + strlen(de->d_name) + strlen(val) + 3;
		nb = realloc(*buf, *len + need);
		if (nb) {
			*buf = nb;
			*len += snprintf(nb + *len, need, "%s%s=%s\n", prefix, de->d_name, val);
		}
		free(val);
	}
	closedir(d);
}

int sl_hostinfo_read(struct sl_hostinfo **ret)
{
	struct sl_hostinfo *hi = calloc(1, sizeof(*hi));
	struct utsname u;
	char *pre;
	size_t len = 0;

	if (!hi)
		return -ENOMEM;
	if (uname(&u) == 0) {
		hi->kernel_release = strdup(u.release);
		hi->kernel_version = strdup(u.version);
		hi->machine = strdup(u.machine);
		hi->hostname = strdup(u.nodename);
	}
	hi->cmdline = read_text("/proc/cmdline");
	hi->boot_id = read_text("/proc/sys/kernel/random/boot_id");
	hi->machine_id = read_text("/etc/machine-id");
	hi->cpu_model = cpu_model();
	pre = read_text("/sys/kernel/debug/sched/preempt");
	hi->preempt_mode = sl_hostinfo_parse_preempt(pre);
	free(pre);
	if (!hi->preempt_mode)
		hi->preempt_mode = preempt_from_version(hi->kernel_version);
	hi->sched_features = read_text("/sys/kernel/debug/sched/features");
	add_dir(&hi->sched_sysctls, &len, "/proc/sys/kernel", "kernel.", "sched_");
	add_dir(&hi->sched_sysctls, &len, "/sys/kernel/debug/sched", "debug.sched.", "");
	if (hi->sched_sysctls && len)
		hi->sched_sysctls[len - 1] = '\0'; /* no final newline */
	hi->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	*ret = hi;
	return 0;
}

void sl_hostinfo_free(struct sl_hostinfo *hi)
{
	if (!hi)
		return;
	free(hi->kernel_release);
	free(hi->kernel_version);
	free(hi->machine);
	free(hi->hostname);
	free(hi->cmdline);
	free(hi->boot_id);
	free(hi->machine_id);
	free(hi->cpu_model);
	free(hi->preempt_mode);
	free(hi->sched_features);
	free(hi->sched_sysctls);
	free(hi);
}
