#!/usr/bin/env bats
# timeline-emit as a user runs it: dump-split DIR | instr-parse | timeline-emit.
# Golden outputs live in test/golden/ and are written only by
# test/golden/regen.sh; every trace.json made here is also checked with jq.

bats_require_minimum_version 1.5.0

setup_file() {
	unset OPTRACE_FORMAT
	data="$BATS_TEST_DIRNAME/../data"
	dump-split "$data/910B" 2>/dev/null | instr-parse 2>/dev/null > "$BATS_FILE_TMPDIR/910B.rec"
	dump-split "$data/A5" 2>/dev/null | instr-parse --soc-version=Ascend950PR_9599 2>/dev/null > "$BATS_FILE_TMPDIR/A5.rec"
}

setup() {
	unset OPTRACE_FORMAT
	data="$BATS_TEST_DIRNAME/../data"
	gold="$BATS_TEST_DIRNAME/../golden"
	T="$BATS_TEST_TMPDIR"
	R="$BATS_FILE_TMPDIR"
	cd "$T"
}

# The viewer rules, for a trace.json: check all|core FILE.
#   all:  profilingType first, schemaVersion 2, a process_sort_index for
#         every pid and a thread_sort_index for every (pid, tid) used
#   core: the same with schemaVersion 1, plus process_name / thread_name,
#         and no two X slices overlapping on one (pid, tid)
#   both: every flow id has one s and one t, every B its E
check() {
	jq -e -r --arg mode "$1" '
	def fail($m): error("\($m)");
	. as $d
	| if ($d | keys_unsorted[0]) != "profilingType" then fail("profilingType is not the first key") else . end
	| if $d.schemaVersion != (if $mode == "all" then 2 else 1 end) then fail("schemaVersion \($d.schemaVersion)") else . end
	| $d.traceEvents as $ev
	| ([$ev[] | select(.ph != "M") | .pid] | unique) as $pids
	| ([$ev[] | select(.ph != "M") | [.pid, .tid]] | unique) as $lanes
	| ($pids - [$ev[] | select(.name == "process_sort_index") | .pid]) as $a
	| if ($a | length) > 0 then fail("no process_sort_index: \($a)") else . end
	| ($lanes - [$ev[] | select(.name == "thread_sort_index") | [.pid, .tid]]) as $b
	| if ($b | length) > 0 then fail("no thread_sort_index: \($b)") else . end
	| if $mode == "core" then
		($pids - [$ev[] | select(.name == "process_name") | .pid]) as $c
		| if ($c | length) > 0 then fail("no process_name: \($c)") else . end
		| ($lanes - [$ev[] | select(.name == "thread_name") | [.pid, .tid]]) as $e
		| if ($e | length) > 0 then fail("no thread_name: \($e)") else . end
		| ([$ev[] | select(.ph == "X")] | group_by([.pid, .tid])
		   | map(sort_by(.ts) | reduce .[] as $x ({end: -1, bad: null};
		         (if .bad == null and $x.ts < .end - 1e-9 then .bad = $x else . end)
		         | .end = ([.end, $x.ts + $x.dur] | max)) | .bad | select(. != null))) as $o
		| if ($o | length) > 0 then fail("overlapping slices on one thread: \($o[0])") else . end
	  else . end
	| ([$ev[] | select(.ph == "s" or .ph == "t")] | group_by(.id) | map(select((map(.ph) | sort) != ["s", "t"]))) as $f
	| if ($f | length) > 0 then fail("flow without both ends: \($f[0])") else . end
	| ([$ev[] | select(.ph == "B" or .ph == "E")] | group_by(.id)
	   | map(select((map(select(.ph == "B")) | length) != (map(select(.ph == "E")) | length)))) as $g
	| if ($g | length) > 0 then fail("B without E: \($g[0])") else . end
	| "ok"' "$2"
}

