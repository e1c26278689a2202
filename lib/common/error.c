// SPDX-License-Identifier: GPL-2.0-only
/*
 * Error codes and the per-thread "what went wrong" message the library leaves for the
 * tools to print.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static __thread char last_msg[1024];

const char *sl_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
#define SL_ERR_CASE(name, text) \
	case name:              \
		return text;
		SL_ERRORS(SL_ERR_CASE)
#undef SL_ERR_CASE
	}
	return strerror(err);
}

int sl_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *sl_errmsg(int err)
{
	return last_msg[0] ? last_msg : sl_strerror(err);
}

void sl_error_clear(void)
{
	last_msg[0] = '\0';
}
