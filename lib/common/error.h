/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error codes and messages. Library functions return 0 or a negative code: either
 * -errno or one of the SL_E* codes below. The function that fails first records a
 * human-readable message (naming the file, line or value at fault) with sl_error(),
 * which returns the code, so callers write `return sl_error(-SL_EPARSE, "...")`.
 * The CLI and daemon print sl_errmsg(); the library never prints.
 */
#ifndef SL_ERROR_H
#define SL_ERROR_H

#define SL_ERRORS(X)                              \
	X(SL_EPARSE, "malformed input")           \
	X(SL_EFORMAT, "unsupported format")       \
	X(SL_ERANGE, "value out of range")        \
	X(SL_ENOTOPO, "topology unavailable")     \
	X(SL_ESCHEMA, "database schema mismatch") \
	X(SL_EDB, "database error")               \
	X(SL_ETRACE, "tracing unavailable")       \
	X(SL_EUSAGE, "usage error")

enum sl_errcode {
	SL_EBASE = 4096, /* above every errno value */
#define SL_ERR_ENUM(name, text) name,
	SL_ERRORS(SL_ERR_ENUM)
#undef SL_ERR_ENUM
};

/* Text for a code (negative or positive); static storage, never freed. */
const char *sl_strerror(int err);

/*
 * Records a message for the calling thread and returns err unchanged. The message is
 * printf-formatted; the previous message is replaced.
 */
int sl_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The calling thread's last message, or sl_strerror(err) if none was recorded since
 * sl_error_clear(). Static thread-local storage, valid until the next sl_error(). */
const char *sl_errmsg(int err);
void sl_error_clear(void);

#endif
