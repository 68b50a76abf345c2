#!/bin/sh
# make bench (camodel-bench): how fast the stand-in writes dumps.  Runs the
# vector-add sample with a loop count that makes about CAMODEL_BENCH_MB
# (default 1024) MiB of A2 dumps on 4 vector sub-cores, times it, and checks
# the goal: 1 GiB in under a minute.  CAMODEL_BENCH_MTE=1 adds the MTE log.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cann=$top/build/cann
app=$top/build/ops/bin/op_rt
mb=${CAMODEL_BENCH_MB:-1024}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/camodel-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
export LD_LIBRARY_PATH="$cann/tools/simulator/Ascend910B1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ "${CAMODEL_BENCH_MTE:-0}" = 1 ]; then
	mkdir "$scratch/cfg"
	echo '[LOG] enable_list = ["mte_log"]' > "$scratch/cfg/pem_config_cloud.toml"
	export CAMODEL_CONFIG_PATH="$scratch/cfg"
fi

# calibrate: bytes per loop
CAMODEL_LOG_PATH="$scratch/cal" "$app" -b 4 -n 100 > /dev/null
per=$(du -sb "$scratch/cal" | cut -f1)
rm -rf "$scratch/cal"
loops=$(awk -v mb="$mb" -v per="$per" 'BEGIN { printf "%d", mb * 1048576 * 100 / per + 1 }')

start=$(date +%s.%N)
CAMODEL_LOG_PATH="$scratch/d" "$app" -b 4 -n "$loops" > /dev/null
end=$(date +%s.%N)
bytes=$(du -sb "$scratch/d" | cut -f1)
files=$(ls "$scratch/d" | wc -l)
awk -v b="$bytes" -v s="$start" -v e="$end" -v n="$loops" -v f="$files" 'BEGIN {
	w = e - s
	printf "camodel: %.0f MiB of dumps (%d files, %d loops of vector add on 4 sub-cores) in %.2f s: %.0f MiB/s\n",
	       b / 1048576, f, n, w, b / 1048576 / w
	if (b >= 1073741824 && w >= 60) { print "camodel: goal missed: 1 GiB in under a minute"; exit 1 }
}'
