#!/bin/sh
# make bench-scale: the whole simulator tree (sim-export) of generated A2
# dumps of 1 GiB and 10 GiB (one core, two vector sub-cores parsed side by
# side), on this machine's cores: wall and CPU time, peak RSS (of the
# largest process), the disk: the tree's size (the dump's hard links not
# counted), the lz4 record files at their largest, and the peak of the
# temporaries (the filesystem's use at its peak beyond the finished tree:
# record files and the tools' spill files).  The goal: RSS flat from 1 GiB
# to 10 GiB.
#
#   sh test/bench/scale.sh          (after make; needs about 6x the largest
#                                    size free in BENCH_DIR)
#
# BENCH_SCALE_SIZES: the sizes in MiB (default "1024 10240"); BENCH_DIR:
# the scratch directory (default a fresh one under $TMPDIR or /tmp);
# BENCH_BIN: the tools (default build/bin).
set -eu
# One generated log of a 10 GiB dump is over the 1 GiB a dump log may be
# (optrace(7)): the limits are lifted, the tools stream whatever the size.
export OPTRACE_INPUT_LIMITS=off
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BENCH_BIN:-$top/build/bin}
sizes=${BENCH_SCALE_SIZES:-"1024 10240"}
scratch=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/optrace-scale.XXXXXX")}
sampler=
trap '[ -z "$sampler" ] || kill "$sampler" 2>/dev/null; rm -rf "$scratch"' EXIT INT TERM
for t in gen-dump peakrss sim-export; do
	[ -x "$bin/$t" ] || { echo "scale.sh: $bin/$t missing: run make first" >&2; exit 4; }
done
mkdir -p "$scratch"

# While sim-export runs, every half second: the filesystem's use above
# where it was before the run (df: the tree, its lz4 record files, and the
# spill files the tools keep unlinked in TMPDIR), and the record files
# alone; their largest values in KiB go to $scratch/peak.  Other writers of
# the filesystem count too: run it on a quiet machine.
used() { df -Pk "$scratch" | awk 'NR == 2 { print $3 }'; }
sample() {
	peak=0 rpeak=0
	while :; do
		k=$(( $(used) - base ))
		r=$(find "$scratch/out" -path '*/records/*.rec' -type f -printf '%k\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
		[ "$k" -le "$peak" ] || peak=$k
		[ "$r" -le "$rpeak" ] || rpeak=$r
		echo "$peak $rpeak" > "$scratch/peak"
		sleep 0.5
	done
}

echo "sim-export at scale ($(nproc) cores, $(uname -m)); generated A2 dumps, one core, two sub-cores"
printf '%-10s %8s %8s %8s %8s %9s %12s %15s\n' dump "GB" "wall s" "cpu s" "RSS MB" "tree GB" "records GB" "temporaries GB"
first_rss=
for mb in $sizes; do
	rm -rf "$scratch/dump" "$scratch/out"
	"$bin/gen-dump" -s "$mb" -c 1 -o "$scratch/dump" >/dev/null
	bytes=$(cat "$scratch"/dump/* | wc -c)
	mkdir -p "$scratch/out"
	echo "0 0" > "$scratch/peak"
	sync
	base=$(used)
	sample &
	sampler=$!
	"$bin/peakrss" -o "$scratch/m" -- "$bin/sim-export" -q -o "$scratch/out" "$scratch/dump"
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	sampler=
	line=$(tail -n 1 "$scratch/m")
	sync
	tree=$(( $(used) - base ))
	set -- $(cat "$scratch/peak")
	echo "$line" | awk -v mb="$mb" -v b="$bytes" -v p="$1" -v r="$2" -v t="$tree" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		tmp = p > t ? p - t : 0
		printf "%-10s %8.2f %8.2f %8.2f %8.1f %9.2f %12.2f %15.2f\n", mb " MiB", b / 1e9, v["wall_s"], v["cpu_s"],
		       v["maxrss_kb"] / 1024, t * 1024 / 1e9, r * 1024 / 1e9, tmp * 1024 / 1e9 }'
	rss=$(echo "$line" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
	if [ -z "$first_rss" ]; then
		first_rss=$rss
	else
		awk -v a="$first_rss" -v b="$rss" -v mb="$mb" 'BEGIN {
			printf "   peak RSS at %s MiB: %.2fx that of the first size%s\n", mb, b / a, (b > a * 1.25) ? "  (not flat)" : "" }'
	fi
done
