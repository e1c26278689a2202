// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the HTTP layer (lib/http.h): listen address parsing (IPv4, bracketed IPv6,
 * loopback or not, malformed), the constant-time token compare, and a server on a loopback
 * port driven by a tiny client: bearer token (missing, wrong, right), GET/HEAD only (405
 * with Allow), the request-target limit (414), the query-argument limit (400), JSON error
 * bodies and the counters.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static void handler(void *ctx, const struct sl_http_req *req, struct sl_http_resp *resp)
{
	const char *path = sl_http_path(req);

	if (!strcmp(path, "/ok")) {
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

int main(void)
{
	test_listen();
	test_token();
	test_server();
	return done_testing();
}
