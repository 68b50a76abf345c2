#!/bin/sh
# Decode a visualize_data.bin into reviewable files, for the goldens:
#   sh test/golden/vdata-decode.sh FILE DIR
# writes DIR/blocks.txt (vdata-dump -v: type, version byte, payload size,
# offset, padding of every block, in file order) and one file per block
# type holding its payloads: TRACE.json byte for byte (it must equal
# trace.json), CODE.txt as it is, the JSON blocks (FILE_API, INSTR_API, ...)
# pretty-printed with sorted keys (jq -S).  vdata-dump comes from $VDATA_DUMP,
# else PATH.  Used by regen.sh and by test/bats/timeline-emit.bats.
set -eu
vd=${VDATA_DUMP:-vdata-dump}
f=$1
d=$2
mkdir -p "$d"
"$vd" -v "$f" > "$d/blocks.txt"
for t in $(sed 's/^type=\([^ ]*\) .*/\1/' "$d/blocks.txt" | sort -u); do
	case $t in
	TRACE) "$vd" --payload "$t" "$f" > "$d/$t.json" ;;
	CODE) "$vd" --payload "$t" "$f" > "$d/$t.txt" ;;
	*) "$vd" --payload "$t" "$f" | jq -S . > "$d/$t.json" ;;
	esac
done
