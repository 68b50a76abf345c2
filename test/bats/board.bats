#!/usr/bin/env bats
# The on-board flow as a user runs it: dump-split of an on-board dump
# directory into records, board-metrics into the reference's CSVs.  Every
# dump here is written by test/tools/board-synth (counter slot i holds
# COUNT + i, see its header) and changed by hand where a test says so.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	GEN=$(command -v board-synth || echo "$top/build/bin/board-synth")
	[ -x "$GEN" ] || { echo "board-synth is not built (make build/bin/board-synth)"; return 1; }
	cd "$BATS_TEST_TMPDIR"
}

# col FILE ROW NAME: the field of column NAME in data row ROW (1 = the first
# row after the header).
col() {
	awk -F, -v row="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		NR == row + 1 { if (c) print $c; else print "NO-COLUMN" }' "$1"
}

@test "910B: OpBasicInfo.csv has the reference's header and a 200 us task" {
	"$GEN" 910B d
	run board-metrics -o m < <(dump-split d)
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p m/OpBasicInfo.csv)" = "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq," ]
	[ "$(sed -n 2p m/OpBasicInfo.csv)" = "add,mix,200.000000,1,2,0,4242,N/A,1650," ]
	[[ "$output" == *"op add (mix, Ascend910B4)"* ]]
	[[ "$output" == *"task duration  200.000 us"* ]]
	[[ "$output" == *"busiest pipe"* ]]
	# every field ends with a comma, as the reference writes them
	[ "$(grep -c ',$' m/PipeUtilization.csv)" -eq 4 ]
	# the seven groups and nothing else
	[ "$(ls m | tr '\n' ' ')" = "ArithmeticUtilization.csv L2Cache.csv Memory.csv MemoryL0.csv MemoryUB.csv OpBasicInfo.csv PipeUtilization.csv ResourceConflictRatio.csv memory.svg pipes.svg roofline.csv roofline.svg " ]
}

@test "910B: rows by block, cube0 before vector0 and vector1; columns filled by core kind" {
	"$GEN" -b 2 910B d
	dump-split d | board-metrics -q -o m
	[ "$(cut -d, -f1,2 m/MemoryL0.csv | tr '\n' ' ')" = "block_id,sub_block_id 0,cube0 0,vector0 0,vector1 1,cube0 1,vector0 1,vector1 " ]
	[ "$(sed -n 1p m/MemoryL0.csv)" = "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_l0a_read_bw(GB/s),aic_l0a_write_bw(GB/s),aic_l0b_read_bw(GB/s),aic_l0b_write_bw(GB/s),aic_l0c_read_bw_cube(GB/s),aic_l0c_write_bw_cube(GB/s),aiv_time(us),aiv_total_cycles," ]
	# the AI Core clock falls back to 1850 MHz (Current Freq=N/A)
	[ "$(col m/MemoryL0.csv 1 'aic_time(us)')" = 10.810811 ]
	[ "$(col m/MemoryL0.csv 1 aic_total_cycles)" = 20000 ]
	[ "$(col m/MemoryL0.csv 1 'aiv_time(us)')" = NA ]
	[ "$(col m/MemoryL0.csv 2 aiv_total_cycles)" = 10000 ]
	[ "$(col m/MemoryL0.csv 2 aic_total_cycles)" = NA ]
	# event 8 (vector busy) is slot 0 of replay 10 of the AIV list: 1001
	# cycles over the mix op's 200 us at 1850 MHz
	[ "$(col m/PipeUtilization.csv 2 'aiv_vec_time(us)')" = 0.541081 ]
	[ "$(col m/PipeUtilization.csv 2 aiv_vec_ratio)" = 0.002705 ]
	# the scalar_wait_id columns of non-zero events, aic_ sorted as strings, then aiv_
	head -n 1 m/PipeUtilization.csv | tr , '\n' | grep scalar_wait_id > ids
	[ "$(sed -n 1p ids)" = "aic_scalar_wait_id0_time(us)" ]
	[ "$(sed -n 2p ids)" = "aic_scalar_wait_id10_time(us)" ]
	[ "$(sed -n 17p ids)" = "aiv_scalar_wait_id0_time(us)" ]
	[ "$(wc -l < ids)" -eq 32 ]
}

@test "910B: a metric whose event no replay counted is NA" {
	# only replay 1: event 49 (L1 read, replay 3) and event 10 (cube, replay 10) are missing
	"$GEN" -r 1 910B d
	dump-split d | board-metrics -q -o m
	[ "$(col m/Memory.csv 1 'aic_l1_read_bw(GB/s)')" = NA ]
	[ "$(col m/PipeUtilization.csv 1 'aic_cube_time(us)')" = NA ]
	[ "$(col m/ArithmeticUtilization.csv 1 aic_cube_fops)" != NA ]
	[ "$(col m/L2Cache.csv 1 aic_write_cache_hit)" = 1003 ]
	# no scalar_wait_id column: none of their events was counted
	! grep -q scalar_wait_id m/PipeUtilization.csv
}

@test "910B: a cube op; OpBasicInfo.csv has NA for what op_basic_info.txt lacks" {
	"$GEN" -k cube 910B d
	grep -v -e '^Pid=' -e '^Rated Freq=' d/op_basic_info.txt | sed 's/^Block Dim=1/Block Dim=01/' > x && mv x d/op_basic_info.txt
	dump-split d | board-metrics -q -o m
	# Block Dim as written
	[ "$(sed -n 2p m/OpBasicInfo.csv)" = "add,cube,200.000000,01,NA,0,NA,N/A,NA," ]
	[ "$(cut -d, -f2 m/Memory.csv | tr '\n' ' ')" = "sub_block_id cube0 " ]
}

