#!/usr/bin/env bats
# warp-timeline and pc-stall as a user runs them: usage errors, bad files
# named with the block, the operator without SIMT, the warp timeline's
# rules on blocks built here byte by byte (aicore clock 1000 MHz), and a
# stand-in device run of the SIMT sample.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	command -v warp-timeline >/dev/null || skip "warp-timeline is not built"
	command -v pc-stall >/dev/null || skip "pc-stall is not built"
	unset CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_TIMELINE_PIPES CAMODEL_DEVICE_DFX_MAP OPTRACE_DFX_TUNE
	export ASCEND_HOME_PATH=$top/build/cann
	cd "$BATS_TEST_TMPDIR"
	mkdir -p d
	info 1
}

info() {
	printf 'Op Name=k\nBlock Dim=1\nRun Soc Version=Ascend950PR_9599\nDevice Id=0\nPid=0\nCurrent Freq=1000\nRated Freq=1000\nIs MC2=0\nIs Lccl=0\nHas Simt=%s\n' \
		"$1" >d/op_basic_info.txt
}

le32() {
	local v=$1 i
	for i in 0 1 2 3; do printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"; done
}

# block CORE TYPE [WARP START END]...: one 1104-byte block appended to
# d/WarpTimeline.bin (warps not named are zero)
block() {
	local core=$1 type=$2 w s e i
	shift 2
	local -A st en
	while [ $# -gt 0 ]; do st[$1]=$2; en[$1]=$3; shift 3; done
	{
		le32 $((0x5A5A5A5A)); le32 64; le32 "$core"; le32 "$type"
		for i in $(seq 0 63); do
			le32 "${st[$i]:-0}"; le32 0; le32 "${en[$i]:-0}"; le32 0
		done
		head -c 64 /dev/zero
	} >>d/WarpTimeline.bin
}

@test "warp-timeline, pc-stall: usage errors are exit 2" {
	run warp-timeline
	[ "$status" -eq 2 ]
	run warp-timeline --aicore-freq=0 d
	[ "$status" -eq 2 ]
	run warp-timeline --bogus d
	[ "$status" -eq 2 ]
	run pc-stall
	[ "$status" -eq 2 ]
	run pc-stall --bogus d
	[ "$status" -eq 2 ]
	run warp-timeline --help
	[ "$status" -eq 0 ]
	grep -q '^usage: warp-timeline' <<<"$output"
}

@test "warp-timeline: one warp, per-pid start at 0, sort metadata (the reference's expectations)" {
	block 0 0 0 100 160
	run warp-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.name, .pid, .tid, .ts, .dur, .args.core_id, .args.core_type]]' t.json)" = \
		'[["Warp_0","warp.core0.veccore0","Warp 0",0,0.06,0,0]]' ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_sort_index") | .args.sort_index]' t.json)" = '[0]' ]
	# vec0 {(300,360),(340,380)} and vec1 {(100,180)}: each pid from 0
	rm d/WarpTimeline.bin
	block 0 0 0 300 360 1 340 380
	block 0 1 0 100 180
	run warp-timeline -o t.json d
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.pid, .ts, .dur]] | sort' t.json)" = \
		'[["warp.core0.veccore0",0,0.06],["warp.core0.veccore0",0.04,0.04],["warp.core0.veccore1",0,0.08]]' ]
	# warps with start 0 or end <= start are skipped; the cube type still drawn
	rm d/WarpTimeline.bin
	block 0 2 0 100 160 1 110 170 2 200 200 10 120 180
	run warp-timeline -o t.json d
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .name] | join(" ")' t.json)" = "Warp_0 Warp_1 Warp_10" ]
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .pid] | unique | .[]' t.json)" = "warp.core0.cubecore0" ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_sort_index") | .args.sort_index]' t.json)" = '[0,1,10]' ]
}

@test "warp-timeline: merged into a trace, aligned to its earliest event" {
	block 0 0 0 100 160
	printf '{"traceEvents":[{"name":"x","ph":"X","pid":"core0.veccore0","tid":"VECTOR","ts":7.5,"dur":1}]}\n' >trace.json
	run warp-timeline --trace trace.json -o trace.json d
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "Warp_0") | .ts] | .[0]' trace.json)" = 7.5 ]
	[ "$(jq '[.traceEvents[] | select(.name == "x")] | length' trace.json)" -eq 1 ]
}

@test "warp-timeline, pc-stall: an operator without SIMT is refused (exit 2), nothing written" {
	block 0 0 0 100 160
	info 0
	run warp-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 2 ]
	grep -qi "not supported" <<<"$output"
	[ ! -e t.json ]
	mkdir out
	run pc-stall -o out d
	echo "$output"
	[ "$status" -eq 2 ]
	grep -qi "not supported" <<<"$output"
	[ -z "$(ls -A out)" ]
}

