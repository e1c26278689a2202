// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the ftrace text line parser (lib/import/import-text.c): the kernel's print
 * formats and trace-cmd report's sched plugin, comms with spaces, dashes and colons, the
 * flags and tgid columns present or absent, microsecond and nanosecond timestamps, lost
 * events, and every class of bad input with the line number in its message. Every file of
 * the fuzz corpus (tests/fuzz/corpus) has an expected outcome here, so the corpus is
 * exercised by `make check`, not only by the fuzzer.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "import-text.h"
#include "tap.h"

static struct sl_text_parser *parser(int max_cpus)
{
	struct sl_text_parser *p = NULL;

	if (sl_text_parser_new(max_cpus, &p) < 0)
		abort();
	return p;
}

/* Parses one line with a fresh parser. */
static int one(const char *line, struct sl_event *ev)
{
	struct sl_text_parser *p = parser(16);
	int ret = sl_text_parse_line(p, line, strlen(line), ev);

	sl_text_parser_free(p);
	return ret;
}

static void kernel_style(void)
{
	struct sl_text_parser *p = parser(16);
	struct sl_event ev;
	const char *l;

	l = "          <idle>-0       [001] d..2. 100.000001: sched_switch: prev_comm=swapper/1 "
	    "prev_pid=0 prev_prio=120 prev_state=R+ ==> next_comm=Web Content next_pid=12 "
	    "next_prio=110";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "kernel switch parses");
	is_int(ev.type, SL_EV_SWITCH, "... a switch");
	is_int(ev.cpu, 1, "... on CPU 1 ([001])");
	is_int(ev.common_pid, 0, "... context pid 0");
	is_int((int64_t)ev.ts_ns, 100000001000, "... microseconds scaled to ns");
	is_str(ev.sw.prev_comm, "swapper/1", "... prev_comm");
	is_int(ev.sw.prev_pid, 0, "... prev_pid");
	is_int(ev.sw.prev_state, 'R', "... R+ is runnable");
	is_int(ev.sw.prev_preempt, 1, "... with the preempt bit");
	is_str(ev.sw.next_comm, "Web Content", "... next_comm with a space");
	is_int(ev.sw.next_pid, 12, "... next_pid");
	is_int(ev.sw.next_prio, 110, "... next_prio");
	is_int(sl_text_parser_style(p), SL_TEXT_KERNEL, "style: kernel");
	ok(!sl_text_parser_nsec(p), "6 fractional digits: not nanoseconds");
	is_int(sl_text_parser_tgid(p), -1, "no tgid column");

	/* no flags column, nanoseconds, a comm with dashes in the context */
	l = "  my-prog-x-12 [003] 100.000002345: sched_switch: prev_comm=my-prog-x prev_pid=12 "
	    "prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "no flags column parses");
	is_int(ev.common_pid, 12, "... context pid after the last dash");
	is_int(ev.cpu, 3, "... CPU 3");
	is_int((int64_t)ev.ts_ns, 100000002345, "... nanoseconds kept");
	is_str(ev.sw.prev_comm, "my-prog-x", "... comm with dashes");
	is_int(ev.sw.prev_state, 'S', "... S");
	is_int(ev.sw.prev_preempt, 0, "... no preempt bit");
	ok(sl_text_parser_nsec(p), "9 fractional digits: nanoseconds");

	/* the record-tgid column */
	l = "  postgres-104   (   100) [002] d..2. 101.000000: sched_waking: comm=postgres pid=105 "
	    "prio=120 target_cpu=002";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "tgid column parses");
	is_int(sl_text_parser_tgid(p), 100, "... tgid 100");
	is_int(ev.type, SL_EV_WAKING, "... a waking");
	is_int(ev.common_pid, 104, "... the waker is the context");
	is_int(ev.wake.pid, 105, "... wakee pid");
	is_int(ev.wake.target_cpu, 2, "... target_cpu=002");

	/* wakeup with success=1 (kernels before 4.x print it), a comm with spaces */
	l = "  <idle>-0 [002] d.h3. 101.000001: sched_wakeup: comm=Web Content pid=106 prio=120 "
	    "success=1 target_cpu=005";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "wakeup with success=1 parses");
	is_int(ev.type, SL_EV_WAKEUP, "... a wakeup");
	is_str(ev.wake.comm, "Web Content", "... comm with a space");
	is_int(ev.wake.prio, 120, "... prio before success=");
	is_int(ev.wake.target_cpu, 5, "... target_cpu");

	l = "  bash-7 [000] d..2. 101.000002: sched_wakeup_new: comm=bash pid=8 prio=120 "
	    "target_cpu=001";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "wakeup_new parses");
	is_int(ev.type, SL_EV_WAKEUP_NEW, "... type wakeup_new");

	/* sched_waking of a task with no CPU yet */
	l = "  bash-7 [000] d..2. 101.000003: sched_waking: comm=bash pid=9 prio=120 target_cpu=-1";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "waking with target_cpu=-1 parses");
	is_int(ev.wake.target_cpu, -1, "... -1 kept");

	l = "  kworker/0:1-20 [000] d..2. 101.000004: sched_migrate_task: comm=a b:c pid=30 "
	    "prio=120 orig_cpu=1 dest_cpu=7";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "migrate parses");
	is_int(ev.type, SL_EV_MIGRATE, "... type");
	is_str(ev.migrate.comm, "a b:c", "... comm with a space and a colon");
	is_int(ev.migrate.orig_cpu, 1, "... orig_cpu");
	is_int(ev.migrate.dest_cpu, 7, "... dest_cpu");

	l = "  bash-7 [000] ..... 101.000005: sched_process_fork: comm=bash pid=7 "
	    "child_comm=bash pid=x child_pid=31";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "fork parses");
	is_int(ev.type, SL_EV_FORK, "... type");
	is_int(ev.fork.parent_pid, 7, "... parent pid");
	is_str(ev.fork.child_comm, "bash pid=x", "... child comm found from the right");
	is_int(ev.fork.child_pid, 31, "... child pid");

	l = "  sh-31 [001] ..... 101.000006: sched_process_exit: comm=sh pid=31 prio=120 "
	    "group_dead=1";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "exit with group_dead parses");
	is_int(ev.type, SL_EV_EXIT, "... type");
	is_int(ev.exit.pid, 31, "... pid");

	/* prev_state W in the kernel's own format is not translated */
	l = "  <idle>-0 [004] d..2. 101.000007: sched_switch: prev_comm=k prev_pid=40 prev_prio=120 "
	    "prev_state=D|W ==> next_comm=swapper/4 next_pid=0 next_prio=120";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "kernel D|W parses");
	is_int(ev.sw.prev_state, 'D', "... first letter");
	is_int(ev.common_pid, 0, "... context from the line, not prev_pid");

	/* lost events take the newest time seen */
	l = "CPU:4 [LOST 123 EVENTS]";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "lost marker parses");
	is_int(ev.type, SL_EV_LOST, "... type lost");
	is_int(ev.cpu, 4, "... CPU 4");
	is_int((int64_t)ev.lost.count, 123, "... 123 events");
	is_int((int64_t)ev.ts_ns, 101000007000, "... at the newest timestamp");

	/* lines that are not sched events */
	is_int(sl_text_parse_line(p, "# tracer: nop", 13, &ev), 0, "comment skipped");
	is_int(sl_text_parse_line(p, "", 0, &ev), 0, "empty line skipped");
	l = "  bash-7 [000] d..2. 101.000008: irq_handler_entry: irq=1 name=x";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 0, "other event skipped");
	l = "  bash-7 [000] d..2. 101.000009: sched_stat_runtime: comm=bash pid=7 runtime=1";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 0, "other sched_ event skipped");
	is_int((int64_t)sl_text_parser_skipped(p), 4, "4 lines skipped");
	{
		uint64_t first = 0;

		is_int((int64_t)sl_text_parser_other(p, &first), 2,
		       "... 2 of them other events (comments and blank lines are not)");
		is_int((int64_t)first, 14, "... the first at line 14");
	}
	is_int((int64_t)sl_text_parser_lines(p), 15, "15 lines counted");
	l = "  bash-7 [000] d..2. 101.000010: sched_switch: prev_comm=bash prev_pid=7 prev_prio=120 "
	    "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\r\n";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "CRLF line end parses");
	is_int(ev.sw.next_prio, 120, "... next_prio without the line end");

	/* futex(2) calls: the kernel's syscall print and a report's event print */
	l = "  sl-lockload-8827 [000] ..... 101.000011: sys_futex(uaddr: 0x557eeadd0500, op: 0x80, "
	    "val: 2, utime: 0, uaddr2: 0, val3: 0)";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "kernel sys_futex parses");
	is_int(ev.type, SL_EV_FUTEX, "... type futex");
	is_int((int64_t)ev.futex.uaddr, 0x557eeadd0500ll, "... uaddr");
	is_int(ev.futex.op, 0x80, "... op");
	is_int(ev.common_pid, 8827, "... the calling task");
	l = "  postgres-61 [003] ..... 101.000012: sys_enter_futex: uaddr: 0x7f21846eb498, "
	    "op: 0x00000089, val: 0xffffffff, utime: 0x7fff78ed5e40, uaddr2: 0, val3: 0x7fffffff";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "report sys_enter_futex parses");
	is_int((int64_t)ev.futex.uaddr, 0x7f21846eb498ll, "... uaddr");
	is_int(ev.futex.op, 0x89, "... op");
	sl_text_parser_free(p);
}

