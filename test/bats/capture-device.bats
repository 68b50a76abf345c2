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
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
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
	run sim-capture -q --device --launch-count=1005 -o "$out" -- "$ops/bin/op_acl" -s add -r 1002
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/device0/add_custom" | wc -l)" -eq 1000 ]
	[ -s "$r/device0/add_custom/999/dump/DeviceProf1.bin" ]
	[ "$(grep -c 'as many as the run directory holds (0..999)' <<<"$output")" -eq 1 ]
	[[ $output != *"cannot create the capture directory"* ]]
	jq -e '(.kernels | length) == 1000' "$r/manifest.json"
}
