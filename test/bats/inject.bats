#!/usr/bin/env bats
# The preload library and sim-capture against the small test runtime of
# test/bench/inject-rt.c (a libruntime_camodel.so in build/inject-test/cann)
# and its application test/bench/inject-app.c, which registers its own ELF
# (kernels add_custom and mul_custom) and launches them.  The end-to-end
# tests with the stand-in simulator are in sim-capture.bats.

load waits

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	app=$top/build/inject-test/inject-app
	cann=$top/build/inject-test/cann
	[ -x "$app" ] || skip "build/inject-test is not built (make inject-test)"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset ASCEND_HOME_PATH OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
}

teardown() {
	# Processes a failed test may have left behind (their pids in pids).
	[ ! -s "$BATS_TEST_TMPDIR/pids" ] || kill -9 $(cat "$BATS_TEST_TMPDIR/pids") 2>/dev/null || true
}

capture() {
	run sim-capture --cann-root="$cann" -o "$out" "$@"
}

# launched PID: the launch of the run PID makes has begun (its binary is
# saved before the simulator runs it); fails when PID ended first.
launched() {
	wait_for "$1" eval 'ls "$out"/OPPROF_*/device0/add_custom/0/dump/aicore_binary.o >/dev/null 2>&1'
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

@test "one launch: the OPPROF tree, binary, start pc, dumps moved, manifest" {
	capture -- "$app" -n 2 -k both
	[ "$status" -eq 0 ]
	r=$(rundir)
	[[ $(basename "$r") =~ ^OPPROF_[0-9]{14}_[A-Z]{16}$ ]]
	d=$r/device0/add_custom/0/dump
	cmp "$d/aicore_binary.o" "$app"
	# pc_start = the runtime's kernel address minus the symbol's offset
	off=$(nm "$app" | awk '$3 == "add_custom" { print $1 }')
	[ "$(cat "$d/pc_start_addr.txt")" = "$(printf '0x%x' $((0x10f86000 - 0x$off)))" ]
	# only the captured launch's lines (2 blocks x 4 instructions)
	[ "$(wc -l < "$d/core0.veccore0.instr_log.dump")" -eq 8 ]
	[ ! -e "$r/device0/tmp_dump" ]
	[ ! -e "$r/device0/mul_custom" ]
	jq -e '.launches == 4 and (.kernels | length) == 1 and .kernels[0].name == "add_custom"
	       and .soc == "Ascend910B1" and .mhz == 1850 and .app_status == 0' "$r/manifest.json"
}

@test "launch and API records in capture.rec" {
	capture --launch-count=2 -- "$app" -n 1 -k both
	[ "$status" -eq 0 ]
	r=$(rundir)
	rec-cat --json "$r/capture.rec" > "$BATS_TEST_TMPDIR/c.json"
	[ "$(jq -c 'select(.kind == "launch") | [.name, .order, .block_dim, .api]' "$BATS_TEST_TMPDIR/c.json" | tr '\n' ' ')" = \
	  '["add_custom",0,2,"rtKernelLaunch"] ["mul_custom",0,1,"rtKernelLaunch"] ' ]
	jq -e -s 'map(select(.kind == "api")) | map(.name) | index("rtDevBinaryRegister") != null
	          and index("rtKernelLaunch") != null' "$BATS_TEST_TMPDIR/c.json"
	jq -e -s 'map(select(.kind == "api")) | all(.end_ns >= .begin_ns)' "$BATS_TEST_TMPDIR/c.json"
	# the key arguments of each call, as text
	jq -e -s 'map(select(.kind == "api")) | all(.args != "")' "$BATS_TEST_TMPDIR/c.json"
	jq -e -s '[.[] | select(.name == "rtKernelLaunch") | .args] | length == 2 and
	          (.[0] | test("^kernel=add_custom blockDim=2 stream=0x[0-9a-f]+ args=0x0 argsSize=0 stub=0x[0-9a-f]+$")) and
	          (.[1] | test("^kernel=mul_custom blockDim=1 "))' "$BATS_TEST_TMPDIR/c.json"
	jq -e -s '[.[] | select(.name == "rtFunctionRegister") | .args | capture("name=(?<n>.*)$").n][0:2] == ["add_custom", "mul_custom"]' "$BATS_TEST_TMPDIR/c.json"
	jq -e -s '[.[] | select(.name == "rtStreamCreate")][0].args | test("^stream=0x[0-9a-f]+ priority=0$")' "$BATS_TEST_TMPDIR/c.json"
}

@test "--kernel-name and --launch-count choose the launches" {
	capture --kernel-name='mul*' --launch-count=3 -- "$app" -n 4 -k both
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/device0")" = mul_custom ]
	[ "$(ls "$r/device0/mul_custom" | tr '\n' ' ')" = "0 1 2 " ]
	rm -rf "$out"/*
	capture --launch-skip-before-match=3 --launch-count=5 -- "$app" -n 3 -k both
	[ "$status" -eq 0 ]
	# launches: add mul add mul add mul; the first three are skipped
	[ "$(ls "$(rundir)/device0/add_custom" | tr '\n' ' ')" = "0 " ]
	[ "$(ls "$(rundir)/device0/mul_custom" | tr '\n' ' ')" = "0 1 " ]
	rm -rf "$out"/*
	capture --kernel-name='xx|ad' -- "$app" -k both
	[ "$status" -eq 0 ]
	[ -d "$(rundir)/device0/add_custom/0/dump" ]
}

@test "no kernel matched the filter: exit 3, names listed, nothing left" {
	capture --kernel-name=softmax -- "$app" -k both
	[ "$status" -eq 3 ]
	[[ $output == *"no kernel matched --kernel-name=softmax (launched: add_custom mul_custom)"* ]]
	[ -z "$(ls "$out")" ]
}

@test "an application that launches nothing: exit 3" {
	capture -- /bin/true
	[ "$status" -eq 3 ]
	[[ $output == *"no kernel launched"* ]]
	[ -z "$(ls "$out")" ]
}

@test "the application's argv is passed untouched, spaces and all" {
	capture -- "$app" "a b" '' '$HOME' "c  d"
	[ "$status" -eq 0 ]
	[[ $output == *"arg: a b"*"arg: "*'arg: $HOME'*"arg: c  d"* ]]
	jq -e '.command[1:] == ["a b", "", "$HOME", "c  d"]' "$(rundir)/manifest.json"
}

@test "the application's exit status and a crash are reported, the capture kept" {
	capture -- "$app" -e 5
	[ "$status" -eq 1 ]
	[[ $output == *"exited with status 5"* ]]
	jq -e '.app_status == 5 and (.kernels | length) == 1' "$(rundir)/manifest.json"
	rm -rf "$out"/*
	capture -- "$app" -x
	[ "$status" -eq 1 ]
	[[ $output == *"killed by signal 11"* ]]
	[ -f "$(rundir)/device0/add_custom/0/dump/aicore_binary.o" ]
}

@test "a forked child captures too (its own records and directory)" {
	capture -- "$app" -f
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -d "$r/device0/add_custom/0/dump" ]
	[ -d "$r/device0/mul_custom/0/dump" ]
	[ "$(rec-cat --json "$r/capture.rec" | jq -r 'select(.kind == "launch") | .pid' | sort -u | wc -l)" -eq 2 ]
}

@test "the child's environment: keys replaced, never duplicated" {
	CAMODEL_LOG_PATH=/inherited LD_PRELOAD= ASCEND_RT_VISIBLE_DEVICES=3 \
		sim-capture --cann-root="$cann" -o "$out" -- sh -c 'env > "$0"' "$BATS_TEST_TMPDIR/env" || true
	e=$BATS_TEST_TMPDIR/env
	[ "$(grep -c '^CAMODEL_LOG_PATH=' "$e")" -eq 1 ]
	grep -q "^CAMODEL_LOG_PATH=$out/OPPROF_.*/device0/tmp_dump\$" "$e"
	grep -q '^LD_PRELOAD=.*liboptrace-inject.so:libruntime_camodel.so$' "$e"
	grep -q "^LD_LIBRARY_PATH=.*/tools/simulator/Ascend910B1/lib" "$e"
	grep -q '^IS_SIMULATOR_ENV=true$' "$e"
	grep -q '^CAMODEL_SOC_VERSION=Ascend910B1$' "$e"
	grep -q '^TASK_QUEUE_ENABLE=0$' "$e"
	! grep -q '^ASCEND_RT_VISIBLE_DEVICES=' "$e"
}

