# The stand-in simulator (test/camodel) in a CANN-shaped tree under
# build/cann, and the sample operators (test/ops) under build/ops.
# See test/camodel/README.

CANN          := build/cann
CAMODEL_SOCS  := Ascend910B1 Ascend910B4 Ascend310P1 dav_3510
CAMODEL_SRC   := test/camodel/rt.c test/camodel/sim.c test/camodel/logw.c
CAMODEL_HDR   := $(wildcard test/camodel/*.h test/camodel/include/*.h test/camodel/include/*/*.h)
CAMODEL_FLAGS := $(BASEFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -Itest/camodel/include -Itest/camodel
CAMODEL_OBJ   := $(CAMODEL_SRC:test/camodel/%.c=build/camodel/obj/%.o)
CAMODEL_SIMLIBS := $(foreach s,$(CAMODEL_SOCS),$(CANN)/tools/simulator/$(s)/lib/libruntime_camodel.so \
                     $(CANN)/tools/simulator/$(s)/lib/libpem_davinci.so)
CAMODEL_TREE  := $(CAMODEL_SIMLIBS) $(CANN)/lib64/libruntime.so $(CANN)/set_env.sh \
                 $(CANN)/include/.ok

build/camodel/obj/%.o: test/camodel/%.c $(CAMODEL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CAMODEL_FLAGS) -c $< -o $@

# One build of the runtime; each simulator directory gets a copy, and the
# copy in lib64 (libruntime.so, what ACL and the launcher link against)
# takes its SoC from CAMODEL_SOC_VERSION or LD_LIBRARY_PATH.
build/camodel/libruntime_camodel.so: $(CAMODEL_OBJ)
	$(CC) -shared -Wl,-soname,libruntime_camodel.so -o $@ $^ -ldl -lpthread
$(CANN)/lib64/libruntime.so: $(CAMODEL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libruntime.so -o $@ $^ -ldl -lpthread
$(CANN)/tools/simulator/%/lib/libruntime_camodel.so: build/camodel/libruntime_camodel.so
	@mkdir -p $(dir $@)
	cp $< $@
# CANN keeps DvcSetLogLevel/DvcAttachLogCallback in libpem_davinci.so; the
# stand-in's is empty and pulls them in from libruntime_camodel.so.
$(CANN)/tools/simulator/%/lib/libpem_davinci.so: test/camodel/pem.c $(CANN)/tools/simulator/%/lib/libruntime_camodel.so
	$(CC) $(CAMODEL_FLAGS) -shared -Wl,-soname,libpem_davinci.so -Wl,--no-as-needed -o $@ $< \
		-L$(dir $@) -lruntime_camodel '-Wl,-rpath,$$ORIGIN'
$(CANN)/include/.ok: $(CAMODEL_HDR)
	@mkdir -p $(CANN)/include
	cp -R test/camodel/include/. $(CANN)/include/
	@touch $@
$(CANN)/set_env.sh: test/camodel/set_env.sh.in
	@mkdir -p $(CANN)
	sed "s|@ROOT@|$(abspath $(CANN))|g" $< > $@

# ---- sample operators ----
OPS           := build/ops
OPS_KFLAGS    := -std=c11 $(WARN) -g -O0 -fPIC -shared -fno-optimize-sibling-calls -Itest/camodel/include
OPS_HFLAGS    := $(BASEFLAGS) $(CFLAGS) -Itest/camodel/include
OPS_RTLINK    := -L$(CANN)/tools/simulator/Ascend910B1/lib -lruntime_camodel
OPS_KERNELS   := add_custom
OPS_RTBINS    := add_rt
OPS_ALL       := $(OPS_KERNELS:%=$(OPS)/kernels/%.o) $(OPS_RTBINS:%=$(OPS)/bin/%)

$(OPS)/kernels/%.o: test/ops/*/%.c test/camodel/include/camodel_kernel.h
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $(filter %/$*.c,$^)
$(OPS)/kernels/add_custom.o: test/ops/vadd/add_custom.c test/camodel/include/camodel_kernel.h
	@mkdir -p $(dir $@)
	$(CC) $(OPS_KFLAGS) -o $@ $<
$(OPS)/bin/add_rt: test/ops/vadd/add_rt.c test/ops/common/host.h $(CAMODEL_TREE)
	@mkdir -p $(dir $@)
	$(CC) $(OPS_HFLAGS) -o $@ $< $(OPS_RTLINK)

.PHONY: camodel
camodel: $(CAMODEL_TREE) $(OPS_ALL)
EXTRA_ALL += camodel
