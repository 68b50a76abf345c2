#!/usr/bin/env bats
# scalar-merge: the A2/A3 scalar head overhead from CCU lines and fetch records.

setup() {
	data="$BATS_TEST_DIRNAME/../data"
	tmp="$BATS_TEST_TMPDIR"
}

header() { echo "{\"kind\":\"header\",\"version\":1,\"mhz\":1850,\"producer\":\"test\",\"soc\":\"${1:-Ascend910B1}\",\"origin\":\"test\"}"; }
trailer() { echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'; }
# ccu 'text'... : CCU raw-line records of core0.veccore0
ccu() {
	local n=0
	for t in "$@"; do
		n=$((n + 1))
		jq -nc --arg t "$t" --argjson n "$n" '{kind:"line",file:7,core:0,sub:"veccore",subidx:0,log:"ccu",line:$n,text:$t}'
	done
}
# fetch TICK PC
fetch() { echo "{\"kind\":\"fetch\",\"core\":0,\"sub\":\"veccore\",\"subidx\":0,\"tick\":$1,\"pc\":\"$2\"}"; }
# instr START PC
instr() { echo "{\"kind\":\"instr\",\"core\":0,\"sub\":\"veccore\",\"subidx\":0,\"block\":-1,\"subblock\":-1,\"start\":$1,\"end\":$(($1 + 1)),\"pc\":\"$2\",\"id\":0,\"warp\":-1,\"sch\":-1,\"threads\":-1,\"gpr\":0,\"bytes\":0,\"vec_util\":-1,\"ub_read\":-1,\"ub_write\":-1,\"icache_tick\":null,\"ccu_tick\":null,\"sync\":\"\",\"pipe\":\"SCALAR\",\"name\":\"ADD\",\"detail\":\"\",\"prod\":\"\",\"cons\":\"\",\"flag\":\"\"}"; }
ticks() { jq -c 'select(.kind=="instr") | [.pc,.start,.icache_tick,.ccu_tick]'; }
export -f ticks

@test "the greatest fetch tick strictly before the CCU tick; fetch blocks cover pc..pc+12" {
	{
		header
		fetch 10 0x1000; fetch 50 0x1000; fetch 100 0x1000; fetch 40 0x1000
		ccu '[info] 100: is_single_issue instr, pc:0x1000' '[info] 120: ccu do issue success.issue isa pc :0x100c'
		instr 110 0x1000; instr 130 0x100c
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' | jq -c 'select(.kind==\"instr\") | [.pc,.icache_tick,.ccu_tick]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '["0x1000",50,100]' ]
	[ "${lines[1]}" = '["0x100c",100,120]' ]
	# CCU lines are consumed, fetch records pass through
	[ "$(scalar-merge --json "$tmp/in" | jq -c 'select(.kind=="line")' | wc -l)" -eq 0 ]
	[ "$(scalar-merge --json "$tmp/in" | jq -c 'select(.kind=="fetch")' | wc -l)" -eq 4 ]
}

@test "no fetch before a CCU entry: that pc's remaining entries get no overhead" {
	{
		header
		fetch 50 0x2000
		ccu '[info] 100: is_single_issue instr, pc:0x2000' '[info] 20: is_single_issue instr, pc:0x2000' \
			'[info] 300: is_single_issue instr, pc:0x2000'
		instr 110 0x2000; instr 150 0x2000; instr 310 0x2000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' | jq -c 'select(.kind==\"instr\") | [.start,.icache_tick]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '[110,50]' ]
	[ "${lines[1]}" = '[150,null]' ]
	[ "${lines[2]}" = '[310,null]' ]
}

@test "the j-th record of a pc gets the j-th CCU entry; ccuTick > start stops the pc" {
	{
		header
		fetch 1 0x3000
		ccu '[info] 100: is_single_issue instr, pc:0x3000' '[info] 200: is_single_issue instr, pc:0x3000' \
			'[info] 400: is_single_issue instr, pc:0x3000' '[info] 500: is_single_issue instr, pc:0x3000'
		instr 105 0x3000; instr 205 0x3000; instr 300 0x3000; instr 505 0x3000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' | jq -c 'select(.kind==\"instr\") | [.start,.ccu_tick]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '[105,100]' ]
	[ "${lines[1]}" = '[205,200]' ]
	[ "${lines[2]}" = '[300,null]' ]
	[ "${lines[3]}" = '[505,null]' ]
}

@test "entries running out leave the rest of the pc; pcs without CCU data are untouched" {
	{
		header
		fetch 1 0x4000
		ccu '[info] 100: is_single_issue instr, pc:0x4000'
		instr 105 0x4000; instr 205 0x4000; instr 50 0x4004; instr 60 0x5000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' | ticks"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '["0x4000",105,1,100]' ]
	[ "${lines[1]}" = '["0x4000",205,null,null]' ]
	[ "${lines[2]}" = '["0x4004",50,null,null]' ]
	[ "${lines[3]}" = '["0x5000",60,null,null]' ]
}

@test "instruction records interleaved across pcs: each pc in its own start order" {
	{
		header
		fetch 5 0x6000
		ccu '[info] 10: is_single_issue instr, pc:0x6000' '[info] 11: is_single_issue instr, pc:0x6004' \
			'[info] 20: is_single_issue instr, pc:0x6000' '[info] 21: is_single_issue instr, pc:0x6004'
		instr 12 0x6004; instr 11 0x6000; instr 22 0x6004; instr 25 0x6000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' | ticks"
	[ "$output" = "$(printf '%s\n' '["0x6004",12,5,11]' '["0x6000",11,5,10]' '["0x6004",22,5,21]' '["0x6000",25,5,20]')" ]
}

@test "a non-A2/A3 SoC passes everything through with a note" {
	{
		header Ascend310P1
		fetch 1 0x1000
		ccu '[info] 100: is_single_issue instr, pc:0x1000'
		instr 105 0x1000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 0 ]
	grep -q 'not an A2/A3' "$tmp/err"
	[ "$(jq -c 'select(.kind=="instr") | [.icache_tick,.ccu_tick]' <<<"$output")" = '[null,null]' ]
	[ "$(jq -c 'select(.kind=="line")' <<<"$output" | wc -l)" -eq 1 ]
}

@test "a missing CCU log is a note, not an error; records pass through" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse 2>/dev/null | scalar-merge --json 2>$tmp/err"
	[ "$status" -eq 0 ]
	grep -q 'core0.veccore0: no CCU log' "$tmp/err"
	[ "$(jq -c 'select(.kind=="instr")' <<<"$output" | wc -l)" -eq 12 ]
	[ "$(jq -c 'select(.kind=="instr" and .ccu_tick != null)' <<<"$output" | wc -l)" -eq 0 ]
	[ "$(jq -c 'select(.kind=="line" and .log=="icache")' <<<"$output" | wc -l)" -eq 6 ]
}

@test "missing fetch records: a note" {
	{ header; ccu '[info] 100: is_single_issue instr, pc:0x1000'; instr 105 0x1000; trailer; } >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' 2>$tmp/err | ticks"
	[ "$output" = '["0x1000",105,null,null]' ]
	grep -q 'no fetch records' "$tmp/err"
}

@test "CCU lines out of the grammar are counted with file:line; other CCU lines are ignored" {
	{
		header
		jq -nc '{kind:"source",file:7,core:0,sub:"veccore",subidx:0,log:"ccu",part:0,path:"d/core0.veccore0.ccu_log.dump"}'
		fetch 1 0x1000
		ccu '[info] 100: is_single_issue instr, pc:0x1000' '[info] 101: is_single_issue instr, pc:0xZZ' \
			'[info] 102: something else entirely' '[info] 103: ccu do issue successXissue isa pc :0x1000'
		instr 105 0x1000; instr 106 0x1000
		trailer
	} >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 1 ]
	grep -q '1 CCU issue lines not in the grammar' "$tmp/err"
	grep -q 'd/core0.veccore0.ccu_log.dump:2: ccu' "$tmp/err"
	[ "$(jq -c 'select(.kind=="trailer") | .bad' <<<"$output")" -eq 1 ]
	[ "$(jq -c 'select(.kind=="diag") | [.count,.line]' <<<"$output")" = '[1,2]' ]
	[ "$(jq -c 'select(.kind=="instr") | .ccu_tick' <<<"$output" | tr '\n' ' ')" = '100 103 ' ]
}

@test "CCU lines after their core's instructions are counted as late" {
	{ header; fetch 1 0x1000; instr 105 0x1000; ccu '[info] 100: is_single_issue instr, pc:0x1000'; trailer; } >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 1 ]
	grep -q '1 CCU lines or fetch records after' "$tmp/err"
}

# A copy of the A2 sample with a CCU log; the fetch records (icache-merge's
# output) are spliced in by hand after the header.
@test "pipeline: dump-split | instr-parse | scalar-merge | timeline-emit draws cache_time and ccu_time" {
	cp -r "$data/910B" "$tmp/d"
	printf '%s\n' '[info] 11030: is_single_issue instr, pc:0x10f86000' \
		'[info] 11032: ccu do issue success.issue isa pc :0x10f86004' >"$tmp/d/core0.veccore0.ccu_log.dump"
	dump-split --json "$tmp/d" 2>/dev/null | instr-parse --json 2>/dev/null |
		sed '1a {"kind":"fetch","core":0,"sub":"veccore","subidx":0,"tick":11020,"pc":"0x10f86000"}' >"$tmp/in"
	run bash -c "scalar-merge --json '$tmp/in' 2>/dev/null | ticks | grep -v null"
	[ "$output" = "$(printf '%s\n' '["0x10f86000",11035,11020,11030]' '["0x10f86004",11036,11020,11032]')" ]
	scalar-merge "$tmp/in" 2>/dev/null | timeline-emit --aic-metrics=PipeUtilization,ResourceConflictRatio,Overhead -o "$tmp/out" >/dev/null 2>&1
	tr="$tmp/out/trace.json"
	[ -n "$tr" ]
	run jq -c '[.traceEvents[] | select(.name=="cache_time" or .name=="ccu_time") | [.name,.pid]] | sort' "$tr"
	[ "$output" = '[["cache_time","core0.veccore0"],["cache_time","core0.veccore0"],["ccu_time","core0.veccore0"],["ccu_time","core0.veccore0"]]' ]
}

@test "lz4 output, -o only on success, usage errors" {
	{ header; fetch 1 0x1000; ccu '[info] 100: is_single_issue instr, pc:0x1000'; instr 105 0x1000; trailer; } >"$tmp/in"
	scalar-merge --lz4 -o "$tmp/out.lz4" "$tmp/in"
	[ "$(lz4 -dc "$tmp/out.lz4" | rec-cat --json | ticks)" = '["0x1000",105,1,100]' ]
	run scalar-merge --soc-version=NoSuchChip -o "$tmp/out" "$tmp/in"
	[ "$status" -eq 2 ]
	[ ! -e "$tmp/out" ]
	run scalar-merge --no-such-option
	[ "$status" -eq 2 ]
	run scalar-merge "$tmp/missing"
	[ "$status" -eq 3 ]
	run scalar-merge --help
	[ "$status" -eq 0 ]
	run scalar-merge --version
	[ "$status" -eq 0 ]
}

@test "a broken pipe downstream ends quietly" {
	run bash -c "dump-split --json '$data/910B' 2>/dev/null | scalar-merge --json 2>$tmp/err | head -n 1"
	[ "$status" -eq 0 ]
	! grep -q 'write' "$tmp/err"
}

# Random streams against test/bench/scalar-oracle.py, which computes the
# scalar head overhead (optrace-sidelogs(5), CCU LOG) the reference's way
# (whole tables in memory).  Per core, arrival order.
oracle() { python3 "$BATS_TEST_DIRNAME/../bench/scalar-oracle.py" "$@"; }
got() {
	jq -c 'select(.kind=="instr") | [.core,.pc,.start,.icache_tick,.ccu_tick]' |
		python3 -c 'import sys, json
rows = [json.loads(l) for l in sys.stdin]
rows.sort(key=lambda r: r[0])
for r in rows: print(json.dumps(r[1:], separators=(",", ":")))'
}

@test "random streams: the same ticks as the whole-table algorithm, in order, out of order, any --window" {
	for seed in 1 2 3 4; do
		for order in "" --unordered; do
			oracle gen $seed $order >"$tmp/in"
			oracle expect "$tmp/in" >"$tmp/exp"
			# the oracle finds overhead for some records, not all
			grep -q '[0-9],[0-9]*,[0-9]*\]$' "$tmp/exp"
			grep -q 'null,null\]$' "$tmp/exp"
			rec-cat --bin "$tmp/in" >"$tmp/in.bin"
			for w in 262144 5 0; do
				scalar-merge --window=$w --json "$tmp/in" 2>"$tmp/err" | got >"$tmp/got"
				cmp "$tmp/exp" "$tmp/got"
				# binary in, binary out: records patched in place
				scalar-merge --window=$w "$tmp/in.bin" 2>"$tmp/err" | rec-cat --json | got >"$tmp/got"
				cmp "$tmp/exp" "$tmp/got"
			done
		done
	done
}

@test "large streams: spools in temporary files, sorted runs merged; a note with -v says so" {
	oracle gen 9 --issues 140000 >"$tmp/in"
	oracle expect "$tmp/in" >"$tmp/exp"
	scalar-merge -v --json "$tmp/in" 2>"$tmp/err" | got >"$tmp/got"
	cmp "$tmp/exp" "$tmp/got"
	# binary records (many with escaped bytes) patched in place: the same
	rec-cat --bin "$tmp/in" | scalar-merge -o "$tmp/out.bin"
	[ "$(grep -ac $'\x1a' "$tmp/out.bin")" -gt 1000 ]
	rec-cat --json "$tmp/out.bin" | got >"$tmp/got"
	cmp "$tmp/exp" "$tmp/got"
	! grep -q 'temporary file' "$tmp/err"
	scalar-merge -v --window=100 --json "$tmp/in" 2>"$tmp/err" | got >"$tmp/got"
	cmp "$tmp/exp" "$tmp/got"
	grep -q 'core0.veccore0: more than 100 CCU issues waited' "$tmp/err"
	oracle gen 9 --issues 140000 --unordered >"$tmp/in"
	oracle expect "$tmp/in" >"$tmp/exp"
	TMPDIR="$tmp" scalar-merge -v --json "$tmp/in" 2>"$tmp/err" | got >"$tmp/got"
	cmp "$tmp/exp" "$tmp/got"
	grep -q 'core1.veccore0: CCU log not in tick order' "$tmp/err"
	grep -q 'core1.veccore0: fetch records not in tick order' "$tmp/err"
	# the temporary files are unlinked
	[ -z "$(find "$tmp" -maxdepth 1 -name 'optrace.*')" ]
}

@test "a temporary file that cannot be written: exit 4, one line, no output file" {
	oracle gen 9 --issues 20000 >"$tmp/in"
	run bash -c "TMPDIR='$tmp/no/such/dir' scalar-merge -o '$tmp/out' '$tmp/in' 2>&1"
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "scalar-merge: temporary file: create: "* ]]
	[ ! -e "$tmp/out" ]
}

@test "golden outputs: the example lines of optrace-sidelogs(5) and the 910B sample (test/golden/stages)" {
	sh "$BATS_TEST_DIRNAME/../golden/stages/make.sh" "$BATS_TEST_TMPDIR/golden"
	for n in scalar-910B; do
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.jsonl" "$BATS_TEST_TMPDIR/golden/$n.jsonl"
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.err" "$BATS_TEST_TMPDIR/golden/$n.err"
	done
}

@test "binary input in blocks: the same stream as the decoder writes, with escaped numbers, a record longer than a block, a bad record, no last LF" {
	head -c 200000 /dev/zero | tr '\0' x >"$tmp/detail"
	{
		header
		# ticks, pcs and line numbers with LF (0x0a) and ESC (0x1a) bytes
		fetch 2570 0x0a00; fetch 6666 0x1a1a
		jq -nc '{kind:"line",file:3,core:0,sub:"",subidx:0,log:"mte",line:658970,text:"mte \u001a text"}'
		jq -nc '{kind:"line",file:10,core:0,sub:"veccore",subidx:0,log:"ccu",line:6666,text:"[info] 2600: is_single_issue instr, pc:0xa00"}'
		jq -nc '{kind:"line",file:26,core:0,sub:"veccore",subidx:0,log:"ccu",line:2570,text:"[info] 6700: ccu do issue success.issue isa pc :0x1a1a"}'
		ccu '[info] 6800: is_single_issue instr, pc:0x1a1e'
		instr 2600 0xa00; instr 6710 0x1a1a
		instr 6810 0x1a1e | jq -c --rawfile d "$tmp/detail" '.detail = $d'
		instr 6900 0x1a1e
		trailer
	} >"$tmp/in"
	rec-cat --bin "$tmp/in" >"$tmp/in.bin"
	[ "$(grep -ac $'\x1a' "$tmp/in.bin")" -ge 6 ]
	# --json takes every record through the decoder
	scalar-merge --json "$tmp/in.bin" >"$tmp/exp"
	scalar-merge "$tmp/in.bin" | rec-cat --json >"$tmp/got"
	cmp "$tmp/exp" "$tmp/got"
	[ "$(ticks <"$tmp/exp" | grep -c '[0-9],[0-9]*\]$')" -eq 3 ]
	# a bad record between two good ones, and the last record without its LF
	{ head -n 5 "$tmp/in.bin"; printf 'I\001\002\n'; tail -n +6 "$tmp/in.bin" | head -c -1; } >"$tmp/bad.bin"
	run bash -c "scalar-merge --json '$tmp/bad.bin' 2>&1 >'$tmp/exp'"
	[ "$status" -eq 1 ]
	experr=$output
	run bash -c "scalar-merge '$tmp/bad.bin' 2>&1 >'$tmp/got.bin'"
	[ "$status" -eq 1 ]
	[ "$output" = "$experr" ]
	echo "$output" | grep -q 'bad.bin:6: bad record'
	rec-cat --json "$tmp/got.bin" | cmp "$tmp/exp" -
}

@test "bad records read in blocks: warned about at their own line of their own input, as the other filters do" {
	# 3000 instruction records (about 470 KB binary: several blocks), one
	# in three with escaped ticks
	{
		header
		fetch 1 0x1000
		ccu '[info] 2: is_single_issue instr, pc:0x1000'
		for i in $(seq 1 3000); do instr $((i % 3 ? i * 16 : 2570 + i * 65536)) 0x1000; done
		trailer
	} >"$tmp/in"
	rec-cat --bin "$tmp/in" >"$tmp/a.bin"
	[ "$(grep -ac $'\x1a' "$tmp/a.bin")" -ge 900 ]
	# bad records at lines 1500 (too short), 2800 (a bad escape) and 3004
	# (trailing bytes after the last field), in the second input
	awk 'NR == 1500 { printf "I\001\002\n" } NR == 2799 { printf "I\032Q\n" }
	     NR == 3002 { printf "%s", $0 "x\n"; next } { print }' "$tmp/a.bin" >"$tmp/bad.bin"
	[ "$(sed -n '1500p;2800p' "$tmp/bad.bin" | wc -c)" -eq 8 ]
	for enc in "" --json; do
		run bash -c "scalar-merge $enc '$tmp/a.bin' '$tmp/bad.bin' 2>&1 >/dev/null"
		[ "$status" -eq 1 ]
		[ "${lines[0]}" = "scalar-merge: $tmp/bad.bin:1500: bad record: record too short" ]
		[ "${lines[1]}" = "scalar-merge: $tmp/bad.bin:2800: bad record: bad escape" ]
		[ "${lines[2]}" = "scalar-merge: $tmp/bad.bin:3004: bad record: trailing bytes after the last field" ]
	done
	# the line numbers instr-parse (which reads line by line) gives
	run bash -c "instr-parse '$tmp/bad.bin' 2>&1 >/dev/null | grep 'bad record' | sed 's/^instr-parse: //'"
	[ "$output" = "$(scalar-merge "$tmp/bad.bin" 2>&1 >/dev/null | grep 'bad record' | sed 's/^scalar-merge: //')" ]
}