static void plugin_style(void)
{
	struct sl_text_parser *p = parser(16);
	struct sl_event ev;
	const char *l;

	l = "        postgres-104   [003]  5.000001: sched_switch: postgres:104 [120] R+ ==> "
	    "swapper/5:0 [120]";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "plugin switch parses");
	is_int(ev.type, SL_EV_SWITCH, "... a switch");
	is_int(ev.cpu, 3, "... CPU 3");
	is_str(ev.sw.prev_comm, "postgres", "... prev comm");
	is_int(ev.sw.prev_pid, 104, "... prev pid");
	is_int(ev.sw.prev_prio, 120, "... prev prio");
	is_int(ev.sw.prev_state, 'R', "... R+");
	is_int(ev.sw.prev_preempt, 1, "... preempt bit");
	is_str(ev.sw.next_comm, "swapper/5", "... next comm");
	is_int(ev.sw.next_pid, 0, "... next pid");
	is_int(sl_text_parser_style(p), SL_TEXT_PLUGIN, "style: plugin");

	l = "   Web Content-12  [003]  5.000002: sched_switch: Web Content:12 [120] W ==> "
	    "a:b:c:13 [139]";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "plugin W state parses");
	is_int(ev.sw.prev_state, 'I', "... the plugin's W (raw 128) is TASK_IDLE");
	is_str(ev.sw.prev_comm, "Web Content", "... comm with a space");
	is_str(ev.sw.next_comm, "a:b:c", "... comm with colons: pid after the last");
	is_int(ev.sw.next_pid, 13, "... next pid");
	is_int(ev.sw.next_prio, 139, "... next prio");

	l = "    a-b-c-13 [000] 5.000003: sched_wakeup: postgres:104 [120] CPU:003";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "plugin wakeup parses");
	is_int(ev.type, SL_EV_WAKEUP, "... a wakeup");
	is_int(ev.common_pid, 13, "... context of a dashed comm");
	is_int(ev.wake.pid, 104, "... pid");
	is_int(ev.wake.target_cpu, 3, "... CPU:003");

	l = "    a-b-c-13 [000] 5.000004: sched_waking: postgres:104 [120] success=1 CPU:002";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "plugin success=1 parses");
	is_int(ev.type, SL_EV_WAKING, "... a waking");
	is_int(ev.wake.target_cpu, 2, "... CPU:002");
	is_str(ev.wake.comm, "postgres", "... comm");

	l = "  <idle>-0 [001] 5.000005123: sched_switch: swapper/1:0 [120] R ==> bash:7 [120]";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "plugin with ns (report -t) parses");
	is_int((int64_t)ev.ts_ns, 5000005123, "... ns");
	is_int(ev.sw.prev_preempt, 0, "... plain R");
	sl_text_parser_free(p);
}

