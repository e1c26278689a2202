// SPDX-License-Identifier: GPL-2.0-only
/*
 * An LD_PRELOAD shim for fault-injection tests: makes the Nth counted call of the functions
 * below fail with an errno, so that a test can walk every error path of a program's
 * start-up by running it with N = 1, 2, ... until no call fails.
 *
 *   SL_FAULT_N=N        the counted call to fail (unset or 0: count only, fail none)
 *   SL_FAULT_SITE=S     or: the first counted call whose "<call> <site>" (as logged, see
 *                       below) starts with S (then a space or
 *                       its end) fails: the same site in every run, where call
 *                       numbers vary with threads and timing
 *   SL_FAULT_ERRNO=E    the errno it fails with (default EIO)
 *   SL_FAULT_CALLS=a,b  only these functions count (default: all of them)
 *   SL_FAULT_PATH=P     path functions count only on paths starting with P, and fd
 *                       functions (read, write, pread) only on fds whose file does; the
 *                       other functions (pipe2, socket, pthread_create...) always count
 *   SL_FAULT_STOP=S     counting stops for good after a successful open of a path
 *                       containing S (e.g. "tracing_on": the end of a recorder's start-up)
 *   SL_FAULT_LOG=F      appends "fail <n> <call> <object>+0x<offset>" for the failed call (the
 *                       caller's code address, the same in every run) and, at exit,
 *                       "calls <n>" (how many calls were counted)
 *   SL_FAULT_TOPLEVEL=D logs "toplevel <path>" for every open for writing of a file under D
 *                       (the tracing directory) but not under D/instances
 *   SL_FAULT_TRACE=1    with SL_FAULT_N unset, also logs "call <n> <call> <site>" for every
 *                       counted call: a test can then fail only the first call of each
 *                       site instead of every call
 *
 * Built as a shared object by the Makefile's tests/helpers/%.so rule, not as a program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static atomic_long counted;
static long fail_at;
static int fail_errno = EIO;
static const char *calls_filter;
static const char *path_prefix;
static const char *stop_after;
static atomic_bool stopped;
static bool trace;
static const char *fail_site;

#define REAL(name)                            \
	static __typeof__(name) *real_##name; \
	if (!real_##name)                     \
	real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static void fi_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fi_log(const char *fmt, ...)
{
	const char *log = getenv("SL_FAULT_LOG");
	char line[512];
	va_list ap;
	int fd, n;

	if (!log)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
	if (fd < 0)
		return;
	if (syscall(SYS_write, fd, line, (size_t)n) < 0)
		n = 0;
	syscall(SYS_close, fd);
}

__attribute__((constructor)) static void fi_init(void)
{
	const char *s = getenv("SL_FAULT_N");

	fail_at = s ? atol(s) : 0;
	if ((s = getenv("SL_FAULT_ERRNO")))
		fail_errno = atoi(s);
	calls_filter = getenv("SL_FAULT_CALLS");
	path_prefix = getenv("SL_FAULT_PATH");
	stop_after = getenv("SL_FAULT_STOP");
	fail_site = getenv("SL_FAULT_SITE");
	if (fail_site && !*fail_site)
		fail_site = NULL;
	trace = !fail_at && !fail_site && getenv("SL_FAULT_TRACE");
}

__attribute__((destructor)) static void fi_fini(void)
{
	fi_log("calls %ld\n", atomic_load(&counted));
}

static bool wanted(const char *call)
{
	size_t len = strlen(call);

	for (const char *p = calls_filter; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, call, len))
			return true;
		p = end ? end + 1 : p + n;
	}
	return !calls_filter;
}

static bool path_wanted(const char *path)
{
	return !path_prefix || (path && !strncmp(path, path_prefix, strlen(path_prefix)));
}

static bool fd_wanted(int fd)
{
	char link[64], target[4096];
	ssize_t n;

	if (!path_prefix)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlink, link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return path_wanted(target);
}

/* "<object>+0x<offset>" of a code address */
static void site_name(void *addr, char *buf, size_t len)
{
	Dl_info di;

	if (dladdr(addr, &di) && di.dli_fname) {
		const char *base = strrchr(di.dli_fname, '/');

		snprintf(buf, len, "%s+0x%lx", base ? base + 1 : di.dli_fname,
			 (unsigned long)((char *)addr - (char *)di.dli_fbase));
	} else {
		snprintf(buf, len, "%p", addr);
	}
}

/*
 * The caller, and the first frame in the program itself when the caller is a library:
 * one libtracefs write serves every tracefs file, the program's frame tells them apart.
 */
static void site_of(const char *call, void *caller, char *buf, size_t len)
{
	char first[256], ours[256] = "";
	void *frames[24];
	int n;

	site_name(caller, first, sizeof(first));
	if (strstr(first, ".so")) {
		n = backtrace(frames, 24);
		for (int i = 1; i < n; i++) {
			site_name((char *)frames[i] - 1, ours, sizeof(ours));
			if (!strstr(ours, ".so") && ours[0] != '0')
				break;
			ours[0] = '\0';
		}
	}
	snprintf(buf, len, "%s %s%s%s", call, first, ours[0] ? " via " : "", ours);
}

