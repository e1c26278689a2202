// SPDX-License-Identifier: GPL-2.0-only
/*
 * Line reader of the text import (text-lines.h says why a buffer and not an mmap). The
 * buffer holds [pos, end) unread, followed by a NUL, so that strchrnul() finds a line's end
 * and any NUL byte in it in one pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "text-lines.h"

/* 256 KiB: measured against 64 KiB (as fast once warm) and 1-4 MiB (slower: out of cache) */
#define CHUNK (256u << 10)

struct sl_text_lines {
	int fd;
	bool eof;
	char *buf; /* cap + 1 bytes */
	size_t cap, pos, end;
	uint64_t buf_off; /* file offset of buf[0] */
	uint64_t line_off; /* file offset of the line last returned */
	uint64_t lineno;
	char path[];
};

int sl_text_lines_open(const char *path, struct sl_text_lines **ret, uint64_t *ret_size)
{
	struct sl_text_lines *r;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));

		if (fd >= 0)
			close(fd);
		return err;
	}
	r = calloc(1, sizeof(*r) + strlen(path) + 1);
	if (r)
		r->buf = malloc(CHUNK + 1);
	if (!r || !r->buf) {
		free(r);
		close(fd);
		return sl_error(-ENOMEM, "'%s': out of memory", path);
	}
	strcpy(r->path, path);
	r->fd = fd;
	r->cap = CHUNK;
	r->buf[0] = '\0';
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	*ret = r;
	*ret_size = st.st_size;
	return 0;
}

void sl_text_lines_close(struct sl_text_lines *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->buf);
	free(r);
}

/* Moves the unread bytes to the start, grows the buffer if they fill it, reads more. */
static int refill(struct sl_text_lines *r)
{
	ssize_t n;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->buf_off += r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	if (r->end == r->cap) {
		char *b;

		if (r->cap >= SL_TEXT_LINE_MAX)
			return sl_error(-SL_EPARSE,
					"'%s': line %llu is longer than %u MiB: not a text trace",
					r->path, (unsigned long long)r->lineno + 1,
					SL_TEXT_LINE_MAX >> 20);
		b = realloc(r->buf, 2 * r->cap + 1);
		if (!b)
			return sl_error(-ENOMEM, "'%s': out of memory", r->path);
		r->buf = b;
		r->cap *= 2;
	}
	do
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return sl_error(-errno, "cannot read '%s': %s", r->path, strerror(errno));
	r->eof = n == 0;
	r->end += n;
	r->buf[r->end] = '\0';
	return 0;
}

int sl_text_lines_next(struct sl_text_lines *r, const char **line, size_t *len, bool *nul_free)
{
	for (;;) {
		const char *s = r->buf + r->pos, *e = r->buf + r->end, *nl = NULL;
		int err;

		if (s < e) {
			nl = strchrnul(s, '\n');
			*nul_free = nl == e || *nl == '\n';
			if (!*nul_free) {
				nl = memchr(nl, '\n', e - nl);
				if (!nl)
					nl = e;
			}
			if (nl == e && !r->eof)
				nl = NULL; /* the line goes on past what was read */
		} else if (r->eof) {
			return 0;
		}
		if (nl) {
			*line = s;
			*len = nl - s;
			r->line_off = r->buf_off + r->pos;
			r->pos = nl < e ? (size_t)(nl + 1 - r->buf) : r->end;
			r->lineno++;
			return 1;
		}
		err = refill(r);
		if (err < 0) {
			r->line_off = r->buf_off + r->pos;
			return err;
		}
	}
}

uint64_t sl_text_lines_offset(const struct sl_text_lines *r)
{
	return r->line_off;
}
