# Cells of the fault matrix (fault-matrix.bats): one tool run under one
# fault injected with test/fault/fault.so (test/fault/README), checked
# against the rules of the man pages' EXIT STATUS: the status of the table,
# one message naming the file, nothing half-written under a final name, an
# older output kept as it was.
#
# Each check prints why it failed and returns 1 (the cells are called from
# conditions, where bats' errexit does not stop a function).

# fm_inject [VAR=value...] COMMAND...: COMMAND under fault.so, ended after
# FM_TIMEOUT seconds (default 300; a tool that hangs on a fault fails its
# cell with status 124).  ASan builds insist on coming first in the
# library list; they work fine after it.
fm_inject() {
	timeout "${FM_TIMEOUT:-300}" env LD_PRELOAD="$FAULT_SO" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

fm_why() {
	printf '%s\n' "$1" "--- exit status: ${status:-}" "--- stderr:" "${stderr:-}" >&2
	[ -z "${dir:-}" ] || [ ! -d "$dir" ] || { echo "--- $dir:" >&2; find "$dir" >&2; }
	return 1
}

# fm_message TOOL NAMED ERRTEXT: exactly one line of stderr names NAMED,
# as "TOOL: NAMED: ..." or "TOOL: NAMED:LINE: ..." (NAMED ending in "/":
# any file under that directory, or the directory), and carries ERRTEXT;
# no message shows a temporary name.
fm_message() {
	local tool=$1 named=$2 errtext=$3 line n=0 hit=
	for line in "${stderr_lines[@]}"; do
		case $line in
		"$tool: ${named%/}:"* | "$tool: ${named%/}/"*) n=$((n + 1)); hit=$line ;;
		esac
	done
	[ "$n" -eq 1 ] || { fm_why "want one message naming $named, got $n"; return 1; }
	[[ $named == */ || $hit == "$tool: $named: "?* || $hit =~ ^"$tool: $named:"[0-9]+": " ]] ||
		{ fm_why "message not in the form '$tool: $named: ...': $hit"; return 1; }
	[ -z "$errtext" ] || [[ $hit == *"$errtext"* ]] || { fm_why "message lacks '$errtext': $hit"; return 1; }
	! grep -q '\.tmp' <<<"$stderr" || { fm_why "a message shows a temporary file name"; return 1; }
}

