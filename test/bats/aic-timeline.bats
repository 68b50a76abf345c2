#!/usr/bin/env bats
# aic-timeline: the AI-Core timeline of aic_timestamp.bin on the stand-in
# device (910B and A5; mixed_custom_dots.o frames its cube and vector parts
# with TIMESTAMP_DOT 0x10001 / 0x10002), its custom dot names, bad files,
# and board-export running it.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	command -v aic-timeline >/dev/null || skip "aic-timeline is not built"
	command -v jq >/dev/null || skip "jq is not installed"
	[ -f "$cann/lib64/libruntime.so" ] || skip "the stand-in runtime is not built (build/cann)"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	unset CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_TIMELINE_PIPES CAMODEL_DEVICE_MC2
	export ASCEND_HOME_PATH=$cann
	cd "$BATS_TEST_TMPDIR"
}

# run_dots SOC DIR [ENV...]: the dots kernel on 2 blocks into DIR/dump
run_dots() {
	local soc=$1 d=$2
	shift 2
	env "$@" LD_LIBRARY_PATH="$cann/lib64" CAMODEL_SOC_VERSION="$soc" CAMODEL_DEVICE_DUMP="$PWD/$d/dump" \
		"$ops/bin/op_acl" -s mixed -b 2 -k "$ops/kernels/mixed_custom_dots.o" >/dev/null
}

@test "aic-timeline 910B: block lanes, AI_CORE, the user dots on their sub-cores" {
	run_dots Ascend910B1 l
	[ -f l/dump/aic_timestamp.bin ]
	run aic-timeline -o t.json l/dump
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "AI Core: 6 block lanes, 6 dots" <<<"$output"
	run jq -c '[.traceEvents[] | select(.pid == "BLOCK" and .ph == "X" and (.name | test("time$"))) | .tid]' t.json
	[ "$output" = '["core0.cubecore0","core0.veccore0","core0.veccore1","core1.cubecore0","core1.veccore0","core1.veccore1"]' ]
	run jq -c '[.traceEvents[] | select(.name == "AI_CORE") | [.pid, .tid, .ts]]' t.json
	[ "$output" = '[["AI CORE","AI_CORE",0]]' ]
	run jq -c '[.traceEvents[] | select(.args.name != null) | [.name, .tid]]' t.json
	[ "$output" = '[["65537","core0.cubecore0"],["65538","core0.veccore0"],["65537","core1.cubecore0"],["65538","core0.veccore1"],["65538","core1.veccore0"],["65538","core1.veccore1"]]' ]
	# each dot inside its lane's run
	run jq -r '[.traceEvents[] | select(.ph == "X" and .pid == "BLOCK")] as $e
		| [$e[] | select(.args.name != null) as $d | $e[] | select(.tid == $d.tid and (.name | test("time$")))
		   | ($d.ts >= .ts and $d.ts + $d.dur <= .ts + .dur + 0.000001)] | all' t.json
	[ "$output" = true ]
	run jq -c '[.traceEvents[] | select(.name == "thread_sort_index") | .args.sort_index]' t.json
	[ "$output" = '[1,2,3,4,5,6]' ]
}

@test "aic-timeline A5: the physical cores tell cube from vector" {
	run_dots Ascend950PR_9589 l
	run aic-timeline -q -o t.json l/dump
	[ "$status" -eq 0 ]
	run jq -c '[.traceEvents[] | select(.args.name != null) | [.name, .tid]] | unique' t.json
	[ "$output" = '[["65537","core0.cubecore0"],["65537","core1.cubecore0"],["65538","core0.veccore0"],["65538","core0.veccore1"],["65538","core1.veccore0"],["65538","core1.veccore1"]]' ]
}

@test "aic-timeline --custom-input: names, block marks, a bad entry counted" {
	run_dots Ascend910B1 l
	printf '%s' '{"mc2_trace_config":{"enable_block_time":false,"descid_display":{"0x10001":"matmul","65538":"bias relu","0x":"x"}}}' >c.json
	run aic-timeline -o t.json --custom-input c.json l/dump
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q 'c.json: 1 entries skipped' <<<"$output"
	run jq -c '[.traceEvents[] | select(.args.name != null) | .name] | unique' t.json
	[ "$output" = '["bias relu","matmul"]' ]
	run jq -c '[.traceEvents[] | select(.tid == "core0.cubecore0" and .ph == "X" and .args.name == null) | [.name, .dur]]' t.json
	[ "$output" = '[["AIC BLOCK0 START",0],["AIC BLOCK0 END",0]]' ]
}

@test "aic-timeline: an aic_timestamp.bin past the size limit is refused before it is read (exit 3)" {
	run_dots Ascend910B1 l
	truncate -s $(((10 << 30) + 1)) l/dump/aic_timestamp.bin
	run aic-timeline -o t.json l/dump
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$output" = "aic-timeline: l/dump/aic_timestamp.bin: 10737418241 bytes, over the 10 GiB limit of a device data file (OPTRACE_INPUT_LIMITS=off lifts it)" ]
	[ ! -e t.json ]
}

