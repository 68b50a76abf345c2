#!/bin/sh
# Benchmark of icache-merge, scalar-merge and mte-parse: MB of log text per
# CPU-second and peak RSS, at two dump sizes ten times apart, so that the
# second run shows whether memory grows with the input.
#
#   sh test/bench/stages.sh            (after make; make bench runs it)
#
# Inputs: gen-dump's A2 dump (one core, two vector sub-cores) and, from its
# popped logs, gen-stages' icache, CCU and MTE logs (test/bench/gen-stages.c),
# turned into records beforehand (dump-split, instr-parse, icache-merge), so
# that each line measures one stage reading a file and writing /dev/null.
# The log text counted is what the stage's input stream carries: the icache
# log for icache-merge, the MTE log for mte-parse, and for scalar-merge the
# whole dump (instr, popped, icache and CCU logs: its input holds the
# instruction records of the core, which it decodes and re-encodes, and the
# CCU lines).  Its rate per byte of CCU log alone is printed too, and
# rec-cat over the same stream (decoding and re-encoding, nothing else) shows
# how much of its time is the record codec.
# BENCH_STAGES_MB: the smaller dump in MiB (default 64; the larger is ten
# times that); BENCH_DIR: the scratch directory (default a fresh one under
# $TMPDIR or /tmp).  Goals (issue 5): 300 MB of log text per CPU-second,
# memory not growing with the input.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/bin"
small=${BENCH_STAGES_MB:-64}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/stages-bench.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch"
for t in dump-split instr-parse rec-cat icache-merge scalar-merge mte-parse gen-dump gen-stages peakrss; do
	[ -x "$bin/$t" ] || { echo "stages.sh: $bin/$t missing: run make bench" >&2; exit 4; }
done

size() { cat "$@" | wc -c; }

# measure STAGE MB LOGBYTES EXTRA command...: one line, and the figures
# kept in $scratch/results (stage, size, MB/s per cpu-s, RSS in kB).
measure() {
	stage=$1 mb=$2 bytes=$3 extra=$4
	shift 4
	"$bin/peakrss" -o "$scratch/m" -- "$@" || { echo "stages.sh: $stage failed" >&2; exit 1; }
	line=$(tail -n 1 "$scratch/m")
	cpu=$(echo "$line" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
	rss=$(echo "$line" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
	awk -v s="$stage" -v m="$mb" -v b="$bytes" -v c="$cpu" -v r="$rss" -v x="$extra" 'BEGIN {
		if (c < 0.001) c = 0.001
		printf "%-26s %5d MiB dump %8.1f MB log %6.2f s cpu %6.0f MB/s per cpu-s  peak RSS %6.1f MB%s\n",
		       s, m, b / 1e6, c, b / c / 1e6, r / 1024, x
	}'
	echo "$(echo "$stage" | tr -d '()' | tr ' ' '-') $mb $(awk -v b="$bytes" -v c="$cpu" 'BEGIN { if (c < 0.001) c = 0.001; printf "%.0f", b / c / 1e6 }') $rss" \
		>>"$scratch/results"
}

echo "icache-merge, scalar-merge, mte-parse benchmark ($(nproc) cores, $(uname -m)); MB = 10^6 bytes"
for mb in "$small" $((small * 10)); do
	d="$scratch/d$mb" m="$scratch/m$mb"
	rm -rf "$d" "$m"
	"$bin/gen-dump" -s "$mb" -c 1 -o "$d"
	"$bin/gen-stages" "$d"
	mkdir -p "$m"       # the same pops with an icache log of misses only
	ln -s "$d"/core0.veccore0.instr_popped_log.dump "$m"/
	"$bin/gen-stages" --all-miss "$m"
	"$bin/dump-split" -q --log=icache "$d" >"$scratch/icache.rec"
	"$bin/dump-split" -q --log=icache "$m" >"$scratch/miss.rec"
	"$bin/dump-split" -q "$d" | "$bin/instr-parse" -q | "$bin/icache-merge" -q >"$scratch/scalar.rec"
	"$bin/dump-split" -q --log=mte "$d" >"$scratch/mte.rec"
	dump=$(size "$d"/*.dump)

	measure icache-merge "$mb" "$(size "$d"/*icache_log.dump)" "" \
		"$bin/icache-merge" -q -o /dev/null "$scratch/icache.rec"
	measure "icache-merge (all misses)" "$mb" "$(size "$m"/*icache_log.dump)" "" \
		"$bin/icache-merge" -q -o /dev/null "$scratch/miss.rec"
	ccu=$(size "$d"/*ccu_log.dump)
	measure scalar-merge "$mb" "$dump" "" \
		"$bin/scalar-merge" -q -o /dev/null "$scratch/scalar.rec"
	awk -v b="$ccu" -v c="$cpu" 'BEGIN { if (c < 0.001) c = 0.001
		printf "    of which the CCU log %.1f MB: %.0f MB/s per cpu-s\n", b / 1e6, b / c / 1e6 }'
	measure "rec-cat, the same stream" "$mb" "$dump" "" \
		"$bin/rec-cat" -o /dev/null "$scratch/scalar.rec"
	measure mte-parse "$mb" "$(size "$d"/*mte_log.dump)" "" \
		"$bin/mte-parse" -q -o /dev/null "$scratch/mte.rec"
	rm -rf "$d" "$m" "$scratch"/*.rec
done
# The goals, from the figures kept.
awk -v small="$small" '
	{ rate[$1 " " $2] = $3; rss[$1 " " $2] = $4; st[$1] = 1 }
	END {
		for (s in st) {
			a = rss[s " " small]; b = rss[s " " small * 10]
			if (b > a * 1.25 + 1024)
				printf "    %s: peak RSS grows with the input (%.1f -> %.1f MB)\n", s, a / 1024, b / 1024
			if (s ~ /^rec-cat/)
				continue
			for (k = 1; k <= 10; k *= 10)
				if (rate[s " " small * k] < 300)
					printf "    %s: below the goal of 300 MB/s per cpu-s at %d MiB\n", s, small * k
		}
	}' "$scratch/results"
