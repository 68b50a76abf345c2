#!/usr/bin/env bats
# sim-capture --device: an application on the device (here the stand-in's
# device mode, build/cann/lib64), each captured launch's raw PMU files in
# its dump directory.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	[ -f "$cann/lib64/libruntime.so" ] || skip "the stand-in runtime is not built (build/cann)"
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY \
		OPTRACE_DEVICE_RESTORE CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_PCSAMPLING CAMODEL_DEVICE_NO_FREQ CAMODEL_DEVICE_RANGE
	export ASCEND_HOME_PATH=$cann
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

@test "--device: one launch, the replay files, stamps, L2 counters and basic info of a 910B run" {
	run sim-capture --device -o "$out" -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	r=$(rundir)
	d=$r/device0/mixed_custom/0/dump
	for k in 1 2 3 4 5 6 7 8 9 10; do [ -s "$d/DeviceProf$k.bin" ]; done
	[ ! -e "$d/DeviceProf11.bin" ]
	[ -s "$d/duration.bin" ]
	[ "$(stat -c %s "$d/L2Cache.bin")" -eq 72 ]
	grep -qx 'Op Name=mixed_custom' "$d/op_basic_info.txt"
	grep -qx 'Run Soc Version=Ascend910B1' "$d/op_basic_info.txt"
	jq -e '.mode == "device" and .launches == 1 and (.runtime | endswith("/lib64"))' "$r/manifest.json"
	# no simulator dumps, no log directory of the simulator's
	[ -z "$(find "$r" -name '*instr_log*')" ]
}

@test "--device: --launch-count and --launch-skip-before-match pick the launches, each in its own directory" {
	run sim-capture --device --launch-count=2 --launch-skip-before-match=1 -o "$out" -- "$ops/bin/op_acl" -s add -r 4
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(find "$r" -name DeviceProf1.bin | wc -l)" -eq 2 ]
	[ -s "$r/device0/add_custom/0/dump/DeviceProf1.bin" ]
	[ -s "$r/device0/add_custom/1/dump/DeviceProf1.bin" ]
	[ ! -e "$r/device0/add_custom/2" ]
	jq -e '[.kernels[].n] == [0, 1]' "$r/manifest.json"
}

@test "--device: 310P and Ascend950 have their own replay counts (7 and 6 files; no L2Cache.bin on A5)" {
	run sim-capture --device --soc-version=Ascend310P3 -o "$out/p" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	d=$(ls -d "$out"/p/OPPROF_*/device0/add_custom/0/dump)
	[ "$(ls "$d" | grep -c '^DeviceProf[0-9]*\.bin$')" -eq 7 ]
	[ -s "$d/L2Cache.bin" ]
	run sim-capture --device --soc-version=Ascend950PR_9599 -o "$out/a" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	d=$(ls -d "$out"/a/OPPROF_*/device0/add_custom/0/dump)
	[ "$(ls "$d" | grep -c '^DeviceProf[0-9]*\.bin$')" -eq 6 ]
	[ ! -e "$d/L2Cache.bin" ]
}

@test "--device: a chip without on-board data, or with --live / --config / --dump, is a usage error" {
	run sim-capture --device --soc-version=Ascend310B1 -o "$out" -- "$ops/bin/op_acl"
	[ "$status" -eq 2 ]
	[[ $output == *"no on-board PMU data"* ]]
	for o in --live --dump=on "--config=$BATS_TEST_TMPDIR/k.json"; do
		run sim-capture --device $o -o "$out"
		[ "$status" -eq 2 ]
		[[ $output == *"--device cannot be used with"* ]]
	done
	[ -z "$(ls "$out")" ]
}

@test "--device: no device runtime under the CANN root is named" {
	mkdir -p "$BATS_TEST_TMPDIR/cann/lib64"
	run sim-capture --device --cann-root="$BATS_TEST_TMPDIR/cann" -o "$out" -- "$ops/bin/op_acl"
	[ "$status" -eq 3 ]
	[[ $output == *"no device runtime found: "*"/lib64/libruntime.so is missing"* ]]
	[ -z "$(ls "$out")" ]
}

