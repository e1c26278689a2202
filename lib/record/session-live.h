/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Session options for a live recording of this host: what `schedlens record` and
 * schedlensd both store about a run they record (host identity and topology, kernel and
 * scheduler settings from hostinfo, the recorder's trace clock and start time) and how
 * the engine learns thread groups (/proc).
 */
#ifndef SL_SESSION_LIVE_H
#define SL_SESSION_LIVE_H

#include "hostinfo.h"
#include "recorder.h"
#include "session.h"
#include "topo.h"

/*
 * Fills *o (zeroing it first) for recording this host through rec into db (NULL: analyse
 * only) under label (NULL: none). hi, topo and rec must outlive the session; topo may be
 * NULL. Callers adjust what else they need (event rows, retention, window length).
 */
void sl_session_opts_live(struct sl_session_opts *o, const struct sl_hostinfo *hi,
			  const struct sl_topo *topo, const struct sl_recorder *rec, const char *db,
			  const char *label);

#endif
