# batch.mk — many dump directories in, one parsed tree each out.
#
#   make -f pipelines/batch.mk DUMPS="runs/*/dump" OUT=profiles -j4
#
# For every dump directory D in DUMPS (shell patterns, separated by white
# space), builds $(OUT)/<name>/ (name = D with '/' turned into '_'), the
# tree sim-export writes of a simulator dump, or board-export of an
# on-board one (a dump directory holding op_basic_info.txt, or a launch
# directory whose dump/ holds it), rebuilt only
# when a dump file of D is newer than the tree's stamp $(OUT)/<name>/.done.
# Parallel across dumps with make -j; each simulator dump's cores are
# parsed in parallel by sim-export itself (limit with SIM_EXPORT_JOBS).
# SOC=... is passed as --soc-version, AIC_METRICS=... to board-export as
# --aic-metrics.  With HOSTS=FILE
# (one [N/][user@]host a line) or SSHLOGIN=host,host the dumps are parsed
# on those hosts over ssh instead (batch-remote, next to this file), the
# trees the same.  See optrace-batch(7).
#
# Names never reach the shell as text: each recipe is fixed and reads the
# dump, the tree and the settings from exported variables.  make itself
# cannot hold a name with white space, ';', ':', '|' or '\' (its own syntax);
# such a dump directory or OUT is refused before anything runs.

DUMPS ?=
OUT ?= profiles
SOC ?=
SIM_EXPORT_JOBS ?= 1
AIC_METRICS ?=
# The hosts only from make's command line (or the makefile that includes
# this one): a HOSTS or SSHLOGIN in the environment does not send dumps away.
ifneq ($(filter environment%,$(origin HOSTS)),)
HOSTS :=
endif
ifneq ($(filter environment%,$(origin SSHLOGIN)),)
SSHLOGIN :=
endif
HOSTS ?=
SSHLOGIN ?=
RETRIES ?= 2
HOST_JOBS ?= 1
# sim-export: next to this file (pipelines/ of a checkout, which finds the
# tools of its build/bin), else where make install puts it
# (PREFIX/share/optrace/batch.mk -> PREFIX/bin/sim-export), else in PATH.
batch_here := $(dir $(lastword $(MAKEFILE_LIST)))
SIM_EXPORT ?= $(firstword $(wildcard $(batch_here)sim-export $(batch_here)../../bin/sim-export) sim-export)
BOARD_EXPORT ?= $(firstword $(wildcard $(batch_here)board-export $(batch_here)../../bin/board-export) board-export)
# The sim-export and board-export a host runs: the same path (the same
# install on every host), else the one in the host's PATH.
remote_path = $(if $(findstring /,$(1)),$(abspath $(1)),$(1))
REMOTE_SIM_EXPORT ?= $(call remote_path,$(SIM_EXPORT))
REMOTE_BOARD_EXPORT ?= $(call remote_path,$(BOARD_EXPORT))
batch_remote := $(strip $(HOSTS)$(SSHLOGIN))

batch_backslash := $(strip \ )
batch_bad_chars := ; : | $(batch_backslash)
batch_has_bad = $(strip $(foreach c,$(batch_bad_chars),$(findstring $(c),$(1))))
batch_refuse = batch.mk: make cannot hold names with white space, ';', ':', '|' or '\'

ifneq ($(words $(OUT)),1)
$(error $(batch_refuse): OUT='$(OUT)' (rename it))
endif
ifneq ($(call batch_has_bad,$(OUT)),)
$(error $(batch_refuse): OUT='$(OUT)' (rename it))
endif

dump_dirs := $(patsubst %/,%,$(wildcard $(DUMPS)))
# A name with white space comes out of $(wildcard) as several words, none
# of them a directory (or a dump one).
batch_not_dirs := $(foreach d,$(dump_dirs),$(if $(wildcard $(d)/.),,$(d)))
ifneq ($(strip $(batch_not_dirs)),)
$(error $(batch_refuse); '$(firstword $(batch_not_dirs))' (from DUMPS=$(DUMPS)) is not a directory: a name cut at white space? (rename it))
endif
batch_bad_dirs := $(foreach d,$(dump_dirs),$(if $(call batch_has_bad,$(d)),$(d)))
ifneq ($(strip $(batch_bad_dirs)),)
$(error $(batch_refuse): '$(firstword $(batch_bad_dirs))' (rename it))
endif

# A host gets a dump at the same relative path in a directory of its own:
# an absolute path or one through .. would be written (and removed) at
# that place on the host.
ifneq ($(batch_remote),)
batch_not_below := $(foreach d,$(dump_dirs),$(if $(or $(filter /%,$(d)),$(findstring /../,/$(d)/)),$(d)))
ifneq ($(strip $(batch_not_below)),)
$(error batch.mk: with HOSTS or SSHLOGIN the dump directories are relative paths below the current one: '$(firstword $(batch_not_below))' (run make from above it))
endif
endif

