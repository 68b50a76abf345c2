#!/bin/sh
# trace-clean's benchmark: throughput and peak memory on a generated
# visualize_data.bin with at least 2 million instruction slices and
# hundreds of thousands of SET/WAIT flags over 12 sub-cores
# (test/bench/gen-vdata.c), the same trace as a plain trace.json, and the
# record stream of a generated dump.
#
#   sh test/bench/trace-clean.sh          (after make; make bench runs it)
#
# BENCH_EVENTS sets the number of instruction slices (default 2000000),
# BENCH_CORES the AI cores (default 4, three sub-cores each), BENCH_DUMP_MB
# the dump for the records run (default 100, 0 to skip), BENCH_DIR the
# scratch directory (default: a fresh one under $TMPDIR or /tmp).
# BENCH_PYPTO: the path of PyPTO's clean_sim_trace.py (python/pypto/tools/
# in the PyPTO sources; it needs only Python 3): both tools then clean the
# same visualize_data.bin of BENCH_PYPTO_EVENTS instruction slices (default
# 200000), best CPU time of BENCH_RUNS runs each (default 3), and their
# ratios are printed (goals: 50 times less CPU time, at most a twentieth of
# the peak memory).
# Goals (issue 4): at least 1 million events/s on one core, under 256 MB.
# Rates are given per CPU second (the goal) and per wall second (which also
# pays for the fsync of the outputs).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/bin"
events=${BENCH_EVENTS:-2000000}
cores=${BENCH_CORES:-4}
dump_mb=${BENCH_DUMP_MB:-100}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/trace-clean-bench.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch"
for t in trace-clean peakrss; do
	[ -x "$bin/$t" ] || { echo "trace-clean.sh: $bin/$t missing: run make first" >&2; exit 4; }
done

# gen-vdata has no Makefile rule: built here, against the project's library.
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -I"$top/lib" -o "$scratch/gen-vdata" "$top/test/bench/gen-vdata.c" \
	"$top/build/liboptrace.a" -llz4 -lm

pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"

