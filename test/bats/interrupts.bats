#!/usr/bin/env bats
# Ctrl+C at many moments of every recipe and of a tool pipeline: whatever
# the moment, the run exits 0 (the signal came after its last step) or 130,
# every output it leaves is valid and says it is incomplete, nothing
# captured is lost, and no work file is left behind.
#
# The moments are chosen, not timed: fault.so (test/fault/README) sends
# SIGINT to the run's job (the process group of its session's leader), as a
# terminal does, at the (k+1)-th
# read, write, open or close (on a chosen kind of file) of the first of its
# processes to get there (FAULT_SIGNAL, FAULT_ONCE, FAULT_PATH).  The trials' (call, k) come from a fixed seed,
# so each trial is the same on every run and a failing one is replayed by the
# settings it prints.

bats_require_minimum_version 1.5.0

setup_file() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	export TOP=$(cd "$top" && pwd)
	export FAULT_SO=$TOP/build/fault.so
}

setup() {
	[ -f "$FAULT_SO" ] || skip "build/fault.so is missing (make build/fault.so)"
	command -v setsid >/dev/null || skip "no setsid"
	command -v python3 >/dev/null || skip "no python3 to check the JSON outputs"
	T=$BATS_TEST_TMPDIR
	DATA=$TOP/test/data
}

# moments SEED N MAX [PATHS]: N lines "CALL K PATH SIG", the same for a seed on
# every machine (a Lehmer generator in exact integer steps): K spread over
# 0..MAX-1, small ones more often, where the short runs here have most of
# their calls; PATH one of the words of PATHS ("-": calls on any file), the
# files whose calls count (fault.so's FAULT_PATH: "stdin" and "stdout" are
# the pipes between the stages, read and written); SIG is INT, every third
# TERM.
moments() {
	awk -v x="$1" -v n="$2" -v max="$3" -v paths="${4:--}" 'BEGIN {
		split("read write open close", calls)
		np = split(paths, path)
		for (i = 0; i < n; i++) {
			x = (x * 48271) % 2147483647; c = calls[1 + x % 4]
			x = (x * 48271) % 2147483647; a = x % max
			x = (x * 48271) % 2147483647; b = x % max
			x = (x * 48271) % 2147483647; p = path[1 + x % np]
			if (p == "stdin") c = "read"
			if (p == "stdout") c = "write"
			print c, int(a * b / max), p, i % 3 == 2 ? "TERM" : "INT"
		} }'
}

# interrupt CALL K PATH CMD...: CMD in a session of its own, with SIGINT at
# its default (a test runner may have started with it ignored, as a
# script's background job does), SIGINT to its job at the (K+1)-th CALL on
# a file matching PATH ("-": any) of its first process to get there; st:
# its exit status, $T/log: what it said.
interrupt() {
	local call=$1 k=$2 path=$3
	shift 3
	[ "$path" != - ] || path=
	rm -f "$T/once"
	st=0
	env LD_PRELOAD="$FAULT_SO" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		FAULT_OP="$call" FAULT_PATH="$path" FAULT_SIGNAL="${sig:-INT}" FAULT_SIGNAL_TO=job FAULT_AFTER="$k" \
		FAULT_ONCE="$T/once" env --default-signal=INT setsid -w "$@" >"$T/log" 2>&1 </dev/null || st=$?
	trial="SIG${sig:-INT} at $call #$((k + 1))${path:+ on $path}"
}

# standin RECIPE NEEDED...: the stand-in CANN root (simulator and device)
# and its samples for RECIPE, or skip; ops: the samples' bin.
standin() {
	local recipe=$1 f
	shift
	for f in "$@"; do
		[ -e "$f" ] || skip "the stand-in CANN root or its samples are not built ($f)"
	done
	command -v "$recipe" >/dev/null || skip "$recipe is not built"
	ops=$TOP/build/ops
	export ASCEND_HOME_PATH=$TOP/build/cann
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
}

bad() {
	printf '%s\n' "trial: $trial: $*" "--- exit status: $st" "--- output:" >&2
	cat "$T/log" >&2
	return 1
}

# json_ok FILE...: each parses as JSON.
json_ok() {
	python3 -c 'import json, sys
for f in sys.argv[1:]:
    json.load(open(f, "rb"))' "$@"
}

# tree_jsons DIR: the JSON files under DIR.
tree_jsons() { find "$1" -type f \( -name '*.json' \) -print; }

