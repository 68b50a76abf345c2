# The stand-in simulator (test/camodel) in a CANN-shaped tree under
# build/cann, and the sample operators (test/ops) under build/ops.
# See test/camodel/README.

CANN          := build/cann
CAMODEL_SOCS  := Ascend910B1 Ascend910B4 Ascend910_9391 Ascend310P1 dav_3510
CAMODEL_SRC   := test/camodel/rt.c test/camodel/sim.c test/camodel/logw.c test/camodel/devprof.c
# the project's decoders and PMU tables, built into the runtime (hidden)
CAMODEL_LIB   := lib/pmu.c lib/board.c lib/io.c lib/chip.c lib/cli.c lib/biu.c lib/mem.c lib/dbi.c lib/keytab.c lib/cload.c
CAMODEL_ACLSRC := test/camodel/acl.c test/camodel/ascendcl.c
CAMODEL_HDR   := $(wildcard test/camodel/*.h test/camodel/include/*.h test/camodel/include/*/*.h)
CAMODEL_FLAGS := $(BASEFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -Itest/camodel/include -Itest/camodel
CAMODEL_OBJ   := $(CAMODEL_SRC:test/camodel/%.c=build/camodel/obj/%.o) $(CAMODEL_LIB:lib/%.c=build/camodel/obj/lib/%.o)
CAMODEL_LIBS  := -ldl -lpthread -llz4 -lm
CAMODEL_SIMLIBS := $(foreach s,$(CAMODEL_SOCS),$(CANN)/tools/simulator/$(s)/lib/libruntime_camodel.so \
                     $(CANN)/tools/simulator/$(s)/lib/libpem_davinci.so)
CAMODEL_CONF  := $(foreach s,Ascend910B1 Ascend910B4 Ascend910_9391,$(CANN)/tools/simulator/$(s)/lib/pem_config_cloud.toml) \
                 $(CANN)/tools/simulator/dav_3510/lib/config.json \
                 $(CANN)/tools/simulator/Ascend310P1/lib/davinci_vec_core.spec
CAMODEL_TREE  := $(CAMODEL_SIMLIBS) $(CAMODEL_CONF) $(CANN)/lib64/libruntime.so $(CANN)/set_env.sh \
                 $(CANN)/include/.ok

DEP_OBJS_MK += $(CAMODEL_OBJ) build/camodel/obj/acl.o build/camodel/obj/ascendcl.o
build/camodel/obj/%.o: test/camodel/%.c build/camodel/obj/%.d | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CAMODEL_FLAGS) $(DEPFLAGS) -c $< -o $@
build/camodel/obj/lib/%.o: lib/%.c build/camodel/obj/lib/%.d | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CAMODEL_FLAGS) $(DEPFLAGS) -c $< -o $@

# One build of the runtime; each simulator directory gets a copy, and the
# copy in lib64 (libruntime.so, what ACL and the launcher link against)
# takes its SoC from CAMODEL_SOC_VERSION or LD_LIBRARY_PATH.
build/camodel/libruntime_camodel.so: $(CAMODEL_OBJ)
	$(CC) -shared -Wl,-soname,libruntime_camodel.so -Wl,-z,defs -o $@ $^ $(CAMODEL_LIBS)