# Check a whole -o directory.
check_dir() {
	check all "$1/trace.json"
	for f in "$1"/*/trace.json; do
		check core "$f"
	done
}

# Decode DIR/visualize_data.bin into DIR.vdata/ as the goldens keep it
# (test/golden/vdata-decode.sh), and check its TRACE block is trace.json.
vdata() {
	sh "$gold/vdata-decode.sh" "$1/visualize_data.bin" "$1.vdata"
	cmp "$1.vdata/TRACE.json" "$1/trace.json"
}

# The INSTR_API payload of DIR/visualize_data.bin, as written.
instr_api() {
	vdata-dump --payload INSTR_API "$1/visualize_data.bin"
}

# An instruction record with calculator values:
# core sub subidx start end pc pipe name detail gpr bytes vec_util ub_read ub_write [icache ccu]
ins() {
	printf '{"kind":"instr","core":%s,"sub":"%s","subidx":%s,"block":-1,"subblock":-1,"start":%s,"end":%s,"pc":"%s","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":%s,"bytes":%s,"vec_util":%s,"ub_read":%s,"ub_write":%s,"icache_tick":%s,"ccu_tick":%s,"pipe":"%s","name":"%s","detail":"%s"}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "${10}" "${11}" "${12}" "${13}" "${14}" "${15:-null}" "${16:-null}" "$7" "$8" "$9"
}

instr() { # core sub subidx start end pc pipe name detail [extra JSON fields]
	printf '{"kind":"instr","core":%s,"sub":"%s","subidx":%s,"block":-1,"subblock":-1,"start":%s,"end":%s,"pc":"%s","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":0,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null,"pipe":"%s","name":"%s","detail":"%s"%s}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10:-}"
}
header() { echo '{"kind":"header","version":1,"mhz":1850,"producer":"test","soc":"Ascend910B1","origin":"test"}'; }
trailer() { echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'; }
# Records on stdin, with the sync fields instr-parse gives instruction
# records (see optrace-records(5)): what they are, their pipes, flag id.
sync_fields() {
	jq -c '
		def kind: {"SET_FLAG":"set","WAIT_FLAG":"wait","set_event":"set","wait_event":"wait",
		  "SET_INTRA_BLOCK":"set_intra","SET_INTRA_BLOCKI":"set_intra","WAIT_INTRA_BLOCK":"wait_intra",
		  "WAIT_INTRA_BLOCKI":"wait_intra","BAR":"bar"}[.] // "";
		def field($keys): [.detail | split(",")[] | select(test(":")) | capture("^\\s*(?<k>[^:]*?)\\s*:\\s*(?<v>.*?)\\s*$")
		  | select((.k | gsub("[ \t]"; "")) as $k | $keys | index($k)) | .v] | last // "";
		if .kind == "instr" then
		  (.name | kind) as $s
		  | . + {sync: $s}
		  + (if $s == "" then {prod: "", cons: "", flag: ""} else
		      {prod: field(["PIPE", "pipe_type"]), cons: field(["TRIGGERPIPE", "tigger_pipe", "trigger_pipe"]),
		       flag: field(["FLAGID", "event_id", "sync_id"])} end)
		else . end
	'
}

# Many sub-cores (more than the 32 files kept open), records interleaved.
many_cores() { # ncores rounds
	header
	local i c
	for ((i = 0; i < $2; i++)); do
		for ((c = 0; c < $1; c++)); do
			instr $((c / 2)) veccore $((c % 2)) $((1000 + 10 * i)) $((1005 + 10 * i + i % 3)) \
				"0x$((100 + i % 7))" VECTOR VADD "XD:X1=0x1,"
		done
	done
	trailer
}

@test "910B sample: trace.json, per-core traces, CSVs and summary equal the golden files" {
	run timeline-emit -o out "$R/910B.rec"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -v '^timeline-emit: ' > summary.txt
	diff -r -x visualize_data.bin "$gold/910B/out" out
	diff "$gold/910B/summary.txt" summary.txt
	check_dir out
	vdata out
	diff -r "$gold/910B/vdata" out.vdata
}

@test "A5 sample: the golden files, at 1800 MHz" {
	timeline-emit -o out "$R/A5.rec" > summary.txt 2>/dev/null
	diff -r -x visualize_data.bin "$gold/A5/out" out
	diff "$gold/A5/summary.txt" summary.txt
	check_dir out
	vdata out
	diff -r "$gold/A5/vdata" out.vdata
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | .ts][0]' out/trace.json)" = 0.413889 ]
}

@test "features: intra-block sync, SIMT warps, cache misses, scalar head, flags equal the golden files" {
	timeline-emit -o out "$gold/features.jsonl" > summary.txt 2>/dev/null
	diff -r -x visualize_data.bin "$gold/features/out" out
	diff "$gold/features/summary.txt" summary.txt
	check_dir out
	vdata out
	diff -r "$gold/features/vdata" out.vdata
}

@test "the golden files are themselves valid traces" {
	for s in 910B A5 features; do
		check_dir "$gold/$s/out"
		cmp "$gold/$s/vdata/TRACE.json" "$gold/$s/out/trace.json"
	done
}

@test "the trace opens with profilingType, byte for byte" {
	timeline-emit -q "$R/910B.rec" > t.json
	want='{"profilingType":"op","displayTimeUnit":"ns","schemaVersion":2,"traceEvents":['
	[ "$(head -n 1 t.json)" = "$want" ]
	check all t.json
}

@test "timestamps: ticks / MHz exact to 6 decimals, and ts + dur is the end" {
	timeline-emit -q "$R/910B.rec" > t.json
	# MOV_XD_IMM: [11035, 11036] at 1850 MHz.
	[ "$(jq -c '.traceEvents[] | select(.name == "MOV_XD_IMM") | [.ts, .dur]' t.json | head -n 1)" = '[5.964865,0.00054]' ]
	[ "$(jq -c '.traceEvents[] | select(.name == "MOVK") | .ts' t.json | head -n 1)" = 5.965405 ]
	# A long kernel: 2^40 ticks stay exact (the reference's floats would not).
	{ header; instr 0 veccore 0 1099511627776 1099511627777 0x100 VECTOR VADD x; trailer; } > long.jsonl
	[ "$(timeline-emit -q long.jsonl | jq -r '.traceEvents[] | select(.ph == "X") | "\(.ts) \(.dur)"')" = "594330609.608649 0.00054" ]
}

@test "910B sample: the summary warns, loudly, that there is no CUBE or VECTOR work" {
	run timeline-emit -o out "$R/910B.rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"timeline-emit: WARNING: core0.veccore0: no CUBE or VECTOR work at all (pipes: SCALAR MTE2)"* ]]
	[[ "$output" == *"timeline-emit: WARNING: core0.veccore1: no CUBE or VECTOR work at all"* ]]
}

@test "A5 sample: the summary warns that the trace is scalar-only" {
	run timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"WARNING: core0.veccore0: the trace is scalar-only (pipes: SCALAR); the usual cause is zero-filled inputs to a data-dependent kernel"* ]]
	# A core with vector work gets no warning.
	{ header; instr 0 veccore 0 10 20 0x100 VECTOR VADD x; trailer; } > v.jsonl
	run timeline-emit -o out2 v.jsonl
	[ "$status" -eq 0 ]
	[[ "$output" != *WARNING* ]]
}

@test "summary: durations, running time and the per-pipe table" {
	timeline-emit -o out "$R/910B.rec" > s.txt 2>/dev/null
	grep -q '^core0.veccore0      0.35                0.15$' s.txt
	# Summed cycles (overlapping instructions each counted) and busy
	# cycles (their union), each column explained.
	grep -q '^  pipe           summed-cycles  busy-cycles   busy(%)  instructions$' s.txt
	grep -q '^  SCALAR                   279          278     42.38             5$' s.txt
	grep -q '^  MTE2                     274          274     41.77             1$' s.txt
	grep -q '^summed-cycles: the sum of each instruction' s.txt
	# Without -o the trace is on stdout and the summary on stderr.
	timeline-emit "$R/910B.rec" > t.json 2> err
	check all t.json
	grep -q 'Core operator results run in simulator as follow:' err
	timeline-emit -o - "$R/910B.rec" 2>/dev/null | cmp - t.json
}

@test "CSV: the reference's columns in its order, a hex address last" {
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	csv=out/core0.veccore0/core0.veccore0_instr_exe.csv
	[ "$(head -n 1 "$csv")" = 'instr,addr,pipe,call_count,cycles,running_time(us),detail,addr_hex' ]
	# Every row: addr_hex (the last field) is addr.
	tail -n +2 "$csv" | while IFS=, read -r name addr rest; do
		[ "$(printf '0x%x' "$addr")" = "${rest##*,}" ]
	done
	# Positional readers: pipe is field 3, cycles field 5; sorted by cycles.
	[ "$(tail -n +2 "$csv" | cut -d, -f5 | tr '\n' ' ')" = "2264 275 274 1 1 1 1 " ]
	[ "$(tail -n +2 "$csv" | cut -d, -f3 | sort -u | tr '\n' ' ')" = "MTE2 SCALAR USERMARK " ]
	grep -q '^WAIT_FLAG,284713096,SCALAR,1,275,0.150000,"PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,",0x10f86088$' "$csv"
	[ "$(cat out/core0.veccore0/core0.veccore0_code_exe.csv)" = 'code,call_count,cycles,running_time(us)' ]
}

@test "flags: WAIT clipping, pairs by detail with flows, unpaired flags drawn alone" {
	{
		header
		instr 0 veccore 0 100 150 0x100 SCALAR ADD 'dtype:S64,'
		instr 0 veccore 0 160 170 0x104 MTE2 SET_FLAG 'PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,'
		instr 0 veccore 0 120 180 0x108 SCALAR WAIT_FLAG 'PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,'
		instr 0 veccore 0 190 200 0x10c MTE3 SET_FLAG 'PIPE:MTE3,TRIGGERPIPE:V,FLAGID:1,'
		trailer
	} > f.jsonl
	timeline-emit -o out f.jsonl > /dev/null 2>&1
	check_dir out
	# The wait began at 120, before the SCALAR slice ended (150): drawn from 150.
	[ "$(jq -c '.traceEvents[] | select(.name == "WAIT_FLAG" and .ph == "B") | [.ts, .id]' out/trace.json)" = '[0.081081,"core0.veccore0_0"]' ]
	[ "$(jq -c '[.traceEvents[] | select(.name == "flow") | [.ph, .tid, .cat]]' out/trace.json)" = '[["s","MTE2","MTE2ToSCALAR"],["t","SCALAR","MTE2ToSCALAR"]]' ]
	# The MTE3 set has no wait: a B/E pair of its own, no flow.
	[ "$(jq -c '[.traceEvents[] | select(.tid == "MTE3") | .ph]' out/trace.json)" = '["M","B","E"]' ]
	# The per-core trace: the SET as its last cycle, a flow between the two.
	[ "$(jq -c '.traceEvents[] | select(.name == "SET_FLAG" and .pid == 60) | [.ts, .dur, .cname]' out/core0.veccore0/trace.json)" = '[0.091351,0.000541,"black"]' ]
	[ "$(jq -c '[.traceEvents[] | select(.name == "flow") | [.id, .ph, .pid]]' out/core0.veccore0/trace.json)" = '[["0","s",60],["0","t",10]]' ]
}

@test "per-core traces: SCALAR with XD: goes to SCALARLDST, threads never overlap" {
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	[ "$(jq -c '[.traceEvents[] | select(.name == "process_name") | [.pid, .args.name]]' out/core0.veccore0/trace.json)" = '[[120,"USERMARK"],[20,"SCALARLDST"],[60,"MTE2"],[10,"SCALAR"]]' ]
	# Back-to-back slices (11035-11036, 11036-11037) touch: different threads.
	[ "$(jq -c '[.traceEvents[] | select(.pid == 20 and .ph == "X") | .tid]' out/core0.veccore0/trace.json)" = '[1,2,3,1]' ]
}

@test "a generated dump: every trace valid, logical core names, flows complete" {
	command -v gen-dump >/dev/null || skip "gen-dump not built"
	gen-dump -s 4 -c 2 -o dump
	dump-split dump 2>/dev/null | instr-parse -q > g.rec
	run timeline-emit -o out g.rec
	[ "$status" -eq 0 ]
	check_dir out
	[ "$(cd out && ls -d core* | tr '\n' ' ')" = "core0.veccore0 core0.veccore1 core1.veccore0 core1.veccore1 " ]
	[ "$(jq '[.traceEvents[] | select(.ph == "s")] | length' out/trace.json)" -gt 100 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' out/trace.json)" -gt 1000 ]
}

@test "many interleaved cores: more than 32 per-core files, all complete" {
	many_cores 40 30 > m.jsonl
	run timeline-emit -o out m.jsonl
	[ "$status" -eq 0 ]
	[ "$(ls -d out/core*/ | wc -l)" -eq 40 ]
	check_dir out
	for f in out/*/trace.json; do
		[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$f")" -eq 30 ]
	done
}

@test "--core-id: logical block ids, lists and ranges" {
	many_cores 8 3 > m.jsonl
	# Give the cores their logical ids: block = core.
	jq -c 'if .kind == "instr" then .block = .core | .subblock = .subidx else . end' m.jsonl > l.jsonl
	[ "$(timeline-emit -q --core-id=1 l.jsonl | jq -r '[.traceEvents[].pid] | unique | join(" ")')" = "core1.veccore0 core1.veccore1" ]
	[ "$(timeline-emit -q --core-id='0|3' l.jsonl | jq -r '[.traceEvents[].pid] | unique | join(" ")')" = "core0.veccore0 core0.veccore1 core3.veccore0 core3.veccore1" ]
	[ "$(timeline-emit -q --core-id=1-2,3 l.jsonl | jq -r '[.traceEvents[].pid] | unique | length')" -eq 6 ]
	timeline-emit -q --core-id=2 -o out l.jsonl > /dev/null
	[ "$(cd out && ls -d core* | tr '\n' ' ')" = "core2.veccore0 core2.veccore1 " ]
	check_dir out
	run timeline-emit --core-id=x l.jsonl
	[ "$status" -eq 2 ]
	[[ "$output" == *"option --core-id: 'x' is not a list"* ]]
}

@test "--from/--to: microseconds or ticks, events that overlap the window" {
	timeline-emit -q --from=6.3 --to=6.4 "$R/910B.rec" > w.json
	check all w.json
	# SET_FLAG (11416-11690), WAIT_FLAG (11416-11691) and the mark overlap it; the
	# scalar prologue (11035-11038) does not.
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X" or .ph == "B") | .name] | unique' w.json)" = '["Mark 0x1","SET_FLAG","WAIT_FLAG"]' ]
	timeline-emit -q --from=11036t --to=11036t "$R/910B.rec" > k.json
	check all k.json
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X" and .pid == "core0.veccore0") | .name]' k.json)" = '["MOV_XD_IMM","MOVK","MOV_XD_SPR"]' ]
	# The window also narrows the CSV and summary.
	timeline-emit --from=11036t --to=11036t -o out "$R/910B.rec" > s.txt 2>/dev/null
	grep -q '^core0.veccore0: 3 instructions' s.txt
	[ "$(tail -n +2 out/core0.veccore0/core0.veccore0_instr_exe.csv | wc -l)" -eq 3 ]
	run timeline-emit --from=1.2.3 "$R/910B.rec"
	[ "$status" -eq 2 ]
	run timeline-emit --from=5 --to=4 "$R/910B.rec"
	[ "$status" -eq 2 ]
}

@test "big traces: split past the limit into traces that each open, by block and time; a warning past the first limit" {
	# 8 sub-cores, each with slices and SET -> WAIT pairs (flows).
	{
		header
		for ((i = 0; i < 200; i++)); do
			for ((c = 0; c < 8; c++)); do
				t=$((1000 + 20 * i))
				instr $((c / 2)) veccore $((c % 2)) $t $((t + 5)) 0x100 VECTOR VADD "XD:X1=0x1,"
				instr $((c / 2)) veccore $((c % 2)) $((t + 6)) $((t + 7)) 0x104 MTE2 SET_FLAG "PIPE:MTE2,TRIGGERPIPE:VECTOR,FLAGID:0,"
				instr $((c / 2)) veccore $((c % 2)) $((t + 2)) $((t + 400)) 0x108 VECTOR WAIT_FLAG "PIPE:MTE2,TRIGGERPIPE:VECTOR,FLAGID:0,"
			done
		done
		trailer
	} | jq -c 'if .kind == "instr" then .block = .core | .subblock = .subidx else . end' > l.jsonl
	timeline-emit --force -o whole l.jsonl > /dev/null
	size=$(wc -c < whole/trace.json)
	limit=$(($(wc -c < whole/core0.veccore0/trace.json) / 2))
	run env OPTRACE_TRACE_LIMIT=$limit timeline-emit -o out l.jsonl
	[ "$status" -eq 0 ]
	# trace.json gives way to its parts: one or more per block.
	[ ! -e out/trace.json ]
	ls out/trace.core*.json
	[ -e out/trace.core0.1.json ] && [ -e out/trace.core0.2.json ] && [ ! -e out/trace.core0.json ]
	for f in out/trace.core*.json; do
		check all "$f"
		[ "$(wc -c < "$f")" -le $((limit + 2048)) ]
		# A block per file.
		[ "$(jq -r '[.traceEvents[] | .pid | split(".")[0]] | unique | join(" ")' "$f")" = "$(basename "$f" | cut -d. -f2)" ]
		# Listed (by name, next to where trace.json would be) in the
		# summary and on stderr.
		[ "$(grep -c -x -F "  ${f#out/}" <<<"$output")" -eq 1 ]
		[ "$(grep -c -x -F "timeline-emit:   ${f#out/}" <<<"$output")" -eq 1 ]
	done
	[[ "$output" == *"written as"*"traces instead (--force: one file)"* ]]
	# Together they are the whole trace, no event lost or doubled.
	jq -c '.traceEvents[] | select(.ph != "M")' out/trace.core*.json | sort > parts.txt
	jq -c '.traceEvents[] | select(.ph != "M")' whole/trace.json | sort > whole.txt
	cmp parts.txt whole.txt
	# The per-core traces past the limit are split by time, each whole.
	for d in out/core*/; do
		if [ -e "$d/trace.json" ]; then
			[ "$(wc -c < "$d/trace.json")" -le "$limit" ]
			continue
		fi
		for f in "$d"/trace.*.json; do
			check core "$f"
			# Every flow end lies on a slice of its thread in the same part.
			jq -e '[.traceEvents[] | select(.ph == "X")] as $x
				| [.traceEvents[] | select(.ph == "s" or .ph == "t") | . as $e
				   | select([$x[] | select(.pid == $e.pid and .tid == $e.tid and .ts <= $e.ts + 1e-9 and $e.ts <= .ts + .dur + 1e-9)] | length == 0)]
				| length == 0' "$f" > /dev/null
		done
		c=$(basename "$d")
		diff <(jq -c '.traceEvents[] | select(.ph == "X") | [.name, .ts, .dur, .pid]' "$d"/trace.*.json | sort) \
			<(jq -c '.traceEvents[] | select(.ph == "X") | [.name, .ts, .dur, .pid]' "whole/$c/trace.json" | sort)
	done
	[ -e out/core0.veccore0/trace.1.json ]
	# The CSVs and visualize_data.bin are those of the whole.
	diff -r -x 'trace*.json' whole out
	# --force: one file.
	run env OPTRACE_TRACE_LIMIT=$limit timeline-emit --force -o forced l.jsonl
	[ "$status" -eq 0 ]
	cmp forced/trace.json whole/trace.json
	# Past the first limit only: a warning, in the summary too.
	run env OPTRACE_TRACE_WARN=$limit timeline-emit -o warned l.jsonl
	[ "$status" -eq 0 ]
	cmp warned/trace.json whole/trace.json
	[ "$(grep -c 'WARNING: trace.json is .*chrome://tracing opens about 500 MB' <<<"$output")" -eq 2 ]
	# On standard output: the whole trace and the warning.
	OPTRACE_TRACE_LIMIT=$limit timeline-emit l.jsonl > t.json 2> err
	cmp t.json whole/trace.json
	grep -q 'WARNING: the trace is' err
	run timeline-emit --max-size=lots l.jsonl
	[ "$status" -eq 2 ]
	run env OPTRACE_TRACE_LIMIT=x timeline-emit l.jsonl
	[ "$status" -eq 2 ]
}