@test "--device: past 1000 launches of a kernel (the run directory's 0..999), one message, the rest not captured" {
	# one replay and no warm-up per launch (BasicInfo): the directories are the point
	run sim-capture -q --device --aic-metrics=BasicInfo --warm-up=0 --launch-count=1005 -o "$out" -- "$ops/bin/op_acl" -s add -r 1002
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/device0/add_custom" | wc -l)" -eq 1000 ]
	[ -s "$r/device0/add_custom/999/dump/DeviceProf1.bin" ]
	[ "$(grep -c 'as many as the run directory holds (0..999)' <<<"$output")" -eq 1 ]
	[[ $output != *"cannot create the capture directory"* ]]
	jq -e '(.kernels | length) == 1000' "$r/manifest.json"
}

# A 910B block record's fields (optrace-board(5), DEVICEPROF<N>.BIN): the
# task id (u16 at 6) and totalCycles (u64 at 32) of record i of a file.
task_of() { od -An -tu2 -j$((128 * ${2:-0} + 6)) -N2 "$1" | tr -d ' '; }
cycles_of() { od -An -tu8 -j$((128 * ${2:-0} + 32)) -N8 "$1" | tr -d ' '; }

@test "--device options: the reference's values and messages (exit 2, nothing left)" {
	while IFS=@ read -r opts msg; do
		run sim-capture --device $opts -o "$out" -- "$ops/bin/op_acl" -s add
		[ "$status" -eq 2 ] || { echo "$opts: $status $output"; false; }
		[[ $output == *"$msg"* ]] || { echo "$opts: $output"; false; }
	done <<'EOF'
--kill=yes@Kill should be on/off
--kill=ON@Kill should be on/off
--replay-mode=graph@Replay mode should be application/kernel/range
--replay-mode=range --soc-version=Ascend310P3@Replay mode should be application/kernel
--replay-mode=range@--replay-mode=range only support when --mstx=on
--replay-mode=range --mstx=off@--replay-mode=range only support when --mstx=on
--replay-mode=range --mstx=on --aic-metrics=MemoryDetail@--aic-metrics=TimelineDetail/Source/MemoryDetail is invalid when --replay-mode=range
--replay-mode=range --mstx=on --aic-metrics=Source@--aic-metrics=TimelineDetail/Source/MemoryDetail is invalid when --replay-mode=range
--replay-mode=range --mstx=on --soc-version=Ascend950PR_9599 --aic-metrics=Roofline@--aic-metrics=Source/PcSampling/Roofline/PipeTimeline/InstrTimeline is invalid when --replay-mode=range on Ascend 950
--replay-mode=application --aic-metrics=TimelineDetail@--aic-metrics=TimelineDetail is invalid when --replay-mode=application
--aic-metrics=TimelineDetail@the device-to-simulator replay is not supported
--warm-up=501@Warm up times should within [0, 500]
--warm-up=-1@Warm up times should within [0, 500]
--warm-up=five@Warm up times should be number and within [0, 500]
--warm-up=12345678901@Warm up times should be number and within [0, 500]
--warm-up=2147483648@Warm up times should be number and within [0, 500]
--warm-up=2147483647@Warm up times should within [0, 500]
--aic-metrics=PMSampling@Unexpected argument in --aic-metrics, maybe in wrong run mode
--aic-metrics=Overhead@Unexpected argument in --aic-metrics, maybe in wrong run mode
--aic-metrics=PcSampling@Unexpected argument in --aic-metrics, maybe in wrong soc platform
--aic-metrics=Memory,PipeTimeline@Unexpected argument in --aic-metrics, maybe in wrong soc platform
--aic-metrics=Occupancy --soc-version=Ascend310P3@Unexpected argument in --aic-metrics, maybe in wrong soc platform
--aic-metrics=PipeTimeline,InstrTimeline --soc-version=Ascend950PR_9599@'PipeTimeline' and 'InstrTimeline' cannot be specified together.
--aic-metrics=Bogus@unknown metric bogus
EOF
	[ -z "$(ls "$out")" ]
	# the first failing check is the one reported, in the reference's order
	run sim-capture --device --kill=x --replay-mode=x --warm-up=x -o "$out" -- "$ops/bin/op_acl"
	[[ $output == *"Kill should be on/off"* ]]
	run sim-capture --device --replay-mode=x --warm-up=x -o "$out" -- "$ops/bin/op_acl"
	[[ $output == *"Replay mode should be"* ]]
	# the device's options in the simulator flow
	for o in --kill=on --replay-mode=kernel --warm-up=1; do
		run sim-capture "$o" -o "$out" -- "$ops/bin/op_acl"
		[ "$status" -eq 2 ]
		[[ $output == *"${o%%=*} applies to --device only"* ]]
	done
	[ -z "$(ls "$out")" ]
}