$(CANN)/lib64/libruntime.so: $(CAMODEL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libruntime.so -Wl,-z,defs -o $@ $^ $(CAMODEL_LIBS)
$(CANN)/tools/simulator/%/lib/libruntime_camodel.so: build/camodel/libruntime_camodel.so
	@mkdir -p $(dir $@)
	cp $< $@
# CANN keeps DvcSetLogLevel/DvcAttachLogCallback in libpem_davinci.so; the
# stand-in's is empty and pulls them in from libruntime_camodel.so.
$(CANN)/tools/simulator/%/lib/libpem_davinci.so: test/camodel/pem.c $(CANN)/tools/simulator/%/lib/libruntime_camodel.so
	$(CC) $(CAMODEL_FLAGS) -shared -Wl,-soname,libpem_davinci.so -Wl,--no-as-needed -o $@ $< \
		-L$(dir $@) -lruntime_camodel '-Wl,-rpath,$$ORIGIN'
$(CANN)/tools/simulator/%/lib/pem_config_cloud.toml: test/camodel/config/pem_config_cloud.toml
	@mkdir -p $(dir $@)
	cp $< $@
$(CANN)/tools/simulator/%/lib/config.json: test/camodel/config/config.json
	@mkdir -p $(dir $@)
	cp $< $@
$(CANN)/tools/simulator/%/lib/davinci_vec_core.spec: test/camodel/config/davinci_vec_core.spec
	@mkdir -p $(dir $@)
	cp $< $@
$(CANN)/include/.ok: $(CAMODEL_HDR)
	@mkdir -p $(CANN)/include
	cp -R test/camodel/include/. $(CANN)/include/
	@touch $@
$(CANN)/set_env.sh: test/camodel/set_env.sh.in
	@mkdir -p $(CANN)
	sed "s|@ROOT@|$(abspath $(CANN))|g" $< > $@

# ACL: libascendcl.so (public names) -> libacl_rt_impl.so (the Impls) ->
# libruntime.so, found beside them ($ORIGIN) unless LD_LIBRARY_PATH or a
# preload supplies the runtime first.
$(CANN)/lib64/libacl_rt_impl.so: build/camodel/obj/acl.o $(CANN)/lib64/libruntime.so
	$(CC) -shared -Wl,-soname,libacl_rt_impl.so -o $@ $< -L$(CANN)/lib64 -lruntime '-Wl,-rpath,$$ORIGIN'
$(CANN)/lib64/libascendcl.so: build/camodel/obj/ascendcl.o $(CANN)/lib64/libacl_rt_impl.so
	$(CC) -shared -Wl,-soname,libascendcl.so -o $@ $< -L$(CANN)/lib64 -lacl_rt_impl '-Wl,-rpath,$$ORIGIN'
CAMODEL_TREE += $(CANN)/lib64/libacl_rt_impl.so $(CANN)/lib64/libascendcl.so

# mstx: lib64/libms_tools_ext.so, which hands the application's ranges to a
# profiling tool (README section 10).
DEP_OBJS_MK += build/camodel/obj/mstx.o
$(CANN)/lib64/libms_tools_ext.so: build/camodel/obj/mstx.o
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libms_tools_ext.so -o $@ $< -ldl -lpthread
CAMODEL_TREE += $(CANN)/lib64/libms_tools_ext.so

# The compiler's dfx_region instrumentation (README section 12), where
# CANN keeps bisheng-tune.
$(CANN)/compiler/ccec_compiler/bin/bisheng-tune: test/camodel/bisheng-tune.c test/camodel/kscan.c \
		test/camodel/kscan.h test/camodel/devprof.h test/camodel/include/camodel_kernel.h build/liboptrace.a | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Itest/camodel/include -Itest/camodel -o $@ test/camodel/bisheng-tune.c \
		test/camodel/kscan.c build/liboptrace.a $(LDLIBS)
CAMODEL_TREE += $(CANN)/compiler/ccec_compiler/bin/bisheng-tune

# ---- sample operators ----
# Kernels are -g shared objects (test/camodel/README section 2); each has a
# .json beside it naming its kernel type, as aclrtBinaryLoadFromFile reads.
OPS           := build/ops
OPS_KFLAGS    := -std=c11 $(WARN) -g -O0 -fPIC -shared -fno-optimize-sibling-calls -Itest/camodel/include
OPS_HFLAGS    := $(BASEFLAGS) $(CFLAGS) -Itest/camodel/include
OPS_RTLINK    := -L$(CANN)/tools/simulator/Ascend910B1/lib -lruntime_camodel
OPS_ACLLINK   := -L$(CANN)/lib64 -lascendcl -lm
OPS_KHDR      := test/camodel/include/camodel_kernel.h
OPS_KERNELS   := add_custom add_custom_trace matmul_custom mixed_custom mixed_custom_dots simt_custom count_custom count_drain
OPS_BINS      := add_rt op_rt op_acl mstx_rt mstx_acl
OPS_ALL       := $(OPS_KERNELS:%=$(OPS)/kernels/%.o) $(OPS_KERNELS:%=$(OPS)/kernels/%.json) \
                 $(OPS_BINS:%=$(OPS)/bin/%)

ops_magic = $(if $(filter matmul_custom,$(1)),RT_DEV_BINARY_MAGIC_ELF_AICUBE,$(if $(filter mixed_custom mixed_custom_dots,$(1)),RT_DEV_BINARY_MAGIC_ELF,RT_DEV_BINARY_MAGIC_ELF_AIVEC))
$(OPS)/kernels/%.json:
	@mkdir -p $(dir $@)
	printf '{"magic": "%s"}\n' $(call ops_magic,$*) > $@
$(OPS)/kernels/add_custom.o: test/ops/vadd/add_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/kernels/add_custom_trace.o: test/ops/vadd/add_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -DASCENDC_TRACE_ON -o $@ $<
$(OPS)/kernels/matmul_custom.o: test/ops/matmul/matmul_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/kernels/mixed_custom.o: test/ops/mixed/mixed_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/kernels/mixed_custom_dots.o: test/ops/mixed/mixed_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -DTIMESTAMP_DOTS -o $@ $<
$(OPS)/kernels/simt_custom.o: test/ops/simt/simt_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/kernels/count_custom.o: test/ops/count/count_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/kernels/count_drain.o: test/ops/count/count_custom.c $(OPS_KHDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -DDRAIN -o $@ $<

$(OPS)/bin/add_rt: test/ops/vadd/add_rt.c test/ops/common/host.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_RTLINK)
$(OPS)/bin/op_rt: test/ops/host/op_rt.c test/ops/common/host.h test/ops/common/samples.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_RTLINK) -lm
$(OPS)/bin/mstx_rt: test/ops/mstx/mstx_rt.c test/ops/common/host.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_RTLINK) -L$(CANN)/lib64 -lms_tools_ext -lpthread
$(OPS)/bin/mstx_acl: test/ops/mstx/mstx_acl.c test/ops/common/host.h test/ops/common/samples.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_ACLLINK) -lms_tools_ext
$(OPS)/bin/op_acl: test/ops/host/op_acl.c test/ops/common/host.h test/ops/common/samples.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_ACLLINK)

