// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd's HTTP server on libmicrohttpd 0.9.75: internal polling threads with epoll,
 * limits, bearer token, GET/HEAD only, JSON rendering. The raw request target is seen by
 * the URI log callback before libmicrohttpd decodes it, so its length limit counts the
 * query string too; libmicrohttpd itself answers (with its own HTML 414) only targets that
 * do not fit the connection's memory pool, which is sized well above max_url.
 *
 * Slow clients: libmicrohttpd's timeout is an idle timer, so a client sending one header
 * byte every few seconds would hold its connection forever, and enough of them fill the
 * connection limit. Every connection is therefore on a list (NOTIFY_CONNECTION) with the
 * time its current request began (accept, or the end of the previous response); a reaper
 * thread shuts down (shutdown(2), libmicrohttpd still owns and closes the fd) every
 * connection whose headers are not complete header_timeout_ms after that. The list entry is
 * removed in NOTIFY_CLOSED, which libmicrohttpd calls before it closes the socket, under
 * the same lock the reaper holds, so the reaper never touches a closed or reused fd.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "error.h"
#include "http.h"

/* One accepted connection, for the header deadline. */
struct conn {
	struct conn *prev, *next;
	int fd;
	uint64_t since_ns; /* accept or the end of the previous response */
	bool in_request; /* headers complete, request or response under way */
	bool shut;
};

struct sl_http {
	struct MHD_Daemon *mhd;
	struct sl_http_opts opts;
	char *token;
	uint64_t requests, s2xx, s4xx, s5xx, unauthorized, header_timeouts; /* atomics */
	pthread_mutex_t lock; /* conns, stop */
	pthread_cond_t wake;
	struct conn conns; /* list head */
	pthread_t reaper;
	bool reaper_started, stop;
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
	if (resp->read && resp->free_stream)
		resp->free_stream(resp->stream);
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

struct stream {
	void *stream;
	ssize_t (*read)(void *stream, char *buf, size_t max);
	void (*free_stream)(void *stream);
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *st = cls;
	ssize_t n = st->read(st->stream, buf, max);

	return n > 0  ? n :
	       n == 0 ? MHD_CONTENT_READER_END_OF_STREAM :
			MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_free(void *cls)
{
	struct stream *st = cls;

	st->free_stream(st->stream);
	free(st);
}

static enum MHD_Result reply(struct sl_http *h, struct MHD_Connection *conn,
			     struct sl_http_resp *resp, bool auth_challenge)
{
	struct MHD_Response *r;
	const char *type = resp->content_type ? resp->content_type : "application/octet-stream";
	int status = resp->status ? resp->status : 200;
	enum MHD_Result ret;

