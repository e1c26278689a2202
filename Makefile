# SPDX-License-Identifier: GPL-2.0-only
#
# schedlens: one non-recursive GNU Makefile.
#
#   make [O=builddir] [V=1] [WERROR=1] [SANITIZE=address,undefined]
#   make check | check-rules | bench | format | format-check | deps | run | install [prefix=/usr/local DESTDIR= mandir=]
#   make deb (the Debian package, into $(O)/deb/)
#
# Sources are picked up by wildcard: a new lib/STAGE/foo.c lands in libschedlens.a, a new
# cli/cmd-foo.c in the schedlens binary, a new tests/unit/t-foo.c becomes a unit test.

O ?= build
prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
datadir ?= $(prefix)/share
# the schedlens-sql extension (ext/); schedlens lab's scripts (tests/lab in the source tree)
pkglibdir ?= $(prefix)/lib/schedlens
labdir ?= $(pkglibdir)/lab
LAB_SCRIPTS := tests/lab/lib.sh tests/lab/run tests/lab/fetch-kernel tests/lab/mkimage \
	tests/lab/guest-init
# the unit reads /etc/schedlens/schedlensd.conf whatever the prefix, as packages do
sysconfdir ?= /etc
DESTDIR ?=

# CI builds with -Werror; so does anyone who asks.
ifneq ($(CI),)
WERROR ?= 1
endif

PKGS := libtracefs >= 1.6 libtraceevent >= 1.7 sqlite3 >= 3.40 libmicrohttpd >= 0.9.75 \
	jansson >= 2.14 libtracecmd libzstd >= 1.4 libcurl >= 7.85
PKG_CONFIG ?= pkg-config

