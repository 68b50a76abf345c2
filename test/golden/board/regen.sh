#!/bin/sh
# Regenerate the on-board golden trees after an intended change:
#   sh test/golden/board/regen.sh && git diff --stat test/golden/board
# then review the diff.  One tree per sample and chip family (the list
# below, read by test/bats/board-golden.bats too): SOC SAMPLE NAME.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
grep -v '^#' "$here/samples" | while read -r soc sample name; do
	sh "$here/run.sh" "$soc" "$sample" "$here/$name"
done
