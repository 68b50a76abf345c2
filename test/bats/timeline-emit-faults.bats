#!/usr/bin/env bats
# timeline-emit -o DIR writes a set of files (trace.json, per-core traces,
# CSVs, visualize_data.bin): all of them or none.  Errors are injected with
# test/fault/fault.so (see test/fault/README) on one file of the set; then
# the run exits 4 with one message naming the file, DIR holds nothing of the
# new run (no temporary either), an older set there is byte for byte as it
# was, and a DIR that did not exist still does not.

bats_require_minimum_version 1.5.0

setup_file() {
	export FAULT_SO="$BATS_TEST_DIRNAME/../../build/fault.so"
	unset OPTRACE_FORMAT
	data="$BATS_TEST_DIRNAME/../data"
	dump-split "$data/910B" 2>/dev/null | instr-parse 2>/dev/null > "$BATS_FILE_TMPDIR/910B.rec"
	dump-split "$data/A5" 2>/dev/null | instr-parse --soc-version=Ascend950PR_9599 2>/dev/null > "$BATS_FILE_TMPDIR/A5.rec"
}

setup() {
	[ -f "$FAULT_SO" ] || skip "build/fault.so is missing: build it from test/fault/fault.c (test/fault/README)"
	unset OPTRACE_FORMAT
	R=$BATS_FILE_TMPDIR
	# A directory of its own: bats keeps its own files in the test's.
	T=$BATS_TEST_TMPDIR/w
	mkdir -p "$T"
	cd "$T"
}

inject() {
	env LD_PRELOAD="$FAULT_SO" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

# fails_whole NAMED FAULTS...: timeline-emit -o out over the A5 sample
# under FAULTS, once with no out, once over the 910B sample's set.
fails_whole() {
	local named=$1 n
	shift
	rm -rf out old
	run --separate-stderr inject "$@" timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 4 ] || { echo "fresh: status $status: $stderr" >&2; return 1; }
	[ ! -e out ] || { echo "fresh: out was made:" >&2; find out >&2; return 1; }
	[ -z "$(ls -A)" ] || { echo "fresh: left behind:" >&2; ls -A >&2; return 1; }
	n=$(grep -c "^timeline-emit: $named: " <<<"$stderr" || true)
	[ "$n" -eq 1 ] || { echo "fresh: want one message naming $named: $stderr" >&2; return 1; }
	! grep -q '\.tmp' <<<"$stderr" || { echo "a temporary name shown: $stderr" >&2; return 1; }

	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	cp -a out old
	run --separate-stderr inject "$@" timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 4 ] || { echo "existing: status $status: $stderr" >&2; return 1; }
	diff -r old out || { echo "existing: the older set was changed" >&2; return 1; }
	[ -z "$(find out -name '*tmp*')" ] || { echo "existing: left behind:" >&2; find out >&2; return 1; }
	n=$(grep -c "^timeline-emit: $named: " <<<"$stderr" || true)
	[ "$n" -eq 1 ] || { echo "existing: want one message naming $named: $stderr" >&2; return 1; }
}

@test "ENOSPC on a per-core trace: exit 4, nothing of the run visible, the older set intact" {
	fails_whole out/core0.veccore0 FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=core0.veccore0/trace.json
}

@test "EIO on visualize_data.bin: exit 4, nothing of the run visible, the older set intact" {
	fails_whole out/visualize_data.bin FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=visualize_data.bin
}

@test "ENOSPC on a CSV: exit 4, nothing of the run visible, the older set intact" {
	fails_whole out/core0.veccore0 FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=_instr_exe.csv
}

@test "fsync of the all-cores trace fails: exit 4, nothing of the run visible" {
	fails_whole out/trace.json FAULT_OP=fsync FAULT_ERRNO=EIO FAULT_PATH=/trace.json
}