@test "warp-timeline: bad files are named with the block; nothing usable is exit 3" {
	block 0 0 0 100 160
	head -c 100 /dev/zero >>d/WarpTimeline.bin
	run warp-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "WarpTimeline.bin" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 1 ]
	head -c 1104 /dev/zero >d/WarpTimeline.bin
	run warp-timeline -o t2.json d
	echo "$output"
	[ "$status" -eq 3 ]
	grep -q "WarpTimeline.bin" <<<"$output"
	[ ! -e t2.json ]
	rm d/WarpTimeline.bin
	run warp-timeline -o t2.json d
	[ "$status" -eq 3 ]
	[ ! -e t2.json ]
}

@test "golden outputs: warp-timeline and pc-stall of the stand-in device's SIMT run (test/golden/warp)" {
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	sh "$top/test/golden/warp/make.sh" "$BATS_TEST_TMPDIR/g"
	for f in warp.json warp.txt PcSampling.csv TopStallReason.csv pc-stall.txt; do
		diff "$top/test/golden/warp/out/$f" "$BATS_TEST_TMPDIR/g/$f"
	done
}

@test "pc-stall: the reference's example chunk (three records), top stall reasons; bad files named" {
	info 1
	# {coreId 0, coreType 1, validLen 48}: (field 5; 1..9), (8; 2..10), (1; 3..11)
	{
		printf '\x00\x00\x01\x00\x30\x00\x00\x00'
		for r in "5 1" "8 2" "1 3"; do
			set -- $r
			printf "\\x$(printf %02x "$1")\\x00\\x00"
			for i in $(seq 0 8); do printf "\\x$(printf %02x $(($2 + i)))"; done
			printf '\x00\x00\x00\x00'
		done
	} >d/pcSampling.bin.0
	truncate -s 2097160 d/pcSampling.bin.0
	printf '0x0' >d/pc_start_pcsampling.txt
	head -c 8 /dev/zero >d/PcOffset.bin
	mkdir out
	run pc-stall -o out d
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f1-10 out/PcSampling.csv | tail -n +2 | paste -sd' ')" = \
		"0x8,3,4,5,6,7,8,9,10,11 0x28,1,2,3,4,5,6,7,8,9 0x40,2,3,4,5,6,7,8,9,10" ]
	grep -qx 'IBuf_Empty,6,[0-9.]*' out/TopStallReason.csv
	grep -qx 'Others,27,[0-9.]*' out/TopStallReason.csv
	# the TOP_STALL_REASON block's JSON: the eight reasons, names in byte order
	[ "$(cat out/top_stall_reason.json)" = '{"top_stall_reason_table":{"Divergence_Stack_Spill":24,"IBuf_Empty":6,"Nop_Cycles":9,"Others":27,"Register_bank_conflict":15,"Resource_conflict":18,"Scoreboard_Not_Ready":12,"Warp_Level_Sync":21}}' ]
	# Only the instructions listed are kept; the others are dropped, said.
	printf '0x28\n0x40\n' >instrs
	run pc-stall -o out --instrs instrs d
	echo "$output"
	[ "$(tail -n +2 out/PcSampling.csv | cut -d, -f1 | paste -sd' ')" = "0x28 0x40" ]
	grep -q "0x8" <<<"$output"
	# a file that is not whole chunks is named
	truncate -s 100 d/pcSampling.bin.0
	mkdir out2
	run pc-stall -o out2 d
	echo "$output"
	[ "$status" -eq 3 ]
	grep -q "d/pcSampling.bin.0: cut: 100 bytes after 0 whole chunks of 2097160 bytes are left out" <<<"$output"
	[ -z "$(ls -A out2)" ]
}

@test "warp-timeline and pc-stall on the stand-in device's SIMT sample" {
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --aic-metrics=PcSampling -- "$ops/bin/op_acl" -s simt
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/dump/WarpTimeline.bin" ] && [ -f "$l/PcSampling.csv" ] && [ -f "$l/TopStallReason.csv" ]
	run warp-timeline -o w.json "$l/dump"
	[ "$status" -eq 0 ]
	n=$(jq '[.traceEvents[] | select(.ph == "X")] | length' w.json)
	[ "$n" -gt 0 ]
	# every warp lane has its sort index, every slice a positive length
	[ "$(jq '[.traceEvents[] | select(.ph == "M" and .name == "thread_sort_index")] | length' w.json)" -eq "$n" ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and .dur <= 0)] | length' w.json)" -eq 0 ]
	mkdir p
	run pc-stall -o p "$l/dump"
	echo "$output"
	[ "$status" -eq 0 ]
	cmp p/PcSampling.csv "$l/PcSampling.csv"
	cmp p/TopStallReason.csv "$l/TopStallReason.csv"
	# the stall reasons are visualize_data.bin's last block, TOP_STALL_REASON (0xF)
	[ "$(vdata-dump -v "$l/visualize_data.bin" | tail -n 1 | sed 's/ .*//')" = type=STALL_REASON ]
	vdata-dump --payload STALL_REASON "$l/visualize_data.bin" | cmp - p/top_stall_reason.json
}