# Files of a tree, as paths under it, without the manifest (its times and
# stamps differ between runs).
listing() { (cd "$1" && find . -type f ! -name manifest.json | LC_ALL=C sort); }

# whole_run: the run that was not stopped made the tree under $T/o with the
# files of the reference's ($ref).
whole_run() {
	run=$(echo "$T"/o/OPPROF_*)
	[ "$(listing "$run")" = "$(listing "$ref")" ] || bad "a whole run with other files than the reference's"
}

@test "sim-export interrupted at 32 moments: a marked tree with whole cores, or nothing; the dump untouched" {
	cp -r "$DATA/910B" "$T/dump"
	sim-export -q -o "$T/ref" "$T/dump" >/dev/null 2>&1
	ref=$(echo "$T"/ref/OPPROF_*)
	[ -d "$ref" ]
	seen130=0
	while read -r call k path sig; do
		rm -rf "$T/o"
		interrupt "$call" "$k" "$path" sim-export -o "$T/o" "$T/dump"
		diff -r "$DATA/910B" "$T/dump" >/dev/null || bad "the input dump changed"
		case $st in
		0) whole_run ;;
		130)
			seen130=$((seen130 + 1))
			set -- "$T"/o/OPPROF_*
			if [ -d "$1" ]; then
				run=$1
				grep -q 'interrupted' "$T/log" || bad "no word of the interrupt"

				json_ok $(tree_jsons "$run") || bad "a JSON output that does not parse"
				grep -q '"interrupted": *true' "$run/manifest.json" || bad "the manifest does not say interrupted"
				diff -r "$DATA/910B" "$run/dump" >/dev/null || bad "the tree's copy of the dump differs"
				case $(jq -r .simulator "$run/manifest.json") in
				interrupted*)
					# timeline-emit was stopped: its views are cut
					# and say so; the records stay, to draw them again.
					[ -n "$(ls "$run"/records/*.rec 2>/dev/null)" ] || bad "views cut, and no records kept"
					for t in "$run"/simulator/trace.json "$run"/simulator/core*/trace.json; do
						[ -f "$t" ] || continue
						cmp -s "$t" "$ref/${t#"$run"/}" || grep -q TRUNCATED "$t" ||
							bad "${t#"$run"/}: cut, and not marked TRUNCATED"
					done
					;;
				*)
					# A core kept is whole: its files are the reference's.
					for c in "$run"/simulator/core*/; do
						[ -d "$c" ] || continue
						diff -r "$c" "$ref/simulator/$(basename "$c")" >/dev/null ||
							bad "core $(basename "$c") kept cut short"
					done
					;;
				esac
			elif [ -s "$T/log" ]; then
				grep -q 'nothing written' "$T/log" || bad "no tree, and no word of it"
			else
				# Stopped before the work began, at a moment the
				# shell runs with SIGINT at its default (around a
				# command substitution): silent, and nothing made.
				[ -z "$(ls -A "$T/o" 2>/dev/null)" ] || bad "a silent stop that left $(ls -A "$T/o")"
			fi
			;;
		*) bad "exit status $st" ;;
		esac
		# No work directory or temporary file is left.
		[ -z "$(find "$T/o" -name '.*' 2>/dev/null)" ] || bad "work files left: $(find "$T/o" -name '.*')"
	done < <(moments 11 32 256 "- 910B stdin stdout records simulator")
	echo "# $seen130 of 32 trials interrupted" >&3
	[ "$seen130" -ge 8 ]
}

