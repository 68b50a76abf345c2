#!/usr/bin/env bats
# sim-export when things go wrong: every stage's status counts, the exit
# status follows the table (0 ok; 1 problems, tree written; 2 usage; 3 input
# unusable, nothing written; 4 I/O or system error; 130 interrupted), and
# what was parsed is kept, marked, when the run cannot finish.

bats_require_minimum_version 1.5.0
load sim-export-lib
load waits

setup() {
	se_setup
	cd "$tmp" || return 1
}

# Whatever a failed test left waiting on its fifo is let go, and its
# process group ended, so that no process outlives the test (bats waits for
# every process holding its output).
teardown() {
	if [ -p "$tmp/block" ]; then
		exec 9<>"$tmp/block"
		echo go >&9
		exec 9>&-
	fi
	[ -z "${pid-}" ] || kill -KILL -- -"$pid" 2>/dev/null || true
}

@test "a dump file that cannot be read (EIO) counts: exit 1, the message, the tree marked" {
	need_fault
	mkdir out
	run --separate-stderr inject FAULT_OP=read FAULT_ERRNO=EIO FAULT_PATH=core0.veccore1.instr_log \
		sim-export -q -o out "$data/910B"
	[ "$status" -eq 1 ] || { echo "status $status: $stderr"; return 1; }
	[[ "$stderr" == *"core0.veccore1.instr_log.dump: read error: Input/output error"* ]]
	the_tree out
	jq -e '.exit_status == 1 and (.cores["core0.veccore1"] | startswith("parsed with problems (dump-split"))' "$tree/manifest.json"
	jq -e '.traceEvents | length > 0' "$tree/simulator/trace.json" >/dev/null
}

@test "a dump file that cannot be opened (EACCES, as chmod 000 for a user) counts" {
	need_fault
	mkdir out
	run --separate-stderr inject FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=core0.veccore0.instr_log \
		sim-export -q -o out "$data/910B"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"core0.veccore0.instr_log.dump: cannot open: Permission denied"* ]]
	the_tree out
}

