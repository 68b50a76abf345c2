#!/usr/bin/env bats
# sim-capture and sim-flow end to end, against the stand-in simulator
# (build/cann, test/camodel) and its sample operators (build/ops).

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	[ -d "$cann/tools/simulator" ] || skip "the stand-in simulator is not built (build/cann)"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset ASCEND_HOME_PATH OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	export ASCEND_HOME_PATH=$cann
}

need() {
	[ -x "$1" ] || skip "$(basename "$1") is not built"
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

# The instruction records of a stream, as comparable lines.
instrs() {
	instr-parse --json | jq -c 'select(.kind == "instr") | [.core, .sub, .subidx, .start, .end, .pc, .pipe, .name, .detail]'
}

@test "rt* sample: sim-flow writes the reference's tree with a valid trace" {
	need "$ops/bin/add_rt"
	run sim-flow -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -f "$r/dump/aicore_binary.o" ]
	[ -f "$r/dump/pc_start_addr.txt" ]
	ls "$r"/dump/core*instr_log.dump
	jq -e '.profilingType' "$r/simulator/trace.json" >/dev/null || jq -e 'type == "object" or type == "array"' "$r/simulator/trace.json"
	jq -e '.kernels[0].name == "add_custom" and .app_status == 0' "$r/manifest.json"
	[[ $output == *"$r/simulator/trace.json"* ]]
}

@test "rt* sample: every captured line parses and pairs" {
	need "$ops/bin/add_rt"
	run sim-capture -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	d=$(rundir)/device0/add_custom/0/dump
	dump-split "$d" | instr-parse --json > "$BATS_TEST_TMPDIR/p.json"
	jq -e -s 'map(select(.kind == "trailer"))[-1] | .bad == 0 and .dropped == 0' "$BATS_TEST_TMPDIR/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -gt 10 ]
	# the binary is the registered kernel
	cmp "$d/aicore_binary.o" "$ops/kernels/add_custom.o"
}

@test "rt* sample: live mode gives the same instruction records as the dumps" {
	need "$ops/bin/add_rt"
	sim-capture -q -o "$out" --live -- "$ops/bin/add_rt" | instrs > "$BATS_TEST_TMPDIR/live"
	[ -z "$(ls "$(rundir)"/device0/add_custom/0/dump | grep '\.dump$')" ]
	rm -rf "$out"/*
	sim-capture -q -o "$out" -- "$ops/bin/add_rt"
	dump-split "$(rundir)/device0/add_custom/0/dump" | instrs > "$BATS_TEST_TMPDIR/dump"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/dump")" -gt 10 ]
	diff "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/live"
}

@test "rt* sample: a replayable capture replays through --config with the same instructions" {
	need "$ops/bin/add_rt"
	launcher=$cann/tools/msopt/bin/kernel-launcher
	[ -x "$launcher" ] || [ -n "${OPTRACE_KERNEL_LAUNCHER:-}" ] || skip "no kernel-launcher in the stand-in"
	run sim-capture -o "$out" --replay -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	k=$(rundir)/device0/add_custom/0/dump
	jq -e '.kernel_name == "add_custom" and (.input_path | split(";") | length) >= 2' "$k/kernel_data/kernel_config.bin"
	dump-split "$k" | instrs > "$BATS_TEST_TMPDIR/app"
	mkdir "$BATS_TEST_TMPDIR/re"
	run sim-capture -o "$BATS_TEST_TMPDIR/re" --config="$k/kernel_data/kernel_config.bin"
	[ "$status" -eq 0 ]
	dump-split "$(ls -d "$BATS_TEST_TMPDIR"/re/OPPROF_*)"/device0/add_custom/0/dump | instrs > "$BATS_TEST_TMPDIR/replay"
	diff "$BATS_TEST_TMPDIR/app" "$BATS_TEST_TMPDIR/replay"
}

@test "--soc-version: the Ascend950 family uses dav_3510" {
	need "$ops/bin/add_rt"
	[ -d "$cann/tools/simulator/dav_3510" ] || skip "no dav_3510 simulator"
	run sim-capture -o "$out" --soc-version=Ascend950PR_9599 -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	jq -e '.soc == "Ascend950PR_9599" and (.simulator | endswith("/dav_3510/lib"))' "$(rundir)/manifest.json"
}