@test "310P: AiCore op, no block columns, 260.416656 us, the L2 hit rate from L2Cache.bin" {
	"$GEN" 310P d
	run board-metrics -o m < <(dump-split d)
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p m/OpBasicInfo.csv)" = "Op Name,Op Type,Task Duration(us),Block Dim,Device Id,Pid,Current Freq,Rated Freq," ]
	[ "$(sed -n 2p m/OpBasicInfo.csv)" = "add,AiCore,260.416656,1,0,4242,N/A,1060," ]
	[ "$(cat m/L2Cache.csv | tr '\n' ' ')" = "aic_l2_cache_hit_rate(%), 49.925186, " ]
	[ "$(sed -n 1p m/MemoryL0.csv | cut -d, -f1-2)" = "aic_time(us),aic_total_cycles" ]
	[ "$(wc -l < m/Memory.csv)" -eq 2 ]
}

@test "A5: 10 us, ten slots a replay, records of another function type skipped" {
	"$GEN" A5 d
	# a record of another function type in front of replay 1
	{ head -c 128 /dev/zero; cat d/DeviceProf1.bin; } > x && mv x d/DeviceProf1.bin
	dump-split --json d > recs
	[ "$(jq -c 'select(.kind == "pmu" and .file == 1) | .index' recs | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(jq -c 'select(.kind == "pmu" and .file == 6 and .core == 1) | [.nslots, .event9, .count9]' recs | head -n 1)" = "[10,1468,1010]" ]
	board-metrics -q -o m < recs
	[ "$(sed -n 2p m/OpBasicInfo.csv)" = "add,mix,10.000000,1,2,0,4242,N/A,1650," ]
	[ "$(col m/ArithmeticUtilization.csv 1 aic_cube_total_instr_number)" = 1005 ]
	[ "$(col m/L2Cache.csv 2 aiv_read_close_hit)" = 1001 ]
	! ls d/L2Cache.bin
}

@test "dump-split: the records of a 910B dump, events from the replay list" {
	"$GEN" -n 7 910B d
	dump-split --json d > recs
	[ "$(jq -r 'select(.kind == "header") | [.soc, .mhz] | @tsv' recs)" = "$(printf 'Ascend910B4\t1650')" ]
	[ "$(jq -c 'select(.kind == "basic") | [.op_name, .block_dim, .device_id, .cur_freq, .cur_freq_text, .rated_freq]' recs)" = '["add",1,0,-1,"N/A",1650]' ]
	# replay 3 of the AIC list: 19 49 50 518 524 0 0 0
	[ "$(jq -c 'select(.kind == "pmu" and .file == 3 and .core == 0) | [.event0, .event1, .event2, .event3, .event4, .event5, .count0, .count4]' recs)" = "[19,49,50,518,524,0,7,11]" ]
	# replay 10 of the AIV list: 8 9 12 770 771 89 90 91
	[ "$(jq -c 'select(.kind == "pmu" and .file == 10 and .subblock == 1) | [.core, .event0, .event7, .cycles, .start, .end]' recs)" = "[1,8,91,10000,30000,40000]" ]
	[ "$(jq -c 'select(.kind == "stamp") | [.edge, .time]' recs | tr '\n' ' ')" = "[0,30000] [1,40000] " ]
	[ "$(jq -c 'select(.kind == "l2") | [.event4, .count4]' recs)" = "[156,11]" ]
	[ "$(jq -c 'select(.kind == "trailer") | [.records, .bad, .dropped]' recs)" = "[34,0,0]" ]
	# DeviceProf10 comes after DeviceProf9
	[ "$(jq -r 'select(.kind == "pmu") | .file' recs | uniq | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 10 " ]
}

@test "dump-split: a launch directory holding dump/ is read as its dump" {
	mkdir launch
	"$GEN" 910B launch/dump
	dump-split launch | board-metrics -q -o m
	[ "$(sed -n 2p m/OpBasicInfo.csv | cut -d, -f3)" = 200.000000 ]
}

@test "board-metrics: the first count of an event is kept, the cycles are the last replay's" {
	"$GEN" 910B d
	# a second sample of the cube's replay 10 (event 9 first): other counts, other cycles
	dump-split --json d | jq -c 'if .kind == "pmu" and .file == 10 and .core == 0 then ., (.count0 = 999999 | .cycles = 40000) else . end' > recs
	board-metrics -q -o m < recs
	[ "$(col m/PipeUtilization.csv 1 aic_total_cycles)" = 40000 ]
	[ "$(col m/PipeUtilization.csv 1 'aic_scalar_time(us)')" = 0.541081 ]
}

@test "board-metrics --aic-metrics: only the groups asked for, any spelling" {
	"$GEN" 910B d
	dump-split d | board-metrics -q --aic-metrics=PipeUtilization,l2cache -o m
	[ "$(ls m | tr '\n' ' ')" = "L2Cache.csv OpBasicInfo.csv PipeUtilization.csv memory.svg pipes.svg roofline.csv roofline.svg " ]
	run board-metrics -q --aic-metrics=Pipes -o m2 < /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"'Pipes' is not a metric group"* ]]
	[ ! -e m2 ]
}

