#!/usr/bin/env bats
# src-map as a user runs it: a record stream in, the same stream out with a
# code record ahead of the first use of each pc.  The kernel is
# test/golden/code-src/kernel.c, built here with -g; the expected lines come
# from the binary's own line table (objdump --dwarf=decodedline), never from
# the symbolizer src-map talks to.

bats_require_minimum_version 1.5.0

setup_file() {
	src="$BATS_TEST_DIRNAME/../golden/code-src"
	cd "$BATS_FILE_TMPDIR"
	cp -r "$src" ksrc
	# DWARF 4: addr2line 2.40 names the wrong file for a line sequence that
	# starts in file 1 of a DWARF 5 table (llvm-symbolizer gets it right).
	cc -g -gdwarf-4 -O0 -I ksrc/ascend-toolkit/include -c ksrc/kernel.c -o k.o
	cc -O0 -I ksrc/ascend-toolkit/include -c ksrc/kernel.c -o nog.o
}

setup() {
	unset OPTRACE_FORMAT
	T="$BATS_TEST_TMPDIR"
	K="$BATS_FILE_TMPDIR"
	cd "$T"
}

# The first address of FILE (base name) at LINE in the line table.
addr_of() {
	objdump --dwarf=decodedline "$K/k.o" | awk -v f="$1" -v l="$2" '$1 == f && $2 == l { print $3; exit }' |
		sed 's/^0x//; s/^$//' | { read -r a; printf '%d\n' "0x${a:-0}"; }
}

# The address of a function.
entry_of() {
	printf '%d\n' "0x$(nm "$K/k.o" | awk -v f="$1" '$3 == f { print $1 }')"
}

# The line of the source line holding MARK.
line_of() {
	grep -n "$2" "$K/ksrc/$1" | cut -d: -f1
}

# instr PC START END [NAME]: an instruction record (JSON) of core 0.
instr() {
	printf '{"kind":"instr","core":0,"sub":"veccore","subidx":0,"block":0,"subblock":0,"start":%d,"end":%d,"pc":"0x%x","pipe":"VECTOR","name":"%s","detail":"d"}\n' \
		"$2" "$3" "$1" "${4:-VADD}"
}

header() {
	echo '{"kind":"header","version":1,"mhz":1850,"producer":"test","soc":"Ascend910B1","origin":"test"}'
}

trailer() {
	echo '{"kind":"trailer","records":0}'
}

BASE=$((0x10f86000))

# A stream over the fixture: the binary's first address (so the lowest pc
# is the start pc), the entry of hot, its loop, the inlined toolkit line, the
# toolkit call, and one pc past the code: 10 instructions, 6 distinct pcs, 5
# with a source line.
stream() {
	local entry loop inl call
	entry=$(entry_of hot)
	loop=$(addr_of kernel.c "$(line_of kernel.c HOT_LOOP)")
	inl=$(addr_of kernel_operator.h "$(line_of ascend-toolkit/include/kernel_operator.h TK_INLINE)")
	call=$(addr_of kernel_operator.h "$(line_of ascend-toolkit/include/kernel_operator.h TK_CALL)")
	header
	instr $BASE 0 1 FIRST
	instr $((BASE + entry)) 0 1 ENTRY
	for i in 1 2 3; do
		instr $((BASE + loop)) $((10 * i)) $((10 * i + 4)) LOOP
		instr $((BASE + inl)) $((10 * i + 4)) $((10 * i + 9)) INL
	done
	instr $((BASE + call)) 40 42 CALL
	instr $((BASE + 0x100000)) 42 43 FAR
	trailer
}

@test "every record passes through; one code record per distinct pc, before its first use" {
	stream > in.jsonl
	run src-map --binary "$K/k.o" --pc-start $BASE --json in.jsonl
	[ "$status" -eq 0 ]
	echo "$output" > out.jsonl
	# Instructions: the same, in the same order.
	diff <(jq -c 'select(.kind=="instr") | [.pc, .start, .end, .name]' in.jsonl) \
	     <(jq -c 'select(.kind=="instr") | [.pc, .start, .end, .name]' out.jsonl)
	# One code record per pc that maps (the far pc does not), each before
	# the first instruction with that pc.
	[ "$(jq -r 'select(.kind=="code") | .pc' out.jsonl | sort | uniq -d | wc -l)" -eq 0 ]
	[ "$(jq -r 'select(.kind=="code") | .pc' out.jsonl | wc -l)" -eq 5 ]
	jq -s -e '
		. as $r
		| [range(0; length) as $i | select($r[$i].kind == "code") | {pc: $r[$i].pc, at: $i}] as $codes
		| all($codes[]; . as $c | ([range(0; $r | length) | select($r[.].kind == "instr" and $r[.].pc == $c.pc)] | min) > $c.at)' out.jsonl
	[ "$(jq -r 'select(.kind=="trailer") | .records' out.jsonl)" -eq "$(grep -c '"kind":"instr"' in.jsonl | awk '{print $1 + 5}')" ]
}

