#!/usr/bin/env bats
# dump-split as a user runs it.  The tools are on PATH; fixtures are in
# test/data; every dump made here is written by hand and says what it is.

load waits

setup() {
	DATA="$BATS_TEST_DIRNAME/../data"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# The lines of FILE as dump-split should give them: every line, a last line
# without LF completed with one (that is how jq -r prints it).
lines_of() {
	cat "$1"
	if [ -s "$1" ] && [ "$(tail -c1 "$1" | od -An -tx1 | tr -d ' ')" != 0a ]; then
		echo
	fi
}

# Number of lines of FILE, counting a last line without LF.
nlines() {
	local n
	n=$(wc -l < "$1")
	if [ -s "$1" ] && [ "$(tail -c1 "$1" | od -An -tx1 | tr -d ' ')" != 0a ]; then
		n=$((n + 1))
	fi
	echo "$n"
}

# A rotated log set: base, .1, .2 for instr and popped logs, each line
# naming its file.
make_rotated() {
	mkdir -p rot
	for k in instr_log instr_popped_log; do
		for p in "" .1 .2; do
			printf 'from %s%s a\nfrom %s%s b\n' "$k" "$p" "$k" "$p" > "rot/core0.veccore0.$k$p.dump"
		done
	done
}

# Fake cores 0..5 and 10, one instr and one popped log each.
make_cores() {
	mkdir -p cores
	for c in 0 1 2 3 4 5 10; do
		echo "instr of core $c" > "cores/core$c.veccore0.instr_log.dump"
		echo "popped of core $c" > "cores/core$c.veccore0.instr_popped_log.dump"
	done
}

# Records without the header and without paths: what must not depend on
# how the dump was packaged.
content() {
	jq -c 'select(.kind != "header") | del(.path)'
}

@test "--help goes to stdout and exits 0; --version" {
	run dump-split --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
	run dump-split --version
	[ "$status" -eq 0 ]
	[[ "$output" == "dump-split (optrace) "* ]]
}

@test "--list-cores names the cores of the 910B dump in order" {
	run dump-split --list-cores "$DATA/910B"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'core0.veccore0\ncore0.veccore1')" ]
}

