#!/usr/bin/env bats
# board-code: the on-board code view (MemoryDetail, Source) of the
# stand-in device's runs, as a user runs it (board-flow, board-export, or
# board-code on a dump directory), and its refusal of malformed files.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	cann=$top/build/cann
	ops=$top/build/ops
	t=$BATS_TEST_TMPDIR
	command -v board-code >/dev/null || skip "board-code is not built"
	[ -f "$cann/lib64/libruntime.so" ] && [ -x "$ops/bin/op_acl" ] || skip "the stand-in is not built (make camodel)"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	export ASCEND_HOME_PATH=$cann
}

# device SOC DIR DBI ARGS...: op_acl ARGS on SOC's device with
# CAMODEL_DEVICE_DBI=DBI, raw files into DIR
device() {
	local soc=$1 dir=$2 dbi=$3
	shift 3
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=$soc CAMODEL_DEVICE_DUMP=$dir CAMODEL_DEVICE_DBI=$dbi \
		CAMODEL_LOG_PATH=$t/simlog "$ops/bin/op_acl" "$@"
}

# col FILE NAME: the column of the CSV's header named NAME (1-based)
col() {
	head -1 "$1" | tr ',' '\n' | grep -nx -- "$2" | cut -d: -f1
}

# sum FILE NAME [PIPE]: the column NAME summed (rows of pipe PIPE only)
sum() {
	local c p
	c=$(col "$1" "$2")
	p=$(col "$1" pipe)
	awk -F, -v c="$c" -v p="${p:-0}" -v want="${3:-}" 'NR > 1 && (want == "" || $p == want) { s += $c } END { print s + 0 }' "$1"
}

@test "vector add: the GM bytes of each instruction are the kernel's transfers, per block as the PMU counts them" {
	device Ascend910B4 "$t/d" MemoryDetail -s add -b 4 -n 3
	# a record per burst: 3 loops x 4 tiles x (2 loads + 1 store) per block, 56 bytes each
	[ "$(stat -c %s "$t/d/MemoryChart.bin")" = $((4 * 3 * 4 * 3 * 56)) ]
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 0 ]
	# per block: 2 x 32 KiB in and 32 KiB out per loop
	[ "$(sum "$t/o/instr_exe.csv" process_bytes MTE2)" = $((4 * 3 * 65536)) ]
	[ "$(sum "$t/o/instr_exe.csv" process_bytes MTE3)" = $((4 * 3 * 32768)) ]
	[ "$(sum "$t/o/instr_exe.csv" process_bytes)" = $((4 * 3 * 98304)) ]
	# two MTE2 pcs (x and y), one MTE3
	[ "$(awk -F, -v p="$(col "$t/o/instr_exe.csv" pipe)" 'NR > 1 && $p == "MTE2"' "$t/o/instr_exe.csv" | wc -l)" = 2 ]
	[ "$(awk -F, -v p="$(col "$t/o/instr_exe.csv" pipe)" 'NR > 1 && $p == "MTE3"' "$t/o/instr_exe.csv" | wc -l)" = 1 ]
	# dbi_dma.csv: each block's bytes and 128-byte requests
	c=$(col "$t/o/dbi_dma.csv" GM_TO_UB_DATA)
	[ "$(awk -F, -v c="$c" 'NR > 1 { print $1 ":" $c }' "$t/o/dbi_dma.csv" | tr '\n' ' ')" = "0:196608 1:196608 2:196608 3:196608 " ]
	# ... which the PMU model counts too: events 62 (GM->UB) and 61 (UB->GM) of replay 3
	c=$(col "$t/o/dbi_dma.csv" GM_TO_UB)
	u=$(col "$t/o/dbi_dma.csv" UB_TO_GM)
	want=$(awk -F, -v c="$c" -v u="$u" 'NR > 1 { print $1, $u, $c }' "$t/o/dbi_dma.csv")
	got=$(dump-split -q --json "$t/d" | jq -r 'select(.kind == "pmu" and .file == 3) |
		. as $r | [range(0; .nslots)] | map(select($r["event\(.)"] == 61 or $r["event\(.)"] == 62)) |
		"\($r.block) \($r["count\(.[0])"]) \($r["count\(.[1])"])"')
	[ "$got" = "$want" ]
}

