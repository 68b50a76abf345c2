#!/usr/bin/env bats
# sim-capture and its preload library when the disk fails them: I/O errors
# injected with test/fault/fault.so (test/fault/README), in sim-capture
# itself (capture.rec) and in the application (the dumps a launch moves out
# of the simulator's log directory).  Whatever fails is named, the exit
# status is 4 and manifest.json says what is missing.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	app=$top/build/inject-test/inject-app
	cann=$top/build/inject-test/cann
	fault=$top/build/fault.so
	[ -x "$app" ] || skip "build/inject-test is not built (make inject-test)"
	[ -f "$fault" ] || skip "build/fault.so is not built"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset ASCEND_HOME_PATH OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

# faulty VAR=value... -- sim-capture args: sim-capture (and so the
# application it runs) under fault.so.  ASan builds want to be first in
# the library list; they work after it.
faulty() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	run env LD_PRELOAD="$fault" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"${vars[@]}" sim-capture --cann-root="$cann" -o "$out" "$@"
}

@test "capture.rec cannot be written (disk full): exit 4, its path and the error named, the manifest says so" {
	faulty FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=capture.rec -- -- "$app" -n 2 -k both
	[ "$status" -eq 4 ] || { echo "status $status: $output"; return 1; }
	r=$(rundir)
	[[ $output == *"sim-capture: $r/capture.rec: No space left on device"* ]]
	[[ $output != *"write failed"* ]]
	# nothing half-written under the name or a temporary one
	[ ! -e "$r/capture.rec" ]
	[ -z "$(ls "$r" | grep capture.rec)" ]
	jq -e '.records_complete == false and (.records_error | test("No space left on device"))' "$r/manifest.json"
	# the launches themselves are kept
	jq -e '.kernels[0].name == "add_custom" and .kernels[0].dumps_complete' "$r/manifest.json"
	[ -s "$r/device0/add_custom/0/dump/core0.veccore0.instr_log.dump" ]
}

@test "capture.rec written: the manifest says the records are complete" {
	run sim-capture --cann-root="$cann" -o "$out" -- "$app"
	[ "$status" -eq 0 ]
	jq -e '.records_complete == true and (has("records_error") | not)
	       and .kernels[0].dumps_complete == true and .kernels[0].not_saved == []' "$(rundir)/manifest.json"
}

@test "a dump the application cannot save (disk full): exit 4, the launch and the file named in the manifest" {
	# Only the copy into the launch directory fails, not the simulator's
	# own file in tmp_dump.
	faulty FAULT_OP=open FAULT_ERRNO=ENOSPC FAULT_PATH=/0/dump/core0.veccore0.instr_log.dump -- -- "$app" -n 1
	[ "$status" -eq 4 ] || { echo "status $status: $output"; return 1; }
	r=$(rundir)
	d=$r/device0/add_custom/0/dump
	[[ $output == *"sim-capture: $d/core0.veccore0.instr_log.dump: dump not saved: No space left on device"* ]]
	[ ! -e "$d/core0.veccore0.instr_log.dump" ]
	[ -s "$d/core0.veccore0.instr_popped_log.dump" ]
	jq -e '.kernels | length == 1' "$r/manifest.json"
	jq -e '.kernels[0] | .name == "add_custom" and .n == 0 and .dumps_complete == false
	       and .not_saved == [{"file": "core0.veccore0.instr_log.dump", "error": "No space left on device"}]' "$r/manifest.json"
	jq -e '.dumps_complete == false' "$r/manifest.json"
	# the record of it is in capture.rec too, as a diag record
	rec-cat --json "$r/capture.rec" | jq -e -s 'map(select(.kind == "diag")) | length == 1 and
	    (.[0] | .tool == "optrace-inject" and .file == "device0/add_custom/0/dump/core0.veccore0.instr_log.dump")'
}

@test "a dump not saved in the second of two captured launches: only that launch is marked" {
	# FAULT_AFTER: the first open of a matching path (launch 0) passes.
	faulty FAULT_OP=open FAULT_ERRNO=ENOSPC FAULT_AFTER=1 FAULT_PATH=/dump/core0.veccore0.instr_popped_log.dump \
		-- --launch-count=2 -- "$app" -n 2
	[ "$status" -eq 4 ] || { echo "status $status: $output"; return 1; }
	r=$(rundir)
	jq -e '[.kernels[] | {n, dumps_complete}] | sort_by(.n) ==
	       [{"n": 0, "dumps_complete": true}, {"n": 1, "dumps_complete": false}]' "$r/manifest.json"
	jq -e '.kernels[] | select(.n == 1) | .not_saved[0].file == "core0.veccore0.instr_popped_log.dump"' "$r/manifest.json"
}
