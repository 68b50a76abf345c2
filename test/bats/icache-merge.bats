#!/usr/bin/env bats
# icache-merge as a user runs it: dump-split DIR | [instr-parse |] icache-merge.

bats_require_minimum_version 1.5.0

setup() {
	data="$BATS_TEST_DIRNAME/../data"
	tmp="$BATS_TEST_TMPDIR"
}

# A hand-made stream of icache raw-line records for one sub-core (JSON Lines).
# usage: lines 'text' ['text'...]
lines() {
	local n=0
	for t in "$@"; do
		n=$((n + 1))
		jq -nc --arg t "$t" --argjson n "$n" \
			'{kind:"line",file:3,core:0,sub:"veccore",subidx:0,log:"icache",line:$n,text:$t}'
	done
}
source_rec() { echo '{"kind":"source","file":3,"core":0,"sub":"veccore","subidx":0,"log":"icache","part":0,"path":"dump/core0.veccore0.ifu.icache_log.dump"}'; }
trailer() { echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'; }
misses() { jq -c 'select(.kind=="instr" and .pipe=="CACHEMISS") | [.pc, .name, .start, .end, .detail]'; }

@test "910B sample: 3 misses per sub-core, exact records" {
	run bash -c "dump-split --log=icache '$data/910B' 2>/dev/null | icache-merge --json"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.kind=="instr" and .sub=="veccore" and .subidx==0)' <<<"$output" | wc -l)" -eq 3 ]
	[ "$(jq -c 'select(.kind=="instr" and .subidx==1)' <<<"$output" | wc -l)" -eq 3 ]
	[ "$(jq -c 'select(.kind=="instr")' <<<"$output" | head -1)" = \
	  '{"kind":"instr","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"start":23071,"end":23072,"pc":"0x10f86a80","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":-1,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null,"sync":"","pipe":"CACHEMISS","name":"0x10f86a80","detail":"sizeis0x00000080,type:1,last:0,statusisMISS","prod":"","cons":"","flag":""}' ]
	run bash -c "jq -c 'select(.kind==\"instr\" and .subidx==1) | [.pc,.start,.end]' <<<'$output'"
	[ "${lines[0]}" = '["0x10f86a80",23071,23072]' ]
	[ "${lines[1]}" = '["0x10f86b00",23073,23074]' ]
	[ "${lines[2]}" = '["0x10f86ad8",23074,23075]' ]
}

@test "910B sample: the icache line records are consumed, the trailer counts what was written" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | icache-merge --json"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.kind=="line" and .log=="icache")' <<<"$output" | wc -l)" -eq 0 ]
	[ "$(jq -c 'select(.kind=="line" and .log=="instr")' <<<"$output" | wc -l)" -gt 0 ]
	[ "$(jq -c 'select(.kind=="trailer") | [.bad, .dropped, .producer]' <<<"$output")" = '[0,0,"icache-merge"]' ]
}

@test "310P grammar '[tick]:'" {
	{ lines '[info] [00000000]: icache read address is 0x10cfa000, size is 0x00000010, status is MISS'; trailer; } >"$tmp/in"
	run icache-merge --soc-version=Ascend310P1 --json "$tmp/in"
	[ "$status" -eq 0 ]
	[ "$(misses <<<"$output")" = '["0x10cfa000","0x10cfa000",0,1,"sizeis0x00000010,statusisMISS"]' ]
}

@test "310B grammar '@tick:'" {
	{ lines '[info] @2355: icache read address is 0x10cfa100, size is 0x00000100, status is MISS'; trailer; } >"$tmp/in"
	run bash -c "icache-merge --soc-version=Ascend310B1 --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 0 ]
	[ "$(misses <<<"$output")" = '["0x10cfa100","0x10cfa100",2355,2356,"sizeis0x00000100,statusisMISS"]' ]
	[ ! -s "$tmp/err" ]
}