@test "--device options: accepted values, empty ones keep the defaults, the manifest records them" {
	run sim-capture -q --device --kill= --replay-mode= --warm-up= -o "$out/a" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	jq -e '.replay_mode == "kernel" and .warm_up == 5 and .kill == false and .replays == 10 and .app_runs == 1' \
		"$out"/a/OPPROF_*/manifest.json
	run sim-capture -q --device --kill=off --warm-up=+0 --aic-metrics=memory,L2CACHE -o "$out/b" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	jq -e '.warm_up == 0 and .groups == ["L2Cache", "Memory"] and .aic_metrics == "memory,L2CACHE"' \
		"$out"/b/OPPROF_*/manifest.json
	# range replay: the launches inside the mstx ranges, replayed
	run sim-capture -q --device --replay-mode=range --mstx=on --warm-up=0 -o "$out/c" -- "$ops/bin/add_acl.py" -r step
	[ "$status" -eq 0 ]
	r=$(ls -d "$out"/c/OPPROF_*)
	jq -e '.replay_mode == "range" and .launches == 1 and .replays == 10' "$r/manifest.json"
	[ -s "$r/device0/add_custom/0/dump/DeviceProf10.bin" ]
	run sim-capture -q --device --replay-mode=range --mstx=on --soc-version=Ascend950PR_9599 \
		--aic-metrics=PipeUtilization -o "$out/d" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 3 ]   # accepted; op_acl opens no mstx range, so nothing is captured
	[[ $output == *"no kernel launched inside an mstx range"* ]]
}

@test "--device: the replay count per chip and groups (kernel replay: runs of the kernel; application: of the app)" {
	while read -r soc mode metrics files runs; do
		o=$out/$soc-$mode-$metrics
		m=--aic-metrics=$metrics
		[ "$metrics" != - ] || m=
		run sim-capture -q --device --soc-version="$soc" --replay-mode="$mode" --warm-up=0 $m \
			-o "$o" -- "$ops/bin/op_acl" -s add
		[ "$status" -eq 0 ] || { echo "$soc $mode $metrics: $output"; false; }
		d=$(ls -d "$o"/OPPROF_*/device0/add_custom/0/dump)
		n=$(ls "$d" | grep -c '^DeviceProf[0-9]*\.bin$')
		[ "$n" -eq "$files" ] || { echo "$soc $mode $metrics: $n files"; false; }
		jq -e --argjson f "$files" --argjson r "$runs" '.replays == $f and .app_runs == $r' "$o"/OPPROF_*/manifest.json
	done <<'EOF'
Ascend910B1 kernel - 10 1
Ascend910B1 kernel BasicInfo 1 1
Ascend910B1 kernel PipeUtilization 10 1
Ascend910B1 application - 10 10
Ascend910B1 application BasicInfo 1 1
Ascend310P3 kernel - 7 1
Ascend310P3 application Default 7 7
Ascend950PR_9599 kernel - 6 1
Ascend950PR_9599 kernel KernelScale 6 1
Ascend950PR_9599 application - 6 6
Ascend910B1 application Memory 2 2
Ascend910B1 application MemoryL0 1 1
Ascend910B1 application Memory,MemoryL0,PipeUtilization 7 7
Ascend310P3 application Memory 7 7
Ascend950PR_9599 application PipeUtilization 2 2
Ascend950PR_9599 kernel PipeUtilization 6 1
EOF
}

