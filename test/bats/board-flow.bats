#!/usr/bin/env bats
# board-flow and board-export: the on-board flow end to end, on the
# stand-in's device mode (build/cann/lib64) and on committed raw files.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	command -v board-flow >/dev/null || skip "board-flow is not built"
	out=$BATS_TEST_TMPDIR/out
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	export ASCEND_HOME_PATH=$cann
}

need_device() {
	[ -f "$cann/lib64/libruntime.so" ] || skip "the stand-in runtime is not built (build/cann)"
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
}

@test "board-flow: a mix kernel on 910B, every CSV next to its dump, the summary on stdout" {
	need_device
	run board-flow -o "$out" -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	[[ $output == *"op mixed_custom (mix, Ascend910B1)"* ]]
	l=$(ls -d "$out"/OPPROF_*/device0/mixed_custom/0)
	for g in OpBasicInfo ArithmeticUtilization L2Cache Memory MemoryL0 MemoryUB PipeUtilization ResourceConflictRatio; do
		[ -s "$l/$g.csv" ] || { echo "no $g.csv"; return 1; }
	done
	[ -s "$l/dump/DeviceProf10.bin" ]
	[ "$(head -n 1 "$l/OpBasicInfo.csv")" = "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq," ]
	[[ $(sed -n 2p "$l/OpBasicInfo.csv") == mixed_custom,mix,* ]]
	# block 0 and 1, each cube0, vector0, vector1
	[ "$(tail -n +2 "$l/PipeUtilization.csv" | cut -d, -f1,2 | tr '\n' ' ')" = "0,cube0 0,vector0 0,vector1 1,cube0 1,vector0 1,vector1 " ]
	[ -s "$(ls "$out"/OPPROF_*/manifest.json)" ]
	[ -z "$(ls -a "$out" | grep board-flow)" ]
}

@test "board-flow: two launches, 310P (AiCore rows, no Mix Block Dim) and --aic-metrics" {
	need_device
	run board-flow -q -o "$out" --soc-version=Ascend310P3 --launch-count=2 --aic-metrics=PipeUtilization -- "$ops/bin/op_acl" -s add -r 2
	[ "$status" -eq 0 ]
	for n in 0 1; do
		l=$(ls -d "$out"/OPPROF_*/device0/add_custom/$n)
		[ -s "$l/PipeUtilization.csv" ]
		[ ! -e "$l/Memory.csv" ]
		[ "$(head -n 1 "$l/OpBasicInfo.csv")" = "Op Name,Op Type,Task Duration(us),Block Dim,Device Id,Pid,Current Freq,Rated Freq," ]
		[[ $(sed -n 2p "$l/OpBasicInfo.csv") == add_custom,AiCore,* ]]
	done
}

@test "board-flow: an application that launches nothing exits 3; a bad option exits 2, nothing left" {
	need_device
	run board-flow -q -o "$out" -- true
	[ "$status" -eq 3 ]
	[ -z "$(ls -A "$out")" ]
	run board-flow -q -o "$out" --bogus -- true
	[ "$status" -eq 2 ]
	[ -z "$(ls -A "$out")" ]
}

@test "board-export: a dump directory into a new OPPROF tree with a copy of the dump; its path on stdout" {
	run board-export -q -o "$out" "$top/test/data/board910B"
	[ "$status" -eq 0 ]
	t=$output
	[[ $t == "$out"/OPPROF_* ]]
	[ -s "$t/OpBasicInfo.csv" ]
	[ -s "$t/PipeUtilization.csv" ]
	cmp "$t/dump/op_basic_info.txt" "$top/test/data/board910B/dump/op_basic_info.txt"
	# the CSVs are those of dump-split | board-metrics
	dump-split -q "$top/test/data/board910B/dump" | board-metrics -q -o "$BATS_TEST_TMPDIR/m" >/dev/null
	for f in "$BATS_TEST_TMPDIR"/m/*.csv; do cmp "$f" "$t/${f##*/}"; done
}

@test "board-export --in-place: a capture tree gets its CSVs beside each dump" {
	mkdir -p "$out/device0/k/0" "$out/device0/k/1"
	cp -R "$top/test/data/board910B/dump" "$out/device0/k/0/"
	cp -R "$top/test/data/board910B/dump" "$out/device0/k/1/"
	run board-export -q --in-place "$out"
	[ "$status" -eq 0 ]
	[ -s "$out/device0/k/0/OpBasicInfo.csv" ]
	[ -s "$out/device0/k/1/L2Cache.csv" ]
}

@test "board-export: no dump under DIR exits 3, a refused option exits 2, nothing written" {
	mkdir -p "$BATS_TEST_TMPDIR/empty" "$out"
	run board-export -o "$out" "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 3 ]
	[[ $output == *"no on-board dump"* ]]
	run board-export --aic-metrics=Bogus -o "$out" "$top/test/data/board910B"
	[ "$status" -eq 2 ]
	[ -z "$(ls -A "$out")" ]
}

@test "board-export: a launch whose raw files are unusable is named; the others are parsed (status 1)" {
	mkdir -p "$BATS_TEST_TMPDIR/t/a" "$BATS_TEST_TMPDIR/t/b/dump"
	cp -R "$top/test/data/board910B/dump" "$BATS_TEST_TMPDIR/t/a/"
	printf 'Op Name=x\n' >"$BATS_TEST_TMPDIR/t/b/dump/op_basic_info.txt"
	run board-export -q -o "$out" "$BATS_TEST_TMPDIR/t"
	[ "$status" -eq 1 ]
	[[ $output == *"t/b/dump: not parsed"* ]]
	t=$(ls -d "$out"/OPPROF_*)
	[ -s "$t/a/OpBasicInfo.csv" ]
	[ ! -e "$t/b/OpBasicInfo.csv" ]
}