# measure LABEL INSTR_SLICES EVENTS BYTES command...
measure() {
	label=$1 slices=$2 evs=$3 bytes=$4
	shift 4
	"$bin/peakrss" -o "$scratch/m" -- "$@"
	line=$(tail -n 1 "$scratch/m")
	wall=$(echo "$line" | sed 's/.*wall_s=\([0-9.]*\).*/\1/')
	cpu=$(echo "$line" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
	rss=$(echo "$line" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
	awk -v l="$label" -v s="$slices" -v e="$evs" -v b="$bytes" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
		printf "%-38s %5.2f s wall %5.2f s cpu | per cpu-s: %5.2f M instr slices %5.2f M events %5.0f MB | per wall-s: %5.2f M events | peak RSS %5.1f MB\n",
		       l, w, c, s / c / 1e6, e / c / 1e6, b / c / 1e6, e / w / 1e6, r / 1024
		if (e / c < 1e6) printf "    below the goal of 1 M events per cpu-second\n"
		if (r / 1024 >= 256) printf "    above the goal of 256 MB\n"
	}'
}

echo "trace-clean benchmark ($(nproc) cores, $(uname -m)); M = 10^6, MB = 10^6 bytes"
"$scratch/gen-vdata" -n "$events" -c "$cores" -o "$scratch/visualize_data.bin" 2>"$scratch/gen.log"
"$scratch/gen-vdata" -n "$events" -c "$cores" --json -o "$scratch/trace.json" 2>/dev/null
slices=$(sed -n 's/.*: \([0-9]*\) instruction slices.*/\1/p' "$scratch/gen.log")
bytes=$(stat -c %s "$scratch/visualize_data.bin")
# Every event of the trace, and what trace-clean makes of them.
"$bin/trace-clean" -v --no-copy-raw -o "$scratch/out" "$scratch/visualize_data.bin" 2>"$scratch/tc.log"
evs=$(sed -n 's/.*: \([0-9]*\) events read.*/\1/p' "$scratch/tc.log")
echo
echo "== $bytes bytes of visualize_data.bin: $evs trace events, $slices instruction slices, $((cores * 3)) sub-cores"
sed 's/^/   /' "$scratch/tc.log"
echo
measure "visualize_data.bin" "$slices" "$evs" "$bytes" \
	"$bin/trace-clean" -q --no-copy-raw -o "$scratch/out" "$scratch/visualize_data.bin"
if [ -n "$pin" ]; then
	measure "visualize_data.bin, pinned to CPU 0" "$slices" "$evs" "$bytes" \
		$pin "$bin/trace-clean" -q --no-copy-raw -o "$scratch/out" "$scratch/visualize_data.bin"
fi
measure "trace.json (reference flag order)" "$slices" "$evs" "$(stat -c %s "$scratch/trace.json")" \
	"$bin/trace-clean" -q --no-copy-raw -o "$scratch/out" "$scratch/trace.json"
measure "visualize_data.bin, --keep-scalar" "$slices" "$evs" "$bytes" \
	"$bin/trace-clean" -q --keep-scalar --no-copy-raw -o "$scratch/out" "$scratch/visualize_data.bin"
rm -f "$scratch/trace.json"

if [ "$dump_mb" -gt 0 ] && [ -x "$bin/gen-dump" ] && [ -x "$bin/instr-parse" ]; then
	"$bin/gen-dump" -s "$dump_mb" -c 1 -o "$scratch/dump"
	"$bin/dump-split" "$scratch/dump" | "$bin/instr-parse" -q > "$scratch/instr.rec"
	n=$("$bin/rec-cat" --count "$scratch/instr.rec" | sed -n 's/^instr\t//p')
	echo
	echo "== records of a $dump_mb MiB generated dump: $n instruction records"
	measure "records (instr-parse output)" "$n" "$n" "$(stat -c %s "$scratch/instr.rec")" \
		sh -c "'$bin/trace-clean' -q -o '$scratch/out' - < '$scratch/instr.rec'"
fi

# trace-clean beside PyPTO's clean_sim_trace on the same file.
if [ -n "${BENCH_PYPTO:-}" ]; then
	[ -f "$BENCH_PYPTO" ] || { echo "trace-clean.sh: BENCH_PYPTO=$BENCH_PYPTO: no such file" >&2; exit 4; }
	pev=${BENCH_PYPTO_EVENTS:-200000}
	runs=${BENCH_RUNS:-3}
	"$scratch/gen-vdata" -n "$pev" -c "$cores" --no-code -o "$scratch/p.bin" 2>/dev/null
	# best NAME command...: the run of least CPU time, as "cpu rss_kb"
	best() {
		name=$1
		shift
		: >"$scratch/$name.runs"
		i=0
		while [ "$i" -lt "$runs" ]; do
			"$bin/peakrss" -o "$scratch/m" -- "$@" >/dev/null
			tail -n 1 "$scratch/m" | sed 's/.*cpu_s=\([0-9.]*\).*maxrss_kb=\([0-9]*\).*/\1 \2/' >>"$scratch/$name.runs"
			i=$((i + 1))
		done
		sort -n "$scratch/$name.runs" | head -n 1
	}
	rm -rf "$scratch/po" "$scratch/to"
	mkdir -p "$scratch/po" "$scratch/to"
	ours=$(best ours "$bin/trace-clean" -q --no-copy-raw -o "$scratch/to" "$scratch/p.bin")
	theirs=$(best pypto python3 "$BENCH_PYPTO" --no-copy-raw -o "$scratch/po" "$scratch/p.bin")
	echo
	echo "== trace-clean and PyPTO's clean_sim_trace on a visualize_data.bin of $pev instruction slices (best of $runs)"
	echo "$ours $theirs" | awk '{
		printf "trace-clean     %7.3f s cpu, peak RSS %7.1f MB\n", $1, $2 / 1024
		printf "clean_sim_trace %7.3f s cpu, peak RSS %7.1f MB\n", $3, $4 / 1024
		x = ($1 > 0) ? $3 / $1 : 0
		printf "trace-clean: %.1fx less CPU time, %.1fx less memory\n", x, $4 / $2
		if (x < 50) printf "    below the goal of 50x less CPU time\n"
		if ($4 / $2 < 20) printf "    above the goal of a twentieth of the memory\n"
	}'
fi
