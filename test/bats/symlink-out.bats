#!/usr/bin/env bats
# One rule for output directories in every tool: the -o directory the user
# names is followed when it is a symbolic link (as any path is); a symbolic
# link planted inside the output tree, where the tool puts a directory or a
# file of its own, is never written through (refused, or replaced as a
# name), and what it points to is left as it was.

bats_require_minimum_version 1.5.0

setup_file() {
	export DATA="$BATS_TEST_DIRNAME/../data"
	export IN="$BATS_FILE_TMPDIR/in"
	unset OPTRACE_FORMAT
	mkdir -p "$IN"
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null >"$IN/910B.rec"
	dump-split "$DATA/board910B/dump" >"$IN/board.rec" 2>/dev/null
}

setup() {
	unset OPTRACE_FORMAT
	top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export OPTRACE_BIN=$top/${OPTRACE_VARIANT:-build}/bin
	export PATH=$top/pipelines:$OPTRACE_BIN:$PATH
	T=$BATS_TEST_TMPDIR/w
	mkdir -p "$T/real" "$T/elsewhere"
	echo keep >"$T/elsewhere/keep"
	ln -s "$T/real" "$T/link"
	cd "$T"
}

# untouched: the planted link's target holds only what it held.
untouched() {
	[ "$(ls -A "$T/elsewhere")" = keep ] && [ "$(cat "$T/elsewhere/keep")" = keep ] ||
		{ echo "written through the planted link:" >&2; ls -la "$T/elsewhere" >&2; return 1; }
}

need_sim() {
	[ -x "$top/build/ops/bin/add_rt" ] && [ -d "$top/build/cann/tools/simulator" ] ||
		skip "the stand-in simulator and its sample operator are not built"
	export ASCEND_HOME_PATH=$top/build/cann
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
}

@test "timeline-emit: -o through a link writes the set in the directory it names, fresh and over an older set" {
	run timeline-emit -q -o link "$IN/910B.rec"
	[ "$status" -eq 0 ]
	[ -L link ] && [ -s real/trace.json ] && [ -s real/core0.veccore0/trace.json ]
	run timeline-emit -q -o link "$IN/910B.rec"
	[ "$status" -eq 0 ]
	[ -L link ] && [ -s real/trace.json ]
	[ -z "$(find real -name '*tmp*')" ]
}

@test "timeline-emit: a link planted where a core's directory goes is refused, its target untouched" {
	mkdir out
	ln -s "$T/elsewhere" out/core0.veccore1
	run --separate-stderr timeline-emit -q -o link/../out "$IN/910B.rec"
	[ "$status" -eq 4 ]
	[[ $stderr == *"core0.veccore1: exists and is not a directory (a symbolic link is not followed)" ]]
	untouched
}

@test "trace-clean: -o through a link; a link planted as raw_simulator is refused, its target untouched" {
	timeline-emit -q -o sim "$IN/910B.rec"
	run trace-clean -q -o link sim
	[ "$status" -eq 0 ]
	[ -L link ] && [ -s real/trace.clean.json ] && [ -s real/raw_simulator/trace.json ]
	mkdir out
	ln -s "$T/elsewhere" out/raw_simulator
	run --separate-stderr trace-clean -q -o out sim
	[ "$status" -eq 4 ]
	[[ $stderr == *"out/raw_simulator: not a directory"* ]]
	untouched
	[ ! -e out/trace.clean.json ]
}

@test "board-metrics: -o through a link; a link planted as one of its files is replaced, its target untouched" {
	run board-metrics -q -o link "$IN/board.rec"
	[ "$status" -eq 0 ]
	[ -L link ] && [ -s real/OpBasicInfo.csv ]
	mkdir out
	ln -s "$T/elsewhere/keep" out/OpBasicInfo.csv
	run board-metrics -q -o out "$IN/board.rec"
	[ "$status" -eq 0 ]
	[ ! -L out/OpBasicInfo.csv ] && [ -s out/OpBasicInfo.csv ]
	untouched
}

@test "sim-export: -o through a link writes the tree in the directory it names" {
	run sim-export -q -o link "$DATA/910B"
	[ "$status" -eq 0 ]
	[ -L link ]
	t=$(ls -d real/OPPROF_*)
	[ -s "$t/simulator/trace.json" ] && [ -s "$t/manifest.json" ]
}

@test "batch.mk: OUT through a link; a link planted as a tree's name is replaced, its target untouched" {
	mkdir -p runs && cp -r "$DATA/910B" runs/a
	run make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=link
	[ "$status" -eq 0 ]
	[ -L link ] && [ -f real/runs_a/.done ] && [ -s real/runs_a/simulator/trace.json ]
	mkdir out
	ln -s "$T/elsewhere" out/runs_a
	run make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=out
	[ "$status" -eq 0 ]
	[ ! -L out/runs_a ] && [ -f out/runs_a/.done ]
	untouched
}

@test "board-export: -o through a link writes the tree in the directory it names" {
	mkdir -p board && cp -r "$DATA/board910B/dump" board/
	run board-export -q -o link board
	[ "$status" -eq 0 ]
	[ -L link ]
	[ -n "$(find real -name OpBasicInfo.csv)" ]
}

# captured TOOL FILE: TOOL -o link -- the sample operator; the run's tree
# is made in the directory the link names, FILE in it, nothing else there.
captured() {
	need_sim
	run "$1" -q -o link -- "$top/build/ops/bin/add_rt"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -L link ]
	[ -s "$(ls -d real/OPPROF_*)/$2" ]
	[ -z "$(ls -A real | grep -v '^OPPROF_')" ]
}

@test "sim-capture: -o through a link makes the run's tree in the directory it names" {
	captured sim-capture capture.rec
}

@test "sim-flow: -o through a link makes the run's tree in the directory it names" {
	captured sim-flow simulator/trace.json
}