@test "the entry and hot-loop pcs map to their kernel.c lines, with their function, as user frames" {
	stream | src-map --binary "$K/k.o" --pc-start $BASE --json > out.jsonl
	entry=$(entry_of hot)
	le=$(objdump --dwarf=decodedline "$K/k.o" | awk -v a="$(printf '0x%x' "$entry")" '$1 == "kernel.c" && $3 == a { print $2; exit }')
	[ -n "$le" ]
	run jq -r --arg pc "$(printf '0x%x' $((BASE + entry)))" 'select(.kind=="code" and .pc == $pc) | [.stack, .kinds, .func, .offset] | @tsv' out.jsonl
	[[ "$output" == *"/ksrc/kernel.c:$le	u	hot	$(printf '0x%x' "$entry")" ]]
	loop=$(addr_of kernel.c "$(line_of kernel.c HOT_LOOP)")
	run jq -r --arg pc "$(printf '0x%x' $((BASE + loop)))" 'select(.kind=="code" and .pc == $pc) | .stack' out.jsonl
	[[ "$output" == *"/ksrc/kernel.c:$(line_of kernel.c HOT_LOOP)" ]]
}

@test "an inlined toolkit line keeps its user caller (l then u); a toolkit function alone is one library frame" {
	stream | src-map --binary "$K/k.o" --pc-start $BASE --json > out.jsonl
	inl=$(addr_of kernel_operator.h "$(line_of ascend-toolkit/include/kernel_operator.h TK_INLINE)")
	run jq -r --arg pc "$(printf '0x%x' $((BASE + inl)))" 'select(.kind=="code" and .pc == $pc) | [.stack, .kinds, .func] | @json' out.jsonl
	stack=$(echo "$output" | jq -r '.[0]')
	[ "$(echo "$output" | jq -r '.[1]')" = lu ]
	[ "$(echo "$stack" | wc -l)" -eq 2 ]
	[[ "$(echo "$stack" | sed -n 1p)" == */ascend-toolkit/include/kernel_operator.h:$(line_of ascend-toolkit/include/kernel_operator.h TK_INLINE) ]]
	[[ "$(echo "$stack" | sed -n 2p)" == */ksrc/kernel.c:$(line_of kernel.c HOT_LOOP) ]]
	[ "$(echo "$output" | jq -r '.[2]')" = "$(printf 'tk_scale\nhot')" ]
	call=$(addr_of kernel_operator.h "$(line_of ascend-toolkit/include/kernel_operator.h TK_CALL)")
	run jq -r --arg pc "$(printf '0x%x' $((BASE + call)))" 'select(.kind=="code" and .pc == $pc) | [.stack, .kinds] | @tsv' out.jsonl
	[[ "$output" == *"/kernel_operator.h:$(line_of ascend-toolkit/include/kernel_operator.h TK_CALL)	l" ]]
}

@test "--pc-start: pc_start_addr.txt, an address, and without one the lowest pc (stream held to its end)" {
	stream > in.jsonl
	src-map --binary "$K/k.o" --pc-start $BASE --json in.jsonl | jq -c 'select(.kind=="code")' > a
	printf '0x%x\n' $BASE > pc_start_addr.txt
	src-map --binary "$K/k.o" --pc-start pc_start_addr.txt --json in.jsonl | jq -c 'select(.kind=="code")' > b
	cmp a b
	# The lowest pc here is the binary's address 0: the same start.
	[ "$(jq -r 'select(.kind=="instr") | .pc' in.jsonl | sort | head -1)" = "$(printf '0x%x' $BASE)" ]
	src-map --binary "$K/k.o" --json in.jsonl | jq -c 'select(.kind=="code")' > c
	cmp a c
	# 0x0 in the file means none.
	echo 0x0 > pc_start_addr.txt
	src-map --binary "$K/k.o" --pc-start pc_start_addr.txt --json in.jsonl | jq -c 'select(.kind=="code")' > d
	cmp a d
	# Records wait for their lookup but keep their order.
	diff <(src-map --binary "$K/k.o" --json in.jsonl | jq -c 'select(.kind=="instr")') <(jq -c 'select(.kind=="instr")' in.jsonl | src-map --binary "$K/k.o" --json | jq -c 'select(.kind=="instr")')
}