	if (resp->read) {
		struct stream *st = malloc(sizeof(*st));

		r = NULL;
		if (st) {
			*st = (struct stream){ resp->stream, resp->read, resp->free_stream };
			r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024,
							      stream_read, st, stream_free);
		}
		if (!r) {
			/* libmicrohttpd frees st only once a response exists */
			free(st);
			resp->free_stream(resp->stream);
		}
		resp->read = NULL;
		type = resp->content_type ? resp->content_type : "application/json";
	} else if (resp->json) {
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
	size_t n;

	if (!h->token)
		return true;
	v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!v || strncasecmp(v, "Bearer ", 7))
		return false;
	v += 7;
	/* RFC 9110 lets optional whitespace surround a field value: spaces and tabs */
	while (*v == ' ' || *v == '\t')
		v++;
	n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return sl_http_token_equal(v, n, h->token);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Headers complete (in_request) or response done (the next request's deadline starts). */
static void mark_request(struct sl_http *h, struct MHD_Connection *conn, bool in_request)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	c->in_request = in_request;
	c->since_ns = now_ns();
	pthread_mutex_unlock(&h->lock);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	mark_request(cls, conn, false);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct sl_http *h = cls;
	struct conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		/* without an entry the connection only has the idle timeout */
		if (!ci || !(c = calloc(1, sizeof(*c))))
			return;
		c->fd = ci->connect_fd;
		c->since_ns = now_ns();
		pthread_mutex_lock(&h->lock);
		c->next = h->conns.next;
		c->prev = &h->conns;
		c->next->prev = c;
		h->conns.next = c;
		pthread_mutex_unlock(&h->lock);
		*socket_context = c;
	} else if (c) {
		pthread_mutex_lock(&h->lock);
		c->prev->next = c->next;
		c->next->prev = c->prev;
		pthread_mutex_unlock(&h->lock);
		free(c);
		*socket_context = NULL;
	}
}

static void *reaper(void *arg)
{
	struct sl_http *h = arg;
	uint64_t limit = (uint64_t)h->opts.header_timeout_ms * 1000000ull;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec ts;
		uint64_t now = now_ns();

		for (struct conn *c = h->conns.next; c != &h->conns; c = c->next) {
			if (c->in_request || c->shut || now - c->since_ns < limit)
				continue;
			/* libmicrohttpd sees the end of the stream and closes the connection */
			shutdown(c->fd, SHUT_RDWR);
			c->shut = true;
			__atomic_add_fetch(&h->header_timeouts, 1, __ATOMIC_RELAXED);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		/* a tenth of the deadline, at most 250 ms: deadlines hold to within that */
		ts.tv_nsec += (long)(limit / 10 < 250000000ull ? limit / 10 : 250000000ull);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->wake, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
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
	mark_request(h, conn, true);
	if (!authorized(h, conn) &&
	    !(h->opts.public_path && h->opts.public_path(h->opts.ctx, url))) {
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
	if (!resp.json && !resp.body && !resp.read && !resp.status)
		sl_http_error(&resp, 500, "internal error: the handler gave no response");
	return reply(h, conn, &resp, false);
}

static void free_http(struct sl_http *h);

/*
 * Room in the fd limit for max_connections sockets and 256 other fds (database, trace
 * buffers, logs): the soft limit is raised towards the hard one when needed (systemd's
 * default soft limit is 1024), else the connection limit is lowered to what fits, so
 * libmicrohttpd's limit is reached before accept() fails with EMFILE.
 */
static unsigned int fit_fd_limit(unsigned int max_connections)
{
	rlim_t want = (rlim_t)max_connections + 256;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return max_connections;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want) {
		rl.rlim_cur = want;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return max_connections;
	} else {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > 256 + 16 ? (unsigned int)(rl.rlim_cur - 256) : 16;
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
	h->conns.next = h->conns.prev = &h->conns;
	pthread_mutex_init(&h->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&h->wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (opts->token && *opts->token && !(h->token = strdup(opts->token))) {
		free(h);
		return -ENOMEM;
	}
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->mhd = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)opts->threads,
		MHD_OPTION_CONNECTION_LIMIT, fit_fd_limit(opts->max_connections),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)opts->per_ip_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)opts->timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_URI_LOG_CALLBACK, uri_logger, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, h, MHD_OPTION_END);
	if (!h->mhd) {
		err = errno ? -errno : -EADDRINUSE;
		free_http(h);
		return sl_error(err, "cannot listen on '%s': %s", opts->listen, strerror(-err));
	}
	if (opts->header_timeout_ms) {
		if ((err = -pthread_create(&h->reaper, NULL, reaper, h))) {
			sl_http_stop(h);
			return sl_error(err, "cannot start the HTTP reaper thread: %s",
					strerror(-err));
		}
		h->reaper_started = true;
	}
	*ret = h;
	return 0;
}

static void free_http(struct sl_http *h)
{
	if (h->token) {
		explicit_bzero(h->token, strlen(h->token));
		free(h->token);
	}
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

void sl_http_stop(struct sl_http *h)
{
	if (!h)
		return;
	if (h->reaper_started) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->reaper, NULL);
	}
	/* closes every connection: NOTIFY_CLOSED empties the list */
	MHD_stop_daemon(h->mhd);
	free_http(h);
}

void sl_http_get_stats(struct sl_http *h, struct sl_http_stats *ret)
{
	ret->requests = __atomic_load_n(&h->requests, __ATOMIC_RELAXED);
	ret->status_2xx = __atomic_load_n(&h->s2xx, __ATOMIC_RELAXED);
	ret->status_4xx = __atomic_load_n(&h->s4xx, __ATOMIC_RELAXED);
	ret->status_5xx = __atomic_load_n(&h->s5xx, __ATOMIC_RELAXED);
	ret->unauthorized = __atomic_load_n(&h->unauthorized, __ATOMIC_RELAXED);
	ret->header_timeouts = __atomic_load_n(&h->header_timeouts, __ATOMIC_RELAXED);
}
