#!/bin/sh
# The golden runs of icache-merge, scalar-merge and mte-parse, into OUTDIR:
#   sh test/golden/stages/make.sh OUTDIR
# with the tools found in PATH.  test/golden/regen.sh runs it into
# test/golden/stages/out (after an intended change; review the diff) and
# test/bats/stages-golden checks (icache-merge.bats, scalar-merge.bats,
# mte-parse.bats) run it into a scratch directory and diff the two.
#
# Inputs (see README here): the 910B sample dump of test/data plus the logs
# of in/910B (the sample's icache log with fetch and ignored lines added, a
# CCU log and an MTE log made of the example lines of optrace-sidelogs(5),
# CCU LOG and MTE LOG), and its ICACHE LOG 310P and 310B miss examples in
# in/310P, in/310B.
# For each run NAME: NAME.jsonl is standard output, NAME.err standard error
# followed by the exit status.
set -eu
[ $# -eq 1 ] || { echo "usage: make.sh OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data
mkdir -p "$1"
out=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/stages-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/910B"
cp "$data/910B"/* "$work/910B/"
cp "$here/in/910B"/* "$work/910B/"     # the icache log of veccore0 replaces the sample's
cp -r "$here/in/310P" "$here/in/310B" "$work/"
cd "$work"          # file names in the records and messages stay relative
unset OPTRACE_FORMAT

run() { # NAME PIPELINE
	set +e
	sh -c "$2" >"$out/$1.jsonl" 2>"$out/$1.err"
	echo "exit $?" >>"$out/$1.err"
	set -e
}
run icache-910B 'dump-split -q --log=icache 910B | icache-merge -v --json'
run icache-310P 'dump-split -q --log=icache 310P | icache-merge -v --json --soc-version=Ascend310P1'
run icache-310B 'dump-split -q --log=icache 310B | icache-merge -v --json --soc-version=Ascend310B1'
run annotate-910B 'dump-split -q 910B | instr-parse -q | icache-merge -v --annotate --json'
run scalar-910B 'dump-split -q 910B | instr-parse -q | icache-merge -q | scalar-merge -v --json'
run mte-910B 'dump-split -q --log=mte 910B | mte-parse -v --json'
run mte-trace-910B 'dump-split -q --log=mte 910B | mte-parse -q | timeline-emit -q --aic-metrics=PipeUtilization,ResourceConflictRatio,PMSampling |
	jq -c ".traceEvents[] | select(.pid == \"MTE Throughput\")"'
