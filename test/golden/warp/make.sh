#!/bin/sh
# The golden outputs of warp-timeline and pc-stall: the stand-in device's
# run of the SIMT sample (A5, PC sampling on; test/camodel/README section
# 11) into OUT/dump, then
#   OUT/warp.json, OUT/warp.txt          warp-timeline -o, its summary
#   OUT/PcSampling.csv, OUT/TopStallReason.csv, OUT/pc-stall.txt
# Run by regen.sh into test/golden/warp/out and by test/bats/warp.bats into
# a scratch directory, which it compares.  The tools come from PATH.
#   sh make.sh OUT
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$1
mkdir -p "$out"
LD_LIBRARY_PATH=$top/build/cann/lib64 CAMODEL_SOC_VERSION=Ascend950PR_9599 CAMODEL_DEVICE_DUMP=$out/dump \
	CAMODEL_DEVICE_PCSAMPLING=1 "$top/build/ops/bin/op_acl" -s simt >/dev/null
warp-timeline -o "$out/warp.json" "$out/dump" >"$out/warp.txt"
pc-stall -o "$out" "$out/dump" >"$out/pc-stall.txt"
# Only the device's raw files are inputs, not outputs: op_basic_info.txt
# holds the process id.
rm -rf "$out/dump"
sed -i "s|$out/||g" "$out/warp.txt" "$out/pc-stall.txt"
