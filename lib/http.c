// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd's HTTP server on libmicrohttpd 0.9.75: internal polling threads with epoll,
 * limits, bearer token, GET/HEAD only, JSON rendering. The raw request target is seen by
 * the URI log callback before libmicrohttpd decodes it, so its length limit counts the
 * query string too; libmicrohttpd itself answers (with its own HTML 414) only targets that
 * do not fit the connection's memory pool, which is sized well above max_url.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "error.h"
#include "http.h"

struct sl_http {
	struct MHD_Daemon *mhd;
	struct sl_http_opts opts;
	char *token;
	uint64_t requests, s2xx, s4xx, s5xx, unauthorized; /* atomics */
};

struct sl_http_req {
	struct MHD_Connection *conn;
	const char *path;
};

int sl_http_parse_listen(const char *listen, void *ret_sa, size_t size, bool *ret_loopback)
{
	char host[64];
	const char *colon, *h = listen;
	size_t hl;
	char *end;
	unsigned long port;

	if (*listen == '[') {
		const char *rb = strchr(listen, ']');

		if (!rb || rb[1] != ':')
			goto bad;
		h = listen + 1;
		hl = rb - h;
		colon = rb + 1;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			goto bad;
		hl = colon - listen;
	}
	if (hl == 0 || hl >= sizeof(host))
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || port == 0 || port > 65535)
		goto bad;
	if (*listen == '[') {
		struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

		if (size < sizeof(sa6) || inet_pton(AF_INET6, host, &sa6.sin6_addr) != 1)
			goto bad;
		memcpy(ret_sa, &sa6, sizeof(sa6));
		*ret_loopback = IN6_IS_ADDR_LOOPBACK(&sa6.sin6_addr);
	} else {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

		if (size < sizeof(sa) || inet_pton(AF_INET, host, &sa.sin_addr) != 1)
			goto bad;
		memcpy(ret_sa, &sa, sizeof(sa));
		*ret_loopback = (ntohl(sa.sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
bad:
	return sl_error(-SL_EUSAGE,
			"bad listen address '%s' (IPv4:PORT or [IPv6]:PORT, e.g. 127.0.0.1:9347)",
			listen);
}

bool sl_http_token_equal(const char *given, size_t given_len, const char *expected)
{
	size_t n = strlen(expected);
	unsigned char diff = given_len != n;

	/* always walk the expected length: timing depends on neither content */
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)expected[i] ^ (unsigned char)(i < given_len ? given[i] : 0);
	return diff == 0;
}

void sl_http_error(struct sl_http_resp *resp, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_decref(resp->json);
	if (resp->free_body)
		free((void *)resp->body);
	memset(resp, 0, sizeof(*resp));
	resp->status = status;
	resp->json = json_pack("{s:{s:i, s:s}}", "error", "status", status, "message", msg);
}

const char *sl_http_path(const struct sl_http_req *req)
{
	return req->path;
}

struct lookup {
	const char *name;
	const char *value;
	bool found;
	const char *const *allowed;
	const char *bad;
	size_t count, bytes;
};

static enum MHD_Result find_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct lookup *l = cls;

	if (strcmp(key, l->name))
		return MHD_YES;
	l->found = true;
	l->value = value ? value : "";
	return MHD_NO;
}

const char *sl_http_query(const struct sl_http_req *req, const char *name)
{
	struct lookup l = { .name = name };

	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, find_arg, &l);
	return l.found ? l.value : NULL;
}

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct lookup *l = cls;

	l->count++;
	if (l->allowed) {
		const char *const *a;

		for (a = l->allowed; *a && strcmp(*a, key); a++)
			;
		if (!*a && !l->bad)
			l->bad = key;
	}
	return MHD_YES;
}

bool sl_http_query_only(const struct sl_http_req *req, const char *const *allowed,
			const char **ret_bad)
{
	struct lookup l = { .allowed = allowed };

	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, check_arg, &l);
	if (ret_bad)
		*ret_bad = l.bad;
	return !l.bad;
}

static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *conn)
{
	/* the raw target's length travels in the per-request pointer: nothing to free */
	return (void *)(uintptr_t)(strlen(uri) + 1);
}

static enum MHD_Result reply(struct sl_http *h, struct MHD_Connection *conn,
			     struct sl_http_resp *resp, bool auth_challenge)
{
	struct MHD_Response *r;
	const char *type = resp->content_type ? resp->content_type : "application/octet-stream";
	int status = resp->status ? resp->status : 200;
	enum MHD_Result ret;

