#!/usr/bin/env bats
# The record stream (optrace-records(5)) as a user handles it with rec-cat
# and the ordinary Unix tools: wc, grep, head, tail, split, parallel, lz4,
# jq.  The test stream is written here by hand as JSON Lines (in.jsonl) and
# turned into binary with rec-cat.

bats_require_minimum_version 1.5.0

# The stream is made once per file; each test works on its own copy.
setup_file() {
	unset OPTRACE_FORMAT
	make_input > "$BATS_FILE_TMPDIR/in.jsonl"
}

setup() {
	DATA="$BATS_TEST_DIRNAME/../data"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	export PARALLEL_HOME="$T/parallel-home"
	mkdir -p "$PARALLEL_HOME"
	touch "$PARALLEL_HOME/will-cite"
	unset OPTRACE_FORMAT
	cp "$BATS_FILE_TMPDIR/in.jsonl" in.jsonl
	N=$(wc -l < in.jsonl)
	rec-cat --bin in.jsonl > s.bin
	rec-cat --json in.jsonl > s.json
}

# Texts of the "line" records, as JSON string contents: LF, ESC, raw bytes
# (\udcXX), NUL, CR, every control byte, UTF-8, JSON escapes.  None holds
# VADD: only instr records do.
TEXTS=(
	'plain text of a log line'
	'newline\u000ainside'
	'esc\u001ainside'
	'raw bytes \udcff and \udc80 and \udcfe'
	'NUL\u0000byte'
	'CR\u000d and tab\u0009 and CRLF\u000d\u000a'
	'utf8 \u00e9 \u4e2d \ud83d\ude00 and raw é'
	'quote \" backslash \\ slash \/'
	'ends with LF\u000a'
	'\u001a\u001a\u000a\u000a\u001aJ\u001aZ'
	''
	'controls \u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000b\u000c\u000e\u000f\u0010\u001b\u001f\u007f'
	'0xff raw \udcff\udcff then valid \u00ff'
	'[info] [00001234] (PC: 0x10f86000) text\u000a\u001a\udcff'
)
NINSTR=60
NAMES=(VADD VMUL MOV_OUT_TO_UB)

