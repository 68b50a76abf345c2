#!/bin/sh
# Every record stage of this build against another build, in one run:
#
#   sh test/bench/compare.sh BASE_BIN            (or: make bench BENCH_BASE=BASE_BIN)
#   BASE_BIN=$(sh test/bench/base.sh main~3)     (a build of another revision)
#
# For each stage (dump-split, instr-parse, icache-merge, scalar-merge,
# mte-parse, rec-cat, timeline-emit, trace-clean on records and on a
# visualize_data.bin) both builds read the same kind of input, made by their
# own upstream tools from one generated dump, and run in turns, RUNS times
# each (default 3).  A line gives the smallest CPU time and peak RSS of each
# build and their ratio (this / base); "slower" marks a stage whose CPU time
# is over 5% above the base's, "bigger" one whose RSS is over 10% above.
# The outputs that do not depend on the record format (timeline-emit's
# traces and CSVs, trace-clean's) are compared byte for byte.
# BENCH_COMPARE_MB: the dump in MiB (default 100); BENCH_DIR: the scratch
# directory; BENCH_BIN: this build (default build/bin).
# Ends with status 1 when a stage is slower, 0 otherwise.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: compare.sh BASE_BIN" >&2; exit 2; }
base=$(cd "$1" && pwd)
bin=$(cd "${BENCH_BIN:-$top/build/bin}" && pwd)
mb=${BENCH_COMPARE_MB:-100}
runs=${RUNS:-3}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/optrace-compare.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch"
for t in gen-dump gen-stages gen-vdata peakrss; do
	[ -x "$bin/$t" ] || { echo "compare.sh: $bin/$t missing: run make bench" >&2; exit 4; }
done
for t in dump-split instr-parse icache-merge scalar-merge mte-parse rec-cat timeline-emit trace-clean; do
	for b in "$bin" "$base"; do
		[ -x "$b/$t" ] || { echo "compare.sh: $b/$t missing" >&2; exit 4; }
	done
done

# Inputs: one dump with its side logs, one visualize_data.bin; the record
# streams of each build from them.
d=$scratch/dump
"$bin/gen-dump" -s "$mb" -c 1 -o "$d"
"$bin/gen-stages" "$d"
"$bin/gen-vdata" -n 1000000 -c 4 -o "$scratch/visualize_data.bin" 2>/dev/null
i=0
for b in "$bin" "$base"; do
	mkdir -p "$scratch/$i"
	"$b/dump-split" -q "$d" >"$scratch/$i/lines.rec"
	"$b/dump-split" -q --log=instr,popped "$d" | "$b/instr-parse" -q >"$scratch/$i/instr.rec"
	"$b/dump-split" -q --log=icache "$d" >"$scratch/$i/icache.rec"
	"$b/dump-split" -q "$d" | "$b/instr-parse" -q | "$b/icache-merge" -q >"$scratch/$i/scalar.rec"
	"$b/dump-split" -q --log=mte "$d" >"$scratch/$i/mte.rec"
	i=$((i + 1))