/* The bad line comes after two good ones, so its message must say line 3. */
struct bad_case {
	const char *name;
	const char *line;
	int err;
	const char *msg; /* a substring of the message after "line 3: " */
};

static const struct bad_case bad_cases[] = {
	{ "absurd pid",
	  "sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> "
	  "next_comm=b next_pid=99999999 next_prio=120",
	  -SL_ERANGE, "next_pid 99999999 out of range" },
	{ "negative pid", "sched_wakeup: comm=a pid=-5 prio=120 target_cpu=001", -SL_ERANGE,
	  "pid -5 out of range" },
	{ "absurd prio",
	  "sched_switch: prev_comm=a prev_pid=1 prev_prio=7000 prev_state=S ==> "
	  "next_comm=b next_pid=2 next_prio=120",
	  -SL_ERANGE, "prev_prio 7000 out of range" },
	{ "non-numeric pid",
	  "sched_switch: prev_comm=a prev_pid=1x prev_prio=120 prev_state=S ==> "
	  "next_comm=b next_pid=2 next_prio=120",
	  -SL_EPARSE, "bad prev_pid" },
	{ "no arrow",
	  "sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S --> "
	  "next_comm=b next_pid=2 next_prio=120",
	  -SL_EPARSE, "without ' ==> next_comm='" },
	{ "prev fields missing",
	  "sched_switch: prev_comm=a prev_state=S ==> next_comm=b "
	  "next_pid=2 next_prio=120",
	  -SL_EPARSE, "prev fields missing" },
	{ "next fields missing",
	  "sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
	  "prev_state=S ==> next_comm=b",
	  -SL_EPARSE, "next fields missing" },
	{ "empty state",
	  "sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state= ==> "
	  "next_comm=b next_pid=2 next_prio=120",
	  -SL_EPARSE, "bad prev_state" },
	{ "long comm",
	  "sched_switch: prev_comm=a_very_long_comm_name prev_pid=1 prev_prio=120 "
	  "prev_state=S ==> next_comm=b next_pid=2 next_prio=120",
	  -SL_ERANGE, "comm longer than 15 characters" },
	{ "target_cpu beyond", "sched_waking: comm=x pid=5 prio=120 target_cpu=777", -SL_ERANGE,
	  "target_cpu 777 out of range [-1, 15]" },
	{ "wake without target_cpu", "sched_waking: comm=x pid=5 prio=120", -SL_EPARSE,
	  "without target_cpu" },
	{ "wake without comm=", "sched_waking: x pid=5 prio=120 target_cpu=1", -SL_EPARSE,
	  "'CPU:'" },
	{ "plugin CPU beyond", "sched_wakeup: a:5 [120] CPU:016", -SL_ERANGE,
	  "CPU 16 out of range [0, 15]" },
	{ "plugin no prio", "sched_wakeup: a:5 CPU:001", -SL_EPARSE, "'[prio]'" },
	{ "plugin no pid", "sched_switch: a [120] R ==> b:2 [120]", -SL_EPARSE,
	  "expected 'comm:pid'" },
	{ "migrate fields missing", "sched_migrate_task: comm=a pid=1 prio=120 dest_cpu=1",
	  -SL_EPARSE, "sched_migrate_task: fields missing" },
	{ "migrate dest beyond", "sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=99",
	  -SL_ERANGE, "dest_cpu 99 out of range" },
	{ "fork fields missing", "sched_process_fork: comm=a pid=1 child_pid=2", -SL_EPARSE,
	  "sched_process_fork: fields missing" },
	{ "exit fields missing", "sched_process_exit: comm=a", -SL_EPARSE,
	  "sched_process_exit: fields missing" },
	{ "truncated", "sched_switch:", -SL_EPARSE, "sched_switch without" },
	{ "futex without op", "sys_futex(uaddr: 0x10, val: 1)", -SL_EPARSE,
	  "futex call without 'op: '" },
	{ "futex bad uaddr", "sys_futex(uaddr: 0x1z, op: 0x80, val: 1)", -SL_EPARSE,
	  "bad futex uaddr" },
	{ "futex op too wide", "sys_enter_futex: uaddr: 0x10, op: 0x100000000, val: 1", -SL_ERANGE,
	  "futex op out of range" },
};

