#!/bin/sh
# Regenerate timeline-emit's golden outputs, after an intended change:
#   sh test/golden/regen.sh && git diff --stat test/golden
# then review the diff.  test/bats/timeline-emit.bats compares against
# these files and never writes them.
#
#   <sample>/out/          what timeline-emit -o writes (traces, CSVs), but
#                          visualize_data.bin, which is kept decoded instead:
#   <sample>/vdata/        its blocks (vdata-decode.sh): blocks.txt lists them,
#                          TRACE.json is the TRACE payload (= out/trace.json),
#                          INSTR_API.json the INSTR_API payload, jq -S pretty
#   <sample>/summary.txt   what it prints on standard output
#
# Samples: test/data/910B and test/data/A5 (real simulator dumps, through
# dump-split | instr-parse) and features.jsonl here (a hand-written record
# stream with what the samples lack: A5 intra-block sync, SIMT warps,
# cache misses, scalar head overhead, BAR, process bytes, unpaired flags),
# and code.jsonl (code records: the code view and the --report hotspots).
# The tools come from build/bin unless OPTRACE_BIN names another directory
# (vdata-dump too: make build/bin/vdata-dump); jq pretty-prints.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${OPTRACE_BIN:-$top/build/bin}
gold=$top/test/golden
data=$top/test/data

for t in dump-split instr-parse timeline-emit vdata-dump; do
	[ -x "$bin/$t" ] || { echo "regen.sh: $bin/$t missing: run make first" >&2; exit 2; }
done

emit() { # name [timeline-emit options]: reads records on stdin
	n=$1
	shift
	rm -rf "$gold/$n"
	mkdir -p "$gold/$n"
	"$bin/timeline-emit" "$@" -o "$gold/$n/out" >"$gold/$n/summary.txt"
	VDATA_DUMP=$bin/vdata-dump sh "$gold/vdata-decode.sh" "$gold/$n/out/visualize_data.bin" "$gold/$n/vdata"
	cmp "$gold/$n/vdata/TRACE.json" "$gold/$n/out/trace.json"
	rm "$gold/$n/out/visualize_data.bin"
}

"$bin/dump-split" "$data/910B" 2>/dev/null | "$bin/instr-parse" 2>/dev/null | emit 910B
"$bin/dump-split" "$data/A5" 2>/dev/null | "$bin/instr-parse" --soc-version=Ascend950PR_9599 2>/dev/null | emit A5
emit features <"$gold/features.jsonl"
# The code view: code.jsonl carries src-map's code records, with source paths
# relative to test/golden (code-src/), so it is drawn from there.
(cd "$gold" && emit code --report=5 <code.jsonl 2>/dev/null)
echo "regenerated: $(cd "$gold" && find 910B A5 features code -type f | sort | tr '\n' ' ')"
# icache-merge, scalar-merge and mte-parse: stages/out (see stages/make.sh).
rm -rf "$gold/stages/out"
PATH="$bin:$PATH" sh "$gold/stages/make.sh" "$gold/stages/out"
echo "regenerated: $(cd "$gold" && find stages/out -type f | sort | tr '\n' ' ')"
# warp-timeline and pc-stall of the stand-in device's SIMT run (warp/make.sh).
rm -rf "$gold/warp/out"
PATH="$bin:$PATH" sh "$gold/warp/make.sh" "$gold/warp/out"
echo "regenerated: $(cd "$gold" && find warp/out -type f | sort | tr '\n' ' ')"