/* Counts the call; true if this one must fail (errno is then set). */
static bool fail_now(const char *call, bool relevant, void *caller)
{
	static __thread bool inside; /* backtrace() may open libgcc_s on its first call */
	static atomic_bool site_done;
	char site[600] = "";
	bool fail;
	long nth;

	if (inside || !relevant || atomic_load(&stopped) || !wanted(call))
		return false;
	nth = atomic_fetch_add(&counted, 1) + 1;
	inside = true;
	if (trace || fail_site || fail_at == nth)
		site_of(call, caller, site, sizeof(site));
	if (fail_site)
		fail = !strncmp(site, fail_site, strlen(fail_site)) &&
		       (!site[strlen(fail_site)] || site[strlen(fail_site)] == ' ') &&
		       !atomic_exchange(&site_done, true);
	else
		fail = fail_at && nth == fail_at;
	if (trace || fail)
		fi_log("%s %ld %s\n", fail ? "fail" : "call", nth, site);
	inside = false;
	if (fail)
		errno = fail_errno;
	return fail;
}

#define CALLER __builtin_return_address(0)

static void opened(const char *path, bool writing, int ret)
{
	const char *top = getenv("SL_FAULT_TOPLEVEL");
	size_t len = top ? strlen(top) : 0;

	if (ret >= 0 && stop_after && path && strstr(path, stop_after))
		atomic_store(&stopped, true);
	if (ret >= 0 && writing && top && path && !strncmp(path, top, len) && path[len] == '/' &&
	    strncmp(path + len, "/instances/", 11))
		fi_log("toplevel %s\n", path);
}

static bool flags_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY;
}

static bool how_write(const char *how)
{
	return how && strpbrk(how, "wa+");
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int r;

	REAL(open);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (fail_now("open", path_wanted(path), CALLER))
		return -1;
	r = real_open(path, flags, mode);
	opened(path, flags_write(flags), r);
	return r;
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int r;

	REAL(open64);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (fail_now("open", path_wanted(path), CALLER))
		return -1;
	r = real_open64(path, flags, mode);
	opened(path, flags_write(flags), r);
	return r;
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int r;

	REAL(openat);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (fail_now("openat", path_wanted(path), CALLER))
		return -1;
	r = real_openat(dirfd, path, flags, mode);
	opened(path, flags_write(flags), r);
	return r;
}

EXPORT FILE *fopen(const char *path, const char *how)
{
	FILE *f;

	REAL(fopen);
	if (fail_now("fopen", path_wanted(path), CALLER))
		return NULL;
	f = real_fopen(path, how);
	opened(path, how_write(how), f ? 0 : -1);
	return f;
}

EXPORT FILE *fopen64(const char *path, const char *how)
{
	FILE *f;

	REAL(fopen64);
	if (fail_now("fopen", path_wanted(path), CALLER))
		return NULL;
	f = real_fopen64(path, how);
	opened(path, how_write(how), f ? 0 : -1);
	return f;
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	REAL(mkdir);
	if (fail_now("mkdir", path_wanted(path), CALLER))
		return -1;
	return real_mkdir(path, mode);
}

EXPORT int rmdir(const char *path)
{
	REAL(rmdir);
	if (fail_now("rmdir", path_wanted(path), CALLER))
		return -1;
	return real_rmdir(path);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	REAL(read);
	if (fail_now("read", fd_wanted(fd), CALLER))
		return -1;
	return real_read(fd, buf, len);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(write);
	if (fail_now("write", fd_wanted(fd), CALLER))
		return -1;
	return real_write(fd, buf, len);
}

EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	REAL(pread);
	if (fail_now("pread", fd_wanted(fd), CALLER))
		return -1;
	return real_pread(fd, buf, len, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	REAL(pread64);
	if (fail_now("pread", fd_wanted(fd), CALLER))
		return -1;
	return real_pread64(fd, buf, len, off);
}

EXPORT int pipe2(int fds[2], int flags)
{
	REAL(pipe2);
	if (fail_now("pipe2", true, CALLER))
		return -1;
	return real_pipe2(fds, flags);
}

EXPORT int epoll_create1(int flags)
{
	REAL(epoll_create1);
	if (fail_now("epoll_create1", true, CALLER))
		return -1;
	return real_epoll_create1(flags);
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	REAL(epoll_ctl);
	if (fail_now("epoll_ctl", true, CALLER))
		return -1;
	return real_epoll_ctl(epfd, op, fd, ev);
}

EXPORT int socket(int domain, int type, int proto)
{
	REAL(socket);
	if (fail_now("socket", true, CALLER))
		return -1;
	return real_socket(domain, type, proto);
}

EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	REAL(bind);
	if (fail_now("bind", true, CALLER))
		return -1;
	return real_bind(fd, sa, len);
}

EXPORT int listen(int fd, int backlog)
{
	REAL(listen);
	if (fail_now("listen", true, CALLER))
		return -1;
	return real_listen(fd, backlog);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	REAL(pthread_create);
	/* pthread_create returns the error instead of setting errno */
	if (fail_now("pthread_create", true, CALLER))
		return fail_errno == EIO ? EAGAIN : fail_errno;
	return real_pthread_create(t, attr, fn, arg);
}
