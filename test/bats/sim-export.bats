#!/usr/bin/env bats
# pipelines/sim-export and pipelines/batch.mk as a user runs them.

bats_require_minimum_version 1.5.0
load sim-export-lib

setup() {
	se_setup
}

@test "sim-export makes the OPPROF tree for the 910B sample" {
	run sim-export -o "$tmp" "$data/910B"
	[ "$status" -eq 0 ]
	dir=$(ls -d "$tmp"/OPPROF_*)
	[[ "$(basename "$dir")" =~ ^OPPROF_[0-9]{14}_[A-Z]{16}$ ]]
	grep -q "wrote $dir" <<<"$output"
	# each viewer to its file
	grep -q "Perfetto (https://ui.perfetto.dev) or chrome://tracing: open $dir/simulator/trace.clean.json" <<<"$output"
	grep -q "MindStudio Insight: open $dir/simulator/trace.json" <<<"$output"
	# trace-clean's view and metrics
	jq -e '[.traceEvents[] | select(.ph == "X")] | length > 0' "$dir/simulator/trace.clean.json" >/dev/null
	jq -e '.instructions["core0.veccore0"] | length > 0' "$dir/simulator/instr_metrics.json" >/dev/null
	jq -e '.complete and .interrupted == false and .exit_status == 0' "$dir/manifest.json" >/dev/null
	# dump/ holds the dump files as read
	for f in "$data"/910B/*; do cmp "$f" "$dir/dump/$(basename "$f")"; done
	# simulator/ holds the traces and per-core files
	jq -e '.traceEvents | length > 0' "$dir/simulator/trace.json" >/dev/null
	[ "$(head -c 40 "$dir/simulator/trace.json" | grep -c '^{"profilingType"')" -eq 1 ]
	for c in core0.veccore0 core0.veccore1; do
		jq -e '.schemaVersion == 1' "$dir/simulator/$c/trace.json" >/dev/null
		head -n 1 "$dir/simulator/$c/${c}_instr_exe.csv" | grep -q '^instr,addr,'
		# six instructions and the trace mark, one row per pc
		[ "$(wc -l < "$dir/simulator/$c/${c}_instr_exe.csv")" -eq 8 ]
	done
	# nothing else left behind
	[ "$(ls -A "$tmp" | wc -l)" -eq 1 ]
}

@test "sim-export gives the same simulator/ as the tools piped by hand" {
	sim-export -q -o "$tmp" "$data/910B"
	dir=$(ls -d "$tmp"/OPPROF_*)
	dump-split "$data/910B" 2>/dev/null | instr-parse -q | icache-merge -q | scalar-merge -q > "$tmp/r.rec"
	timeline-emit -q -o "$tmp/direct" "$tmp/r.rec" 2>/dev/null
	# the same events (sim-export reads the cores one file each, so the
	# all-cores trace interleaves them in another order)
	diff <(jq -S -c '.traceEvents | sort_by(tostring) | .[]' "$tmp/direct/trace.json") \
		<(jq -S -c '.traceEvents | sort_by(tostring) | .[]' "$dir/simulator/trace.json")
	cmp "$tmp/direct/core0.veccore1/trace.json" "$dir/simulator/core0.veccore1/trace.json"
}

@test "sim-export copies the kernel binary given with --binary" {
	printf 'ELF stand-in' > "$tmp/k.o"
	mkdir "$tmp/out"
	sim-export -q --binary "$tmp/k.o" -o "$tmp/out" "$data/910B"
	cmp "$tmp/k.o" "$tmp"/out/OPPROF_*/dump/aicore_binary.o
}

@test "sim-export: errors are clear and leave nothing behind" {
	mkdir "$tmp/out" "$tmp/empty"
	run sim-export -o "$tmp/out" "$tmp/missing"
	[ "$status" -eq 3 ]
	grep -q "missing: not a directory" <<<"$output"
	run sim-export -o "$tmp/out" "$tmp/empty"
	[ "$status" -eq 3 ]
	[ "$(ls -A "$tmp/out" | wc -l)" -eq 0 ]
	run sim-export --no-such-option "$data/910B"
	[ "$status" -eq 2 ]
	run sim-export --help
	[ "$status" -eq 0 ]
}

