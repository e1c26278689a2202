/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small read-only HTTP server on libmicrohttpd for schedlensd: an internal polling
 * thread with epoll and a thread pool, limits on connections (total and per IP), an idle
 * timeout and a total deadline for a request's headers, URL and query length, an optional
 * bearer token compared in constant time, GET/HEAD only, streamed bodies for large
 * responses. Everything a handler does not decide (405, 401, 414, JSON error bodies,
 * content types) is done here, so route handlers stay thin: they fill a struct sl_http_resp
 * with a JSON value or a static body.
 */
#ifndef SL_HTTP_H
#define SL_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sl_http;
struct sl_http_req;

struct sl_http_resp {
	int status; /* 0 = 200 */
	json_t *json; /* reference taken over by the server (rendered, then released) */
	const void *body; /* or a body: static, or malloc'ed with free_body */
	size_t len;
	bool free_body;
	const char *content_type; /* for body; json is always application/json */
	const char *cache_control; /* NULL = "no-store" */
	/*
	 * Or a streamed body (chunked): read fills buf with up to max bytes and returns how
	 * many, 0 at the end, negative on error (the connection is then closed mid-body);
	 * free_stream releases stream once the response is done or abandoned. Both run on
	 * the server thread that owns the connection.
	 */
	void *stream;
	ssize_t (*read)(void *stream, char *buf, size_t max);
	void (*free_stream)(void *stream);
};

typedef void (*sl_http_handler_fn)(void *ctx, const struct sl_http_req *req,
				   struct sl_http_resp *resp);

struct sl_http_opts {
	const char *listen; /* "127.0.0.1:9347", "[::1]:9347", "0.0.0.0:9347" */
	const char *token; /* NULL or "": no authentication */
	unsigned int threads; /* pool size, 1..16 */
	unsigned int max_connections;
	unsigned int per_ip_connections;
	unsigned int timeout_s; /* idle connection timeout */
	unsigned int header_timeout_ms; /* accept (or the previous response) to complete
					 * headers; later the connection is shut down. 0: none */
	size_t max_url; /* whole request target, query included; longer is 414 */
	size_t max_query_args; /* more is 400 */
	sl_http_handler_fn handler;
	void *ctx;
	/* paths served without the token (the dashboard's static files, which hold no data:
	 * a browser cannot send a header when it loads a page); NULL: none */
	bool (*public_path)(void *ctx, const char *path);
};

/*
 * Parses "host:port" into an address; returns 0 and sets *ret_loopback, or -SL_EUSAGE with
 * a message. Accepts IPv4 and bracketed IPv6 literals only (no name lookups).
 */
int sl_http_parse_listen(const char *listen, void *ret_sockaddr, size_t size, bool *ret_loopback);

/* Starts serving. Returns 0 and a server to stop with sl_http_stop(), or an error. */
int sl_http_start(const struct sl_http_opts *opts, struct sl_http **ret);

/* Stops accepting, finishes the threads, frees (NULL is fine). */
void sl_http_stop(struct sl_http *h);

/* The request path (percent-decoded by libmicrohttpd, not normalised). */
const char *sl_http_path(const struct sl_http_req *req);
/* A query argument's value, NULL if absent ("" when given without '='). */
const char *sl_http_query(const struct sl_http_req *req, const char *name);
/* True when every query argument's name is in allowed (NULL-terminated). */
bool sl_http_query_only(const struct sl_http_req *req, const char *const *allowed,
			const char **ret_bad);

/* Fills resp with a JSON error body {"error":{"status","message"}}. */
void sl_http_error(struct sl_http_resp *resp, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct sl_http_stats {
	uint64_t requests;
	uint64_t status_2xx, status_4xx, status_5xx;
	uint64_t unauthorized;
	uint64_t header_timeouts; /* connections shut down for slow headers */
};

void sl_http_get_stats(struct sl_http *h, struct sl_http_stats *ret);

/* Constant-time comparison of a presented secret with the expected one. */
bool sl_http_token_equal(const char *given, size_t given_len, const char *expected);

#endif