@test "line records per file equal the file's line count" {
	for d in 910B A5 mixed; do
		dump-split --json "$DATA/$d" > out.json
		for f in "$DATA/$d"/*; do
			want=$(nlines "$f")
			id=$(jq -r --arg p "$DATA/$d/$(basename "$f")" 'select(.kind == "source" and .path == $p) | .file' out.json)
			[ -n "$id" ]
			got=$(jq -r --argjson id "$id" 'select(.kind == "line" and .file == $id) | .line' out.json | wc -l)
			last=$(jq -r --argjson id "$id" 'select(.kind == "line" and .file == $id) | .line' out.json | tail -n 1)
			echo "$f: want $want, got $got (last line number $last)"
			[ "$got" -eq "$want" ]
			[ "$last" -eq "$want" ]
		done
	done
}

@test "text round trip is byte-exact (910B core0.veccore0 instr log)" {
	f="$DATA/910B/core0.veccore0.instr_log.dump"
	lines_of "$f" > want
	dump-split --core=core0.veccore0 --log=instr --json "$DATA/910B" |
		jq -r 'select(.kind == "line") | .text' > got
	cmp want got
	# The same through the binary encoding and rec-cat.
	dump-split --core=core0.veccore0 --log=instr "$DATA/910B" | rec-cat --json |
		jq -r 'select(.kind == "line") | .text' > got2
	cmp want got2
}

@test "CR, NUL, ESC and other bytes pass through unchanged" {
	mkdir d
	printf 'crlf\r\nnul\000x\nesc\032y\ttab\nhigh\377\376\nno newline' > d/core7.instr_log.dump
	dump-split --json d > direct.json
	dump-split d | rec-cat --json > via-bin.json
	cmp direct.json via-bin.json
	run jq -c 'select(.kind == "line") | .text' direct.json
	[ "${lines[0]}" = '"crlf\r"' ]
	[ "${lines[1]}" = '"nul\u0000x"' ]
	[ "${lines[2]}" = '"esc\u001ay\ttab"' ]
	[ "${lines[4]}" = '"no newline"' ]
	[ "${#lines[@]}" -eq 5 ]
	# Binary records hold no LF of their own: one line per record.
	[ "$(dump-split d | wc -l)" -eq 8 ]
}

@test "rotated files come oldest first for instr and popped logs" {
	make_rotated
	run dump-split --json rot
	[ "$status" -eq 0 ]
	dump-split --json rot | jq -r 'select(.kind == "line") | .text' > got
	cat > want <<-EOF
	from instr_popped_log.2 a
	from instr_popped_log.2 b
	from instr_popped_log.1 a
	from instr_popped_log.1 b
	from instr_popped_log a
	from instr_popped_log b
	from instr_log.2 a
	from instr_log.2 b
	from instr_log.1 a
	from instr_log.1 b
	from instr_log a
	from instr_log b
	EOF
	diff want got
	run sh -c "dump-split --json rot | jq -c 'select(.kind == \"source\") | [.file, .log, .part]' | tr '\n' ' '"
	[ "$output" = '[1,"popped",2] [2,"popped",1] [3,"popped",0] [4,"instr",2] [5,"instr",1] [6,"instr",0] ' ]
}

@test "more than nine rotated files keep numeric order (not .1 .10 .2)" {
	mkdir r
	for p in "" 1 2 3 4 5 6 7 8 9 10 11; do
		n=${p:+.$p}
		echo "part ${p:-base}" > "r/core0.veccore0.instr_log$n.dump"
	done
	run sh -c "dump-split --json r | jq -r 'select(.kind == \"line\") | .text' | tr '\n' ' '"
	[ "$output" = "part 11 part 10 part 9 part 8 part 7 part 6 part 5 part 4 part 3 part 2 part 1 part base " ]
}

@test "a rotation gap warns and skips the files beyond it" {
	make_rotated
	echo "from instr_log.4 a" > rot/core0.veccore0.instr_log.4.dump
	run dump-split --json rot
	[ "$status" -eq 1 ]
	[[ "$output" == *"rot/core0.veccore0.instr_log.4.dump: skipped: rotated file 3 of this log is missing"* ]]
	dump-split --json rot 2>/dev/null > out.json || true
	! grep -q 'instr_log.4' out.json
	[ "$(jq -r 'select(.kind == "trailer") | .dropped' out.json)" -eq 1 ]
	[ "$(jq -r 'select(.kind == "line") | .text' out.json | wc -l)" -eq 12 ]
}

@test "MTE logs rotated as .dump.N come oldest first" {
	mkdir m
	echo newest > m/core1.mte_log.dump
	echo older > m/core1.mte_log.dump.1
	echo oldest > m/core1.mte_log.dump.2
	run sh -c "dump-split --json m | jq -r 'select(.kind == \"line\") | .text' | tr '\n' ' '"
	[ "$output" = "oldest older newest " ]
}

@test "cores come in numeric order, logs in the order popped, instr, icache, ccu, mte, reg" {
	mkdir o
	for k in reg_log mte_log ccu_log ifu.icache_log instr_log instr_popped_log; do
		echo "$k" > "o/core10.veccore0.$k.dump"
		echo "$k" > "o/core2.veccore1.$k.dump"
	done
	echo cube > o/core2.cubecore0.instr_log.dump
	echo sub0 > o/core2.veccore0_instr_log.dump
	run sh -c "dump-split --json o | jq -r 'select(.kind == \"source\") | .path' | sed 's,^o/,,' | tr '\n' ' '"
	want="core2.veccore0_instr_log.dump"
	for k in instr_popped_log instr_log ifu.icache_log ccu_log mte_log reg_log; do want="$want core2.veccore1.$k.dump"; done
	want="$want core2.cubecore0.instr_log.dump"
	for k in instr_popped_log instr_log ifu.icache_log ccu_log mte_log reg_log; do want="$want core10.veccore0.$k.dump"; done
	[ "$output" = "$want " ]
}

@test "--core-id selects physical cores: 0|2 and 1-2,5" {
	make_cores
	run dump-split --list-cores --core-id='0|2' cores
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'core0.veccore0\ncore2.veccore0')" ]
	run dump-split --list-cores --core-id=1-2,5 cores
	[ "$output" = "$(printf 'core1.veccore0\ncore2.veccore0\ncore5.veccore0')" ]
	run sh -c "dump-split --json --core-id '1-2,5|10' cores | jq -r 'select(.kind == \"line\") | .text' | tr '\n' ' '"
	[ "$output" = "popped of core 1 instr of core 1 popped of core 2 instr of core 2 popped of core 5 instr of core 5 popped of core 10 instr of core 10 " ]
}

@test "--core selects exact core names and may be repeated" {
	make_cores
	run sh -c "dump-split --json --core=core3.veccore0 --core core10.veccore0 cores | jq -r 'select(.kind == \"source\") | .path' | tr '\n' ' '"
	[ "$output" = "cores/core3.veccore0.instr_popped_log.dump cores/core3.veccore0.instr_log.dump cores/core10.veccore0.instr_popped_log.dump cores/core10.veccore0.instr_log.dump " ]
	run dump-split --json --core=core9.veccore0 cores
	[ "$status" -eq 1 ]
	[[ "$output" == *"no core core9.veccore0 in cores"* ]]
	run dump-split --core=veccore0 cores
	[ "$status" -eq 2 ]
}

@test "--log selects log kinds" {
	run sh -c "dump-split --json --log=icache,popped '$DATA/910B' | jq -r 'select(.kind == \"source\") | .log' | tr '\n' ' '"
	[ "$output" = "popped icache popped icache " ]
	run sh -c "dump-split --json --log reg '$DATA/mixed' | jq -r 'select(.kind == \"line\") | .log' | sort -u"
	[ "$output" = reg ]
	run dump-split --log=instr,bogus "$DATA/910B"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown log kind 'bogus'"* ]]
}

@test "files that are not dump logs are skipped with one note; -v names them; -q silences" {
	mkdir d
	cp "$DATA/A5"/* d/
	chmod u+w d/*
	echo x > d/aicore_binary.o
	echo 0x0 > d/pc_start_addr.txt
	echo x > d/lrm.data
	mkdir d/subdir
	run dump-split --json d
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'not a simulator dump log\|not simulator dump logs')" -eq 1 ]
	[[ "$output" == *"skipped 2 files that are not simulator dump logs"* ]]
	run dump-split -v --json d
	[[ "$output" == *"skipped lrm.data: not a simulator dump log"* ]]
	[[ "$output" == *"skipped subdir: not a simulator dump log"* ]]
	[[ "$output" == *"not read: aicore_binary.o (written by the capture, not a dump log)"* ]]
	run sh -c "dump-split -q --soc-version=Ascend950PR_9599 --json d 2>&1 >/dev/null"
	[ -z "$output" ]
	[ "$(dump-split --json d 2>/dev/null | jq -r 'select(.kind == "source") | .path' | wc -l)" -eq 2 ]
}

@test "zero-length dump files are skipped with a note" {
	mkdir d
	cp "$DATA/A5"/* d/
	: > d/core0.veccore0.ifu.icache_log.dump
	: > d/core1.veccore0.instr_log.dump
	run dump-split --json d
	[ "$status" -eq 0 ]
	[[ "$output" == *"skipped 2 empty dump files"* ]]
	run sh -c "dump-split --json d 2>/dev/null | jq -r 'select(.kind == \"source\") | .path' | tr '\n' ' '"
	[ "$output" = "d/core0.veccore0.instr_popped_log.dump d/core0.veccore0.instr_log.dump " ]
	dump-split --list-cores d > list 2> err
	[ "$(cat list)" = core0.veccore0 ]
	grep -q 'not listed (no non-empty instr or popped log): core1.veccore0' err
}

@test "an unreadable file is a warning with the errno text, exit 1" {
	if [ "$(id -u)" -eq 0 ]; then
		skip "root reads files whatever their mode"
	fi
	mkdir d
	cp "$DATA/910B"/* d/
	chmod 000 d/core0.veccore1.instr_log.dump
	run dump-split --json -o out.json d
	[ "$status" -eq 1 ]
	[[ "$output" == *"d/core0.veccore1.instr_log.dump: cannot open: Permission denied"* ]]
	[ "$(jq -r 'select(.kind == "source") | .path' out.json | wc -l)" -eq 5 ]
	[ "$(jq -r 'select(.kind == "trailer") | .dropped' out.json)" -eq 1 ]
}

@test "a directory without dump logs: exit 3, no output file" {
	mkdir empty
	run dump-split -o empty/out.rec empty
	[ "$status" -eq 3 ]
	[ "$output" = "dump-split: no simulator dump files in empty" ]
	[ -z "$(ls -A empty)" ]
	mkdir junk
	echo x > junk/aicore_binary.o
	run dump-split -o out.rec junk
	[ "$status" -eq 3 ]
	[ ! -e out.rec ]
	[ -z "$(ls -A . | grep out.rec)" ]
}

@test "a missing path: exit 3 with a clear message" {
	run dump-split -o out.rec no/such/dump
	[ "$status" -eq 3 ]
	[ "$output" = "dump-split: no/such/dump: cannot access: No such file or directory" ]
	[ ! -e out.rec ]
}

@test "usage errors exit 2" {
	for spec in '' '0|' '|1' 'a' '3-1' '1-' '0,,1' '99999999999'; do
		run dump-split --core-id="$spec" "$DATA/910B"
		echo "spec '$spec': $status $output"
		[ "$status" -eq 2 ]
	done
	run dump-split --no-such-option "$DATA/910B"
	[ "$status" -eq 2 ]
	run dump-split "$DATA/910B" "$DATA/A5"
	[ "$status" -eq 2 ]
}

@test "tar and tar.lz4 bundles give the same records as the directory" {
	(cd "$DATA" && tar cf "$T/b.tar" 910B)
	lz4 -q b.tar b.tar.lz4
	dump-split --json "$DATA/910B" | content > dir.json
	dump-split --json b.tar | content > tar.json
	dump-split --json b.tar.lz4 | content > tarlz4.json
	dump-split --json - < b.tar.lz4 | content > stdin.json
	[ "$(grep -c '"kind":"line"' dir.json)" -eq 46 ]
	cmp dir.json tar.json
	cmp dir.json tarlz4.json
	cmp dir.json stdin.json
	run sh -c "dump-split --json b.tar | jq -r 'select(.kind == \"source\") | .path' | head -n 1"
	[ "$output" = "b.tar(910B/core0.veccore0.instr_popped_log.dump)" ]
	# The private extraction directory is gone.
	mkdir tmp
	TMPDIR="$T/tmp" dump-split b.tar.lz4 > /dev/null
	[ -z "$(ls -A tmp)" ]
}

@test "bundle members larger than a read block come whole, plain, lz4 and piped" {
	# 1.6 MB and 0.7 MB members: each spans blocks of the reader, and the
	# second starts where the first left a block part-used.
	mkdir big
	seq -f 'instr line %.0f of core0.veccore0' 1 48000 > big/core0.veccore0.instr_log.dump
	seq -f 'popped %.0f' 1 60000 > big/core0.veccore0.instr_popped_log.dump
	tar cf b.tar big
	lz4 -q b.tar b.tar.lz4
	cat big/core0.veccore0.instr_popped_log.dump big/core0.veccore0.instr_log.dump > want
	for how in b.tar b.tar.lz4 pipe; do
		if [ "$how" = pipe ]; then
			cat b.tar | dump-split --json > out.json
		else
			dump-split --json "$how" > out.json
		fi
		jq -r 'select(.kind == "line") | .text' out.json > got
		cmp want got
	done
}

@test "GNU and pax bundles with names beyond 100 bytes give the records of the directory" {
	long=d$(printf '%0120d' 0)/dump
	mkdir -p "$long"
	cp "$DATA/910B"/* "$long/"
	dump-split --json "$DATA/910B" | content > dir.json
	for fmt in gnu pax ustar; do
		tar cf "$fmt.tar" --format="$fmt" "${long%%/*}" 2>/dev/null || { [ "$fmt" = ustar ]; continue; }
		dump-split --json "$fmt.tar" | content > "$fmt.json"
		cmp dir.json "$fmt.json"
		run sh -c "dump-split --json $fmt.tar | jq -r 'select(.kind == \"source\") | .path' | head -n 1"
		[ "$output" = "$fmt.tar($long/core0.veccore0.instr_popped_log.dump)" ]
	done
	# and compressed, from a pipe
	tar cf - --format=pax "${long%%/*}" | lz4 -q | dump-split --json | content > pipe.json
	cmp dir.json pipe.json
}

@test "a fatal error after extraction still removes the private directory" {
	(cd "$DATA" && tar cf "$T/b.tar" 910B)
	mkdir tmp
	run env TMPDIR="$T/tmp" dump-split -o "$T" b.tar
	[ "$status" -eq 4 ]
	[ -z "$(ls -A tmp)" ]
}

@test "--lz4 to a terminal is refused with the message of every tool" {
	command -v script >/dev/null || skip "no script(1) to give the tool a terminal"
	run script -qec "dump-split --lz4 '$DATA/910B'; echo status=\$?" /dev/null
	[[ "$output" == *"dump-split: refusing to write compressed data to a terminal (redirect it, pipe it, or name a file with -o)"* ]]
	[[ "$output" == *"status=2"* ]]
	run script -qec "dump-split --lz4 -o /dev/tty '$DATA/910B'; echo status=\$?" /dev/null
	[[ "$output" == *"dump-split: refusing to write compressed data to a terminal (redirect it, pipe it, or name a file with -o)"* ]]
	[[ "$output" == *"status=2"* ]]
}

@test "a bundle: non-dump members noted, unsafe names refused, truncation reported" {
	mkdir -p k/dump
	cp "$DATA/A5"/* k/dump/
	echo x > k/dump/aicore_binary.o
	echo x > k/dump/notes.txt
	tar cf b.tar k
	run dump-split --json b.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *"skipped 1 file that is not a simulator dump log"* ]]
	run dump-split -v --json b.tar
	[[ "$output" == *"skipped k/dump/notes.txt: not a simulator dump log"* ]]
	echo evil > core0.veccore0.reg_log.dump
	tar cf evil.tar --transform 's,^core,../core,' core0.veccore0.reg_log.dump k
	run dump-split --json evil.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"member ../core0.veccore0.reg_log.dump: absolute or '..' name, skipped"* ]]
	[[ "$output" != *'"text":"evil"'* ]]
	head -c 1800 b.tar > cut.tar   # inside the first dump member
	run dump-split --json cut.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"the bundle ends inside this member"* ]]
	echo "not a tar" > notes.txt
	run dump-split notes.txt
	[ "$status" -eq 3 ]
	[[ "$output" == *"notes.txt: not a simulator dump file, dump directory or tar bundle"* ]]
}

@test "one lz4-compressed dump file" {
	lz4 -q "$DATA/910B/core0.veccore1.instr_log.dump" core0.veccore1.instr_log.dump.lz4
	lines_of "$DATA/910B/core0.veccore1.instr_log.dump" > want
	dump-split --json core0.veccore1.instr_log.dump.lz4 > out.json
	jq -r 'select(.kind == "line") | .text' out.json > got
	cmp want got
	[ "$(jq -c 'select(.kind == "source") | [.core, .sub, .subidx, .log]' out.json)" = '[0,"veccore",1,"instr"]' ]
}

@test "the same log twice (plain and .lz4) is used once, with a warning" {
	mkdir d
	cp "$DATA/A5/core0.veccore0.instr_log.dump" d/
	lz4 -q d/core0.veccore0.instr_log.dump d/core0.veccore0.instr_log.dump.lz4
	run dump-split --json d
	[ "$status" -eq 1 ]
	[[ "$output" == *"d/core0.veccore0.instr_log.dump.lz4: same log as d/core0.veccore0.instr_log.dump; skipped"* ]]
}

@test "a broken pipe downstream ends quietly with status 0" {
	mkdir big
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "[info] [%08d] (PC: 0x10f86000) SCALAR   : (Binary: 0x073a7f80) MOV_XD_IMM  XD:X29=0x7f80\n", i }' > big/core0.veccore0.instr_log.dump
	run bash -c 'dump-split big 2>err | head -n 1 > /dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 0 ]
	[ ! -s err ]
	run bash -c 'dump-split --json big 2>err | head -n 1 > /dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 0 ]
	[ ! -s err ]
}

@test "-o writes the file; binary output round-trips through rec-cat --json" {
	run dump-split -o out.rec "$DATA/910B"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -s out.rec ]
	[ -z "$(ls -A | grep tmp)" ]
	dump-split --json "$DATA/910B" > direct.json
	rec-cat --json out.rec > via.json
	cmp direct.json via.json
	[ "$(head -n 1 direct.json | jq -r '[.producer, .soc, .mhz] | @tsv')" = "$(printf 'dump-split\tAscend910B1\t1850')" ]
	[ "$(tail -n 1 direct.json | jq -c '[.kind, .records, .interrupted]')" = '["trailer",52,0]' ]
	# Compressed output, and another SoC in the header.
	dump-split --lz4 --soc-version=Ascend310P3 -o out.rec.lz4 "$DATA/910B"
	[ "$(head -c 4 out.rec.lz4 | od -An -tx1 | tr -d ' ')" = 04224d18 ]
	[ "$(rec-cat --json out.rec.lz4 | head -n 1 | jq -r '[.soc, .mhz] | @tsv')" = "$(printf 'Ascend310P3\t1060')" ]
}

@test "a write error is exit 4 and leaves no file" {
	if [ ! -w /dev/full ]; then
		skip "no /dev/full"
	fi
	run dump-split -o /dev/full "$DATA/910B"
	[ "$status" -eq 4 ]
	[[ "$output" == *"/dev/full: write error: No space left on device"* ]]
	[ -c /dev/full ]
	run dump-split -o "$T" "$DATA/910B"
	[ "$status" -eq 4 ]
}

@test "interrupted: exit 130, output closed with an interrupted trailer" {
	have_syscall || skip "no /proc/PID/syscall here"
	mkfifo fifo
	(cd "$DATA" && tar cf "$T/b.tar" A5)
	dump-split --json -o out.json - < fifo 2> err 3>&- &
	pid=$!
	# Hold the pipe open so the tool is still reading when the signal
	# comes: it is sent once the tool waits for more.
	exec 5> fifo
	head -c 1024 b.tar >&5
	wait_in_read "$pid"
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 130 ]
	[ "$(tail -n 1 out.json | jq -c '[.kind, .interrupted]')" = '["trailer",1]' ]
	[ "$(head -n 1 out.json | jq -r .kind)" = header ]
}

@test "the EXAMPLES of the man page work" {
	man="$BATS_TEST_DIRNAME/../../man/dump-split.1"
	# Each "$ command" line of an .EX block, then the output it shows.
	awk '/^\.EX/ { ex = 1; next } /^\.EE/ { ex = 0; next } ex' "$man" |
		sed "s/\\\\-/-/g; s/\\\\e/\\\\/g; s/\\\\(aq/'/g" > examples
	[ "$(grep -c '^\$ ' examples)" -ge 5 ]
	n=0
	while IFS= read -r line; do
		if [[ "$line" == '$ '* ]]; then
			n=$((n + 1))
			printf '%s\n' "${line#\$ }" > "cmd.$n"
			: > "want.$n"
		else
			printf '%s\n' "$line" >> "want.$n"
		fi
	done < examples
	for i in $(seq 1 "$n"); do
		(cd "$BATS_TEST_DIRNAME/../data" && bash -o pipefail "$T/cmd.$i") > "got.$i" ||
			{ echo "example failed: $(cat "cmd.$i")"; false; }
		diff "want.$i" "got.$i" || { echo "example output differs: $(cat "cmd.$i")"; false; }
	done
}

# A bundle of one pax extended header with the payload $2 (Python string
# escapes), then the member core0.veccore0.instr_log.dump, written by hand.
pax_bundle() {
	python3 - "$1" "$2" <<'PY'
import sys, tarfile
def hdr(name, size, typ):
    t = tarfile.TarInfo(name); t.size = size; t.type = typ
    return t.tobuf(format=tarfile.USTAR_FORMAT)
def pad(b): return b + b'\0' * (-len(b) % 512)
pax = sys.argv[2].encode().decode('unicode_escape').encode('latin1')
data = b'instr line\n'
b = hdr('PaxHeaders/x', len(pax), tarfile.XHDTYPE) + pad(pax)
b += hdr('core0.veccore0.instr_log.dump', len(data), tarfile.REGTYPE) + pad(data)
open(sys.argv[1], 'wb').write(b + b'\0' * 1024)
PY
}

@test "a malformed pax header is reported and the member keeps its tar name" {
	# Length 1 or 0, shorter than its own length field, beyond the header,
	# no length, no '=', no newline, an empty key.
	for pax in '1 ' '0 ' '2 \n' '99 path=x\n' 'path=x\n' '12 pathxxxx\n' \
	           '13 path=abcde' '1'; do
		pax_bundle b.tar "$pax"
		run dump-split --json b.tar
		echo "pax [$pax]: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"b.tar: member core0.veccore0.instr_log.dump: malformed pax header ("* ]]
		[[ "$output" == *'"text":"instr line"'* ]]
	done
}

@test "a pax record with an empty key is reported with the member's tar name" {
	# libarchive 3.6 reads nothing past such a record (later versions go
	# on as with the malformed headers above): either way it is said.
	for pax in '4 =\n' '6 =bc\n'; do
		pax_bundle b.tar "$pax"
		run dump-split --json b.tar
		echo "pax [$pax]: $output"
		[[ "$output" == *"b.tar: member core0.veccore0.instr_log.dump: malformed pax header ("* ]]
		if [[ "$output" == *"the bundle cannot be read past it"* ]]; then
			[ "$status" -eq 3 ]
		else
			[ "$status" -eq 1 ]
			[[ "$output" == *'"text":"instr line"'* ]]
		fi
	done
}

@test "pax path records: the last one names the member, other keys are ignored" {
	pax_bundle b.tar '8 a=bcd\n20 path=k/elsewhere\n40 path=k/core0.veccore1.instr_log.dump\n'
	run dump-split --json b.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *'"path":"b.tar(k/core0.veccore1.instr_log.dump)"'* ]]
	[[ "$output" != *malformed* ]]
}

@test "an old GNU tar header: the bytes where ustar keeps its name prefix are not a prefix" {
	python3 - <<'PY'
import tarfile
t = tarfile.TarInfo('core0.veccore0.instr_log.dump'); data = b'instr line\n'; t.size = len(data)
b = bytearray(t.tobuf(format=tarfile.GNU_FORMAT))
assert b[257:265] == b'ustar  \0'
b[345:357] = b'14567123456\0'          # an access time, as tar --incremental writes
b[148:156] = b' ' * 8
b[148:156] = b'%06o\0 ' % sum(b[:512])
open('g.tar', 'wb').write(bytes(b[:512]) + data + b'\0' * (512 - len(data)) + b'\0' * 1024)
PY
	run dump-split --json g.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *'"path":"g.tar(core0.veccore0.instr_log.dump)"'* ]]
}

@test "--soc-version: names of the SoC table in any case; the header has the table's spelling" {
	run sh -c "dump-split --json --soc-version=Ascend950DT_950x '$DATA/A5' | head -n 1"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"mhz":1650,'*'"soc":"Ascend950DT_950x"'* ]]
	for soc in Ascend950DT_950y Ascend950PR_950z Ascend950PR_957b Ascend950PR_957c \
	           Ascend950PR_957d Ascend950PR_958b ASCEND950PR_958B ascend950pr_9599; do
		run sh -c "dump-split --json --soc-version=$soc '$DATA/A5' | head -n 1"
		[ "$status" -eq 0 ]
		[[ "$output" == *'"soc":"Ascend950'* ]]
	done
	run sh -c "dump-split --json --soc-version=ascend910b4 '$DATA/910B' | head -n 1"
	[[ "$output" == *'"mhz":1650,'*'"soc":"Ascend910B4"'* ]]
	run sh -c "dump-split --soc-version=ascend310p5 '$DATA/910B' | instr-parse --json --soc-version=ASCEND310P5 | head -n 1"
	[[ "$output" == *'"mhz":800,'*'"soc":"Ascend310P5"'* ]]
}

@test "--soc-version: an unknown SoC is a usage error with one message in every tool" {
	bad='Ascend910B1;touch${IFS}x'
	dump-split "$DATA/910B" > ok.rec
	for tool in dump-split instr-parse icache-merge scalar-merge mte-parse timeline-emit; do
		case $tool in
		dump-split) run dump-split --soc-version="$bad" "$DATA/910B" ;;
		timeline-emit) run timeline-emit --soc-version="$bad" -o out ok.rec ;;
		*) run "$tool" --soc-version="$bad" ok.rec ;;
		esac
		echo "$tool: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		msg=${output#"$tool: "}
		[ "$msg" != "$output" ]
		[ -z "${first:-}" ] || [ "$msg" = "$first" ]
		first=$msg
	done
	[[ "$first" == "--soc-version: unknown SoC 'Ascend910B1;touch\${IFS}x' ("* ]]
	[ ! -e x ] && [ ! -e out ]
	run dump-split --soc-version=Ascend910C9 "$DATA/910B"
	[ "$status" -eq 2 ]
	run dump-split --soc-version= "$DATA/910B"
	[ "$status" -eq 2 ]
}

@test "the files a capture writes beside the dump logs are not reported as skipped" {
	# what sim-capture, the preload library and the reference's tree put
	# in or next to a dump directory
	mkdir -p d/kernel_data
	cp "$DATA/910B"/* d/
	chmod u+w d/*
	for f in aicore_binary.o pc_start_addr.txt manifest.json capture.rec kernel_config.bin \
	         input_tiling.bin object_dump.txt; do
		echo x > "d/$f"
	done
	run dump-split --json d
	[ "$status" -eq 0 ]
	[[ "$output" != *skipped* ]]
	tar cf b.tar d
	run dump-split --json b.tar
	[ "$status" -eq 0 ]
	[[ "$output" != *skipped* ]]
	# a file nobody expects is still news
	echo x > d/core0.veccore0.instr_log.dump.bak
	run dump-split --json d
	[[ "$output" == *"skipped 1 file that is not a simulator dump log (-v names them)"* ]]
}

# A capture's tree as sim-capture writes it, with the dump of test/data/DUMP
# and a manifest naming SOC: OPPROF_x/device0/k/0/dump.
capture_tree() {
	d=OPPROF_x/device0/k/0/dump
	mkdir -p "$d"
	cp "$DATA/$1"/* "$d/"
	chmod u+w "$d"/*
	printf '{\n"producer":"sim-capture 0.1.0",\n"soc":"%s",\n"mhz":1,\n"kernels":[{"name":"k","n":0}]\n}\n' "$2" > OPPROF_x/manifest.json
}

header_of() {
	dump-split --json "$@" 2>/dev/null | head -n 1 | jq -r '[.soc, .mhz, .origin] | join(" ")'
}

@test "no --soc-version: the SoC comes from the capture's manifest.json above the dump" {
	capture_tree 910B Ascend310P3
	run dump-split --json OPPROF_x/device0/k/0/dump
	[ "$status" -eq 0 ]
	[[ "$output" != *"guessed"* ]]
	run header_of OPPROF_x/device0/k/0/dump
	[[ "$output" == "Ascend310P3 1060 OPPROF_x/device0/k/0/dump (SoC from "*"/OPPROF_x/manifest.json)" ]]
	# any case, and one dump file of the tree
	sed -i 's/Ascend310P3/ascend310p5/' OPPROF_x/manifest.json
	run header_of OPPROF_x/device0/k/0/dump/core0.veccore0.instr_log.dump
	[[ "$output" == "Ascend310P5 800 "* ]]
	# the option wins; and instr-parse follows the header
	run header_of --soc-version=Ascend910B3 OPPROF_x/device0/k/0/dump
	[[ "$output" == "Ascend910B3 1800 OPPROF_x/device0/k/0/dump" ]]
	run sh -c 'dump-split OPPROF_x/device0/k/0/dump 2>/dev/null | instr-parse --json 2>/dev/null | head -n 1'
	[[ "$output" == *'"mhz":800,'*'"soc":"Ascend310P5"'* ]]
	# an unknown SoC in the manifest is said and not used
	sed -i 's/ascend310p5/Ascend999/' OPPROF_x/manifest.json
	run dump-split --json OPPROF_x/device0/k/0/dump
	[[ "$output" == *"OPPROF_x/manifest.json: unknown SoC 'Ascend999'; not used"* ]]
	[[ "$output" == *'"soc":"Ascend910B1"'* ]]
	# a capture.rec header says it too
	rm OPPROF_x/manifest.json
	echo '{"kind":"header","version":1,"mhz":1060,"producer":"sim-capture","soc":"Ascend310P1","origin":"app"}' |
		rec-cat --bin > OPPROF_x/capture.rec
	run header_of OPPROF_x/device0/k/0/dump
	[[ "$output" == "Ascend310P1 1060 "*"(SoC from "*"/OPPROF_x/capture.rec)" ]]
}

@test "no --soc-version and no capture: a 310P, 310B or A5 line format gives a loud guess" {
	run dump-split --json "$DATA/A5"
	[ "$status" -eq 0 ]
	[[ "$output" == *"dump-split: $DATA/A5/core0.veccore0.instr_popped_log.dump: no --soc-version and no manifest.json of a capture: the lines are those of the A5 family, so Ascend950PR_9599 (1800 MHz) is assumed; give --soc-version for the exact clock"* ]]
	run header_of "$DATA/A5"
	[[ "$output" == "Ascend950PR_9599 1800 $DATA/A5 (SoC guessed from the line format)" ]]
	# -q does not hide it: pipelines run dump-split -q
	run sh -c "dump-split -q '$DATA/A5' 2>&1 >/dev/null"
	[[ "$output" == *"so Ascend950PR_9599 (1800 MHz) is assumed"* ]]
	mkdir p b
	printf '%s\n' '[info] [00000342](PC: 0x10cfa008) SCALAR : (Binary: 0x02000080) scalar_neg(dType:0x0,  x[0]= 0xffffffffffffffff, xn:0x0)' \
		> p/core0.instr_popped_log.dump
	cp p/core0.instr_popped_log.dump p/core0.instr_log.dump
	run header_of p
	[[ "$output" == "Ascend310P1 1060 p (SoC guessed from the line format)" ]]
	sed 's/scalar_neg/(ID: 000731) scalar_neg/' p/core0.instr_log.dump > b/core0.instr_log.dump
	run header_of b
	[[ "$output" == "Ascend310B1 1224 b (SoC guessed from the line format)" ]]
	# 310P: 0.87 us of A2 clock no more: instr-parse and the rest follow the header
	run sh -c "dump-split p 2>/dev/null | instr-parse --json 2>/dev/null | head -n 1"
	[[ "$output" == *'"mhz":1060,'*'"soc":"Ascend310P1"'* ]]
	# A2 lines, and lines of two formats: the default, without a word
	run header_of "$DATA/910B"
	[ "$output" = "Ascend910B1 1850 $DATA/910B" ]
	run sh -c "dump-split --json '$DATA/mixed' 2>&1 | head -n 1"
	[[ "$output" == *'"soc":"Ascend910B1"'* ]] && [[ "$output" != *guess* ]]
}
