/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A free TCP port on 127.0.0.1 for a benchmark's daemon (the kernel picks it; the socket
 * is closed again, so another process could take it first, which a benchmark tolerates).
 * Header-only, like pgload.h: each benchmark is one program.
 */
#ifndef SL_BENCH_LOOPBACK_H
#define SL_BENCH_LOOPBACK_H

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

/* The port, or -1. */
static inline int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), p = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		p = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return p;
}

#endif
