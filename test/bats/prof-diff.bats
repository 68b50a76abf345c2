#!/usr/bin/env bats
# prof-diff: stand-in runs of the vector add before and after a real change
# (a loop count, a block dim, double buffering off and on, a recompile that
# moves every pc), compared; the expected deltas are computed here from the
# trees' own CSVs and traces (awk, jq), not taken from prof-diff.

bats_require_minimum_version 1.5.0

setup_file() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	export T=$BATS_FILE_TMPDIR
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	export ASCEND_HOME_PATH=$top/build/cann
	command -v prof-diff >/dev/null && command -v sim-flow >/dev/null || return 0
	[ -x "$ops/bin/add_rt" ] || return 0
	kc="cc -std=c11 -g -O0 -fPIC -shared -fno-optimize-sibling-calls -I$top/test/camodel/include"
	$kc -o "$T/double.o" "$top/test/ops/vadd/add_custom.c"
	$kc -DADD_BUFFERS=1 -o "$T/single.o" "$top/test/ops/vadd/add_custom.c"
	$kc -o "$T/shifted.o" "$top/test/ops/vadd/add_custom_shifted.c"
	tree() { # name, add_rt arguments
		local n=$1
		shift
		mkdir -p "$T/$n"
		sim-flow -q -o "$T/$n" -- "$ops/bin/add_rt" "$@" >/dev/null 2>"$T/$n.log"
		ln -s "$(ls -d "$T/$n"/OPPROF_*)" "$T/$n.tree"
	}
	tree loop2 -k "$T/double.o" -n 2
	tree loop1 -k "$T/double.o" -n 1
	tree single -k "$T/single.o" -n 2
	tree shifted -k "$T/shifted.o" -n 2
	tree blocks4 -k "$T/double.o" -n 2 -b 4
}

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	command -v prof-diff >/dev/null || skip "prof-diff is not built"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	export ASCEND_HOME_PATH=$top/build/cann
	[ -e "$T/loop2.tree" ] || skip "the sample operators are not built (build/ops)"
}

# Per core and pipe, the summed cycles of its rows in an instruction table.
pipe_cycles() { # tree core pipe
	awk -F, -v p="$3" 'NR > 1 && $3 == p { s += $5 } END { print s + 0 }' "$1/simulator/$2/$2_instr_exe.csv"
}
# A source line's cycles and calls in a code table ("0 0" when absent).
line_counts() { # tree core line
	awk -F, -v l="$3" 'NR > 1 && $1 == l { c += $3; n += $2 } END { print c + 0, n + 0 }' "$1/simulator/$2/$2_code_exe.csv"
}
# A core's duration in 10^-6 us from its trace: the first start to the last
# end of its slices (cache misses, marks and scalar-head slices left out).
core_span() { # tree core
	jq -r -s '[.[0].traceEvents[] | select(.ph == "X" and .cat != "CACHEMISS" and .cat != "USERMARK"
		and .name != "cache_time" and .name != "ccu_time")] |
		((map(.ts + .dur) | max) - (map(.ts) | min)) * 1000000 | round' "$1/simulator/$2/trace.json"
}
us6() { awk -v v="$1" 'BEGIN { printf "%.6f\n", v / 1000000 }'; }

