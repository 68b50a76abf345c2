#!/bin/sh
# prof-diff's benchmark: two trees of the vector add on the stand-in
# simulator (sim-flow, add_rt -n LOOPS -b 4, before with LOOPS and after
# with three quarters of it), the time and peak memory of producing the
# first, and of comparing the two (prof-diff -o, the table, the JSON and
# the picture).  The goal: comparing two trees takes less than producing
# one, and its memory does not grow with the trace.
#
#   sh test/bench/prof-diff.sh          (after make; make bench runs it)
#
# BENCH_LOOPS sets LOOPS (default 400: about 30 MB of dumps, 8 sub-cores'
# traces of 6 MB each); BENCH_DIR the scratch directory.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/bin"
loops=${BENCH_LOOPS:-400}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/prof-diff-bench.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
for t in prof-diff sim-flow peakrss; do
	[ -x "$bin/$t" ] || { echo "prof-diff.sh: $bin/$t missing: run make first" >&2; exit 4; }
done
app="$top/build/ops/bin/add_rt"
[ -x "$app" ] || { echo "prof-diff.sh: $app missing: run make first" >&2; exit 4; }
export ASCEND_HOME_PATH="$top/build/cann"
mkdir -p "$scratch/a" "$scratch/b"

# measure LABEL command...: wall and cpu seconds, peak RSS
measure() {
	label=$1
	shift
	"$bin/peakrss" -o "$scratch/m" -- "$@" >/dev/null
	tail -n 1 "$scratch/m" | sed 's/.*wall_s=\([0-9.]*\).*cpu_s=\([0-9.]*\).*maxrss_kb=\([0-9]*\).*/\1 \2 \3/' |
		awk -v l="$label" '{ printf "%-34s %6.2f s wall %6.2f s cpu | peak RSS %6.1f MB\n", l, $1, $2, $3 / 1024 }'
}

echo "prof-diff benchmark ($(nproc) cores, $(uname -m)); add_rt -n $loops -b 4"
measure "sim-flow (producing one tree)" "$bin/sim-flow" -q -o "$scratch/a" -- "$app" -n "$loops" -b 4
"$bin/sim-flow" -q -o "$scratch/b" -- "$app" -n $((loops * 3 / 4)) -b 4 >/dev/null
echo "  the tree: $(du -sh "$scratch"/a/OPPROF_*/simulator | cut -f1) of simulator/, $(du -sh "$scratch"/a/OPPROF_*/dump | cut -f1) of dumps"
measure "prof-diff (comparing two)" "$bin/prof-diff" -q -o "$scratch/diff" "$scratch"/a/OPPROF_* "$scratch"/b/OPPROF_*
