// SPDX-License-Identifier: GPL-2.0-only
/* libcurl loaded on first use (curl-lazy.h). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "curl-lazy.h"
#include "error.h"

/* Debian's libcurl4 (OpenSSL) and libcurl3-gnutls: the same ABI, either will do. */
static const char *const libs[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static struct sl_curl curl;
static const struct sl_curl *loaded;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Resolves every function, or none. */
static bool resolve(void *h, const char *lib)
{
	struct {
		void **fn;
		const char *name;
	} syms[] = {
		{ (void **)&curl.easy_init, "curl_easy_init" },
		{ (void **)&curl.easy_setopt, "curl_easy_setopt" },
		{ (void **)&curl.easy_perform, "curl_easy_perform" },
		{ (void **)&curl.easy_getinfo, "curl_easy_getinfo" },
		{ (void **)&curl.easy_strerror, "curl_easy_strerror" },
		{ (void **)&curl.easy_escape, "curl_easy_escape" },
		{ (void **)&curl.free, "curl_free" },
		{ (void **)&curl.easy_cleanup, "curl_easy_cleanup" },
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn) {
			snprintf(why, sizeof(why), "%s has no %s", lib, syms[i].name);
			return false;
		}
	}
	return true;
}

static void load(void)
{
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		/* never closed: libcurl keeps global state for the process's life */
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			if (!i)
				snprintf(why, sizeof(why), "%s", dlerror());
			continue;
		}
		if (resolve(h, libs[i])) {
			loaded = &curl;
			return;
		}
	}
}

int sl_curl_load(const struct sl_curl **ret)
{
	pthread_once(&once, load);
	*ret = loaded;
	if (!loaded)
		return sl_error(-ENOENT, "querying Prometheus needs libcurl (Debian: libcurl4): %s",
				why);
	return 0;
}
