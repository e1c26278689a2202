// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of sched-fields: the prev_state encoding derived from sched_switch print
 * fmts of several kernel generations (6.18 from this machine, 4.14, 4.4, 3.10, 2.6.32),
 * and decoding of raw records built by hand against real format files, including
 * __data_loc comms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "error.h"
#include "fixture.h"
#include "sched-fields.h"
#include "tap.h"

static const char fmt_4_14[] =
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | "
	"0x0040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 "
	"| 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1), \"|\", { 0x0001, \"S\" }, "
	"{ 0x0002, \"D\" }, { 0x0004, \"T\" }, { 0x0008, \"t\" }, { 0x0010, \"X\" }, { 0x0020, "
	"\"Z\" }, { 0x0040, \"P\" }, { 0x0080, \"I\" }) : \"R\", REC->prev_state & ((((0x0000 | "
	"0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1)) ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio";

static const char fmt_4_4[] =
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), \"|\", { 1, \"S\"} "
	", { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, "
	"{ 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 2048 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio";

static const char fmt_3_10[] =
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state & (1024-1) ? __print_flags(REC->prev_state & (1024-1), \"|\", { 1, \"S\"} "
	", { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, "
	"{ 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }) : \"R\", REC->prev_state & 1024 ? \"+\" : "
	"\"\", REC->next_comm, REC->next_pid, REC->next_prio";

static const char fmt_2_6_32[] =
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state ? __print_flags(REC->prev_state, \"|\", { 1, \"S\"} , { 2, \"D\" }, "
	"{ 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"W\" }) "
	": \"R\", REC->next_comm, REC->next_pid, REC->next_prio";

/* A fixture of tests/fixtures/formats/ (SL_SRC is the repository root). */
static char *slurp(const char *name, size_t *ret_len)
{
	const char *src = getenv("SL_SRC");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/formats/%s", src ? src : ".", name);
	return fixture_slurp(path, ret_len);
}

static void check_decode(const struct sl_prev_state_map *m, uint64_t raw, char want, int preempt,
			 const char *what)
{
	char st;
	uint8_t pr;

	sl_prev_state_decode(m, raw, &st, &pr);
	ok(st == want && pr == preempt, "%s: raw %llu -> %c%s (got %c%s)", what,
	   (unsigned long long)raw, want, preempt ? "+" : "", st, pr ? "+" : "");
}

static void test_print_fmts(void)
{
	struct sl_prev_state_map m;
	char *cur = slurp("6.18-sched_switch.format", NULL);

	ok(cur != NULL, "fixture 6.18-sched_switch.format readable");
	if (cur) {
		is_int(sl_prev_state_parse(cur, &m), 0, "6.18 format parses");
		is_int(m.preempt_bit, 256, "6.18: TASK_REPORT_MAX is 256");
		is_int(m.nr_flags, 8, "6.18: 8 state letters");
		check_decode(&m, 0, 'R', 0, "6.18");
		check_decode(&m, 1, 'S', 0, "6.18");
		check_decode(&m, 2, 'D', 0, "6.18");
		check_decode(&m, 16, 'X', 0, "6.18");
		check_decode(&m, 32, 'Z', 0, "6.18");
		check_decode(&m, 128, 'I', 0, "6.18");
		check_decode(&m, 256, 'R', 1, "6.18");
		free(cur);
	}

	is_int(sl_prev_state_parse(fmt_4_14, &m), 0, "4.14 format parses");
	is_int(m.preempt_bit, 256, "4.14: TASK_REPORT_MAX is 256");
	check_decode(&m, 256, 'R', 1, "4.14");
	check_decode(&m, 0x80, 'I', 0, "4.14");

	is_int(sl_prev_state_parse(fmt_4_4, &m), 0, "4.4 format parses");
	is_int(m.preempt_bit, 2048, "4.4: TASK_STATE_MAX is 2048");
	is_int(m.nr_flags, 11, "4.4: 11 state letters");
	check_decode(&m, 2048, 'R', 1, "4.4");
	check_decode(&m, 2048 | 1, 'S', 1, "4.4");
	check_decode(&m, 16, 'Z', 0, "4.4");
	check_decode(&m, 256, 'W', 0, "4.4 (256 is a state here, not preemption)");

	is_int(sl_prev_state_parse(fmt_3_10, &m), 0, "3.10 format parses");
	is_int(m.preempt_bit, 1024, "3.10: TASK_STATE_MAX is 1024");
	check_decode(&m, 1024, 'R', 1, "3.10");

	is_int(sl_prev_state_parse(fmt_2_6_32, &m), 0, "2.6.32 format parses");
	is_int(m.preempt_bit, 0, "2.6.32: no preempt bit");
	check_decode(&m, 0, 'R', 0, "2.6.32");
	check_decode(&m, 1, 'S', 0, "2.6.32");

	ok(sl_prev_state_parse("print fmt: \"x\", REC->prev_state & (foo) ? \"+\" : \"\"", &m) < 0,
	   "an unevaluable mask is an error, not a guess");
	ok(sl_prev_state_parse("print fmt: \"x\", REC->prev_state & 3 ? \"+\" : \"\"", &m) < 0,
	   "a mask of two bits is rejected");
	ok(sl_prev_state_parse("print fmt: \"x\", REC->next_pid", &m) < 0,
	   "a format without prev_state is rejected");
}

static struct tep_handle *load_tep(void)
{
	static const char *const files[] = { "6.18-sched_switch.format",
					     "6.18-sched_migrate_task.format",
					     "6.18-sched_waking.format",
					     "6.18-sys_enter_futex.format" };
	struct tep_handle *tep = tep_alloc();

	for (size_t i = 0; i < 4; i++) {
		size_t n;
		char *buf = slurp(files[i], &n);

		if (!buf || tep_parse_event(tep, buf, n, i == 3 ? "syscalls" : "sched")) {
			free(buf);
			tep_free(tep);
			return NULL;
		}
		free(buf);
	}
	return tep;
}

static void put(uint8_t *rec, int off, const void *v, int n)
{
	memcpy(rec + off, v, n);
}

static void test_decode(void)
{
	struct sl_sched_fields sf = { 0 };
	struct tep_handle *tep = load_tep();
	char *fmt = slurp("6.18-sched_switch.format", NULL);
	struct sl_event ev;
	uint8_t rec[128] = { 0 };
	uint16_t type;
	int32_t i32;
	int64_t i64;
	uint32_t loc;
	int ret;

	ok(tep != NULL, "tep parses the 6.18 formats");
	if (!tep) {
		free(fmt);
		return;
	}
	ret = sl_sched_fields_resolve(tep, fmt, &sf);
	is_int(ret, 0, "fields resolve: %s", ret ? sl_errmsg(ret) : "");
	is_int(sf.id[SL_SE_WAKEUP], -1, "sched_wakeup is absent from this tep");
	is_int(sf.prev_state.preempt_bit, 256, "preempt bit from the format");
	is_int(sf.f[SL_SE_SWITCH][SL_F_STATE].size, 8, "prev_state is a long");
	ok(sf.f[SL_SE_MIGRATE][SL_F_COMM].dynamic, "migrate comm is __data_loc");
	free(fmt);
	if (ret) {
		tep_free(tep);
		return;
	}

	/* sched_switch: offsets from the 6.18 format file */
	type = sf.id[SL_SE_SWITCH];
	put(rec, 0, &type, 2);
	i32 = 4242;
	put(rec, 4, &i32, 4);
	memcpy(rec + 8, "postgres", 9);
	i32 = 4242;
	put(rec, 24, &i32, 4);
	i32 = 120;
	put(rec, 28, &i32, 4);
	i64 = 256;
	put(rec, 32, &i64, 8);
	memcpy(rec + 40, "pgbench-with-a-long-name", 16); /* not NUL-terminated */
	i32 = 77;
	put(rec, 56, &i32, 4);
	i32 = 100;
	put(rec, 60, &i32, 4);
	memset(&ev, 0, sizeof(ev));
	is_int(sl_sched_decode(&sf, rec, 64, &ev), 1, "switch record decodes");
	is_int(ev.type, SL_EV_SWITCH, "type switch");
	is_int(ev.common_pid, 4242, "common_pid");
	is_int(ev.sw.prev_pid, 4242, "prev_pid");
	is_int(ev.sw.next_pid, 77, "next_pid");
	is_int(ev.sw.prev_prio, 120, "prev_prio");
	is_int(ev.sw.next_prio, 100, "next_prio");
	ok(ev.sw.prev_state == 'R' && ev.sw.prev_preempt == 1, "prev_state 256 is R+");
	is_str(ev.sw.prev_comm, "postgres", "prev_comm");
	is_str(ev.sw.next_comm, "pgbench-with-a-", "next_comm truncated and terminated");
	/* bytes after a comm's NUL are not part of it: out comes NUL-padded to 16 bytes */
	memcpy(rec + 8, "ab\0xyzuvwabcdef", 16);
	memcpy(rec + 40, "postgres\0junk!!", 16);
	memset(&ev, 0x55, sizeof(ev));
	is_int(sl_sched_decode(&sf, rec, 64, &ev), 1, "switch record with junk after NULs");
	ok(!memcmp(ev.sw.prev_comm, "ab\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
	   "prev_comm NUL-padded (NUL in the first word)");
	ok(!memcmp(ev.sw.next_comm, "postgres\0\0\0\0\0\0\0", 16),
	   "next_comm NUL-padded (NUL in the second word)");
	memcpy(rec + 8, "\0bcdefghijklmno", 16);
	memcpy(rec + 40, "1234567\0abcdefg", 16);
	is_int(sl_sched_decode(&sf, rec, 64, &ev), 1, "switch record with edge NULs");
	ok(!memcmp(ev.sw.prev_comm, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
	   "an empty comm is all NULs");
	ok(!memcmp(ev.sw.next_comm, "1234567\0\0\0\0\0\0\0\0", 16),
	   "a NUL at byte 7 ends the comm");
	is_int(sl_sched_decode(&sf, rec, 40, &ev), -1, "a truncated record is refused");

	/* sched_migrate_task with a __data_loc comm placed after the fixed part */
	memset(rec, 0, sizeof(rec));
	type = sf.id[SL_SE_MIGRATE];
	put(rec, 0, &type, 2);
	loc = (6u << 16) | 28;
	put(rec, 8, &loc, 4);
	i32 = 99;
	put(rec, 12, &i32, 4);
	i32 = 120;
	put(rec, 16, &i32, 4);
	i32 = 1;
	put(rec, 20, &i32, 4);
	i32 = 0;
	put(rec, 24, &i32, 4);
	memcpy(rec + 28, "kwork", 6);
	is_int(sl_sched_decode(&sf, rec, 34, &ev), 1, "migrate record decodes");
	is_int(ev.type, SL_EV_MIGRATE, "type migrate");
	is_int(ev.migrate.pid, 99, "migrate pid");
	is_int(ev.migrate.orig_cpu, 1, "orig_cpu");
	is_int(ev.migrate.dest_cpu, 0, "dest_cpu");
	is_str(ev.migrate.comm, "kwork", "data_loc comm");
	loc = (60u << 16) | 28;
	put(rec, 8, &loc, 4);
	is_int(sl_sched_decode(&sf, rec, 34, &ev), 1, "an overlong data_loc still decodes");
	is_str(ev.migrate.comm, "", "an overlong data_loc gives an empty comm");

	/* sched_waking: its context from common_flags (offset 2) */
	static const struct {
		uint8_t flags;
		int irq;
	} ctx[] = { { 0x00, 0 },
		    { 0x01, 0 }, /* irqs off only */
		    { 0x08, SL_IRQ_HARD },
		    { 0x0d, SL_IRQ_HARD }, /* hardirq, need-resched */
		    { 0x10, SL_IRQ_SOFT },
		    { 0x18, SL_IRQ_HARD | SL_IRQ_SOFT },
		    { 0x40, SL_IRQ_HARD }, /* NMI */
		    { 0x80, 0 } }; /* bottom halves off: still a task */
	for (size_t k = 0; k < sizeof(ctx) / sizeof(ctx[0]); k++) {
		memset(rec, 0, sizeof(rec));
		type = sf.id[SL_SE_WAKING];
		put(rec, 0, &type, 2);
		put(rec, 2, &ctx[k].flags, 1);
		i32 = 77;
		put(rec, 4, &i32, 4);
		memcpy(rec + 8, "sl-lockload", 12);
		i32 = 78;
		put(rec, 24, &i32, 4);
		is_int(sl_sched_decode(&sf, rec, 36, &ev), 1, "waking with flags %#x decodes",
		       ctx[k].flags);
		is_int(ev.wake.pid, 78, "... its wakee");
		is_int(ev.wake.irq, ctx[k].irq, "... context %d", ctx[k].irq);
	}

	/* sys_enter_futex: uaddr at 16 and op at 24, both 8 bytes (the 6.18 format file) */
	ok(sf.id[SL_SE_FUTEX] >= 0, "sys_enter_futex resolves under syscalls");
	memset(rec, 0, sizeof(rec));
	type = sf.id[SL_SE_FUTEX];
	put(rec, 0, &type, 2);
	i32 = 8827;
	put(rec, 4, &i32, 4);
	i64 = 0x557eeadd0500ll;
	put(rec, 16, &i64, 8);
	i64 = 0x189;
	put(rec, 24, &i64, 8);
	is_int(sl_sched_decode(&sf, rec, 64, &ev), 1, "futex record decodes");
	is_int(ev.type, SL_EV_FUTEX, "type futex");
	is_int(ev.common_pid, 8827, "the calling task");
	is_int((int64_t)ev.futex.uaddr, 0x557eeadd0500ll, "uaddr");
	is_int(ev.futex.op, 0x189, "op");
	is_int(sl_sched_decode(&sf, rec, 30, &ev), -1, "a truncated futex record is refused");

	/* an event that is not ours */
	type = 9999;
	put(rec, 0, &type, 2);
	is_int(sl_sched_decode(&sf, rec, 34, &ev), 0, "other event ids are skipped");
	tep_free(tep);
}

int main(void)
{
	test_print_fmts();
	test_decode();
	return done_testing();
}
