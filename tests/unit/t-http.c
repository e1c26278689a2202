// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the HTTP layer (lib/serve/http.h): listen address parsing (IPv4, bracketed IPv6,
 * loopback or not, malformed), the constant-time token compare, and a server on a loopback
 * port driven by a tiny client: bearer token (missing, wrong, right), GET/HEAD only (405
 * with Allow), the request-target limit (414), the query-argument limit (400), JSON error
 * bodies and the counters; blanks after the token, paths served without it, a streamed
 * (chunked) body and its free callback, and the total deadline for a request's headers
 * against a client that sends a header byte every 100 ms.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "http.h"
#include "tap.h"

#define TOKEN "0123456789abcdef-secret"

static void test_listen(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	bool lo = false;
	static const char *const bad[] = {
		"",	  "127.0.0.1",	  "127.0.0.1:",	   "127.0.0.1:0",  "127.0.0.1:65536",
		":9347",  "localhost:80", "127.0.0.1:80x", "::1:9347",	   "[::1]9347",
		"[::1]:", "[zz]:80",	  "1.2.3.4.5:80",  "127.0.0.1:-1", "[]:80",
	};

	is_int(sl_http_parse_listen("127.0.0.1:9347", &ss, sizeof(ss), &lo), 0, "IPv4 parses");
	ok(lo && sin->sin_family == AF_INET && ntohs(sin->sin_port) == 9347, "127.0.0.1 loopback");
	is_int(sl_http_parse_listen("127.1.2.3:1", &ss, sizeof(ss), &lo), 0, "127/8 parses");
	ok(lo, "all of 127/8 is loopback");
	is_int(sl_http_parse_listen("0.0.0.0:65535", &ss, sizeof(ss), &lo), 0, "any address");
	ok(!lo, "0.0.0.0 is not loopback");
	is_int(sl_http_parse_listen("[::1]:8080", &ss, sizeof(ss), &lo), 0, "IPv6 parses");
	ok(lo && sin6->sin6_family == AF_INET6 && ntohs(sin6->sin6_port) == 8080, "::1 loopback");
	is_int(sl_http_parse_listen("[::]:8080", &ss, sizeof(ss), &lo), 0, "IPv6 any");
	ok(!lo, ":: is not loopback");
	ok(sl_http_parse_listen("127.0.0.1:80", &ss, sizeof(struct sockaddr_in) - 1, &lo) < 0,
	   "a too small address buffer is refused");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = sl_http_parse_listen(bad[i], &ss, sizeof(ss), &lo);

		ok(err < 0 && strstr(sl_errmsg(err), "bad listen address"), "'%s' refused", bad[i]);
	}
}

static void test_token(void)
{
	ok(sl_http_token_equal(TOKEN, strlen(TOKEN), TOKEN), "same token");
	ok(!sl_http_token_equal("0123456789abcdef-secreT", 23, TOKEN), "last byte differs");
	ok(!sl_http_token_equal("X123456789abcdef-secret", 23, TOKEN), "first byte differs");
	ok(!sl_http_token_equal(TOKEN, strlen(TOKEN) - 1, TOKEN), "prefix");
	ok(!sl_http_token_equal(TOKEN "x", strlen(TOKEN) + 1, TOKEN), "longer");
	ok(!sl_http_token_equal("", 0, TOKEN), "empty");
	{
		/* an embedded NUL must not end the comparison early */
		char z[] = TOKEN;

		z[5] = '\0';
		ok(!sl_http_token_equal(z, sizeof(z) - 1, TOKEN), "embedded NUL");
	}
}

#define STREAM_PIECES 20000 /* of 10 bytes: 200 KB, many 64 KB reads */

struct pieces {
	int left;
	int *freed;
};

static ssize_t pieces_read(void *stream, char *buf, size_t max)
{
	struct pieces *p = stream;
	size_t n = 0;

	/* whole pieces only, as a row-by-row producer hands them out */
	while (p->left && max - n >= 10) {
		memcpy(buf + n, "0123456789", 10);
		n += 10;
		p->left--;
	}
	return (ssize_t)n;
}

static void pieces_free(void *stream)
{
	struct pieces *p = stream;

	(*p->freed)++;
	free(p);
}

static int streams_freed;

static bool is_public(void *ctx, const char *path)
{
	return !strcmp(path, "/public");
}

static void handler(void *ctx, const struct sl_http_req *req, struct sl_http_resp *resp)
{
	const char *path = sl_http_path(req);

	if (!strcmp(path, "/stream")) {
		struct pieces *p = malloc(sizeof(*p));

		if (!p)
			return;
		*p = (struct pieces){ STREAM_PIECES, &streams_freed };
		resp->stream = p;
		resp->read = pieces_read;
		resp->free_stream = pieces_free;
		resp->content_type = "text/plain";
	} else if (!strcmp(path, "/public")) {
		resp->body = "public";
		resp->len = 6;
		resp->content_type = "text/plain";
	} else if (!strcmp(path, "/ok")) {
		resp->json = json_pack("{s:s}", "hello", "world");
	} else if (!strcmp(path, "/empty")) {
		/* no response at all: the server answers 500 */
	} else {
		sl_http_error(resp, 404, "no such path '%s'", path);
	}
}