@test "board-flow: roofline.svg and pipes.svg beside the CSVs, well-formed, a cell per row and pipe; the verdict in the summary" {
	need_device
	run board-flow -o "$out" -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	[[ $output == *"  roofline       "*" bound"*" peak at "*" ops/byte"* ]]
	l=$(ls -d "$out"/OPPROF_*/device0/mixed_custom/0)
	run python3 - "$l/roofline.svg" "$l/pipes.svg" <<'PY'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
roof = E.parse(sys.argv[1]).getroot()
text = ' '.join(t.text or '' for t in roof.iter(ns + 'text'))
assert 'Ascend910B1' in text and 'arithmetic intensity' in text, text[:200]
pipes = E.parse(sys.argv[2]).getroot()
labels = [t.text for t in pipes.iter(ns + 'text')]
for row in ('0 cube0', '0 vector0', '0 vector1', '1 cube0', '1 vector0', '1 vector1'):
    assert row in labels, (row, labels)
for pipe in ('MTE2', 'MTE3', 'VEC', 'CUBE'):
    assert pipe in labels, (pipe, labels)
print('ok')
PY
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "board-export: Ascend950 gets pipes.svg but no roofline.svg" {
	command -v board-synth >/dev/null || skip "board-synth is not built"
	mkdir -p "$BATS_TEST_TMPDIR/a5/dump"
	board-synth -b 1 A5 "$BATS_TEST_TMPDIR/a5/dump"
	run board-export -q -o "$out" "$BATS_TEST_TMPDIR/a5"
	[ "$status" -eq 0 ]
	[ -s "$output/pipes.svg" ]
	[ ! -e "$output/roofline.svg" ]
}

@test "board-flow: every launch gets visualize_data.bin, the timeline's trace.json its TRACE block" {
	need_device
	run board-flow -q -o "$out" --soc-version=Ascend950PR_9599 --aic-metrics=PipeTimeline,Occupancy -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	l=$(ls -d "$out"/OPPROF_*/device0/mixed_custom/0)
	[ -s "$l/trace.json" ]
	[ "$(vdata-dump "$l/visualize_data.bin" | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE type=OCCUPANCY type=TRACE " ]
	cmp <(vdata-dump --payload TRACE "$l/visualize_data.bin") "$l/trace.json"
	[ -s "$l/occupancy.svg" ]
	vdata-dump --payload OP_BASIC_INFO "$l/visualize_data.bin" | python3 -c '
import json, sys
b = json.load(sys.stdin)
assert b["name"] == "mixed_custom" and b["op_type"] == "mix" and b["soc"] == "Ascend950PR_9599", b
assert len(b["mix_block_detail"]["row"]) == 2, b
'
}

@test "board-export: visualize_data.bin of the committed dump, with the roofline block; none when the launch fails" {
	run board-export -q -o "$out" --aic-metrics=Roofline "$OPTRACE_TOP/test/data/board910B"
	[ "$status" -eq 0 ]
	[ "$(vdata-dump "$output/visualize_data.bin" | cut -d' ' -f1 | tr '\n' ' ')" = "type=OP_BASIC_INFO type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE type=STORAGE_FIGURE type=STORAGE_TABLE type=ROOFLINE " ]
	[ -s "$output/Memory.csv" ]
	mkdir -p "$BATS_TEST_TMPDIR/t/a" "$BATS_TEST_TMPDIR/t/b"
	cp -R "$OPTRACE_TOP/test/data/board910B/dump" "$BATS_TEST_TMPDIR/t/a/dump"
	cp -R "$OPTRACE_TOP/test/data/board910B/dump" "$BATS_TEST_TMPDIR/t/b/dump"
	rm "$BATS_TEST_TMPDIR"/t/b/dump/DeviceProf*.bin
	run board-export -q --in-place "$BATS_TEST_TMPDIR/t"
	[ "$status" -eq 1 ]
	[ -s "$BATS_TEST_TMPDIR/t/a/visualize_data.bin" ]
	[ ! -e "$BATS_TEST_TMPDIR/t/b/visualize_data.bin" ]
}

@test "board-flow: --replay-mode, --warm-up and --kill go to the capture; the parse is the same in both replay modes" {
	need_device
	run board-flow -q -o "$out/k" --warm-up=0 -- "$ops/bin/op_acl" -s drain -n 2
	[ "$status" -eq 0 ]
	run board-flow -q -o "$out/a" --replay-mode=application --kill=on -- "$ops/bin/op_acl" -s drain -n 2 -r 3
	[ "$status" -eq 0 ]
	a=$(ls -d "$out"/a/OPPROF_*)
	k=$(ls -d "$out"/k/OPPROF_*)
	jq -e '.replay_mode == "application" and .kill == true and .launches == 1 and .app_runs == 10' "$a/manifest.json"
	jq -e '.replay_mode == "kernel" and .warm_up == 0' "$k/manifest.json"
	diff "$k/device0/count_drain/0/PipeUtilization.csv" "$a/device0/count_drain/0/PipeUtilization.csv"
	run board-flow -q -o "$out/x" --replay-mode=graph -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 2 ]
	[[ $output == *"Replay mode should be application/kernel/range"* ]]
}