# The hand-written stream: every field of every record, in the order the
# schema lists them (so jq -c of this equals jq -c of rec-cat --json).
make_input() {
	local i name pipe pc icache detail util
	printf '%s\n' '{"kind":"header","version":1,"mhz":1800,"producer":"records.bats","soc":"Ascend910B1","origin":"hand\u000awritten"}'
	printf '%s\n' '{"kind":"source","file":1,"core":0,"sub":"veccore","subidx":1,"log":"instr","part":0,"path":"core0.veccore1.instr_log.dump"}'
	for i in "${!TEXTS[@]}"; do
		printf '{"kind":"line","file":%d,"core":%d,"sub":"veccore","subidx":1,"log":"%s","line":%d,"text":"%s"}\n' \
			$((i % 2 ? 10 : 26)) $((i + 10)) "$( ((i % 2)) && echo popped || echo instr)" $((i * 10 + 10)) "${TEXTS[$i]}"
	done
	for ((i = 0; i < NINSTR; i++)); do
		name=${NAMES[$((i % 3))]}
		pipe=VEC
		[ "$name" = MOV_OUT_TO_UB ] && pipe=MTE2
		# pcs whose bytes are LF and ESC
		pc=$(printf '0x%x' $((0x10f86000 + 0x0a + i * 0x1a)))
		[ $((i % 5)) -eq 0 ] && pc=$(printf '0x%x' $((0x0a1a0a1a + i)))
		icache=$((i * 26))
		[ $((i % 4)) -eq 0 ] && icache=null
		util=$(printf '0.%d' $((i * 125 % 1000 + 1)))
		[ $((i % 6)) -eq 0 ] && util=-1
		detail="X$i,X$((i + 1)),#$((i * 10))"
		[ $((i % 7)) -eq 0 ] && detail='X1\u000aX2\u001a'
		printf '{"kind":"instr","core":%d,"sub":"%s","subidx":%d,"block":%d,"subblock":-1,"start":%d,"end":%d,"pc":"%s","id":%d,"warp":-1,"sch":-1,"threads":-1,"gpr":%d,"bytes":%d,"vec_util":%s,"ub_read":%d,"ub_write":-1,"icache_tick":%s,"ccu_tick":%d,"sync":"","pipe":"%s","name":"%s","detail":"%s","prod":"","cons":"","flag":""}\n' \
			$((i % 3 == 2 ? 26 : 10)) "$( ((i % 2)) && echo veccore || echo cubecore)" $((i % 2)) \
			$((i % 8 == 0 ? -1 : i)) $((1000 + i * 10)) $((1010 + i * 10)) "$pc" $((i * 0x0a0a)) \
			$((i % 5 - 1)) $((i % 3 == 2 ? 2560 + i : -1)) "$util" $((i % 4 - 1)) "$icache" $((i * 0x1a)) \
			"$pipe" "$name" "$detail"
	done
	printf '%s\n' '{"kind":"mark","core":0,"sub":"veccore","subidx":1,"block":0,"subblock":-1,"mark":1,"start":10,"end":26,"start_pc":"0x1a0a","end_pc":null,"name":"Mark 0x1","detail":"TRACE_START\u001a"}'
	printf '%s\n' '{"kind":"diag","level":2,"count":3,"line":10,"tool":"records.bats","file":"in.jsonl","message":"a note with a\u000anewline"}'
	printf '{"kind":"trailer","records":%d,"bad":0,"dropped":0,"interrupted":0,"producer":"records.bats"}\n' \
		$((${#TEXTS[@]} + NINSTR + 4))
}

# Number of VADD instructions of the input.
n_vadd() {
	jq -c 'select(.kind == "instr" and .name == "VADD")' in.jsonl | wc -l
}

# Bytes of FILE below 0x20 other than LF (and CR with -r).
ctl_bytes() {
	if [ "$1" = -r ]; then
		LC_ALL=C tr -d '\r\n\040-\377' < "$2" | wc -c
	else
		LC_ALL=C tr -d '\n\040-\377' < "$1" | wc -c
	fi
}

@test "the test stream: binary, one record per line, tricky bytes inside" {
	[ "$N" -eq $((${#TEXTS[@]} + NINSTR + 5)) ]
	[ "$(wc -l < s.bin)" -eq "$N" ]
	[ "$(head -c1 s.bin)" = H ]
	# LF and ESC bytes were escaped, ESC (0x1a) is present, the stream is
	# bigger than parallel's 1k blocks
	grep -a -q "$(printf '\032')" s.bin
	[ "$(stat -c %s s.bin)" -gt 8192 ]
	# jq reads rec-cat's JSON
	[ "$(jq -c . s.json | wc -l)" -eq "$N" ]
}

@test "binary -> JSON gives back the JSON written by hand" {
	rec-cat --bin in.jsonl | rec-cat --json > back.json
	jq -c . in.jsonl > want
	jq -c . back.json > got
	diff want got
	# and the raw bytes survive too (jq turns \udcXX into U+FFFD)
	grep -c 'udcff' back.json
	[ "$(grep -c 'udcff' back.json)" -eq "$(grep -c 'udcff' in.jsonl)" ]
}

@test "binary -> JSON -> binary is byte-identical" {
	rec-cat --json s.bin > a.json
	rec-cat --bin a.json > b.bin
	cmp s.bin b.bin
	# and JSON -> binary -> JSON too
	rec-cat --bin a.json | rec-cat --json > c.json
	cmp a.json c.json
}

@test "wc -l counts the records, in both encodings" {
	[ "$(wc -l < s.bin)" -eq "$N" ]
	[ "$(rec-cat --json s.bin | wc -l)" -eq "$N" ]
	[ "$(rec-cat --text s.bin | wc -l)" -eq "$N" ]
}

@test "grep -a VADD keeps exactly the VADD records, and they decode" {
	local want
	want=$(n_vadd)
	[ "$want" -eq 20 ]
	grep -a VADD s.bin > vadd.bin
	[ "$(wc -l < vadd.bin)" -eq "$want" ]
	[ "$(grep -a -c VADD s.bin)" -eq "$want" ]
	rec-cat --json vadd.bin > vadd.json
	[ "$(jq -r .name vadd.json | sort -u)" = VADD ]
	[ "$(jq -c 'select(.kind == "instr" and .name == "VADD")' s.json | wc -l)" -eq "$want" ]
	diff <(jq -c 'select(.kind == "instr" and .name == "VADD")' s.json) <(jq -c . vadd.json)
}

@test "grep -a -v VADD keeps the rest, and it decodes" {
	local want
	want=$(n_vadd)
	grep -a -v VADD s.bin > rest.bin
	[ "$(wc -l < rest.bin)" -eq $((N - want)) ]
	rec-cat --json rest.bin > rest.json
	[ "$(wc -l < rest.json)" -eq $((N - want)) ]
	! jq -r '.name // empty' rest.json | grep -q VADD
	diff <(jq -c 'select(.name != "VADD")' s.json) <(jq -c . rest.json)
	# both halves together hold every record
	[ "$(cat rest.bin <(grep -a VADD s.bin) | rec-cat --json | wc -l)" -eq "$N" ]
}

@test "head -n K and tail -n K give exactly K decodable records" {
	local k
	for k in 1 2 5 17 $((N - 1)) "$N"; do
		head -n "$k" s.bin > h.bin
		rec-cat --json h.bin > h.json
		[ "$(wc -l < h.json)" -eq "$k" ]
		diff <(head -n "$k" s.json) h.json
		tail -n "$k" s.bin > t.bin
		rec-cat --json t.bin > t.json
		[ "$(wc -l < t.json)" -eq "$k" ]
		diff <(tail -n "$k" s.json) t.json
	done
	# through pipes, as usual
	[ "$(head -n 3 s.bin | rec-cat --json | jq -r .kind | tr '\n' ' ')" = "header source line " ]
	[ "$(tail -n 1 s.bin | rec-cat --json | jq -r .kind)" = trailer ]
}

@test "split -l: the pieces concatenate to the stream and each decodes alone" {
	local p n total=0
	mkdir pieces
	split -l 7 s.bin pieces/p.
	[ "$(ls pieces | wc -l)" -eq $(((N + 6) / 7)) ]
	cat pieces/p.* | cmp - s.bin
	for p in pieces/p.*; do
		rec-cat --json "$p" > "$p.json"
		n=$(wc -l < "$p")
		[ "$(wc -l < "$p.json")" -eq "$n" ]
		total=$((total + n))
	done
	[ "$total" -eq "$N" ]
	cat pieces/p.*.json | cmp - s.json
}

@test "parallel --pipe --block 1k -k cat gives back the same stream" {
	parallel --pipe --block 1k -k cat < s.bin > p.bin
	cmp s.bin p.bin
	parallel --pipe -N 10 -k cat < s.bin > p10.bin
	cmp s.bin p10.bin
	# every 1k block is a sequence of whole records: decode them in parallel
	parallel --pipe --block 1k -k rec-cat --json < s.bin > p.json
	cmp s.json p.json
	parallel --pipe -N 10 -k 'rec-cat --count | grep -c .' < s.bin > counts
	[ "$(wc -l < counts)" -eq $(((N + 9) / 10)) ]
}

@test "lz4: rec-cat --lz4 decodes with rec-cat, and lz4 -dc gives the binary stream" {
	rec-cat --lz4 s.bin > s.lz4
	[ "$(head -c4 s.lz4 | od -An -tx1 | tr -d ' ')" = 04224d18 ]
	[ "$(stat -c %s s.lz4)" -lt "$(stat -c %s s.bin)" ]
	rec-cat --json s.lz4 | cmp - s.json
	lz4 -dc s.lz4 | cmp - s.bin
	# the lz4 command's output is read transparently too, from a file or a pipe
	lz4 -q -c s.bin > cmd.lz4
	rec-cat --bin cmd.lz4 | cmp - s.bin
	lz4 -q -c s.json | rec-cat --bin | cmp - s.bin
	# --lz4 --json compresses JSON
	rec-cat --lz4 --json s.bin | lz4 -dc | cmp - s.json
	# and --lz4 to a named file
	rec-cat --lz4 -o out.lz4 s.json
	lz4 -dc out.lz4 | cmp - s.bin
}

@test "lz4 input cut short is reported, not taken as a clean end" {
	rec-cat --lz4 s.bin > s.lz4
	head -c $(($(stat -c %s s.lz4) / 2)) s.lz4 > cut.lz4
	run rec-cat --json cut.lz4
	[ "$status" -ne 0 ]
	[[ "$output" == *cut.lz4* ]]
}

@test "mixed input: binary and JSON lines interleaved decode" {
	local i
	mkdir b j
	split -l 1 -a 4 s.bin b/
	split -l 1 -a 4 s.json j/
	i=0
	for f in b/*; do
		i=$((i + 1))
		if [ $((i % 2)) -eq 1 ]; then cat "$f"; else cat "j/${f#b/}"; fi
	done > mixed
	[ "$(wc -l < mixed)" -eq "$N" ]
	grep -q '^{"kind"' mixed
	rec-cat --bin mixed | cmp - s.bin
	rec-cat --json mixed | cmp - s.json
	# several files, one of each kind
	rec-cat --json s.bin s.json | cmp - <(cat s.json s.json)
}

@test "JSON as jq passes it on: keys in another order, spaces" {
	# kind last, every key reversed
	jq -c 'to_entries | reverse | from_entries' s.json > rev.json
	head -c 40 rev.json | grep -v '^{"kind"'
	rec-cat --json rev.json | jq -c . > got
	jq -c . s.json > want
	diff want got
	# keys sorted (jq -S), spaces around every : and , (no text of the
	# instr records holds '","' or '":')
	jq -c -S 'select(.kind == "instr")' s.json | sed 's/,"/ , "/g; s/":/" : /g; s/^{/ { /; s/}$/ } /' > spaced.json
	grep -q ' : ' spaced.json
	rec-cat --bin spaced.json > spaced.bin
	rec-cat --bin <(jq -c 'select(.kind == "instr")' s.json) | cmp - spaced.bin
	# missing fields take their defaults (0, none)
	printf '{"kind":"instr","name":"VADD"}\n' | rec-cat --bin | rec-cat --json > d.json
	[ "$(jq -c '[.start, .pc, .block, .name, .pipe]' d.json)" = '[0,null,0,"VADD",""]' ]
}

@test "text mode prints readable lines, no control byte but LF" {
	rec-cat --text s.bin > t.txt
	[ "$(wc -l < t.txt)" -eq "$N" ]
	[ "$(ctl_bytes t.txt)" -eq 0 ]
	grep -q VADD t.txt
	grep -q MOV_OUT_TO_UB t.txt
	grep -q 'core10.cubecore0' t.txt
	# a NUL, an ESC and a LF of the texts are shown, not sent
	grep -q 'NUL\\x00byte' t.txt
	grep -q 'esc\\x1ainside' t.txt
	grep -q 'newline\\x0ainside' t.txt
}

@test "text mode: control bytes in any text field are shown escaped (instr pipe)" {
	printf '%s\n' '{"kind":"instr","pipe":"VE\u001b[31mC\u000aX","name":"VADD","detail":"d\u0007"}' \
		'{"kind":"mark","name":"M\u001b","detail":"\u0001"}' > ctl.jsonl
	rec-cat --text ctl.jsonl > t.txt
	od -c t.txt
	[ "$(wc -l < t.txt)" -eq 2 ]
	[ "$(ctl_bytes t.txt)" -eq 0 ]
}

@test "text mode: a record of an unknown kind does not send raw control bytes" {
	# DESIGN 3: a terminal gets readable text, never raw binary; a record
	# of a future kind is passed on, but in text mode it must stay readable
	{
		head -n 3 s.bin
		printf 'Zfuture \001\002\033[2J\032J\r\000 record\n'
	} > unk.bin
	rec-cat --text unk.bin > t.txt
	od -c t.txt | tail -n 4
	[ "$(wc -l < t.txt)" -eq 4 ]
	[ "$(ctl_bytes t.txt)" -eq 0 ]
}

@test "stdout not a terminal: binary by default; OPTRACE_FORMAT chooses" {
	rec-cat in.jsonl > def.out
	cmp def.out s.bin
	rec-cat < in.jsonl | cmp - s.bin
	OPTRACE_FORMAT=json rec-cat s.bin > env.json
	cmp env.json s.json
	OPTRACE_FORMAT=text rec-cat s.bin > env.txt
	rec-cat --text s.bin | cmp - env.txt
	# an option wins over the environment
	OPTRACE_FORMAT=json rec-cat --bin s.bin | cmp - s.bin
	OPTRACE_FORMAT=text rec-cat --json s.bin | cmp - s.json
}

@test "stdout a terminal: readable text, never binary" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	script -qec "rec-cat '$T/s.bin'" /dev/null < /dev/null > tty.out
	[ "$(ctl_bytes -r tty.out)" -eq 0 ]
	grep -q VADD tty.out
	grep -q '^header' tty.out
	OPTRACE_FORMAT=bin script -qec "rec-cat '$T/s.bin'" /dev/null < /dev/null > tty2.out
	[ "$(ctl_bytes -r tty2.out)" -eq 0 ]
}

@test "a corrupt line: warning with file:line, exit 1, the good records written" {
	{
		head -n 4 s.bin
		printf 'Ibroken\n'
		sed -n '5,9p' s.bin
		printf '{"kind":"instr","pc":\n'
		tail -n +10 s.bin
	} > bad.bin
	[ "$(wc -l < bad.bin)" -eq $((N + 2)) ]
	run rec-cat --json bad.bin
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.bin:5:"* ]]
	[[ "$output" == *"bad.bin:11:"* ]]
	rec-cat --json bad.bin > good.json 2> err || true
	cmp good.json s.json
	grep -q 'bad.bin:5:' err
	# from a pipe: the same records, status 1
	run bash -c 'rec-cat --bin < bad.bin > good.bin'
	[ "$status" -eq 1 ]
	cmp good.bin s.bin
}

@test "a stream cut in the middle of a record: warning, exit 1, the rest kept" {
	head -c -7 s.bin > cut.bin
	rec-cat --json cut.bin > cut.json 2> err && false
	[ "$(wc -l < cut.json)" -eq $((N - 1)) ]
	grep -q "cut.bin:$N:" err
	diff <(head -n $((N - 1)) s.json) cut.json
}

@test "rec-cat --count counts the records of each kind" {
	rec-cat --count s.bin > c.txt
	cat c.txt
	grep -qx "header	1" c.txt
	grep -qx "source	1" c.txt
	grep -qx "line	${#TEXTS[@]}" c.txt
	grep -qx "instr	$NINSTR" c.txt
	grep -qx "mark	1" c.txt
	grep -qx "diag	1" c.txt
	grep -qx "trailer	1" c.txt
	[ "$(wc -l < c.txt)" -eq 7 ]
	[ "$(awk -F'\t' '{ s += $2 } END { print s }' c.txt)" -eq "$N" ]
	# the same from JSON, from lz4, and from grep's selection
	rec-cat --count s.json | cmp - c.txt
	rec-cat --lz4 s.bin | rec-cat --count | cmp - c.txt
	[ "$(grep -a VADD s.bin | rec-cat --count)" = "instr	$(n_vadd)" ]
}

@test "records of unknown kinds pass through unchanged and are counted once" {
	{
		cat s.bin
		printf 'Zfuture \001\002\032J record\n'
		printf '{"kind":"future","x":1}\n'
		printf 'Yanother\n'
	} > unk.bin
	rec-cat --bin unk.bin | cmp - unk.bin
	rec-cat --count unk.bin > c.txt
	cat c.txt
	[ "$(grep -c '^unknown' c.txt)" -eq 1 ]
	grep -qx "unknown	3" c.txt
}

@test "a write error (full disk) is reported with exit status 4" {
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c 'rec-cat --json s.bin > /dev/full'
	printf '%s\n' "$output" | head -n 12
	[ "$status" -eq 4 ]
	# the message says why
	[[ "$output" == *"No space left on device"* ]]
}

@test "-o FILE: written in place of FILE, even FILE itself; kept when rec-cat fails" {
	rec-cat --json -o out.json s.bin
	cmp out.json s.json
	# converting a file into itself is safe (a temporary file is renamed)
	cp s.json conv
	rec-cat --bin -o conv conv
	cmp conv s.bin
	[ "$(ls | grep -c '^conv')" -eq 1 ]
	# rec-cat(1): "-o FILE  Write to FILE, replaced only on success."
	echo previous > keep
	rec-cat --lz4 s.bin > s.lz4
	head -c 300 s.lz4 > cut.lz4
	run rec-cat --json -o keep cut.lz4
	[ "$status" -eq 4 ]
	[ "$(cat keep)" = previous ]
	run rec-cat --json -o keep no-such-file
	[ "$status" -ne 0 ]
	[ "$(cat keep)" = previous ]
	[ "$(ls | grep -c '^keep')" -eq 1 ]
}

@test "empty input gives empty output" {
	: > empty
	rec-cat --json empty > out
	[ ! -s out ]
	rec-cat --bin < /dev/null > out
	[ ! -s out ]
	rec-cat --count < /dev/null > out
	[ ! -s out ]
}

@test "a reader that stops early (head -n 1) ends rec-cat quietly" {
	local i
	for i in $(seq 1 300); do cat s.bin; done > big.bin
	run bash -c 'rec-cat --json big.bin 2> err | head -n 1 > first; echo "${PIPESTATUS[0]}"'
	head -n 12 err
	[ "$output" = 0 ]
	[ ! -s err ]
	[ "$(jq -r .kind first)" = header ]
}

@test "rec-cat: lines that are not records are input problems (exit 1, file:line) in every mode" {
	echo garbage > g.txt
	for mode in --count --json --bin --text; do
		run rec-cat $mode g.txt
		echo "$mode: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"rec-cat: g.txt:1: bad record: not a record stream"* ]]
		[[ "$output" != *unknown* ]]
	done
	run sh -c 'echo garbage | rec-cat --count'
	[ "$status" -eq 1 ]
	[[ "$output" == *"(stdin):1: "* ]]
	# a dump log line given by mistake: its first byte is not a kind letter
	{ head -n 2 s.bin; echo '[info] [00011035] (PC: 0x10f86000) SCALAR'; } > d.bin
	run rec-cat --count d.bin
	[ "$status" -eq 1 ]
	[[ "$output" == *"d.bin:3: bad record: not a record (its kind byte is not a letter)"* ]]
	[[ "$output" == *"header	1"* ]] && [[ "$output" != *unknown* ]]
	# a kind of a newer version in a stream, to JSON: not written into the JSON
	{ head -n 2 s.bin; printf 'Zfuture record\n'; } > z.bin
	run rec-cat --json z.bin
	[ "$status" -eq 1 ]
	[[ "$output" == *"z.bin:3: bad record: a record of a kind this version does not know cannot be written as JSON"* ]]
	rec-cat --json z.bin 2>/dev/null | jq -e . > /dev/null
	rec-cat --bin z.bin | cmp - z.bin
}

@test "rec-cat --lz4 with a terminal on stdout: refused, exit 2, no lz4 bytes written" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	script -qec "rec-cat --lz4 '$T/s.bin'; echo \"status=\$?\"" /dev/null < /dev/null > tty.out
	cat -v tty.out
	grep -q 'status=2' tty.out
	grep -q 'rec-cat: refusing to write compressed data to a terminal' tty.out
	! grep -a -q "$(printf '\042\115\030')" tty.out
	# to a file or a pipe it compresses as before
	script -qec "rec-cat --lz4 -o '$T/o.lz4' '$T/s.bin'; echo \"status=\$?\"" /dev/null < /dev/null > tty2.out
	grep -q 'status=0' tty2.out
	lz4 -dc o.lz4 | cmp - s.bin
}

@test "rec-cat: more than three bad lines: three warned as file:line, all counted, exit 1" {
	{ cat s.bin; for i in 1 2 3 4 5; do printf 'Ibroken %d\n' "$i"; done; } > bad5.bin
	run --separate-stderr rec-cat --json bad5.bin
	[ "$status" -eq 1 ]
	printf '%s\n' "${stderr_lines[@]}"
	[ "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'bad5.bin:[0-9]*: bad record')" -eq 3 ]
	[[ "${stderr_lines[3]}" == "rec-cat: 5 lines skipped: not records this version can read" ]]
	[ "$output" = "$(cat s.json)" ]
}

# The record tools share one runtime (lib/filter.c): the same refusal and the
# same SoC message in each.
@test "every record filter: --lz4 with a terminal on stdout is refused with exit 2 and one message" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	local tool
	for tool in instr-parse icache-merge mte-parse scalar-merge rec-cat; do
		script -qec "$tool --lz4 '$T/s.bin'; echo \"status=\$?\"" /dev/null < /dev/null > tty.out
		cat -v tty.out
		grep -q 'status=2' tty.out
		grep -q "^$tool: refusing to write compressed data to a terminal (redirect it, pipe it, or name a file with -o)" tty.out
		! grep -a -q "$(printf '\042\115\030')" tty.out
	done
}

@test "every record filter: an unknown --soc-version exits 2 with the one message" {
	local tool
	for tool in instr-parse icache-merge mte-parse scalar-merge "src-map --binary /dev/null"; do
		run --separate-stderr $tool --soc-version=Nope s.bin
		echo "$tool: $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "${tool%% *}: --soc-version: unknown SoC 'Nope' (want a name of the SoC table, in any case, e.g. "*"; see dump-split(1))" ]]
	done
}

@test "every record filter: a stream cut short upstream (no trailer) leaves it marked interrupted, and the trace downstream says TRUNCATED" {
	local tool
	dump-split -q "$DATA/910B" | instr-parse -q > whole.bin
	# The stream as an upstream tool killed mid-run leaves it: no trailer.
	head -n 20 whole.bin > cut.bin
	for tool in instr-parse icache-merge mte-parse scalar-merge "src-map --binary /dev/null"; do
		run --separate-stderr $tool -q --json cut.bin
		[ "$(printf '%s\n' "$output" | tail -n 1 | jq -c '[.kind, .interrupted]')" = '["trailer",1]' ]
	done
	icache-merge -q cut.bin 2>/dev/null | scalar-merge -q > fixed.bin || true
	run --separate-stderr timeline-emit -q -o emit fixed.bin
	[ "$status" -eq 1 ]
	grep -q TRUNCATED emit/trace.json
}