@test "a tool pipeline interrupted at 24 moments: its trace is whole, or says it is cut and timeline-emit exits non-zero" {
	dump=$DATA/910B
	# The pipeline, each stage's status into the file $3 (the file names
	# are arguments, never code).
	cat > "$T/pipe.sh" <<-'EOF'
		trap : INT TERM
		dump-split -q "$1" | instr-parse -q | icache-merge -q | scalar-merge -q | timeline-emit -q -o "$2"
		printf '%s\n' "${PIPESTATUS[@]}" > "$3"
	EOF
	bash "$T/pipe.sh" "$dump" "$T/ref" "$T/st" >/dev/null 2>&1
	[ -f "$T/ref/trace.json" ]
	seen130=0
	while read -r call k path sig; do
		rm -rf "$T/emit" "$T/st"
		# The shell that keeps the statuses outlives the signal (its
		# trap is set before the stages touch a file that counts).
		interrupt "$call" "$k" "$path" bash "$T/pipe.sh" "$dump" "$T/emit" "$T/st"
		[ -s "$T/st" ] || bad "the pipeline did not finish"
		statuses=$(tr '\n' ' ' < "$T/st")
		# A stage exits 0, 130 (interrupted; or killed by SIGINT, 143
		# by SIGTERM, before it had set its handler) or 1 (its input was
		# cut short: a stage upstream stopped; a signal that came between
		# fork and exec was lost with the old image).
		if [ "$statuses" != "${statuses% 3 }" ]; then
			# Stages upstream stopped before they had begun (killed:
			# no header): timeline-emit read nothing and said so.
			grep -q 'no records' "$T/log" && [ ! -e "$T/emit" ] || bad "an empty input, yet something written"
			seen130=$((seen130 + 1))
			continue
		fi
		for s in $statuses; do
			case $s in 0|1|130|143) ;; *) bad "a stage exited $s ($statuses)" ;; esac
		done
		if [ "$statuses" = "0 0 0 0 0 " ]; then
			diff -r "$T/ref" "$T/emit" >/dev/null || bad "a whole run whose outputs differ from the reference's"
			continue
		fi
		seen130=$((seen130 + 1))
		if [ -d "$T/emit" ]; then
			json_ok $(tree_jsons "$T/emit") || bad "a JSON output that does not parse"
			if ! diff -r "$T/ref" "$T/emit" >/dev/null; then
				# Cut: the trace says so, and so does the exit status.
				grep -q 'TRUNCATED' "$T/emit/trace.json" || bad "a cut trace.json not marked TRUNCATED"
				last=$(printf '%s\n' "$statuses" | awk '{ print $NF }')
				[ "$last" != 0 ] || bad "timeline-emit exited 0 with a cut trace"
			fi
		fi
		[ -z "$(find "$T/emit" -name '.*' 2>/dev/null)" ] || bad "temporary files left"
	done < <(moments 23 24 24 "910B stdin stdout emit")
	echo "# $seen130 of 24 trials interrupted" >&3
	[ "$seen130" -ge 8 ]
}

@test "board-export interrupted at 24 moments: the whole tree or nothing moved into place" {
	board-export -q -o "$T/ref" "$DATA/board910B" >/dev/null 2>&1
	ref=$(echo "$T"/ref/OPPROF_*)
	[ -d "$ref" ]
	cp -r "$DATA/board910B" "$T/in"
	seen130=0
	while read -r call k path sig; do
		rm -rf "$T/o"
		mkdir "$T/o"
		interrupt "$call" "$k" "$path" board-export -o "$T/o" "$T/in"
		diff -r "$DATA/board910B" "$T/in" >/dev/null || bad "the input dump changed"
		case $st in
		0) whole_run ;;
		130)
			seen130=$((seen130 + 1))
			[ -z "$(ls -A "$T/o")" ] || bad "an interrupted run moved something into place: $(ls -A "$T/o")"
			;;
		*) bad "exit status $st" ;;
		esac
	done < <(moments 37 24 48 "- in/dump stdin stdout")
	echo "# $seen130 of 24 trials interrupted" >&3
	[ "$seen130" -ge 5 ]
}

@test "sim-flow interrupted at 12 moments: what was captured is kept and parsed, the tree says interrupted" {
	standin sim-flow "$TOP/build/cann/tools/simulator" "$TOP/build/ops/bin/add_rt"
	seen130=0
	while read -r call k path sig; do
		rm -rf "$T/o"
		mkdir "$T/o"
		interrupt "$call" "$k" "$path" sim-flow -o "$T/o" -- "$ops/bin/add_rt"
		case $st in 0|130) ;; *) bad "exit status $st" ;; esac
		[ -z "$(find "$T/o" -maxdepth 1 -name '.*')" ] || bad "a work directory left: $(ls -A "$T/o")"
		set -- "$T"/o/OPPROF_*
		if [ ! -d "$1" ]; then
			[ "$st" = 130 ] || bad "no tree after a whole run"
			seen130=$((seen130 + 1))
			continue
		fi
		run=$1
		json_ok $(tree_jsons "$run") || bad "a JSON output that does not parse"
		if [ "$st" = 130 ]; then
			seen130=$((seen130 + 1))
			grep -q '"interrupted": *true' "$run/manifest.json" || bad "the manifest does not say interrupted"
		fi
		# Every launch the manifest names has its dump, and one whose
		# dump is complete was parsed (in part only after an interrupt).
		python3 - "$run" "$st" <<-'EOF' || bad "a captured launch lost"
			import json, os, sys
			run, st = sys.argv[1], sys.argv[2]
			m = json.load(open(os.path.join(run, "manifest.json")))
			for k in m.get("kernels", []):
			    found = [r for r, ds, fs in os.walk(run) if os.path.basename(r) == k.get("dir", "dump") and fs]
			    assert found, "no dump files for %s" % k["name"]
			    if st == "0":
			        assert k.get("parse") == "ok", k
			    else:
			        assert k.get("parse") in ("ok", "problems", "interrupted", "missing", "failed"), k
		EOF
	done < <(moments 53 12 256 "- add_rt dump stdout")
	echo "# $seen130 of 12 trials interrupted" >&3
	[ "$seen130" -ge 3 ]
}