@test "prof-diff: a loop count halved: per-pipe cycles, lines and durations are the trees' own deltas" {
	run prof-diff --json "$T/loop2.tree" "$T/loop1.tree"
	[ "$status" -eq 0 ]
	j=$output
	cores=$(jq -r '.cores[].core' <<<"$j")
	[ "$(wc -l <<<"$cores")" -eq 2 ]
	for c in $cores; do
		for p in MTE2 MTE3 VECTOR SCALAR; do
			a=$(pipe_cycles "$T/loop2.tree" "$c" "$p")
			b=$(pipe_cycles "$T/loop1.tree" "$c" "$p")
			got=$(jq -r --arg c "$c" --arg p "$p" '.cores[] | select(.core == $c) | .pipes[] | select(.pipe == $p) | [.cycles.before, .cycles.after, .cycles.delta] | join(" ")' <<<"$j")
			[ "$got" = "$a $b $((b - a))" ] || { echo "$c $p: $got, the CSVs say $a $b"; return 1; }
		done
		# every line of both code tables
		lines=$(cut -d, -f1 "$T/loop2.tree/simulator/$c/${c}_code_exe.csv" "$T/loop1.tree/simulator/$c/${c}_code_exe.csv" | grep -v '^code$' | sort -u)
		[ -n "$lines" ]
		while IFS= read -r l; do
			read -r ca na <<<"$(line_counts "$T/loop2.tree" "$c" "$l")"
			read -r cb nb <<<"$(line_counts "$T/loop1.tree" "$c" "$l")"
			got=$(jq -r --arg c "$c" --arg l "$l" '.cores[] | select(.core == $c) | (.lines + .lines_only_before + .lines_only_after)[] | select(.line == $l) | [.cycles.delta, .calls.delta] | join(" ")' <<<"$j")
			[ "$got" = "$((cb - ca)) $((nb - na))" ] || { echo "$c $l: $got, the CSVs say $((cb - ca)) $((nb - na))"; return 1; }
		done <<<"$lines"
		a=$(core_span "$T/loop2.tree" "$c")
		b=$(core_span "$T/loop1.tree" "$c")
		got=$(jq -r --arg c "$c" '.cores[] | select(.core == $c) | .duration_us | [.before, .after] | map(. * 1000000 | round) | join(" ")' <<<"$j")
		[ "$got" = "$a $b" ] || { echo "$c duration: $got, the traces say $a $b"; return 1; }
	done
	# halving the loop: every line with 8 calls has 4 after
	[ "$(jq '[.cores[].lines[] | select(.calls.before == 8 and .calls.after != 4)] | length' <<<"$j")" -eq 0 ]
	[ "$(jq '.cores[0].lines | map(select(.calls.before == 8)) | length' <<<"$j")" -gt 5 ]
	[ "$(jq '.kernel_us.delta < 0' <<<"$j")" = true ]
}

@test "prof-diff: the table says faster, sorts lines and instructions by the size of the change" {
	run prof-diff --top=3 "$T/loop2.tree" "$T/loop1.tree"
	[ "$status" -eq 0 ]
	[[ $output == *"kernel "*"faster"* ]]
	[[ $output == *"core0.veccore0: pipes"* ]]
	[[ $output == *"bottleneck: "* ]]
	[[ $output == *"source lines, by the change in cycles"* ]]
	[[ $output == *"more (--top=N, --json)"* ]]
	# the deltas of the first three line rows, largest first
	d=$(awk '/core0.veccore0: source lines/ { f = 1; getline; next } f && NF == 0 { exit } f && $3 ~ /^[-+]/ { print ($3 < 0 ? -$3 : $3) }' <<<"$output" | head -n 3)
	[ "$(wc -l <<<"$d")" -eq 3 ]
	[ "$d" = "$(sort -rn <<<"$d")" ]
	# and the JSON's are sorted the same way, all of them
	run prof-diff --json "$T/loop2.tree" "$T/loop1.tree"
	[ "$(jq '[.cores[0].instructions[] | .cycles.delta | fabs] | . == (sort | reverse)' <<<"$output")" = true ]
	[ "$(jq '[.cores[0].lines[] | .cycles.delta | fabs] | . == (sort | reverse)' <<<"$output")" = true ]
}

@test "prof-diff: double buffering on: faster, and the change per pipe is the CSVs'" {
	run prof-diff --json "$T/single.tree" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	j=$output
	a=$(core_span "$T/single.tree" core0.veccore0)
	b=$(core_span "$T/loop2.tree" core0.veccore0)
	[ "$b" -lt "$a" ]
	[ "$(jq '.cores[0].duration_us.delta * 1000000 | round' <<<"$j")" -eq $((b - a)) ]
	[ "$(jq '.kernel_us.pct < -10' <<<"$j")" = true ]
	for p in MTE2 VECTOR; do
		a=$(pipe_cycles "$T/single.tree" core0.veccore0 $p)
		b=$(pipe_cycles "$T/loop2.tree" core0.veccore0 $p)
		[ "$(jq --arg p $p '.cores[0].pipes[] | select(.pipe == $p) | .cycles.delta' <<<"$j")" -eq $((b - a)) ]
	done
	# the same instructions on both sides: all matched by source
	[ "$(jq '[.cores[] | .instructions_only_before, .instructions_only_after | length] | add' <<<"$j")" -eq 0 ]
	[ "$(jq '[.cores[].instructions[] | select(.matched_by != "source")] | length' <<<"$j")" -eq 0 ]
	[ "$(jq -r '.cores[0].bottleneck | [.before, .after] | map(type) | join(" ")' <<<"$j")" = "string string" ]
}

