/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny TAP producer for unit tests, run by prove. Each check prints "ok N - name" or
 * "not ok N - name" with the file and line and the values that differed; done_testing()
 * prints the plan and returns the exit status.
 */
#ifndef SL_TAP_H
#define SL_TAP_H

#include <stdbool.h>
#include <stdint.h>

bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool tap_is_int(int64_t got, int64_t want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A check of a target not met yet: reported "# TODO reason", never a failure. */
bool tap_todo(bool cond, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_skip(const char *why);
int tap_done(void);

/* A scratch directory under $TMPDIR (else /dev/shm, else /tmp), removed by tap_done(); caller must not free. */
const char *tap_tmpdir(void);

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) tap_is_int((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define todo(cond, reason, ...) tap_todo(!!(cond), (reason), __VA_ARGS__)
#define diag(...) tap_diag(__VA_ARGS__)
#define skip(why) tap_skip(why)
#define done_testing() tap_done()

#endif