@test "a rename fails while the set is moved in: the files already moved are taken back" {
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	cp -a out old
	# The older files are moved aside as .old.N: the third such move fails,
	# after two new files are in place.
	run --separate-stderr inject FAULT_OP=rename FAULT_PATH=.old. FAULT_AFTER=2 FAULT_COUNT=1 \
		timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 4 ]
	[[ "$stderr" == *"cannot move the outputs into place"* ]]
	diff -r old out
	[ -z "$(find out -name '*tmp*' -o -name '.old*')" ]
	# Without a fault the same run replaces the set.
	run timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 0 ]
	! diff -r -q old out > /dev/null
	[ -z "$(find out -name '*tmp*')" ]
}

@test "a file of the set cannot be created: exit 4, named as the user knows it, nothing made" {
	fails_whole out/trace.json FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=/trace.json.tmp
}

@test "an input with no record exits 3, one that cannot be read 4, and neither makes an -o directory" {
	: > empty.rec
	run timeline-emit -o out empty.rec
	[ "$status" -eq 3 ]
	[[ "$output" == *"empty.rec: no records"* ]]
	[ ! -e out ]
	echo 'not a record stream' > text.rec
	run timeline-emit -o out text.rec
	[ "$status" -eq 3 ]
	[[ "$output" == *"text.rec: not an optrace record stream"* ]]
	[ ! -e out ]
	# a read error (a directory): 4, as for every tool, one message
	run --separate-stderr timeline-emit -o out "$T"
	[ "$status" -eq 4 ]
	[ "$stderr" = "timeline-emit: $T: read error: Is a directory" ]
	[ ! -e out ]
	[ -z "$(ls -A | grep -v -e empty.rec -e text.rec)" ]
	# Over an older set: left alone.
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	cp -a out old
	run timeline-emit -o out empty.rec
	[ "$status" -eq 3 ]
	diff -r old out
}

# A record stream of NCORES sub-cores (more than the 32 per-core traces
# kept open), records interleaved, so that traces are flushed mid-run.
many_cores() { # ncores
	local c
	echo '{"kind":"header","version":2,"mhz":1850,"producer":"test","soc":"Ascend910B1","origin":"test"}'
	for ((c = 0; c < $1; c++)); do
		printf '{"kind":"instr","core":%s,"sub":"veccore","subidx":%s,"block":-1,"subblock":-1,"start":1000,"end":1005,"pc":"0x100","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":0,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null,"pipe":"VECTOR","name":"VADD","detail":"XD:X1=0x1,"}\n' \
			$((c / 2)) $((c % 2))
	done
	echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'
}

@test "a fatal error mid-run (a per-core trace flushed while reading): exit 4, no temporary file, no output" {
	many_cores 40 > many.jsonl
	mkdir in
	mv many.jsonl in/
	for fault in "FAULT_OP=write FAULT_ERRNO=ENOSPC" "FAULT_OP=open FAULT_ERRNO=EMFILE FAULT_AFTER=1"; do
		rm -rf out old
		# The first core's trace is the first closed to make room (its
		# write fails while reading), and reopened when drawn (its open).
		run --separate-stderr inject $fault FAULT_PATH=core0.veccore0/trace.json timeline-emit -o out in/many.jsonl
		[ "$status" -eq 4 ] || { echo "$fault: status $status: $stderr" >&2; false; }
		[[ "$stderr" == "timeline-emit: out/core0.veccore0/trace.json: cannot "* ]] || { echo "$stderr" >&2; false; }
		[ "$(ls -A)" = in ] || { echo "$fault: left behind:" >&2; ls -A >&2; false; }
		# Over an older set: as it was, nothing of the run in it.
		timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
		cp -a out old
		run --separate-stderr inject $fault FAULT_PATH=core0.veccore0/trace.json timeline-emit -o out in/many.jsonl
		[ "$status" -eq 4 ]
		diff -r old out
		[ -z "$(find out -name '*tmp*')" ]
	done
}