@test "sim-export on a generated two-core dump parses every core" {
	gen-dump -s 4 -c 2 -o "$tmp/d"
	run sim-export -q -j 2 -o "$tmp" "$tmp/d"
	[ "$status" -eq 0 ]
	dir=$(ls -d "$tmp"/OPPROF_*)
	[ "$(ls -d "$dir"/simulator/core* | wc -l)" -eq 4 ]
	jq -e '[.traceEvents[] | select(.ph == "X")] | length > 1000' "$dir/simulator/trace.json" >/dev/null
}

@test "batch.mk: one tree per dump, rebuilt only when its dump changes" {
	mkdir -p "$tmp/runs/a" "$tmp/runs/b"
	cp "$data"/910B/* "$tmp/runs/a/"
	cp "$data"/910B/* "$tmp/runs/b/"
	cd "$tmp"
	run make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles -j2
	[ "$status" -eq 0 ]
	[ -f profiles/runs_a/simulator/trace.json ]
	[ -f profiles/runs_b/simulator/trace.json ]
	run make -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles -q
	[ "$status" -eq 0 ]          # up to date
	a_before=$(stat -c %Y profiles/runs_a/.done)
	sleep 1
	touch runs/b/core0.veccore0.instr_log.dump
	run make -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles -q
	[ "$status" -eq 1 ]          # b is out of date
	make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles
	[ "$(stat -c %Y profiles/runs_a/.done)" = "$a_before" ]
	[ profiles/runs_b/.done -nt runs/b/core0.veccore0.instr_log.dump ]
}

@test "batch.mk: an on-board dump goes to board-export, its tree the one board-export writes; AIC_METRICS passed as data" {
	mkdir -p "$tmp/runs/sim" "$tmp/runs/brd" "$tmp/runs/launch"
	cp "$data"/910B/* "$tmp/runs/sim/"
	cp "$data"/board910B/dump/* "$tmp/runs/brd/"
	cp -r "$data"/board910B/dump "$tmp/runs/launch/"
	cd "$tmp"
	run make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles -j2 AIC_METRICS=L2Cache,Memory
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -f profiles/runs_sim/simulator/trace.json ]
	# nothing printed of board-export's own temporary tree
	[[ "$output" != *OPPROF_* ]] || { echo "$output"; return 1; }
	for t in brd launch; do
		[ -f profiles/runs_$t/.done ]
		[ -f profiles/runs_$t/L2Cache.csv ] && [ -f profiles/runs_$t/Memory.csv ] && [ -f profiles/runs_$t/OpBasicInfo.csv ]
		[ ! -e profiles/runs_$t/PipeUtilization.csv ]
	done
	# the same files as board-export's own tree of that dump
	board-export -q -o direct --aic-metrics=L2Cache,Memory runs/brd >/dev/null
	diff -r -x .done profiles/runs_brd direct/OPPROF_*
	make -q -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles AIC_METRICS=L2Cache,Memory
	# a newer replay file makes its tree out of date, and only that one
	sleep 1
	touch runs/launch/dump/DeviceProf3.bin
	run make -q -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles AIC_METRICS=L2Cache,Memory
	[ "$status" -eq 1 ]
	b=$(stat -c %Y profiles/runs_brd/.done)
	make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles AIC_METRICS=L2Cache,Memory
	[ profiles/runs_launch/.done -nt runs/launch/dump/DeviceProf3.bin ]
	[ "$(stat -c %Y profiles/runs_brd/.done)" = "$b" ]
	# a value that is not a group reaches board-export as text, and fails there
	run make -s -f "$top/pipelines/batch.mk" DUMPS="runs/brd" OUT=bad 'AIC_METRICS=L2$$(touch PWNED)`touch PWNED2`'
	[ "$status" -ne 0 ]
	[[ "$output" == *"batch.mk: runs/brd: board-export exited 2"* ]] || { echo "$output"; return 1; }
	[ ! -e PWNED ] && [ ! -e PWNED2 ]
	[ -z "$(ls -A bad)" ]
}

@test "sim-export runs icache-merge, scalar-merge and mte-parse when their logs are present (drawn with --aic-metrics=...,Overhead,PMSampling)" {
	mkdir -p "$tmp/d" "$tmp/out"
	cp "$data"/910B/* "$tmp/d/"
	# a fetch block of the first scalar instructions, and their CCU issues
	printf '\n[info] 11000: lookup_tag is fetch req addr:0x10f86000\n' >> "$tmp/d/core0.veccore0.ifu.icache_log.dump"
	printf '[info] 11020: is_single_issue instr, pc:0x10f86000\n[info] 11021: is_single_issue instr, pc:0x10f86004\n' \
		> "$tmp/d/core0.veccore0.ccu_log.dump"
	# an MTE log of eight GM->UB transfers (over 500 bytes, so it is read)
	for i in 1 2 3 4 5 6 7 8; do
		printf '[info] %d: BRIF send_req, addr: 0x10f74400, size: 256, tag_id: 4, instr_id: %d, req_id: %d\n' $((19000 + i * 300)) $i $((5000 + i))
		printf '[info] %d: BRIF recv_rsp, uop_cnt: 1, tnx_id: 0, tag_id: 4, instr_id: %d, req_id: %d\n' $((19100 + i * 300)) $i $((5000 + i))
		printf '[info] %d: UB1WIF send_req, addr: 0x0, size: 128, tag_id: 4, instr_id: %d, req_id: %d\n' $((19150 + i * 300)) $i $((6000 + i))
	done > "$tmp/d/core0.mte_log.dump"
	run sim-export -q --aic-metrics=PipeUtilization,ResourceConflictRatio,Overhead,PMSampling -o "$tmp/out" "$tmp/d"
	[ "$status" -eq 0 ]
	t=$(ls "$tmp"/out/OPPROF_*/simulator/trace.json)
	[ "$(jq '[.traceEvents[] | select(.tid == "CACHEMISS" and .ph == "X")] | length' "$t")" -eq 6 ]
	[ "$(jq '[.traceEvents[] | select(.name == "cache_time" or .name == "ccu_time")] | length' "$t")" -eq 4 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "C" and .pid == "MTE Throughput")] | length' "$t")" -gt 6 ]
	# eight 256-byte reads, 244.140625 MB/s-us each, spread over the buckets
	[ "$(jq '[.traceEvents[] | select(.ph == "C" and .name == "GM_TO_UB") | .args["throughput(MB/s)"]] | add' "$t")" = "1953.125" ]
}

