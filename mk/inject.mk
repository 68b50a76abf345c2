# inject/ (the preload library), sim-capture and the sim-flow recipe.
#
# The library is built with -fPIC and hidden visibility from inject/*.c and
# its own -fPIC copies of the lib/ files it uses, so nothing of lib/ is
# exported into the application.  The sanitizer tree gets the same
# (unsanitized) library: a preloaded ASan library would need the ASan
# runtime loaded first in every application.

TOOLS += sim-capture

INJ_SRC := $(wildcard inject/*.c)
INJ_LIB := lib/rec.c lib/text.c
INJ_CFLAGS := -std=c11 -D_GNU_SOURCE -Ilib -Iinject $(WARN) -O2 -g -fPIC -fvisibility=hidden \
	-ffunction-sections -fdata-sections

build/inj/%.o: %.c $(wildcard inject/*.h) $(LIBHDR)
	@mkdir -p $(dir $@)
	$(CC) $(INJ_CFLAGS) -c $< -o $@

build/lib/liboptrace-inject.so: $(INJ_SRC:%.c=build/inj/%.o) $(INJ_LIB:%.c=build/inj/%.o)
	@mkdir -p build/lib
	$(CC) -shared -o $@ $^ -Wl,--gc-sections -Wl,-z,defs -Wl,-z,now -Wl,--as-needed -ldl -lpthread -llz4 -lm

build-san/lib/liboptrace-inject.so: build/lib/liboptrace-inject.so
	@mkdir -p build-san/lib
	cp $< $@

# sim-flow and the sim-export it runs, next to the tools.
build/bin/sim-flow: pipelines/sim-flow
	@mkdir -p build/bin
	cp $< $@ && chmod 755 $@
build/bin/sim-export: pipelines/sim-export
	@mkdir -p build/bin
	cp $< $@ && chmod 755 $@
build-san/bin/sim-flow: pipelines/sim-flow
	@mkdir -p build-san/bin
	cp $< $@ && chmod 755 $@
build-san/bin/sim-export: pipelines/sim-export
	@mkdir -p build-san/bin
	cp $< $@ && chmod 755 $@

EXTRA_ALL += build/lib/liboptrace-inject.so build/bin/sim-flow build/bin/sim-export
EXTRA_CHECK += build-san/lib/liboptrace-inject.so build-san/bin/sim-flow build-san/bin/sim-export

install: install-inject
.PHONY: install-inject
install-inject: build/lib/liboptrace-inject.so
	install -d $(DESTDIR)$(PREFIX)/lib/optrace $(DESTDIR)$(PREFIX)/bin
	install -m 644 build/lib/liboptrace-inject.so $(DESTDIR)$(PREFIX)/lib/optrace/
	install -m 755 pipelines/sim-flow pipelines/sim-export $(DESTDIR)$(PREFIX)/bin/

# The preload library's own test runtime and application (test/bench/inject-*):
# a tiny libruntime_camodel.so in a CANN-shaped tree, for inject.bats and the
# API-span benchmark; the end-to-end tests use the stand-in (test/camodel).
INJ_TEST := build/inject-test
INJ_TEST_SIM := $(INJ_TEST)/cann/tools/simulator
$(INJ_TEST_SIM)/Ascend910B1/lib/libruntime_camodel.so: test/bench/inject-rt.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -shared -fPIC -o $@ $<
$(INJ_TEST_SIM)/Ascend310P1/lib/libruntime_camodel.so: $(INJ_TEST_SIM)/Ascend910B1/lib/libruntime_camodel.so
	@mkdir -p $(dir $@)
	cp $< $@
$(INJ_TEST)/inject-app: test/bench/inject-app.c $(INJ_TEST_SIM)/Ascend910B1/lib/libruntime_camodel.so
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $< -L$(INJ_TEST_SIM)/Ascend910B1/lib -lruntime_camodel -lpthread
INJ_TEST_ALL := $(INJ_TEST_SIM)/Ascend910B1/lib/libruntime_camodel.so \
	$(INJ_TEST_SIM)/Ascend310P1/lib/libruntime_camodel.so $(INJ_TEST)/inject-app
EXTRA_CHECK += $(INJ_TEST_ALL)
.PHONY: inject-test
inject-test: $(INJ_TEST_ALL) build/lib/liboptrace-inject.so build/bin/sim-capture build/bin/sim-flow build/bin/sim-export

# make bench: the per-call cost of host API spans.
.PHONY: inject-bench
inject-bench: $(INJ_TEST_ALL) build/lib/liboptrace-inject.so
	@sh test/bench/inject-bench.sh
EXTRA_BENCH += inject-bench

# The sanitizer tree finds the stand-in simulator where the normal one does
# (sim-capture's default CANN root is ../cann next to its binary).
build-san/cann:
	@mkdir -p build-san
	ln -sfn ../build/cann $@
EXTRA_CHECK += build-san/cann

# --config reads JSON kernel descriptions with cJSON.
build/bin/sim-capture build-san/bin/sim-capture: LDLIBS += -lcjson