@test "--soc-version picks the simulator; unknown SoC and no simulator are errors" {
	capture --soc-version=Ascend310P1 -- "$app"
	[ "$status" -eq 0 ]
	jq -e '.soc == "Ascend310P1" and .mhz == 1060 and (.simulator | endswith("/Ascend310P1/lib"))' "$(rundir)/manifest.json"
	capture --soc-version=Ascend310P1 --live -- "$app"
	[ "$status" -eq 2 ]
	[[ $output == *"Atlas A2/A3"* ]]
	capture --soc-version=Ascend999 -- "$app"
	[ "$status" -eq 2 ]
	[[ $output == *"unknown SoC Ascend999"*"Ascend310P1"*"Ascend910B1"* || $output == *"unknown SoC Ascend999"*"Ascend910B1"*"Ascend310P1"* ]]
	run sim-capture --cann-root="$BATS_TEST_TMPDIR" -o "$out" -- "$app"
	[ "$status" -eq 3 ]
	[[ $output == *"no simulator found"* ]]
}

@test "command-line errors: one line, exit 2, nothing created" {
	touch "$BATS_TEST_TMPDIR/file"
	for args in "--launch-count=0 -- $app" "--launch-count=5001 -- $app" "--kernel-name=a-b -- $app" \
	            "--timeout=0 -- $app" "--dump=maybe -- $app" "--core-id=50 -- $app" "--bogus -- $app" \
	            "-- $BATS_TEST_TMPDIR/file" "-- no-such-app-here" "-o $BATS_TEST_TMPDIR/file -- $app" \
	            "--live --launch-count=2 -- $app" ""; do
		run sim-capture --cann-root="$cann" $args
		[ "$status" -eq 2 ] || { echo "$args: status $status: $output"; return 1; }
		[[ $output == sim-capture:* ]] || { echo "$args: $output"; return 1; }
	done
	[ -z "$(ls "$out")" ]
}

