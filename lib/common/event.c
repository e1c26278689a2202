// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names of the normalized event types, for summaries and error messages.
 */
#include "event.h"

const char *sl_event_type_name(unsigned int type)
{
	static const char *const names[SL_EV_TYPE_MAX] = {
		[SL_EV_WAKING] = "waking",
		[SL_EV_WAKEUP] = "wakeup",
		[SL_EV_WAKEUP_NEW] = "wakeup_new",
		[SL_EV_SWITCH] = "switch",
		[SL_EV_MIGRATE] = "migrate",
		[SL_EV_FORK] = "fork",
		[SL_EV_EXIT] = "exit",
		[SL_EV_LOST] = "lost",
		[SL_EV_FUTEX] = "futex",
	};

	return type < SL_EV_TYPE_MAX && names[type] ? names[type] : "?";
}
