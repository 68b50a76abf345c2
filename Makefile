# optrace — build, test, benchmark.  See README.
#   make            build the tools into build/bin (never installs packages)
#   make deps       install the missing Debian packages
#   make demo       install missing packages, build, run the sample job
#   make check      install missing packages, build and run every test
#                   (also under ASan/UBSan); check-unit, check-bats: a part
#   make bench      throughput and memory benchmarks (test/bench)
#   make bench-scale  sim-export on 1 GiB and 10 GiB dumps (time, RSS, disk)
#   make bench-ref BENCH_REF=MSOPPROF  sim-export against msopprof's export
#   make fuzz       the libFuzzer targets (test/fuzz/README)

CC      ?= cc
CFLAGS  ?= -O3 -g
WARN    := -Wall -Wextra -Werror
BASEFLAGS := -std=c11 -D_GNU_SOURCE -Ilib $(WARN)
# Each object also writes its header dependencies (.d, read at the end).
DEPFLAGS := -MMD -MP
LDLIBS  := -llz4 -lm
PREFIX  ?= /usr/local

# The one list of the tools: each is built from cmd/<tool>.c and
# cmd/<tool>/*.c into build/bin (and build-san/bin), and installed with
# its man page.  SCRIPTS are the shell tools of pipelines/, copied next to
# them.
TOOLS   := dump-split instr-parse rec-cat timeline-emit trace-clean icache-merge scalar-merge \
           mte-parse sim-capture src-map board-metrics prof-diff biu-timeline \
           warp-timeline pc-stall mc2-timeline board-code aic-timeline
SCRIPTS := sim-flow sim-export board-flow board-export
# Libraries only one tool links.
# libarchive.a (in libarchive-dev): only its tar reader is linked in,
# without the shared library's dependencies (libxml2, libcrypto, ICU...).
LDLIBS_dump-split  := -Wl,-Bstatic -larchive -Wl,-Bdynamic
LDLIBS_sim-capture   := -lcjson
LDLIBS_board-metrics := -lcjson
LDLIBS_aic-timeline  := -lcjson