@test "A2 grammar without the [info] prefix; any grammar is accepted on any SoC, with a note" {
	{ lines '23071: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS' \
		'[info] @2355: icache read address is 0x10cfa100, size is 0x00000100, status is MISS'; trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in' 2>$tmp/err | jq -c 'select(.kind==\"instr\") | .start'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 23071 ]
	[ "${lines[1]}" = 2355 ]
	grep -q '1 miss lines in another chip' "$tmp/err"
}

@test "CRLF line ends are stripped" {
	{ lines $'[info] 23071: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS\r' \
		$'[info] 5: lookup_tag is fetch req addr:0x100\r'; trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in'"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.kind=="instr") | [.start, .detail]' <<<"$output")" = '[23071,"sizeis0x00000080,type:1,last:0,statusisMISS"]' ]
	[ "$(jq -c 'select(.kind=="fetch") | [.tick, .pc]' <<<"$output")" = '[5,"0x100"]' ]
}

@test "HIT and other icache lines are ignored silently, counted with -v" {
	{ lines '[info] 100: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is HIT' \
		'[info] 101: icache refill request, id is 3' \
		'[info] 102: hit pc send to ibuffer, pc is 0x10' \
		'[info] 103: icache read address is 0x10f86b00, size is 0x00000080, type:1, last:0, status is MISS'; trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in' 2>$tmp/err | jq -c 'select(.kind==\"instr\") | .start'"
	[ "$status" -eq 0 ]
	[ "$output" = 103 ]
	[ ! -s "$tmp/err" ]
	run bash -c "icache-merge -v --json '$tmp/in' 2>&1 >/dev/null"
	grep -q '4 icache lines: 1 misses.*1 hits, 2 other lines ignored' <<<"$output"
}

@test "fetch lines become fetch records (regex_search: text before is allowed, '@' is not)" {
	{ lines '[info] 2355: lookup_tag is fetch req addr:0x13dbf100' \
		'xx [info] 2400: lookup_tag is fetch req addr:0x13dbf140 tail' \
		'[info] @2355: lookup_tag is fetch req addr:0x13dbf100' \
		'[info] 2500: lookup_tag is fetch req addr:0xZZ'; trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in' | jq -c 'select(.kind==\"fetch\")'"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = '{"kind":"fetch","core":0,"sub":"veccore","subidx":0,"tick":2355,"pc":"0x13dbf100"}' ]
	[ "${lines[1]}" = '{"kind":"fetch","core":0,"sub":"veccore","subidx":0,"tick":2400,"pc":"0x13dbf140"}' ]
}

# An instruction record of core0.veccore0 at pc PC starting at START.
instr() {
	jq -nc --arg pc "$1" --argjson s "$2" '{kind:"instr",core:0,sub:"veccore",subidx:0,block:-1,subblock:-1,start:$s,end:($s+1),pc:$pc,id:0,warp:-1,sch:-1,threads:-1,gpr:1,bytes:0,vec_util:-1,ub_read:-1,ub_write:-1,icache_tick:null,ccu_tick:null,sync:"",pipe:"SCALAR",name:"ADD",detail:"X",prod:"",cons:"",flag:""}'
}

@test "--annotate: latest fetch tick at or before the start, for all 4 slots of a block" {
	{ lines '[info] 100: lookup_tag is fetch req addr:0x1000' '[info] 200: lookup_tag is fetch req addr:0x1000'
	  instr 0x1000 150; instr 0x100c 250; instr 0x1008 90; instr 0x1010 300; instr 0x1004 200; trailer; } >"$tmp/in"
	run bash -c "icache-merge --annotate --json '$tmp/in' | jq -c 'select(.kind==\"instr\") | [.pc, .icache_tick]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '["0x1000",100]' ]
	[ "${lines[1]}" = '["0x100c",200]' ]
	[ "${lines[2]}" = '["0x1008",null]' ]
	[ "${lines[3]}" = '["0x1010",null]' ]
	[ "${lines[4]}" = '["0x1004",200]' ]
	# Without --annotate the records pass untouched.
	run bash -c "icache-merge --json '$tmp/in' | jq -c 'select(.kind==\"instr\") | .icache_tick' | sort -u"
	[ "$output" = null ]
}

@test "--annotate keeps the newest 16 fetch ticks per pc and says when older ones were needed" {
	{ for t in $(seq 100 100 2000); do lines "[info] $t: lookup_tag is fetch req addr:0x1000"; done
	  instr 0x1000 150; instr 0x1000 550; instr 0x1000 5000; trailer; } >"$tmp/in"
	run bash -c "icache-merge --annotate --json '$tmp/in' 2>$tmp/err | jq -c 'select(.kind==\"instr\") | .icache_tick'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = null ]
	[ "${lines[1]}" = 500 ]
	[ "${lines[2]}" = 2000 ]
	grep -q '1 instruction records left without icache_tick' "$tmp/err"
}

@test "other records pass through untouched" {
	{ echo '{"kind":"header","version":1,"mhz":1000,"producer":"x","soc":"Ascend310P1","origin":"o"}'
	  jq -nc '{kind:"line",file:1,core:2,sub:"cubecore",subidx:0,log:"instr",line:7,text:"[info] [1] whatever"}'
	  instr 0x40 10
	  echo '{"kind":"mark","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"mark":1,"start":1,"end":2,"start_pc":"0x1","end_pc":"0x2","name":"Mark 0x1","detail":"d"}'
	  trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in'"
	[ "$status" -eq 0 ]
	[ "$(head -1 <<<"$output" | jq -c '[.soc, .producer]')" = '["Ascend310P1","icache-merge"]' ]
	diff <(sed -n '2,4p' "$tmp/in" | jq -cS .) <(sed -n '2,4p' <<<"$output" | jq -cS .)
}

@test "miss lines outside the grammar are counted, reported with file:line, and in the trailer" {
	{ source_rec
	  lines '[info] 1: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS' \
		'[info] 2: icache read address is 0x10F86A80, size is 0x00000080, type:1, last:0, status is MISS' \
		'[info] 3: icache read address is 0x10f86a80, size is 0x80, type:1, last:0, status is MISS' \
		'[info] 4: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS trailing'
	  trailer; } >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 1 ]
	[ "$(jq -c 'select(.kind=="instr") | .start' <<<"$output")" = 1 ]
	grep -q '3 icache miss lines not in the icache grammar' "$tmp/err"
	grep -q 'dump/core0.veccore0.ifu.icache_log.dump:2: icache' "$tmp/err"
	grep -q 'dump/core0.veccore0.ifu.icache_log.dump:4: icache' "$tmp/err"
	[ "$(jq -c 'select(.kind=="trailer") | .bad' <<<"$output")" -eq 3 ]
	[ "$(jq -c 'select(.kind=="diag") | [.count, .line, .tool, .file]' <<<"$output")" = '[3,2,"icache-merge","dump/core0.veccore0.ifu.icache_log.dump"]' ]
}

@test "pipeline: dump-split | instr-parse | icache-merge | timeline-emit draws the CACHEMISS lane" {
	run bash -o pipefail -c "dump-split '$data/910B' 2>/dev/null | instr-parse 2>/dev/null | icache-merge | timeline-emit -o '$tmp/out' >/dev/null 2>&1"
	[ "$status" -eq 0 ]
	run jq -c '[.traceEvents[] | select(.tid=="CACHEMISS" and .ph=="X") | [.pid, .name, .args.pc_addr]]' "$tmp/out/trace.json"
	[ "$output" = '[["core0.veccore0","0x10f86a80","0x10f86a80"],["core0.veccore0","0x10f86b00","0x10f86b00"],["core0.veccore0","0x10f86ad8","0x10f86ad8"],["core0.veccore1","0x10f86a80","0x10f86a80"],["core0.veccore1","0x10f86b00","0x10f86b00"],["core0.veccore1","0x10f86ad8","0x10f86ad8"]]' ]
}

@test "text, lz4 and -o outputs" {
	run bash -c "dump-split --log=icache '$data/910B' 2>/dev/null | icache-merge --text"
	[ "$status" -eq 0 ]
	grep -q 'core0.veccore1.*\[23073, 23074\] 0x10f86b00 CACHEMISS' <<<"$output"
	run bash -c "dump-split --log=icache '$data/910B' 2>/dev/null | icache-merge --lz4 -o '$tmp/out.rec.lz4' && rec-cat --json '$tmp/out.rec.lz4' | jq -c 'select(.kind==\"instr\")' | wc -l"
	[ "$status" -eq 0 ]
	[ "$output" -eq 6 ]
	[ -z "$(ls "$tmp" | grep -v '^out.rec.lz4$')" ]
}

@test "usage errors, a cut-short input, a broken pipe" {
	run icache-merge --soc-version=Nope /dev/null
	[ "$status" -eq 2 ]
	run icache-merge --bogus
	[ "$status" -eq 2 ]
	run icache-merge /nonexistent/file
	[ "$status" -eq 3 ]
	lines '[info] 1: icache read address is 0x10, size is 0x00000080, type:1, last:0, status is MISS' >"$tmp/in"
	run bash -c "icache-merge --json '$tmp/in' 2>&1 >/dev/null"
	[ "$status" -eq 1 ]
	grep -q 'without a trailer' <<<"$output"
	for i in $(seq 2000); do echo "[info] $i: icache read address is 0x10, size is 0x00000080, type:1, last:0, status is MISS"; done >"$tmp/log"
	mkdir -p "$tmp/d" && cp "$tmp/log" "$tmp/d/core0.veccore0.ifu.icache_log.dump"
	run bash -c "dump-split '$tmp/d' 2>/dev/null | icache-merge --json 2>$tmp/err | head -1"
	[ "$status" -eq 0 ]
	[ ! -s "$tmp/err" ]
	run icache-merge --help
	[ "$status" -eq 0 ]
	grep -q annotate <<<"$output"
}

@test "golden outputs: the example lines of optrace-sidelogs(5) and the 910B sample (test/golden/stages)" {
	sh "$BATS_TEST_DIRNAME/../golden/stages/make.sh" "$BATS_TEST_TMPDIR/golden"
	for n in icache-910B icache-310P icache-310B annotate-910B; do
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.jsonl" "$BATS_TEST_TMPDIR/golden/$n.jsonl"
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.err" "$BATS_TEST_TMPDIR/golden/$n.err"
	done
}

@test "--lz4 with a terminal on stdout: refused, exit 2, no lz4 bytes written" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	{ lines '[info] 1: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS'; trailer; } >"$tmp/in"
	script -qec "icache-merge --lz4 '$tmp/in'; echo \"status=\$?\"" /dev/null </dev/null >"$tmp/tty.out"
	cat -v "$tmp/tty.out"
	grep -q 'status=2' "$tmp/tty.out"
	grep -q 'icache-merge: refusing to write compressed data to a terminal' "$tmp/tty.out"
	! grep -a -q "$(printf '\042\115\030')" "$tmp/tty.out"
}

@test "SoC: --soc-version wins over the stream header, the header over the default" {
	{ echo '{"kind":"header","version":2,"mhz":1000,"producer":"x","soc":"Ascend310P1","origin":"o"}'
	  lines '[info] 23071: icache read address is 0x10f86a80, size is 0x00000080, type:1, last:0, status is MISS'
	  trailer; } >"$tmp/in"
	# the header's 310P: the A2 line is in another chip's grammar
	run bash -c "icache-merge --json '$tmp/in' 2>'$tmp/err'"
	[ "$status" -eq 0 ]
	[ "$(head -1 <<<"$output" | jq -r .soc)" = Ascend310P1 ]
	grep -q "another chip's grammar than Ascend310P1" "$tmp/err"
	# the option's 910B1 (any case): its own grammar, its name and clock in the header
	run bash -c "icache-merge --soc-version=ascend910b1 --json '$tmp/in' 2>'$tmp/err'"
	[ "$status" -eq 0 ]
	[ "$(head -1 <<<"$output" | jq -c '[.soc, .mhz]')" = '["Ascend910B1",1850]' ]
	[ ! -s "$tmp/err" ]
	# no header: the default
	run bash -c "sed 1d '$tmp/in' | icache-merge --json 2>/dev/null | head -1 | jq -r .soc"
	[ "$output" = Ascend910B1 ]
}

@test "an unknown --soc-version: exit 2, the one message, nothing written" {
	run --separate-stderr icache-merge --soc-version=Nope /dev/null
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "icache-merge: --soc-version: unknown SoC 'Nope' (want a name of the SoC table"* ]]
}