@test "pcs below the start pc get no code record; a start pc past every pc empties the code view, with the reason" {
	stream > in.jsonl
	run src-map --binary "$K/k.o" --pc-start $((BASE + 0x20)) --json in.jsonl
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c '"kind":"code"')" -ge 2 ]
	for pc in $(echo "$output" | jq -r 'select(.kind=="code") | .pc'); do
		[ $((pc)) -ge $((BASE + 0x20)) ]
	done
	run src-map --binary "$K/k.o" --pc-start 0x7fffffff00000000 --json in.jsonl
	[ "$status" -eq 1 ]
	[[ "$output" == *"the code view is empty: none of the 6 pcs maps to a source line"* ]]
}

@test "mark start and end pcs are mapped" {
	loop=$(addr_of kernel.c "$(line_of kernel.c HOT_LOOP)")
	ret=$(addr_of kernel.c "$(line_of kernel.c HOT_RET)")
	{ header
	  printf '{"kind":"mark","core":0,"sub":"veccore","subidx":0,"mark":1,"start":1,"end":9,"start_pc":"0x%x","end_pc":"0x%x","name":"Mark 0x1"}\n' $((BASE + loop)) $((BASE + ret))
	  trailer; } > in.jsonl
	run src-map --binary "$K/k.o" --pc-start $BASE --json in.jsonl
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r 'select(.kind=="code") | .stack' | grep -c "kernel.c:$(line_of kernel.c HOT_LOOP)\$")" -eq 1 ]
	[ "$(echo "$output" | jq -r 'select(.kind=="code") | .stack' | grep -c "kernel.c:$(line_of kernel.c HOT_RET)\$")" -eq 1 ]
	[ "$(echo "$output" | jq -r 'select(.kind=="code") | .kind' | wc -l)" -eq 2 ]
}

@test "addr2line and llvm-symbolizer give the same code records" {
	command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer is not installed"
	stream > in.jsonl
	src-map --binary "$K/k.o" --pc-start $BASE --symbolizer addr2line --json in.jsonl | jq -c 'select(.kind=="code")' > a
	src-map --binary "$K/k.o" --pc-start $BASE --symbolizer llvm-symbolizer --json in.jsonl | jq -c 'select(.kind=="code")' > b
	[ -s a ]
	diff a b
}

@test "binary output copies binary records; JSON and binary inputs give the same stream" {
	stream > in.jsonl
	rec-cat --bin in.jsonl > in.rec
	src-map --binary "$K/k.o" --pc-start $BASE in.rec > out.rec
	src-map --binary "$K/k.o" --pc-start $BASE in.jsonl > out2.rec
	cmp out.rec out2.rec
	[ "$(rec-cat --count out.rec | awk '$1 == "code" {print $2}')" -eq 5 ]
}

@test "a batch far larger than the pipes does not stall (20000 distinct pcs in one batch, and in batches of 7)" {
	# Distinct pcs: every byte of the code, then past it (no source).
	{ header
	  awk -v b=$BASE 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"kind\":\"instr\",\"core\":0,\"sub\":\"veccore\",\"subidx\":0,\"start\":%d,\"end\":%d,\"pc\":\"0x%x\",\"pipe\":\"SCALAR\",\"name\":\"X\"}\n", i, i + 1, b + i }'
	  trailer; } | rec-cat --bin > big.rec
	run timeout 60 src-map --binary "$K/k.o" --pc-start $BASE --batch 100000 -v big.rec -o out.rec
	[ "$status" -eq 0 ]
	[[ "$output" == *"20000 distinct pcs, 20000 looked up in 1 batches"* ]]
	# As many code records as bytes of code: the end of the line table.
	end=$(objdump --dwarf=decodedline "$K/k.o" | awk '$2 == "-" { print $3 }' | sort | tail -1)
	n=$(rec-cat --count out.rec | awk '$1 == "code" {print $2}')
	[ "$n" -eq "$((end))" ]
	run timeout 60 src-map --binary "$K/k.o" --pc-start $BASE --batch 7 big.rec -o out7.rec
	[ "$status" -eq 0 ]
	[ "$(rec-cat --count out7.rec | awk '$1 == "code" {print $2}')" -eq "$n" ]
	cmp <(rec-cat --json out.rec | jq -c 'select(.kind=="code")') <(rec-cat --json out7.rec | jq -c 'select(.kind=="code")')
}