LIBSRC  := $(wildcard lib/*.c)

# ---- dependencies ----
# Only make deps and the targets the README names as installing (check,
# demo, bench, fuzz) run apt-get; any other make stops with one line naming
# the missing packages and make deps.
INSTALLING_GOALS := deps check demo bench bench-scale bench-ref fuzz fuzz-%
ifneq ($(filter $(INSTALLING_GOALS),$(MAKECMDGOALS)),)
DEPS := deps
else
DEPS := deps-build
endif
deps:
	@sh mk/deps.sh install
deps-build:
	@sh mk/deps.sh build
deps-tests:
	@sh mk/deps.sh tests
deps-fuzz:
	@sh mk/deps.sh fuzz

# Fragments in mk/*.mk add their own parts (the stand-in simulator, the
# preload library, benchmarks...) by appending to these lists (DEP_OBJS_MK:
# their objects compiled with -MMD).
EXTRA_ALL   :=
EXTRA_CHECK :=
EXTRA_BENCH :=
DEP_OBJS_MK :=
.DEFAULT_GOAL := all
include $(wildcard mk/*.mk)

# Per-tool private sources live in cmd/<tool>/.
tool_srcs = cmd/$(1).c $(wildcard cmd/$(1)/*.c)
tool_objs = $(patsubst %.c,$(2)/obj/%.o,$(call tool_srcs,$(1)))

.PHONY: all deps deps-build deps-tests deps-fuzz demo check check-unit check-bats bench bench-scale bench-ref \
        install clean fuzz golden

all: build/bin/.ok $(EXTRA_ALL)

# ---- the normal build ----
build/obj/%.o: %.c build/obj/%.d | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

build/liboptrace.a: $(LIBSRC:%.c=build/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

define tool_rule
build/bin/$(1): $(call tool_objs,$(1),build) build/liboptrace.a
	@mkdir -p build/bin
	$$(CC) $$(CFLAGS) -o $$@ $$(filter %.o,$$^) build/liboptrace.a $$(LDLIBS_$(1)) $$(LDLIBS)
build/obj/cmd/$(1).o build/obj/cmd/$(1)/%.o: CFLAGS += -Icmd/$(1)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# (A new file renamed over the old: a shell running the old one reads it as
# it goes, and must not find the new text under its feet.)
$(SCRIPTS:%=build/bin/%): build/bin/%: pipelines/%
	@mkdir -p $(dir $@)
	cp $< $@.tmp && chmod 755 $@.tmp && mv -f $@.tmp $@
$(SCRIPTS:%=build-san/bin/%): build-san/bin/%: pipelines/%
	@mkdir -p $(dir $@)
	cp $< $@.tmp && chmod 755 $@.tmp && mv -f $@.tmp $@

build/bin/.ok: $(TOOLS:%=build/bin/%) $(SCRIPTS:%=build/bin/%)
	@touch $@

# ---- the sanitizer build: same sources, own tree ----
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
build-san/obj/%.o: %.c build-san/obj/%.d | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(SANFLAGS) $(DEPFLAGS) -c $< -o $@

build-san/liboptrace.a: $(LIBSRC:%.c=build-san/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

define san_rule
build-san/bin/$(1): $(call tool_objs,$(1),build-san) build-san/liboptrace.a
	@mkdir -p build-san/bin
	$$(CC) $$(SANFLAGS) -o $$@ $$(filter %.o,$$^) build-san/liboptrace.a $$(LDLIBS_$(1)) $$(LDLIBS)
build-san/obj/cmd/$(1).o build-san/obj/cmd/$(1)/%.o: SANFLAGS += -Icmd/$(1)
endef
$(foreach t,$(TOOLS),$(eval $(call san_rule,$(t))))

# ---- unit tests (C programs printing "N passed, N failed") ----
# A test that needs a tool's private file names it in unit_extra_<test>.
UNIT := $(patsubst test/unit/%.c,%,$(wildcard test/unit/test_*.c))
unit_extra_test_calc := cmd/instr-parse/calc.c
unit_extra_test_devprof := -Itest/camodel test/camodel/devprof.c
build/unit/test_devprof build-san/unit/test_devprof: test/camodel/devprof.c test/camodel/devprof.h
unit_extra_test_kscan := -Itest/camodel -Itest/camodel/include test/camodel/kscan.c
build/unit/test_kscan build-san/unit/test_kscan: test/camodel/kscan.c test/camodel/kscan.h
unit_extra_test_config := cmd/sim-capture/config.c
unit_libs_test_config  := -Icmd/sim-capture -lcjson
unit_libs_test_aicts   := -lcjson
unit_extra_test_elf    := inject/elf.c
unit_libs_test_elf     := -Iinject
unit_extra_test_split  := cmd/timeline-emit/split.c
unit_libs_test_split   := -Icmd/timeline-emit
unit_extra_test_emit_rerun := -DOPTRACE_FUZZ cmd/timeline-emit.c $(wildcard cmd/timeline-emit/*.c)
unit_libs_test_emit_rerun  := -Icmd/timeline-emit -lcjson

build/unit/%: test/unit/%.c build/liboptrace.a | $(DEPS)
	@mkdir -p build/unit
	$(CC) $(BASEFLAGS) $(CFLAGS) $(DEPFLAGS) -Icmd/instr-parse -o $@ $< $(unit_extra_$*) build/liboptrace.a \
		$(unit_libs_$*) $(LDLIBS)
build-san/unit/%: test/unit/%.c build-san/liboptrace.a | $(DEPS)
	@mkdir -p build-san/unit
	$(CC) $(BASEFLAGS) $(SANFLAGS) $(DEPFLAGS) -Icmd/instr-parse -o $@ $< $(unit_extra_$*) build-san/liboptrace.a \
		$(unit_libs_$*) $(LDLIBS)

# ---- test helpers ----
build/bin/gen-dump: test/bench/gen-dump.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<
build/bin/peakrss: test/bench/peakrss.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<

build/bin/biu-bench: test/bench/biu-bench.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -g -o $@ $< build/liboptrace.a $(LDLIBS)
build/bin/decode-bench: test/bench/decode-bench.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -o $@ $< build/liboptrace.a $(LDLIBS)

build/bin/board-synth: test/tools/board-synth.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<

build/bin/vdata-dump: test/tools/vdata-dump.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -g -o $@ $< build/liboptrace.a $(LDLIBS)

build/bin/svg-demo: test/tools/svg-demo.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -g -o $@ $< build/liboptrace.a $(LDLIBS)
build-san/bin/svg-demo: test/tools/svg-demo.c build-san/liboptrace.a
	@mkdir -p build-san/bin
	$(CC) $(BASEFLAGS) $(SANFLAGS) -o $@ $< build-san/liboptrace.a $(LDLIBS)
# the on-board raw files (test/tools/README)
build/bin/board-gen: test/tools/board-gen.c test/camodel/devprof.c test/camodel/devprof.h build/liboptrace.a
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 -g -Itest/camodel -o $@ test/tools/board-gen.c test/camodel/devprof.c build/liboptrace.a $(LDLIBS)

build/bin/gen-vdata: test/bench/gen-vdata.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -g -o $@ $< build/liboptrace.a $(LDLIBS)

# The trace-clean unit test links the tool's scanner and sort objects.
unit_trace_clean := jscan spill
build/unit/test_trace_clean: unit_extra_test_trace_clean = $(unit_trace_clean:%=build/obj/cmd/trace-clean/%.o)
build/unit/test_trace_clean: $(unit_trace_clean:%=build/obj/cmd/trace-clean/%.o)
build-san/unit/test_trace_clean: unit_extra_test_trace_clean = $(unit_trace_clean:%=build-san/obj/cmd/trace-clean/%.o)
build-san/unit/test_trace_clean: $(unit_trace_clean:%=build-san/obj/cmd/trace-clean/%.o)

# Fault injection for test/bats/faults.bats (test/fault/README).
build/fault.so: test/fault/fault.c
	@mkdir -p build
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -shared -fPIC -o $@ $< -ldl

HELPERS := build/bin/gen-dump build/bin/peakrss build/bin/decode-bench build/bin/biu-bench build/bin/vdata-dump \
           build/bin/gen-vdata build/bin/svg-demo build-san/bin/svg-demo build/bin/board-gen build/bin/board-synth build/fault.so

# The tests, both builds each (test/run-all.sh): check-unit the C unit
# tests, check-bats the bats suites, check both (and installs what they need
# first, as CI runs it on a fresh machine).
CHECK_UNIT := $(UNIT:%=build/unit/%) $(UNIT:%=build-san/unit/%)
CHECK_BATS := build/bin/.ok $(EXTRA_ALL) $(EXTRA_CHECK) $(TOOLS:%=build-san/bin/%) \
              $(SCRIPTS:%=build-san/bin/%) $(HELPERS)
check: $(DEPS) $(CHECK_UNIT) $(CHECK_BATS)
	@sh test/run-all.sh "$(UNIT)"
check-unit: $(CHECK_UNIT)
	@sh test/run-all.sh -u "$(UNIT)"
check-bats: deps-tests $(CHECK_BATS)
	@sh test/run-all.sh -b "$(UNIT)"

demo: $(DEPS) build/bin/.ok $(EXTRA_ALL)
	@sh pipelines/demo

bench: $(DEPS) build/bin/.ok $(EXTRA_ALL) $(EXTRA_BENCH) $(HELPERS)
	@sh test/bench/run.sh
	@sh test/bench/trace-clean.sh
	@sh test/bench/prof-diff.sh
	@if [ -n "$${BENCH_BASE:-}" ]; then sh test/bench/compare.sh "$$BENCH_BASE"; fi

# sim-export on 1 GiB and 10 GiB dumps: time, peak RSS, temporaries
# (BENCH_SCALE_SIZES in MiB; about 60 GB of free disk for the default).
bench-scale: $(DEPS) build/bin/.ok $(HELPERS)
	@sh test/bench/scale.sh
# make bench-ref BENCH_REF=/path/to/msopprof: sim-export against msopprof's
# own export of the same 100 MiB dump (CPU and peak-RSS ratios)
bench-ref: $(DEPS) build/bin/.ok $(HELPERS)
	@sh test/bench/ref.sh

# The tools and their man pages; what mk/*.mk adds (the preload library)
# hangs on install too.
MANDIR := $(DESTDIR)$(PREFIX)/share/man
install: build/bin/.ok
	install -d $(DESTDIR)$(PREFIX)/bin $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man7 \
		$(DESTDIR)$(PREFIX)/share/optrace
	install -m 755 $(TOOLS:%=build/bin/%) $(SCRIPTS:%=pipelines/%) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(MANDIR)/man1/
	install -m 644 man/*.5 $(MANDIR)/man5/
	install -m 644 man/*.7 $(MANDIR)/man7/
	install -m 644 pipelines/batch.mk pipelines/batch-remote pipelines/remote.bash $(DESTDIR)$(PREFIX)/share/optrace/
	@# the index man -k reads (not for a staged install under DESTDIR)
	@[ -n "$(DESTDIR)" ] || ! command -v mandb >/dev/null 2>&1 || mandb -q "$(MANDIR)" 2>/dev/null || true

# ---- fuzzing: not part of check (test/fuzz/README) ----
#   make fuzz [FUZZ_SECONDS=seconds per target] [FUZZ_TARGETS="grammar tar ..."]
# FUZZ_ALL is the one list of the targets (FUZZ_TARGETS, the ones to run,
# defaults to it): target t is test/fuzz/fuzz_<t>.c, run over the seeds of
# test/fuzz/corpus_<t>; fuzz_src_<t> names the tool sources it needs
# besides the library (linked from build-fuzz/liboptrace.a, compiled under
# the same sanitizers), fuzz_inc_<t>, fuzz_libs_<t>, fuzz_opts_<t> and
# fuzz_env_<t> its include options, libraries, libFuzzer options and
# environment.  New inputs go to
# build-fuzz/<t>.corpus, a crash or sanitizer report to build-fuzz/<t>-crash-*
# and stops make.  FUZZ_TIME is the older name of FUZZ_SECONDS.  The fuzz
# build defines OPTRACE_FUZZ: a tool a target runs whole (scalar-merge,
# timeline-emit) leaves its main out.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= $(or $(FUZZ_TIME),60)
FUZZ_ALL     := grammar tar rec line board biu warp pcsamp mc2 aicts vdata elf kscan jscan icache ccu mte config trace \
                dbi smerge emit cload
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZSAN      := address,undefined -fno-sanitize-recover=undefined
FUZZFLAGS    := -std=c11 -D_GNU_SOURCE -DOPTRACE_FUZZ -Ilib -g -O1 -fno-omit-frame-pointer
fuzz_src_grammar  := cmd/instr-parse/grammar.c cmd/instr-parse/calc.c
fuzz_src_tar      := cmd/dump-split/bundle.c
fuzz_libs_tar     := -larchive
fuzz_src_elf      := inject/elf.c
fuzz_src_kscan    := test/camodel/kscan.c
fuzz_inc_kscan    := -Itest/camodel/include
fuzz_src_jscan    := cmd/trace-clean/jscan.c
fuzz_src_vdata    := cmd/trace-clean/jscan.c cmd/trace-clean/metrics.c
fuzz_src_trace    := cmd/trace-clean/jscan.c cmd/trace-clean/clean.c cmd/trace-clean/spill.c
fuzz_src_icache   := cmd/icache-merge/line.c
fuzz_src_ccu      := cmd/scalar-merge/ccu.c
fuzz_src_mte      := cmd/mte-parse/mline.c
fuzz_src_smerge   := cmd/scalar-merge.c cmd/scalar-merge/ccu.c
fuzz_src_emit     := cmd/timeline-emit.c $(wildcard cmd/timeline-emit/*.c)
fuzz_libs_emit    := -lcjson -Wl,--wrap=exit
fuzz_src_config   := cmd/sim-capture/config.c
fuzz_libs_config  := -lcjson -Wl,--wrap=cli_die
fuzz_libs_aicts   := -lcjson
fuzz_opts_grammar := -max_len=512
fuzz_opts_smerge  := -close_fd_mask=2
fuzz_opts_emit    := -close_fd_mask=3
fuzz_env_config   := ASAN_OPTIONS=detect_leaks=0
fuzz_env_emit     := ASAN_OPTIONS=detect_leaks=0
# each target's private sources' directories are on its include path
fuzz_inc = $(sort $(patsubst %/,-I%,$(dir $(fuzz_src_$(1))))) $(fuzz_inc_$(1))

build-fuzz/obj/%.o: %.c | deps-fuzz $(DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZFLAGS) -fsanitize=fuzzer-no-link,$(FUZZSAN) $(DEPFLAGS) $(FUZZ_INC) -c $< -o $@
build-fuzz/liboptrace.a: $(LIBSRC:%.c=build-fuzz/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

define fuzz_rule
build-fuzz/obj/test/fuzz/fuzz_$(1).o $(fuzz_src_$(1):%.c=build-fuzz/obj/%.o): FUZZ_INC = $(call fuzz_inc,$(1))
build-fuzz/fuzz_$(1): build-fuzz/obj/test/fuzz/fuzz_$(1).o $(fuzz_src_$(1):%.c=build-fuzz/obj/%.o) \
                      build-fuzz/liboptrace.a
	$$(FUZZ_CC) -fsanitize=fuzzer,$$(FUZZSAN) -o $$@ $$(filter %.o,$$^) build-fuzz/liboptrace.a \
		$$(fuzz_libs_$(1)) -llz4 -lm
fuzz-$(1): build-fuzz/fuzz_$(1)
	@mkdir -p build-fuzz/$(1).corpus
	$$(fuzz_env_$(1)) build-fuzz/fuzz_$(1) -max_total_time=$$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=build-fuzz/$(1)- $$(fuzz_opts_$(1)) build-fuzz/$(1).corpus test/fuzz/corpus_$(1)
.PHONY: fuzz-$(1)
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_rule,$(t))))
fuzz: $(DEPS) $(FUZZ_TARGETS:%=fuzz-%)

# Regenerate the golden outputs after an intended change; review with git diff.
golden: build/bin/.ok $(EXTRA_ALL)
	sh test/golden/regen.sh
	sh test/golden/board/regen.sh

clean:
	rm -rf build build-san build-fuzz

# Header dependencies written by -MMD (a deleted header is forgotten
# thanks to -MP).  Each .d file is named as a target without a rule, so an
# object whose .d is missing (built before there were any) is rebuilt once
# to write it.
DEP_OBJS := $(foreach t,$(TOOLS),$(call tool_objs,$(t),build) $(call tool_objs,$(t),build-san)) \
            $(LIBSRC:%.c=build/obj/%.o) $(LIBSRC:%.c=build-san/obj/%.o) $(DEP_OBJS_MK)
DEP_FILES := $(DEP_OBJS:.o=.d)
$(DEP_FILES):
# (any other object of these trees: no error when its .d is missing)
build/obj/%.d: ;
build-fuzz/obj/%.d: ;
build-san/obj/%.d: ;
build/inj/%.d: ;
build/camodel/obj/%.d: ;
-include $(wildcard $(DEP_FILES) build/unit/*.d build-san/unit/*.d $(foreach d,* */* */*/*,build-fuzz/obj/$(d)/*.d))
