#!/usr/bin/env bats
# sim-flow end to end against the stand-in simulator (build/cann, build/ops):
# user strings never reach a shell, the exit statuses, interrupts in every
# phase, --live, the paths of the final tree, the everyday options.
# Where a phase must be caught in the middle, a stand-in tool next to a copy
# of sim-flow blocks on a FIFO until the test has sent its signal: nothing
# here depends on timing.

bats_require_minimum_version 1.5.0

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	top=$(cd "$top" && pwd)
	ops=$top/build/ops
	cann=$top/build/cann
	[ -d "$cann/tools/simulator" ] || skip "the stand-in simulator is not built (build/cann)"
	command -v sim-flow >/dev/null || skip "sim-flow is not built"
	[ -x "$ops/bin/add_rt" ] && [ -x "$ops/bin/op_rt" ] || skip "the sample operators are not built (build/ops)"
	T=$BATS_TEST_TMPDIR
	out=$T/out
	mkdir -p "$out"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	export ASCEND_HOME_PATH=$cann
}

# Whatever a failed interrupt test left waiting on its fifo is let go and
# its run ended, so that no process outlives the test (bats waits for every
# process holding its output).
teardown() {
	[ ! -p "${T-}/go" ] || echo go 1<>"$T/go"
	[ -z "${pid-}" ] || kill -KILL -- -"$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

rundir() {
	for r in "${1:-$out}"/OPPROF_*; do
		[ -d "$r" ] && { printf '%s\n' "$r"; return 0; }
	done
	return 1
}

# A copy of sim-flow in $T/bin, where stand-ins of its tools can go: it
# takes the tools next to it first, the others from PATH.
flow_copy() {
	mkdir -p "$T/bin"
	cp "$(command -v sim-flow)" "$T/bin/sim-flow"
}

# An application that launches add_custom, then waits on a FIFO until the
# test lets it go: $T/ready is written when the launch is done.
hold_app() {
	mkfifo "$T/ready" "$T/go"
	cat >"$T/app" <<EOF
#!/bin/sh
"$ops/bin/add_rt" || exit
echo launched > "$T/ready"
read -r x < "$T/go"
EOF
	chmod +x "$T/app"
}

export_takes() {
	sim-export --help 2>&1 | grep -q -e "$1"
}

# ---- user strings -------------------------------------------------------

@test "-o with quotes, spaces, \$(), backticks and ';': nothing runs, the run succeeds" {
	o="$T/o 'q\" \$(touch $T/m1) \`touch $T/m2\` ; touch $T/m3 ;'x"
	run sim-flow -q -o "$o" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	[ ! -e "$T/m1" ] && [ ! -e "$T/m2" ] && [ ! -e "$T/m3" ]
	r=$(rundir "$o")
	jq -e '.traceEvents | length > 10' "$r/simulator/trace.json" >/dev/null
	[ -f "$r/host_api.json" ]
	[ -z "$(ls -A "$o" | grep -v '^OPPROF_')" ]   # no temporary left
	# a newline: refused as sim-capture refuses it, before anything runs
	run sim-flow -q -o "$T/n"$'\n'"\$(touch $T/m1)" -- sh -c "touch $T/ran"
	[ "$status" -eq 2 ]
	[[ $output == *"control character"* ]]
	[ ! -e "$T/ran" ] && [ ! -e "$T/m1" ] && [ ! -e "$T/n"$'\n'"\$(touch $T/m1)" ]
}

@test "-o starting with '-' (relative), and such a name for --cann-root" {
	cd "$T"
	export M4=$T/m4 M5=$T/m5 M6=$T/m6 M7=$T/m7
	c="-c'\$(touch \"\$M4\")\`touch \"\$M5\"\`;touch \"\$M6\";'"
	o="-o'\$(touch \"\$M7\");"
	ln -s "$cann" "$T/$c"
	run sim-flow -q -o "$o" --cann-root="$c" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	for m in m4 m5 m6 m7; do [ ! -e "$T/$m" ]; done
	r=$(rundir "$T/$o")
	[ -f "$r/simulator/trace.json" ]
}

@test "the application's arguments go through untouched, -q and --live among them, even without --" {
	args=("a'b" '$(touch '"$T"'/m8)' '`touch '"$T"'/m9`' "; touch $T/m10" $'two\nlines' -q --live -o)
	run sim-flow -q -o "$out" sh -c '"$0" && printf "[%s]\n" "$@" > "$1.args"' "$ops/bin/add_rt" "$T/app" "${args[@]}"
	[ "$status" -eq 0 ]
	for m in m8 m9 m10; do [ ! -e "$T/$m" ]; done
	printf '[%s]\n' "$T/app" "${args[@]}" > "$T/want"
	diff "$T/want" "$T/app.args"
	# dump mode: -q and --live were the application's
	r=$(rundir)
	ls "$r"/dump/core0.veccore0.instr_log.dump
}

@test "option values: bad ones are usage errors before the application runs" {
	for bad in "-j x" "--core-id=1;touch $T/m" "--from=1\$(x)" "--to=abc" "--report=2x" "--aic-metrics=a b"; do
		# shellcheck disable=SC2086
		run sim-flow -o "$out" $bad -- sh -c "touch $T/ran"
		[ "$status" -eq 2 ] || { echo "$bad: $status"; return 1; }
	done
	[ ! -e "$T/ran" ] && [ ! -e "$T/m" ]
	run sim-flow -o "$out" -j
	[ "$status" -eq 2 ]
	run sim-flow -o "$out"
	[ "$status" -eq 2 ]
}

# ---- exit statuses and errors ----------------------------------------------

@test "a write error on host_api.json: exit 4, no .tmp left, the rest of the tree kept" {
	so=$top/build/fault.so
	[ -f "$so" ] || skip "build/fault.so is not built"
	# (the sanitizer build's tools accept a preload library ahead of theirs)
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	run env LD_PRELOAD="$so" FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=host_api.json \
		sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 4 ] || { echo "$output"; return 1; }
	[[ $output == *"host_api.json: the host API timeline could not be written"* ]]
	r=$(rundir)
	[ ! -e "$r/host_api.json.tmp" ] && [ ! -e "$r/host_api.json" ]
	[ -f "$r/simulator/trace.json" ]
	[ -z "$(find "$out" -name '*.tmp')" ]
	rm -rf "${out:?}"/*
	run env LD_PRELOAD="$so" FAULT_OP=rename FAULT_PATH=host_api.json sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 4 ]
	[ -z "$(find "$out" -name '*.tmp')" ]
}

@test "sim-capture's statuses come through: 2 usage, 3 nothing launched, 1 the application failed" {
	run sim-flow -o "$out" --soc-version=NoSuchSoc -- "$ops/bin/add_rt"
	[ "$status" -eq 2 ]
	run sim-flow -o "$out" -- true
	[ "$status" -eq 3 ]
	[ -z "$(ls -A "$out")" ]
	run sim-flow -q -o "$out" -- sh -c '"$0"; exit 5' "$ops/bin/add_rt"
	[ "$status" -eq 1 ]
	r=$(rundir)
	jq -e '.app_status == 5 and .kernels[0].parse == "ok"' "$r/manifest.json"
	[ -f "$r/simulator/trace.json" ]
}

@test "a launch sim-export cannot parse: exit 1, its dump kept, the manifest says failed" {
	flow_copy
	printf '#!/bin/sh\necho "sim-export: cannot parse" >&2\nexit 3\n' > "$T/bin/sim-export"
	chmod +x "$T/bin/sim-export"
	run "$T/bin/sim-flow" -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 1 ]
	[[ $output == *"parsing failed"* ]]
	r=$(rundir)
	ls "$r"/dump/core0.veccore0.instr_log.dump
	jq -e '.kernels[0].parse == "failed" and .kernels[0].simulator == null and .parse.failed == 1' "$r/manifest.json"
}

# ---- interrupts --------------------------------------------------------------

# A sim-export that parses the first launch, then on the second says so on
# $T/ready and waits on $T/go before it ends as interrupted (or, with
# blocking_export done, parses it after all: a signal that came between two
# of sim-flow's steps).
blocking_export() {
	flow_copy
	mkfifo "$T/ready" "$T/go"
	cat >"$T/bin/sim-export" <<EOF
#!/bin/sh
case \$1 in --help) exec "$(command -v sim-export)" --help ;; esac
n=\$(cat "$T/calls" 2>/dev/null || echo 0)
echo \$((n + 1)) > "$T/calls"
[ "\$n" -eq 1 ] || exec "$(command -v sim-export)" "\$@"
echo parsing > "$T/ready"
read -r x < "$T/go"
[ "${1:-}" != done ] || exec "$(command -v sim-export)" "\$@"
exit 130
EOF
	chmod +x "$T/bin/sim-export"
}

check_parse_interrupted() {
	[ "$status" -eq 130 ]
	[[ $output == *"interrupted while parsing"* ]]
	r=$(rundir)
	jq -e '.interrupted == true and .parse.interrupted == true' "$r/manifest.json"
	jq -e '.kernels | map(.parse) == ["ok", "interrupted", "missing"]' "$r/manifest.json"
	jq -e '.kernels[1].missing_cores == ["core0.veccore0", "core0.veccore1"] and
	       .kernels[2].missing_cores == ["core0.veccore0", "core0.veccore1"] and .kernels[2].simulator == null' "$r/manifest.json"
	# the parsed launch and every dump are kept
	jq -e '.traceEvents | length > 10' "$r/add_custom/0/simulator/trace.json" >/dev/null
	for n in 0 1 2; do ls "$r/add_custom/$n/dump/core0.veccore0.instr_log.dump"; done
	[ ! -e "$r/add_custom/2/simulator" ]
	[ -f "$r/host_api.json" ]
	[ -z "$(ls -A "$out" | grep -v '^OPPROF_')" ]
}

@test "SIGINT to sim-flow while it parses: the capture, the parsed launch and the manifest are kept, exit 130" {
	blocking_export
	env --default-signal=INT "$T/bin/sim-flow" -o "$out" --launch-count=3 -- "$ops/bin/op_rt" -s add -r 3 \
		>"$T/log" 2>&1 &
	pid=$!
	read -r -t 300 x <>"$T/ready"  # (the limit guards against a hang only)
	kill -INT "$pid"
	echo go > "$T/go"
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/log")
	check_parse_interrupted
}

@test "Ctrl+C (SIGINT to the whole process group) while parsing: the same" {
	blocking_export
	set -m
	"$T/bin/sim-flow" -o "$out" --launch-count=3 -- "$ops/bin/op_rt" -s add -r 3 >"$T/log" 2>&1 &
	pid=$!
	set +m
	read -r -t 300 x <>"$T/ready"  # (the limit guards against a hang only)
	kill -INT -- "-$pid"
	# stopped by the signal or not, whoever still waits on $T/go is let go (no blocking)
	echo go 1<>"$T/go"
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/log")
	check_parse_interrupted
}

@test "Ctrl+C to sim-flow, a script's background job (SIGINT ignored at its start), between two launches: no later launch is parsed" {
	blocking_export done
	perl -e '$SIG{INT} = "IGNORE"; setpgrp(0, 0); exec @ARGV or die "exec: $!"' \
		"$T/bin/sim-flow" -o "$out" --launch-count=3 -- "$ops/bin/op_rt" -s add -r 3 >"$T/log" 2>&1 &
	pid=$!
	read -r -t 300 x <>"$T/ready"  # (the limit guards against a hang only)
	kill -INT -- "-$pid"
	echo go 1<>"$T/go"
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/log")
	echo "$output"
	[ "$status" -eq 130 ]
	r=$(rundir)
	jq -e '.interrupted == true and .parse.interrupted == true' "$r/manifest.json"
	jq -e '.kernels | map(.parse) | .[0] == "ok" and .[2] == "missing"' "$r/manifest.json"
}

@test "Ctrl+C while the application runs: what was captured is parsed, the tree says interrupted, exit 130" {
	hold_app
	set -m
	sim-flow -o "$out" -- "$T/app" >"$T/log" 2>&1 &
	pid=$!
	set +m
	read -r -t 300 x <>"$T/ready"  # (the limit guards against a hang only)
	kill -INT -- "-$pid"
	echo go 1<>"$T/go"
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/log")
	[ "$status" -eq 130 ]
	[[ $output == *"interrupted during the capture"* ]]
	r=$(rundir)
	jq -e '.interrupted == true and .parse.interrupted == false and .kernels[0].parse == "ok"' "$r/manifest.json"
	jq -e '.traceEvents | length > 10' "$r/simulator/trace.json" >/dev/null
}

# ---- --live --------------------------------------------------------------------

@test "--live: the code view and --report have the kernel's source lines" {
	run sim-flow -o "$out" --live --report=2 -- "$ops/bin/op_rt" -s matmul
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(wc -l < "$r/simulator/core0.cubecore0/core0.cubecore0_code_exe.csv")" -gt 3 ]
	grep -q 'matmul_custom.c:' "$r/simulator/core0.cubecore0/core0.cubecore0_code_exe.csv"
	[[ $output == *"top source lines"*"matmul/matmul_custom.c:"* ]]
	jq -e '[.traceEvents[] | select(.args.code? != null)] | length > 0' "$r/simulator/trace.json" >/dev/null
}

@test "--live and Ctrl+C: what was streamed is parsed and kept, marked interrupted, exit 130" {
	hold_app
	set -m
	sim-flow -o "$out" --live -- "$T/app" >"$T/log" 2>&1 &
	pid=$!
	set +m
	read -r -t 300 x <>"$T/ready"  # (the limit guards against a hang only)
	kill -INT -- "-$pid"
	echo go 1<>"$T/go"
	status=0
	wait "$pid" || status=$?
	output=$(cat "$T/log")
	[ "$status" -eq 130 ]
	[[ $output == *"interrupted during the live capture"* ]]
	r=$(rundir)
	jq -e '.interrupted == true and .kernels[0].parse == "interrupted" and .parse.interrupted_launches == 1' "$r/manifest.json"
	jq -e '.profilingType == "op" and (.traceEvents | map(select(.ph == "X")) | length) > 10' "$r/simulator/trace.json" >/dev/null
	[ -f "$r/simulator/trace.clean.json" ]
	[ -f "$r/dump/aicore_binary.o" ]
}

@test "--live and --timeout: the stream up to the timeout is kept, marked truncated, status 1" {
	run sim-flow -o "$out" --live --timeout=1s -- sh -c 'trap "" INT TERM; "$0"; trap - INT TERM; exec sleep 600' "$ops/bin/add_rt"
	[ "$status" -eq 1 ]
	[[ $output != *"failed"* ]]
	r=$(rundir)
	jq -e '.timed_out == true and .kernels[0].parse == "interrupted"' "$r/manifest.json"
	jq -e '(.traceEvents | map(select(.ph == "X")) | length) > 10' "$r/simulator/trace.json" >/dev/null
	[ -f "$r/simulator/trace.clean.json" ] && [ -f "$r/simulator/instr_metrics.json" ]
}

@test "--timeout (either spelling) in dump mode: passed to sim-capture, its status 1 passed back" {
	run sim-flow -q -o "$out" --timeout 1s -- sh -c 'trap "" INT TERM; "$0"; trap - INT TERM; exec sleep 600' "$ops/bin/add_rt"
	[ "$status" -eq 1 ]
	r=$(rundir)
	jq -e '.timed_out == true and .kernels[0].parse == "ok"' "$r/manifest.json"
	[ -f "$r/simulator/trace.json" ]
}

# ---- the tree ----------------------------------------------------------------------

@test "manifest.json and host_api.json name directories of the final tree" {
	run sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	jq -e '.kernels[0].dir == "dump" and .kernels[0].simulator == "simulator"' "$r/manifest.json"
	jq -e '[.traceEvents[] | select(.cat == "launch")][0].args.dir == "dump"' "$r/host_api.json"
	rm -rf "${out:?}"/*
	run sim-flow -q -o "$out" --launch-count=2 -- "$ops/bin/op_rt" -s add -r 2
	[ "$status" -eq 0 ]
	r=$(rundir)
	jq -e '.kernels | map(.dir) == ["add_custom/0/dump", "add_custom/1/dump"]' "$r/manifest.json"
	for d in $(jq -r '.kernels[] | .dir, .simulator' "$r/manifest.json"); do [ -d "$r/$d" ]; done
	jq -e '[.traceEvents[] | select(.cat == "launch") | .args.dir] == ["add_custom/0/dump", "add_custom/1/dump"]' "$r/host_api.json"
	! grep -q 'sim-flow\.' "$r/manifest.json" "$r/host_api.json"
}

@test "host_api.json: every event a complete slice with a category and an args object; zero events is valid" {
	run sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	jq -e '.traceEvents | length > 5 and all(.ph == "X" and (.cat | type) == "string" and (.args | type) == "object"
	       and .dur >= 0)' "$r/host_api.json"
	jq -e '.traceEvents | map(select(.name == "rtKernelLaunch"))[0].args | has("ret")' "$r/host_api.json"
	# key arguments as an object in the record: passed through as the args
	flow_copy
	cat > "$T/bin/rec-cat" <<'EOF'
#!/bin/sh
case $1 in --version) echo "rec-cat (optrace) 0.1.0"; exit 0 ;; esac
[ -n "${NO_EVENTS:-}" ] && exit 0
echo '{"kind":"api","pid":1,"tid":2,"begin_ns":1000,"end_ns":3000,"ret":0,"arg0":"0x40","arg1":null,"arg2":null,"name":"rtMalloc","args":{"size":64,"type":"hbm"}}'
EOF
	chmod +x "$T/bin/rec-cat"
	rm -rf "${out:?}"/*
	run "$T/bin/sim-flow" -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	jq -e '.traceEvents == [{"name": "rtMalloc", "cat": "api", "ph": "X", "pid": 1, "tid": 2, "ts": 1, "dur": 2,
	       "args": {"ret": 0, "arg0": "0x40", "size": 64, "type": "hbm"}}]' "$(rundir)/host_api.json"
	# a capture.rec with no api or launch record
	rm -rf "${out:?}"/*
	NO_EVENTS=1 run "$T/bin/sim-flow" -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	jq -e '.traceEvents == [] and .displayTimeUnit == "ns"' "$(rundir)/host_api.json"
}

@test "every simulator tree has trace.clean.json and instr_metrics.json; Perfetto users are sent to it" {
	run sim-flow -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	jq -e '.traceEvents | length > 10' "$r/simulator/trace.clean.json" >/dev/null
	jq -e . "$r/simulator/instr_metrics.json" >/dev/null
	[[ $output == *"$r/simulator/trace.clean.json in https://ui.perfetto.dev or chrome://tracing"* ]]
	[[ $output == *"$r/simulator/trace.json in MindStudio Insight"* ]]
	rm -rf "${out:?}"/*
	run sim-flow -q -o "$out" --live -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -f "$r/simulator/trace.clean.json" ] && [ -f "$r/simulator/instr_metrics.json" ]
}

# ---- everyday ------------------------------------------------------------------------

@test "--version is optrace's, exit 0; -h" {
	run sim-flow --version
	[ "$status" -eq 0 ]
	[[ $output == "sim-flow (optrace) "[0-9]* ]]
	[ "${output#sim-flow }" = "$(rec-cat --version | sed 's/^rec-cat //')" ]
	run sim-flow -h
	[ "$status" -eq 0 ]
	[[ $output == *"usage: sim-flow"* ]]
}

@test "-q: no summary and no messages, only the application's own output" {
	run --separate-stderr sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	[ "$output" = "add_rt: 16384 elements on 2 blocks, 1 loops: ok" ]
	[ -z "$stderr" ]
}

@test "progress on a terminal's stderr (a pty from script), none on a pipe or with -q" {
	command -v script >/dev/null || skip "script (util-linux) is missing"
	printf '#!/bin/sh\nexec sim-flow "$@" >/dev/null\n' > "$T/tty-flow"
	chmod +x "$T/tty-flow"
	script -qec "$T/tty-flow -o $out --launch-count=2 -- $ops/bin/op_rt -s add -r 2" /dev/null > "$T/tty" </dev/null
	grep -q 'sim-flow: capturing: running .*op_rt in the simulator' "$T/tty"
	grep -q 'sim-flow: parsing add_custom/0 (1 of 2)' "$T/tty"
	run sim-flow -o "$out" -- "$ops/bin/add_rt"
	[[ $output != *"capturing"* ]]
	script -qec "$T/tty-flow -q -o $out -- $ops/bin/add_rt" /dev/null > "$T/tty" </dev/null
	! grep -q 'sim-flow:' "$T/tty"
}

@test "straight from the checkout: pipelines/sim-flow finds the tools make built; a missing tool is named" {
	[ -x "$top/build/bin/sim-capture" ] || skip "build/bin is not built"
	run env PATH=/usr/bin:/bin "$top/pipelines/sim-flow" -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	[ -f "$(rundir)/simulator/trace.json" ]
	flow_copy
	run env PATH=/usr/bin:/bin "$T/bin/sim-flow" -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 4 ]
	[[ $output == *"sim-capture is missing"* ]]
}

@test "GE_PROFILING_OPTIONS' output is the default directory; -o wins" {
	mkdir "$T/cwd"
	cd "$T/cwd"
	export GE_PROFILING_MODE=true GE_PROFILING_OPTIONS="{\"output\":\"$T/ge\",\"aic_metrics\":\"PipeUtilization\"}"
	run sim-flow -q -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	[ -f "$(rundir "$T/ge")/simulator/trace.json" ]
	[ -z "$(ls -A "$T/cwd")" ]
	run sim-flow -q -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	rundir "$out"
	[ "$(ls "$T/ge" | wc -l)" -eq 1 ]
}

# ---- pass-through options ----------------------------------------------------------------

@test "--aic-metrics goes to sim-capture: without PMSampling no MTE log" {
	run sim-flow -q -o "$out" --aic-metrics=PipeUtilization -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -z "$(ls "$r/dump" | grep mte_log)" ]
	[ -f "$r/simulator/trace.json" ]
}

@test "--aic-metrics, --core-id, --from, --to go to sim-export as arguments" {
	missing=
	for o in --aic-metrics --core-id --from --to; do
		export_takes "$o" || missing="$missing $o"
	done
	[ -z "$missing" ] || skip "sim-export does not take$missing yet"
	flow_copy
	cat > "$T/bin/sim-export" <<EOF
#!/bin/sh
case \$1 in --help) exec "$(command -v sim-export)" --help ;; esac
printf '[%s]\n' "\$@" > "$T/export.args"
exec "$(command -v sim-export)" "\$@"
EOF
	chmod +x "$T/bin/sim-export"
	run "$T/bin/sim-flow" -q -o "$out" --core-id=0 --from=0.1 --to=0.5 --aic-metrics=PipeUtilization,PMSampling \
		-- "$ops/bin/op_rt" -s mixed
	[ "$status" -eq 0 ]
	grep -qx '\[--core-id=0\]' "$T/export.args"
	grep -qx '\[--from=0.1\]' "$T/export.args"
	grep -qx '\[--to=0.5\]' "$T/export.args"
	grep -qx '\[--aic-metrics=PipeUtilization,PMSampling\]' "$T/export.args"
}

@test "--from/--to with --live narrow the timeline" {
	run sim-flow -q -o "$out" --live -- "$ops/bin/add_rt"
	all=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$(rundir)/simulator/trace.json")
	rm -rf "${out:?}"/*
	run sim-flow -q -o "$out" --live --from=0 --to=0.2 -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	some=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$(rundir)/simulator/trace.json")
	[ "$some" -gt 0 ] && [ "$some" -lt "$all" ]
}

# ---- big traces --------------------------------------------------------------------------

@test "a trace over the size limit: what sim-export wrote is kept, the advice names sim-flow's options" {
	flow_copy
	cat > "$T/bin/sim-export" <<EOF
#!/bin/sh
# as sim-export does when timeline-emit stops at its size limit
case \$1 in --help) exec "$(command -v sim-export)" --help ;; esac
"$(command -v sim-export)" "\$@" || exit
echo "timeline-emit: a trace.json would be larger than 1 GiB (--max-size): what fits is written" >&2
exit 1
EOF
	chmod +x "$T/bin/sim-export"
	run "$T/bin/sim-flow" -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 1 ]
	[[ $output != *"nothing written"* ]] && [[ $output != *"parsing failed"* ]]
	[[ $output == *"--core-id=LIST"*"--from=US --to=US"*"--force"* ]]
	r=$(rundir)
	[ -f "$r/simulator/trace.json" ]
	jq -e '.kernels[0].parse == "problems"' "$r/manifest.json"
	# the options named exist
	run sim-flow --help
	for o in --core-id --from --to --force; do [[ $output == *"$o"* ]]; done
}
