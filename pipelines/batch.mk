# batch.mk — many simulator dump directories in, one parsed tree each out.
#
#   make -f pipelines/batch.mk DUMPS="runs/*/dump" OUT=profiles -j4
#
# For every dump directory D in DUMPS, builds $(OUT)/<name>/simulator (name =
# D with '/' turned into '_'), rebuilt only when a file in D is newer than the
# tree's stamp.  Parallel across dumps with make -j; each dump's cores are
# parsed in parallel by sim-export itself (limit with SIM_EXPORT_JOBS).
# Needs the optrace tools on PATH (make install, or PATH=build/bin:$PATH).

DUMPS ?=
OUT ?= profiles
SIM_EXPORT ?= $(dir $(lastword $(MAKEFILE_LIST)))sim-export
SIM_EXPORT_JOBS ?= 1

dump_dirs := $(wildcard $(DUMPS))
name_of = $(subst /,_,$(patsubst %/,%,$(1)))
stamps := $(foreach d,$(dump_dirs),$(OUT)/$(call name_of,$(d))/.done)

.PHONY: all clean
all: $(stamps)

# One rule per dump: the stamp depends on every file of the dump directory.
define one_dump
$(OUT)/$(call name_of,$(1))/.done: $(wildcard $(1)/*)
	@rm -rf $(OUT)/$(call name_of,$(1))
	@mkdir -p $(OUT)/$(call name_of,$(1)).new
	$(SIM_EXPORT) -q -j $(SIM_EXPORT_JOBS) -o $(OUT)/$(call name_of,$(1)).new $(1)
	@mv $(OUT)/$(call name_of,$(1)).new/OPPROF_* $(OUT)/$(call name_of,$(1))
	@rmdir $(OUT)/$(call name_of,$(1)).new
	@touch $$@
endef
$(foreach d,$(dump_dirs),$(eval $(call one_dump,$(d))))

clean:
	rm -rf $(OUT)