static void bad_input(void)
{
	static const char good1[] = "  a-1 [001] d..2. 100.000001: sched_waking: comm=b pid=2 "
				    "prio=120 target_cpu=001";
	static const char good2[] = "# a comment";

	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct sl_text_parser *p = parser(16);
		struct sl_event ev;
		char line[512];
		const char *msg;
		int ret;

		snprintf(line, sizeof(line), "  a-1 [001] d..2. 100.000002: %s", c->line);
		sl_text_parse_line(p, good1, strlen(good1), &ev);
		sl_text_parse_line(p, good2, strlen(good2), &ev);
		ret = sl_text_parse_line(p, line, strlen(line), &ev);
		msg = sl_errmsg(ret);
		is_int(ret, c->err, "%s: error code", c->name);
		ok(!strncmp(msg, "line 3: ", 8) && strstr(msg, c->msg), "%s: message '%s'", c->name,
		   msg);
		sl_text_parser_free(p);
	}
}

/* Errors of the context columns, and the time order on one CPU. */
static void bad_context(void)
{
	struct sl_text_parser *p = parser(16);
	struct sl_event ev;
	const char *l;
	int ret;

	l = "  a-1 [999] d..2. 100.000001: sched_waking: comm=b pid=2 prio=120 target_cpu=001";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_ERANGE, "CPU column beyond the topology");
	is_str(sl_errmsg(ret), "line 1: CPU column beyond the topology", "... message");

	l = "  a-1 [001] d..2. 99999999999999.000001: sched_waking: x";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_ERANGE, "timestamp with 14 digits of seconds");
	is_str(sl_errmsg(ret), "line 2: timestamp out of range", "... message");

	l = "  a-1 [001] d..2. abc: sched_waking: comm=b pid=2 prio=120 target_cpu=001";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_EPARSE, "no timestamp");
	is_str(sl_errmsg(ret), "line 3: no timestamp after the CPU column", "... message");

	l = "  a-1 [001] d..2. 100.000001 sched_waking comm=b";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_EPARSE, "timestamp without its colon");

	l = "  a-1 [001] 100.000001: sched_waking";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_EPARSE, "no event name");
	is_str(sl_errmsg(ret), "line 5: no event name after the timestamp", "... message");

	l = "CPU:1 [LOST xx EVENTS]";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_EPARSE, "lost marker with a bad count");
	is_str(sl_errmsg(ret), "line 6: bad lost-events marker", "... message");

	l = "CPU:16 [LOST 5 EVENTS]";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_ERANGE, "lost marker beyond the topology");
	ok(strstr(sl_errmsg(ret), "line 7: ") != NULL, "... line 7");

	ret = sl_text_parse_line(p, "x\0y", 3, &ev);
	is_int(ret, -SL_EPARSE, "NUL byte");
	is_str(sl_errmsg(ret), "line 8: NUL byte: not a text trace", "... message");

	l = "  a-1 [001] 100.000002: sched_waking: comm=b pid=2 prio=120 target_cpu=001";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "a good line after errors");
	l = "  a-1 [002] 99.000000: sched_waking: comm=b pid=2 prio=120 target_cpu=001";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "an earlier time on another CPU");
	l = "  a-1 [001] 100.000002: sched_waking: comm=b pid=3 prio=120 target_cpu=001";
	is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1, "the same time on one CPU");
	l = "  a-1 [001] 100.000001: sched_waking: comm=b pid=2 prio=120 target_cpu=001";
	ret = sl_text_parse_line(p, l, strlen(l), &ev);
	is_int(ret, -SL_ERANGE, "time going backwards on a CPU");
	is_str(sl_errmsg(ret), "line 12: timestamp 100.000001000 goes backwards on CPU 1",
	       "... message");
	sl_text_parser_free(p);
}

