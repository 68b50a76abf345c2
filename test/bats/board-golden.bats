#!/usr/bin/env bats
# The on-board golden trees: every sample of test/golden/board/samples run on
# the stand-in device of its chip and parsed by board-export gives the files
# kept in test/golden/board/<name>/ (written only by its regen.sh).

setup() {
	gold="$BATS_TEST_DIRNAME/../golden/board"
	T="$BATS_TEST_TMPDIR"
	# the tools of the build under test (build/bin or build-san/bin)
	bin=$(dirname "$(command -v board-metrics)")
}

# golden NAME: run the sample of that line and compare
golden() {
	local soc sample name
	read -r soc sample name < <(grep "[[:space:]]$1\$" "$gold/samples")
	[ "$name" = "$1" ] || { echo "no sample $1 in $gold/samples"; return 1; }
	OPTRACE_BIN=$bin sh "$gold/run.sh" "$soc" "$sample" "$T/$name"
	diff -r "$gold/$name" "$T/$name"
}

@test "every golden tree has its line in samples, and every line its tree" {
	listed=$(grep -v '^#' "$gold/samples" | awk '{print $3}' | sort)
	present=$(cd "$gold" && for d in */; do echo "${d%/}"; done | sort)
	[ "$listed" = "$present" ]
}

@test "910B golden trees: add, matmul, mixed, count" {
	for n in 910B-add 910B-matmul 910B-mixed 910B-count; do golden "$n"; done
}

@test "310P golden trees: add, matmul, mixed" {
	for n in 310P-add 310P-matmul 310P-mixed; do golden "$n"; done
}

@test "Ascend950 golden trees: add, matmul, mixed, simt (with its warps)" {
	for n in A5-add A5-matmul A5-mixed A5-simt; do golden "$n"; done
	jq -e '[.traceEvents[] | select(.ph == "X")] | length > 0' "$T/A5-simt/trace.json" >/dev/null
}
