// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology fixtures for unit tests, generated with tests/fixtures/mksysfs ($SL_SRC is the
 * repository root; make check sets it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "fixture.h"
#include "tap.h"

struct sl_topo *fixture_topo(const char *shape)
{
	const char *src = getenv("SL_SRC");
	char cmd[4096], root[1024];
	struct sl_topo *topo;
	int err;

	snprintf(root, sizeof(root), "%s/fixture-%s", tap_tmpdir(), shape);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && '%s/tests/fixtures/mksysfs' %s '%s'", root,
		 src ? src : ".", shape, root);
	if (system(cmd) != 0) {
		printf("Bail out! cannot run: %s\n", cmd);
		exit(1);
	}
	err = sl_topo_read(root, &topo);
	if (err) {
		printf("Bail out! %s\n", sl_errmsg(err));
		exit(1);
	}
	return topo;
}