@test "--max-size sets the split limit" {
	timeline-emit -o a "$R/910B.rec" > /dev/null 2>&1
	run timeline-emit --max-size=2k -o out "$R/910B.rec"
	[ "$status" -eq 0 ]
	[ ! -e out/trace.json ]
	for f in out/trace.core0.*.json; do check all "$f"; done
	diff -r -x 'trace*.json' a out
}

@test "no trailer: complete, valid outputs, a message, exit 1" {
	head -n -1 "$gold/features.jsonl" > cut.jsonl
	run timeline-emit -o out cut.jsonl
	[ "$status" -eq 1 ]
	[[ "$output" == *"input ended without a trailer record: the stream upstream was cut short"* ]]
	check_dir out
	# The same as a whole stream gives, plus the TRUNCATED mark.
	diff -r -x visualize_data.bin -x trace.json "$gold/features/out" out
	for f in trace.json core0.cubecore0/trace.json core0.veccore0/trace.json core0.veccore1/trace.json; do
		drop='.traceEvents | map(select(.pid != "TRUNCATED" and .pid != 999999))'
		diff <(jq -c "$drop" "$gold/features/out/$f") <(jq -c "$drop" "out/$f")
		[ "$(jq '[.traceEvents[] | select(.pid == "TRUNCATED" or .pid == 999999)] | length > 0' "out/$f")" = true ]
	done
	vdata out
	diff -r -x TRACE.json -x blocks.txt "$gold/features/vdata" out.vdata
	run bash -c "timeline-emit cut.jsonl 2>/dev/null > t.json"
	[ "$status" -eq 1 ]
	check all t.json
}

@test "SIGINT: the outputs are closed, valid and in place; exit 130" {
	many_cores 4 400 > m.jsonl
	mkfifo fifo
	timeline-emit -v -o out < fifo > summary.txt 2> err &
	pid=$!
	# Half the stream, then hold the pipe open: the tool is still reading.
	exec 5> fifo
	head -n 800 m.jsonl >&5
	# The outputs appear only when complete: -v says when a core comes in.
	for i in $(seq 600); do
		grep -q 'core1.veccore1: new core' err && break
		sleep 0.1
	done
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 130 ]
	check_dir out
	[ "$(ls -d out/core*/ | wc -l)" -eq 4 ]
	[ -z "$(find out -name '*.tmp*')" ]
	# What was read is drawn: at most the 799 instructions sent.
	n=$(jq '[.traceEvents[] | select(.ph == "X")] | length' out/trace.json)
	[ "$n" -ge 4 ] && [ "$n" -le 799 ]
	grep -q 'Core operator results' summary.txt
	# visualize_data.bin too: complete, the trace as written, the
	# instructions read.
	vdata out
	[ "$(cut -d' ' -f1-2 out.vdata/blocks.txt | tr '\n' ' ')" = "type=TRACE version=90 type=INSTR_API version=0 " ]
	[ "$(jq '[.Instructions[]."Instructions Executed" | add] | add' out.vdata/INSTR_API.json)" -eq "$n" ]
}