@test "no -g: the stream goes through, one warning says why, a diag record, exit 1" {
	stream > in.jsonl
	run src-map --binary "$K/nog.o" --pc-start $BASE --json in.jsonl
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | grep -c '"kind":"instr"')" -eq 10 ]
	[ "$(echo "$output" | grep -c '"kind":"code"')" -eq 0 ]
	[ "$(echo "$output" | grep -c 'src-map: the code view is empty: .*nog.o has no debug information')" -eq 1 ]
	echo "$output" | grep '"kind":"diag"' | jq -e 'select(.message | test("no debug information"))'
}

@test "missing binary, not ELF, no symbolizer, a failing symbolizer: stream whole, the reason once" {
	stream > in.jsonl
	printf '#!/bin/sh\necho "broken: cannot read the binary" >&2\nexit 3\n' > badsym
	chmod +x badsym
	for args in "--binary nope.o|nope.o: cannot open" \
	            "--binary in.jsonl|in.jsonl: not an ELF file" \
	            "--binary $K/k.o --symbolizer no-such-symbolizer|symbolizer 'no-such-symbolizer' not found" \
	            "--binary $K/k.o --symbolizer ./badsym|./badsym stopped (exit status 3) after 0 of 6 addresses: broken: cannot read the binary"; do
		run src-map ${args%%|*} --pc-start $BASE --json in.jsonl
		[ "$status" -eq 1 ]
		[ "$(echo "$output" | grep -c '"kind":"instr"')" -eq 10 ]
		[ "$(echo "$output" | grep -c '"kind":"code"')" -eq 0 ]
		[ "$(echo "$output" | grep -c "^src-map: the code view is empty: ${args#*|}")" -eq 1 ] || { echo "$output" | grep '^src-map'; return 1; }
	done
	# A symbolizer that answers nothing but complains: its words are kept.
	printf '#!/bin/sh\necho "fakesym: unsupported architecture" >&2\nwhile read -r a; do printf "??\\n??:0:0\\n\\n"; done\n' > fakesym
	chmod +x fakesym
	run src-map --binary "$K/k.o" --symbolizer ./fakesym --pc-start $BASE --json in.jsonl
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | grep -c '"kind":"instr"')" -eq 10 ]
	[[ "$output" == *"none of the 6 pcs maps to a source line of $K/k.o"*"the symbolizer said: fakesym: unsupported architecture"* ]]
	# No symbolizer in PATH at all.
	mkdir bin
	for t in src-map jq; do ln -s "$(command -v $t)" bin/$t; done
	run env PATH="$T/bin" src-map --binary "$K/k.o" --pc-start $BASE --json in.jsonl
	[ "$status" -eq 1 ]
	[[ "$output" == *"the code view is empty: no symbolizer: neither llvm-symbolizer nor addr2line is in PATH"* ]]
}

@test "usage: --binary is required; a --pc-start that is neither file nor address" {
	run src-map </dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"--binary FILE is required"* ]]
	run src-map --binary "$K/k.o" --pc-start nothing-like-this </dev/null
	[ "$status" -eq 2 ]
	run src-map --binary "$K/k.o" --batch 0 </dev/null
	[ "$status" -eq 2 ]
	run src-map -h
	[ "$status" -eq 0 ]
	[[ "$output" == *"--pc-start"* ]]
}

@test "an input without a trailer is reported, the output still complete; -o is replaced only on success" {
	stream | head -n -1 > cut.jsonl
	run src-map --binary "$K/k.o" --pc-start $BASE --json cut.jsonl -o out.jsonl
	[ "$status" -eq 1 ]
	[[ "$output" == *"without a trailer"* ]]
	[ "$(grep -c '"kind":"code"' out.jsonl)" -eq 5 ]
	echo keep > kept
	run src-map --binary "$K/k.o" -o kept no-such-input
	[ "$status" -eq 3 ]
	[ "$(cat kept)" = keep ]
}

