// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread groups from /proc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