@test "the instructions' executions from the basic-block counts; lines and pcs through src-map (board-flow)" {
	cd "$t"
	run board-flow -q -o out --aic-metrics=MemoryDetail,Source -- "$ops/bin/op_acl" -s add -b 2 -n 3
	[ "$status" -eq 0 ]
	l=$(echo out/OPPROF_*/device0/add_custom/0)
	[ -f "$l/dump/kernel0Stub.o.bbbmap.0" ] && [ -f "$l/dump/kernel0.extra.0" ]
	# the PMU CSVs still come
	[ -f "$l/PipeUtilization.csv" ]
	src=$top/test/ops/vadd/add_custom.c
	# the copies of 8 KiB: lines 39 and 40 (GM->UB) and 48 (UB->GM), 2 blocks x 3 loops x 4 tiles each
	grep -q "^$src:39,24,196608," "$l/code_exe.csv"
	grep -q "^$src:40,24,196608," "$l/code_exe.csv"
	grep -q "^$src:48,24,196608," "$l/code_exe.csv"
	# the set-up before the loop runs once per block
	grep -q "^$src:25,2,0," "$l/code_exe.csv"
	# every pc of instr_exe.csv with a transfer names a line holding a copy
	awk -F, 'NR > 1 && $3 != "" { print $2 }' "$l/instr_exe.csv" | sort -u > lines
	[ "$(wc -l < lines)" = 3 ]
	while IFS=: read -r f n; do
		sed -n "${n}p" "$f" | grep -q 'COPY_' || { echo "$f:$n is no copy"; false; }
	done < lines
	# the pcs are the kernel's: past pc_start_addr.txt, 4-byte aligned
	start=$(( $(cat "$l/dump/pc_start_addr.txt") ))
	awk -F, -v s="$start" 'NR > 1 && ($1 < s || $1 % 4) { bad++ } END { exit bad > 0 }' "$l/instr_exe.csv"
	# FILE_API and INSTR_API agree with the CSVs
	jq -e --arg f "$src" '.Cores == ["ALL"] and (.Files[] | select(.Source == $f) | .Lines[] | select(.Line == 39) |
		.["Instructions Executed"] == [24] and .["Process Bytes"] == 196608 and (.["Address Range"] | length) == 1)' \
		"$l/file_api.json"
	[ "$(jq '[.Instructions[] | select(.Pipe == "MTE2")] | length' "$l/instr_api.json")" = 2 ]
	[ "$(jq -r '[.Instructions[] | select(.Pipe == "MTE3") | .Source] | .[0]' "$l/instr_api.json")" = UB_TO_GM ]
	# the heat map: one entry per set of the chip's L2, the model's counts
	sets=$(jq '."Cacheline Records" | length' "$l/cacheline.json")
	[ "$sets" -eq 16384 ] || [ "$sets" -eq 8192 ]
	hm=$(jq '[."Cacheline Records"[] | .Hit.Value[0] + .Miss.Value[0]] | add' "$l/cacheline.json")
	[ "$hm" = "$(( $(sum "$l/instr_exe.csv" l2cache_hit) + $(sum "$l/instr_exe.csv" l2cache_miss) ))" ]
	# 512-byte lines: 2 x 3 x 98304 bytes of transfers touch that many line accesses
	[ "$hm" = $((2 * 3 * 98304 / 512)) ]
	grep -q '<svg' "$l/l2_sets.svg"
	# and they are visualize_data.bin's blocks, after the metrics', in the reference's order
	vdata-dump -v "$l/visualize_data.bin" | sed 's/^type=\([^ ]*\).*/\1/' | tr '\n' ' ' > blocks
	[ "$(cat blocks)" = "OP_BASIC_INFO COMPUTE_LOAD_FIGURE COMPUTE_LOAD_TABLE STORAGE_FIGURE STORAGE_TABLE CACHELINE_HEATMAP FILE_API INSTR_API " ] || { cat blocks; false; }
	for b in CACHELINE_HEATMAP=cacheline.json FILE_API=file_api.json INSTR_API=instr_api.json; do
		vdata-dump --payload "${b%%=*}" "$l/visualize_data.bin" | cmp - "$l/${b#*=}"
	done
}

