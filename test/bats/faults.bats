#!/usr/bin/env bats
# Every tool fails cleanly when the system fails it: read, write, fsync,
# close, rename and open errors injected with test/fault/fault.so (see
# test/fault/README).  A failed run exits with the status of the table in
# the man pages, says so in one line naming the file, leaves no file (and no
# temporary sibling) under the -o name and keeps a file that was there.

bats_require_minimum_version 1.5.0

setup_file() {
	export FAULT_SO="$BATS_TEST_DIRNAME/../../build/fault.so"
	export DATA="$BATS_TEST_DIRNAME/../data"
	export IN="$BATS_FILE_TMPDIR/in"
	[ -f "$FAULT_SO" ] || return 0
	mkdir -p "$IN"
	# Record streams to feed instr-parse and rec-cat: the 910B sample
	# (small: written in one go at close) and a 5 MB generated dump (many
	# 1 MiB writes and reads, so faults can strike in the middle).
	dump-split "$DATA/910B" >"$IN/small.lines" 2>/dev/null
	if command -v gen-dump >/dev/null; then
		gen-dump -s 5 -c 1 -o "$IN/big" >/dev/null
		dump-split "$IN/big" >"$IN/big.lines" 2>/dev/null
	fi
}

setup() {
	[ -f "$FAULT_SO" ] || skip "build/fault.so is missing: build it from test/fault/fault.c (test/fault/README)"
	T=$BATS_TEST_TMPDIR
}

need_big() {
	[ -d "$IN/big" ] || skip "gen-dump is not on PATH (make build/bin/gen-dump)"
}

# to_null COMMAND...: COMMAND with its standard output thrown away (binary
# records in $output upset bash).
to_null() { "$@" >/dev/null; }