@test "SIGINT while the outputs are being finished: visualize_data.bin complete, never half-written" {
	many_cores 8 3000 > m.jsonl
	mkfifo fifo
	# The whole stream goes into the pipe, then Ctrl+C lands somewhere in
	# the drain, the trace, the CSVs or visualize_data.bin (or after).
	for delay in 0 0.005 0.01 0.02 0.04 0.08; do
		rm -rf out out.vdata
		timeline-emit -o out < fifo > /dev/null 2>&1 &
		pid=$!
		cat m.jsonl > fifo
		sleep "$delay"
		kill -INT "$pid" 2>/dev/null || true
		st=0
		wait "$pid" || st=$?
		[ "$st" -eq 130 ] || [ "$st" -eq 0 ]
		[ -z "$(find out -name '*.tmp*')" ]
		vdata out
		# What was read is in both, the same count.
		n=$(jq '[.traceEvents[] | select(.ph == "X")] | length' out/trace.json)
		if [ "$n" -gt 0 ]; then
			[ "$(jq '[.Instructions[]."Instructions Executed" | add] | add' out.vdata/INSTR_API.json)" -eq "$n" ]
		else
			[ ! -e out.vdata/INSTR_API.json ]
		fi
	done
}

@test "late records: drawn, counted and reported" {
	{
		header
		instr 0 veccore 0 999990 1000000 0x100 VECTOR A x
		instr 0 veccore 0 900000 900010 0x104 VECTOR B x
		instr 0 veccore 0 1999990 2000000 0x108 VECTOR C x
		instr 0 veccore 0 90 100 0x10c VECTOR D x
		trailer
	} > late.jsonl
	run bash -c "timeline-emit late.jsonl 2>err > t.json"
	[ "$status" -eq 0 ]
	# B came after A but within the window: put back in order; D came after
	# the window had passed it: drawn when it came.
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | .name]' t.json)" = '["B","A","D","C"]' ]
	grep -q '1 records arrived after the reorder window had passed them' err
}

@test "bad records are reported with file:line and skipped; exit 1" {
	{ header; echo '{"kind":"instr","core":"x"}'; instr 0 veccore 0 10 20 0x100 VECTOR VADD x; trailer; } > bad.jsonl
	run bash -c "timeline-emit bad.jsonl 2>err > t.json"
	[ "$status" -eq 1 ]
	grep -q '^timeline-emit: bad.jsonl:2: bad record: ' err
	grep -q '1 bad records skipped' err
	check all t.json
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 1 ]
}

@test "record encodings: binary, JSON Lines, lz4 and several files give one trace" {
	timeline-emit -q "$R/910B.rec" > a.json
	rec-cat --json "$R/910B.rec" > r.jsonl
	timeline-emit -q r.jsonl > b.json
	cmp a.json b.json
	rec-cat --lz4 "$R/910B.rec" > r.lz4
	timeline-emit -q < r.lz4 > c.json
	cmp a.json c.json
	# Unknown and unconsumed kinds are ignored.
	sed '2i Zsomething new' r.jsonl | timeline-emit -q > d.json
	cmp a.json d.json
}

@test "--soc-version overrides the stream header: the option's clock and chip" {
	# The 910B sample's header names Ascend910B1 (1850 MHz); the same
	# stream with a 310P header (1060 MHz) is what the option must give.
	rec-cat --json "$R/910B.rec" | sed '1s/"mhz":1850/"mhz":1060/; 1s/"soc":"Ascend910B1"/"soc":"Ascend310P3"/' > p.jsonl
	grep -q '"soc":"Ascend310P3"' p.jsonl
	timeline-emit -q p.jsonl > want.json 2> want.err
	run --separate-stderr timeline-emit -q --soc-version=ascend310p3 "$R/910B.rec"
	[ "$status" -eq 0 ]
	printf '%s\n' "$stderr" | cmp want.err -
	printf '%s\n' "$output" | cmp want.json -
	# Without the option, the header's: another clock.
	timeline-emit -q "$R/910B.rec" 2>/dev/null | jq -c '[.traceEvents[] | select(.ph == "X")][0].ts' > a
	jq -c '[.traceEvents[] | select(.ph == "X")][0].ts' want.json > b
	! cmp -s a b
	# -o DIR: the per-core traces, CSVs and visualize_data.bin follow it too.
	timeline-emit -q -o want p.jsonl > want.sum 2>/dev/null
	timeline-emit -q --soc-version=Ascend310P3 -o got "$R/910B.rec" > got.sum 2>/dev/null
	diff -r want got
	cmp want.sum got.sum
}

@test "usage errors exit 2; an input that cannot be opened exits 3" {
	run timeline-emit --bogus
	[ "$status" -eq 2 ]
	run timeline-emit --soc-version=Nope "$R/910B.rec"
	[ "$status" -eq 2 ]
	run timeline-emit no/such/file
	[ "$status" -eq 3 ]
	[[ "$output" == *"no/such/file: cannot open: No such file or directory"* ]]
	run timeline-emit -h
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
	run timeline-emit --version
	[ "$status" -eq 0 ]
}

@test "-o into a file, or through a symbolic link for a core directory, is refused" {
	touch file
	run timeline-emit -o file "$R/910B.rec"
	[ "$status" -eq 4 ]
	mkdir out elsewhere
	ln -s "$T/elsewhere" out/core0.veccore0
	run timeline-emit -o out "$R/910B.rec"
	[ "$status" -eq 4 ]
	[[ "$output" == *"out/core0.veccore0: exists and is not a directory"* ]]
	[ -z "$(ls -A elsewhere)" ]
	[ ! -e out/trace.json ]
}

@test "a reader that goes away ends the tool quietly" {
	many_cores 2 3000 > m.jsonl
	run bash -c "timeline-emit m.jsonl 2>err | head -c 100 > /dev/null; echo \${PIPESTATUS[0]}"
	[ "$output" -eq 0 ]
	[ ! -s err ] || ! grep -q 'cannot write' err
}

@test "visualize_data.bin: TRACE then INSTR_API for the 910B sample, TRACE byte for byte trace.json" {
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	[ "$(vdata-dump out/visualize_data.bin | cut -d' ' -f1-2 | tr '\n' ' ')" = "type=TRACE version=90 type=INSTR_API version=0 " ]
	vdata-dump --payload TRACE out/visualize_data.bin | cmp - out/trace.json
	# The raw header bytes: size, type, padding, version 0x5A, reserved 0x5A.
	[ "$(od -An -tx1 -N12 out/visualize_data.bin | tr -d ' \n')" = "501200000000000002015a5a" ]
	# No source mapping yet: no CODE or FILE_API block, AscendC Inner Code empty.
	! vdata-dump out/visualize_data.bin | grep -q -e CODE -e FILE_API
	[ "$(instr_api out | jq -r '[.Instructions[]."AscendC Inner Code"] | unique | .[]')" = "" ]
	# Compact JSON; floats as floats.
	[ "$(instr_api out | wc -l)" -eq 0 ]
	instr_api out | grep -q '"Vector Utilization Percentage":\[-1.0,-1.0\]'
}