@test "aic-timeline: a file cut short keeps its whole records; none, empty, a 310P, an MC2 op refused" {
	run_dots Ascend910B1 l
	cp -r l m
	head -c 100 l/dump/aic_timestamp.bin >m/dump/aic_timestamp.bin
	run aic-timeline -o t.json m/dump
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q 'aic_timestamp.bin: record 4 (byte 96) cut short: 4 of 24 bytes' <<<"$output"
	[ -s t.json ]
	: >m/dump/aic_timestamp.bin
	run aic-timeline -o u.json m/dump
	[ "$status" -eq 3 ] && [ ! -e u.json ]
	rm m/dump/aic_timestamp.bin
	run aic-timeline -o u.json m/dump
	[ "$status" -eq 3 ] && [ ! -e u.json ]
	grep -q 'aic_timestamp.bin: none' <<<"$output"
	run aic-timeline --soc-version=Ascend310P3 -o u.json l/dump
	[ "$status" -eq 2 ] && [ ! -e u.json ]
	sed -i 's/^Is MC2=0/Is MC2=1/' m/dump/op_basic_info.txt
	cp l/dump/aic_timestamp.bin m/dump/
	run aic-timeline -o u.json m/dump
	[ "$status" -eq 3 ] && [ ! -e u.json ]
	grep -q "mc2-timeline" <<<"$output"
}

@test "mc2-timeline: the MC2 sample's AICore API dots, INIT to FINALIZE on every sub-core" {
	command -v mc2-timeline >/dev/null || skip "mc2-timeline is not built"
	run_dots Ascend910B1 l CAMODEL_DEVICE_MC2=2
	run mc2-timeline -o t.json l/dump
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "AI Core: 6 block lanes, 36 AICore API dots, 6 dots" <<<"$output"
	run jq -c '[.traceEvents[] | select(.tid == "core1.veccore1" and .args.pc_addr != null and .args.name == null) | .name]' t.json
	[ "$output" = '["INIT","COMMIT","WAIT","COMMIT","WAIT","FINALIZE"]' ]
}

@test "board-export: trace.json for a launch with dots, --custom-input passed on" {
	command -v board-export >/dev/null || skip "board-export is not built"
	run_dots Ascend910B1 l
	printf '%s' '{"mc2_trace_config":{"descid_display":{"0x10001":"matmul"}}}' >c.json
	run board-export -o out --custom-input c.json l
	echo "$output"
	[ "$status" -eq 0 ]
	run jq -c '[.traceEvents[] | select(.args.name != null) | .name] | unique' out/OPPROF_*/trace.json
	[ "$output" = '["65538","matmul"]' ]
	run board-export -o out --custom-input nosuch.json l
	[ "$status" -eq 2 ]
}

@test "board-flow: the dots' source lines (src-map on the kernel binary) in args.code" {
	command -v board-flow >/dev/null || skip "board-flow is not built"
	run board-flow -q -o out -- "$ops/bin/op_acl" -s mixed -b 1 -k "$ops/kernels/mixed_custom_dots.o"
	echo "$output"
	[ "$status" -eq 0 ]
	t=$(echo out/OPPROF_*/device0/mixed_custom/0/trace.json)
	run jq -r '[.traceEvents[] | select(.args.name != null) | .args.code | sub(".*/"; "")] | unique | join(" ")' "$t"
	[ "$output" = "mixed_custom.c:77 mixed_custom.c:82" ]
	grep -q 'DOT(0x10001);' <(sed -n 77p "$top/test/ops/mixed/mixed_custom.c")
}

@test "aic-timeline: an LCCL op's 32-byte log records, OVERALL INIT PROCESS from first to next" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	run_dots Ascend910B1 l
	sed -i 's/^Is Lccl=0/Is Lccl=1/' l/dump/op_basic_info.txt
	# (logId, blockId, syscyc, curPc, operationType, rsv); blocks start at 1002
	python3 -c '
import struct
r = [(0,0,1004,0x100,7,1), (0,0,1020,0x104,7,1), (1,50,1005,0x200,3,0), (2,1,1006,0x300,0,0),
     (1,50,1010,0x204,3,0), (2,1,1030,0x304,0,0), (0,51,1003,0x400,1,2)]
open("l/dump/aic_timestamp.bin", "wb").write(b"".join(struct.pack("<IIQQII", *x) for x in r))'
	run aic-timeline -o t.json l/dump
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '1 dots without an end' <<<"$output"
	run jq -c '[.traceEvents[] | select(.args.curPc != null) | [.name, .tid, .args.curPc, .args.operationType, .dur]]' t.json
	# in the order the ends come; a cube block keeps its raw id (50) in its lane, as the reference's
	[ "$output" = '[["OVERALL","core0.veccore0","0x100","7",0.32],["INIT","core50.cubecore0","0x200","3",0.1],["PROCESS","core0.veccore1","0x300","0",0.48]]' ]
}