@test "Ctrl+C stops the application and keeps what was collected (exit 130)" {
	FAKE_RT_SLEEP=30 sim-capture --cann-root="$cann" -o "$out" -- "$app" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	launched $pid
	kill -INT $pid
	st=0
	wait $pid || st=$?
	[ "$st" -eq 130 ]
	r=$(rundir)
	[ -f "$r/device0/add_custom/0/dump/aicore_binary.o" ]
	jq -e '.interrupted == true and .kernels[0].name == "add_custom"' "$r/manifest.json"
	[ ! -e "$r/device0/tmp_dump" ]
	# SIGTERM is a first Ctrl+C too (not an abort)
	rm -rf "$out"/*
	FAKE_RT_SLEEP=30 sim-capture --cann-root="$cann" -o "$out" -- "$app" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	launched $pid
	kill -TERM $pid
	st=0
	wait $pid || st=$?
	[ "$st" -eq 130 ]
	jq -e '.interrupted == true' "$(rundir)/manifest.json"
}

@test "--timeout stops a long simulation and keeps what exists" {
	# a launch that would last a day: only the timeout ends it
	FAKE_RT_SLEEP=86400 run sim-capture --cann-root="$cann" -o "$out" --timeout=1s -- "$app"
	[ "$status" -eq 1 ]
	[[ $output == *"timeout"* ]]
	jq -e '.timed_out == true and (.kernels | length) == 1' "$(rundir)/manifest.json"
}

@test "a failure inside the library: reported once, the application runs unprofiled" {
	# The capture directory vanishes under the application.
	run env LD_PRELOAD="$top/build/lib/liboptrace-inject.so" OPTRACE_CAPTURE_DIR=/nonexistent/dir \
		IS_SIMULATOR_ENV=true LD_LIBRARY_PATH="$cann/tools/simulator/Ascend910B1/lib" "$app" -n 3 -k both "ok"
	[ "$status" -eq 0 ]
	[[ $output == *"arg: ok"* ]]
	[ "$(grep -c 'optrace-inject' <<< "$output")" -le 2 ]
}

@test "live mode: callbacks become line records; the same instructions as the dumps" {
	run sh -c "sim-capture --cann-root='$cann' -o '$out' --live -- '$app' -n 1 | instr-parse --json > '$BATS_TEST_TMPDIR/live.json'"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -z "$(ls "$r/device0/add_custom/0/dump" | grep '\.dump$')" ]
	jq -e '.mode == "live"' "$r/manifest.json"
	rm -rf "$out"/*
	capture -- "$app" -n 1
	[ "$status" -eq 0 ]
	dump-split "$(rundir)/device0/add_custom/0/dump" | instr-parse --json > "$BATS_TEST_TMPDIR/dump.json"
	sel='select(.kind == "instr") | [.core, .sub, .subidx, .start, .end, .pc, .pipe, .name, .detail]'
	jq -c "$sel" "$BATS_TEST_TMPDIR/dump.json" > "$BATS_TEST_TMPDIR/d"
	jq -c "$sel" "$BATS_TEST_TMPDIR/live.json" > "$BATS_TEST_TMPDIR/l"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/d")" -eq 8 ]
	diff "$BATS_TEST_TMPDIR/d" "$BATS_TEST_TMPDIR/l"
	jq -e -s 'map(select(.kind == "trailer"))[-1].dropped == 0' "$BATS_TEST_TMPDIR/live.json"
}

@test "GE_PROFILING_OPTIONS gives the output directory" {
	GE_PROFILING_MODE=true GE_PROFILING_OPTIONS="{\"output\": \"$out/ge\", \"aic_metrics\": \"PipeUtilization\"}" \
		run sim-capture --cann-root="$cann" -- "$app"
	[ "$status" -eq 0 ]
	jq -e --arg o "$out/ge" '.aic_metrics == "PipeUtilization" and .ge_output == $o' "$out"/ge/OPPROF_*/manifest.json
	# the summary names the capture directory
	[[ $output == *"1 launch captured in $(ls -d "$out"/ge/OPPROF_*)"* ]]
	# -o wins over it; the manifest still says what GE asked for (sim-flow moves the tree there)
	rm -rf "$out"/*
	GE_PROFILING_MODE=1 GE_PROFILING_OPTIONS="{\"output\": \"$BATS_TEST_TMPDIR/ge\"}" run sim-capture --cann-root="$cann" -o "$out" -- "$app"
	[ "$status" -eq 0 ]
	jq -e --arg o "$BATS_TEST_TMPDIR/ge" '.ge_output == $o' "$(rundir)/manifest.json"
	[ ! -e "$BATS_TEST_TMPDIR/ge" ]
}

@test "GE_PROFILING_OPTIONS: malformed JSON or a bad value is an error that names it and where it fails" {
	ge() {
		GE_PROFILING_MODE=true GE_PROFILING_OPTIONS=$1 run sim-capture --cann-root="$cann" -v -o "$out" -- "$app"
		[ "$status" -eq 2 ] || { echo "$1: status $status: $output"; return 1; }
		[ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$1: $output"; return 1; }
		[[ $output == "sim-capture: GE_PROFILING_OPTIONS: $2"* ]] || { echo "$1: $output"; return 1; }
	}
	ge '{"output": "x", "aic_metrics": }' 'not valid JSON at character 32 (at "}")'
	ge '{"output": "x", "aic_metrics": "PipeUtilization"' 'not valid JSON: it ends at character 49'
	ge 'output=x' 'not valid JSON at character 1 (at "output=x")'
	ge '["x"]' 'should be a JSON object'
	ge '{"output": 5}' '"output" should be a string'
	ge '{"aic_metrics": "PipeUtilization,Bogus"}' 'aic_metrics=PipeUtilization,Bogus: unknown metric bogus'
	[[ $output != *"--aic-metrics"* ]]
	ge '{"aic_metrics": "TimelineDetail"}' 'aic_metrics=TimelineDetail is invalid in simulator'
	[ -z "$(ls "$out")" ]
	# read only in GE profiling mode, as the graph engine does
	GE_PROFILING_OPTIONS='{' run sim-capture --cann-root="$cann" -o "$out" -- "$app"
	[ "$status" -eq 0 ]
}

@test "manifest.json and capture.rec name the launch directories relative to the OPPROF directory: a moved tree stays right" {
	capture --launch-count=2 -- "$app" -n 1 -k both
	[ "$status" -eq 0 ]
	mv "$(rundir)" "$BATS_TEST_TMPDIR/moved"
	m=$BATS_TEST_TMPDIR/moved
	[ "$(jq -r '.kernels[].dir' "$m/manifest.json" | sort | tr '\n' ' ')" = \
	  "device0/add_custom/0/dump device0/mul_custom/0/dump " ]
	for d in $(jq -r '.kernels[].dir' "$m/manifest.json"); do
		[ -f "$m/$d/aicore_binary.o" ] && [ -s "$m/$d/core0.veccore0.instr_log.dump" ]
	done
	[ "$(rec-cat --json "$m/capture.rec" | jq -r 'select(.kind == "launch" and .order >= 0) | .dir' | sort | tr '\n' ' ')" = \
	  "device0/add_custom/0/dump device0/mul_custom/0/dump " ]
}

@test "--timeout ends the application's whole process group: a child it started is gone too" {
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# The shell ignores INT and TERM until it has noted its child and
	# launched, so the timeout finds it after the launch whatever the load;
	# the child blocks forever on the FIFO and ignores INT and TERM for
	# good: only the SIGKILL of the group ends it.
	capture --timeout=1s -- sh -c 'trap "" INT TERM; cat "$1" > /dev/null 2>&1 3>&- & echo $! > "$2"
		"$0" -n 1; trap - INT TERM; exec cat "$1" 2>/dev/null 3>&-' "$app" "$f" "$BATS_TEST_TMPDIR/pids"
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
	jq -e '.timed_out == true and (.kernels | length) == 1' "$(rundir)/manifest.json"
	child=$(cat "$BATS_TEST_TMPDIR/pids")
	[ -n "$child" ]
	! kill -0 "$child" 2>/dev/null
}

@test "Ctrl+C ends the application's whole process group, and so does the end of the application" {
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# The application interrupts sim-capture itself once it has launched:
	# its background child (SIGINT ignored, as in any non-interactive
	# shell) blocks forever on the FIFO.
	capture -- sh -c 'cat "$1" > /dev/null 2>&1 3>&- & echo $! > "$2"; "$0" -n 1; kill -INT $PPID; exec cat "$1" 2>/dev/null 3>&-' \
		"$app" "$f" "$BATS_TEST_TMPDIR/pids"
	[ "$status" -eq 130 ] || { echo "$output"; return 1; }
	jq -e '.interrupted == true and (.kernels | length) == 1' "$(rundir)/manifest.json"
	! kill -0 "$(cat "$BATS_TEST_TMPDIR/pids")" 2>/dev/null
	# an application that exits leaving a child running: the child goes too
	rm -rf "$out"/* "$BATS_TEST_TMPDIR/pids"
	capture -- sh -c 'cat "$1" > /dev/null 2>&1 3>&- & echo $! > "$2"; exec "$0" -n 1' "$app" "$f" "$BATS_TEST_TMPDIR/pids"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	! kill -0 "$(cat "$BATS_TEST_TMPDIR/pids")" 2>/dev/null
}

@test "live mode, interrupted: the stream is whole records and ends with a trailer marked interrupted" {
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# after the launch the application interrupts sim-capture, then blocks
	sim-capture -q --cann-root="$cann" -o "$out" --live -- \
		sh -c '"$0" -n 1; kill -INT $PPID; exec cat "$1" 2>/dev/null 3>&-' "$app" "$f" > "$BATS_TEST_TMPDIR/s.rec" || st=$?
	[ "${st:-0}" -eq 130 ]
	rec-cat --json "$BATS_TEST_TMPDIR/s.rec" | jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0'
	instr-parse --json < "$BATS_TEST_TMPDIR/s.rec" > "$BATS_TEST_TMPDIR/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -eq 8 ]
	jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0' "$BATS_TEST_TMPDIR/p.json"
	# --timeout: the same, with the timeout's status
	rm -rf "$out"/*
	st=0
	sim-capture -q --cann-root="$cann" -o "$out" --live --timeout=1s -- \
		sh -c 'trap "" INT TERM; "$0" -n 1; trap - INT TERM; exec cat "$1" 2>/dev/null 3>&-' "$app" "$f" > "$BATS_TEST_TMPDIR/s.rec" || st=$?
	[ "$st" -eq 1 ]
	instr-parse --json < "$BATS_TEST_TMPDIR/s.rec" > "$BATS_TEST_TMPDIR/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -eq 8 ]
	jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0' "$BATS_TEST_TMPDIR/p.json"
}

@test "live mode, a second Ctrl+C aborts: what was streamed stays whole and the trailer says interrupted" {
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# The application answers the SIGINT sim-capture passes on to it with
	# a second one: a double Ctrl+C in a known order.
	st=0
	sim-capture -q --cann-root="$cann" -o "$out" --live -- \
		sh -c 'trap "kill -INT \$PPID" INT; "$0" -n 1; kill -INT $PPID; cat "$1" 2>/dev/null 3>&-; exec cat "$1" 2>/dev/null 3>&-' "$app" "$f" \
		> "$BATS_TEST_TMPDIR/s.rec" 2> "$BATS_TEST_TMPDIR/err" || st=$?
	[ "$st" -eq 130 ]
	grep -q 'aborted' "$BATS_TEST_TMPDIR/err"
	rec-cat --json "$BATS_TEST_TMPDIR/s.rec" | jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0'
	instr-parse --json < "$BATS_TEST_TMPDIR/s.rec" > "$BATS_TEST_TMPDIR/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -eq 8 ]
}

@test "--config: the JSON description becomes kernel_config.bin for the launcher" {
	cd "$BATS_TEST_TMPDIR"
	head -c 8 /dev/zero > x.bin
	head -c 8 /dev/zero > t.bin
	cp "$app" k.o
	cat > c.json <<'JSON'
{ "kernel_name": "add_custom", "kernel_path": "./k.o", "blockdim": 8, "mode": "ca", "device_id": 0,
  "magic": "RT_DEV_BINARY_MAGIC_ELF_AIVEC", "tiling_key": 1,
  "test_cases": [ { "case_name": "Test_001", "param_desc": [
      {"param_type":"input","name":"x","type":"float16","shape":[4],"data_path":"./x.bin"},
      {"param_type":"input","name":"y","data_path":"null"},
      {"param_type":"output","name":"z","type":"float32","shape":[2,4]},
      {"param_type":"workspace","user_workspace_size":4096},
      {"param_type":"tiling","tiling_data_size":8,"tiling_data_path":"./t.bin"},
      {"param_type":"fftsAddr","data_size":64} ] } ] }
JSON
	printf '#!/bin/sh\n[ "$1" = -c ] && cat "$2" > "%s/cfg"\n' "$BATS_TEST_TMPDIR" > launcher
	chmod +x launcher
	OPTRACE_KERNEL_LAUNCHER=$PWD/launcher run sim-capture --cann-root="$cann" -o "$out" --config=c.json
	# the stand-in launcher is not this script: nothing was launched
	[ "$status" -eq 3 ]
	d=$BATS_TEST_TMPDIR
	[ "$(jq -r 'keys_unsorted | join(",")' cfg)" = \
	  "bin_path,block_dim,device_id,ffts,input_path,input_size,kernel_name,magic,output_dir,output_name,output_size,tiling_data_path,tiling_key,workspace_size" ]
	jq -e --arg d "$d" '.bin_path == "\($d)/k.o" and .block_dim == "8" and .ffts == "Y"
	    and .input_path == "\($d)/x.bin;n" and .input_size == "8;0" and .output_name == "z"
	    and .output_size == "32" and .output_dir == "\($d)/msopt_test_result/Test_001"
	    and .tiling_data_path == "\($d)/t.bin;8" and .tiling_key == "1" and .workspace_size == "4096"' cfg
	# errors name the file and exit 2
	for bad in 's/"ca"/"onboard"/' 's/_AIVEC/_XX/' 's/"shape":\[4\]/"shape":[5]/' 's/"kernel_name": "add_custom"/"kernel_name": "a-b"/'; do
		sed "$bad" c.json > b.json
		run sim-capture --cann-root="$cann" -o "$out" --config=b.json
		[ "$status" -eq 2 ] || { echo "$bad: $status $output"; return 1; }
		[[ $output == "sim-capture: b.json: "* ]] || { echo "$bad: $output"; return 1; }
	done
	run sim-capture --cann-root="$cann" -o "$out" --config=c.json --kernel-name=x
	[ "$status" -eq 2 ]
	[ -z "$(ls "$out")" ]
}

@test "live mode: a slow consumer makes the simulator wait; nothing is lost" {
	export FAKE_RT_REPEAT=5000   # 80000 lines, far more than the pipes hold
	sim-capture -q --cann-root="$cann" -o "$out" --live -- "$app" -n 1 |
		{ sleep 2; instr-parse --json; } > "$BATS_TEST_TMPDIR/live.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/live.json" | wc -l)" -eq 40000 ]
	jq -e -s 'map(select(.kind == "trailer"))[-1] | .dropped == 0 and .bad == 0' "$BATS_TEST_TMPDIR/live.json"
	jq -e '.dropped == 0' "$(rundir)/manifest.json"
}

@test "ACL path: named from the loaded binary, counted once though it calls rtKernelLaunch" {
	capture --launch-count=5 -- "$app" -a -n 2
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/device0/add_custom" | tr '\n' ' ')" = "0 1 " ]
	off=$(nm "$app" | awk '$3 == "add_custom" { print $1 }')
	[ "$(cat "$r/device0/add_custom/0/dump/pc_start_addr.txt")" = "$(printf '0x%x' $((0x10f86000 - 0x$off)))" ]
	rec-cat --json "$r/capture.rec" > "$BATS_TEST_TMPDIR/c.json"
	[ "$(jq -r 'select(.kind == "launch") | .api' "$BATS_TEST_TMPDIR/c.json" | sort -u)" = aclrtLaunchKernel ]
	[ "$(jq -r 'select(.kind == "launch") | .block_dim' "$BATS_TEST_TMPDIR/c.json" | sort -u)" = 3 ]
	jq -e -s 'map(select(.kind == "api" and .name == "rtKernelLaunch")) | length == 0' "$BATS_TEST_TMPDIR/c.json"
	[ "$(wc -l < "$r/device0/add_custom/1/dump/core0.veccore0.instr_log.dump")" -eq 12 ]
}

@test "threads: every call of four concurrent threads is one well-formed span" {
	capture -- "$app" -c 50000 -t 4
	[ "$status" -eq 0 ]
	run rec-cat --json "$(rundir)/capture.rec"
	[ "$status" -eq 0 ]
	echo "$output" | jq -c 'select(.kind == "api" and .name == "rtGetDevice") | .tid' > "$BATS_TEST_TMPDIR/tids"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/tids")" -eq 200000 ]
	[ "$(sort -u "$BATS_TEST_TMPDIR/tids" | wc -l)" -eq 4 ]
	jq -e '.api_spans >= 200000' "$(rundir)/manifest.json"
}

@test "an application that closes every descriptor: its files are never written by the library" {
	capture -- "$app" -c 100000 -C "$BATS_TEST_TMPDIR/mine"
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/mine")" = mine ]
	[[ $output == *"the application closed the record file; opened again"* ]]
	jq -e '.launches == 1' "$(rundir)/manifest.json"
}

@test "a kernel name of 255 characters or more: 72 characters, '_' and a stable hash as its directory" {
	capture -- "$app" -k long
	[ "$status" -eq 0 ]
	name=$(nm "$app" | awk '$3 ~ /^long_kernel_name/ { print $3 }')
	[ ${#name} -ge 255 ]
	d=$(ls "$(rundir)/device0")
	[[ $d =~ ^${name:0:72}_[0-9]+$ ]]
	rec-cat --json "$(rundir)/capture.rec" | jq -e -s --arg n "$name" 'map(select(.kind == "launch"))[0].name == $n'
	# the same name gives the same directory in another run
	rm -rf "$out"/*
	capture -- "$app" -k long
	[ "$(ls "$(rundir)/device0")" = "$d" ]
}

@test "A2 binaries compiled without a target get the e_flags of their kernel type" {
	capture -- "$app" -F
	[ "$status" -eq 0 ]
	[ "$(od -A n -t x4 -j 48 -N 4 "$(rundir)/device0/add_custom/0/dump/aicore_binary.o" | tr -d ' ')" = 00930000 ]
	rm -rf "$out"/*
	capture --soc-version=Ascend310P1 -- "$app" -F
	[ "$(od -A n -t x4 -j 48 -N 4 "$(rundir)/device0/add_custom/0/dump/aicore_binary.o" | tr -d ' ')" = 00810000 ]
}