/* One request over a fresh connection; returns the status, body in buf. */
static int request(int port, const char *req, char *buf, size_t size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), status = -1;
	size_t len = 0;
	ssize_t r;

	buf[0] = '\0';
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (len < size - 1 && (r = read(fd, buf + len, size - 1 - len)) > 0)
		len += r;
	close(fd);
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	return status;
}

static void test_server(void)
{
	struct sl_http_opts o = {
		.token = TOKEN,
		.threads = 2,
		.max_connections = 16,
		.per_ip_connections = 8,
		.timeout_s = 5,
		.max_url = 256,
		.max_query_args = 3,
		.handler = handler,
		.public_path = is_public,
	};
	struct sl_http *h = NULL;
	struct sl_http_stats st;
	char listen[32], buf[8192], req[2048], longq[400];
	const char *auth = "Authorization: Bearer " TOKEN "\r\n";
	int port = 0, err = -1;

	/* a free port in a range unlikely to be taken */
	for (int i = 0; i < 20 && err; i++) {
		port = 30000 + (getpid() * 7 + i * 131) % 20000;
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
		o.listen = listen;
		err = sl_http_start(&o, &h);
	}
	if (!ok(err == 0, "server listens on %s", listen))
		return;
	is_int(request(port, "GET /ok HTTP/1.0\r\n\r\n", buf, sizeof(buf)), 401, "no token: 401");
	ok(strstr(buf, "WWW-Authenticate: Bearer"), "401 carries the Bearer challenge");
	ok(strstr(buf, "\"error\"") && strstr(buf, "application/json"), "401 body is JSON");
	is_int(request(port, "GET /ok HTTP/1.0\r\nAuthorization: Bearer wrong\r\n\r\n", buf,
		       sizeof(buf)),
	       401, "wrong token: 401");
	is_int(request(port, "GET /ok HTTP/1.0\r\nAuthorization: Basic " TOKEN "\r\n\r\n", buf,
		       sizeof(buf)),
	       401, "other scheme: 401");
	snprintf(req, sizeof(req), "GET /ok HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 200, "right token: 200");
	ok(strstr(buf, "{\"hello\":\"world\"}"), "the handler's JSON");
	ok(strstr(buf, "Cache-Control: no-store") && strstr(buf, "X-Content-Type-Options: nosniff"),
	   "default headers");
	snprintf(req, sizeof(req), "HEAD /ok HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 200, "HEAD: 200");
	ok(!strstr(buf, "hello"), "HEAD: no body");
	snprintf(req, sizeof(req), "POST /ok HTTP/1.0\r\n%sContent-Length: 3\r\n\r\nx=1", auth);
	is_int(request(port, req, buf, sizeof(buf)), 405, "POST: 405");
	ok(strstr(buf, "Allow: GET, HEAD"), "405 says what is allowed");
	snprintf(req, sizeof(req), "DELETE /ok HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 405, "DELETE: 405");
	memset(longq, 'a', sizeof(longq) - 1);
	longq[sizeof(longq) - 1] = '\0';
	snprintf(req, sizeof(req), "GET /ok?q=%s HTTP/1.0\r\n%s\r\n", longq, auth);
	is_int(request(port, req, buf, sizeof(buf)), 414, "target over max_url: 414");
	ok(strstr(buf, "\"error\""), "414 body is JSON");
	snprintf(req, sizeof(req), "GET /ok?a=1&b=2&c=3 HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 200, "max_query_args arguments: 200");
	snprintf(req, sizeof(req), "GET /ok?a=1&b=2&c=3&d=4 HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 400, "one argument too many: 400");
	snprintf(req, sizeof(req), "GET /nope HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 404, "the handler's 404");
	ok(strstr(buf, "no such path '/nope'"), "its message");
	snprintf(req, sizeof(req), "GET /empty HTTP/1.0\r\n%s\r\n", auth);
	is_int(request(port, req, buf, sizeof(buf)), 500, "a handler that answers nothing: 500");
	sl_http_get_stats(h, &st);
	is_int(st.requests, 12, "requests counted");
	is_int(st.unauthorized, 3, "unauthorized counted");
	is_int(st.status_2xx, 3, "2xx counted");
	is_int(st.status_5xx, 1, "5xx counted");

	/* RFC 9110 optional whitespace around the value: spaces and tabs after the token */
	is_int(request(port, "GET /ok HTTP/1.0\r\nAuthorization: Bearer " TOKEN " \t \r\n\r\n", buf,
		       sizeof(buf)),
	       200, "token followed by spaces and a tab: 200");
	is_int(request(port, "GET /ok HTTP/1.0\r\nAuthorization: Bearer " TOKEN "\t\r\n\r\n", buf,
		       sizeof(buf)),
	       200, "token followed by a tab: 200");
	is_int(request(port, "GET /ok HTTP/1.0\r\nAuthorization: Bearer " TOKEN " x\r\n\r\n", buf,
		       sizeof(buf)),
	       401, "token followed by a blank and more: 401");
	is_int(request(port, "GET /public HTTP/1.0\r\n\r\n", buf, sizeof(buf)), 200,
	       "a public path without the token: 200");
	ok(strstr(buf, "\r\n\r\npublic"), "its body");
	{
		static char big[STREAM_PIECES * 10 + 4096];
		char *body;
		bool same = true;

		snprintf(req, sizeof(req), "GET /stream HTTP/1.0\r\n%s\r\n", auth);
		is_int(request(port, req, big, sizeof(big)), 200, "streamed body: 200");
		body = strstr(big, "\r\n\r\n");
		ok(body && strlen(body + 4) == STREAM_PIECES * 10, "all %d bytes arrive (%zu)",
		   STREAM_PIECES * 10, body ? strlen(body + 4) : 0);
		for (size_t i = 0; body && same && i < STREAM_PIECES * 10; i++)
			same = body[4 + i] == '0' + (char)(i % 10);
		ok(body && same, "in order");
		snprintf(req, sizeof(req),
			 "GET /stream HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n", auth);
		is_int(request(port, req, big, sizeof(big)), 200,
		       "streamed body over HTTP/1.1: 200");
		ok(strstr(big, "Transfer-Encoding: chunked"), "chunked");
		snprintf(req, sizeof(req), "HEAD /stream HTTP/1.0\r\n%s\r\n", auth);
		is_int(request(port, req, big, sizeof(big)), 200, "HEAD of a stream: 200");
		ok(!strstr(big, "0123456789"), "HEAD of a stream: no body");
		/* the free callback runs once the connection is cleaned up, soon after */
		for (int i = 0; i < 100 && streams_freed < 3; i++)
			usleep(10000);
		is_int(streams_freed, 3, "every stream freed");
	}
	sl_http_stop(h);
	sl_http_stop(NULL);

	o.listen = "0.0.0.0:1";
	o.token = NULL;
	err = sl_http_start(&o, &h);
	ok(err < 0 && strstr(sl_errmsg(err), "requires a token"),
	   "not loopback without a token is refused");
	o.listen = "127.0.0.1:1";
	o.threads = 0;
	ok(sl_http_start(&o, &h) < 0, "zero threads refused");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A client that never finishes its headers but is never idle either. */
static void test_header_deadline(void)
{
	struct sl_http_opts o = {
		.threads = 1,
		.max_connections = 16,
		.per_ip_connections = 8,
		.timeout_s = 30,
		.header_timeout_ms = 500,
		.max_url = 256,
		.max_query_args = 3,
		.handler = handler,
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sl_http *h = NULL;
	struct sl_http_stats st;
	char listen[32], buf[4096];
	int port = 0, err = -1, fd;
	double t0, closed_after = -1;

	for (int i = 0; i < 20 && err; i++) {
		port = 30000 + (getpid() * 11 + i * 137 + 7) % 20000;
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
		o.listen = listen;
		err = sl_http_start(&o, &h);
	}
	if (!ok(err == 0, "server with a 500 ms header deadline listens on %s", listen))
		return;
	sa.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ok(fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "slow client connects");
	t0 = now_s();
	if (write(fd, "GET /ok HTTP/1.1\r\nHost: x\r\n", 27) != 27)
		diag("cannot write the request line");
	{
		struct timeval tv = { 0, 100000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	/* a header byte every 100 ms, for up to 3 s: an idle timer would never fire */
	while (now_s() - t0 < 3) {
		ssize_t r;

		if (send(fd, "X", 1, MSG_NOSIGNAL) != 1) {
			closed_after = now_s() - t0;
			break;
		}
		r = read(fd, buf, sizeof(buf));
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			closed_after = now_s() - t0;
			break;
		}
	}
	close(fd);
	ok(closed_after >= 0.4 && closed_after < 1.5,
	   "the server closed the slow connection after %.2f s (deadline 0.5 s)", closed_after);
	is_int(request(port, "GET /ok HTTP/1.0\r\n\r\n", buf, sizeof(buf)), 200,
	       "a prompt client is served");
	sl_http_get_stats(h, &st);
	is_int(st.header_timeouts, 1, "one header timeout counted");
	sl_http_stop(h);
}

int main(void)
{
	test_listen();
	test_token();
	test_server();
	test_header_deadline();
	return done_testing();
}
