#!/usr/bin/env bats
# sim-capture --mstx / --mstx-include: only the launches inside the
# application's mstx ranges are captured.  The application is the stand-in's
# sample build/ops/bin/mstx_rt (test/ops/mstx), which calls the stand-in's
# mstx library (build/cann/lib64/libms_tools_ext.so) around its launches as
# a plan of steps says: "+MSG" opens a range, "-" closes the last one, "L"
# launches add_custom, "F" forks a child that launches once, "@STEP" runs
# the step on a second thread.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	app=$top/build/ops/bin/mstx_rt
	cann=$top/build/cann
	[ -d "$cann/tools/simulator" ] || skip "the stand-in simulator is not built (build/cann)"
	[ -x "$app" ] || skip "mstx_rt is not built"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS MSTX_INJECTION_PATH
	export ASCEND_HOME_PATH=$cann
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

# capture ARGS... -- PLAN: sim-capture with ARGS (up to 5 launches) on the
# plan; status and output as bats' run gives them.
capture() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	run sim-capture -o "$out" --launch-count=5 "${args[@]}" -- "$app" -p "$1"
}

# The captured launches (their index in the process), space-separated.
captured() {
	rec-cat --json "$(rundir)/capture.rec" |
		jq -r 'select(.kind == "launch" and .order >= 0) | .launch' | paste -sd ' '
}

@test "--mstx=on: only the launches inside a range are captured, the others counted" {
	run sim-capture -o "$out" --mstx=on --launch-count=5 -- "$app"
	[ "$status" -eq 0 ]
	[[ $output == *"launch 2"* && $output == *"mstx_rt: 3 launches: ok"* ]]
	# the application sees msprof op's tool id: the preload library answered
	[[ $output == *"tool 0x1001"* ]]
	[ "$(captured)" = "0 1" ]
	r=$(rundir)
	jq -e '.mstx == "on" and .launches == 3 and .mstx_skipped == 1 and (.kernels | length) == 2
	       and (has("mstx_include") | not)' "$r/manifest.json"
	# the launch left out is said in capture.rec, as a note
	rec-cat --json "$r/capture.rec" |
		jq -e -s 'map(select(.kind == "diag")) | length == 1 and .[0].level == 2 and .[0].tool == "optrace-inject"
		          and (.[0].message | startswith("mstx: launch 2 (add_custom) not captured"))'
	[ ! -e "$r/device0/add_custom/2" ]
	[[ $output == *"sim-capture: 1 launch outside the mstx ranges not captured"* ]]
	[[ ${lines[-1]} == "sim-capture: 2 launches captured in $r" ]]
}