@test "board-flow interrupted at 16 moments: no work directory left, every tree's JSON valid and its captured dumps kept" {
	standin board-flow "$TOP/build/cann/lib64/libruntime.so" "$TOP/build/ops/bin/op_acl"
	seen130=0
	while read -r call k path sig; do
		rm -rf "$T/o"
		mkdir "$T/o"
		interrupt "$call" "$k" "$path" board-flow -o "$T/o" -- "$ops/bin/op_acl" -s add
		case $st in
		0) [ -n "$(ls "$T"/o/OPPROF_*/device0/*/0/OpBasicInfo.csv 2>/dev/null)" ] || bad "a whole run without its CSVs" ;;
		130) seen130=$((seen130 + 1)) ;;
		*) bad "exit status $st" ;;
		esac
		[ -z "$(find "$T/o" -maxdepth 1 -name '.*')" ] || bad "a work directory left: $(ls -A "$T/o")"
		for run in "$T"/o/OPPROF_*; do
			[ -d "$run" ] || continue
			json_ok $(tree_jsons "$run") || bad "a JSON output that does not parse"
			# a launch's CSVs are whole or absent: OpBasicInfo.csv
			# has its header and one row
			for b in "$run"/device0/*/*/OpBasicInfo.csv; do
				[ -f "$b" ] || continue
				[ "$(wc -l < "$b")" -eq 2 ] || bad "$b: cut short"
			done
		done
	done < <(moments 71 16 64 "- dump stdout")
	echo "# $seen130 of 16 trials interrupted" >&3
	[ "$seen130" -ge 3 ]
}

@test "batch.mk interrupted at 12 moments: make again finishes the trees, the same as a run never stopped" {
	command -v make >/dev/null || skip "no make"
	mkdir -p "$T/runs/a" "$T/runs/b"
	cp "$DATA"/910B/* "$T/runs/a/"
	cp "$DATA"/910B/* "$T/runs/b/"
	cd "$T"
	make -s -f "$TOP/pipelines/batch.mk" DUMPS='runs/*' OUT=ref >/dev/null 2>&1
	[ -f ref/runs_a/.done ] && [ -f ref/runs_b/.done ]
	seen=0
	while read -r call k path sig; do
		rm -rf out
		interrupt "$call" "$k" "$path" make -s -f "$TOP/pipelines/batch.mk" DUMPS='runs/*' OUT=out
		[ "$st" = 0 ] || seen=$((seen + 1))
		# again, not stopped: everything there, as if never stopped
		run make -s -f "$TOP/pipelines/batch.mk" DUMPS='runs/*' OUT=out
		[ "$status" -eq 0 ] || bad "make again: exit $status: $output"
		for n in runs_a runs_b; do
			[ "$(listing out/$n/OPPROF_*)" = "$(listing ref/$n/OPPROF_*)" ] || bad "out/$n differs from an unstopped run's"
		done
		[ -z "$(ls -A out | grep -v '^runs_[ab]$')" ] || bad "left in out: $(ls -A out)"
		diff -r "$DATA/910B" runs/a >/dev/null && diff -r "$DATA/910B" runs/b >/dev/null || bad "a dump changed"
	done < <(moments 83 12 64 "- runs stdout")
	echo "# $seen of 12 trials interrupted" >&3
	[ "$seen" -ge 3 ]
}