/* What each file of tests/fuzz/corpus must give: events, or the first error and its line. */
struct corpus_case {
	const char *file;
	int events;
	int err; /* 0: parses without error */
	const char *msg; /* prefix of the error message */
};

static const struct corpus_case corpus[] = {
	{ "bad-absurd-pid.txt", 0, -SL_ERANGE, "line 1: next_pid 99999999 out of range" },
	{ "bad-absurd-prio.txt", 0, -SL_ERANGE, "line 1: next_prio 7000 out of range" },
	{ "bad-corrupt-switch.txt", 0, -SL_EPARSE, "line 1: sched_switch without" },
	{ "bad-cpu-negative.txt", 1, -SL_EPARSE, "line 2: sched event without a readable" },
	{ "bad-cpu-beyond-topology.txt", 0, -SL_ERANGE, "line 1: CPU column beyond" },
	{ "bad-empty-state.txt", 0, -SL_EPARSE, "line 1: bad prev_state" },
	{ "bad-long-comm.txt", 0, -SL_ERANGE, "line 1: comm longer than 15" },
	{ "bad-lost-marker.txt", 0, -SL_EPARSE, "line 1: bad lost-events marker" },
	{ "bad-lost-negative-cpu.txt", 0, -SL_EPARSE, "line 1: bad lost-events marker" },
	{ "bad-nul.txt", 0, -SL_EPARSE, "line 1: NUL byte" },
	{ "bad-target-cpu.txt", 0, -SL_ERANGE, "line 1: target_cpu 777 out of range" },
	{ "bad-time-backwards.txt", 1, -SL_ERANGE, "line 2: timestamp 99.000000000 goes back" },
	{ "bad-timestamp-range.txt", 0, -SL_ERANGE, "line 1: timestamp out of range" },
	{ "bad-timestamp-wrap.txt", 1, -SL_ERANGE, "line 3: timestamp out of range" },
	{ "bad-truncated-line.txt", 0, -SL_EPARSE, "line 1: sched_switch without" },
	{ "bad-wrong-format.txt", 0, 0, NULL }, /* no event at all: the import refuses it */
	{ "ok-kernel.txt", 1, 0, NULL },
	{ "ok-plugin.txt", 2, 0, NULL },
};

