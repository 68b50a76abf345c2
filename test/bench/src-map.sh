#!/bin/sh
# make bench (bench-src-map): src-map's lookup speed on a generated -g
# binary with SRCMAP_PCS (default 100000) distinct instruction addresses,
# one instruction record each, with every symbolizer found (addr2line,
# llvm-symbolizer), with a start pc (streaming, in batches) and without one
# (the stream held to its end), then src-map | timeline-emit -o.
# The goal: 100 000 distinct pcs resolve in seconds.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/bin"
npcs=${SRCMAP_PCS:-100000}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/optrace-srcmap.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

# A kernel of straight-line code: 200 functions of 160 statements, about
# 10 instructions and 35 bytes of x86 code per statement at -O0, each its
# own source line: far more than npcs distinct addresses with a line.
awk 'BEGIN {
	print "volatile int v[64];"
	for (f = 0; f < 200; f++) {
		printf "int f%d(int a)\n{\n", f
		for (k = 0; k < 160; k++)
			printf "\tv[%d] = v[%d] * %d + a;\n", k % 64, (k * 7) % 64, k + 3
		print "\treturn v[1];\n}"
	}
}' > "$scratch/big.c"
cc -g -O0 -c "$scratch/big.c" -o "$scratch/big.o"
text=$(objdump -h "$scratch/big.o" | awk '$2 == ".text" { print $3 }')
step=$(( 0x$text / npcs ))
[ "$step" -ge 1 ] || { echo "src-map bench: the generated code is too small for $npcs pcs" >&2; exit 1; }

# One instruction record per distinct pc, start pc 0x10000000.
awk -v n="$npcs" -v step="$step" 'BEGIN {
	print "{\"kind\":\"header\",\"version\":1,\"mhz\":1850,\"producer\":\"bench\",\"soc\":\"Ascend910B1\",\"origin\":\"bench\"}"
	for (i = 0; i < n; i++)
		printf "{\"kind\":\"instr\",\"core\":0,\"sub\":\"veccore\",\"subidx\":0,\"start\":%d,\"end\":%d,\"pc\":\"0x%x\",\"pipe\":\"VECTOR\",\"name\":\"VADD\",\"detail\":\"d\"}\n", 10 * i, 10 * i + 7, 268435456 + step * i
	print "{\"kind\":\"trailer\",\"records\":0}"
}' | "$bin/rec-cat" --bin > "$scratch/in.rec"

measure() { # label command...
	label=$1
	shift
	"$bin/peakrss" -o "$scratch/m" -- "$@"
	tail -n 1 "$scratch/m" | awk -v l="$label" -v n="$npcs" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%-52s %6.2f s wall %8.0f pcs/s  peak RSS %6.1f MB\n", l, v["wall_s"], n / v["wall_s"], v["maxrss_kb"] / 1024 }'
}

echo
echo "== src-map: $npcs distinct pcs (every $step bytes of $((0x$text)) bytes of -g code)"
for sym in addr2line llvm-symbolizer; do
	command -v "$sym" >/dev/null 2>&1 || { echo "($sym not installed)"; continue; }
	measure "src-map --symbolizer $sym --pc-start" \
		sh -c "'$bin/src-map' -q --symbolizer $sym --binary '$scratch/big.o' --pc-start 0x10000000 '$scratch/in.rec' > '$scratch/out.rec'"
	n=$("$bin/rec-cat" --count "$scratch/out.rec" | awk '$1 == "code" { print $2 }')
	[ "$n" -eq "$npcs" ] || { echo "src-map bench: $n code records for $npcs pcs" >&2; exit 1; }
	measure "src-map --symbolizer $sym (lowest pc, held)" \
		sh -c "'$bin/src-map' -q --symbolizer $sym --binary '$scratch/big.o' '$scratch/in.rec' > /dev/null"
done
measure "src-map | timeline-emit -o DIR (default symbolizer)" \
	sh -c "'$bin/src-map' -q --binary '$scratch/big.o' --pc-start 0x10000000 '$scratch/in.rec' |
	       '$bin/timeline-emit' -q -o '$scratch/emit' > /dev/null"
rows=$(($(wc -l < "$scratch/emit/core0.veccore0/core0.veccore0_code_exe.csv") - 1))
echo "   ($rows source lines in core0.veccore0_code_exe.csv)"
