#!/bin/sh
# The cost of a host API span: a test application makes a million
# rtGetDevice calls through the preload library, with spans recorded, with
# spans off, and without the library.  Goal: well under a microsecond per
# call.  Run by `make bench` (target inject-bench).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/build/inject-test/cann/tools/simulator/Ascend910B1/lib
app=$top/build/inject-test/inject-app
inj=$top/build/lib/liboptrace-inject.so
calls=${CALLS:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/device0/tmp_dump/host"

per_call() { sed -n 's/.*: \([0-9.]*\) ns per call/\1/p'; }
base=$(LD_LIBRARY_PATH=$lib "$app" -n 0 -c "$calls" | per_call)
off=$(LD_LIBRARY_PATH=$lib LD_PRELOAD=$inj IS_SIMULATOR_ENV=true OPTRACE_CAPTURE_DIR=$work OPTRACE_SPANS=0 \
	"$app" -n 0 -c "$calls" | per_call)
on=$(LD_LIBRARY_PATH=$lib LD_PRELOAD=$inj IS_SIMULATOR_ENV=true OPTRACE_CAPTURE_DIR=$work \
	"$app" -n 0 -c "$calls" | per_call)
bytes=$(cat "$work"/device0/tmp_dump/host/*.rec | wc -c)
echo "inject: $calls rtGetDevice calls: ${base} ns/call plain, ${off} ns/call through the library (spans off)," \
     "${on} ns/call recording spans ($((bytes / calls)) bytes per span record)"
awk -v on="$on" -v base="$base" 'BEGIN { d = on - base; printf "inject: a host API span costs %.0f ns per call (goal: well under 1000)\n", d; exit !(d < 1000) }'

# What capturing costs on a real sample (the stand-in simulator): the same
# run plain, captured with its dumps moved out (dump mode), and streamed
# (live mode, records to /dev/null).
add=$top/build/ops/bin/add_rt
cann=$top/build/cann
[ -x "$add" ] && [ -x "$top/build/bin/sim-capture" ] || exit 0
loops=${LOOPS:-2000}
now() { date +%s.%N; }
mkdir -p "$work/plain" "$work/dump" "$work/live"
t0=$(now)
LD_LIBRARY_PATH=$cann/tools/simulator/Ascend910B1/lib CAMODEL_LOG_PATH=$work/plain CAMODEL_SOC_VERSION=Ascend910B1 \
	"$add" -n "$loops" >/dev/null
t1=$(now)
ASCEND_HOME_PATH=$cann "$top/build/bin/sim-capture" -q --aic-metrics=PipeUtilization -o "$work/dump" -- "$add" -n "$loops" >/dev/null
t2=$(now)
ASCEND_HOME_PATH=$cann "$top/build/bin/sim-capture" -q --aic-metrics=PipeUtilization -o "$work/live" --live -- "$add" -n "$loops" 2>/dev/null >"$work/live.rec"
t3=$(now)
mb=$(du -sm "$work/plain" | cut -f1)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v l="$loops" -v mb="$mb" -v rec="$(wc -c < "$work/live.rec")" \
	'BEGIN { printf "inject: add_rt -n %d (%d MB of dumps): %.2f s plain, %.2f s captured (dumps moved per launch), %.2f s live (%d MB of records, no dump)\n", l, mb, b - a, c - b, d - c, rec / 1048576 }'