static void fuzz_corpus(void)
{
	const char *src = getenv("SL_SRC");
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	int files = 0;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus", src ? src : ".");
	dp = opendir(dir);
	if (!dp) {
		ok(0, "cannot open '%s'", dir);
		return;
	}
	while ((d = readdir(dp))) {
		const struct corpus_case *c = NULL;
		struct sl_text_parser *p;
		char path[8192];
		const char *s, *e, *nl;
		struct sl_event ev;
		int events = 0, err = 0;
		size_t len = 0;
		char *buf;

		if (d->d_name[0] == '.')
			continue;
		files++;
		for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
			if (!strcmp(corpus[i].file, d->d_name))
				c = &corpus[i];
		if (!ok(c, "corpus file %s has an expected outcome in t-import-text", d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		buf = fixture_slurp(path, &len);
		if (!ok(buf, "%s: read", d->d_name))
			continue;
		/* as the importer reads a file: line by line, stopping at the first error */
		p = parser(16);
		for (s = buf, e = buf + len; s < e && !err; s = nl + 1) {
			int ret;

			nl = memchr(s, '\n', e - s);
			if (!nl)
				nl = e;
			ret = sl_text_parse_line(p, s, nl - s, &ev);
			if (ret < 0)
				err = ret;
			else
				events += ret;
		}
		is_int(events, c->events, "%s: %d events before any error", d->d_name, c->events);
		is_int(err, c->err, "%s: %s", d->d_name, c->err ? "fails" : "no error");
		if (c->msg)
			ok(!strncmp(sl_errmsg(err), c->msg, strlen(c->msg)), "%s: message '%s'",
			   d->d_name, sl_errmsg(err));
		sl_text_parser_free(p);
		free(buf);
	}
	closedir(dp);
	is_int(files, (int64_t)(sizeof(corpus) / sizeof(corpus[0])),
	       "every expected corpus file exists");
}

/* The flags column's third letter is the wakeup's context, on both paths. */
static void irq_context(void)
{
	static const struct {
		const char *flags;
		int irq;
	} cases[] = {
		{ "d..2.", 0 },
		{ "d.h2.", SL_IRQ_HARD },
		{ "dNh3.", SL_IRQ_HARD },
		{ "d.s4.", SL_IRQ_SOFT },
		{ "d.H3.", SL_IRQ_HARD | SL_IRQ_SOFT },
		{ "d.z1.", SL_IRQ_HARD },
		{ "d.Z1.", SL_IRQ_HARD },
		{ "dNh2", SL_IRQ_HARD }, /* older kernels: four letters */
		{ "", 0 }, /* no flags column */
	};

	for (int fast = 0; fast < 2; fast++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct sl_text_parser *p = parser(16);
			struct sl_event ev;
			char l[256];

			sl_text_parser_set_fast(p, fast);
			snprintf(l, sizeof(l),
				 "  sl-lockload-28103   [001] %s 61282.315283: sched_waking: "
				 "comm=sl-lockload pid=28106 prio=120 target_cpu=001",
				 cases[i].flags);
			memset(&ev, 0xff, sizeof(ev));
			is_int(sl_text_parse_line(p, l, strlen(l), &ev), 1,
			       "%s path: waking '%s' parses", fast ? "fast" : "general",
			       cases[i].flags);
			is_int(ev.wake.irq, cases[i].irq, "... context %d", cases[i].irq);
			sl_text_parser_free(p);
		}
}

int main(void)
{
	struct sl_event ev;

	kernel_style();
	irq_context();
	plugin_style();
	bad_input();
	bad_context();
	fuzz_corpus();
	is_int(one("   ", &ev), 0, "blank line skipped");
	return done_testing();
}
