// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread groups and open files from /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

int32_t sl_proc_tgid(const char *proc_root, int32_t pid)
{
	char path[256], line[256];
	int32_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root ? proc_root : "/proc", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = (int32_t)strtol(line + 5, NULL, 10);
			break;
		}
	}
	fclose(f);
	return tgid > 0 ? tgid : -1;
}

static bool holds_under(const char *proc_root, const char *pid, const char *dir)
{
	char fddir[300], link[600], target[4096];
	size_t dlen = strlen(dir);
	bool found = false;
	struct dirent *fe;
	DIR *d;

	snprintf(fddir, sizeof(fddir), "%s/%s/fd", proc_root, pid);
	d = opendir(fddir);
	if (!d)
		return false; /* gone, or not ours to look at */
	while (!found && (fe = readdir(d))) {
		ssize_t n;

		if (fe->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", fddir, fe->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = !strncmp(target, dir, dlen) && target[dlen] == '/';
	}
	closedir(d);
	return found;
}

static void read_comm(const char *proc_root, const char *pid, char *comm, size_t len)
{
	char path[300];
	FILE *f;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "%s/%s/comm", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

int sl_proc_holders(const char *proc_root, const char *dir, char *buf, size_t len)
{
	struct dirent *pe;
	size_t used = 0;
	int found = 0;
	DIR *d;

	if (!proc_root)
		proc_root = "/proc";
	if (len)
		buf[0] = '\0';
	d = opendir(proc_root);
	if (!d)
		return -errno;
	while ((pe = readdir(d))) {
		char comm[64], item[128];
		int n;

		if (pe->d_name[0] < '1' || pe->d_name[0] > '9' ||
		    !holds_under(proc_root, pe->d_name, dir))
			continue;
		read_comm(proc_root, pe->d_name, comm, sizeof(comm));
		n = snprintf(item, sizeof(item), "%s%s (%s)", found ? ", " : "", pe->d_name, comm);
		found++;
		if (used == (size_t)-1 || !len)
			continue;
		if (used + n + 4 < len) {
			memcpy(buf + used, item, n + 1);
			used += n;
		} else if (used + 4 < len || len >= 4) {
			snprintf(buf + (used + 4 < len ? used : len - 4), 4, "...");
			used = (size_t)-1;
		}
	}
	closedir(d);
	return found;
}