@test "dump-split: a cut PMU record and an L2Cache.bin of the wrong size are errors naming the record" {
	"$GEN" 910B d
	truncate -s -5 d/DeviceProf2.bin
	head -c 70 /dev/zero > d/L2Cache.bin
	run dump-split -o recs d
	[ "$status" -eq 1 ]
	[[ "$output" == *"d/DeviceProf2.bin: PMU record cut short at record 2 (byte 256)"* ]]
	[[ "$output" == *"d/L2Cache.bin: "*"not 72 bytes"* ]]
	[ "$(rec-cat --json recs | jq -c 'select(.kind == "trailer") | [.bad, .dropped]')" = "[2,0]" ]
	# the records before the cut one are there
	[ "$(rec-cat --json recs | jq -c 'select(.kind == "pmu" and .file == 2)' | wc -l)" -eq 2 ]
	# board-metrics writes its CSVs and says what upstream left out
	run board-metrics -o m recs
	[ "$status" -eq 1 ]
	[[ "$output" == *"upstream left out 2 bad records"* ]]
	[ -s m/PipeUtilization.csv ]
}

@test "dump-split: a missing duration.bin; board-metrics: Task Duration NA" {
	"$GEN" 910B d
	rm d/duration.bin
	run dump-split -o recs d
	[ "$status" -eq 1 ]
	[[ "$output" == *"duration.bin: cannot open"* ]]
	run board-metrics -o m recs
	[ "$status" -eq 1 ]
	[[ "$output" == *"Task Duration NA"* ]]
	[ "$(sed -n 2p m/OpBasicInfo.csv | cut -d, -f3)" = NA ]
}

@test "dump-split: op_basic_info.txt without Device Id, or with a bad Block Dim: exit 3, nothing written" {
	"$GEN" 910B d
	grep -v 'Device Id' d/op_basic_info.txt > x && mv x d/op_basic_info.txt
	run dump-split -o recs d
	[ "$status" -eq 3 ]
	[[ "$output" == *"d/op_basic_info.txt: no Device Id"* ]]
	[ ! -e recs ]
	"$GEN" 910B e
	sed -i 's/^Block Dim=.*/Block Dim=two/' e/op_basic_info.txt
	run dump-split -o recs e
	[ "$status" -eq 3 ]
	[[ "$output" == *"e/op_basic_info.txt: "*"line 2"* ]]
	[ ! -e recs ]
	rm e/DeviceProf*.bin
	sed -i 's/^Block Dim=.*/Block Dim=2/' e/op_basic_info.txt
	run dump-split -o recs e
	[ "$status" -eq 3 ]
	[[ "$output" == *"no DeviceProf<N>.bin"* ]]
}

@test "dump-split: a Run Soc Version without an on-board flow is refused" {
	"$GEN" 910B d
	sed -i 's/^Run Soc Version=.*/Run Soc Version=Ascend310B1/' d/op_basic_info.txt
	run dump-split -o recs d
	[ "$status" -eq 3 ]
	[[ "$output" == *"Ascend310B1 is not a chip with an on-board flow"* ]]
	# --soc-version names the chip instead
	run dump-split --soc-version=Ascend910B1 -o recs d
	[ "$status" -eq 0 ]
	[ "$(rec-cat --json recs | jq -r 'select(.kind == "header") | .soc')" = Ascend910B1 ]
}

@test "board-metrics: all or nothing" {
	"$GEN" 910B d
	dump-split -o recs d
	# no -o
	run board-metrics recs
	[ "$status" -eq 2 ]
	# -o naming a file
	: > file
	run board-metrics -o file recs
	[ "$status" -eq 4 ]
	[ ! -s file ]
	# a stream without a basic record: nothing written, DIR not made
	run board-metrics -o m < <(rec-cat --json recs | grep -v '"kind":"basic"')
	[ "$status" -eq 3 ]
	[[ "$output" == *"no basic record"* ]]
	[ ! -e m ]
	# a simulator stream: no pmu record
	run board-metrics --soc-version=Ascend910B4 -o m < <(dump-split "$top/test/data/910B")
	[ "$status" -eq 3 ]
	[ ! -e m ]
	# an existing DIR keeps its other files; its CSVs are replaced
	mkdir m && echo keep > m/other && echo old > m/OpBasicInfo.csv
	board-metrics -q -o m recs
	[ "$(cat m/other)" = keep ]
	[ "$(sed -n 2p m/OpBasicInfo.csv | cut -d, -f1)" = add ]
	[ -z "$(ls -A m | grep tmp)" ]
}

@test "dump-split: random bytes in every raw file: errors or records, never a crash" {
	for soc in 910B 310P A5; do
		"$GEN" "$soc" "r$soc"
		for f in DeviceProf1.bin DeviceProf3.bin duration.bin L2Cache.bin; do
			head -c 1000 /dev/urandom > "r$soc/$f"
		done
		run dump-split -o "r$soc.rec" "r$soc"
		[ "$status" -eq 1 ] || { echo "$soc: status $status: $output"; return 1; }
		[[ "$output" == *"DeviceProf1.bin: PMU record cut short at record 7 (byte 896)"* ]]
		[ "$(rec-cat --json "r$soc.rec" | tail -n 1 | jq -r .kind)" = trailer ]
		run board-metrics -q -o "m$soc" "r$soc.rec"
		[ "$status" -le 1 ] || { echo "$soc: board-metrics status $status: $output"; return 1; }
	done
}

