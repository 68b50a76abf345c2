#!/bin/sh
# make bench: throughput and peak memory of the record codec and of
# dump-split | instr-parse on generated A2 dumps of 100 MB and 1 GB, then
# on dumps whose lines do not repeat (gen-dump --unique, the stand-in
# simulator's samples) against cat and wc -l of the same files.
# Figures are per process; compare ratios measured in one run (the machine
# may be noisy).  BENCH_SIZES overrides the sizes (MB; empty: none), BENCH_DIR the
# scratch directory (default: a fresh one under $TMPDIR or /tmp), BENCH_BIN
# the directory of the tools (default build/bin), BENCH_BASE a directory
# with other builds of dump-split and instr-parse: their lines are measured
# too, each right after the same line of BENCH_BIN's, marked "(base)".
# BENCH_RUNS: runs per figure of the non-repeating dumps (best kept,
# default 5); BENCH_UNIQUE_MB the size of the --unique dumps (default 100).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BENCH_BIN:-$top/build/bin}
sizes=${BENCH_SIZES-"100 1000"}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/optrace-bench.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch"

lines=0
measure() { # label bytes command...  (per-line figures from $lines when set)
	label=$1
	bytes=$2
	shift 2
	"$bin/peakrss" -o "$scratch/m" -- "$@"
	line=$(tail -n 1 "$scratch/m")
	wall=$(echo "$line" | sed 's/.*wall_s=\([0-9.]*\).*/\1/')
	cpu=$(echo "$line" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
	rss=$(echo "$line" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
	awk -v l="$label" -v b="$bytes" -v n="$lines" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
		if (w < 0.001) w = 0.001
		if (c < 0.001) c = 0.001
		printf "%-52s %8.1f MB/s wall %8.1f MB/cpu-s %7.2f M lines/cpu-s  peak RSS %6.1f MB\n",
		       l, b / 1e6 / w, b / 1e6 / c, n / 1e6 / c, r / 1024 }'
}

echo "optrace benchmark ($(nproc) cores, $(uname -m)); MB = 10^6 bytes of dump text"
for mb in $sizes; do
	d="$scratch/dump$mb"
	"$bin/gen-dump" -s "$mb" -c 1 -o "$d"
	bytes=$(cat "$d"/* | wc -c)
	lines=$(cat "$d"/* | wc -l)
	echo
	echo "== $mb MiB generated A2 dump: $bytes bytes, $lines lines, 2 sub-cores"
	"$bin/dump-split" "$d" >"$scratch/lines.rec"
	for step in split alone pipe cpu0 cpu0-o; do
		for b in "$bin" ${BENCH_BASE:+"$BENCH_BASE"}; do
			tag=
			[ "$b" = "$bin" ] || tag=" (base)"
			case $step in
			split) measure "dump-split > /dev/null$tag" "$bytes" sh -c "'$b/dump-split' '$d' > /dev/null" ;;
			alone) measure "instr-parse < records (one process)$tag" "$bytes" \
				sh -c "'$b/instr-parse' -q '$scratch/lines.rec' > '$scratch/instr$tag.rec'" ;;
			pipe) measure "dump-split | instr-parse (pipeline)$tag" "$bytes" \
				sh -c "'$b/dump-split' '$d' | '$b/instr-parse' -q > /dev/null" ;;
			cpu0) command -v taskset >/dev/null 2>&1 &&
				measure "dump-split | instr-parse, both on CPU 0$tag" "$bytes" \
					taskset -c 0 sh -c "'$b/dump-split' '$d' | '$b/instr-parse' -q > /dev/null" ;;
			# -o: written to a temporary file, fsync'ed and renamed
			cpu0-o) command -v taskset >/dev/null 2>&1 &&
				measure "dump-split | instr-parse -o FILE, on CPU 0$tag" "$bytes" \
					taskset -c 0 sh -c "'$b/dump-split' '$d' | '$b/instr-parse' -q -o '$scratch/out.rec'" ;;
			esac
			rm -f "$scratch/out.rec"
		done
	done
	if [ "${BENCH_BASE:-}" ]; then
		cmp -s "$scratch/instr.rec" "$scratch/instr (base).rec" &&
			echo "   instr-parse output: the same bytes as the base build's" ||
			echo "   instr-parse output: DIFFERS from the base build's"
		rm -f "$scratch/instr (base).rec"
	fi
	"$bin/decode-bench" "$scratch/lines.rec" | sed 's/^/   line records:  /'
	"$bin/decode-bench" "$scratch/instr.rec" | sed 's/^/   instr records: /'
	if [ -x "$bin/timeline-emit" ]; then
		events=$("$bin/rec-cat" --count "$scratch/instr.rec" | awk '$1 == "instr" { print $2 }')
		"$bin/peakrss" -o "$scratch/m" -- sh -c "'$bin/timeline-emit' -q --force '$scratch/instr.rec' > /dev/null"
		line=$(tail -n 1 "$scratch/m")
		echo "$line" | awk -v ev="$events" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "%-52s %8.2f M events/s wall %6.2f M events/cpu-s  peak RSS %6.1f MB\n",
			       "timeline-emit records > trace.json", ev / v["wall_s"] / 1e6, ev / v["cpu_s"] / 1e6, v["maxrss_kb"] / 1024 }'
	fi
	if [ -x "$top/pipelines/sim-export" ] && command -v parallel >/dev/null 2>&1; then
		mkdir -p "$scratch/export"
		measure "sim-export (whole OPPROF tree, 2 jobs)" "$bytes" \
			sh -c "PATH='$bin':\$PATH '$top/pipelines/sim-export' -q --force -j 2 -o '$scratch/export' '$d' > /dev/null 2>&1"
		ls "$scratch"/export/OPPROF_*/simulator/trace.json >/dev/null
		rm -rf "$scratch/export"
	fi
	rm -rf "$d" "$scratch/lines.rec" "$scratch/instr.rec"
done

# Dumps whose lines do not repeat: gen-dump --unique (every operand changes
# on every execution, so instr-parse's line cache misses) and the stand-in
# simulator's sample operators (test/ops: vector, cube, mixed, A5 ids).
# On each, dump-split | instr-parse on one CPU against cat and wc -l of the
# same files in the same run, best CPU time of BENCH_RUNS (default 5):
# MB of instr + popped logs per CPU-second, and as a fraction of cat's and
# wc's; peak RSS of the largest process.
runs=${BENCH_RUNS:-5}
nonrep() { # label dir [instr-parse option]
	nr_label=$1 nr_d=$2 nr_soc=${3:-}
	set -- "$nr_d"/*instr_log* "$nr_d"/*instr_popped_log*
	nr_bytes=$(cat "$@" | wc -c)
	: >"$scratch/best"
	k=0
	# In turns, so that a busy moment of the machine weighs on all alike.
	while [ "$k" -lt "$runs" ]; do
		"$bin/peakrss" -o "$scratch/m" -- taskset -c 0 sh -c 'cat "$@" > /dev/null' sh "$@"
		echo "cat $(tail -n 1 "$scratch/m")" >>"$scratch/best"
		"$bin/peakrss" -o "$scratch/m" -- taskset -c 0 sh -c 'wc -l "$@" > /dev/null' sh "$@"
		echo "wc $(tail -n 1 "$scratch/m")" >>"$scratch/best"
		for b in "$bin" ${BENCH_BASE:+"$BENCH_BASE"}; do
			"$bin/peakrss" -o "$scratch/m" -- taskset -c 0 sh -c \
				'"$1/dump-split" -q $3 --log=instr,popped "$2" | "$1/instr-parse" -q $3 > /dev/null' \
				sh "$b" "$nr_d" "$nr_soc"
			[ "$b" = "$bin" ] && echo "new $(tail -n 1 "$scratch/m")" >>"$scratch/best" ||
				echo "base $(tail -n 1 "$scratch/m")" >>"$scratch/best"
		done
		k=$((k + 1))
	done
	# The best CPU time of each, with its peak RSS.
	sed 's/^\([a-z]*\) .*cpu_s=\([0-9.]*\).*maxrss_kb=\([0-9]*\).*/\1 \2 \3/' "$scratch/best" |
		awk -v l="$nr_label" -v by="$nr_bytes" '
		{ if (!($1 in c) || $2 < c[$1]) { c[$1] = $2; r[$1] = $3 } }
		END {
			for (k in c) if (c[k] < 0.001) c[k] = 0.001
			n = split("new base", who, " ")
			for (i = 1; i <= n; i++) {
				w = who[i]
				if (!(w in c)) continue
				printf "%-40s %6.0f MB/cpu-s, %.3f of cat (%.0f), %.3f of wc -l (%.0f); peak RSS %5.1f MB\n",
				       l (w == "base" ? " (base)" : ""), by / 1e6 / c[w], c["cat"] / c[w], by / 1e6 / c["cat"],
				       c["wc"] / c[w], by / 1e6 / c["wc"], r[w] / 1024
			}
		}'
}
if command -v taskset >/dev/null 2>&1; then
	echo
	echo "== lines that do not repeat: dump-split | instr-parse, cat, wc -l, each on CPU 0, best of $runs"
	echo "   (MB = 10^6 bytes of instr + popped logs; cat's and wc's own MB/cpu-s in parentheses)"
	d="$scratch/unique"
	"$bin/gen-dump" --unique -s "${BENCH_UNIQUE_MB:-100}" -c 1 -o "$d"
	nonrep "gen-dump --unique -s ${BENCH_UNIQUE_MB:-100}" "$d"
	rm -rf "$d"
	d="$scratch/unique-a5"
	"$bin/gen-dump" --unique --soc A5 -s "${BENCH_UNIQUE_MB:-100}" -c 1 -o "$d"
	nonrep "gen-dump --unique --soc A5 -s ${BENCH_UNIQUE_MB:-100}" "$d" --soc-version=Ascend950PR_9599
	rm -rf "$d"
	ops="$top/build/ops/bin"
	cann="$top/build/cann"
	if [ -x "$ops/op_rt" ] && [ -d "$cann/tools/simulator" ]; then
		for c in "Ascend910B1 add 3000" "Ascend910B1 matmul 2600" "Ascend910B1 mixed 1400" \
		         "dav_3510 add 3000" "dav_3510 simt 2000"; do
			set -- $c
			d="$scratch/ops-$1-$2"
			mkdir -p "$d"
			LD_LIBRARY_PATH="$cann/tools/simulator/$1/lib:$cann/lib64" CAMODEL_LOG_PATH="$d" \
				"$ops/op_rt" -s "$2" -n "$3" > /dev/null
			soc=
			[ "$1" = dav_3510 ] && soc=--soc-version=Ascend950PR_9599
			nonrep "stand-in $1 $2 -n $3" "$d" $soc
			rm -rf "$d"
		done
	fi
fi

# BENCH_REF (an msopprof binary): sim-export against its export of the same
# generated dump (ref.sh).
if [ -n "${BENCH_REF:-}" ]; then
	echo
	BENCH_DIR="$scratch/ref" sh "$top/test/bench/ref.sh"
fi
