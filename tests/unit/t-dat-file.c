// SPDX-License-Identifier: GPL-2.0-only
/*
 * Our trace.dat container reader (lib/import/dat-file.c) on the guest16 fixtures: what it finds
 * in version 6, zstd version 7 and instance files (formats, options, buffers, CPU data),
 * that its pages hold the records libtracecmd counts, and that no cut or damaged copy of
 * a file makes it read outside the file (every truncation point of the headers and the
 * first data, and every byte of the headers flipped; the sanitizer build checks the
 * reads): each gives 0, "unsupported" or an error with a message. Also the inflate budget,
 * the reader's and the fuzz harness's (its seed beyond it, tests/fuzz/corpus-dat).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat-file.h"
#include "error.h"
#include "../fuzz/fuzz-dat.h"
#include "rb-page.h"
#include "tap.h"

struct blob {
	uint8_t *data;
	size_t len;
};

/* dir/name under SL_SRC */
static struct blob load_from(const char *dir, const char *name)
{
	const char *src = getenv("SL_SRC");
	struct blob b = { 0 };
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s/%s", src ? src : ".", dir, name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	b.data = malloc(n);
	b.len = fread(b.data, 1, n, f);
	fclose(f);
	return b;
}

static struct blob load(const char *name)
{
	return load_from("tests/fixtures", name);
}

/* Records in every page of every CPU of every buffer; -1 on a page error. */
static long long count_records(const struct sl_dat_file *f, long long *ret_pages)
{
	long long n = 0, pages = 0;

	for (int i = 0; i < f->nr_buffers; i++) {
		for (uint32_t c = 0; c < f->buffers[i].nr_cpus; c++) {
			struct sl_dat_pages it;
			const uint8_t *page;
			uint32_t len;
			int r = sl_dat_pages_init(&it, f, &f->buffers[i], c);

			while (r >= 0 && (r = sl_dat_pages_next(&it, &page, &len)) > 0) {
				struct sl_rb_page pg;
				uint64_t ts;
				int size;

				pages++;
				if (sl_rb_page_load(&pg, page, len) < 0)
					continue;
				while (sl_rb_page_next(&pg, &ts, &size))
					n++;
			}
			sl_dat_pages_free(&it);
			if (r < 0)
				return -1;
		}
	}
	if (ret_pages)
		*ret_pages = pages;
	return n;
}

/* Parses b cut to len bytes (a copy, so that the sanitizer sees reads past len). */
static int parse_cut(const struct blob *b, size_t len, bool walk)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct sl_dat_file f;
	int r;

	memcpy(copy, b->data, len);
	r = sl_dat_file_parse(&f, copy, len);
	if (r < 0 && !sl_errmsg(r)[0])
		r = -12345; /* an error without a message */
	if (r == 0 && walk)
		count_records(&f, NULL);
	sl_dat_file_free(&f);
	free(copy);
	return r;
}

static void check_file(const char *name, unsigned int version, int instances, int formats,
		       long long records)
{
	struct blob b = load(name);
	struct sl_dat_file f;
	long long pages = 0, n;
	int r, named = 0;

	r = sl_dat_file_parse(&f, b.data, b.len);
	is_int(r, 0, "%s: parsed (%s)", name, r < 0 ? sl_errmsg(r) : f.unsupported);
	is_int(f.version, version, "%s: file version", name);
	is_int(f.page_size, 4096, "%s: page size", name);
	is_int(f.nr_cpus, 16, "%s: 16 CPUs", name);
	is_int(f.nr_sched_formats, formats, "%s: sched formats", name);
	ok(f.header_page.data && memmem(f.header_page.data, f.header_page.len, "commit", 6),
	   "%s: header_page", name);
	is_str(f.uname, "Linux (none) 6.1.0-50-cloud-amd64 x86_64", "%s: uname", name);
	is_str(f.trace_clock, "mono", "%s: the selected trace clock", name);
	for (int i = 0; i < f.nr_buffers; i++)
		named += f.buffers[i].name[0] != '\0';
	is_int(named, instances, "%s: buffer instances", name);
	n = count_records(&f, &pages);
	is_int(n, records, "%s: records in its pages (trace-cmd report's count)", name);
	ok(pages > 16, "%s: %lld pages", name, pages);
	sl_dat_file_free(&f);
	free(b.data);
}