# The reference's own on-board parse, where one is built: OPTRACE_REF_BOARD names a
# command taking DUMPDIR OUTDIR SOC that leaves its tree in OUTDIR/OPPROF_*.
@test "the CSVs are byte-identical to the reference's, on 910B, 310P and A5 dumps of several shapes" {
	ref=${OPTRACE_REF_BOARD:-}
	[ -n "$ref" ] && [ -x "$ref" ] || skip "OPTRACE_REF_BOARD does not name the reference's on-board parse"
	"$GEN" -b 2 -k cube 910B a1
	"$GEN" -r 1 -n 5 910B a2
	"$GEN" -b 3 -n 123456789012 910B a3
	sed -i 's/^Current Freq=N\/A/Current Freq=1500/; /^Pid=/d' a3/op_basic_info.txt
	"$GEN" -b 4 310P b1
	"$GEN" -k vector -b 2 A5 c1
	"$GEN" -r 2 A5 c2
	for d in a1 a2 a3 b1 c1 c2; do
		case $d in a*) soc=Ascend910B4 ;; b*) soc=Ascend310P3 ;; c*) soc=Ascend950PR_9589 ;; esac
		"$ref" "$d" "ref.$d" "$soc" > "ref.$d.log" 2>&1 || { cat "ref.$d.log"; return 1; }
		dump-split "$d" | board-metrics -q -o "opt.$d"
		r=$(ls -d "ref.$d"/OPPROF_*)
		n=0
		for f in "opt.$d"/*.csv; do
			[ "${f##*/}" != roofline.csv ] || continue     # ours: the reference has none
			cmp "$f" "$r/${f##*/}" || { diff "$f" "$r/${f##*/}" | head -5; return 1; }
			n=$((n + 1))
		done
		[ "$n" -eq 8 ]
	done
}

@test "visualize_data.bin: the basic-info, storage-figure, storage-table (310P, Ascend950), occupancy and roofline blocks are byte-identical to the reference's" {
	ref=${OPTRACE_REF_BOARD:-}
	[ -n "$ref" ] && [ -x "$ref" ] || skip "OPTRACE_REF_BOARD does not name the reference's on-board parse"
	"$GEN" -b 2 -k cube 910B a1
	"$GEN" -b 3 -n 123456789012 910B a3
	sed -i 's/^Current Freq=N\/A/Current Freq=1500/' a3/op_basic_info.txt
	"$GEN" -b 4 -k vector 910B a4
	"$GEN" -b 4 310P b1
	"$GEN" -k vector -b 2 A5 c1
	"$GEN" -r 2 A5 c2
	"$GEN" -b 2 A5 c3
	"$GEN" -k cube -b 3 A5 c5
	"$GEN" -r 2 310P b3
	"$GEN" -r 2 910B a7           # counts of the list no replay gave
	# varied counts and two blocks a core (board-gen)
	gen=$(command -v board-gen || echo "$top/build/bin/board-gen")
	"$gen" --chip 910B --blocks 12 --kind vector a5 >/dev/null
	"$gen" --chip 910B --blocks 6 --kind mix --loops 3 a6 >/dev/null
	"$gen" --chip A5 --blocks 8 --kind mix c4 >/dev/null
	"$gen" --chip A5 --blocks 5 --kind vector c6 >/dev/null
	"$gen" --chip 310P --blocks 6 --kind cube b2 >/dev/null
	for d in a1 a3 a4 a5 a6 a7 b1 b2 b3 c1 c2 c3 c4 c5 c6; do
		m=Default,Occupancy,Roofline
		case $d in a[56]) soc=Ascend910B1 ;; a*) soc=Ascend910B4 ;; b*) soc=Ascend310P3 m=Default,Roofline ;; c*) soc=Ascend950PR_9589 ;; esac
		"$ref" "$d" "ref.$d" "$soc" -- --aic-metrics=$m > "ref.$d.log" 2>&1 || { cat "ref.$d.log"; return 1; }
		dump-split "$d" | board-metrics -q --aic-metrics=$m -o "opt.$d" --vdata "opt.$d/v.bin"
		r=$(find "ref.$d" -name visualize_data.bin)
		for t in OP_BASIC_INFO STORAGE_FIGURE STORAGE_TABLE OCCUPANCY ROOFLINE; do
			vdata-dump --payload "$t" "opt.$d/v.bin" > opt.json
			# the storage blocks on every chip
			case $t in STORAGE_*) [ -s opt.json ] ;; esac
			# Ascend950: no roofline here
			[ -s opt.json ] || continue
			vdata-dump --payload "$t" "$r" > ref.json
			cmp ref.json opt.json || { echo "$d $t"; cat ref.json; echo; cat opt.json; return 1; }
		done
	done
}

@test "910B: roofline.csv holds the roofline's points: ops/byte, TOPS over the task, the ratio to the attainable value" {
	"$GEN" -b 2 910B d
	dump-split d | board-metrics -q -o m
	[ "$(sed -n 1p m/roofline.csv)" = "title,unit,bytes,bandwidth(TB/s),ops,peak(TOPS),arithmetic intensity(ops/byte),performance(TOPS),ratio," ]
	dur=$(col m/OpBasicInfo.csv 1 'Task Duration(us)')
	# each line checked against its own numbers: x = ops / bytes,
	# y = ops / the task duration, ratio = y over min(peak, bw x)
	awk -F, -v dur="$dur" 'NR == 1 { next }
		function off(a, b) { return (a > b ? a - b : b - a) > 1e-4 * (b > 0 ? b : 1) + 1e-6 }
		{ n++
		  x = $5 / $3; y = $5 / dur / 1e6; att = $4 * x; if (att > $6) att = $6
		  if (off($7, x) || off($8, y) || off($9, y / att)) { print "line " NR ": " $0; bad++ } }
		END { exit !(n >= 10 && !bad) }' m/roofline.csv
	# the same titles and units as the picture
	while IFS=, read -r t u _; do
		[ "$t" = title ] && continue
		grep -qF "$u" m/roofline.svg || { echo "$u not in roofline.svg"; return 1; }
	done < m/roofline.csv
}

