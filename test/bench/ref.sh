#!/bin/sh
# sim-export against msopprof's own simulator export on the same generated
# dump: CPU time (user + system of every process), wall time and peak RSS
# (of the largest process) of each, and their ratios, measured in one run.
#
#   BENCH_REF=/path/to/msopprof sh test/bench/ref.sh
#
# BENCH_REF: an msopprof binary whose "simulator --export=DUMPDIR
# --output=OUTDIR --soc-version=SOC" parses a dump (a CANN install's, or one
# built from its sources).  ASCEND_HOME_PATH is set to an empty scratch
# directory when unset (msopprof wants it to name a directory).
# BENCH_REF_MB: the dump's size in MiB (default 100); BENCH_REF_CORES its
# cores (default 1: two vector sub-cores); BENCH_REF_RUNS: runs of each, in
# turns, best CPU time kept (default 1); BENCH_DIR, BENCH_BIN as in run.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BENCH_BIN:-$top/build/bin}
ref=${BENCH_REF:?BENCH_REF: the msopprof binary to compare with}
mb=${BENCH_REF_MB:-100}
ncores=${BENCH_REF_CORES:-1}
runs=${BENCH_REF_RUNS:-1}
[ -x "$ref" ] || { echo "ref.sh: $ref: not an executable" >&2; exit 4; }
for t in gen-dump peakrss; do
	[ -x "$bin/$t" ] || { echo "ref.sh: $bin/$t missing: run make first" >&2; exit 4; }
done
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/optrace-ref.XXXXXX")}
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch/ascend"
export ASCEND_HOME_PATH="${ASCEND_HOME_PATH:-$scratch/ascend}"

d="$scratch/dump"
"$bin/gen-dump" -s "$mb" -c "$ncores" -o "$d" >/dev/null
bytes=$(cat "$d"/* | wc -c)
echo "sim-export against msopprof ($(nproc) cores, $(uname -m)): gen-dump -s $mb -c $ncores, $bytes bytes, best of $runs"
: >"$scratch/best"
k=0
while [ "$k" -lt "$runs" ]; do
	for who in ref opt; do
		rm -rf "$scratch/out"
		mkdir -p "$scratch/out"
		if [ "$who" = ref ]; then
			"$bin/peakrss" -o "$scratch/m" -- "$ref" simulator --export="$d" --output="$scratch/out" \
				--soc-version=Ascend910B1 >/dev/null 2>&1 ||
				{ echo "ref.sh: $ref failed (status $?)" >&2; exit 4; }
		else
			"$bin/peakrss" -o "$scratch/m" -- env PATH="$bin:$PATH" "$top/pipelines/sim-export" -q \
				-o "$scratch/out" "$d" >/dev/null 2>&1 ||
				{ echo "ref.sh: sim-export failed (status $?)" >&2; exit 4; }
		fi
		ls "$scratch"/out/OPPROF_*/simulator/visualize_data.bin >/dev/null
		echo "$who $(tail -n 1 "$scratch/m")" >>"$scratch/best"
	done
	k=$((k + 1))
done
sed 's/^\([a-z]*\) wall_s=\([0-9.]*\) cpu_s=\([0-9.]*\) maxrss_kb=\([0-9]*\).*/\1 \2 \3 \4/' "$scratch/best" |
	awk '{ if (!($1 in c) || $3 < c[$1]) { w[$1] = $2; c[$1] = $3; r[$1] = $4 } }
	END {
		printf "%-28s %9s %9s %12s\n", "", "wall s", "CPU s", "peak RSS MB"
		printf "%-28s %9.2f %9.2f %12.1f\n", "msopprof --export", w["ref"], c["ref"], r["ref"] / 1024
		printf "%-28s %9.2f %9.2f %12.1f\n", "sim-export", w["opt"], c["opt"], r["opt"] / 1024
		if (c["opt"] < 0.001) c["opt"] = 0.001
		printf "sim-export uses %.1fx less CPU time and %.1fx less peak memory (wall: %.1fx)\n",
		       c["ref"] / c["opt"], r["ref"] / r["opt"], w["ref"] / (w["opt"] < 0.001 ? 0.001 : w["opt"]) }'
