#!/bin/sh
# Run every test: C unit tests and bats suites, first against the normal
# build, then against the AddressSanitizer/UBSan build.  Ends with the line
# "N passed, N failed" and a non-zero status when anything failed.
#   run-all.sh [-u | -b] UNITS   -u: only the unit tests, -b: only the bats
#                                suites (make check-unit, make check-bats)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 4
run_unit=1
run_bats=1
case ${1-} in
-u) run_bats=0; shift ;;
-b) run_unit=0; shift ;;
esac
units=${1-}
pass=0
fail=0
failed=""

count_bats() {
	# bats TAP output: "ok N ..." / "not ok N ..."
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$f" -eq 0 ] || failed="$failed $2"
}

count_unit() {
	line=$(tail -n 1 "$1")
	p=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then
		p=0
		f=1
	fi
	[ "$3" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$f" -eq 0 ] || failed="$failed $2"
}

log=$(mktemp -d) || exit 4
trap 'rm -rf "$log"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A suite or unit test that hangs is stopped and counted as failed, named
# with the last test it finished, instead of holding the run up; the limit
# is far above any suite's run on a loaded machine (OPTRACE_TEST_LIMIT
# seconds, 0 for none).
limit=${OPTRACE_TEST_LIMIT:-900}
bounded() {
	if [ "$limit" -gt 0 ] && command -v timeout >/dev/null 2>&1; then
		timeout -k 20 "$limit" "$@"
	else
		"$@"
	fi
}
# stopped NAME STATUS OUT: say that NAME was stopped at the limit
stopped() {
	case $2 in
	124 | 137)
		last=$(grep -e '^ok ' -e '^not ok ' "$3" | tail -n 1)
		echo "$1: stopped after $limit s, a hang; the last test it finished: ${last:-none}"
		echo "not ok - stopped at the time limit" >>"$3"
		;;
	esac
}
# the slowest suites are said at the end (seconds, whole run)
times=$log/times
: >"$times"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

for variant in build build-san; do
	[ "$run_unit" -eq 1 ] || units=""
	for u in $units; do
		t0=$(date +%s)
		bounded "$variant/unit/$u" >"$log/out" 2>&1
		rc=$?
		echo "$(($(date +%s) - t0)) $variant/$u" >>"$times"
		stopped "$variant/$u" "$rc" "$log/out"
		[ "$rc" -eq 0 ] || cat "$log/out"
		count_unit "$log/out" "$variant/$u" "$rc"
	done
	for b in test/bats/*.bats; do
		[ "$run_bats" -eq 1 ] || break
		[ -f "$b" ] || continue
		t0=$(date +%s)
		PATH="$top/$variant/bin:$top/build/bin:$PATH" OPTRACE_TOP="$top" OPTRACE_VARIANT="$variant" \
			bounded bats --tap "$b" >"$log/out" 2>&1
		rc=$?
		echo "$(($(date +%s) - t0)) $variant/$(basename "$b")" >>"$times"
		stopped "$variant/$(basename "$b")" "$rc" "$log/out"
		grep -v '^ok ' "$log/out" | grep -v '^#' | grep -v '^1\.\.' || true
		# skipped tests are said, with why (a check not run must not pass
		# unseen), and so are the lines a test prints as "# info: ..."
		grep -e '^ok .* # skip' -e '^# info: ' "$log/out" | sed "s|^|$variant/$(basename "$b"): |" || true
		grep '^not ok' -A 20 "$log/out" | grep '^#' | head -40
		count_bats "$log/out" "$variant/$(basename "$b")"
	done
done
echo "slowest (s):" $(sort -rn "$times" | head -n 5 | sed 's/ /:/')
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
