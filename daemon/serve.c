// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd with `record no`: serves the API and the dashboard over an existing database
 * and records nothing (no tracefs instance, no writes), e.g. to browse runs copied from
 * another machine or a lab guest, or in the dashboard's browser test. /api/v1/status
 * describes the database's newest run (its host, kernel and topology) with the state
 * "serving"; the loop only waits for signals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api-web.h"
#include "daemon.h"
#include "error.h"
#include "http.h"

static const char *str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* The status fields from the newest run; a database without runs serves empty lists. */
static int describe(struct sd_daemon *d)
{
	struct sd_status *s = &d->status;
	struct sl_store *store;
	json_t *h = NULL;
	int err;

	/* the file must exist: a daemon that records nothing creates nothing */
	if ((err = sl_store_open(d->cfg.db, SL_STORE_RDONLY, &store)) < 0)
		return err;
	err = sl_api_newest_host(store, &h);
	sl_store_close(store);
	if (err == -ENOENT) {
		sd_log(SD_WARNING, "'%s' holds no run yet", d->cfg.db);
		err = 0;
	}
	if (err < 0)
		return err;
	pthread_mutex_lock(&s->lock);
	snprintf(s->state, sizeof(s->state), "serving");
	snprintf(s->hostname, sizeof(s->hostname), "%s", str(h, "hostname"));
	snprintf(s->kernel, sizeof(s->kernel), "%s", str(h, "kernel_release"));
	snprintf(s->boot_id, sizeof(s->boot_id), "%s", str(h, "boot_id"));
	snprintf(s->label, sizeof(s->label), "%s", str(h, "label"));
	snprintf(s->topo_hash, sizeof(s->topo_hash), "%s", str(h, "topo_hash"));
	if (*str(h, "topo_json"))
		s->topo_json = strdup(str(h, "topo_json"));
	pthread_mutex_unlock(&s->lock);
	json_decref(h);
	return 0;
}

int sd_serve_run(struct sd_daemon *d, const struct sl_http_opts *ho, struct sl_http **ret_http)
{
	int err;

	if ((err = describe(d)) < 0) {
		sd_log(SD_ERR, "cannot serve '%s': %s", d->cfg.db, sl_errmsg(err));
		return 1;
	}
	if (!(d->prom = sl_prom_new(d->status.hostname))) {
		sd_log(SD_ERR, "out of memory");
		return 1;
	}
	if ((err = sl_http_start(ho, ret_http)) < 0) {
		sd_log(SD_ERR, "%s", sl_errmsg(err));
		return 1;
	}
	sd_log(SD_INFO, "serving '%s' on http://%s/ without recording", d->cfg.db, d->cfg.listen);
	while (!sd_stop_requested) {
		struct timespec ts = { 0, 200 * 1000000 };

		if (sd_reload_requested) {
			sd_reload_requested = 0;
			sd_reload(d);
		}
		nanosleep(&ts, NULL);
	}
	sd_log(SD_INFO, "stopping");
	return 0;
}
