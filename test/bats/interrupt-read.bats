#!/usr/bin/env bats
# A record reader stopped by Ctrl+C while the last line it has read is not
# complete yet (the writer upstream is in the middle of a record): the
# interrupted stream ends at the last whole record, marked interrupted,
# and the piece of a record is not reported as a bad one.  Deterministic:
# the signal is sent only once the reader sleeps in read(2) on its empty
# input, i.e. once it holds the piece.

load waits

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	have_syscall || skip "no /proc/PID/syscall here"
	T=$BATS_TEST_TMPDIR
	dump-split "$top/test/data/910B" > "$T/lines.rec" 2>/dev/null
	n=$(wc -l < "$T/lines.rec")
	# the first 40 records whole, then half of the next (no trailer)
	head -n 40 "$T/lines.rec" > "$T/part.rec"
	sed -n 41p "$T/lines.rec" | head -c 20 >> "$T/part.rec"
	[ "$n" -gt 50 ]
}

# interrupted TOOL ARGS...: TOOL reads part.rec from a FIFO whose writer
# stays open, gets SIGINT once it waits for more; its output in out.json.
interrupted() {
	mkfifo "$T/in"
	"$@" < "$T/in" > "$T/out.json" 2> "$T/err" 3>&- &
	pid=$!
	exec 5> "$T/in"
	cat "$T/part.rec" >&5
	wait_in_read "$pid"
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	exec 5>&-
	rm "$T/in"
}

@test "instr-parse interrupted with a piece of a record read: no bad record, the trailer says interrupted" {
	interrupted instr-parse --json
	[ "$st" -eq 130 ] || { cat "$T/err"; echo "status $st"; return 1; }
	[[ "$(cat "$T/err")" != *"bad record"* ]] || { cat "$T/err"; return 1; }
	jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0' "$T/out.json"
}

@test "mte-parse interrupted with a piece of a record read: no bad record, the trailer says interrupted" {
	interrupted mte-parse --json
	[ "$st" -eq 130 ] || { cat "$T/err"; echo "status $st"; return 1; }
	[[ "$(cat "$T/err")" != *"bad record"* ]] || { cat "$T/err"; return 1; }
	jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0' "$T/out.json"
}

@test "a stream whose last line is cut at a real end of input is still reported (bad record, cut short)" {
	run sh -c 'instr-parse --json < "$1" > "$2"' sh "$T/part.rec" "$T/out.json"
	[ "$status" -eq 1 ]
	[[ $output == *"bad record"* ]]
	jq -e -s '.[-1] | .kind == "trailer" and .bad == 1' "$T/out.json"
}