@test "prof-diff: a recompile that moves every pc: every instruction matched by its source line, nothing changed" {
	# the two binaries really differ in every pc: the same code, moved
	a=$(tail -n +2 "$T/loop2.tree/simulator/core0.veccore0/core0.veccore0_instr_exe.csv" | cut -d, -f2 | sort -n)
	b=$(tail -n +2 "$T/shifted.tree/simulator/core0.veccore0/core0.veccore0_instr_exe.csv" | cut -d, -f2 | sort -n)
	[ "$(wc -l <<<"$a")" -eq "$(wc -l <<<"$b")" ]
	[ "$(paste -d' ' <(echo "$a") <(echo "$b") | awk '$1 == $2' | wc -l)" -eq 0 ]
	run prof-diff --json "$T/loop2.tree" "$T/shifted.tree"
	[ "$status" -eq 0 ]
	n=$(wc -l <<<"$a")
	[ "$(jq '.cores[0].instructions | length' <<<"$output")" -eq "$n" ]
	[ "$(jq '[.cores[].instructions[] | select(.pc_before == .pc_after or .matched_by != "source")] | length' <<<"$output")" -eq 0 ]
	[ "$(jq '[.cores[].instructions[] | select(.cycles.delta != 0 or .calls.delta != 0)] | length' <<<"$output")" -eq 0 ]
	[ "$(jq '[.cores[] | .instructions_only_before, .instructions_only_after, .lines_only_before, .lines_only_after | length] | add' <<<"$output")" -eq 0 ]
	[ "$(jq '.kernel_us.delta' <<<"$output")" = 0 ]
}

@test "prof-diff: inlined code: instructions matched by every frame of their inline stack across a recompile" {
	d=$BATS_TEST_TMPDIR
	kc="cc -std=c11 -g -O0 -fPIC -shared -fno-optimize-sibling-calls -I$top/test/camodel/include"
	$kc -o "$d/inl.o" "$top/test/ops/vadd/add_custom_inline.c"
	$kc -DSHIFT_PCS -o "$d/inls.o" "$top/test/ops/vadd/add_custom_inline.c"
	mkdir -p "$d/a" "$d/b"
	sim-flow -q -o "$d/a" -- "$ops/bin/add_rt" -k "$d/inl.o" -n 2 >/dev/null 2>&1
	sim-flow -q -o "$d/b" -- "$ops/bin/add_rt" -k "$d/inls.o" -n 2 >/dev/null 2>&1
	run prof-diff --json "$d"/a/OPPROF_* "$d"/b/OPPROF_*
	[ "$status" -eq 0 ]
	j=$output
	c=core0.veccore0
	n=$(tail -n +2 "$d"/a/OPPROF_*/simulator/$c/${c}_instr_exe.csv | grep -c .)
	[ "$(jq --arg c $c '.cores[] | select(.core == $c) | .instructions | length' <<<"$j")" -eq "$n" ]
	# the helper is inlined on two lines: its instructions come twice, with
	# the same innermost frame and another call line, and are told apart
	two=$(jq -r --arg c $c '.cores[] | select(.core == $c) | .instructions[] | select(.stack | length == 2) | .stack | join(" <- ")' <<<"$j")
	[ "$(grep -c . <<<"$two")" -eq 24 ]
	[ "$(sed 's/ <- .*//' <<<"$two" | sort -u | grep -c .)" -eq 12 ]
	[ "$(sed 's/.* <- //' <<<"$two" | sort -u | grep -c .)" -eq 2 ]
	[ "$(jq '[.cores[].instructions[] | select(.matched_by != "source" or .pc_before == .pc_after or .calls.delta != 0)] | length' <<<"$j")" -eq 0 ]
	[ "$(jq '[.cores[] | .instructions_only_before, .instructions_only_after | length] | add' <<<"$j")" -eq 0 ]
	# the table names the innermost line and the inlined frames
	run prof-diff "$d"/a/OPPROF_* "$d"/b/OPPROF_*
	[[ $output == *"add_custom_inline.c:"*"(+1 inlined)"* ]]
}