@test "--device: every replay of a kernel that changes its own inputs counts the same work (inputs restored)" {
	run sim-capture -q --device --warm-up=0 -o "$out/r" -- "$ops/bin/op_acl" -s drain -n 3
	[ "$status" -eq 0 ]
	d=$(ls -d "$out"/r/OPPROF_*/device0/count_drain/0/dump)
	c1=$(cycles_of "$d/DeviceProf1.bin")
	for k in 2 3 4 5 6 7 8 9 10; do
		[ "$(cycles_of "$d/DeviceProf$k.bin")" = "$c1" ]
		[ "$(cycles_of "$d/DeviceProf$k.bin" 1)" = "$(cycles_of "$d/DeviceProf1.bin" 1)" ]
	done
	# without the restore the first replay drains the work list: the others count almost nothing
	OPTRACE_DEVICE_RESTORE=0 run sim-capture -q --device --warm-up=0 -o "$out/n" -- "$ops/bin/op_acl" -s drain -n 3
	[ "$status" -eq 0 ]
	d=$(ls -d "$out"/n/OPPROF_*/device0/count_drain/0/dump)
	[ "$(cycles_of "$d/DeviceProf1.bin")" = "$c1" ]
	[ "$(cycles_of "$d/DeviceProf2.bin")" -lt "$((c1 / 4))" ]
	# the warm-ups drain it too, and the replays still see the saved inputs; another launch path
	run sim-capture -q --device -o "$out/h" -- "$ops/bin/op_acl" -s drain -n 3 -m hostargs
	[ "$status" -eq 0 ]
	d=$(ls -d "$out"/h/OPPROF_*/device0/count_drain/0/dump)
	[ "$(cycles_of "$d/DeviceProf1.bin")" = "$c1" ]
	[ "$(cycles_of "$d/DeviceProf10.bin")" = "$c1" ]
}

@test "--device --warm-up: the warm-up launches run first, unmeasured and not captured" {
	run sim-capture -q --device --warm-up=3 -o "$out/w3" -- "$ops/bin/op_acl" -s add -r 2
	[ "$status" -eq 0 ]
	r=$(ls -d "$out"/w3/OPPROF_*)
	d=$r/device0/add_custom/0/dump
	# the device's tasks 0..2 were the warm-ups, replay k is task 2 + k
	[ "$(task_of "$d/DeviceProf1.bin")" -eq 3 ]
	[ "$(task_of "$d/DeviceProf10.bin")" -eq 12 ]
	jq -e '.launches == 2 and (.kernels | length) == 1 and .warm_up == 3' "$r/manifest.json"
	[ "$(ls "$r/device0/add_custom")" = 0 ]
	run sim-capture -q --device --warm-up=0 -o "$out/w0" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	[ "$(task_of "$(ls -d "$out"/w0/OPPROF_*/device0/add_custom/0/dump)/DeviceProf1.bin")" -eq 0 ]
}

@test "--device --replay-mode=application: one run of the application per replay, into the same directories" {
	run sim-capture -q --device --replay-mode=application --launch-count=2 -o "$out" -- "$ops/bin/op_acl" -s drain -n 2 -r 3
	[ "$status" -eq 0 ]
	r=$(rundir)
	for n in 0 1; do
		for k in 1 2 3 4 5 6 7 8 9 10; do
			# each replay is the launch itself in a run of its own: launch n is the device's task n
			[ "$(task_of "$r/device0/count_drain/$n/dump/DeviceProf$k.bin")" -eq "$n" ]
		done
	done
	[ "$(ls "$r/device0/count_drain" | wc -l)" -eq 2 ]
	# the records are the first run's
	jq -e '.launches == 3 and (.kernels | length) == 2 and .app_runs == 10' "$r/manifest.json"
}