/* Every cut of the first len bytes, then every 97th up to the end. */
static void check_cuts(const char *name, size_t head)
{
	struct blob b = load(name);
	size_t bad = 0, errors = 0, fine = 0;

	for (size_t len = 0; len < b.len; len += len < head ? 1 : 97) {
		int r = parse_cut(&b, len, true);

		bad += r == -12345;
		errors += r < 0;
		fine += r == 0;
	}
	is_int(bad, 0, "%s: every cut gives a result or an error with a message", name);
	ok(errors > head / 2, "%s: cuts in the headers are errors (%zu)", name, errors);
	diag("%s: %zu cuts parsed (data cut inside a CPU's pages is found on reading)", name, fine);
	free(b.data);
}

/* Every header byte replaced by a few values: no read outside the copy. */
static void check_flips(const char *name, size_t head)
{
	struct blob b = load(name);
	static const uint8_t vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
	size_t bad = 0, runs = 0;

	if (head > b.len)
		head = b.len;
	for (size_t i = 0; i < head; i++) {
		uint8_t keep = b.data[i];

		for (size_t v = 0; v < sizeof(vals); v++) {
			int r;

			b.data[i] = vals[v] == keep ? keep ^ 0x55 : vals[v];
			r = parse_cut(&b, b.len, i % 7 == 0);
			bad += r == -12345;
			runs++;
		}
		b.data[i] = keep;
	}
	is_int(bad, 0, "%s: %zu damaged copies: each a result or an error with a message", name,
	       runs);
	free(b.data);
}

static void check_not_dat(void)
{
	struct blob b = { (uint8_t *)"hello world, not a trace\n", 25 };
	struct sl_dat_file f;
	int r = sl_dat_file_parse(&f, b.data, b.len);

	is_int(r, -SL_EFORMAT, "text: not a trace.dat");
	ok(strstr(sl_errmsg(r), "magic") != NULL, "text: the message says why (%s)", sl_errmsg(r));
	sl_dat_file_free(&f);
}

/*
 * The inflate budget is one total per file: sections that each fit but together do not
 * are refused, and so are page walks (one per CPU, alive at once as an import keeps them)
 * whose chunk buffers together exceed what the sections left. Before the budget, each
 * section or chunk was only capped at 256 MiB on its own.
 */
static void check_budget(const char *name)
{
	struct blob b = load(name);
	struct sl_dat_pages it[64];
	struct sl_dat_file f;
	uint64_t sections, walks = 0;
	const struct sl_dat_buffer *buf;
	uint32_t n;
	int r, err = 0;

	r = sl_dat_file_parse(&f, b.data, b.len);
	is_int(r, 0, "%s: parses within the default budget", name);
	sections = *f.inflated;
	ok(sections > 4096, "%s: its sections inflate to %llu bytes", name,
	   (unsigned long long)sections);
	sl_dat_file_free(&f);

	/* one byte short for the sections: refused while parsing, with the budget named */
	r = sl_dat_file_parse_budget(&f, b.data, b.len, sections - 1);
	is_int(r, -E2BIG, "%s: sections beyond a budget of %llu bytes: -E2BIG", name,
	       (unsigned long long)sections - 1);
	ok(strstr(sl_errmsg(r), "beyond") && strstr(sl_errmsg(r), "in all"),
	   "%s: the message says so (%s)", name, sl_errmsg(r));
	sl_dat_file_free(&f);

	/* enough for the sections, not for every CPU's chunk buffer at once */
	r = sl_dat_file_parse_budget(&f, b.data, b.len, sections + 64 * 1024);
	is_int(r, 0, "%s: sections within budget", name);
	buf = &f.buffers[f.nr_buffers - 1];
	n = buf->nr_cpus < 64 ? buf->nr_cpus : 64;
	ok(buf->compressed && n > 2, "%s: a compressed buffer of %u CPUs", name, n);
	for (uint32_t c = 0; c < n; c++) {
		const uint8_t *page;
		uint32_t len;

		r = sl_dat_pages_init(&it[c], &f, buf, c);
		if (r >= 0)
			r = sl_dat_pages_next(&it[c], &page, &len);
		if (r < 0 && !err)
			err = r;
		walks += it[c].chunk_cap;
	}
	is_int(err, -E2BIG, "%s: %u walks' chunks beyond the rest of the budget: -E2BIG", name, n);
	for (uint32_t c = 0; c < n; c++)
		sl_dat_pages_free(&it[c]);
	is_int((int64_t)*f.inflated, (int64_t)sections, "%s: freed walks give their bytes back",
	       name);
	diag("%s: sections %llu bytes, walks held %llu bytes when refused", name,
	     (unsigned long long)sections, (unsigned long long)walks);
	sl_dat_file_free(&f);
	free(b.data);
}