	if (resp->json) {
		char *text = json_dumps(resp->json, JSON_COMPACT);

		json_decref(resp->json);
		resp->json = NULL;
		if (!text)
			return MHD_NO;
		r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
		if (!r)
			free(text);
		type = "application/json";
	} else {
		r = MHD_create_response_from_buffer(resp->len, (void *)resp->body,
						    resp->free_body ? MHD_RESPMEM_MUST_FREE :
								      MHD_RESPMEM_PERSISTENT);
		if (!r && resp->free_body)
			free((void *)resp->body);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control",
				resp->cache_control ? resp->cache_control : "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status == 405)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	if (auth_challenge)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"schedlensd\"");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	__atomic_add_fetch(status >= 500 ? &h->s5xx :
			   status >= 400 ? &h->s4xx :
					   &h->s2xx,
			   1, __ATOMIC_RELAXED);
	return ret;
}

static bool authorized(struct sl_http *h, struct MHD_Connection *conn)
{
	const char *v;

	if (!h->token)
		return true;
	v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!v || strncasecmp(v, "Bearer ", 7))
		return false;
	v += 7;
	while (*v == ' ')
		v++;
	return sl_http_token_equal(v, strlen(v), h->token);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct sl_http *h = cls;
	struct sl_http_resp resp = { 0 };
	struct sl_http_req req = { .conn = conn, .path = url };
	size_t target_len = (uintptr_t)*con_cls ? (uintptr_t)*con_cls - 1 : strlen(url);
	struct lookup l = { 0 };

	__atomic_add_fetch(&h->requests, 1, __ATOMIC_RELAXED);
	if (!authorized(h, conn)) {
		__atomic_add_fetch(&h->unauthorized, 1, __ATOMIC_RELAXED);
		sl_http_error(&resp, 401, "a valid 'Authorization: Bearer <token>' is required");
		return reply(h, conn, &resp, true);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		sl_http_error(&resp, 405, "method not allowed: the API is read-only (GET, HEAD)");
		return reply(h, conn, &resp, false);
	}
	if (target_len > h->opts.max_url) {
		sl_http_error(&resp, 414, "request target of %zu bytes is longer than %zu",
			      target_len, h->opts.max_url);
		return reply(h, conn, &resp, false);
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, check_arg, &l);
	if (l.count > h->opts.max_query_args) {
		sl_http_error(&resp, 400, "too many query arguments (at most %zu)",
			      h->opts.max_query_args);
		return reply(h, conn, &resp, false);
	}
	h->opts.handler(h->opts.ctx, &req, &resp);
	if (!resp.json && !resp.body && !resp.status)
		sl_http_error(&resp, 500, "internal error: the handler gave no response");
	return reply(h, conn, &resp, false);
}

int sl_http_start(const struct sl_http_opts *opts, struct sl_http **ret)
{
	struct sockaddr_storage sa;
	bool loopback;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	size_t mem = opts->max_url * 2 + 128 * 1024;
	struct sl_http *h;
	int err;

	if ((err = sl_http_parse_listen(opts->listen, &sa, sizeof(sa), &loopback)))
		return err;
	if (!loopback && (!opts->token || !*opts->token))
		return sl_error(-SL_EUSAGE,
				"listening on '%s' (not loopback) requires a token (--token-file)",
				opts->listen);
	if (!opts->handler || opts->threads < 1 || opts->threads > 16)
		return sl_error(-EINVAL, "bad HTTP server options");
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->opts = *opts;
	if (opts->token && *opts->token && !(h->token = strdup(opts->token))) {
		free(h);
		return -ENOMEM;
	}
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
				  (struct sockaddr *)&sa, MHD_OPTION_THREAD_POOL_SIZE,
				  (unsigned int)opts->threads, MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)opts->max_connections,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)opts->per_ip_connections,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)opts->timeout_s,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem,
				  MHD_OPTION_URI_LOG_CALLBACK, uri_logger, h, MHD_OPTION_END);
	if (!h->mhd) {
		err = errno ? -errno : -EADDRINUSE;
		free(h->token);
		free(h);
		return sl_error(err, "cannot listen on '%s': %s", opts->listen, strerror(-err));
	}
	*ret = h;
	return 0;
}

void sl_http_stop(struct sl_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	if (h->token) {
		explicit_bzero(h->token, strlen(h->token));
		free(h->token);
	}
	free(h);
}

void sl_http_get_stats(struct sl_http *h, struct sl_http_stats *ret)
{
	ret->requests = __atomic_load_n(&h->requests, __ATOMIC_RELAXED);
	ret->status_2xx = __atomic_load_n(&h->s2xx, __ATOMIC_RELAXED);
	ret->status_4xx = __atomic_load_n(&h->s4xx, __ATOMIC_RELAXED);
	ret->status_5xx = __atomic_load_n(&h->s5xx, __ATOMIC_RELAXED);
	ret->unauthorized = __atomic_load_n(&h->unauthorized, __ATOMIC_RELAXED);
}