@test "--device --kill=on: the application ends after its last captured launch, and that is success" {
	run sim-capture -q --device --kill=on --warm-up=0 -o "$out/k" -- "$ops/bin/op_acl" -s add -r 4
	[ "$status" -eq 0 ]
	r=$(ls -d "$out"/k/OPPROF_*)
	jq -e '.launches == 1 and .kill == true and .app_status == -2' "$r/manifest.json"
	[ -s "$r/device0/add_custom/0/dump/DeviceProf10.bin" ]
	run sim-capture -q --device --kill=off --warm-up=0 -o "$out/o" -- "$ops/bin/op_acl" -s add -r 4
	[ "$status" -eq 0 ]
	jq -e '.launches == 4 and .app_status == 0' "$out"/o/OPPROF_*/manifest.json
	# two captured launches: it ends after the second
	run sim-capture -q --device --kill=on --warm-up=0 --launch-count=2 -o "$out/k2" -- "$ops/bin/op_acl" -s add -r 4
	[ "$status" -eq 0 ]
	jq -e '.launches == 2' "$out"/k2/OPPROF_*/manifest.json
}

@test "--device: GE_PROFILING_OPTIONS aic_metrics is checked and used as the device's groups" {
	export GE_PROFILING_MODE=true
	GE_PROFILING_OPTIONS='{"aic_metrics": "PMSampling"}' run sim-capture --device -o "$out" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 2 ]
	[[ $output == *"Unexpected argument in --aic-metrics, maybe in wrong run mode"* ]]
	GE_PROFILING_OPTIONS='{"aic_metrics": "MemoryDetail"}' run sim-capture --device --replay-mode=range --mstx=on -o "$out" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 2 ]
	[[ $output == *"--aic-metrics=TimelineDetail/Source/MemoryDetail is invalid when --replay-mode=range"* ]]
	[ -z "$(ls "$out")" ]
	GE_PROFILING_OPTIONS='{"aic_metrics": "BasicInfo"}' run sim-capture -q --device --warm-up=0 -o "$out" -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	r=$(rundir)
	jq -e '.aic_metrics == "BasicInfo" and .groups == ["BasicInfo"] and .replays == 1' "$r/manifest.json"
	[ -s "$r/device0/add_custom/0/dump/DeviceProf1.bin" ]
	[ ! -e "$r/device0/add_custom/0/dump/DeviceProf2.bin" ]
}

@test "--device --replay-mode=application of some groups: only their events, and the parse gives the same numbers" {
	run sim-capture -q --device --replay-mode=application --aic-metrics=Memory -o "$out/m" -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	r=$(ls -d "$out"/m/OPPROF_*)
	d=$r/device0/mixed_custom/0/dump
	# the reference's packing: the fixed lists' order, a fixed replay's events kept together
	[ "$(sed -n 1p "$d/pmu_events.txt")" = aic=1292,1293,1294,19,49,50,518,524,4,5,6,526,13,12,770,0 ]
	[ "$(sed -n 2p "$d/pmu_events.txt")" = aiv=1292,1293,1294,61,62,5,6,0,4,526,13,12,0,0,0,0 ]
	jq -e '.events_aic[0] == 1292 and (.events_aic | length) == 16 and .replays == 2' "$r/manifest.json"
	[ -s "$d/DeviceProf2.bin" ] && [ ! -e "$d/DeviceProf3.bin" ]
	run sim-capture -q --device -o "$out/f" -- "$ops/bin/op_acl" -s mixed
	[ "$status" -eq 0 ]
	f=$(ls -d "$out"/f/OPPROF_*)
	[ ! -e "$f/device0/mixed_custom/0/dump/pmu_events.txt" ]
	board-export -q --in-place --aic-metrics=Memory -- "$r"
	board-export -q --in-place --aic-metrics=Memory -- "$f"
	diff "$f/device0/mixed_custom/0/Memory.csv" "$r/device0/mixed_custom/0/Memory.csv"
	# a damaged list: said with its line, and the fixed lists are used
	printf 'aic=1,x\naiv=2\n' > "$d/pmu_events.txt"
	run dump-split "$d"
	[[ $output == *"pmu_events.txt:1: not a list of event ids (the fixed event lists are used)"* ]]
}

# The counters of every record of a DeviceProf file (total cycles and the
# slots: no stream, task or time), one record a line.
counts_of() {
	local n=$(($(stat -c %s "$1") / 128)) i
	for ((i = 0; i < n; i++)); do od -An -tu8 -j$((128 * i + 32)) -N80 "$1" | tr -s ' \n' ' '; echo; done
}

