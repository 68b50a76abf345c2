# optrace — build, test, benchmark.  See README.
#   make            build the tools into build/bin
#   make demo       install missing packages, build, run the sample job
#   make check      build and run every test (also under ASan/UBSan)
#   make bench      throughput and memory benchmarks (test/bench)

CC      ?= cc
CFLAGS  ?= -O3 -g
WARN    := -Wall -Wextra -Werror
BASEFLAGS := -std=c11 -D_GNU_SOURCE -Ilib $(WARN)
LDLIBS  := -llz4 -lm
PREFIX  ?= /usr/local

TOOLS   := dump-split instr-parse rec-cat timeline-emit trace-clean icache-merge scalar-merge mte-parse
LIBSRC  := $(wildcard lib/*.c)
LIBHDR  := $(wildcard lib/*.h)

# Fragments in mk/*.mk add their own parts (the stand-in simulator, inject/,
# sim-capture...) by appending to TOOLS and to these lists.
EXTRA_ALL   :=
EXTRA_CHECK :=
EXTRA_BENCH :=
EXTRA_INSTALL :=
.DEFAULT_GOAL := all
include $(wildcard mk/*.mk)

# Per-tool private sources live in cmd/<tool>/.
tool_srcs = cmd/$(1).c $(wildcard cmd/$(1)/*.c)
tool_objs = $(patsubst %.c,$(2)/obj/%.o,$(call tool_srcs,$(1)))

.PHONY: all deps demo check check-unit check-bats bench install clean fuzz golden

all: deps-quiet build/bin/.ok $(EXTRA_ALL)

# ---- dependencies: installed with apt-get when absent (needs root or sudo) ----
deps:
	@sh mk/deps.sh
deps-quiet: ; @sh mk/deps.sh
.PHONY: deps-quiet

# ---- the normal build ----
build/obj/%.o: %.c $(LIBHDR) $(wildcard cmd/*/*.h) | deps-quiet
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