# The --config path: CANN's kernel-launcher is linked against libruntime.so
# (see optrace-capture(5), THE RUN DIRECTORY, tmp_dump/, and KERNEL
# DESCRIPTIONS, kernel_config.bin); found beside the tree's lib64 unless
# LD_LIBRARY_PATH names another first.
$(CANN)/tools/msopt/bin/kernel-launcher: test/ops/launcher/kernel-launcher.c $(CAMODEL_TREE) | $(DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< -L$(CANN)/lib64 -lruntime -lascendcl -lcjson '-Wl,-rpath,$$ORIGIN/../../../lib64'
$(OPS)/bin/add_acl.py: test/ops/vadd/add_acl.py
	@mkdir -p $(dir $@)
	cp $< $@
$(OPS)/config/add_custom.json: test/ops/launcher/make_case.py $(OPS)/kernels/add_custom.o
	python3 $< $(OPS)/config $(OPS)/kernels/add_custom.o
OPS_ALL += $(CANN)/tools/msopt/bin/kernel-launcher $(OPS)/bin/add_acl.py $(OPS)/config/add_custom.json

.PHONY: camodel
camodel: $(CAMODEL_TREE) $(OPS_ALL)
EXTRA_ALL += camodel

# test helper: callback mode written back as dump lines (camodel.bats)
build/camodel/cbcollect.so: test/camodel/cbcollect.c test/camodel/include/dvc_log.h $(CAMODEL_TREE)
	$(CC) $(BASEFLAGS) $(CFLAGS) -fPIC -shared -Itest/camodel/include -o $@ $< \
		-L$(CANN)/tools/simulator/Ascend910B1/lib -lruntime_camodel
EXTRA_CHECK += build/camodel/cbcollect.so

# make bench: 1 GiB of dumps from the stand-in, timed (goal: under a minute)
.PHONY: camodel-bench
camodel-bench: camodel
	@sh test/camodel/bench.sh
EXTRA_BENCH += camodel-bench

# make bench: about 1 GB of on-board raw files from board-gen, timed
.PHONY: board-bench
board-bench: build/bin/board-gen build/bin/.ok build/bin/peakrss build/bin/biu-bench
	@sh test/tools/board-bench.sh
EXTRA_BENCH += board-bench