# Evaluated on first use, not when the Makefile is read: `make deps check` installs the
# libraries before anything is compiled.
PKG_NAMES := libtracefs libtraceevent sqlite3 libmicrohttpd jansson libtracecmd libzstd libcurl
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKG_NAMES)))$(PKG_CFLAGS)
# libcurl is not linked: compare-prom.c loads it when a Prometheus query needs it
# (lib/compare/curl-lazy.h), so that the other commands start without its 29 libraries.
PKG_LIBS = $(eval PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out libcurl,$(PKG_NAMES))))$(PKG_LIBS)

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SANITIZE),)
SAN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
endif
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# CPPFLAGS: dpkg-buildflags puts -D_FORTIFY_SOURCE there (make deb)
ALL_CFLAGS = -std=gnu11 $(WARN) $(SAN) -D_GNU_SOURCE -pthread $(LIB_INC) -I$(O)/gen \
	$(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP
# --as-needed: a program records a library only if it calls it (the CLI never calls
# libmicrohttpd, which pulls GnuTLS in)
ALL_LDFLAGS = $(SAN) -pthread -Wl,--as-needed $(LDFLAGS)
LIBS = $(PKG_LIBS) -lm

ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-8s %s\n' $(1) $(2);
endif

# lib/ has one folder a pipeline stage (docs/architecture.md); every folder is on the
# include path, and scripts/check-layers keeps includes pointing down the stages only
LIB_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard lib/*/*.c))))
LIB_INC := $(addprefix -I,$(LIB_DIRS))
LIB_SRC := $(sort $(wildcard lib/*/*.c))
CLI_SRC := $(sort $(wildcard cli/*.c))
DAEMON_SRC := $(sort $(wildcard daemon/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/t-*.c))
TESTLIB_SRC := $(filter-out $(UNIT_SRC),$(sort $(wildcard tests/unit/*.c)))
SYNTH_MAIN := tests/synth/slsynth.c
SYNTH_SRC := $(filter-out $(SYNTH_MAIN),$(sort $(wildcard tests/synth/*.c)))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
# programs the integration tests and benchmarks drive (a store writer to SIGKILL, a demo
# database); they may use the synthesizer
# (tests/helpers/fault-*.c are LD_PRELOAD shims: shared objects, not programs)
SHIM_SRC := $(sort $(wildcard tests/helpers/fault-*.c))
HELPER_SRC := $(filter-out $(SHIM_SRC),$(sort $(wildcard tests/helpers/*.c)))
SCHEMA_SQL := $(sort $(wildcard schema/[0-9]*.sql))

LIB := $(O)/libschedlens.a
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
CLI_BIN := $(O)/schedlens
CLI_OBJ := $(CLI_SRC:%.c=$(O)/%.o)
DAEMON_BIN := $(if $(DAEMON_SRC),$(O)/schedlensd)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(O)/%.o)
UNIT_BIN := $(UNIT_SRC:%.c=$(O)/%)
# tap.c and the synthesizer library are linked into every unit test and benchmark
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(O)/%.o) $(SYNTH_SRC:%.c=$(O)/%.o)
SYNTH_BIN := $(if $(wildcard $(SYNTH_MAIN)),$(O)/slsynth)
BENCH_BIN := $(BENCH_SRC:%.c=$(O)/%)
HELPER_BIN := $(HELPER_SRC:%.c=$(O)/%) $(SHIM_SRC:%.c=$(O)/%.so)
GEN_H := $(O)/gen/schema-sql.h
# SL_VERSION: rewritten only when `git describe` changes, so that a new commit rebuilds the
# few files that print or store it (runs.recorder_version), and nothing else.
VERSION_H := $(O)/gen/version.h
# The dashboard (web/, any file but dot files) is compiled into schedlensd.
WEB_FILES := $(shell find web -type f ! -name '.*' 2>/dev/null | sort)
WEB_H := $(O)/gen/web-assets.h
unitdir ?= /lib/systemd/system

# The per-event tables' module as a loadable SQLite extension (ext/schedlens-sql.c), for
# the sqlite3 shell. Built without sanitizers: it is loaded into programs built without.
SQL_EXT := $(O)/schedlens-sql.so
EXT_CFLAGS = -std=gnu11 $(WARN) -D_GNU_SOURCE -fPIC $(LIB_INC) $(PKG_CFLAGS) $(CPPFLAGS) \
	$(CFLAGS) -MMD -MP

all: $(LIB) $(CLI_BIN) $(DAEMON_BIN) $(SQL_EXT)

$(SQL_EXT): ext/schedlens-sql.c
	$(call say,CCLD,$@)
	$(Q)mkdir -p $(dir $@) && $(CC) $(EXT_CFLAGS) -shared -o $@ $< $(LDFLAGS)

# Migrations are embedded: one C string per schema/NNNN-*.sql, in order.
$(GEN_H): $(SCHEMA_SQL) schema/current.sql scripts/embed-sql
	$(call say,GEN,$@)
	$(Q)mkdir -p $(dir $@) && scripts/embed-sql $(SCHEMA_SQL) schema/current.sql > $@.tmp && mv $@.tmp $@

# web/ may gain or lose files: the list itself is a dependency (through web-list)
$(WEB_H): $(WEB_FILES) scripts/embed-web $(O)/gen/web-list
	$(call say,GEN,$@)
	$(Q)mkdir -p $(dir $@) && scripts/embed-web web $(WEB_FILES) > $@.tmp && mv $@.tmp $@

$(VERSION_H): FORCE
	$(Q)mkdir -p $(dir $@) && echo '#define SL_VERSION "$(VERSION)"' | cmp -s - $@ || \
		echo '#define SL_VERSION "$(VERSION)"' > $@

$(O)/gen/web-list: FORCE
	$(Q)mkdir -p $(dir $@) && echo '$(WEB_FILES)' | cmp -s - $@ || echo '$(WEB_FILES)' > $@

$(O)/daemon/routes.o: $(WEB_H)

$(O)/%.o: %.c | $(GEN_H) $(VERSION_H) pkgcheck
	$(call say,CC,$@)
	$(Q)mkdir -p $(dir $@) && $(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# where `schedlens lab` finds its scripts once installed (beside a build dir it finds
# tests/lab itself); rewritten, like version.h, only when the path changes
LABDIR_H := $(O)/gen/labdir.h
$(LABDIR_H): FORCE
	$(Q)mkdir -p $(dir $@) && echo '#define SL_LABDIR "$(labdir)"' | cmp -s - $@ || \
		echo '#define SL_LABDIR "$(labdir)"' > $@
$(O)/cli/cmd-lab.o: $(LABDIR_H)

$(CLI_BIN): $(CLI_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

$(O)/schedlensd: $(DAEMON_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(DAEMON_OBJ) $(LIB) $(LIBS)

$(O)/tests/unit/t-%: $(O)/tests/unit/t-%.o $(TESTLIB_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIB) $(LIBS)

$(O)/slsynth: $(O)/tests/synth/slsynth.o $(TESTLIB_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIB) $(LIBS)

$(O)/tests/bench/%: $(O)/tests/bench/%.o $(TESTLIB_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIB) $(LIBS)

$(O)/tests/helpers/%: $(O)/tests/helpers/%.o $(TESTLIB_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIB) $(LIBS)

# Preloaded into programs built with or without sanitizers: built without them, so that
# it needs no sanitizer runtime of its own.
$(O)/tests/helpers/%.so: tests/helpers/%.c | pkgcheck
	$(call say,CC,$@)
	$(Q)mkdir -p $(dir $@) && $(CC) -std=gnu11 $(WARN) -D_GNU_SOURCE -pthread $(CFLAGS) \
		-fPIC -shared -fvisibility=hidden -o $@ $< -ldl

# Unit tests are TAP programs; integration tests are TAP shell scripts that find the
# binaries through SL_BUILD. prove prints the summary CI reads. Unit tests are independent
# and run CHECK_JOBS at a time; integration tests run one at a time, because they measure
# the machine (recording without loss beside perf, a 1 s answer during a connection flood,
# lock timing against its own markers) and two at once on a 2-CPU machine would measure
# each other.
CHECK_JOBS ?= $(shell nproc)
INTEGRATION_T := $(sort $(wildcard tests/integration/*.t))
# (a recipe, not prerequisites, so that make -j cannot run the two at once; both always run)
check: all $(UNIT_BIN) $(SYNTH_BIN) $(HELPER_BIN)
	$(Q)$(MAKE) --no-print-directory check-rules; r=$$?; \
		$(MAKE) --no-print-directory check-unit; u=$$?; \
		$(MAKE) --no-print-directory check-integration && exit $$((r | u))
check-unit: all $(UNIT_BIN) check-layers
	$(Q)SL_BUILD=$(abspath $(O)) SL_SRC=$(CURDIR) SL_SANITIZE=$(SANITIZE) \
		prove -f -j$(CHECK_JOBS) --exec '' $(UNIT_BIN)
# lib/'s stages include downward only, SQL stays in the store and the CLI prints through
# its print layer (scripts/check-layers, docs/architecture.md)
check-layers:
	$(Q)scripts/check-layers
check-integration: all $(UNIT_BIN) $(SYNTH_BIN) $(HELPER_BIN)
	$(Q)SL_BUILD=$(abspath $(O)) SL_SRC=$(CURDIR) SL_SANITIZE=$(SANITIZE) \
		prove -f --exec '' $(INTEGRATION_T)

# The Prometheus rules (prometheus/) need no build: promtool checks their syntax and runs
# their unit tests. promtool comes with Debian's prometheus package (make deps).
RULES := prometheus/schedlens-rules.yml
RULES_TEST := prometheus/schedlens-rules.test.yml
check-rules:
	$(Q)command -v promtool >/dev/null || \
		{ echo "check-rules: promtool not found: run 'make deps' (Debian package prometheus)" >&2; \
		exit 1; }
	$(Q)promtool check rules $(RULES)
	$(Q)promtool test rules $(RULES_TEST)

bench: all $(BENCH_BIN) $(SYNTH_BIN) $(HELPER_BIN)
	$(Q)if [ -z "$(BENCH_BIN)" ]; then echo "no benchmarks yet"; else \
		fail=; for b in $(BENCH_BIN); do SL_BUILD=$(abspath $(O)) SL_SRC=$(CURDIR) $$b || \
			fail="$$fail $${b##*/}"; done; \
		[ -z "$$fail" ] || { echo "bench: missed a target or failed:$$fail" >&2; exit 1; }; fi

# The comparison's operating characteristics (README "Comparing kernels", "Calibration"):
# false regressions over CALIBRATE_PAIRS synthetic A/A pairs with a run-level random effect
# at 1, 2, 3 and 5 runs a side, and power against known effects. Exit 1 if a target is
# missed. CI runs it with CALIBRATE_PAIRS=100 (58 s here: the sequential A/A row always runs 500).
CALIBRATE_PAIRS ?= 500
calibrate: $(O)/tests/helpers/calibrate
	$(Q)d=$$(mktemp -d) && $(O)/tests/helpers/calibrate $(CALIBRATE_PAIRS) $$d; \
		rc=$$?; rm -rf $$d; exit $$rc

# The same on real kernels (tests/lab/calibrate): CALIBRATE_ROUNDS interleaved rounds of five
# lab configurations recorded into $(O)/lab-calibrate (resumed if interrupted), then every
# A/A and known-change comparison formed from them. About an hour for 4 rounds here.
CALIBRATE_ROUNDS ?= 4
calibrate-lab: all
	$(Q)SL_BUILD=$(abspath $(O)) tests/lab/calibrate -r $(CALIBRATE_ROUNDS)

# The main job, as the README says: the daemon in the foreground on its default port
# (http://127.0.0.1:9347/), recording into RUN_DB (root needed for tracing).
RUN_DB ?= /var/lib/schedlens/schedlens.db
run: all
	mkdir -p $(dir $(RUN_DB))
	$(O)/schedlensd --db $(RUN_DB)

# The kernel lab (tests/lab/, root, QEMU): real Debian kernels in a 16-CPU 4-socket SMT
# guest. `make lab LAB_KERNEL=6.1 LAB_WORKLOAD=pgbench LAB_ARGS='--features
# NO_WAKEUP_PREEMPTION'` adds one run to $(O)/lab/lab.db; `make lab-check` is the lab's
# acceptance suite (about 25 minutes; results in $(O)/lab-check), which CI runs; `make
# lab-full` adds lab explain's known answer (about 15 minutes more).
LAB_KERNEL ?= 6.1
LAB_WORKLOAD ?= pgbench
lab: all
	$(Q)mkdir -p $(O)/lab && SL_BUILD=$(abspath $(O)) tests/lab/run $(LAB_KERNEL) \
		$(LAB_WORKLOAD) -o $(O)/lab/lab.db $(LAB_ARGS)
lab-check: all
	$(Q)SL_BUILD=$(abspath $(O)) SL_SRC=$(CURDIR) prove -v -f --exec '' tests/lab/lab-check.t
lab-full: all
	$(Q)LAB_FULL=1 SL_BUILD=$(abspath $(O)) SL_SRC=$(CURDIR) prove -v -f --exec '' \
		tests/lab/lab-check.t

deps:
	scripts/install-deps

# libFuzzer (clang) on the ftrace text parser and on our trace.dat reader; CI runs each for
# FUZZ_SECONDS: the text one on the checked-in corpus of bad inputs, the trace.dat one
# seeded with the zstd and instance fixtures and tests/fuzz/corpus-dat (a file beyond the
# harness's inflate budget, see tests/fuzz/fuzz-dat.h), both growing scratch corpora in $(O).
FUZZ_SECONDS ?= 60
FUZZ_BIN := $(O)/tests/fuzz/fuzz-text
FUZZ_DAT_BIN := $(O)/tests/fuzz/fuzz-dat
FUZZ_CC = clang -g -O1 -fsanitize=fuzzer,address,undefined $(LIB_INC) -D_GNU_SOURCE
$(FUZZ_BIN): tests/fuzz/fuzz-text.c lib/import/import-text.c lib/import/import-text-general.c \
		lib/import/import-text-local.h lib/import/import-text.h lib/common/error.c
	$(call say,FUZZ,$@)
	$(Q)mkdir -p $(dir $@) && $(FUZZ_CC) -o $@ tests/fuzz/fuzz-text.c lib/import/import-text.c \
		lib/import/import-text-general.c lib/common/error.c
$(FUZZ_DAT_BIN): tests/fuzz/fuzz-dat.c tests/fuzz/fuzz-dat.h lib/import/dat-file.c lib/import/dat-file.h \
		lib/record/rb-page.c lib/record/rb-page.h lib/common/error.c
	$(call say,FUZZ,$@)
	$(Q)mkdir -p $(dir $@) && $(FUZZ_CC) -o $@ tests/fuzz/fuzz-dat.c lib/import/dat-file.c \
		lib/record/rb-page.c lib/common/error.c $(shell $(PKG_CONFIG) --cflags --libs libzstd libtraceevent)
fuzz: $(FUZZ_BIN) $(FUZZ_DAT_BIN)
	$(Q)mkdir -p $(O)/fuzz-corpus && $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) \
		$(O)/fuzz-corpus tests/fuzz/corpus
	$(Q)mkdir -p $(O)/fuzz-dat-corpus && \
		cp tests/fixtures/guest16-import-v7z.dat tests/fixtures/guest16-import-inst.dat \
		tests/fuzz/corpus-dat/* $(O)/fuzz-dat-corpus/ && \
		$(FUZZ_DAT_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=131072 $(O)/fuzz-dat-corpus

pkgcheck:
	@$(PKG_CONFIG) --exists '$(PKGS)' || { echo "missing libraries: '$(PKGS)'; run 'make deps' as root first" >&2; exit 1; }

FORMAT_FILES = $(sort $(wildcard lib/*/*.[ch] cli/*.[ch] daemon/*.[ch] tests/unit/*.[ch] \
	tests/helpers/*.[ch] tests/synth/*.[ch] tests/bench/*.[ch] tests/fuzz/*.[ch] ext/*.c))
# schema/README.md's windows table, rewritten from lib/common/window-counters.h (t-window-counters
# fails while they differ)
schema-doc: $(O)/tests/unit/t-window-counters
	$(Q)SL_SRC=$(CURDIR) $< --write
# schema/current.sql, what the migrations leave an empty file, rewritten from them
# (t-store-current fails while they differ)
schema-current: $(O)/tests/unit/t-store-current
	$(Q)SL_SRC=$(CURDIR) $< --write

format:
	clang-format -i $(FORMAT_FILES)
format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format: clean"

# The man pages (man/, roff written by hand) need no build: install-man alone installs them,
# which tests/integration/05-docs.t uses without touching the build directory.
install-man:
	install -d $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man8
	install -m 0644 man/schedlens.1 $(DESTDIR)$(mandir)/man1/schedlens.1
	install -m 0644 man/schedlensd.8 $(DESTDIR)$(mandir)/man8/schedlensd.8

# The default config: every setting of --print-config with its default, commented out, so
# that it cannot go stale. `make install` leaves an existing one alone.
DEFAULT_CONF := $(O)/schedlensd.conf
$(DEFAULT_CONF): $(DAEMON_BIN)
	$(call say,GEN,$@)
	$(Q){ echo "# $(sysconfdir)/schedlens/schedlensd.conf: schedlensd's settings, 'name value' lines"; \
	  echo "# (schedlensd(8)). Below, every setting with its default, commented out."; \
	  echo "# 'systemctl reload schedlensd' rereads this file (SIGHUP)."; echo; \
	  $(DAEMON_BIN) --print-config | sed 's/^\([^#]\)/#\1/'; } > $@.tmp && mv $@.tmp $@

install: all install-man $(DEFAULT_CONF)
	install -d $(DESTDIR)$(bindir)
	install -m 0755 $(CLI_BIN) $(DESTDIR)$(bindir)/schedlens
	$(if $(DAEMON_BIN),install -m 0755 $(DAEMON_BIN) $(DESTDIR)$(bindir)/schedlensd)
	install -d $(DESTDIR)$(unitdir) $(DESTDIR)$(sysconfdir)/schedlens
	sed -e 's|@bindir@|$(bindir)|g' -e 's|@sysconfdir@|$(sysconfdir)|g' \
		daemon/schedlensd.service.in > $(DESTDIR)$(unitdir)/schedlensd.service
	chmod 0644 $(DESTDIR)$(unitdir)/schedlensd.service
	install -d $(DESTDIR)$(pkglibdir)
	install -m 0644 $(SQL_EXT) $(DESTDIR)$(pkglibdir)/schedlens-sql.so
	install -d $(DESTDIR)$(labdir)
	install -m 0755 $(LAB_SCRIPTS) $(DESTDIR)$(labdir)/
	chmod 0644 $(DESTDIR)$(labdir)/lib.sh
	install -d $(DESTDIR)$(datadir)/schedlens/prometheus
	install -m 0644 $(RULES) $(DESTDIR)$(datadir)/schedlens/prometheus/schedlens-rules.yml
	test -e $(DESTDIR)$(sysconfdir)/schedlens/schedlensd.conf || \
		install -m 0644 $(DEFAULT_CONF) $(DESTDIR)$(sysconfdir)/schedlens/schedlensd.conf

# The Debian package (debian/, dpkg-buildpackage and debhelper: `make deps` installs them),
# built in a copy of the tracked and new files under $(O)/deb/ (dpkg-buildpackage writes its
# output beside the source tree, and its clean step would remove $(O)); the .deb lands in
# $(O)/deb/. VERSION (git describe) goes along: the copy has no .git.
# DEB_BUILD_OPTIONS=nocheck skips the unit tests the package build runs.
DEB_DIR := $(O)/deb
DEB_JOBS ?= $(shell nproc)
deb:
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' - | \
			tar -c --null -T - -f - | tar -x -C $(DEB_DIR)/src; \
	else \
		tar -c --exclude='./build*' --exclude=./tests/browser/node_modules -f - . | \
			tar -x -C $(DEB_DIR)/src; \
	fi
	$(call say,DEB,$(DEB_DIR))
	$(Q)cd $(DEB_DIR)/src && SL_DEB_VERSION='$(VERSION)' dpkg-buildpackage -us -uc -b -j$(DEB_JOBS) \
		> ../build.log 2>&1 || { tail -40 ../build.log >&2; exit 1; }
	$(Q)ls $(DEB_DIR)/*.deb

clean:
	rm -rf $(O)

# makes web-list check its content on every run
FORCE:

# make help: every target a user or CI calls, one line each.
help:
	@echo 'make [O=DIR] [V=1] [SANITIZE=address,undefined] TARGET (default: all)'
	@echo '  all              build schedlens and schedlensd into $$(O) (default build/)'
	@echo '  deps             install the Debian packages the build and tests need (root)'
	@echo '  check            the test suite: check-rules, check-unit, then check-integration'
	@echo '  check-rules      promtool check and test the Prometheus rules in prometheus/'
	@echo '  check-unit       check-layers, then unit tests CHECK_JOBS at a time (under a minute)'
	@echo '  check-layers     lib/ stages include downward only, SQL only in lib/store/store*.c,'
	@echo '                   CLI output through cli/print.h (scripts/check-layers)'
	@echo '  check-integration  integration tests (root, tracefs, PostgreSQL, chromium)'
	@echo '  bench            benchmarks that print speed and memory figures'
	@echo '  calibrate        verdicts on synthetic A/A pairs and known effects (CALIBRATE_PAIRS)'
	@echo '  calibrate-lab    the same on real kernels in the QEMU lab (CALIBRATE_ROUNDS)'
	@echo '  lab              one lab run into $$(O)/lab/lab.db (LAB_KERNEL, LAB_WORKLOAD, LAB_ARGS)'
	@echo '  lab-check        the kernel lab acceptance suite (about 25 minutes; CI runs it)'
	@echo '  lab-full         lab-check and lab explain'"'"'s known answer (about 15 minutes more)'
	@echo '  fuzz             libFuzzer on the text parser and trace.dat reader (FUZZ_SECONDS)'
	@echo '  format, format-check  clang-format the C sources, or check them'
	@echo '  run              the daemon in the foreground on 127.0.0.1:9347 (RUN_DB)'
	@echo '  install, install-man  binaries, man pages, the systemd unit, the config and the'
	@echo '                   Prometheus rules (DESTDIR, prefix)'
	@echo '  deb              the Debian package into $$(O)/deb/ (lintian $$(O)/deb/*.deb)'
	@echo '  clean            remove $$(O)'

.PHONY: all check check-rules check-layers check-unit check-integration schema-doc schema-current bench calibrate calibrate-lab fuzz run deps \
	pkgcheck format format-check install install-man deb clean lab lab-check lab-full help FORCE
# FORCE is phony: a file that depends on it is remade every time (.SECONDARY alone would
# let a missing FORCE count as up to date)
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