# payload FILE TYPE: the JSON of the first block of TYPE in FILE.
payload() {
	vdata-dump --payload "$2" "$1"
}

@test "visualize_data.bin: basic info, occupancy, roofline, trace and other blocks in order, with the set" {
	"$GEN" 910B d
	printf '{"traceEvents":[{"name":"x","ph":"X","ts":1,"dur":2}]}' > trace.json
	printf '{"Cacheline Records":[]}\n' > heat.json
	printf '{"a":1}' > stall.json
	run board-metrics -q --aic-metrics=Default,Occupancy,Roofline -o m --vdata m/visualize_data.bin \
		--vdata-trace trace.json --vdata-block CACHELINE_HEATMAP=heat.json --vdata-block 0xf=stall.json < <(dump-split d)
	[ "$status" -eq 0 ]
	[ "$(vdata-dump m/visualize_data.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE type=OCCUPANCY type=ROOFLINE type=TRACE type=CACHELINE_HEATMAP type=STALL_REASON " ]
	# the trace and the other blocks byte for byte
	cmp <(payload m/visualize_data.bin TRACE) trace.json
	cmp <(payload m/visualize_data.bin 0xE) heat.json
	cmp <(payload m/visualize_data.bin 0xF) stall.json
	# no staging directory or temporary file left
	[ "$(ls -A m | grep -c '^\.')" -eq 0 ]
}

@test "visualize_data.bin: the basic-info block's JSON (910B mix)" {
	"$GEN" 910B d
	dump-split d | board-metrics -q -o m --vdata m/visualize_data.bin
	# the basic info and storage figure without Occupancy or Roofline, and no occupancy.svg
	[ "$(vdata-dump m/visualize_data.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE " ]
	[ ! -e m/occupancy.svg ]
	# (the reference's bytes for this dump, keys in byte order)
	[ "$(payload m/visualize_data.bin 5)" = '{"advice":[],"block_dim":"1","cur_freq":"N/A","device_id":"0","duration":200.0,"mix_block_detail":{"head_name":["Block ID","Cube0 Duration (μs)","Vector0 Duration (μs)","Vector1 Duration (μs)"],"row":[{"value":["0","10.810811","5.405406","5.405406"]}],"size":[2,4]},"mix_block_dim":"2","name":"add","op_type":"mix","pid":"4242","rated_freq":"1650","soc":"Ascend910B4"}' ]
}

@test "visualize_data.bin: the storage-access heat map of a 910B mix block, and memory.svg" {
	"$GEN" 910B d
	dump-split d | board-metrics -q -o m --vdata m/visualize_data.bin
	# (the reference's numbers for this dump)
	payload m/visualize_data.bin STORAGE_FIGURE | python3 -c '
import json, sys
raw = sys.stdin.read()
m = json.loads(raw)["core_memory_map"]
assert len(m) == 1, m
b = m[0]
assert list(b) == ["Cube", "L2cache", "Vector", "Vector1", "advice", "core_no", "memory_unit", "op_type", "soc"], list(b)
assert b["core_no"] == "0" and b["op_type"] == "mix" and b["soc"] == "910B", b
assert b["L2cache"] == {"hit": "9024", "hit_ratio": "49.975079", "miss": "9033", "total_request": "18057"}, b
assert b["Cube"] == {"cycle": 1002, "ratio": 5.009999752044678, "total_cycles": 20000}, b
assert b["Vector1"]["total_cycles"] == 10000 and b["Vector1"]["cycle"] == 1001, b
assert b["advice"] == ["aicore compute usage lower than 20%"] + ["aivector compute usage lower than 20%"] * 2, b
u = {x["memory_path"]: x for x in b["memory_unit"]}
assert [x["memory_path"] for x in b["memory_unit"]] == list(range(20)) + [35, 36, 37, 38], u.keys()
assert list(b["memory_unit"][0]) == ["bandwidth", "bandwidth_suffix", "display", "memory_path", "peak_ratio", "request", "request_suffix"]
assert (u[0]["request"], u[0]["bandwidth"]) == ("6021", "3.588796"), u[0]
assert u[1]["request_suffix"] == u[1]["bandwidth_suffix"] == "(theoretical value)" and u[0]["request_suffix"] == "", u[1]
assert (u[2]["request"], u[2]["bandwidth"], u[2]["peak_ratio"]) == ("NA", "NA", "NA"), u[2]
assert (u[3]["request"], u[3]["bandwidth"], u[3]["peak_ratio"]) == ("4003", "2.385974", "1.221884"), u[3]
assert (u[10]["request"], u[10]["bandwidth"]) == ("1", "0.000596"), u[10]
assert (u[16]["request"], u[16]["peak_ratio"]) == ("1002", "0.314518"), u[16]
assert (u[37]["request"], u[37]["bandwidth"]) == ("1002", "1.194477"), u[37]
'
	python3 - m/memory.svg <<'PY'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
svg = E.parse(sys.argv[1]).getroot()
labels = [t.text for t in svg.iter(ns + 'text')]
for l in ('0 cube0', '0 vector0', '0 vector1', 'GM -> L2', 'L1 -> L2', 'L2 -> UB', 'Vector -> UB'):
    assert l in labels, (l, labels)
assert 'L2 -> L1' not in labels, labels          # no count: no column
tips = [t.text for t in svg.iter(ns + 'title') if t.text and ', ' in t.text]
assert '0 cube0, L1 -> L2: 2.39 GB/s' in tips, tips
assert '0 vector1, L2 -> UB: 0.597 GB/s' in tips and '0 vector0, L0C -> L2: no value' in tips, tips
print('ok')
PY
	# the storage table: the mix op's tables (the reference's bytes)
	payload m/visualize_data.bin STORAGE_TABLE | python3 -c '
import json, sys
t = json.load(sys.stdin)["table_per_block"]
assert len(t) == 1 and (t[0]["block_id"], t[0]["table_op_type"]) == ("0", "mix"), t
d = {x["table_name"]: x for x in t[0]["table_detail"]}
assert list(d) == ["Cache", "Cube", "GM Cube", "GM Vector Core0", "GM Vector Core1", "L0A", "L0B", "L0C", "L1",
                   "Pipe Cube", "Pipe Vector Core0", "Pipe Vector Core1", "Scalar Cube", "Scalar Vector Core0",
                   "Scalar Vector Core1", "UB Core0", "UB Core1", "Vector Core0", "Vector Core1"], list(d)
assert d["Cache"]["row"][2]["value"] == ["9024", "9033", "18057", "49.975079"], d["Cache"]
assert d["L1"]["header_name"] == ["", "requests", "throughput(GB/s)", "peak(%)"] and d["L1"]["size"] == [6, 3], d["L1"]
assert d["Pipe Cube"]["row"][0]["value"][4] == "NA", d["Pipe Cube"]
'
}