build/liboptrace.a: $(LIBSRC:%.c=build/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

define tool_rule
build/bin/$(1): $(call tool_objs,$(1),build) build/liboptrace.a
	@mkdir -p build/bin
	$$(CC) $$(CFLAGS) -o $$@ $$(filter %.o,$$^) build/liboptrace.a $$(LDLIBS)
build/obj/cmd/$(1).o build/obj/cmd/$(1)/%.o: CFLAGS += -Icmd/$(1)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

build/bin/.ok: $(TOOLS:%=build/bin/%)
	@touch $@

# ---- the sanitizer build: same sources, own tree ----
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
build-san/obj/%.o: %.c $(LIBHDR) $(wildcard cmd/*/*.h) | deps-quiet
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(SANFLAGS) -c $< -o $@

build-san/liboptrace.a: $(LIBSRC:%.c=build-san/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

define san_rule
build-san/bin/$(1): $(call tool_objs,$(1),build-san) build-san/liboptrace.a
	@mkdir -p build-san/bin
	$$(CC) $$(SANFLAGS) -o $$@ $$(filter %.o,$$^) build-san/liboptrace.a $$(LDLIBS)
build-san/obj/cmd/$(1).o build-san/obj/cmd/$(1)/%.o: SANFLAGS += -Icmd/$(1)
endef
$(foreach t,$(TOOLS),$(eval $(call san_rule,$(t))))

# ---- unit tests (C programs printing "N passed, N failed") ----
UNIT := $(patsubst test/unit/%.c,%,$(wildcard test/unit/test_*.c))
unit_extra_test_calc := cmd/instr-parse/calc.c

build/unit/%: test/unit/%.c build/liboptrace.a
	@mkdir -p build/unit
	$(CC) $(BASEFLAGS) $(CFLAGS) -Icmd/instr-parse -o $@ $< $(unit_extra_$*) build/liboptrace.a $(LDLIBS)
build-san/unit/%: test/unit/%.c build-san/liboptrace.a
	@mkdir -p build-san/unit
	$(CC) $(BASEFLAGS) $(SANFLAGS) -Icmd/instr-parse -o $@ $< $(unit_extra_$*) build-san/liboptrace.a $(LDLIBS)

# ---- test helpers ----
build/bin/gen-dump: test/bench/gen-dump.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<
build/bin/peakrss: test/bench/peakrss.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<

build/bin/decode-bench: test/bench/decode-bench.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -o $@ $< build/liboptrace.a $(LDLIBS)

build/bin/vdata-dump: test/tools/vdata-dump.c build/liboptrace.a
	@mkdir -p build/bin
	$(CC) $(BASEFLAGS) -O2 -g -o $@ $< build/liboptrace.a $(LDLIBS)

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

HELPERS := build/bin/gen-dump build/bin/peakrss build/bin/decode-bench build/bin/vdata-dump \
           build/bin/gen-vdata build/fault.so

check: deps-quiet build/bin/.ok $(EXTRA_ALL) $(EXTRA_CHECK) $(TOOLS:%=build-san/bin/%) $(UNIT:%=build/unit/%) $(UNIT:%=build-san/unit/%) $(HELPERS)
	@sh test/run-all.sh "$(UNIT)"

demo: deps-quiet build/bin/.ok $(EXTRA_ALL)
	@sh pipelines/demo

bench: deps-quiet build/bin/.ok $(EXTRA_ALL) $(EXTRA_BENCH) $(HELPERS)
	@sh test/bench/run.sh
	@sh test/bench/trace-clean.sh
	@if [ -n "$${BENCH_BASE:-}" ]; then sh test/bench/compare.sh "$$BENCH_BASE"; fi

install: build/bin/.ok
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(TOOLS:%=build/bin/%) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/optrace
	install -m 644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 644 pipelines/batch.mk $(DESTDIR)$(PREFIX)/share/optrace/
	$(EXTRA_INSTALL)

# ---- fuzzing: not part of check (test/fuzz/README) ----
#   make fuzz [FUZZ_TIME=seconds per target] [FUZZ_TARGETS="grammar tar rec"]
# New inputs go to build-fuzz/<target>.corpus; test/fuzz/corpus_* are only read.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 30
FUZZ_TARGETS ?= grammar tar rec
FUZZFLAGS    := -std=c11 -D_GNU_SOURCE -Ilib -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined
fuzz_src_grammar := cmd/instr-parse/grammar.c cmd/instr-parse/calc.c
fuzz_inc_grammar := -Icmd/instr-parse
fuzz_src_tar     := cmd/dump-split/tar.c lib/io.c
fuzz_inc_tar     := -Icmd/dump-split
fuzz_src_rec     := lib/rec.c lib/text.c lib/io.c lib/cli.c lib/chip.c
fuzz_seed_grammar := test/fuzz/corpus_grammar
fuzz_seed_tar     := test/fuzz/corpus_tar
fuzz_seed_rec     := test/fuzz/corpus_rec
fuzz_opts_grammar := -max_len=512

build-fuzz/fuzz_%: test/fuzz/fuzz_%.c $(LIBSRC) $(LIBHDR) $(wildcard cmd/*/*.[ch])
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZFLAGS) $(fuzz_inc_$*) -o $@ $< $(fuzz_src_$*) -llz4 -lm

define fuzz_rule
fuzz-$(1): build-fuzz/fuzz_$(1)
	@mkdir -p build-fuzz/$(1).corpus
	build-fuzz/fuzz_$(1) -max_total_time=$$(FUZZ_TIME) -print_final_stats=1 \
		-artifact_prefix=build-fuzz/$(1)- $$(fuzz_opts_$(1)) build-fuzz/$(1).corpus $$(fuzz_seed_$(1))
.PHONY: fuzz-$(1)
endef
$(foreach t,grammar tar rec,$(eval $(call fuzz_rule,$(t))))
fuzz: $(FUZZ_TARGETS:%=fuzz-%)

# Regenerate the golden outputs after an intended change; review with git diff.
golden: build/bin/.ok
	sh test/golden/regen.sh

clean:
	rm -rf build build-san build-fuzz