@test "sim-export -o DIR creates DIR; --version; -q prints nothing on success" {
	run --separate-stderr sim-export -q -o "$tmp/new/deeper" "$data/910B"
	[ "$status" -eq 0 ]
	# (timeline-emit's warnings about the sample stay on stderr)
	[ -z "$output" ]
	[[ "$stderr" != *"sim-export"* ]]
	ls -d "$tmp"/new/deeper/OPPROF_* >/dev/null
	run sim-export --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^sim-export\ \(optrace\)\ [0-9] ]]
}

@test "from the checkout, after make: pipelines/sim-export and build/bin/sim-export find their tools" {
	[ -x "$top/build/bin/sim-export" ] || skip "build/bin/sim-export is made by make"
	unset OPTRACE_BIN
	run env PATH=/usr/bin:/bin "$top/pipelines/sim-export" -q -o "$tmp/a" "$data/910B"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run env PATH=/usr/bin:/bin "$top/build/bin/sim-export" -q -o "$tmp/b" "$data/910B"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# and batch.mk, through the sim-export next to it
	mkdir -p "$tmp/runs/a"
	cp "$data"/910B/* "$tmp/runs/a/"
	cd "$tmp"
	run env PATH=/usr/bin:/bin make -s -f "$top/pipelines/batch.mk" DUMPS="runs/*" OUT=profiles
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -f profiles/runs_a/simulator/trace.json ]
}

@test "a missing tool is named, exit 4, nothing written" {
	unset OPTRACE_BIN
	mkdir -p "$tmp/inst/bin"
	cp "$top/pipelines/sim-export" "$tmp/inst/bin/"
	for t in dump-split instr-parse icache-merge scalar-merge; do ln -s "$top/$variant/bin/$t" "$tmp/inst/bin/"; done
	mkdir "$tmp/out"
	run env PATH=/usr/bin:/bin "$tmp/inst/bin/sim-export" -o "$tmp/out" "$data/910B"
	[ "$status" -eq 4 ]
	[[ "$output" == "sim-export: timeline-emit: not found "* ]]
	[ -z "$(ls -A "$tmp/out")" ]
}

@test "progress on a terminal: 'core N/M parsed', the last always; none with -q or off a terminal" {
	command -v script >/dev/null || skip "script(1) is not installed"
	gen-dump -s 1 -c 3 -o "$tmp/d" >/dev/null
	printf '#!/bin/sh\nexec sim-export "$@" -o "$RUN_OUT" "$RUN_DUMP"\n' >"$tmp/run"
	chmod +x "$tmp/run"
	export RUN_OUT="$tmp/out" RUN_DUMP="$tmp/d"
	run script -qec "$tmp/run -j 2" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"sim-export: core 6/6 parsed"* ]]
	run script -qec "$tmp/run -q -j 2" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" != *"parsed"* ]]
	run --separate-stderr "$tmp/run" -j 2
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"6/6 parsed"* ]]
}

@test "--core-id=LIST parses only those physical cores (ids separated by |)" {
	gen-dump -s 1 -c 3 -o "$tmp/d" >/dev/null
	mkdir "$tmp/out" "$tmp/out2"
	run sim-export -q --core-id='0|2' -o "$tmp/out" "$tmp/d"
	[ "$status" -eq 0 ]
	dir=$(ls -d "$tmp"/out/OPPROF_*)
	[ "$(cd "$dir/simulator" && ls -d core*/ | tr -d / | sort | tr '\n' ' ')" = "core0.veccore0 core0.veccore1 core2.veccore0 core2.veccore1 " ]
	jq -e '.core_id == "0|2" and (.cores | length) == 4' "$dir/manifest.json"
	run sim-export -q --core-id=5 -o "$tmp/out2" "$tmp/d"
	[ "$status" -eq 3 ]
	[[ "$output" == *"no core with an instruction log among --core-id 5"* ]]
}