@test "a chip without the L2 model (310P, A5): no hit columns, no heat map" {
	for soc in Ascend310P1 Ascend950PR_9599; do
		rm -rf "$t/d" "$t/o"
		device $soc "$t/d" MemoryDetail,Source -s add -b 2
		run board-code -o "$t/o" "$t/d"
		[ "$status" -eq 0 ] || { echo "$soc: $output"; false; }
		[ ! -e "$t/o/cacheline.json" ] && [ ! -e "$t/o/l2_sets.svg" ]
		awk -F, -v c="$(col "$t/o/instr_exe.csv" l2cache_hit)" 'NR > 1 && $c != "NA" { bad++ } END { exit bad > 0 }' \
			"$t/o/instr_exe.csv"
		[ "$(sum "$t/o/instr_exe.csv" process_bytes)" = $((2 * 98304)) ]
		! jq -e '."Instructions Dtype".Instructions | has("L2Cache Hit Rate")' "$t/o/instr_api.json"
	done
}

@test "A5 PC sampling: the stall reasons of each instruction in INSTR_API and of each line in FILE_API, as pc-stall counts them" {
	CAMODEL_DEVICE_PCSAMPLING=1 device Ascend950PR_9599 "$t/d" Source -s simt
	board-code --pcs "$t/d" | src-map -q --binary "$ops/kernels/simt_custom.o" --pc-start "$t/d/pc_start_addr.txt" >"$t/code"
	run board-code -o "$t/o" --code "$t/code" "$t/d"
	echo "$output"
	[ "$status" -eq 0 ]
	# the instrumentation stub's own sample: at no instruction, dropped and said
	[[ "$output" == *"2 of 12 PC samples at 1 pcs that are not instructions of the code view dropped (first 0x10)"* ]]
	mkdir "$t/p"
	pc-stall -q -o "$t/p" "$t/d"
	# (100: the viewer's custom percentage)
	[ "$(jq -c '."Instructions Dtype".Instructions | with_entries(select(.key | startswith("Stall")))' "$t/o/instr_api.json")" = \
		'{"Stall Sampling(All Samples)":100,"Stall Sampling(Not Issue)":100}' ]
	[ "$(jq -c '."Files Dtype".Lines | with_entries(select(.key | startswith("Stall")))' "$t/o/file_api.json")" = \
		'{"Stall Sampling(All Samples)":100,"Stall Sampling(Not Issue)":100}' ]
	python3 - "$t/o" "$t/p/PcSampling.csv" "$(cat "$t/d/pc_start_addr.txt")" <<'PY'
import sys, json
o, csv, start = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
names = ["IBuf_Empty", "Nop_Cycles", "Scoreboard_Not_Ready", "Register_bank_conflict", "Resource_conflict",
         "Warp_Level_Sync", "Divergence_Stack_Spill", "Others", "Active"]
rows = {int(l.split(",")[0], 16): [int(x) for x in l.split(",")[1:10]] for l in open(csv).read().splitlines()[1:]}
api = json.load(open(o + "/instr_api.json"))
pcs = {int(i["Address"], 16) - start for i in api["Instructions"]}
# the shares are of the samples kept (at instructions): all but the stub's
assert sorted(set(rows) - pcs) == [0x10], sorted(set(rows) - pcs)
del rows[0x10]
stall = sum(sum(v[:8]) for v in rows.values())
every = sum(sum(v) for v in rows.values())
seen = 0
for i in api["Instructions"]:
    pc = int(i["Address"], 16) - start
    v = rows.get(pc, [0] * 9)
    ni, al = i["Stall Sampling(Not Issue)"], i["Stall Sampling(All Samples)"]
    assert list(ni["Details"]) == sorted(names[:8]) and list(al["Details"]) == sorted(names), i
    assert [ni["Details"][n] for n in names[:8]] == v[:8], (hex(pc), ni, v)
    assert [al["Details"][n] for n in names] == v, (hex(pc), al, v)
    assert abs(ni["Percent"] - sum(v[:8]) / stall) < 1e-6 and abs(al["Percent"] - sum(v) / every) < 1e-6, i
    seen += pc in rows
assert seen == len(rows) == 5, seen
# a line's samples are those of its instructions: the five SIMT_OP lines
lines = {l["Line"]: l for f in json.load(open(o + "/file_api.json"))["Files"] for l in f["Lines"]}
sampled = sorted(n for n, l in lines.items() if l["Stall Sampling(All Samples)"]["Details"]["Active"])
assert sampled == [15, 16, 17, 18, 19], sampled
PY
	# without PC sampling files, no stall keys at all
	rm "$t/d"/pcSampling.bin*
	board-code -q -o "$t/o2" --code "$t/code" "$t/d"
	[ -f "$t/o2/file_api.json" ]
	! grep -q 'Stall Sampling' "$t/o2/instr_api.json" "$t/o2/file_api.json"
}