@test "INSTR_API: per-pc, per-core counts, cycles, GPR max, process bytes, vector min, flag Source, address-string order" {
	{
		header
		# core sub idx start end pc pipe name detail gpr bytes vec ubr ubw
		ins 0 veccore 0 100 110 0x9 VECTOR VADD 'XD:X1=0x10,XN:X2=0x20,XM:X3=0,' 3 0 50 1 0
		ins 0 veccore 0 200 215 0x9 VECTOR VADD 'XD:X1=0x11,XN:X2=0x21,XM:X3=0,' 5 0 25.5 2 4
		ins 0 veccore 1 100 104 0x9 VECTOR VADD 'XD:X1=0x12,' 2 0 75 0 0
		# bytes: summed when the first execution moved bytes, else NA (-1)
		ins 0 veccore 0 110 120 0x10 MTE2 MOV_OUT_TO_UB 'SRC:GM,DST:UB,XN:0x40' -1 512 -1 -1 -1
		ins 0 veccore 0 210 220 0x10 MTE2 MOV_OUT_TO_UB 'SRC:GM,DST:UB,XN:0x80' -1 256 -1 -1 -1
		ins 0 veccore 1 120 130 0x10 MTE2 MOV_OUT_TO_UB 'SRC:GM,DST:UB,' -1 0 -1 -1 -1
		ins 0 veccore 1 220 230 0x10 MTE2 MOV_OUT_TO_UB 'SRC:GM,DST:UB,' -1 512 -1 -1 -1
		ins 0 veccore 0 130 140 0x14 MTE2 SET_FLAG 'PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3,' 0 -1 -1 -1 -1
		ins 0 veccore 0 135 150 0x18 VECTOR WAIT_FLAG 'PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3,' 0 -1 -1 -1 -1
		ins 0 veccore 1 300 301 0x100 SCALAR NOP '' 0 -1 -1 -1 -1
		# a cache miss is not an instruction here
		ins 0 veccore 0 160 161 0x10f86a80 CACHEMISS 0x10f86a80 'sizeis0x00000080,statusisMISS' 0 -1 -1 -1 -1
		echo '{"kind":"mark","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"mark":1,"start":105,"end":305,"start_pc":"0x1c","end_pc":"0x20","name":"Mark 0x1","detail":"SPR:LPCNT,XN:X6=0x80000001,"}'
		trailer
	} | sync_fields > i.jsonl
	timeline-emit -o out i.jsonl > /dev/null 2>&1
	instr_api out > api.json
	[ "$(jq -c .Cores api.json)" = '["core0.veccore0","core0.veccore1"]' ]
	# Sorted by the address string, as the reference: 0x10 before 0x9.
	[ "$(jq -c '[.Instructions[].Address]' api.json)" = '["0x10","0x100","0x14","0x18","0x1c","0x9"]' ]
	a() { jq -c --arg a "$1" ".Instructions[] | select(.Address == \$a) | $2" api.json; }
	[ "$(a 0x9 '."Instructions Executed"')" = '[2,1]' ]
	[ "$(a 0x9 .Cycles)" = '[25,4]' ]
	[ "$(a 0x9 '."GPR Count"')" = '[5,2]' ]
	[ "$(a 0x9 '."UB Read Conflict"')" = '[2,0]' ]
	[ "$(a 0x9 '."UB Write Conflict"')" = '[4,0]' ]
	[ "$(a 0x9 '."Process Bytes"')" = '[-1,-1]' ]
	grep -q '"Vector Utilization Percentage":\[25.5,75.0\]' api.json
	# The first execution's text, values cut at =0x / :0x.
	[ "$(a 0x9 .Source)" = '"VADD XD:X1,XN:X2,XM:X3=0"' ]
	[ "$(a 0x9 .Pipe)" = '"VECTOR"' ]
	[ "$(a 0x10 '."Process Bytes"')" = '[768,-1]' ]
	[ "$(a 0x10 .Source)" = '"MOV_OUT_TO_UB SRC:GM,DST:UB,XN"' ]
	[ "$(a 0x14 .Source)" = '"SET_FLAG V ID:3"' ]
	[ "$(a 0x18 .Source)" = '"WAIT_FLAG MTE2 ID:3"' ]
	# A core that never ran a pc: 0 counts, -1 for NA.
	[ "$(a 0x100 '[."Instructions Executed", .Cycles, ."GPR Count", ."Process Bytes", ."UB Read Conflict"]')" = '[[0,1],[0,1],[0,0],[-1,-1],[-1,-1]]' ]
	grep -q '"Address":"0x100","AscendC Inner Code":"","Cycles":\[0,1\],"GPR Count":\[0,0\],"Instructions Executed":\[0,1\],"Pipe":"SCALAR","Process Bytes":\[-1,-1\],"Source":"NOP ","UB Read Conflict":\[-1,-1\],"UB Write Conflict":\[-1,-1\],"Vector Utilization Percentage":\[-1.0,-1.0\]' api.json
	# The user mark, at its start pc on pipe USERMARK.
	[ "$(a 0x1c '[.Pipe, .Source, ."Instructions Executed", .Cycles]')" = '["USERMARK","Mark 0x1 SPR:LPCNT,XN:X6",[1,0],[200,0]]' ]
	# No scalar-head ticks: no optional columns.
	[ "$(jq -c '."Instructions Dtype".Instructions | keys' api.json)" = '["Address","AscendC Inner Code","Cycles","GPR Count","Instructions Executed","Pipe","Process Bytes","Source","UB Read Conflict","UB Write Conflict","Vector Utilization Percentage"]' ]
	[ "$(jq -c '."Instructions Dtype".Instructions | [.Source, .Cycles, ."Vector Utilization Percentage"]' api.json)" = '[3,1,4]' ]
	# The window narrows it like the CSV.
	timeline-emit --to=150t -o win i.jsonl > /dev/null 2>&1
	[ "$(instr_api win | jq -c '.Instructions[] | select(.Address == "0x9") | ."Instructions Executed"')" = '[1,1]' ]
}

@test "INSTR_API: the scalar-head columns appear only when some core has a positive total" {
	{
		header
		ins 0 veccore 0 100 110 0x20 SCALAR ADD 'XD:X1=0x1,' 1 -1 -1 -1 -1 80 90
		ins 0 veccore 0 200 210 0x20 SCALAR ADD 'XD:X1=0x2,' 1 -1 -1 -1 -1 195 196
		ins 0 veccore 1 100 110 0x24 SCALAR ADD 'XD:X1=0x1,' 1 -1 -1 -1 -1
		trailer
	} > s.jsonl
	timeline-emit --aic-metrics=PipeUtilization,Overhead -o out s.jsonl > /dev/null 2>&1
	instr_api out > api.json
	[ "$(jq -c '.Instructions[] | [.Address, .ICacheCycles, .CcuCycles, .ScalarCycles]' api.json | tr '\n' ' ')" = '["0x20",[11,0],[14,0],[25,0]] ["0x24",[0,0],[0,0],[0,0]] ' ]
	[ "$(jq -c '."Instructions Dtype".Instructions | [.ICacheCycles, .CcuCycles, .ScalarCycles]' api.json)" = '[1,1,1]' ]
	# Ticks that add up to nothing: no columns.
	{
		header
		ins 0 veccore 0 100 110 0x20 SCALAR ADD 'XD:X1=0x1,' 1 -1 -1 -1 -1 100 100
		trailer
	} > z.jsonl
	timeline-emit --aic-metrics=PipeUtilization,Overhead -o z z.jsonl > /dev/null 2>&1
	[ "$(instr_api z | jq -c '[."Instructions Dtype".Instructions, .Instructions[0] | has("ScalarCycles")]')" = '[false,false]' ]
}

@test "INSTR_API: 310P flags are set_event / wait_event with their own fields" {
	{
		echo '{"kind":"header","version":1,"mhz":1000,"producer":"test","soc":"Ascend310P1","origin":"test"}'
		instr 0 "" 0 10 20 0x10 SCALAR set_event 'pipe_type:SCALAR,tigger_pipe:VECTOR,event_id:2'
		instr 0 "" 0 15 30 0x14 VECTOR wait_event 'pipe_type:SCALAR,tigger_pipe:VECTOR,event_id:2'
		instr 0 "" 0 40 50 0x18 SCALAR SET_FLAG 'PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3,'
		trailer
	} | sync_fields > p.jsonl
	timeline-emit -o out p.jsonl > /dev/null 2>&1
	[ "$(instr_api out | jq -c '[.Instructions[].Source]')" = '["set_event VECTOR ID:2","wait_event SCALAR ID:2","SET_FLAG PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3"]' ]
}

@test "a sync instruction is what its record's sync fields say, not what timeline-emit reads in its detail" {
	# Fields that disagree with the detail: the fields win, for the flag
	# Source text and for the intra-block flags' pipe and id.
	{
		echo '{"kind":"header","version":2,"mhz":1800,"producer":"test","soc":"Ascend950PR_9599","origin":"test"}'
		instr 0 veccore 0 10 20 0x10 MTE2 SET_FLAG 'PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3,' ',"sync":"set","prod":"MTE3","cons":"SCALAR","flag":"7"'
		instr 0 cubecore 0 30 40 0x14 FIXP SET_INTRA_BLOCK 'PIPE:FIXP,sync_id:5,' ',"sync":"set_intra","prod":"MTE1","cons":"","flag":"2"'
		instr 0 veccore 0 35 50 0x18 VECTOR WAIT_INTRA_BLOCK 'PIPE:V,sync_id:5,' ',"sync":"wait_intra","prod":"MTE2","cons":"","flag":"2"'
		trailer
	} > s.jsonl
	timeline-emit -o out s.jsonl > /dev/null 2>&1
	[ "$(instr_api out | jq -c '[.Instructions[] | select(.Address == "0x10") | .Source]')" = '["SET_FLAG SCALAR ID:7"]' ]
	# The intra pair: drawn on the pipes the fields name, one flow.
	[ "$(jq -c '[.traceEvents[] | select(.ph == "B" and (.name | test("INTRA"))) | [.name, .tid, .id]]' out/trace.json)" = '[["SET_INTRA_BLOCK","MTE1","intra_0"],["WAIT_INTRA_BLOCK","MTE2","intra_0"]]' ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "s" or .ph == "t") | .cat]' out/trace.json)" = '["MTE1ToMTE2","MTE1ToMTE2"]' ]
	# Without the fields: a plain flag and instructions, nothing paired.
	jq -c 'del(.sync, .prod, .cons, .flag)' s.jsonl > n.jsonl
	timeline-emit -o none n.jsonl > /dev/null 2>&1
	[ "$(instr_api none | jq -c '[.Instructions[] | select(.Address == "0x10") | .Source]')" = '["SET_FLAG PIPE:MTE2,TRIGGERPIPE:V,FLAGID:3"]' ]
}