done
# Each input copied whole once made: a file written by a pipeline in small
# writes can take a third more kernel time to read back than the same bytes
# written whole (its page cache is laid out in small pieces), which would
# weigh on whichever build happened to get such a file.
for f in "$scratch"/0/*.rec "$scratch"/1/*.rec "$scratch/visualize_data.bin"; do
	cp "$f" "$f.copy" && mv "$f.copy" "$f"
done

# run BUILD_DIR IDX STAGE: the stage's command, its output in $scratch/IDX.
# File names travel as arguments, never inside a command string.
run() {
	b=$1 s=$scratch/$2
	case $3 in
	dump-split) "$bin/peakrss" -o "$scratch/m" -- sh -c '"$1/dump-split" -q "$2" > /dev/null' sh "$b" "$d" ;;
	instr-parse) "$bin/peakrss" -o "$scratch/m" -- "$b/instr-parse" -q -o /dev/null "$s/lines.rec" ;;
	icache-merge) "$bin/peakrss" -o "$scratch/m" -- "$b/icache-merge" -q -o /dev/null "$s/icache.rec" ;;
	scalar-merge) "$bin/peakrss" -o "$scratch/m" -- "$b/scalar-merge" -q -o /dev/null "$s/scalar.rec" ;;
	mte-parse) "$bin/peakrss" -o "$scratch/m" -- "$b/mte-parse" -q -o /dev/null "$s/mte.rec" ;;
	rec-cat) "$bin/peakrss" -o "$scratch/m" -- "$b/rec-cat" -o /dev/null "$s/scalar.rec" ;;
	timeline-emit) rm -rf "$s/emit"
		"$bin/peakrss" -o "$scratch/m" -- sh -c '"$1/timeline-emit" -q --force -o "$2" "$3" > /dev/null' sh \
			"$b" "$s/emit" "$s/instr.rec" ;;
	trace-clean-records) rm -rf "$s/clean"
		"$bin/peakrss" -o "$scratch/m" -- "$b/trace-clean" -q --no-copy-raw -o "$s/clean" "$s/instr.rec" ;;
	trace-clean-vdata) rm -rf "$s/vclean"
		"$bin/peakrss" -o "$scratch/m" -- "$b/trace-clean" -q --no-copy-raw -o "$s/vclean" \
			"$scratch/visualize_data.bin" ;;
	esac
}

field() { tail -n 1 "$scratch/m" | sed "s/.*$1=\([0-9.]*\).*/\1/"; }

slow=0
echo "stages of $bin against $base ($(nproc) cores, $(uname -m)); $mb MiB dump, best of $runs runs"
printf "%-22s %10s %10s %7s %10s %10s %7s\n" stage "cpu s" "base" ratio "RSS MB" "base" ratio
for st in dump-split instr-parse icache-merge scalar-merge mte-parse rec-cat timeline-emit \
          trace-clean-records trace-clean-vdata; do
	c0= c1= r0= r1=
	k=0
	while [ "$k" -lt "$runs" ]; do
		i=0
		for b in "$bin" "$base"; do
			run "$b" "$i" "$st"
			c=$(field cpu_s)
			r=$(field maxrss_kb)
			if [ "$i" -eq 0 ]; then
				c0=$(awk -v a="${c0:-}" -v c="$c" 'BEGIN { print (a == "" || c < a) ? c : a }')
				r0=$(awk -v a="${r0:-}" -v c="$r" 'BEGIN { print (a == "" || c < a) ? c : a }')
			else
				c1=$(awk -v a="${c1:-}" -v c="$c" 'BEGIN { print (a == "" || c < a) ? c : a }')
				r1=$(awk -v a="${r1:-}" -v c="$r" 'BEGIN { print (a == "" || c < a) ? c : a }')
			fi
			i=$((i + 1))
		done
		k=$((k + 1))
	done
	line=$(awk -v s="$st" -v c0="$c0" -v c1="$c1" -v r0="$r0" -v r1="$r1" 'BEGIN {
		if (c0 < 0.001) c0 = 0.001
		if (c1 < 0.001) c1 = 0.001
		m = ""
		if (c0 > c1 * 1.05) m = m "  slower"
		if (r0 > r1 * 1.10 + 1024) m = m "  bigger"
		printf "%-22s %10.3f %10.3f %7.3f %10.1f %10.1f %7.3f%s", s, c0, c1, c0 / c1,
		       r0 / 1024, r1 / 1024, r0 / r1, m }')
	echo "$line"
	case $line in *slower*) slow=1 ;; esac
done
for o in emit clean vclean; do
	if diff -r -q "$scratch/0/$o" "$scratch/1/$o" >/dev/null 2>&1; then
		echo "   $o: the same files as the base build's"
	else
		echo "   $o: DIFFERS from the base build's:"
		diff -r -q "$scratch/0/$o" "$scratch/1/$o" | sed 's/^/      /' | head -n 10
	fi
done
exit "$slow"