@test "sim-export adds src-map when the dump has aicore_binary.o, with pc_start_addr.txt; else one note" {
	# build/bin holds a copy of the recipe; the source one as a fallback.
	export PATH="$PATH:$BATS_TEST_DIRNAME/../../pipelines"
	cp -r "$BATS_TEST_DIRNAME/../data/910B" dump
	cp "$K/k.o" dump/aicore_binary.o
	printf '0x%x\n' $BASE > dump/pc_start_addr.txt
	mkdir out
	run sim-export -o out dump
	[ "$status" -eq 0 ]
	d=$(ls -d out/OPPROF_*)
	cmp "$K/k.o" "$d/dump/aicore_binary.o"
	# The sample's first pcs fall in the fixture's tk_call (offsets 0, 4, 8):
	# library lines; each slice has its pc's stack.
	src-map --binary "$K/k.o" --pc-start $BASE --json <(dump-split dump 2>/dev/null | instr-parse -q) |
		jq -c 'select(.kind == "code") | {(.pc): .stack}' | jq -s -c add > stacks.json
	[ "$(jq 'length' stacks.json)" -ge 3 ]
	jq -e --slurpfile s stacks.json '[.traceEvents[] | select(.ph == "X" and .args.pc_addr != null)
		| select(.args.code != ($s[0][.args.pc_addr] // ""))] | length == 0' "$d/simulator/trace.json"
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.code // "") != "")] | length' "$d/simulator/trace.json")" -ge 6 ]
	# --report: the hotspots after the summary.
	mkdir outr
	run sim-export -q --report=2 -o outr dump
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'top source lines')" -eq 2 ]
	[[ "$output" == *"kernel_operator.h:"* ]]
	# Without a binary: the same tree, and one note.
	rm dump/aicore_binary.o
	mkdir out2
	run sim-export -o out2 dump
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'no aicore_binary.o in dump and no --binary: the code view is empty')" -eq 1 ]
	# A binary without -g: the tree, src-map's one warning, status 0.
	cp "$K/nog.o" dump/aicore_binary.o
	mkdir out3
	run sim-export -o out3 dump
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'the code view is empty: .*has no debug information')" -eq 1 ]
	jq -e '.traceEvents | length > 0' out3/OPPROF_*/simulator/trace.json
}

@test "I/O errors: a write error on -o is exit 4 with one message and the old file kept; a reader that goes away ends it quietly" {
	fso="$BATS_TEST_DIRNAME/../../build/fault.so"
	[ -f "$fso" ] || skip "build/fault.so is missing (make build/fault.so)"
	stream > in.jsonl
	mkdir d
	echo old > d/out.rec
	run env LD_PRELOAD="$fso" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec \
		src-map --binary "$K/k.o" --pc-start $BASE -o d/out.rec in.jsonl
	[ "$status" -eq 4 ]
	[ "$(echo "$output" | grep -c 'd/out.rec')" -eq 1 ]
	[ "$(ls -A d)" = out.rec ]
	[ "$(cat d/out.rec)" = old ]
	# 20000 records into head: src-map stops quietly, status 0.
	awk -v b=$BASE 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"kind\":\"instr\",\"start\":%d,\"end\":%d,\"pc\":\"0x%x\",\"pipe\":\"S\",\"name\":\"X\"}\n", i, i + 1, b + i % 64 }' > many.jsonl
	run bash -c "src-map --binary '$K/k.o' --pc-start $BASE --json many.jsonl | head -n 3 > /dev/null; echo \${PIPESTATUS[0]}"
	[ "$output" = 0 ]
}