@test "visualize_data.bin: no INSTR_API block without instructions, and never an empty block" {
	{ header; trailer; } > e.jsonl
	timeline-emit -o out e.jsonl > /dev/null 2>&1
	[ "$(vdata-dump out/visualize_data.bin | cut -d' ' -f1)" = "type=TRACE" ]
	vdata-dump --payload TRACE out/visualize_data.bin | cmp - out/trace.json
	# Cache misses alone are no instructions either.
	{ header; ins 0 veccore 0 10 11 0x40 CACHEMISS 0x40 'statusisMISS' 0 -1 -1 -1 -1; trailer; } > c.jsonl
	timeline-emit -o out2 c.jsonl > /dev/null 2>&1
	[ "$(vdata-dump out2/visualize_data.bin | cut -d' ' -f1)" = "type=TRACE" ]
	# Nor instructions all outside --from/--to.
	timeline-emit --to=1000t -o out3 "$R/910B.rec" > /dev/null 2>&1
	[ "$(vdata-dump out3/visualize_data.bin | cut -d' ' -f1)" = "type=TRACE" ]
	# Without -o there is no visualize_data.bin.
	mkdir here && cd here
	timeline-emit -q "$R/910B.rec" > /dev/null
	[ -z "$(ls -A)" ]
}

@test "visualize_data.bin: an earlier one is replaced whole; a failed run leaves it alone" {
	timeline-emit -o out "$R/910B.rec" > /dev/null 2>&1
	cp out/visualize_data.bin before.bin
	run env TMPDIR="$T/missing" timeline-emit -o out "$R/A5.rec"
	[ "$status" -eq 4 ]
	cmp before.bin out/visualize_data.bin
	timeline-emit -o out "$R/A5.rec" > /dev/null 2>&1
	vdata out
	diff -r "$gold/A5/vdata" out.vdata
}

@test "visualize_data.bin: no temporary directory for INSTR_API is an I/O error, nothing half-written" {
	run env TMPDIR="$T/missing" timeline-emit -o out "$R/910B.rec"
	[ "$status" -eq 4 ]
	[[ "$output" == *"out/visualize_data.bin: cannot create a temporary file: No such file or directory"* ]]
	# The set is all or nothing: no trace.json without its visualize_data.bin.
	[ ! -e out ]
	[ -z "$(ls -A)" ]
}

@test "MTE bandwidth records become the MTE Throughput counter tracks" {
	dump-split "$BATS_TEST_DIRNAME/../data/910B" 2>/dev/null | instr-parse -q --json | grep -v '"trailer"' > "$BATS_TEST_TMPDIR/s"
	cat >> "$BATS_TEST_TMPDIR/s" <<'JSON'
{"kind":"mte_bw","bucket_us":6,"GM_TO_UB":122.0703125,"GM_TO_L1":0,"GM_TO_TOTAL":122.0703125,"UB_TO_GM":0,"L1_TO_GM":0,"TOTAL_TO_GM":0}
{"kind":"mte_bw","bucket_us":7,"GM_TO_UB":0,"GM_TO_L1":0,"GM_TO_TOTAL":0,"UB_TO_GM":0,"L1_TO_GM":0,"TOTAL_TO_GM":0}
{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}
JSON
	run bash -c "timeline-emit -q --aic-metrics=PipeUtilization,PMSampling '$BATS_TEST_TMPDIR/s' 2>/dev/null | jq -c '[.traceEvents[] | select(.ph == \"C\")] | [length, (map(select(.ts == 6 and .name == \"GM_TO_UB\")) | .[0].args[\"throughput(MB/s)\"]), (map(.pid) | unique)]'"
	[ "$status" -eq 0 ]
	[ "$output" = '[12,122.0703125,["MTE Throughput"]]' ]
	# the counter process has a sort index like every other
	run bash -c "timeline-emit -q --aic-metrics=PipeUtilization,PMSampling '$BATS_TEST_TMPDIR/s' 2>/dev/null | jq -c '[.traceEvents[] | select(.name == \"process_sort_index\" and .pid == \"MTE Throughput\")] | length'"
	[ "$output" = 1 ]
	# a window in us keeps the buckets it overlaps
	run bash -c "timeline-emit -q --aic-metrics=PipeUtilization,PMSampling --from=7 '$BATS_TEST_TMPDIR/s' 2>/dev/null | jq -c '[.traceEvents[] | select(.ph == \"C\") | .ts] | unique'"
	[ "$output" = '[7]' ]
}

# ---- the code view (code records from src-map) ----

@test "code view: code arguments, mark source ends, code CSV, CODE and FILE_API, report equal the golden files" {
	# Source paths in code.jsonl are relative to test/golden.
	(cd "$gold" && timeline-emit --report=5 -o "$T/out" code.jsonl > "$T/summary.txt" 2> "$T/err")
	diff -r -x visualize_data.bin "$gold/code/out" out
	diff "$gold/code/summary.txt" summary.txt
	check_dir out
	vdata out
	diff -r "$gold/code/vdata" out.vdata
	# The file that is not there is named once; the others are blocks.
	[ "$(grep -c 'source file not in the code view (code-src/missing.c: No such file or directory)' err)" -eq 1 ]
	[ "$(grep -c '^type=CODE .*path=code-src/kernel.c offset=' out.vdata/blocks.txt)" -eq 1 ]
	[ "$(grep -c '^type=CODE' out.vdata/blocks.txt)" -eq 1 ]
	cmp out.vdata/CODE.txt "$gold/code-src/kernel.c"
	# Block order: TRACE, CODE, FILE_API, INSTR_API.
	[ "$(cut -d' ' -f1 out.vdata/blocks.txt | tr '\n' ' ')" = "type=TRACE type=CODE type=FILE_API type=INSTR_API " ]
}