@test "prof-diff: without source lines instructions are matched by pc, and what is left is listed" {
	# the 910B sample has no binary: no code view
	d=$BATS_TEST_TMPDIR
	(cd "$top/test/data" && sim-export -q -o "$d/all" 910B && sim-export -q --to=0.2 -o "$d/part" 910B) >/dev/null 2>&1
	run prof-diff --json "$d"/all/OPPROF_* "$d"/part/OPPROF_*
	[ "$status" -eq 0 ]
	[ "$(jq '.before.code_view' <<<"$output")" = false ]
	[ "$(jq '[.cores[].instructions[] | select(.matched_by != "pc" or .pc_before != .pc_after)] | length' <<<"$output")" -eq 0 ]
	only=$(jq '[.cores[].instructions_only_before[]] | length' <<<"$output")
	# the pcs only the whole run has, from the CSVs
	c=core0.veccore0
	a=$(tail -n +2 "$d"/all/OPPROF_*/simulator/$c/${c}_instr_exe.csv | cut -d, -f2 | sort -u)
	b=$(tail -n +2 "$d"/part/OPPROF_*/simulator/$c/${c}_instr_exe.csv | cut -d, -f2 | sort -u)
	n=$(comm -23 <(echo "$a") <(echo "$b") | grep -c .)
	[ "$n" -gt 0 ]
	[ "$(jq --arg c $c '.cores[] | select(.core == $c) | .instructions_only_before | length' <<<"$output")" -eq "$n" ]
	[ "$only" -ge "$n" ]
	run prof-diff "$d"/all/OPPROF_* "$d"/part/OPPROF_*
	[[ $output == *"not matched: $n instruction(s) only before, 0 only after"* ]]
}

@test "prof-diff: more blocks: the cores only after are named, the common ones compared" {
	run prof-diff --json "$T/loop2.tree" "$T/blocks4.tree"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.cores_only_after | join(" ")' <<<"$output")" = "core1.veccore0 core1.veccore1" ]
	[ "$(jq -r '[.cores[].core] | join(" ")' <<<"$output")" = "core0.veccore0 core0.veccore1" ]
	run prof-diff "$T/loop2.tree" "$T/blocks4.tree"
	[[ $output == *"only after: core core1.veccore0"* ]]
	[[ $output == *"cores: 2 -> 4"* ]]
}

@test "prof-diff: a record stream and the tree made from it compare equal" {
	d=$(ls -d "$T/loop2.tree/dump")
	dump-split "$d" | instr-parse | icache-merge | scalar-merge |
		src-map --binary "$d/aicore_binary.o" --pc-start "$d/pc_start_addr.txt" >"$BATS_TEST_TMPDIR/s.rec" 2>/dev/null
	run prof-diff --json "$BATS_TEST_TMPDIR/s.rec" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	[ "$(jq '.before.code_view' <<<"$output")" = true ]
	[ "$(jq '[.. | objects | select(has("delta")) | .delta | select(. != 0)] | length' <<<"$output")" -eq 0 ]
	[ "$(jq '[.cores[] | .instructions_only_before, .instructions_only_after, .lines_only_before, .lines_only_after | length] | add' <<<"$output")" -eq 0 ]
	[ "$(jq '.cores[0].pipes | length' <<<"$output")" -eq 4 ]
}