@test "stand-in sample (vadd): through sim-flow, the hot loop's lines on top, per-line cycles add up to the instructions'" {
	top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	app="$top/build/ops/bin/add_rt"
	cann="$top/build/cann"
	[ -x "$app" ] && [ -d "$cann" ] || skip "the stand-in simulator and samples are not built (make camodel)"
	# build/bin holds copies of the recipes; the sources as a fallback.
	export PATH="$PATH:$top/pipelines"
	mkdir out
	run env ASCEND_HOME_PATH="$cann" sim-flow -q -o out -- "$app" -n 3 -b 2
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	d=$(ls -d out/OPPROF_*)
	[ -f "$d/dump/aicore_binary.o" ]
	src="$top/test/ops/vadd/add_custom.c"
	# The inner loop: from its for to the brace that closes it.
	first=$(grep -n 'for (uint32_t t = 0' "$src" | cut -d: -f1)
	last=$(awk -v f="$first" 'NR > f && /^\t\t}/ { print NR; exit }' "$src")
	for c in "$d"/simulator/core*; do
		n=$(basename "$c")
		csv="$c/${n}_code_exe.csv"
		[ "$(wc -l < "$csv")" -gt 5 ]
		# Every pc maps to one line of add_custom.c (the intrinsics are
		# macros on the kernel's own lines): the lines' cycles add up to the
		# instructions' (a mark counts on its start pc's line, as in the CSV).
		[ "$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$csv")" -eq \
		  "$(awk -F, 'NR > 1 { s += $5 } END { print s }' "$c/${n}_instr_exe.csv")" ]
		[ -z "$(grep -v '^code,' "$csv" | grep -v '/test/ops/vadd/add_custom.c:')" ]
		# The top three lines are lines of the hot loop.
		for l in $(sed -n '2,4p' "$csv" | sed 's/.*add_custom.c:\([0-9]*\),.*/\1/'); do
			[ "$l" -ge "$first" ] && [ "$l" -le "$last" ] || { echo "line $l is outside the loop $first-$last"; cat "$csv"; return 1; }
		done
	done
	# The report agrees: the first line of each core's table is in the loop.
	timeline-emit -q --report=1000 -o again <(src-map -q --binary "$d/dump/aicore_binary.o" --pc-start "$d/dump/pc_start_addr.txt" \
		<(dump-split -q "$d/dump" | instr-parse -q)) > report.txt
	[ "$(grep -c 'top source lines' report.txt)" -eq 2 ]
	l=$(grep -A2 'top source lines' report.txt | sed -n 3p | sed 's/.*add_custom.c:\([0-9]*\)$/\1/')
	[ "$l" -ge "$first" ] && [ "$l" -le "$last" ]
	# and its lines add up to each core's instruction cycles
	awk '/instruction cycles/ { want = $2; sum = 0; on = 0 }
	     /top source lines/ { on = 1; next }
	     /top instructions/ { on = 0; if (sum != want) { print "lines " sum " != " want; bad = 1 } }
	     on && $1 ~ /^[0-9]+$/ { sum += $1 }
	     END { exit bad }' report.txt
}

@test "--lz4 with a terminal on stdout: refused, exit 2, no lz4 bytes written" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	stream > in.jsonl
	script -qec "src-map --binary '$K/k.o' --pc-start $BASE --lz4 '$T/in.jsonl'; echo \"status=\$?\"" /dev/null </dev/null > tty.out
	cat -v tty.out
	grep -q 'status=2' tty.out
	grep -q 'src-map: refusing to write compressed data to a terminal' tty.out
	! grep -a -q "$(printf '\042\115\030')" tty.out
}

@test "SoC: --soc-version wins over the stream header, the header over the default" {
	stream > in.jsonl
	run bash -c "src-map --binary '$K/k.o' --pc-start $BASE --json in.jsonl | head -1 | jq -c '[.soc, .mhz, .producer]'"
	[ "$output" = '["Ascend910B1",1850,"src-map"]' ]
	run bash -c "src-map --binary '$K/k.o' --pc-start $BASE --soc-version=ascend310p1 --json in.jsonl | head -1 | jq -c '[.soc, .mhz]'"
	[ "$output" = '["Ascend310P1",1060]' ]
	# the header's SoC, without the option
	sed 's/"soc":"Ascend910B1"/"soc":"Ascend310B1"/' in.jsonl > b.jsonl
	run bash -c "src-map --binary '$K/k.o' --pc-start $BASE --json b.jsonl | head -1 | jq -r .soc"
	[ "$output" = Ascend310B1 ]
	# no header: the default
	run bash -c "sed 1d in.jsonl | src-map --binary '$K/k.o' --pc-start $BASE --json 2>/dev/null | head -1 | jq -r .soc"
	[ "$output" = Ascend910B1 ]
}

@test "an unknown --soc-version: exit 2, the one message, nothing written" {
	run --separate-stderr src-map --binary "$K/k.o" --soc-version=Nope /dev/null
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "src-map: --soc-version: unknown SoC 'Nope' (want a name of the SoC table"* ]]
}