@test "code view: every slice's code is its pc's stack; marks only with both ends; library-only pcs keep their entry" {
	(cd "$gold" && timeline-emit -q -o "$T/out" code.jsonl 2>/dev/null)
	jq -c 'select(.kind == "code") | {(.pc): .stack}' "$gold/code.jsonl" | jq -s -c add > stacks.json
	# X slices and B events carry the stack of their pc ("" when none).
	jq -e --slurpfile s stacks.json '[.traceEvents[] | select((.ph == "X" or .ph == "B") and .args.pc_addr != null)
		| select(.args.code != ($s[0][.args.pc_addr] // ""))] | length == 0' out/trace.json
	for f in out/*/trace.json; do
		jq -e --slurpfile s stacks.json '[.traceEvents[] | select(.ph == "X" and .args.pc_addr != null)
			| select(.args.code != ($s[0][.args.pc_addr] // ""))] | length == 0' "$f"
	done
	[ "$(jq -c '[.traceEvents[] | select(.tid == "USERMARK" and .ph == "X") | .args]' out/trace.json)" = \
	  '[{"trace_start":"code-src/kernel.c:7","trace_stop":"code-src/kernel.c:11"},{"trace_start":"","trace_stop":""}]' ]
	# INSTR_API: the first user entry, else the first entry.
	instr_api out | jq -e '[.Instructions[] | {(.Address): .["AscendC Inner Code"]}] | add
		| .["0x10f86014"] == "code-src/kernel.c:10" and .["0x10f86040"] == "code-src/ascend-toolkit/include/kernel_operator.h:10"
		  and .["0x10f86070"] == ""'
	# The code CSV counts user lines only, and every instruction on each of
	# its user entries, and a mark on its start pc's (as the reference);
	# cache misses never.
	[ "$(grep -c ascend-toolkit out/core0.veccore0/core0.veccore0_code_exe.csv)" -eq 0 ]
	[ "$(awk -F, 'NR > 1 { s += $3 } END { print s }' out/core0.veccore0/core0.veccore0_code_exe.csv)" -eq \
	  "$(jq -s '[.[] | select((.kind == "instr" and .pipe != "CACHEMISS" and (.pc | IN("0x10f86040", "0x10f86070") | not))
	      or .kind == "mark") | select(.subidx == 0) | .end - .start] | add' "$gold/code.jsonl")" ]
	grep -q '^code-src/kernel.c:7,2,86,' out/core0.veccore0/core0.veccore0_code_exe.csv
	# FILE_API: the mark on its line too, the lines in the reference's
	# order (by the number's text: 10, 11, 7).
	vdata-dump --payload FILE_API out/visualize_data.bin > fa.json
	[ "$(jq -c '[.Files[] | select(.Source == "code-src/kernel.c") | .Lines[] | [.Line, .Cycles[0], ."Instructions Executed"[0]]]' fa.json)" = \
	  '[[10,45,9],[11,1,1],[7,86,2]]' ]
}

@test "code view end to end: src-map on a -g kernel, the hot loop's line on top, lines add up to the instructions" {
	src="$BATS_TEST_DIRNAME/../golden/code-src"
	cc -g -gdwarf-4 -O0 -I "$src/ascend-toolkit/include" -c "$src/kernel.c" -o k.o
	base=$((0x10f86000))
	at() { # the first address of FILE at LINE
		printf '%d' "$(objdump --dwarf=decodedline k.o | awk -v f="$1" -v l="$2" '$1 == f && $2 == l { print $3; exit }')"
	}
	loop=$(at kernel.c "$(grep -n HOT_LOOP "$src/kernel.c" | cut -d: -f1)")
	ret=$(at kernel.c "$(grep -n HOT_RET "$src/kernel.c" | cut -d: -f1)")
	inl=$(at kernel_operator.h "$(grep -n TK_INLINE "$src/ascend-toolkit/include/kernel_operator.h" | cut -d: -f1)")
	{ header
	  for ((i = 0; i < 50; i++)); do
		instr 0 veccore 0 $((100 + 20 * i)) $((103 + 20 * i)) "$(printf '0x%x' $((base + loop)))" SCALAR ADD ""
		instr 0 veccore 0 $((103 + 20 * i)) $((115 + 20 * i)) "$(printf '0x%x' $((base + inl)))" VECTOR VMUL ""
	  done
	  instr 0 veccore 0 2000 2002 "$(printf '0x%x' $((base + ret)))" SCALAR RET ""
	  instr 0 veccore 0 2002 2009 0x7000 SCALAR FAR ""
	  trailer; } > in.jsonl
	printf '0x%x\n' $base > pc_start_addr.txt
	src-map --binary k.o --pc-start pc_start_addr.txt in.jsonl | timeline-emit --report=3 -o out > report.txt
	csv=out/core0.veccore0/core0.veccore0_code_exe.csv
	# The loop line (the VMUL's inline stack ends there too) is the top row.
	[[ "$(sed -n 2p "$csv")" == *"/kernel.c:$(grep -n HOT_LOOP "$src/kernel.c" | cut -d: -f1),100,750,"* ]]
	[ "$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$csv")" -eq 752 ]
	# The report: the loop line first, lines plus "no source" = all cycles.
	sed -n '/instruction cycles/,$p' report.txt > r
	[[ "$(sed -n 1p r)" == *"core0.veccore0: 759 instruction cycles"* ]]
	# (the VMULs count on their inner entry: the toolkit line is a library
	# entry, so the user line of the loop; the ADDs on the loop line too)
	[[ "$(sed -n 4p r)" == *"750   98.8%        100  "*"/kernel.c:$(grep -n HOT_LOOP "$src/kernel.c" | cut -d: -f1)" ]]
	[[ "$(sed -n '/top instructions/{n;n;p}' r)" == *"600   79.1%         50  $(printf '0x%x' $((base + inl)))"*"VMUL"* ]]
	[ "$(sed -n '/top source lines/,/top instructions/p' r | awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }')" -eq 759 ]
	instr_api out | jq -e --arg l "kernel.c:$(grep -n HOT_LOOP "$src/kernel.c" | cut -d: -f1)" \
		'[.Instructions[] | select(.Pipe == "VECTOR")][0]["AscendC Inner Code"] | endswith($l)'
}

@test "--report: on standard error without -o; without code records the instructions only; N must be positive" {
	run bash -c "timeline-emit --report=2 '$R/910B.rec' 2>&1 >/dev/null"
	[ "$status" -eq 0 ]
	[[ "$output" == *"No source lines: the stream has no code records"* ]]
	[[ "$output" == *"core0.veccore0: 553 instruction cycles"* ]]
	[ "$(echo "$output" | grep -c 'WAIT_FLAG')" -eq 2 ]
	run timeline-emit --report=0 "$R/910B.rec"
	[ "$status" -eq 2 ]
}

mark() { # core sub subidx start end start_pc end_pc
	printf '{"kind":"mark","core":%s,"sub":"%s","subidx":%s,"block":-1,"subblock":-1,"mark":1,"start":%s,"end":%s,"start_pc":"%s","end_pc":"%s","name":"Mark 0x1","detail":""}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7"
}

# The sanitizer build of timeline-emit (make build-san/bin/timeline-emit).
san_emit() {
	local top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	SAN=$top/build-san/bin/timeline-emit
	[ -x "$SAN" ] || skip "build-san/bin/timeline-emit is missing (make build-san/bin/timeline-emit)"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}

@test "a core whose first record is a mark: drawn, no crash, nothing left behind" {
	{ header; mark 0 veccore 0 10 20 0x100 0x200; instr 0 veccore 0 30 40 0x104 VECTOR VADD x; mark 1 veccore 0 5 6 0x1 0x2; trailer; } > m.jsonl
	run timeline-emit -o out m.jsonl
	[ "$status" -eq 0 ]
	check_dir out
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.pid, .tid, .name]]' out/trace.json)" = \
		'[["core0.veccore0","USERMARK","Mark 0x1"],["core1.veccore0","USERMARK","Mark 0x1"],["core0.veccore0","VECTOR","VADD"]]' ]
	[ -z "$(find out -name '*tmp*')" ]
	run timeline-emit m.jsonl
	[ "$status" -eq 0 ]
}

@test "sanitizers: records without name or detail, ticks and bytes near 2^63 and 2^64" {
	san_emit
	{
		header
		instr 0 veccore 0 10 20 0x100 VECTOR "" ""
		for st in 0 9223372036854775807 18446744073709551000; do
			for en in 5 9223372036854775808 18446744073709551615; do
				ins 0 veccore 0 "$st" "$en" 0x200 SCALAR ADD x 7 9223372036854775000 -1 -1 -1 0 9223372036854775807
				ins 0 veccore 0 "$st" "$en" 0x204 SCALAR WAIT_FLAG x 7 -9223372036854775807 -1 -1 -1 18446744073709551614 1
				mark 0 veccore 0 "$st" "$en" 0x208 0x20c
			done
		done
		trailer
	} > huge.jsonl
	run "$SAN" --aic-metrics=PipeUtilization,ResourceConflictRatio,Overhead -o out huge.jsonl
	# ticks near 2^64 do not fit in microseconds: said, status 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"times did not fit in microseconds"* ]]
	[[ "$output" != *"runtime error"* ]]
	[[ "$output" != *"AddressSanitizer"* ]]
	check all out/trace.json
	jq -e . out/core0.veccore0/trace.json > /dev/null
	# Sums stop at the int64 range instead of wrapping.
	# (jq would round these: compare the text.)
	instr_api out | grep -q '"Process Bytes":\[9223372036854775807\]'
	instr_api out | grep -q '"ICacheCycles":\[9223372036854775807\]'
	instr_api out | grep -q '"ICacheCycles":\[-9223372036854775808\]'

	run "$SAN" huge.jsonl
	[ "$status" -eq 1 ]
	[[ "$output" != *"runtime error"* ]]
}

# The TRUNCATED mark of a trace: its reason, or nothing.
truncated() { jq -r '.traceEvents[] | select(.pid == "TRUNCATED" or .pid == 999999) | select(.name == "process_name") | .args.name' "$1"; }

@test "interrupted input: no trailer, or a trailer that says so, marks every trace and the summary" {
	many_cores 2 20 > m.jsonl
	head -n -1 m.jsonl > cut.jsonl
	run timeline-emit -o out cut.jsonl
	[ "$status" -eq 1 ]
	check_dir out
	want='TRUNCATED: the input ended without a trailer record (cut short upstream)'
	[ "$(truncated out/trace.json)" = "$want" ]
	for f in out/*/trace.json; do
		[ "$(truncated "$f")" = "$want" ]
		# A global instant for the viewers, at the core's last tick.
		[ "$(jq -c '[.traceEvents[] | select(.ph == "i") | [.s, .cat, .name]]' "$f")" = "[[\"g\",\"optrace\",\"$want\"]]" ]
	done
	[[ "$output" == *"$want"* ]]
	# On standard output too.
	timeline-emit -q cut.jsonl > t.json || true
	[ "$(truncated t.json)" = "$want" ]
	# The producer was interrupted: its trailer says so.
	{ head -n -1 m.jsonl; echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":1,"producer":"test"}'; } > intr.jsonl
	rm -rf out
	run timeline-emit -o out intr.jsonl
	[ "$status" -eq 1 ]
	check_dir out
	want='TRUNCATED: the producer upstream was interrupted (its trailer says so)'
	[ "$(truncated out/trace.json)" = "$want" ]
	[ "$(truncated out/core0.veccore1/trace.json)" = "$want" ]
	[[ "$output" == *"$want"* ]]
	# A whole stream: no mark.
	rm -rf out
	timeline-emit -o out m.jsonl > summary.txt
	[ -z "$(truncated out/trace.json)" ]
	[ -z "$(truncated out/core0.veccore0/trace.json)" ]
	! grep -q TRUNCATED summary.txt
}

@test "SIGINT and SIGTERM: exit 130, every output closed, valid and marked interrupted" {
	many_cores 4 400 > m.jsonl
	for sig in INT TERM; do
		rm -rf out fifo err summary.txt
		mkfifo fifo
		timeline-emit -v -o out < fifo > summary.txt 2> err &
		pid=$!
		# Half the stream, the pipe held open: the tool waits for more.
		exec 5> fifo
		head -n 800 m.jsonl >&5
		# -v names each core as it appears: the fourth is in.
		for i in $(seq 600); do
			grep -q 'core1.veccore1: new core' err && break
			sleep 0.1
		done
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		exec 5>&-
		[ "$st" -eq 130 ]
		check_dir out
		[ -z "$(find out -name '*tmp*')" ]
		want='TRUNCATED: timeline-emit was interrupted (SIGINT/SIGTERM) before the end of its input'
		[ "$(truncated out/trace.json)" = "$want" ]
		for f in out/*/trace.json; do
			[ "$(truncated "$f")" = "$want" ]
		done
		grep -q "$want" summary.txt
		vdata out
	done
}

# An A2 stream with scalar-head ticks: a scalar ALU op (SCALARLDST in the
# per-core trace), a WAIT, a SET and a BAR, each with fetch and CCU ticks.
head_stream() {
	header
	ins 0 veccore 0 100 104 0x100 SCALAR ADD 'XD:X1=0x1,' 1 -1 -1 -1 -1 90 98
	ins 0 veccore 0 102 106 0x104 SCALAR ADD 'XD:X2=0x1,' 1 -1 -1 -1 -1 95 101
	ins 0 veccore 0 110 111 0x108 MTE2 SET_FLAG 'PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,' 0 -1 -1 -1 -1 105 108
	ins 0 veccore 0 107 130 0x10c SCALAR WAIT_FLAG 'PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,' 0 -1 -1 -1 -1 103 106
	ins 0 veccore 0 131 140 0x110 VECTOR BAR 'PIPE:V,' 0 -1 -1 -1 -1 120 125
	trailer
}

@test "--aic-metrics=...,Overhead: scalar head events in the per-core trace too, grouped, overlap-free" {
	head_stream > h.jsonl
	timeline-emit --aic-metrics=PipeUtilization,ResourceConflictRatio,Overhead -o out h.jsonl > /dev/null 2>&1
	check_dir out
	t=out/core0.veccore0/trace.json
	# Every instruction but SET_FLAG and BAR: cache_time (fetch to issue),
	# ccu_time (issue to pop), then the instruction, one group id
	# (<pipe><index in the pipe>), one thread.
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.pid, .tid, .ts, .name, .group_id]] | sort' "$t")" = \
	  '[[10,1,0.055676,"cache_time","SCALAR0"],[10,1,0.057297,"ccu_time","SCALAR0"],[10,1,0.057838,"WAIT_FLAG","SCALAR0"],[20,1,0.048649,"cache_time","SCALARLDST0"],[20,1,0.052973,"ccu_time","SCALARLDST0"],[20,1,0.054054,"ADD","SCALARLDST0"],[20,2,0.051351,"cache_time","SCALARLDST1"],[20,2,0.054595,"ccu_time","SCALARLDST1"],[20,2,0.055135,"ADD","SCALARLDST1"],[30,1,0.075135,"BAR",null],[60,1,0.059459,"SET_FLAG",null]]' ]
	# The all-cores trace has them as before, grouped by instruction index.
	[ "$(jq '[.traceEvents[] | select(.name == "cache_time" or .name == "ccu_time")] | length' out/trace.json)" -eq 6 ]
}

@test "--aic-metrics: the default and PipeUtilization alone leave out the scalar head and the MTE chart" {
	head_stream > h.jsonl
	printf '%s\n' '{"kind":"mte_bw","bucket_us":0,"GM_TO_UB":1.5,"GM_TO_L1":0,"GM_TO_TOTAL":1.5,"UB_TO_GM":0,"L1_TO_GM":0,"TOTAL_TO_GM":0}' > bw.jsonl
	sed '1r bw.jsonl' h.jsonl > hb.jsonl
	for m in '' PipeUtilization 'pipeutilization,RESOURCECONFLICTRATIO'; do
		rm -rf out
		timeline-emit ${m:+"--aic-metrics=$m"} -o out hb.jsonl > /dev/null 2>&1
		[ "$(cat out/trace.json out/core0.veccore0/trace.json | grep -c 'cache_time\|ccu_time\|MTE Throughput')" -eq 0 ]
		[ -z "$(vdata-dump --payload INSTR_API out/visualize_data.bin | grep ICacheCycles)" ]
	done
	timeline-emit --aic-metrics=PipeUtilization,ResourceConflictRatio,PMSampling -q hb.jsonl | grep -q '"pid":"MTE Throughput"'
	timeline-emit --aic-metrics=PipeUtilization,Overhead -o out2 hb.jsonl > /dev/null 2>&1
	vdata-dump --payload INSTR_API out2/visualize_data.bin | grep -q ICacheCycles
}

@test "--aic-metrics without ResourceConflictRatio: no SET/WAIT flags anywhere" {
	timeline-emit -o all "$R/910B.rec" > /dev/null 2>&1
	timeline-emit --aic-metrics=PipeUtilization -o pu "$R/910B.rec" > pu.txt 2>/dev/null
	grep -q FLAG all/trace.json
	! grep -q 'FLAG' pu/trace.json pu/*/trace.json pu/*/*_instr_exe.csv
	! grep -q 'SET_FLAG\|WAIT_FLAG' pu.vd < <(vdata-dump --payload INSTR_API pu/visualize_data.bin > pu.vd; cat pu.vd)
	# The flag instructions are not counted either.
	grep -q '^core0.veccore0: 4 instructions' pu.txt
}

@test "--aic-metrics: the simulator's names only, each on its chips; exit 2 otherwise" {
	for m in foo Default PipeUtilization,Roofline 'PipeUtilization;Overhead'; do
		run timeline-emit --aic-metrics="$m" "$R/910B.rec"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--aic-metrics"* ]]
	done
	# Overhead is A2/A3 only: refused for the A5 stream, before any output.
	run timeline-emit --aic-metrics=PipeUtilization,Overhead -o out "$R/A5.rec"
	[ "$status" -eq 2 ]
	[ ! -e out/trace.json ]
	run timeline-emit --aic-metrics=Overhead --soc-version=Ascend310P1 "$R/910B.rec"
	[ "$status" -eq 2 ]
	# Empty names are dropped; an empty value is the default.
	timeline-emit -q --aic-metrics=,PipeUtilization,, "$R/910B.rec" > a.json
	! grep -q FLAG a.json
	timeline-emit -q --aic-metrics= "$R/910B.rec" | grep -q FLAG
}

@test "per-core threads: of two slices ending on one tick the later-starting one goes first, as the reference" {
	{
		header
		instr 0 veccore 0 10 20 0x100 VECTOR VADD 'a'
		instr 0 veccore 0 15 20 0x104 VECTOR VMUL 'b'
		instr 0 veccore 0 21 30 0x108 VECTOR VADD 'c'
		trailer
	} > s.jsonl
	timeline-emit -o out s.jsonl > /dev/null 2>&1
	check_dir out
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.name, .tid]] | sort' out/core0.veccore0/trace.json)" = \
	  '[["VADD",1],["VADD",2],["VMUL",1]]' ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X" and .args.detail == "a") | .tid]' out/core0.veccore0/trace.json)" = '[2]' ]
}

@test "INSTR_API: a vector utilization of 100 or 50 is written 100.0 or 50.0, as any float" {
	{
		header
		ins 0 veccore 0 10 20 0x10 VECTOR VADD 'XD:X1' 0 -1 100 -1 -1
		ins 0 veccore 1 10 20 0x10 VECTOR VADD 'XD:X1' 0 -1 0.5 -1 -1
		ins 1 veccore 0 10 20 0x10 VECTOR VADD 'XD:X1' 0 -1 50 -1 -1
		trailer
	} | sync_fields > v.jsonl
	timeline-emit -o out v.jsonl > /dev/null 2>&1
	instr_api out | grep -q '"Vector Utilization Percentage":\[100.0,0.5,50.0\]'
}

@test "a pipe named WARP_ and no number is an unknown pipe, not warp 0" {
	{
		header
		instr 0 veccore 0 10 20 0x10 WARP_x VADD '' ',"sync":"","prod":"","cons":"","flag":""'
		instr 0 veccore 0 30 40 0x14 FOO VADD '' ',"sync":"","prod":"","cons":"","flag":""'
		trailer
	} > w.jsonl
	timeline-emit -o out w.jsonl > /dev/null 2>&1
	# Unknown pipes sort after the known lanes in arrival order (24, 25);
	# warps sort at 100 + their number.
	[ "$(jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_sort_index") | [.tid, .args.sort_index]]' out/trace.json)" = '[["WARP_x",24],["FOO",25]]' ]
}