name_of = $(subst /,_,$(1))
# Exact equality (no pattern characters involved).
batch_eq = $(and $(findstring $(1),$(2)),$(findstring $(2),$(1)))
dir_of = $(firstword $(foreach d,$(dump_dirs),$(if $(call batch_eq,$(call name_of,$(d)),$(1)),$(d))))
# The dump files (what sim-export reads of a simulator dump, board-export
# of an on-board one): a change to one rebuilds the tree.
dump_files = $(wildcard $(1)/core* $(1)/aicore_binary.o $(1)/pc_start_addr.txt $(1)/*.bin $(1)/*.txt $(1)/dump/*)

names := $(foreach d,$(dump_dirs),$(call name_of,$(d)))
ifneq ($(words $(names)),$(words $(sort $(names))))
$(error batch.mk: two dump directories give the same tree name (a/b and a_b): use another OUT for one)
endif
stamps := $(foreach n,$(names),$(OUT)/$(n)/.done)
ifneq ($(and $(batch_remote),$(filter .remote,$(names))),)
$(error batch.mk: with HOSTS or SSHLOGIN a dump directory cannot be named .remote (OUT/.remote holds the remote run's state))
endif

.PHONY: all clean
all: $(stamps)
ifneq ($(batch_remote),)
all: $(OUT)/.remote/batch
$(OUT)/.remote/batch: $(stamps)
endif

export SIM_EXPORT SIM_EXPORT_JOBS SOC BOARD_EXPORT AIC_METRICS
$(OUT)/%/.done: export BATCH_DUMP = $(call dir_of,$*)
$(OUT)/%/.done: export BATCH_TREE = $(OUT)/$*

.SECONDEXPANSION:
ifeq ($(batch_remote),)
# sim-export's status 1 (problems found, the tree written) gets a warning
# and the stamp.  Any other failure keeps what sim-export left (an
# interrupted or incomplete tree, its manifest.json says what is missing)
# but not the stamp, so the next make tries again, and stops make; an older
# tree is then kept as it was, and what the run left goes beside it as
# <tree>.incomplete.  A new tree replaces the older one only once written.
# (board-export's standard output, the path of the tree it made, is not
# shown: the tree is moved.)  A Ctrl+C (or TERM) stops sim-export, which
# keeps what it parsed; the recipe's shell waits for it (it catches the signal, so as not to leave it
# writing behind make's back) and puts that tree in place as above.
$(OUT)/%/.done: $$(call dump_files,$$(call dir_of,$$*))
	@rm -rf -- "$$BATCH_TREE.new" && mkdir -p -- "$$BATCH_TREE.new"
	@trap : INT TERM; st=0; \
	if [ -f "$$BATCH_DUMP/op_basic_info.txt" ] || [ -f "$$BATCH_DUMP/dump/op_basic_info.txt" ]; then tool=board-export; \
		"$$BOARD_EXPORT" -q $${SOC:+--soc-version="$$SOC"} $${AIC_METRICS:+--aic-metrics="$$AIC_METRICS"} -o "$$BATCH_TREE.new" -- "$$BATCH_DUMP" >/dev/null || st=$$?; \
	else tool=sim-export; \
		"$$SIM_EXPORT" -q -j "$$SIM_EXPORT_JOBS" $${SOC:+--soc-version="$$SOC"} -o "$$BATCH_TREE.new" -- "$$BATCH_DUMP" || st=$$?; \
	fi; \
	keep=; [ "$$st" -le 1 ] || [ ! -d "$$BATCH_TREE" ] || keep=$$BATCH_TREE.incomplete; \
	for t in "$$BATCH_TREE.new"/OPPROF_*; do \
		[ -d "$$t" ] || continue; \
		if [ -n "$$keep" ]; then \
			rm -rf -- "$$keep" && mv -- "$$t" "$$keep" || st=4; \
		else \
			rm -rf -- "$$BATCH_TREE.old" && \
			{ [ ! -e "$$BATCH_TREE" ] || mv -- "$$BATCH_TREE" "$$BATCH_TREE.old"; } && \
			mv -- "$$t" "$$BATCH_TREE" && rm -rf -- "$$BATCH_TREE.old" || st=4; \
		fi; \
	done; \
	rm -rf -- "$$BATCH_TREE.new"; \
	case $$st in \
	0) ;; \
	1) echo "batch.mk: $$BATCH_DUMP: $$tool found problems (above); the tree is written" >&2 ;; \
	*) if [ -n "$$keep" ]; then \
		echo "batch.mk: $$BATCH_DUMP: $$tool exited $$st; the older $$BATCH_TREE is kept, what this run left is $$keep" >&2; \
	   else echo "batch.mk: $$BATCH_DUMP: $$tool exited $$st" >&2; fi; \
	   exit "$$st" ;; \
	esac; \
	touch -- "$$BATCH_TREE/.done"
else
# Remote: each out-of-date tree loses its stamp (so that make sees it
# changed) and is queued (OUT/.remote/queue/<name> holds its dump), then
# batch-remote parses the queue on the hosts, writes the trees and their
# stamps, and touches OUT/.remote/batch last (so that make -q still says
# whether everything is up to date).
$(OUT)/.remote/batch:
	@bash "$$BATCH_REMOTE" && mkdir -p -- "$$BATCH_STATE" && touch -- "$$BATCH_STATE/batch"
$(OUT)/.remote/batch: export BATCH_STATE = $(OUT)/.remote
$(OUT)/%/.done: export BATCH_NAME = $*
$(OUT)/%/.done: $$(call dump_files,$$(call dir_of,$$*))
	@rm -f -- "$$BATCH_TREE/.done" && mkdir -p -- "$$BATCH_OUT/.remote/queue" && printf '%s\n' "$$BATCH_DUMP" >"$$BATCH_OUT/.remote/queue/$$BATCH_NAME"
endif
export BATCH_OUT = $(OUT)
export BATCH_HOSTS = $(HOSTS)
export BATCH_SSHLOGIN = $(SSHLOGIN)
export BATCH_RETRIES = $(RETRIES)
export BATCH_HOST_JOBS = $(HOST_JOBS)
export BATCH_RSE = $(REMOTE_SIM_EXPORT)
export BATCH_RBE = $(REMOTE_BOARD_EXPORT)
export BATCH_REMOTE = $(batch_here)batch-remote

clean:
	rm -rf -- "$$BATCH_OUT"