@test "prof-diff: the gate exits 5 when after is slower by more than the threshold, 0 otherwise" {
	run prof-diff -q --fail-if-slower=5 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 5 ]
	[[ $output == *"prof-diff: slower: kernel: "*"more than 5%"* ]]
	run prof-diff -q --fail-if-slower=5 "$T/loop2.tree" "$T/loop1.tree"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# a threshold it stays under
	a=$(core_span "$T/loop1.tree" core0.veccore0)
	b=$(core_span "$T/loop2.tree" core0.veccore0)
	pct=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d", 100 * (b - a) / a + 1 }')
	run prof-diff -q --fail-if-slower="$pct" "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	run prof-diff -q --fail-if-slower=$((pct - 2)) "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 5 ]
	# per pipe, per metric; the table names the gate too
	run prof-diff --fail-if-pipe=vector:10 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 5 ]
	[[ $output == *"slower: core0.veccore0 VECTOR busy: "* ]]
	run prof-diff -q --fail-if-pipe=SCALAR:10 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	run prof-diff -q --fail-if-metric=cycles:50 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 5 ]
	run prof-diff --json --fail-if-metric=running:1 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 5 ]
	[ "$(jq '.gate.failed' <<<"$output")" = true ]
	[ "$(jq '.gate.reasons | length' <<<"$output")" -eq 2 ]
	# a gate naming nothing never passes silently
	run prof-diff -q --fail-if-pipe=NOPIPE:5 "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 2 ]
	[[ $output == *"NOPIPE: no such pipe"* ]]
	run prof-diff -q --fail-if-slower=fast "$T/loop1.tree" "$T/loop2.tree"
	[ "$status" -eq 2 ]
}

@test "prof-diff: -o writes diff.svg and diff.json as one set, --svg the picture alone" {
	run prof-diff -q -o "$BATS_TEST_TMPDIR/d" "$T/single.tree" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR/d" | tr '\n' ' ')" = "diff.json diff.svg " ]
	jq -e '.kind == "simulator" and (.cores | length) == 2' "$BATS_TEST_TMPDIR/d/diff.json" >/dev/null
	s=$BATS_TEST_TMPDIR/d/diff.svg
	if command -v xmllint >/dev/null; then xmllint --noout "$s"; fi
	# a bar pair per core's duration and per pipe, and the changed lines
	[ "$(grep -c 'class="before"' "$s")" -eq 10 ]
	[ "$(grep -c 'class="after"' "$s")" -eq 10 ]
	grep -q 'class="faster"' "$s"
	grep -q 'add_custom.c:' "$s"
	run prof-diff -q --svg "$BATS_TEST_TMPDIR/p.svg" "$T/single.tree" "$T/loop2.tree"
	[ "$status" -eq 0 ]
	head -c 5 "$BATS_TEST_TMPDIR/p.svg" | grep -q '<?xml'
	# a failed run leaves nothing
	run prof-diff -q -o "$BATS_TEST_TMPDIR/e" "$T/single.tree" "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 3 ]
	[ ! -e "$BATS_TEST_TMPDIR/e" ]
	: >"$BATS_TEST_TMPDIR/file"
	run prof-diff -q -o "$BATS_TEST_TMPDIR/file" "$T/single.tree" "$T/loop2.tree"
	[ "$status" -eq 4 ]
	[ ! -s "$BATS_TEST_TMPDIR/file" ]
}

@test "prof-diff: bad and mismatched inputs get one clear line and status 3 (usage 2)" {
	d=$BATS_TEST_TMPDIR
	run prof-diff "$T/loop1.tree"
	[ "$status" -eq 2 ]
	run prof-diff "$T/loop1.tree" "$d/nothing"
	[ "$status" -eq 3 ]
	[[ $output == "prof-diff: $d/nothing: cannot open: No such file or directory" ]]
	echo "not records" >"$d/text"
	run prof-diff "$d/text" "$T/loop1.tree"
	[ "$status" -eq 3 ]
	[[ $output == "prof-diff: $d/text: neither an OPPROF tree nor a record stream" ]]
	mkdir "$d/empty"
	run prof-diff "$d/empty" "$T/loop1.tree"
	[ "$status" -eq 3 ]
	[[ $output == *"$d/empty: not an OPPROF tree"* ]]
	# a broken instruction table, named with its line
	cp -r "$(readlink "$T/loop1.tree")" "$d/broken"
	c=$d/broken/simulator/core0.veccore1/core0.veccore1_instr_exe.csv
	sed -i '3s/^\([^,]*\),[0-9]*,/\1,12x,/' "$c"
	run prof-diff "$T/loop1.tree" "$d/broken"
	[ "$status" -eq 3 ]
	[[ $output == "prof-diff: $c:3: field 2 is not a count: '12x'" ]]
	# two launches in one directory
	run prof-diff "$T" "$T/loop1.tree"
	[ "$status" -eq 3 ]
	[[ $output == *"launches"*"name one of them"* ]]
	# a simulator tree against an on-board one
	mkdir -p "$d/board"
	printf 'Op Name,Task Duration(us),\nadd_custom,1.0,\n' >"$d/board/OpBasicInfo.csv"
	run prof-diff "$T/loop1.tree" "$d/board"
	[ "$status" -eq 3 ]
	[[ $output == *"is a simulator profile and "*"an on-board one: nothing to compare"* ]]
}