@test "--from/--to narrow the trace (timeline-emit's); --aic-metrics goes to timeline-emit" {
	mkdir "$tmp/out" "$tmp/full" "$tmp/m"
	run sim-export -q --from=6.3 --to=6.4 -o "$tmp/out" "$data/910B"
	[ "$status" -eq 0 ]
	dir=$(ls -d "$tmp"/out/OPPROF_*)
	part=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$dir/simulator/trace.json")
	sim-export -q -o "$tmp/full" "$data/910B"
	full=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$tmp"/full/OPPROF_*/simulator/trace.json)
	[ "$part" -lt "$full" ]
	timeline-emit --help 2>&1 | grep -q -- --aic-metrics || skip "timeline-emit does not take --aic-metrics yet"
	run sim-export -q --aic-metrics=PipeUtilization -o "$tmp/m" "$data/910B"
	[ "$status" -eq 0 ]
}

@test "man pages sim-export(7) and optrace-batch(7) exist, and sim-export's help cites one that does" {
	[ -f "$top/man/sim-export.7" ]
	[ -f "$top/man/optrace-batch.7" ]
	sim-export --help | grep -q 'sim-export(7)'
	for p in sim-export optrace-batch; do
		grep -q '^\.SH EXIT STATUS' "$top/man/$p.7"
		grep -q '^\.SH EXAMPLES' "$top/man/$p.7"
	done
}

@test "installed: batch.mk in PREFIX/share/optrace runs PREFIX/bin/sim-export, which finds its tools; the section 7 pages" {
	make -s -C "$top" install DESTDIR="$tmp/dest" PREFIX=/opt/o >/dev/null
	p=$tmp/dest/opt/o
	[ -f "$p/share/man/man7/sim-export.7" ]
	[ -f "$p/share/man/man7/optrace-batch.7" ]
	unset OPTRACE_BIN
	mkdir -p "$tmp/runs/a"
	cp "$data"/910B/* "$tmp/runs/a/"
	cd "$tmp"
	run env PATH=/usr/bin:/bin make -s -f "$p/share/optrace/batch.mk" DUMPS="runs/*" OUT=profiles
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	jq -e .complete profiles/runs_a/manifest.json
}