@test "pc-stall on the stand-in device: the samples are at the kernel's SIMT instructions, their sums those of the records" {
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	cann=$top/build/cann
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=Ascend950PR_9599 CAMODEL_DEVICE_DUMP=$PWD/dev \
		CAMODEL_DEVICE_PCSAMPLING=1 "$ops/bin/op_acl" -s simt >/dev/null
	# The kernel's SIMT instructions, as the compiler's scan of the binary finds them.
	"$cann/compiler/ccec_compiler/bin/bisheng-tune" --action=instru-dfx --dfx-pipe=simt -o . "$ops/kernels/simt_custom.o"
	sed 's/.*,pc=\(0x[0-9a-f]*\),.*/\1/' dfx_region_map.txt >instrs
	[ "$(wc -l <instrs)" -eq "$(grep -c 'SIMT_OP(' "$top/test/ops/simt/simt_custom.c")" ]
	mkdir p
	run pc-stall -o p --instrs instrs dev
	echo "$output"
	[ "$status" -eq 0 ]
	# every SIMT instruction sampled, nothing else kept: only the
	# instrumentation stub's record (pc 0x10, no instruction) dropped
	[ "$(tail -n +2 p/PcSampling.csv | cut -d, -f1)" = "$(cat instrs)" ]
	grep -q "0x10" <<<"$output"
	# each pc names its SIMT_OP line of the kernel source
	while read -r pc; do
		line=$(addr2line -e "$ops/kernels/simt_custom.o" "$pc" | sed 's/.*:\([0-9]*\).*/\1/')
		sed -n "${line}p" "$top/test/ops/simt/simt_custom.c" | grep -q 'SIMT_OP('
	done <instrs
	# the sums per pc are those of the raw records (a counter is a byte:
	# a pc's samples past 255 go on in a further record)
	python3 - dev p/PcSampling.csv <<'PY'
import sys, collections
d, csv = sys.argv[1], sys.argv[2]
start = int(open(d + "/pc_start_pcsampling.txt").read(), 16) & 0x7FFFFFF
off = int.from_bytes(open(d + "/PcOffset.bin", "rb").read(8), "little")
raw = open(d + "/pcSampling.bin.0", "rb").read()
assert len(raw) % 2097160 == 0
sums, nrec, split = collections.defaultdict(lambda: [0] * 9), collections.Counter(), 0
for c in range(0, len(raw), 2097160):
    valid = int.from_bytes(raw[c + 4:c + 8], "little")
    for j in range(0, valid, 16):
        r = raw[c + 8 + j:c + 24 + j]
        pc = int.from_bytes(r[0:3], "little") * 8 - start - off
        nrec[pc] += 1
        sums[pc] = [a + b for a, b in zip(sums[pc], r[3:12])]
rows = [l.split(",") for l in open(csv).read().splitlines()[1:]]
assert rows, "no rows"
for row in rows:
    assert [int(x) for x in row[1:10]] == sums[int(row[0], 16)], row
assert any(max(sums[int(r[0], 16)]) > 255 and nrec[int(r[0], 16)] > 1 for r in rows), "no pc over one record"
PY
	# Active: a sample per warp the instruction issued, as many as the
	# simulator runs of the same program (one instruction line a warp;
	# pc_start 0x11000000: the first binary registered)
	LD_LIBRARY_PATH=$cann/tools/simulator/dav_3510/lib:$cann/lib64 CAMODEL_LOG_PATH=$PWD/sim "$ops/bin/op_acl" -s simt >/dev/null
	dump-split --soc-version=Ascend950PR_9599 sim | instr-parse --json |
		jq -r 'select(.kind == "instr" and (.name | startswith("SIMT_"))) | .pc' |
		while read -r pc; do echo $((pc - 0x11000000)); done | sort -n | uniq -c |
		while read -r n pc; do printf '0x%x,%s\n' "$pc" "$n"; done >sim.active
	[ -s sim.active ]
	tail -n +2 p/PcSampling.csv | cut -d, -f1,10 >dev.active
	diff sim.active dev.active
}

@test "PcSampling: a non-SIMT operator is told so (exit 1, the CSVs written); a chip without it is refused (exit 2)" {
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --aic-metrics=PcSampling,Memory -- "$ops/bin/op_acl" -s add
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "PC sampling is not supported on this operator (Has Simt=0: no SIMT code): no PcSampling.csv" <<<"$output"
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/Memory.csv" ] && [ ! -e "$l/PcSampling.csv" ] && [ ! -e "$l/trace.json" ]
	# On 910B the capture refuses before the run
	run board-flow -q -o out910 --aic-metrics=PcSampling -- "$ops/bin/op_acl" -s add
	echo "$output"
	[ "$status" -eq 2 ]
	grep -q "PcSampling: not supported on this chip (Ascend910B1)" <<<"$output"
	! ls -d out910/OPPROF_* 2>/dev/null
	# and the parse of a capture made without it names the chip, not the operator
	run board-flow -q -o out910 -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	l=$(ls -d out910/OPPROF_*/device0/*/0)
	run board-export -q -o again --aic-metrics=PcSampling "$l"
	echo "$output"
	[ "$status" -eq 2 ]
	grep -q "PC sampling is not supported on this chip (Ascend910B1)" <<<"$output"
	[ -z "$(find again -name '*.csv' 2>/dev/null)" ]
}
