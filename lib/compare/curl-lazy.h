/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcurl, loaded when a Prometheus query first needs it (dlopen of libcurl.so.4) rather
 * than linked: linking it made every schedlens command load 29 more libraries (TLS,
 * Kerberos, LDAP) at start, about 16 ms of CPU each time (README "Importing traces").
 * The functions compare-prom.c calls, with libcurl's own signatures.
 */
#ifndef SL_CURL_LAZY_H
#define SL_CURL_LAZY_H

#include <curl/curl.h>

struct sl_curl {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	char *(*easy_escape)(CURL *h, const char *s, int len);
	void (*free)(void *p);
	void (*easy_cleanup)(CURL *h);
};

/* *ret = the loaded library's functions; or an error (sl_error()): libcurl is missing. */
int sl_curl_load(const struct sl_curl **ret);

#endif