@test "Source alone: counts, no bytes (NA); MemoryDetail alone: bytes, no counts" {
	device Ascend910B4 "$t/d" Source -s add -b 2
	[ ! -e "$t/d/MemoryChart.bin" ]
	board-code -q -o "$t/o" "$t/d"
	awk -F, -v c="$(col "$t/o/instr_exe.csv" process_bytes)" 'NR > 1 && $c != "NA" { bad++ } END { exit bad > 0 }' \
		"$t/o/instr_exe.csv"
	[ "$(sum "$t/o/instr_exe.csv" call_count)" -gt 0 ]
	[ ! -e "$t/o/dbi_dma.csv" ]
	device Ascend910B4 "$t/m" MemoryDetail -s add -b 2
	[ ! -e "$t/m/kernel0Stub.o.bbbmap.0" ]
	board-code -q -o "$t/p" "$t/m"
	awk -F, -v c="$(col "$t/p/instr_exe.csv" call_count)" 'NR > 1 && $c != "NA" { bad++ } END { exit bad > 0 }' \
		"$t/p/instr_exe.csv"
	# asking for what the dump does not have
	run board-code --aic-metrics=Source -o "$t/q" "$t/m"
	[ "$status" -eq 3 ]
	[[ "$output" == *"no kernel<N>Stub.o.bbbmap.<M>"* ]]
	run board-code --aic-metrics=Roofline "$t/m"
	[ "$status" -eq 2 ]
}

# out_empty DIR: nothing of a code view was written into DIR
out_empty() {
	[ ! -e "$1/instr_exe.csv" ] && [ -z "$(ls -A "$1")" ]
}

@test "a malformed MemoryChart.bin: one error naming the file and the record, nothing written" {
	device Ascend910B4 "$t/d" MemoryDetail -s add -b 1
	mkdir "$t/o"
	cp "$t/d/MemoryChart.bin" "$t/good"
	# cut: the size is no multiple of 56
	head -c 100 "$t/good" > "$t/d/MemoryChart.bin"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "board-code: $t/d/MemoryChart.bin: record 1 (offset 56): cut short: 44 of 56 bytes"* ]]
	out_empty "$t/o"
	# a memory kind past INVALID in record 2 (byte 52 of it: the source kind)
	cp "$t/good" "$t/d/MemoryChart.bin"
	printf '\x20' | dd of="$t/d/MemoryChart.bin" bs=1 seek=$((2 * 56 + 52)) conv=notrunc status=none
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == "board-code: $t/d/MemoryChart.bin: record 2 (offset 112): source memory kind past 9"* ]]
	out_empty "$t/o"
	# a size past 4 GiB (the top byte of record 0's source size)
	cp "$t/good" "$t/d/MemoryChart.bin"
	printf '\x01' | dd of="$t/d/MemoryChart.bin" bs=1 seek=23 conv=notrunc status=none
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == *"MemoryChart.bin: record 0 (offset 0): a transfer size past 4 GiB"* ]]
	out_empty "$t/o"
	# an empty file is a run that moved nothing
	: > "$t/d/MemoryChart.bin"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$t/o/instr_exe.csv")" = 1 ]
}

@test "a malformed basic-block map or counts file: the file and the line, nothing written" {
	device Ascend910B4 "$t/d" Source -s add -b 1
	mkdir "$t/o"
	map=$t/d/kernel0Stub.o.bbbmap.0
	cp "$map" "$t/map"
	sed -i '5s/.*/BBB id:x Offset: 0x0 end: 0x4/' "$map"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == "board-code: $map: line 5: not \"BBB id:N Offset: 0xHEX end: 0xHEX\""* ]]
	out_empty "$t/o"
	cp "$t/map" "$map"
	n=$(stat -c %s "$t/d/kernel0.extra.0")
	truncate -s $((n - 2)) "$t/d/kernel0.extra.0"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == "board-code: $t/d/kernel0.extra.0: count $(( (n - 2) / 4 )) (offset $(( (n - 2) / 4 * 4 ))): cut short"* ]]
	out_empty "$t/o"
	truncate -s $((n - 4)) "$t/d/kernel0.extra.0"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == *"kernel0.extra.0: $(( n / 4 - 1 )) counts, but the map has block ids up to $(( n / 4 - 1 ))"* ]]
	rm "$t/d/kernel0.extra.0"
	run board-code -o "$t/o" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == *"kernel0.extra.0: cannot read"* ]]
	out_empty "$t/o"
}