# inject [VAR=value...] TOOL ARGS...: run TOOL under fault.so.  ASan builds
# insist on coming first in the library list; they work fine after it.
inject() {
	env LD_PRELOAD="$FAULT_SO" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

fail() {
	printf '%s\n' "$@" "--- exit status: $status" "--- stderr:" "$stderr" "--- stdout (first 200 bytes):" "${output:0:200}" >&2
	if [ -n "${dir:-}" ] && [ -d "$dir" ]; then
		echo "--- $dir:" >&2
		ls -la "$dir" >&2
	fi
	return 1
}

# check_message TOOL NAMED ERRTEXT: exactly one line of stderr names NAMED,
# as "TOOL: NAMED: ..." or "TOOL: NAMED:LINE: ...", and carries ERRTEXT (the
# strerror text, when not empty); no message shows a temporary name.
check_message() {
	local tool=$1 named=$2 errtext=$3 line n=0 hit=
	if [ -z "$named" ]; then
		# no file to name: the last line is the tool's message
		hit=${stderr_lines[${#stderr_lines[@]} - 1]:-}
		[[ $hit == "$tool: "?* ]] || fail "no message from $tool"
		[ -z "$errtext" ] || [[ $hit == *"$errtext"* ]] || fail "message lacks '$errtext': $hit"
		! grep -q '\.tmp' <<<"$stderr" || fail "a message shows a temporary file name"
		return 0
	fi
	for line in "${stderr_lines[@]}"; do
		case $line in
		*"$named"*) n=$((n + 1)); hit=$line ;;
		esac
	done
	[ "$n" -eq 1 ] || fail "want one message naming $named, got $n"
	[[ $hit == "$tool: $named: "?* || $hit =~ ^"$tool: $named:"[0-9]+": " ]] ||
		fail "message not in the form '$tool: $named: ...': $hit"
	[ -z "$errtext" ] || [[ $hit == *"$errtext"* ]] || fail "message lacks '$errtext': $hit"
	! grep -q '\.tmp' <<<"$stderr" || fail "a message shows a temporary file name"
}

# fails_cleanly STATUS NAMED ERRTEXT FAULTS TOOL ARGS...  (NAMED empty: the
# failure concerns no file the user named; the last line is the message)
# Runs TOOL ARGS under the fault settings FAULTS (space-separated VAR=value)
# twice: with no file at the -o path, then with one.  "@OUT@" in ARGS (and
# in NAMED) stands for the -o path, in a directory of its own.  Checks the
# exit status, the message (check_message) and that the directory then holds
# nothing, or only the old file, unchanged.  ONE_LINE=1: stderr must be
# nothing but that message.  STDIN=file: the tool's standard input.
fails_cleanly() {
	local want=$1 named=$2 errtext=$3 faults=$4 tool=$5 case a out old
	local -a args
	shift 5
	for case in fresh existing; do
		dir=$T/$case
		rm -rf "$dir"
		mkdir -p "$dir"
		out=$dir/out.rec
		old="previous contents of out.rec"
		[ "$case" = fresh ] || echo "$old" >"$out"
		args=()
		for a in "$@"; do
			[ "$a" = @OUT@ ] && a=$out
			args+=("$a")
		done
		# shellcheck disable=SC2086
		run --separate-stderr inject $faults "$tool" "${args[@]}" <"${STDIN:-/dev/null}"
		[ "$status" -eq "$want" ] || fail "$case: exit status $status, want $want"
		[ -z "$output" ] || fail "$case: output on stdout although -o was given"
		check_message "$tool" "${named/@OUT@/$out}" "$errtext"
		[ "${ONE_LINE:-0}" = 0 ] || [ "${#stderr_lines[@]}" -eq 1 ] ||
			fail "$case: stderr should be the one message, has ${#stderr_lines[@]} lines"
		if [ "$case" = fresh ]; then
			[ -z "$(ls -A "$dir")" ] || fail "fresh: files left behind"
		else
			[ "$(ls -A "$dir")" = out.rec ] || fail "existing: files left behind"
			[ "$(cat "$out")" = "$old" ] || fail "existing: out.rec was changed"
		fi
	done
}

# trailer FILE: the trailer record of a record stream, as JSON.
trailer() { rec-cat --json "$1" | jq -c 'select(.kind == "trailer")'; }

# ---------------------------------------------------------------- fault.so

@test "fault.so: without FAULT_OP it changes nothing and says nothing" {
	need_big
	rec-cat -o "$T/plain.rec" "$IN/big.lines"
	run --separate-stderr inject FAULT_PATH=out.rec rec-cat -o "$T/out.rec" "$IN/big.lines"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail
	cmp "$T/plain.rec" "$T/out.rec"
}

@test "fault.so: a bad setting exits 125, and says why only with FAULT_VERBOSE=1" {
	run --separate-stderr inject FAULT_OP=frobnicate rec-cat -o "$T/out.rec" "$IN/small.lines"
	[ "$status" -eq 125 ] || fail
	[ -z "$stderr" ] || fail
	[ ! -e "$T/out.rec" ] || fail
	run --separate-stderr inject FAULT_OP=write FAULT_ERRNO=EWHAT FAULT_VERBOSE=1 rec-cat "$IN/small.lines"
	[ "$status" -eq 125 ] || fail
	[[ $stderr == *"fault: bad FAULT_ERRNO='EWHAT'"* ]] || fail
}

@test "fault.so: FAULT_AFTER and FAULT_COUNT choose the calls that fail; errno by number" {
	need_big
	run --separate-stderr inject FAULT_OP=write FAULT_PATH=out.rec FAULT_COUNT=0 rec-cat -o "$T/out.rec" "$IN/big.lines"
	[ "$status" -eq 0 ] || fail
	cmp "$IN/big.lines" "$T/out.rec"
	run --separate-stderr inject FAULT_OP=write FAULT_PATH=out.rec FAULT_AFTER=2 FAULT_COUNT=1 \
		FAULT_ERRNO=28 FAULT_VERBOSE=1 rec-cat -o "$T/out.rec" "$IN/big.lines"
	[ "$status" -eq 4 ] || fail
	[ "$(grep -c '^fault: write fd [0-9]*: failed with errno 28 (matching call 3)$' <<<"$stderr")" -eq 1 ] || fail
	[ "$(grep -c '^fault: write fd' <<<"$stderr")" -eq 1 ] || fail
	[[ $stderr == *"rec-cat: $T/out.rec: "*"No space left on device"* ]] || fail
}

# ---------------------------------------------------------------- dump-split

@test "dump-split: ENOSPC writing -o: exit 4, one message, no file left, old file kept" {
	fails_cleanly 4 @OUT@ "No space left on device" "FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: EIO writing -o: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: fsync of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=fsync FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: close of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=close FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: rename of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=rename FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: the temporary for -o cannot be created: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=out.rec" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: write error after 3 MiB of a large -o: exit 4, only the message, clean" {
	need_big
	ONE_LINE=1 fails_cleanly 4 @OUT@ "No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec FAULT_AFTER=3" \
		dump-split -o @OUT@ "$IN/big"
}

@test "dump-split: write error in the middle of an --lz4 -o: exit 4, clean" {
	need_big
	ONE_LINE=1 fails_cleanly 4 @OUT@ "Input/output error" \
		"FAULT_OP=write FAULT_PATH=out.rec FAULT_AFTER=1" \
		dump-split --lz4 -o @OUT@ "$IN/big"
}

@test "dump-split: --list-cores -o cannot be written: exit 4, clean" {
	fails_cleanly 4 @OUT@ "No space left on device" "FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec" \
		dump-split --list-cores -o @OUT@ "$DATA/910B"
}

@test "dump-split: EIO on standard output: exit 4 and one message" {
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout dump-split "$DATA/910B"
	[ "$status" -eq 4 ] || fail
	[ "${#stderr_lines[@]}" -eq 1 ] || fail
	[[ ${stderr_lines[0]} == "dump-split: "*"Input/output error" ]] || fail
}

@test "dump-split: EPIPE on standard output ends quietly with status 0" {
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE dump-split "$DATA/910B"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail
}

@test "dump-split: EPIPE after 2 MiB of standard output ends quietly with status 0" {
	need_big
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE FAULT_AFTER=2 dump-split "$IN/big"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail
}

# dump-split(1): an unreadable file among the dump's is an input problem
# (status 1), the output is still produced.
@test "dump-split: EIO reading one dump file: exit 1, file named, the others written" {
	local f="$DATA/910B/core0.veccore0.instr_log.dump"
	run --separate-stderr inject FAULT_OP=read FAULT_PATH=veccore0.instr_log.dump dump-split -o "$T/out.rec" "$DATA/910B"
	[ "$status" -eq 1 ] || fail
	check_message dump-split "$f" "Input/output error"
	# every line of the five other files is there
	local all one
	all=$(dump-split "$DATA/910B" 2>/dev/null | rec-cat --count | grep '^line')
	one=$(dump-split --core=core0.veccore0 --log=instr "$DATA/910B" 2>/dev/null | rec-cat --count | grep '^line')
	[ "$(rec-cat --count "$T/out.rec" | grep '^line')" = "line	$((${all#line?} - ${one#line?}))" ] || fail "lines of the other files missing"
	! compgen -G "$T/out.rec.tmp*" >/dev/null || fail "temporary file left behind"
}

@test "dump-split: EIO in the middle of a dump file: exit 1, file:line named" {
	need_big
	local f="$IN/big/core0.veccore1.instr_log.dump"
	run --separate-stderr inject FAULT_OP=read FAULT_PATH=veccore1.instr_log.dump FAULT_AFTER=1 dump-split -o "$T/out.rec" "$IN/big"
	[ "$status" -eq 1 ] || fail
	check_message dump-split "$f" "Input/output error"
	[[ $stderr =~ "dump-split: $f:"[1-9][0-9]*": " ]] || fail "no line number"
	[ -s "$T/out.rec" ] || fail
}

# A read error is not the end of the file: the bytes read before it that
# end in no LF are the start of a line, not a line.
@test "dump-split: a read error in the middle of a dump file emits no cut-off line" {
	need_big
	local f="$IN/big/core0.veccore1.instr_log.dump" n text
	inject FAULT_OP=read FAULT_PATH=veccore1.instr_log.dump FAULT_AFTER=1 \
		dump-split --json --core=core0.veccore1 --log=instr -o "$T/out.json" "$IN/big" 2>/dev/null || true
	n=$(jq -r 'select(.kind == "line") | .line' "$T/out.json" | tail -n 1)
	text=$(jq -r 'select(.kind == "line") | .text' "$T/out.json" | tail -n 1)
	[ "$text" = "$(sed -n "${n}p" "$f")" ] || fail "line $n is cut: '$text'"
}

# Nothing is dropped silently (README): a file cut short by a read error
# loses lines, and the trailer is how later stages learn of it.
@test "dump-split: a dump file cut short by a read error is counted in the trailer" {
	need_big
	inject FAULT_OP=read FAULT_PATH=veccore1.instr_log.dump FAULT_AFTER=1 \
		dump-split -o "$T/out.rec" "$IN/big" 2>/dev/null || true
	run trailer "$T/out.rec"
	[ "$(jq -r '.dropped + .bad' <<<"$output")" -ge 1 ] || fail "trailer says nothing was lost: $output"
}

@test "dump-split: the only dump file operand cannot be opened: exit 3, named, nothing written" {
	local f="$DATA/910B/core0.veccore0.instr_log.dump"
	fails_cleanly 3 "$f" "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=veccore0.instr_log.dump" \
		dump-split -o @OUT@ "$f"
}

@test "dump-split: the dump directory cannot be opened: exit 3, named, nothing written" {
	fails_cleanly 3 "$DATA/910B" "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=$DATA/910B" \
		dump-split -o @OUT@ "$DATA/910B"
}

@test "dump-split: one dump file of six cannot be opened: exit 1, named, counted as dropped" {
	local f="$DATA/910B/core0.veccore1.instr_popped_log.dump"
	run --separate-stderr inject FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=veccore1.instr_popped_log dump-split -o "$T/out.rec" "$DATA/910B"
	[ "$status" -eq 1 ] || fail
	check_message dump-split "$f" "Permission denied"
	[ "$(trailer "$T/out.rec" | jq -r .dropped)" -eq 1 ] || fail
}

# ---------------------------------------------------------------- instr-parse

@test "instr-parse: ENOSPC writing -o: exit 4, one message, no file left, old file kept" {
	fails_cleanly 4 @OUT@ "No space left on device" "FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: EIO writing -o: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: fsync of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=fsync FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: close of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=close FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: rename of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=rename FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: the temporary for -o cannot be created: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=out.rec" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

# Pairing stops at the write error, so loss counts would be those of an
# unfinished run (pops still waiting for their executions, and so on):
# nothing but the error is right.
@test "instr-parse: write error after 2 MiB of a large -o: exit 4, only the message, clean" {
	need_big
	ONE_LINE=1 fails_cleanly 4 @OUT@ "No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec FAULT_AFTER=2" \
		instr-parse -o @OUT@ "$IN/big.lines"
}

@test "instr-parse: EIO on standard output: exit 4 and the message" {
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout instr-parse "$IN/small.lines"
	[ "$status" -eq 4 ] || fail
	[[ ${stderr_lines[-1]} == "instr-parse: "*"Input/output error" ]] || fail
}

# The sample is read to the end before the first write, so its notes about
# the input are complete and true: EPIPE must add nothing to them.
@test "instr-parse: EPIPE on standard output: status 0, nothing said about it" {
	instr-parse "$IN/small.lines" >/dev/null 2>"$T/plain.err"
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE instr-parse "$IN/small.lines"
	[ "$status" -eq 0 ] || fail
	[ "$stderr" = "$(cat "$T/plain.err")" ] || fail
}

@test "instr-parse: EPIPE after 1 MiB of standard output ends quietly with status 0" {
	need_big
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE FAULT_AFTER=1 instr-parse "$IN/big.lines"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail "made-up counts of an unfinished run"
}

# instr-parse(1): -o "is replaced only when the run succeeds"; a read error
# is status 4, not success.
@test "instr-parse: EIO reading the input: exit 4, file named, -o not written" {
	fails_cleanly 4 "$IN/small.lines" "Input/output error" "FAULT_OP=read FAULT_PATH=in/small.lines" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

@test "instr-parse: EIO in the middle of the input: exit 4, file named, -o not written" {
	need_big
	fails_cleanly 4 "$IN/big.lines" "Input/output error" "FAULT_OP=read FAULT_PATH=in/big.lines FAULT_AFTER=2" \
		instr-parse -o @OUT@ "$IN/big.lines"
}

@test "instr-parse: EIO reading standard input: exit 4, (stdin) named, -o not written" {
	STDIN=$IN/small.lines fails_cleanly 4 "(stdin)" "Input/output error" "FAULT_OP=read FAULT_PATH=stdin" \
		instr-parse -o @OUT@
}

@test "instr-parse: the input cannot be opened: exit 3, named, nothing written" {
	fails_cleanly 3 "$IN/small.lines" "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=in/small.lines" \
		instr-parse -o @OUT@ "$IN/small.lines"
}

# Spool files (OPTRACE_SPOOL_MEM=0 sends every line to them) are anonymous
# files in $TMPDIR: a failure there is an I/O error like any other.
@test "instr-parse: spool files cannot be written: exit 4, -o clean" {
	need_big
	mkdir -p "$T/spool"
	OPTRACE_SPOOL_MEM=0 TMPDIR=$T/spool fails_cleanly 4 "" "" "FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=$T/spool" \
		instr-parse -o @OUT@ "$IN/big.lines"
}

@test "instr-parse: spool files cannot be read back: exit 4, -o clean" {
	need_big
	mkdir -p "$T/spool"
	OPTRACE_SPOOL_MEM=0 TMPDIR=$T/spool fails_cleanly 4 "" "" "FAULT_OP=read FAULT_PATH=$T/spool" \
		instr-parse -o @OUT@ "$IN/big.lines"
}

@test "instr-parse: a spool write error names \$TMPDIR and the cause" {
	need_big
	mkdir -p "$T/spool"
	run --separate-stderr env OPTRACE_SPOOL_MEM=0 TMPDIR="$T/spool" LD_PRELOAD="$FAULT_SO" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH="$T/spool" instr-parse -o "$T/out.rec" "$IN/big.lines"
	[ "$status" -eq 4 ] || fail
	[[ ${stderr_lines[-1]} == "instr-parse: $T/spool"*"No space left on device" ]] || fail
}

# ---------------------------------------------------------------- rec-cat

@test "rec-cat: ENOSPC writing -o: exit 4, one message, no file left, old file kept" {
	fails_cleanly 4 @OUT@ "No space left on device" "FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: EIO writing -o: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: fsync of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=fsync FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: close of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=close FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: rename of -o fails: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Input/output error" "FAULT_OP=rename FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: the temporary for -o cannot be created: exit 4, clean" {
	fails_cleanly 4 @OUT@ "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=out.rec" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: write error after 3 MiB of a large -o: exit 4, only the message, clean" {
	need_big
	ONE_LINE=1 fails_cleanly 4 @OUT@ "No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=out.rec FAULT_AFTER=3" \
		rec-cat -o @OUT@ "$IN/big.lines"
}

@test "rec-cat: write error in the middle of an --lz4 -o: exit 4, clean" {
	need_big
	ONE_LINE=1 fails_cleanly 4 @OUT@ "Input/output error" \
		"FAULT_OP=write FAULT_PATH=out.rec FAULT_AFTER=1" \
		rec-cat --lz4 -o @OUT@ "$IN/big.lines"
}

@test "rec-cat: EIO on standard output: exit 4 and one message" {
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout rec-cat "$IN/small.lines"
	[ "$status" -eq 4 ] || fail
	[ "${#stderr_lines[@]}" -eq 1 ] || fail
	[[ ${stderr_lines[0]} == "rec-cat: "*"Input/output error" ]] || fail
}

@test "rec-cat: EPIPE on standard output ends quietly with status 0" {
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE rec-cat "$IN/small.lines"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail
}

@test "rec-cat: EPIPE after 2 MiB of standard output ends quietly with status 0" {
	need_big
	run --separate-stderr to_null inject FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE FAULT_AFTER=2 rec-cat "$IN/big.lines"
	[ "$status" -eq 0 ] || fail
	[ -z "$stderr" ] || fail
}

# rec-cat(1): 4 when an input could not be read, "then the -o file is left
# as it was".
@test "rec-cat: EIO reading the input: exit 4, file named, -o not written" {
	fails_cleanly 4 "$IN/small.lines" "Input/output error" "FAULT_OP=read FAULT_PATH=in/small.lines" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

@test "rec-cat: EIO in the middle of the input: exit 4, file named, -o not written" {
	need_big
	fails_cleanly 4 "$IN/big.lines" "Input/output error" "FAULT_OP=read FAULT_PATH=in/big.lines FAULT_AFTER=2" \
		rec-cat -o @OUT@ "$IN/big.lines"
}

@test "rec-cat: the input cannot be opened: exit 3, named, -o not written" {
	fails_cleanly 3 "$IN/small.lines" "Permission denied" "FAULT_OP=open FAULT_ERRNO=EACCES FAULT_PATH=in/small.lines" \
		rec-cat -o @OUT@ "$IN/small.lines"
}

# ---------------------------------------------------------------- pipeline

# pipe_cut AFTER: dump-split DIR | instr-parse -o out.rec, dump-split's
# standard output failing with EIO after AFTER writes; statuses and
# messages in $T.
pipe_cut() {
	local src=$1 after=$2
	{
		local rc=0
		inject FAULT_OP=write FAULT_PATH=stdout FAULT_AFTER="$after" dump-split "$src" 2>"$T/ds.err" || rc=$?
		echo "$rc" >"$T/ds.rc"
	} | {
		local rc=0
		instr-parse -o "$T/out.rec" 2>"$T/ip.err" || rc=$?
		echo "$rc" >"$T/ip.rc"
	}
	stderr="(dump-split:) $(cat "$T/ds.err")
(instr-parse:) $(cat "$T/ip.err")"
	status="$(cat "$T/ds.rc") | $(cat "$T/ip.rc")"
}

@test "pipeline: dump-split's output cut after 2 MiB: it exits 4, instr-parse says cut short and exits 1" {
	need_big
	pipe_cut "$IN/big" 2
	[ "$(cat "$T/ds.rc")" -eq 4 ] || fail
	[ "$(wc -l <"$T/ds.err")" -eq 1 ] || fail
	grep -q '^dump-split: .*Input/output error$' "$T/ds.err" || fail
	[ "$(cat "$T/ip.rc")" -eq 1 ] || fail
	grep -q '^instr-parse: input ended without a trailer record: the stream upstream was cut short$' "$T/ip.err" || fail
	# instr-parse's own output is complete
	[ -n "$(trailer "$T/out.rec")" ] || fail
}

@test "pipeline: dump-split's first write fails: it exits 4, instr-parse says cut short and exits 1" {
	pipe_cut "$DATA/910B" 0
	[ "$(cat "$T/ds.rc")" -eq 4 ] || fail
	grep -q '^dump-split: .*Input/output error$' "$T/ds.err" || fail
	grep -q '^instr-parse: input ended without a trailer record: the stream upstream was cut short$' "$T/ip.err" || fail
	[ "$(cat "$T/ip.rc")" -eq 1 ] || fail "instr-parse reported a cut stream but exited $(cat "$T/ip.rc")"
	[ -n "$(trailer "$T/out.rec")" ] || fail
}