@test "visualize_data.bin: the storage-access heat map and table of a 310P run, and memory.svg" {
	"$GEN" -b 4 310P p
	dump-split p | board-metrics -q -o m --vdata m/v.bin
	[ "$(vdata-dump m/v.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE " ]
	[ -s m/memory.svg ]
	# (the reference's numbers for this dump)
	payload m/v.bin STORAGE_FIGURE | python3 -c '
import json, sys
m = json.load(sys.stdin)["core_memory_map"]
assert len(m) == 1, m           # the blocks of 310P are one
b = m[0]
assert list(b) == ["Cube", "L2cache", "Vector", "advice", "core_no", "memory_unit", "op_type", "soc"], list(b)
assert (b["core_no"], b["op_type"], b["soc"]) == ("NA", "AiCore", "310P"), b
assert set(b["L2cache"].values()) == {"NA"}, b
assert b["Cube"] == {"cycle": 1002, "ratio": 2.003999948501587, "total_cycles": 50000}, b
u = b["memory_unit"]
assert [x["memory_path"] for x in u] == [0, 1, 6, 7, 8, 13, 14, 15, 20, 21, 22, 23, 24, 25], u
assert list(u[0]) == ["bandwidth", "bandwidth_suffix", "display", "memory_path", "peak_ratio", "request", "requests_suffix"]
assert (u[0]["request"], u[0]["bandwidth"], u[1]["requests_suffix"]) == ("1008", "40.759277", ""), u
assert (u[13]["request"], u[13]["bandwidth"]) == ("1006", "1.271200"), u[13]
'
	payload m/v.bin STORAGE_TABLE | python3 -c '
import json, sys
t = json.load(sys.stdin)["table_per_block"]
assert len(t) == 1 and list(t[0]) == ["advice", "block_id", "table_detail", "table_op_type"], t
t = t[0]
assert (t["advice"], t["block_id"], t["table_op_type"]) == ([], "NA", "AiCore"), t
d = {x["table_name"]: x for x in t["table_detail"]}
assert [x["table_name"] for x in t["table_detail"]] == ["Cache", "Cube", "GM", "L0A", "L0B", "L0C", "L1", "Pipe", "UB", "Vector"]
assert list(d["Cache"]) == ["header_name", "row", "size", "table_name"]
# the iCache hits: 84 - 85 is negative, so the maximum, as the reference writes it
assert d["Cache"]["row"][1] == {"name": "iCache Total", "value": ["18446744073709551615", "1005", "1004", "0.000000"]}, d["Cache"]
assert d["Pipe"]["size"] == [4, 5] and d["Pipe"]["row"][0] == {"name": "MTE1", "value": ["1005", "1003", "1007", "2.006000"]}, d["Pipe"]
assert d["UB"]["size"] == [10, 2] and d["UB"]["row"][9] == {"name": "UB Read L0C", "value": ["1003", "20.278549"]}, d["UB"]
assert d["L1"]["row"][1] == {"name": "L1 Write MTE", "value": ["1003", "40.557098"]}, d["L1"]
'
}