@test "prof-diff: trees of two SoCs: the kernels compared, the SoCs and the cores only one has named" {
	d=$BATS_TEST_TMPDIR
	mkdir -p "$d/p"
	sim-flow -q --soc-version=Ascend310P1 -o "$d/p" -- "$ops/bin/add_rt" -k "$T/double.o" -n 2 >/dev/null 2>&1
	p=$(ls -d "$d"/p/OPPROF_*)
	run --separate-stderr prof-diff --json "$T/loop2.tree" "$p"
	[ "$status" -eq 0 ]
	[[ $stderr == *"no core in common: only the kernels' durations are compared"* ]]
	[ "$(jq -r '[.before.soc, .after.soc] | join(" ")' <<<"$output")" = "Ascend910B1 Ascend310P1" ]
	[ "$(jq -r '.cores_only_after | join(" ")' <<<"$output")" = "core0 core1" ]
	[ "$(jq -r '.cores_only_before | join(" ")' <<<"$output")" = "core0.veccore0 core0.veccore1" ]
	# the 310P kernel's span from its cores' traces
	b=0
	for c in core0 core1; do
		s=$(core_span "$p" $c)
		[ "$s" -gt "$b" ] && b=$s
	done
	[ "$(jq '.kernel_us.after * 1000000 | round' <<<"$output")" -ge "$b" ]
	[ "$(jq '.kernel_us.delta > 0' <<<"$output")" = true ]
	run prof-diff -q --fail-if-slower=10 "$T/loop2.tree" "$p"
	[ "$status" -eq 5 ]
	run prof-diff "$T/loop2.tree" "$p"
	[[ $output == *"note: the SoCs differ: Ascend910B1 -> Ascend310P1"* ]]
}

# ---- on-board ----

