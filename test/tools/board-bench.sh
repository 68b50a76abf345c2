#!/bin/sh
# make bench (board-bench): how fast board-gen writes and checks on-board
# raw files.  Four launches of a 65535-block mix kernel on 910B (about
# 1 GB: 4 x 10 replay files of 196605 records), then --check of one launch.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
gen=$top/build/bin/board-gen
scratch=$(mktemp -d "${TMPDIR:-/tmp}/board-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
start=$(date +%s.%N)
"$gen" --chip 910B --blocks 65535 --loops 4 --launches 4 "$scratch/d"
mid=$(date +%s.%N)
"$gen" --check "$scratch/d/3/dump" > /dev/null
end=$(date +%s.%N)
bytes=$(du -sb "$scratch/d" | cut -f1)
awk -v b="$bytes" -v s="$start" -v m="$mid" -v e="$end" 'BEGIN {
	printf "board-bench: %.0f MB written in %.2f s (%.0f MB/s); --check of %.0f MB in %.2f s\n",
	       b / 1e6, m - s, b / 1e6 / (m - s), b / 4e6, e - m }'

# Parsing: dump-split over one launch's raw files (the goal: 1 GB of raw
# on-board data per CPU-second), then board-metrics over its records.
bin=$top/build/bin
one=$scratch/d/0/dump
mb=$(du -sb "$one" | awk '{ printf "%.1f", $1 / 1e6 }')
"$bin/peakrss" -o "$scratch/m" -- sh -c '"$1/dump-split" -q "$2" > "$3"' sh "$bin" "$one" "$scratch/recs"
cpu=$(tail -n 1 "$scratch/m" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
rss=$(tail -n 1 "$scratch/m" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
awk -v mb="$mb" -v c="$cpu" -v r="$rss" 'BEGIN {
	if (c < 0.001) c = 0.001
	printf "board-bench: dump-split of %s MB of raw on-board files: %.2f CPU-s, %.0f MB per CPU-second (goal 1000), peak RSS %.1f MB\n",
	       mb, c, mb / c, r / 1024 }'
"$bin/peakrss" -o "$scratch/m" -- "$bin/board-metrics" -q -o "$scratch/csv" "$scratch/recs"
cpu=$(tail -n 1 "$scratch/m" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
rss=$(tail -n 1 "$scratch/m" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
awk -v c="$cpu" -v r="$rss" 'BEGIN { printf "board-bench: board-metrics of its records (65535 blocks x 3 sub-cores): %.2f CPU-s, peak RSS %.1f MB\n", c, r / 1024 }'

# board-metrics' memory against the blocks: one launch of 4096 and of
# 16384 blocks (4 loops, 10 replays each), then the 65535 above.
by="65535: $((rss / 1024)) MB"
rm -rf "$scratch/d" "$scratch/recs" "$scratch/csv"
for n in 16384 4096; do
	"$gen" --chip 910B --blocks "$n" --loops 4 --launches 1 "$scratch/b"
	"$bin/dump-split" -q "$scratch/b/0/dump" > "$scratch/recs"
	"$bin/peakrss" -o "$scratch/m" -- "$bin/board-metrics" -q -o "$scratch/csv" "$scratch/recs"
	rss=$(tail -n 1 "$scratch/m" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
	by="$n: $((rss / 1024)) MB, $by"
	rm -rf "$scratch/b" "$scratch/recs" "$scratch/csv"
done
echo "board-bench: board-metrics peak RSS by blocks: $by"

# The A5 timeline (timeline.bin, optrace-board(5)): about 1 GB of pipe
# busy samples (PipeTimeline) and 365 MB of instruction stamps
# (InstrTimeline) from board-gen, decoded by biu-bench with the events
# counted, not written (the goal: 1 GB of timeline.bin per CPU-second,
# memory bounded by the open ids); then biu-timeline end to end on a
# 20 MB dump, where writing the trace's JSON is most of the time.
CAMODEL_DEVICE_TIMELINE=PipeTimeline "$gen" --chip A5 --blocks 6 --loops 430000 "$scratch/tp"
CAMODEL_DEVICE_TIMELINE=InstrTimeline "$gen" --chip A5 --blocks 6 --loops 540000 "$scratch/ti"
"$bin/peakrss" -o "$scratch/m" -- "$bin/biu-bench" "$scratch/tp" | sed -n 1p
rss=$(tail -n 1 "$scratch/m" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
echo "board-bench: biu-bench peak RSS $((rss / 1024)) MB"
rm -rf "$scratch/tp"
"$bin/biu-bench" "$scratch/ti" | sed -n 2p
rm -rf "$scratch/ti"
CAMODEL_DEVICE_TIMELINE=InstrTimeline "$gen" --chip A5 --blocks 6 --loops 30000 "$scratch/ts"
mb=$(du -sb "$scratch/ts/timeline.bin" | awk '{ printf "%.1f", $1 / 1e6 }')
"$bin/peakrss" -o "$scratch/m" -- "$bin/biu-timeline" -q -o "$scratch/trace.json" "$scratch/ts"
cpu=$(tail -n 1 "$scratch/m" | sed 's/.*cpu_s=\([0-9.]*\).*/\1/')
rss=$(tail -n 1 "$scratch/m" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
out=$(du -sb "$scratch/trace.json" | awk '{ printf "%.0f", $1 / 1e6 }')
awk -v mb="$mb" -v c="$cpu" -v r="$rss" -v o="$out" 'BEGIN {
	if (c < 0.001) c = 0.001
	printf "board-bench: biu-timeline of %s MB of timeline.bin into a %s MB trace.json: %.2f CPU-s, %.0f MB per CPU-second, peak RSS %.1f MB\n",
	       mb, o, c, mb / c, r / 1024 }'