@test "visualize_data.bin: the storage-access heat map and table of an Ascend950 mix run" {
	"$GEN" -b 2 A5 a
	dump-split a | board-metrics -q -o m --vdata m/v.bin
	[ "$(vdata-dump m/v.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE " ]
	# (the reference's numbers for this dump)
	payload m/v.bin STORAGE_FIGURE | python3 -c '
import json, sys
m = json.load(sys.stdin)["core_memory_map"]
assert [b["core_no"] for b in m] == ["0", "1"], m
b = m[0]
assert list(b) == ["Cube", "L2cache", "Vector", "Vector1", "advice", "core_no", "memory_detail", "memory_unit", "op_type", "soc"], list(b)
assert (b["soc"], b["memory_detail"]) == ("910A5", "0"), b
assert b["L2cache"] == {"hit": "12066", "hit_ratio": "33.355446", "miss": "24108", "total_request": "36174"}, b
u = {x["memory_path"]: x for x in b["memory_unit"]}
assert list(b["memory_unit"][0]) == ["bandwidth", "display", "memory_path", "peak_ratio", "request"]
assert sorted(u) == [0, 1, 2, 6, 7, 8, 12, 13, 14, 15, 16, 17, 18, 19, 37, 38, 39, 40, 41, 42, 43, 44, 46, 48, 49, 52, 53, 54, 55], sorted(u)
assert (u[39]["request"], u[39]["bandwidth"]) == ("2012", "23.984909"), u[39]
assert (u[42]["request"], u[42]["bandwidth"]) == ("1005", "11.980534"), u[42]
assert (u[54]["request"], u[54]["bandwidth"]) == ("3009", "35.870075"), u[54]
'
	payload m/v.bin STORAGE_TABLE | python3 -c '
import json, sys
t = json.load(sys.stdin)["table_per_block"][0]
assert t["advice"] == ["aicore MTE1 bandwidth utilization lower than 80% when active",
                       "aicore MTE2 bandwidth utilization lower than 80% when active",
                       "aivector MTE2 bandwidth utilization lower than 80% when active",
                       "aicore MTE3 bandwidth utilization lower than 80% when active"], t["advice"]
d = {x["table_name"]: x for x in t["table_detail"]}
assert list(d) == ["Cache", "Cube", "DCache Core0", "DCache Core1", "GM Cube", "GM Vector Core0", "GM Vector Core1", "L0A",
                   "L0B", "L0C", "L1", "Pipe Cube", "Pipe Vector Core0", "Pipe Vector Core1", "UB Core0", "UB Core1",
                   "Vector Core0", "Vector Core1"], list(d)
assert d["Cache"]["row"][2]["value"] == ["12066", "24108", "36174", "33.355446"], d["Cache"]
assert d["L0C"]["row"][2]["value"] == ["1008", "12.016296", "9.228397"], d["L0C"]
assert d["Pipe Cube"]["row"][3]["value"] == ["1009", "1008", "1006", "2.016000", "785.610474"], d["Pipe Cube"]
assert d["UB Core1"]["row"][5] == {"name": "UB Read L0C", "value": ["1007", "12.004375", "NA"]}, d["UB Core1"]
'
	# a count no replay gave (two replays of six) is the maximum, a path of it NA
	"$GEN" -r 2 A5 r
	dump-split r | board-metrics -q -o mr --vdata mr/v.bin
	payload mr/v.bin STORAGE_FIGURE | python3 -c '
import json, sys
b = json.load(sys.stdin)["core_memory_map"][0]
assert b["Cube"]["cycle"] == 18446744073709551615, b["Cube"]
assert any(u["request"] == "NA" and u["bandwidth"] == "NA" for u in b["memory_unit"]), b["memory_unit"]
'
	# Has Simt=1: the UB <-> Vector paths are not counted (NA), the others are
	"$GEN" -k vector A5 s
	sed -i 's/^Has Simt=.*/Has Simt=1/' s/op_basic_info.txt
	grep -q '^Has Simt=1' s/op_basic_info.txt
	dump-split s | board-metrics -q -o ms --vdata ms/v.bin
	payload ms/v.bin STORAGE_FIGURE | python3 -c '
import json, sys
u = {x["memory_path"]: x for x in json.load(sys.stdin)["core_memory_map"][0]["memory_unit"]}
assert u[14]["request"] == u[15]["request"] == "NA" and u[13]["request"] != "NA", u
'
}

@test "visualize_data.bin: the low-frequency advice when Current Freq is at most 0.95 of Rated Freq" {
	"$GEN" -k vector 910B d
	sed -i 's/^Current Freq=.*/Current Freq=1500/' d/op_basic_info.txt
	dump-split d | board-metrics -q -o m --vdata m/visualize_data.bin
	payload m/visualize_data.bin 5 | python3 -c '
import json, sys
b = json.load(sys.stdin)
assert b["advice"] == ["The current frequency is lower than the rated frequency"], b["advice"]
assert b["op_type"] == "vector" and b["cur_freq"] == "1500", b
d = b["block_detail"]
assert d["head_name"] == ["Block ID", "Core Type", "Duration (\u03bcs)"], d
assert d["row"][0]["value"][:2] == ["0", "vector"], d
'
	sed -i 's/^Current Freq=.*/Current Freq=1600/' d/op_basic_info.txt
	dump-split d | board-metrics -q -o m --vdata m/visualize_data.bin
	[[ "$(payload m/visualize_data.bin 5)" == '{"advice":[],'* ]]
}