@test "the MTE pipeline counts too" {
	need_fault
	mkdir d
	cp "$data"/910B/* d/
	for i in 1 2 3 4 5 6 7 8; do
		printf '[info] %d: BRIF send_req, addr: 0x10f74400, size: 256, tag_id: 4, instr_id: %d, req_id: %d\n' $((19000 + i * 300)) $i $((5000 + i))
		printf '[info] %d: BRIF recv_rsp, uop_cnt: 1, tnx_id: 0, tag_id: 4, instr_id: %d, req_id: %d\n' $((19100 + i * 300)) $i $((5000 + i))
	done > d/core0.mte_log.dump
	mkdir out
	run --separate-stderr inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=mte.rec \
		sim-export -q -o out d
	[ "$status" -eq 4 ] || { echo "status $status: $stderr"; return 1; }
	[[ "$stderr" == *"No space left on device"* ]]
	[[ "$stderr" == *"MTE logs could not be parsed"* ]]
	the_tree out
	jq -e '.mte == "failed" and .complete == false' "$tree/manifest.json"
}

@test "a tool's status 4 is sim-export's 4: a core's records cannot be written" {
	need_fault
	mkdir out
	run --separate-stderr inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=core0.veccore1.rec \
		sim-export -q -o out "$data/910B"
	[ "$status" -eq 4 ] || { echo "status $status: $stderr"; return 1; }
	[[ "$stderr" == *"core0.veccore1: not parsed (scalar-merge exited 4"* ]]
	[[ "$stderr" != *"nothing written"* ]]
	the_tree out
	# the other core is there; the manifest names the missing one
	jq -e '.complete == false and .missing == ["core0.veccore1"]' "$tree/manifest.json"
	[ -f "$tree/simulator/core0.veccore0/trace.json" ]
	[ ! -e "$tree/simulator/core0.veccore1" ]
	[[ "$stderr" == *"missing cores: core0.veccore1"* ]]
}

@test "ENOSPC in timeline-emit: exit 4, the parsed cores kept, not \"output produced\"" {
	need_fault
	mkdir out
	run --separate-stderr inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=trace.json \
		sim-export -q -o out "$data/910B"
	[ "$status" -eq 4 ] || { echo "status $status: $stderr"; return 1; }
	[[ "$stderr" == *"timeline-emit failed"* ]]
	the_tree out
	jq -e '.complete == false and .simulator == "failed" and .exit_status == 4' "$tree/manifest.json"
	# what was parsed can be drawn later
	[ "$(ls "$tree"/records/*.rec | wc -l)" -eq 2 ]
	timeline-emit -q -o again "$tree"/records/*.rec
	[ -f again/trace.json ]
}

@test "an output directory that cannot be written: exit 4, nothing written; messages end without a number" {
	run --separate-stderr sim-export -q -o /proc/optrace-no-such/out "$data/910B"
	[ "$status" -eq 4 ]
	[[ "$stderr" == "sim-export: /proc/optrace-no-such/out: cannot create the output directory: nothing written" ]]
	run --separate-stderr sim-export -q -o /proc "$data/910B"
	[ "$status" -eq 4 ]
	[[ "$stderr" == "sim-export: /proc: cannot write in the output directory: nothing written" ]]
	run --separate-stderr sim-export -q -o out "$tmp/missing"
	[ "$status" -eq 3 ]
	[ "$stderr" = "sim-export: $tmp/missing: not a directory" ]
	mkdir empty
	run --separate-stderr sim-export -q -o out empty
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"nothing written" ]]
	[ -z "$(ls -A out)" ]
	touch afile
	run --separate-stderr sim-export -q -o afile "$data/910B"
	[ "$status" -eq 2 ]
	[ "$stderr" = "sim-export: afile: not a directory" ]
}

@test "trace-clean failing is reported and counted; the rest of the tree holds" {
	need_fault
	mkdir out
	run --separate-stderr inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=trace.clean.json \
		sim-export -q -o out "$data/910B"
	[ "$status" -eq 4 ] || { echo "status $status: $stderr"; return 1; }
	[[ "$stderr" == *"trace-clean failed"* ]]
	the_tree out
	[ ! -e "$tree/simulator/trace.clean.json" ]
	jq -e '.traceEvents | length > 0' "$tree/simulator/trace.json" >/dev/null
	jq -e '.trace_clean == "failed" and .simulator == "written"' "$tree/manifest.json"
}

# interrupted_run INT: sim-export in its own process group, as a shell
# gives a foreground job, with SIGINT at INT (DEFAULT, or IGNORE as a
# script gives a background job); dump-split blocks on the second core until
# Ctrl+C (the signal to the whole group) comes.  Then what was parsed is
# kept, marked, and the exit status is 130.
interrupted_run() {
	mkfifo "$tmp/ready" "$tmp/block"
	export FAKE_READY=$tmp/ready FAKE_BLOCK=$tmp/block
	fake_tool dump-split '
for a; do
	case $a in --core=core0.veccore1) echo ready >"$FAKE_READY"; read x <"$FAKE_BLOCK"; exit 9 ;; esac
done
exec "$FAKE_REAL/dump-split" "$@"'
	exec 8<>"$tmp/ready"
	mkdir out
	SIGINT_AT=$1 perl -e '$SIG{INT} = $ENV{SIGINT_AT}; setpgrp(0, 0); exec @ARGV or die "exec: $!"' \
		sim-export -j 1 -o out "$data/910B" >"$tmp/stdout" 2>"$tmp/stderr" &
	pid=$!
	# (the time limit only guards against a hang; the order is the fifo's)
	read -r -t 300 -u 8 line
	[ "$line" = ready ]
	kill -INT -- -"$pid"
	# (a guard against a hang only: a run still going 300 s after the
	# signal is shown with its processes, then let go)
	k=0
	while alive "$pid" && [ "$k" -lt 6000 ]; do sleep 0.05; k=$((k + 1)); done
	if alive "$pid"; then
		echo "sim-export still runs 300 s after SIGINT:"
		ps -e -o pid,ppid,pgid,stat,args | grep -v ' ps -e' | tail -n 30
		exec 9<>"$tmp/block"
		echo go >&9
		exec 9>&-
	fi
	st=0
	wait "$pid" || st=$?
	cat "$tmp/stderr"
	[ "$st" -eq 130 ]
	the_tree out
	[ -z "$(ls -A out | grep -v '^OPPROF_')" ]
	jq -e '.interrupted == true and .complete == false and .exit_status == 130
		and .missing == ["core0.veccore1"] and .cores["core0.veccore0"] == "parsed"' "$tree/manifest.json"
	for f in "$data"/910B/*; do cmp "$f" "$tree/dump/${f##*/}"; done
	# the parsed core, whole
	rec-cat --count "$tree/records/core0.veccore0.rec" | grep -q '^trailer'
	[ ! -e "$tree/records/core0.veccore1.rec" ]
	grep -q "sim-export: interrupted: wrote $tree, marked interrupted in its manifest.json; missing cores: core0.veccore1" "$tmp/stderr"
}

@test "interrupted: the dumps and the cores already parsed are kept, marked; exit 130" {
	interrupted_run DEFAULT
}

@test "interrupted as a script's background job (SIGINT ignored at its start): the same" {
	interrupted_run IGNORE
}

@test "a trace over timeline-emit's size limit is split into traces that open, never \"nothing written\"; --force goes on" {
	# a timeline-emit with a tiny limit, logging its arguments
	fake_tool timeline-emit '
for a; do printf "%s\n" "$a"; done >>"$FAKE_LOG"
exec "$FAKE_REAL/timeline-emit" --max-size=100 "$@"'
	export FAKE_LOG=$tmp/args
	mkdir out
	run --separate-stderr sim-export -q -o out "$data/910B"
	[ "$status" -eq 0 ] || { echo "status $status: $stderr"; return 1; }
	! grep '^sim-export: .*nothing written' <<<"$stderr"
	the_tree out
	# the parts are listed and each is a whole trace
	grep -q 'written as [0-9]* traces instead' <<<"$stderr"
	ls "$tree"/simulator/trace.core0*.json > /dev/null
	for f in "$tree"/simulator/trace.core0*.json; do jq -e '.traceEvents | length > 0' "$f" > /dev/null; done
	[ ! -e "$tree/simulator/trace.json" ]
	rm -rf out
	run --separate-stderr sim-export -q --force -o out "$data/910B"
	grep -qx -- --force "$FAKE_LOG"
}
