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