@test "visualize_data.bin: the occupancy block per core and sub-core, and occupancy.svg" {
	"$GEN" -b 2 910B d
	dump-split d | board-metrics -q --aic-metrics=Occupancy -o m --vdata m/visualize_data.bin
	# Occupancy alone: no metric-group CSV, the occupancy block and picture
	[ ! -e m/Memory.csv ]
	[ "$(vdata-dump m/visualize_data.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE type=OCCUPANCY " ]
	payload m/visualize_data.bin 0xC | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert list(o) == ["advice", "op_detail", "op_type", "soc"], list(o)
assert o["op_type"] == "mix" and o["soc"] == "Ascend910B4" and o["advice"] == "", o
assert [c["core_id"] for c in o["op_detail"]] == [0, 1], o
sub = o["op_detail"][1]["core_detail"]
assert [(s["subcore_type"], s["subcore_id"]) for s in sub] == [("cube", "0"), ("vector", "0"), ("vector", "1")], sub
assert list(sub[0]) == ["L2cache_hit_rate", "cycles", "subcore_id", "subcore_type", "throughput"], list(sub[0])
assert [s["cycles"] for s in sub] == ["20000", "10000", "10000"], sub
assert sub[0]["throughput"] == "386688" and sub[0]["L2cache_hit_rate"] == "33.300121", sub[0]
'
	python3 - m/occupancy.svg <<'PY'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
svg = E.parse(sys.argv[1]).getroot()
labels = [t.text for t in svg.iter(ns + 'text')]
for l in ('0 cube0', '0 vector0', '0 vector1', '1 cube0', '1 vector1', 'cycles', 'throughput (bytes)', 'L2 hit rate (%)'):
    assert l in labels, (l, labels)
tips = [t.text for t in svg.iter(ns + 'title') if t.text and ', ' in t.text]
assert '1 vector0, cycles: 10000' in tips, tips
assert '0 cube0, throughput (bytes): 386688' in tips, tips
assert '0 cube0, L2 hit rate (%): 33.3' in tips, tips
assert len([t for t in tips if t.startswith(('0 ', '1 '))]) == 18, tips
print('ok')
PY
}

@test "visualize_data.bin: a bad --vdata-block file is named, nothing is written" {
	"$GEN" 910B d
	printf '{"a":[1,2,\n' > bad.json
	run board-metrics -q -o m --vdata m/visualize_data.bin --vdata-block CACHELINE_HEATMAP=bad.json < <(dump-split d)
	[ "$status" -eq 3 ]
	[[ "$output" == *"--vdata-block bad.json:"*": not one JSON document"* ]]
	printf '{"a":1} x' > bad.json
	run board-metrics -q -o m --vdata m/visualize_data.bin --vdata-block CACHELINE_HEATMAP=bad.json < <(dump-split d)
	[ "$status" -eq 3 ]
	[[ "$output" == *"--vdata-block bad.json:1: not one JSON document (byte 8)"* ]]
	[ ! -e m ]
	run board-metrics -q -o m --vdata m/visualize_data.bin --vdata-block CACHELINE_HEATMAP=missing.json < <(dump-split d)
	[ "$status" -eq 4 ]
	[[ "$output" == *"--vdata-block missing.json: cannot read"* ]]
	[ ! -e m ]
	run board-metrics -q -o m --vdata m/visualize_data.bin --vdata-block NOSUCH=x.json < <(dump-split d)
	[ "$status" -eq 2 ]
	[[ "$output" == *"'NOSUCH' is not a block type"* ]]
	run board-metrics -q -o m --vdata-block 0xE=x.json < <(dump-split d)
	[ "$status" -eq 2 ]
	[[ "$output" == *"need --vdata FILE"* ]]
	run board-metrics -q -o m --vdata - < <(dump-split d)
	[ "$status" -eq 2 ]
	[[ "$output" == *"--vdata: not to standard output"* ]]
	[ ! -e m ]
	# empty files give no block
	: > empty.json
	: > trace.json
	dump-split d | board-metrics -q -o m --vdata m/visualize_data.bin --vdata-trace trace.json --vdata-block 0xE=empty.json
	[ "$(vdata-dump m/visualize_data.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE " ]
}

@test "visualize_data.bin: Occupancy is refused on 310P, as by the reference" {
	"$GEN" 310P d
	run board-metrics -q --aic-metrics=Occupancy -o m --vdata m/v.bin < <(dump-split d)
	[ "$status" -eq 2 ]
	[[ "$output" == *"Occupancy is not available on 310P"* ]]
	[ ! -e m ]
	# Roofline is: its block follows the storage blocks
	dump-split d | board-metrics -q --aic-metrics=Roofline -o m --vdata m/v.bin
	[ "$(vdata-dump m/v.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE type=ROOFLINE " ]
}

@test "visualize_data.bin outside DIR: in place with the set, an old one kept when the run fails" {
	"$GEN" 910B d
	# a new DIR named another way is still DIR
	dump-split d | board-metrics -q -o ./new/ --vdata new/v.bin
	[ "$(ls -A new | grep -c '^\.')" -eq 0 ]
	[ -s new/v.bin ]
	mkdir elsewhere
	dump-split d | board-metrics -q -o m --vdata elsewhere/v.bin
	[ ! -e m/v.bin ]
	[ "$(vdata-dump elsewhere/v.bin | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE " ]
	cp elsewhere/v.bin old.bin
	printf '[' > bad.json
	run board-metrics -q -o m2 --aic-metrics=Occupancy --vdata elsewhere/v.bin --vdata-block 0xE=bad.json < <(dump-split d)
	[ "$status" -eq 3 ]
	cmp old.bin elsewhere/v.bin
	[ "$(ls -A elsewhere)" = v.bin ]
	[ ! -e m2 ]
}