/*
 * The fuzz harness's budget (fuzz-dat.h): its seed corpus-dat/budget-many-sections.dat
 * (made by tests/fuzz/mk-budget-dat) is refused for the budget alone, not an earlier
 * error, and the fixture seeds parse and walk within it, so `make fuzz` starts from both
 * sides of the refusal.
 */
static void check_fuzz_budget(void)
{
	static const char *const seeds[] = { "guest16-import-v7z.dat", "guest16-import-inst.dat" };
	const char *name = "budget-many-sections.dat";
	struct blob b = load_from("tests/fuzz/corpus-dat", name);
	struct sl_dat_file f;
	int r;

	ok(b.len < 64 * 1024, "%s: a small file (%zu bytes)", name, b.len);
	r = sl_dat_file_parse_budget(&f, b.data, b.len, FUZZ_DAT_INFLATE_BUDGET);
	is_int(r, -E2BIG, "%s: beyond the fuzz budget: -E2BIG", name);
	ok(r < 0 && strstr(sl_errmsg(r), "would inflate") &&
		   strstr(sl_errmsg(r), "beyond 1 MiB in all (corrupt or hostile file)"),
	   "%s: the message says so (%s)", name, r < 0 ? sl_errmsg(r) : "");
	sl_dat_file_free(&f);

	/* with the default budget the same file parses: nothing else in it is wrong */
	r = sl_dat_file_parse(&f, b.data, b.len);
	is_int(r, 0, "%s: parses within the default budget (%s)", name,
	       r < 0 ? sl_errmsg(r) : f.unsupported);
	ok(*f.inflated > FUZZ_DAT_INFLATE_BUDGET && *f.inflated < 64ull << 20,
	   "%s: its sections inflate to %llu bytes", name, (unsigned long long)*f.inflated);
	is_int(f.nr_sched_formats, 7, "%s: the fixture's sched formats", name);
	sl_dat_file_free(&f);
	free(b.data);

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct blob s = load(seeds[i]);
		long long n = -1;

		r = sl_dat_file_parse_budget(&f, s.data, s.len, FUZZ_DAT_INFLATE_BUDGET);
		if (r == 0)
			n = count_records(&f, NULL);
		ok(r == 0 && n > 0, "%s: parses and walks within the fuzz budget (%lld records)",
		   seeds[i], n);
		sl_dat_file_free(&f);
		free(s.data);
	}
}

int main(void)
{
	/* record counts: `trace-cmd report -N FILE | grep -c ': sched_'` on each fixture */
	check_file("guest16-import-v6.dat", 6, 0, 7, 7879);
	check_file("guest16-import-v7z.dat", 7, 0, 7, 9322);
	check_file("guest16-import-inst.dat", 7, 1, 7, 8392);
	check_not_dat();
	check_budget("guest16-import-v7z.dat");
	check_fuzz_budget();
	check_cuts("guest16-import-v7z.dat", 12000);
	check_cuts("guest16-import-v6.dat", 29000);
	check_flips("guest16-import-v7z.dat", 7600);
	check_flips("guest16-import-inst.dat", 400);
	return done_testing();
}