board_tree() { # name, op_acl arguments
	local n=$1
	shift
	[ -x "$ops/bin/op_acl" ] && [ -f "$top/build/cann/lib64/libruntime.so" ] || skip "the stand-in device is not built"
	mkdir -p "$BATS_TEST_TMPDIR/$n"
	ASCEND_HOME_PATH=$top/build/cann board-flow -o "$BATS_TEST_TMPDIR/$n" -- "$ops/bin/op_acl" "$@" >/dev/null 2>&1
	ls -d "$BATS_TEST_TMPDIR/$n"/OPPROF_*/device0/*/0
}

@test "prof-diff: on-board launches: every metric side by side, the deltas the CSVs imply" {
	command -v board-flow >/dev/null || skip "board-flow is not built"
	a=$(board_tree a -s add -n 1)
	b=$(board_tree b -s add -n 2)
	run prof-diff --json "$a" "$b"
	[ "$status" -eq 0 ]
	j=$output
	[ "$(jq -r .kind <<<"$j")" = board ]
	da=$(awk -F, 'NR == 2 { print $3 }' "$a/OpBasicInfo.csv")
	db=$(awk -F, 'NR == 2 { print $3 }' "$b/OpBasicInfo.csv")
	[ "$(jq '.task_duration_us | [.before, .after] == [('"$da"'), ('"$db"')]' <<<"$j")" = true ]
	# every numeric cell of every group both have, checked against the CSVs
	n=0
	for f in "$a"/*.csv; do
		g=$(basename "$f" .csv)
		[ "$g" = OpBasicInfo ] && continue
		exp=$(awk -F, 'FNR == 1 { for (i = 3; i <= NF; i++) col[i] = $i; next }
			FNR == NR { v[$1 " " $2, FNR] = $0; k[FNR] = $1 " " $2; next }
			{ split(v[$1 " " $2, FNR], x, ",");
			  for (i = 3; i < NF; i++) if (x[i] != "NA" && $i != "NA") printf "%s|%s|%.6g\n", col[i], $1 " " $2, $i - x[i] }' "$f" "$b/$g.csv" | sort)
		got=$(jq -r --arg g "$g" '.groups[] | select(.group == $g) | .metrics[] | select(.delta != null) | "\(.metric)|\(.row)|\(.delta)"' <<<"$j" |
			awk -F'|' '{ printf "%s|%s|%.6g\n", $1, $2, $3 }' | sort)
		[ "$exp" = "$got" ] || { echo "$g: differs"; diff <(echo "$exp") <(echo "$got") | head; return 1; }
		n=$((n + $(grep -c . <<<"$exp")))
	done
	# the roofline points (roofline.csv) among them, by title and unit
	[ "$(jq -r '.groups[] | select(.group == "roofline") | .metrics[] | select(.metric == "performance(TOPS)" and .row == "GM/L2 L2 Read + Write") | .delta != null' <<<"$j")" = true ]
	[ "$n" -gt 100 ]
	run prof-diff "$a" "$b"
	[[ $output == *"task duration: "*"slower"* ]]
	[[ $output == *"PipeUtilization"* ]]
	run prof-diff -q --fail-if-slower=10 "$a" "$b"
	[ "$status" -eq 5 ]
	run prof-diff -q --fail-if-pipe=mte2:10 "$a" "$b"
	[ "$status" -eq 5 ]
	run prof-diff -q --fail-if-metric='aiv_vec_ratio:1000' "$a" "$b"
	[ "$status" -eq 0 ]
}

@test "prof-diff: on-board runs with different groups and rows: what both have, and what only one has" {
	command -v board-flow >/dev/null || skip "board-flow is not built"
	a=$(board_tree a -s add)
	b=$(board_tree b -s mixed)
	rm "$b/MemoryUB.csv"
	run prof-diff "$a" "$b"
	[ "$status" -eq 0 ]
	[[ $output == *"only before: metric group MemoryUB"* ]]
	[[ $output == *"only after: PipeUtilization rows 0 cube0, 0 vector1, 1 cube0, 1 vector1"* ]]
	run prof-diff --json "$a" "$b"
	[ "$(jq '.only_before | index("group MemoryUB") != null' <<<"$output")" = true ]
	[ "$(jq '[.groups[].group] | index("MemoryUB")' <<<"$output")" = null ]
	[ "$(jq '[.groups[] | select(.group != "OpBasicInfo" and .group != "roofline") | .metrics[].row] | unique' -c <<<"$output")" = '["0 vector0","1 vector0"]' ]
	run prof-diff -q --svg "$BATS_TEST_TMPDIR/b.svg" "$a" "$b"
	[ "$status" -eq 0 ]
	grep -q 'aiv_mte2_ratio' "$BATS_TEST_TMPDIR/b.svg"
}

@test "prof-diff: a full disk or a read error: status 4, one message, an older -o set kept whole" {
	so=$top/build/fault.so
	[ -f "$so" ] || skip "build/fault.so is not built"
	o=$BATS_TEST_TMPDIR/o
	run prof-diff -q -o "$o" "$T/loop2.tree" "$T/loop1.tree"
	[ "$status" -eq 0 ]
	old=$(cat "$o/diff.json" "$o/diff.svg" | md5sum)
	run env LD_PRELOAD="$so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=diff.json \
		prof-diff -q -o "$o" "$T/single.tree" "$T/loop1.tree"
	[ "$status" -eq 4 ]
	[[ $output == *"diff.json: cannot write: No space left on device"* ]]
	[ "$(cat "$o/diff.json" "$o/diff.svg" | md5sum)" = "$old" ]
	[ "$(ls -A "$o" | tr '\n' ' ')" = "diff.json diff.svg " ]
	run env LD_PRELOAD="$so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" FAULT_OP=read FAULT_ERRNO=EIO FAULT_PATH=_code_exe.csv \
		prof-diff -q "$T/single.tree" "$T/loop1.tree"
	[ "$status" -eq 4 ]
	[[ $output == *"_code_exe.csv: "*"Input/output error"* ]]
}