@test "without --mstx every launch counts, and ranges are only numbered" {
	run sim-capture -o "$out" --launch-count=5 -- "$app"
	[ "$status" -eq 0 ]
	[ "$(captured)" = "0 1 2" ]
	[[ $output == *"range warm id 1"* && $output == *"range step2 id 2"* && $output == *"tool 0x1001"* ]]
	jq -e '(has("mstx") or has("mstx_skipped")) | not' "$(rundir)/manifest.json"
	[ -z "$(rec-cat --json "$(rundir)/capture.rec" | jq -c 'select(.kind == "diag")')" ]
	# --mstx=off and an empty --mstx are the default
	for v in --mstx=off --mstx=; do
		rm -rf "${out:?}"/*
		run sim-capture -q -o "$out" --launch-count=5 "$v" -- "$app"
		[ "$status" -eq 0 ]
		[ "$(captured)" = "0 1 2" ]
	done
}

@test "--mstx-include: only ranges with a listed message, blanks removed" {
	capture --mstx=on --mstx-include=step2 -- "+warm L - +step2 L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 1 ]
	jq -e '.mstx_include == "step2" and .mstx_skipped == 2' "$(rundir)/manifest.json"
	rec-cat --json "$(rundir)/capture.rec" |
		jq -e -s 'map(select(.kind == "diag") | .message) | length == 2 and all(endswith("of --mstx-include"))'
	rm -rf "${out:?}"/*
	capture --mstx=on "--mstx-include= warm | step2 " -- "+warm L - +step2 L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = "0 1" ]
	jq -e '.mstx_include == "warm|step2"' "$(rundir)/manifest.json"
	# a message is matched whole, case included
	rm -rf "${out:?}"/*
	capture --mstx=on --mstx-include=Step2 -- "+step2 L - +step L -"
	[ "$status" -eq 3 ]
}

@test "nested ranges: inside while any range of the thread counts" {
	capture --mstx=on -- "+outer +inner L - L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = "0 1" ]
	rm -rf "${out:?}"/*
	capture --mstx=on --mstx-include=inner -- "+outer +inner L - L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 0 ]
	rm -rf "${out:?}"/*
	capture --mstx=on --mstx-include=outer -- "+outer +inner L - L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = "0 1" ]
	# the same message twice: open until both end
	rm -rf "${out:?}"/*
	capture --mstx=on -- "+a +a L - L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = "0 1" ]
}

@test "a range belongs to the thread that started it" {
	# the main thread's range: the second thread's launch is outside it
	capture --mstx=on -- "+step2 @L L -"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 1 ]
	# the second thread's own range
	rm -rf "${out:?}"/*
	capture --mstx=on -- "@+step2 @L L @- @L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 0 ]
	# ended by another thread, the range is over for the one that started it
	rm -rf "${out:?}"/*
	capture --mstx=on -- "L +step2 @- L"
	[ "$status" -eq 3 ]
	[[ $output == *"no kernel launched inside an mstx range"* ]]
}

@test "no launch inside a range: nothing captured, exit 3, no directory left" {
	capture --mstx=on -- "L L"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == "sim-capture: no kernel launched inside an mstx range of its thread (launched outside: add_custom)" ]]
	[ -z "$(ls "$out")" ]
	capture --mstx=on --mstx-include=other -- "+warm L -"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == "sim-capture: no kernel launched inside an mstx range of --mstx-include=other (launched outside: add_custom)" ]]
	[ -z "$(ls "$out")" ]
	# a message the API refuses starts no range (said once by the library)
	capture --mstx=on -- "+step-2 L - +step-2 L -"
	[ "$status" -eq 3 ]
	[[ $output == *"range step-2 id 0"* ]]
	[ "$(grep -c 'starts no range' <<<"$output")" -eq 1 ]
	[ -z "$(ls "$out")" ]
	# the kernel-name filter on the launches inside
	capture --mstx=on --kernel-name=mul -- "+a L -"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == *"no kernel matched --kernel-name=mul (launched: add_custom)" ]]
}

@test "--launch-count and --launch-skip-before-match count only the launches inside" {
	run sim-capture -q -o "$out" --mstx=on --launch-skip-before-match=1 --launch-count=5 -- "$app" -p "L +a L L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 2 ]
	rm -rf "${out:?}"/*
	run sim-capture -q -o "$out" --mstx=on -- "$app" -p "L +a L L - L"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 1 ]
	jq -e '.mstx_skipped == 2' "$(rundir)/manifest.json"
}

@test "option errors: one line, exit 2, nothing created, in the reference's order" {
	long=$(printf 'a%.0s' $(seq 1023))
	while IFS='@' read -r args want; do
		# shellcheck disable=SC2086
		run sim-capture -o "$out" $args -- "$app"
		[ "$status" -eq 2 ] || { echo "$args: status $status: $output"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
		[ "$output" = "sim-capture: $want" ] || { echo "$args: $output"; return 1; }
	done <<EOF
--mstx=yes@--mstx should use on/off
--mstx=ON@--mstx should use on/off
--mstx-include=step2@--mstx-include only support when --mstx=on
--mstx=off --mstx-include=step2@--mstx-include only support when --mstx=on
--mstx-include=step-2@--mstx-include only support when --mstx=on
--mstx-include=step2 --mstx=bad@--mstx should use on/off
--mstx=on --mstx-include=$long@--mstx-include input length exceeds limitation
--mstx=on --mstx-include=step-2@invalid include string, include string is too long or use unsupported character in include string. Support characters in one message are: A-Z a-z 0-9 _
--mstx=on --mstx-include=a||b@invalid include string, include string is too long or use unsupported character in include string. Support characters in one message are: A-Z a-z 0-9 _
--mstx=on --mstx-include=|a@invalid include string, include string is too long or use unsupported character in include string. Support characters in one message are: A-Z a-z 0-9 _
--mstx=bad --kernel-name=a-b@--kernel-name=a-b: '-' is not allowed (A-Z a-z 0-9 _ *)
--mstx=bad --launch-count=0@--launch-count=0: should be a number in [1, 5000]
--aic-metrics=bogus --mstx-include=a@--mstx-include only support when --mstx=on
--core-id=99 --mstx=on --mstx-include=a-b@invalid include string, include string is too long or use unsupported character in include string. Support characters in one message are: A-Z a-z 0-9 _
--dump=maybe --mstx=maybe@--mstx should use on/off
EOF
	[ -z "$(ls "$out")" ]
	# --opt value works as --opt=value; a '|' at the end adds no message
	run sim-capture -q -o "$out" --mstx on --mstx-include 'step2|' -- "$app"
	[ "$status" -eq 0 ]
	[ "$(captured)" = 1 ]
	jq -e '.mstx_include == "step2|"' "$(rundir)/manifest.json"
}

@test "the application's mstx library without a tool, and with MSTX_INJECTION_PATH" {
	for f in mstxRangeStartA mstxRangeEnd mstxMarkA mstxGetToolId; do
		nm -D --defined-only "$cann/lib64/libms_tools_ext.so" | grep -q " $f\$"
	done
	[ -f "$cann/include/mstx/ms_tools_ext.h" ]
	lib=$cann/tools/simulator/Ascend910B1/lib:$cann/lib64
	LD_LIBRARY_PATH=$lib CAMODEL_LOG_PATH=$BATS_TEST_TMPDIR/d run "$app"
	[ "$status" -eq 0 ]
	[[ $output == *"range warm id 0"* && $output == *"tool 0x0"* ]]
	# a tool that cannot be loaded: still no tool, nothing breaks
	MSTX_INJECTION_PATH=$BATS_TEST_TMPDIR/none.so LD_LIBRARY_PATH=$lib CAMODEL_LOG_PATH=$BATS_TEST_TMPDIR/d run "$app"
	[ "$status" -eq 0 ]
	[[ $output == *"tool 0x0"* ]]
	# the tool named by MSTX_INJECTION_PATH, not preloaded
	inj=$(dirname "$(command -v sim-capture)")/../lib/liboptrace-inject.so
	[ -f "$inj" ] || skip "no liboptrace-inject.so next to sim-capture"
	nm -D --defined-only "$inj" | grep -q ' InitInjectionMstx$'
	MSTX_INJECTION_PATH=$inj LD_LIBRARY_PATH=$lib CAMODEL_LOG_PATH=$BATS_TEST_TMPDIR/d run "$app"
	[ "$status" -eq 0 ]
	[[ $output == *"range warm id 1"* && $output == *"tool 0x1001"* ]]
}

@test "live mode streams the one launch inside the ranges" {
	sim-capture -q -o "$out" --live --mstx=on --mstx-include=step2 -- "$app" > "$BATS_TEST_TMPDIR/live.rec" \
		2> "$BATS_TEST_TMPDIR/err"
	rec-cat --json "$BATS_TEST_TMPDIR/live.rec" | jq -e -s 'map(select(.kind == "launch")) | length == 1'
	[ "$(captured)" = 1 ]
	[ "$(instr-parse < "$BATS_TEST_TMPDIR/live.rec" | rec-cat --json | jq -c 'select(.kind == "instr")' | wc -l)" -gt 10 ]
	jq -e '.mode == "live" and .mstx_skipped == 2' "$(rundir)/manifest.json"
}

@test "sim-flow passes --mstx and --mstx-include on" {
	command -v sim-flow >/dev/null || skip "sim-flow is not built"
	run sim-flow -q -o "$out" --mstx on --mstx-include=step2 -- "$app"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -f "$r/dump/aicore_binary.o" ]
	jq -e '.mstx == "on" and .mstx_include == "step2" and .mstx_skipped == 2 and (.kernels | length) == 1' \
		"$r/manifest.json"
	run sim-flow -o "$out" --mstx-include=step2 -- "$app"
	[ "$status" -eq 2 ]
	[[ $output == *"--mstx-include only support when --mstx=on"* ]]
}

@test "an ACL launch from Python, the mstx library opened with ctypes" {
	py=$top/build/ops/bin/add_acl.py
	[ -x "$py" ] || skip "add_acl.py is not built"
	command -v python3 >/dev/null || skip "no python3"
	run sim-capture -o "$out" --mstx=on --mstx-include=step2 -- "$py" -r step2
	[ "$status" -eq 0 ]
	[ "$(captured)" = 0 ]
	jq -e '.kernels[0].name == "add_custom" and .mstx_skipped == 0' "$(rundir)/manifest.json"
	rm -rf "${out:?}"/*
	run sim-capture -o "$out" --mstx=on --mstx-include=step2 -- "$py" -r warm
	[ "$status" -eq 3 ]
	[ -z "$(ls "$out")" ]
}

@test "a process forked inside a range: its launches are inside" {
	capture --mstx=on -- "+a F - F L"
	[ "$status" -eq 0 ]
	r=$(rundir)
	# three processes, one launch each: only the first child's is captured
	rec-cat --json "$r/capture.rec" |
		jq -e -s 'map(select(.kind == "launch")) | length == 3 and (map(.pid) | unique | length) == 3
		          and (map(select(.order >= 0)) | length == 1)'
	jq -e '.mstx_skipped == 2 and (.kernels | length) == 1' "$r/manifest.json"
}