@test "no code view files: exit 3; --pcs gives src-map an instruction record per pc" {
	device Ascend910B4 "$t/d" "" -s add -b 1
	run board-code -o "$t" "$t/d"
	[ "$status" -eq 3 ]
	[[ "$output" == *"neither MemoryChart.bin nor a basic-block map"* ]]
	device Ascend910B4 "$t/e" MemoryDetail,Source -s add -b 1
	board-code --pcs "$t/e" | rec-cat --json > "$t/pcs"
	n=$(jq -c 'select(.kind == "instr")' "$t/pcs" | wc -l)
	board-code -q -o "$t/o" "$t/e"
	[ "$n" = $(( $(wc -l < "$t/o/instr_exe.csv") - 1 )) ]
}

@test "MemoryDetail: PipeUtilization's aic_mte1/aic_mte2_active_bw from the DMA bytes (board-flow, board-metrics --dbi-dma)" {
	cd "$t"
	board-flow -q -o out --aic-metrics=MemoryDetail -- "$ops/bin/op_acl" -s mixed -b 2 > /dev/null
	l=$(echo out/OPPROF_*/device0/mixed_custom/0)
	p=$l/PipeUtilization.csv
	[ "$(head -1 "$p" | tr ',' '\n' | grep -c '^aic_mte[12]_active_bw(GB/s)$')" = 2 ]
	# after the scalar-wait columns: the last two of the header
	[ "$(head -1 "$p" | tr ',' '\n' | grep -v '^$' | tail -2 | tr '\n' ' ')" = "aic_mte1_active_bw(GB/s) aic_mte2_active_bw(GB/s) " ]
	# mte2: the block's GM -> L1, L0A, L0B bytes over the MTE2 time
	d=$l/dbi_dma.csv
	join -t, <(awk -F, -v a="$(col "$d" GM_TO_L1_DATA)" -v b="$(col "$d" GM_TO_L0A_DATA)" -v c="$(col "$d" GM_TO_L0B_DATA)" \
	             'NR > 1 { print $1 "," $a + $b + $c }' "$d" | sort) \
	         <(awk -F, -v t="$(col "$p" 'aic_mte2_time(us)')" -v w="$(col "$p" 'aic_mte2_active_bw(GB/s)')" \
	             -v m="$(col "$p" 'aic_mte1_active_bw(GB/s)')" '$2 == "cube0" { print $1 "," $t "," $w "," $m }' "$p" | sort) > j
	[ "$(wc -l < j)" = 2 ]
	awk -F, '{ want = $2 / $3 * 1e6 / 2^30; if ($2 == 0 || ($4 - want) / want > 1e-4 || (want - $4) / want > 1e-4 || !($5 > 0)) bad++ }
	         END { exit bad > 0 }' j
	# the vector rows have none
	[ "$(awk -F, -v w="$(col "$p" 'aic_mte2_active_bw(GB/s)')" '$2 ~ /^vector/ && $w != "NA"' "$p" | wc -l)" = 0 ]
	# without MemoryDetail, no such columns
	board-flow -q -o out2 -- "$ops/bin/op_acl" -s mixed -b 2 > /dev/null
	! head -1 out2/OPPROF_*/device0/mixed_custom/0/PipeUtilization.csv | grep -q 'aic_mte1_active_bw'
	# a malformed dbi_dma.csv: the file and line, nothing written
	sed '2s/,[0-9]*$/,x/' "$d" > bad.csv
	mkdir m
	run bash -c 'dump-split -q "$1" | board-metrics --dbi-dma bad.csv -o m' _ "$l/dump"
	[ "$status" -eq 3 ]
	[[ "$output" == *"bad.csv:2: not a block id and 12 counts, comma-separated"* ]]
	[ -z "$(ls -A m)" ]
}
