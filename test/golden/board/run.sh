#!/bin/sh
# One on-board golden tree: a sample of build/ops run on the stand-in
# device of one chip, its dump parsed by board-export, the outputs kept in
# reviewable form.
#   sh test/golden/board/run.sh SOC SAMPLE DIR
# writes DIR/ with what board-export writes next to the launch's dump/
# (CSVs, pictures, trace.json) but visualize_data.bin, which is kept decoded
# (DIR/vdata/, see ../vdata-decode.sh), and DIR/summary.txt, its standard
# output (the launch directory named launch/).  The dump's Pid (the only thing that differs from run to run) is
# set to 0 before the parse.  The tools come from build/bin unless
# OPTRACE_BIN names another directory.  Used by regen.sh and by
# test/bats/board-golden.bats.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${OPTRACE_BIN:-$top/build/bin}
soc=$1
sample=$2
dir=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/board-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT
LD_LIBRARY_PATH=$top/build/cann/lib64 CAMODEL_SOC_VERSION=$soc CAMODEL_DEVICE_DUMP=$work/launch/dump \
	"$top/build/ops/bin/op_acl" -s "$sample" >/dev/null
sed 's/^Pid=.*/Pid=0/' "$work/launch/dump/op_basic_info.txt" >"$work/info" &&
	mv "$work/info" "$work/launch/dump/op_basic_info.txt"
rm -rf "$dir"
mkdir -p "$dir"
(cd "$work" && OPTRACE_BIN=$bin "$bin/board-export" --in-place launch 2>err) >"$dir/summary.txt" ||
	{ cat "$work/err" >&2; exit 1; }
for f in "$work/launch"/*; do
	case ${f##*/} in
	dump) ;;
	visualize_data.bin) VDATA_DUMP=$bin/vdata-dump sh "$top/test/golden/vdata-decode.sh" "$f" "$dir/vdata" ;;
	*) cp "$f" "$dir/" ;;
	esac
done