@test "--device --replay-mode=range: a range of 3 launches of 2 kernels, replayed whole; each launch's counts are its kernel-replay counts" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	run sim-capture -v --device --replay-mode=range --mstx=on --launch-count=10 -o "$out/r" -- "$ops/bin/mstx_acl"
	[ "$status" -eq 0 ]
	[[ $output == *"mstx_acl: +step A B A -"* ]]   # the application's results are right
	[[ $output == *"1 range split into 3 launch directories"* ]]
	r=$(ls -d "$out"/r/OPPROF_*)
	[ ! -e "$r/tmp_dump" ]
	run sim-capture --device --mstx=on --launch-count=10 -o "$out/k" -- "$ops/bin/mstx_acl"
	[ "$status" -eq 0 ]
	k=$(ls -d "$out"/k/OPPROF_*)
	for d in add_custom/0 count_custom/0 add_custom/1; do
		for n in 1 2 3 4 5 6 7 8 9 10; do
			[ "$(stat -c %s "$r/device0/$d/dump/DeviceProf$n.bin")" -eq 256 ]   # its 2 blocks' records
			[ "$(counts_of "$r/device0/$d/dump/DeviceProf$n.bin")" = "$(counts_of "$k/device0/$d/dump/DeviceProf$n.bin")" ]
		done
		# its own task's start and end
		[ "$(stat -c %s "$r/device0/$d/dump/duration.bin")" -eq 128 ]
		[ "$(od -An -tu2 -j6 -N2 "$r/device0/$d/dump/duration.bin" | tr -d ' ')" = "$(task_of "$r/device0/$d/dump/DeviceProf1.bin")" ]
		f=$r/device0/$d/dump/op_basic_info.txt
		[ "$(grep -c '^Current Freq=' "$f")" -eq 1 ] && grep -qx 'Current Freq=1850' "$f" && grep -qx 'Rated Freq=1850' "$f"
	done
	grep -qx 'Op Name=count_custom' "$r/device0/count_custom/0/dump/op_basic_info.txt"
	[ "$(counts_of "$r/device0/add_custom/0/dump/DeviceProf1.bin")" != "$(counts_of "$r/device0/count_custom/0/dump/DeviceProf1.bin")" ]
	jq -e '.launches == 3' "$r/manifest.json"
}

@test "--device --replay-mode=range: launches not captured are replayed but get nothing; no freq.txt is NA" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	CAMODEL_DEVICE_NO_FREQ=1 run sim-capture --device --replay-mode=range --mstx=on --launch-count=1 --launch-skip-before-match=1 \
		-o "$out" -- "$ops/bin/mstx_acl"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/device0")" = count_custom ]
	[ "$(stat -c %s "$r/device0/count_custom/0/dump/DeviceProf1.bin")" -eq 256 ]
	grep -qx 'Current Freq=NA' "$r/device0/count_custom/0/dump/op_basic_info.txt"
	grep -qx 'Rated Freq=NA' "$r/device0/count_custom/0/dump/op_basic_info.txt"
	[ ! -e "$r/tmp_dump" ]
	# a range with nothing captured still runs, once: the application's results are right
	run sim-capture -q --device --replay-mode=range --mstx=on --launch-count=1 -o "$out/n" \
		-- "$ops/bin/mstx_acl" -p "+step A - +step B -"
	[ "$status" -eq 0 ]
	[[ $output == *"mstx_acl: +step A - +step B -"* ]]
	[ "$(ls "$(ls -d "$out"/n/OPPROF_*)/device0")" = add_custom ]
}