# fm_subst WORD: @OUT@ (the -o path), @DIR@ (its directory) and @IN@ (the
# input directory) replaced.
fm_subst() {
	local a=$1
	a=${a//@OUT@/$out}
	a=${a//@DIR@/$dir}
	a=${a//@IN@/$IN}
	REPLY=$a
}

# fm_words ARRAY WORD...: ARRAY set to the WORDs, each through fm_subst.
fm_words() {
	local -n fm_to=$1
	local fm_w
	shift
	fm_to=()
	for fm_w in "$@"; do
		fm_subst "$fm_w"
		fm_to+=("$REPLY")
	done
}

# fm_fails STATUS NAMED ERRTEXT FAULTS COMMAND...: COMMAND under FAULTS
# (space-separated VAR=value, @-words substituted) twice, with nothing at
# the -o path @OUT@ ($T/fresh/out), then over an older output there made
# by the same command without faults ($T/existing/out).  Checks the exit
# status, the message (fm_message, NAMED substituted) and that the
# directory then holds nothing, or the older output byte for byte.
fm_fails() {
	local want=$1 named=$2 errtext=$3 faults=$4 case a
	local -a args envs
	shift 4
	for case in fresh existing; do
		dir=$T/$case
		out=$dir/out
		rm -rf "$dir"
		mkdir -p "$dir"
		fm_words args "$@"
		# shellcheck disable=SC2086
		fm_words envs $faults
		if [ "$case" = existing ]; then
			"${args[@]}" >/dev/null 2>&1 || { fm_why "the run without a fault failed: ${args[*]}"; return 1; }
			cp -a "$out" "$T/old"
		fi
		run --separate-stderr fm_inject "${envs[@]}" "${args[@]}" <"${STDIN:-/dev/null}"
		[ "$status" -eq "$want" ] || { fm_why "$case: exit status $status, want $want"; return 1; }
		fm_subst "$named"
		fm_message "${args[0]}" "$REPLY" "$errtext" || return 1
		if [ "$case" = fresh ]; then
			[ -z "$(ls -A "$dir")" ] || { fm_why "fresh: files left behind"; return 1; }
		else
			[ "$(ls -A "$dir")" = out ] || { fm_why "existing: files left behind"; return 1; }
			diff -r "$T/old" "$out" >&2 || { fm_why "existing: the older output was changed"; return 1; }
			rm -rf "$T/old"
		fi
	done
	dir=
}

# fm_same FAULTS COMMAND...: COMMAND under FAULTS (reads cut short, say)
# gives the exit status, the messages and the -o output of a run without
# them.
fm_same() {
	local faults=$1 a plain_status plain_err
	local -a args envs
	shift
	dir=$T/same
	rm -rf "$dir"
	mkdir -p "$dir/a" "$dir/b"
	# shellcheck disable=SC2086
	fm_words envs $faults
	out=$dir/a/out
	fm_words args "$@"
	run --separate-stderr "${args[@]}" <"${STDIN:-/dev/null}"
	plain_status=$status plain_err=$stderr
	out=$dir/b/out
	fm_words args "$@"
	run --separate-stderr fm_inject "${envs[@]}" "${args[@]}" <"${STDIN:-/dev/null}"
	[ "$status" -eq "$plain_status" ] || { fm_why "exit status $status, $plain_status without the fault"; return 1; }
	[ "${stderr//$dir\/b/$dir/a}" = "$plain_err" ] ||
		{ fm_why "messages differ from those without the fault: $plain_err"; return 1; }
	diff -r "$dir/a" "$dir/b" >&2 || { fm_why "the output differs from that without the fault"; return 1; }
	dir=
}

# fm_stdout STATUS FAULTS COMMAND...: COMMAND writing to standard output
# under FAULTS; its status must be STATUS and, for 0 (EPIPE: the reader
# went away), stderr must be what it is without the fault or nothing; for
# 4, one message as the last line.
fm_stdout() {
	local want=$1 faults=$2 a plain_err
	local -a args envs
	shift 2
	fm_words args "$@"
	# shellcheck disable=SC2086
	fm_words envs $faults
	plain_err=$("${args[@]}" 2>&1 >/dev/null <"${STDIN:-/dev/null}")
	run --separate-stderr fm_stdout_null fm_inject "${envs[@]}" "${args[@]}" <"${STDIN:-/dev/null}"
	[ "$status" -eq "$want" ] || { fm_why "exit status $status, want $want"; return 1; }
	if [ "$want" -eq 0 ]; then
		[ -z "$stderr" ] || [ "$stderr" = "$plain_err" ] || { fm_why "EPIPE said something"; return 1; }
	else
		[[ ${stderr_lines[-1]:-} == "${args[0]}: "*"Input/output error" ]] || { fm_why "no message"; return 1; }
		[ "$(grep -c 'Input/output error' <<<"$stderr")" -eq 1 ] || { fm_why "more than one message"; return 1; }
	fi
}

# The command with its standard output thrown away (binary records in
# $output upset bash).
fm_stdout_null() { "$@" >/dev/null; }

# fm_full COMMAND...: COMMAND with standard output on /dev/full (every
# write fails with ENOSPC, stdio's included, which fault.so cannot reach):
# status 4 (FULL_STATUS: another) and one message, the last line, saying
# so (FULL_TEXT: what it ends with, if not the errno's text; FULL_ONE=0:
# a recipe, whose tools say it too).
fm_full() {
	local a
	local -a args
	fm_words args "$@"
	run --separate-stderr fm_to_full "${args[@]}" <"${STDIN:-/dev/null}"
	[ "$status" -eq "${FULL_STATUS:-4}" ] || { fm_why "exit status $status, want ${FULL_STATUS:-4}"; return 1; }
	[[ ${stderr_lines[-1]:-} == "${args[0]}: "*"${FULL_TEXT-No space left on device}" ]] || { fm_why "no message"; return 1; }
	[ "${FULL_ONE:-1}" = 0 ] || [ "$(grep -c -- "${FULL_TEXT-No space left on device}" <<<"$stderr")" -eq 1 ] ||
		{ fm_why "more than one message"; return 1; }
}

fm_to_full() { "$@" >/dev/full; }

# fm_partial NAMED ERRTEXT FAULTS COMMAND...: an input file among several
# cannot be read: status 1 (input problems, output produced), one message
# naming it, the -o output in place and no temporary beside it.
fm_partial() {
	local named=$1 errtext=$2 faults=$3 a
	local -a args envs
	shift 3
	dir=$T/partial
	out=$dir/out
	rm -rf "$dir"
	mkdir -p "$dir"
	fm_words args "$@"
	# shellcheck disable=SC2086
	fm_words envs $faults
	run --separate-stderr fm_inject "${envs[@]}" "${args[@]}" <"${STDIN:-/dev/null}"
	[ "$status" -eq 1 ] || { fm_why "exit status $status, want 1"; return 1; }
	fm_subst "$named"
	fm_message "${args[0]}" "$REPLY" "$errtext" || return 1
	[ "$(ls -A "$dir")" = out ] && [ -s "$out" ] || { fm_why "want the output alone in $dir"; return 1; }
	dir=
}

# fm_gone COMMAND...: COMMAND with standard output a pipe whose reader has
# already gone (SIGPIPE as the shell leaves it, EPIPE where it is
# ignored): it must end quietly with its usual status (0 or 1;
# FM_GONE_STATUS: another), never die of SIGPIPE (141) or call it an error.
fm_gone() {
	local a plain_status
	local -a args
	fm_words args "$@"
	run --separate-stderr "${args[@]}" <"${STDIN:-/dev/null}" >/dev/null
	plain_status=${FM_GONE_STATUS:-$status}
	run --separate-stderr python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.call(sys.argv[1:], stdout=w, stdin=sys.stdin, timeout=int(os.environ.get("FM_TIMEOUT", "300")))
sys.exit(128 - rc if rc < 0 else rc)' "${args[@]}" <"${STDIN:-/dev/null}"
	[ "$status" -eq "$plain_status" ] || { fm_why "exit status $status, $plain_status with a reader"; return 1; }
	! grep -v 'killed by signal 13' <<<"$stderr" | grep -qi 'broken pipe' ||
		{ fm_why "the reader's going away was called an error"; return 1; }
}

# fm_tree STATUS PATTERN FAULTS COMMAND...: a recipe writing a tree under
# the directory @OUT@.  An older output is made there first (by the
# command without faults); then COMMAND under FAULTS must exit STATUS,
# say PATTERN (a glob) on one line of stderr, leave no temporary name in
# @OUT@ and every older file as it was.  AGE_STAMPS=1: the older trees'
# .done stamps are made old first (batch.mk then rebuilds them).
fm_tree() {
	local want=$1 pattern=$2 faults=$3 a line hit=0
	local -a args envs
	shift 3
	dir=$T/tree
	out=$dir/out
	rm -rf "$dir" "$T/old"
	mkdir -p "$out"
	fm_words args "$@"
	# shellcheck disable=SC2086
	fm_words envs $faults
	"${args[@]}" >/dev/null 2>&1 </dev/null || [ $? -eq 1 ] || { fm_why "the run without a fault failed: ${args[*]}"; return 1; }
	[ "${AGE_STAMPS:-0}" = 0 ] || find "$out" -name .done -exec touch -d 2000-01-01 {} +
	cp -a "$out" "$T/old"
	run --separate-stderr fm_inject "${envs[@]}" "${args[@]}" </dev/null
	[ "$status" -eq "$want" ] || { fm_why "exit status $status, want $want"; return 1; }
	for line in "${stderr_lines[@]}"; do
		# shellcheck disable=SC2053
		[[ $line != $pattern ]] || hit=$((hit + 1))
	done
	[ "$hit" -ge 1 ] || { fm_why "no message like '$pattern'"; return 1; }
	[ -z "$(find "$out" -name '*.tmp*' -o -name '*.new' -o -name '*.old')" ] ||
		{ fm_why "a temporary name left in $out"; return 1; }
	for a in "$T/old"/*; do
		diff -r "$a" "$out/${a##*/}" >&2 || { fm_why "the older ${a##*/} was changed"; return 1; }
	done
	dir=
}
