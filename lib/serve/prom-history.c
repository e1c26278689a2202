// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history of /metrics from a database (prom-history.h): the windows of every run are
 * replayed, in the order their wall-clock ends fall (sl_query_windows_by_end()), through
 * the same counter table the daemon exports (metrics-prom.c), one table per host, and
 * each table is written out, stamped, after each window of its host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics-prom.h"
#include "prom-history.h"
#include "store-query.h"

#define MAX_HOSTS 64

struct host_tab {
	char name[128];
	struct sl_prom *p;
};

struct hist {
	const char *host; /* the label for every window, or NULL: the run's hostname */
	FILE *out;
	struct host_tab *tabs;
	int nr;
	struct sl_prom *pending; /* the table whose instant is not written yet */
	uint64_t pending_wall;
	size_t instants;
};

static struct sl_prom *host_table(struct host_tab *t, int *nr, const char *name)
{
	for (int i = 0; i < *nr; i++)
		if (!strcmp(t[i].name, name))
			return t[i].p;
	if (*nr == MAX_HOSTS)
		return NULL;
	snprintf(t[*nr].name, sizeof(t[*nr].name), "%s", name);
	if (!(t[*nr].p = sl_prom_new(name)))
		return NULL;
	return t[(*nr)++].p;
}

static int on_window(void *ctx, const char *hostname, const char *kernel, uint64_t wall,
		     const struct sl_window_rec *w)
{
	struct hist *hs = ctx;
	const char *h = hs->host ? hs->host : hostname;
	struct sl_prom *p;

	if (!h)
		return 0;
	if (!(p = host_table(hs->tabs, &hs->nr, h)))
		return sl_error(-ENOMEM, "more than %d hosts, or out of memory", MAX_HOSTS);
	/* a host's instant is written once all its windows ending then are counted */
	if (hs->pending && (hs->pending != p || hs->pending_wall / 1000000 != wall / 1000000)) {
		sl_prom_render_history(hs->pending, hs->out, hs->pending_wall);
		hs->instants++;
	}
	sl_prom_add_window(p, kernel, w);
	hs->pending = p;
	hs->pending_wall = wall;
	return 0;
}

int sl_prom_history_write(struct sl_store *store, const char *host, FILE *out, size_t *ret_instants)
{
	struct hist hs = { .host = host, .out = out };
	int err;

	if (!(hs.tabs = calloc(MAX_HOSTS, sizeof(*hs.tabs))))
		return -ENOMEM;
	if ((err = sl_query_windows_by_end(store, on_window, &hs)))
		goto out;
	if (!hs.pending) {
		err = sl_error(-ENOENT, "no windows to export");
		goto out;
	}
	sl_prom_render_history(hs.pending, out, hs.pending_wall);
	hs.instants++;
	fputs("# EOF\n", out);
	if (fflush(out) || ferror(out)) {
		err = sl_error(-EIO, "cannot write the history: %s", strerror(errno));
		goto out;
	}
	if (ret_instants)
		*ret_instants = hs.instants;
out:
	for (int i = 0; i < hs.nr; i++)
		sl_prom_free(hs.tabs[i].p);
	free(hs.tabs);
	return err;
}