@test "--device --replay-mode=range: an empty range, --mstx-include, overlapping ranges" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	run sim-capture --device --replay-mode=range --mstx=on -o "$out/e" -- "$ops/bin/mstx_acl" -p "+step - A"
	[ "$status" -eq 3 ]
	[[ $output == *"no kernel launched inside an mstx range"* ]]
	run sim-capture --device --replay-mode=range --mstx=on --mstx-include=step --launch-count=10 -o "$out/i" \
		-- "$ops/bin/mstx_acl" -p "+other A - +empty - +step B A -"
	[ "$status" -eq 0 ]
	r=$(ls -d "$out"/i/OPPROF_*)
	[ -s "$r/device0/count_custom/0/dump/DeviceProf1.bin" ]
	[ -s "$r/device0/add_custom/0/dump/DeviceProf1.bin" ]
	[ ! -e "$r/device0/add_custom/1" ]
	run sim-capture --device --replay-mode=range --mstx=on --launch-count=10 -o "$out/o" \
		-- "$ops/bin/mstx_acl" -p "+step A +inner B - -"
	[ "$status" -eq 0 ]
	[[ $output == *"ranges cannot overlap with --replay-mode=range: range inner is not replayed"* ]]
	r=$(ls -d "$out"/o/OPPROF_*)
	[ "$(stat -c %s "$r/device0/count_custom/0/dump/DeviceProf1.bin")" -eq 256 ]
}

@test "--device --replay-mode=range: every replay of a range whose kernel changes its inputs counts the same work" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	run sim-capture -q --device --replay-mode=range --mstx=on --warm-up=2 --launch-count=2 -o "$out/r" \
		-- "$ops/bin/mstx_acl" -t drain -p "+step A B -"
	[ "$status" -eq 0 ]   # and the application's results are those of one run
	d=$(ls -d "$out"/r/OPPROF_*/device0/count_drain/0/dump)
	c1=$(cycles_of "$d/DeviceProf1.bin")
	for k in 2 3 4 5 6 7 8 9 10; do [ "$(cycles_of "$d/DeviceProf$k.bin")" = "$c1" ]; done
	OPTRACE_DEVICE_RESTORE=0 run sim-capture -q --device --replay-mode=range --mstx=on --warm-up=0 --launch-count=2 \
		-o "$out/n" -- "$ops/bin/mstx_acl" -t drain -p "+step A B -"
	d=$(ls -d "$out"/n/OPPROF_*/device0/count_drain/0/dump)
	[ "$(cycles_of "$d/DeviceProf1.bin")" = "$c1" ]
	[ "$(cycles_of "$d/DeviceProf2.bin")" -lt "$((c1 / 4))" ]
}

@test "--device --replay-mode=range --kill=on: the application ends once the range of its last captured launch is replayed" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	run sim-capture --device --replay-mode=range --mstx=on --kill=on --launch-count=2 -o "$out" \
		-- "$ops/bin/mstx_acl" -p "+step A B - +later A -"
	[ "$status" -eq 0 ]
	[[ $output != *"mstx_acl: +step"* ]]   # ended before its end
	r=$(rundir)
	[ "$(stat -c %s "$r/device0/add_custom/0/dump/DeviceProf10.bin")" -eq 256 ]
	[ "$(stat -c %s "$r/device0/count_custom/0/dump/DeviceProf10.bin")" -eq 256 ]
	[ ! -e "$r/device0/add_custom/1" ]
}

@test "--device --replay-mode=range: a split that fails names the file, keeps tmp_dump and exits 4" {
	[ -x "$ops/bin/mstx_acl" ] || skip "mstx_acl is not built"
	fault=$top/build/fault.so
	[ -f "$fault" ] || skip "build/fault.so is not built"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$fault FAULT_OP=rename FAULT_PATH=DeviceProf3 run sim-capture --device --replay-mode=range --mstx=on \
		--launch-count=3 -o "$out" -- "$ops/bin/mstx_acl"
	[ "$status" -eq 4 ]
	r=$(rundir)
	[[ $output == *"sim-capture: $r/device0/add_custom/0/dump/DeviceProf3.bin: range replay not split: Input/output error (the raw files are kept in $r/tmp_dump)"* ]]
	[ -s "$(ls -d "$r"/tmp_dump/device0/*/0)/DeviceProf3.bin" ]
	[ ! -e "$r/device0/add_custom/0/dump/DeviceProf3.bin" ]
	[ -z "$(find "$r" -name '*.tmp')" ]
	jq -e '.dumps_complete == false and .kernels[0].not_saved[0].file == "DeviceProf3.bin"' "$r/manifest.json"
}
