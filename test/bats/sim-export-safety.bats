#!/usr/bin/env bats
# sim-export and batch.mk never run a user string as code: quotes, spaces,
# $(...), backticks, ';', newlines and a leading '-' in every path and
# option value stay data.  A command that ran would leave a PWNED* file.

load sim-export-lib

setup_file() {
	src="$BATS_TEST_DIRNAME/../golden/code-src"
	cd "$BATS_FILE_TMPDIR" || return 1
	cp -r "$src" ksrc
	cc -g -gdwarf-4 -O0 -I ksrc/ascend-toolkit/include -c ksrc/kernel.c -o k.o
}

setup() {
	se_setup
	mkdir "$tmp/w"
	cd "$tmp/w" || return 1
	# every kind of trouble in one name (relative paths start with '-')
	evil=$'-x q\'uote d"q $(touch PWNED1) `touch PWNED2` ;touch PWNED3;\nnl $(touch${IFS}PWNED4)'
}

@test "hostile dump, output and binary paths (with pc_start_addr.txt) are data, and the run succeeds" {
	mkdir -p -- "$evil/dump"
	cp -- "$data"/910B/* "$evil/dump/"
	cp -- "$BATS_FILE_TMPDIR/k.o" "$evil/dump/aicore_binary.o"
	printf '0x10f86000\n' >"$evil/dump/pc_start_addr.txt"
	run sim-export -o "$evil/out" -- "$evil/dump"
	no_markers
	[ "$status" -eq 0 ]
	the_tree "$evil/out"
	jq -e '.traceEvents | length > 0' "./$tree/simulator/trace.json" >/dev/null
	jq -e '.traceEvents | length > 0' "./$tree/simulator/trace.clean.json" >/dev/null
	# the code view came through: pc_start_addr.txt was read
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.code // "") != "")] | length' "./$tree/simulator/trace.json")" -ge 6 ]
	cmp -- "$evil/dump/pc_start_addr.txt" "$tree/dump/pc_start_addr.txt"
	jq -e '.complete' "./$tree/manifest.json" >/dev/null
	# --binary with a hostile name, -o given as --output=
	mkdir -p -- "$evil/bin"
	cp -- "$BATS_FILE_TMPDIR/k.o" "$evil/bin/k$evil.o"
	rm -- "$evil/dump/aicore_binary.o"
	run sim-export -q --binary "$evil/bin/k$evil.o" --output="$evil/out2" -- "$evil/dump"
	no_markers
	[ "$status" -eq 0 ]
	the_tree "$evil/out2"
	cmp -- "$BATS_FILE_TMPDIR/k.o" "$tree/dump/aicore_binary.o"
}

@test "a dump path with a space and a pc_start_addr.txt gets its code view" {
	mkdir -p "a dump/x"
	cp "$data"/910B/* "a dump/x/"
	cp "$BATS_FILE_TMPDIR/k.o" "a dump/x/aicore_binary.o"
	printf '0x10f86000\n' >"a dump/x/pc_start_addr.txt"
	run sim-export -q -o "an out" "a dump/x"
	[ "$status" -eq 0 ]
	the_tree "an out"
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.code // "") != "")] | length' "$tree/simulator/trace.json")" -ge 6 ]
}

@test "hostile option values reach the tools as one argument each and run nothing" {
	mkdir out
	# values the tools refuse (an unknown SoC too): a usage error, nothing
	# run, nothing left
	for opt in '--soc-version=Ascend910B1;touch${IFS}PWNED5' "--soc-version=$evil" "--core-id=0;touch PWNED6" "--core-id=$evil" "--from=1\$(touch PWNED7)" "--to=\`touch PWNED8\`" "-j" "-j 2;touch PWNED9"; do
		if [ "$opt" = -j ]; then
			run sim-export -q -o out -j "$evil" "$data/910B"
		else
			run sim-export -q -o out "$opt" "$data/910B"
		fi
		no_markers
		[ "$status" -eq 2 ] || { echo "$opt: status $status: $output"; return 1; }
		[ -z "$(ls -A out)" ]
	done
}

@test "the option values arrive byte for byte as arguments" {
	# a timeline-emit that logs its arguments, then drops the ones the
	# real one may not know yet and runs it
	fake_tool timeline-emit '
for a; do printf "%s\0" "$a"; done >>"$FAKE_LOG"
n=$#; i=0
while [ $i -lt $n ]; do
	a=$1; shift; i=$((i + 1))
	case $a in --aic-metrics=*|--from=*|--to=*) ;; *) set -- "$@" "$a" ;; esac
done
exec "$FAKE_REAL/timeline-emit" "$@"'
	export FAKE_LOG=$tmp/args
	mkdir out
	run sim-export -q --force -o out "--from=$evil" "--to=$evil" "--aic-metrics=$evil" "$data/910B"
	no_markers
	[ "$status" -eq 0 ]
	mapfile -d '' args <"$FAKE_LOG"
	for want in "--from=$evil" "--to=$evil" "--aic-metrics=$evil" --force; do
		found=
		for a in "${args[@]}"; do [ "$a" != "$want" ] || found=1; done
		[ -n "$found" ] || { echo "not passed whole: ${want:0:12}..."; printf '[%s]\n' "${args[@]}"; return 1; }
	done
}

@test "batch.mk: dump directories with quotes, backticks, \$(...) and a leading '-' are parsed, nothing runs" {
	for n in "q'uote" 'd"q' 'b`touch${IFS}PWNED1`' 'x`id>PWNED2`' 'c$(touch${IFS}PWNED3)' '-lead' 'br{a}ce' 'p(a)r' 'a,b&c' 'h#ash' 'e=q'; do
		mkdir -p "runs/$n/dump"
		cp "$data"/910B/* "runs/$n/dump/"
	done
	run make -s -f "$top/pipelines/batch.mk" DUMPS='runs/*/dump' OUT=profiles -j2
	no_markers
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	for n in "q'uote" 'd"q' 'b`touch${IFS}PWNED1`' 'x`id>PWNED2`' 'c$(touch${IFS}PWNED3)' '-lead' 'br{a}ce' 'p(a)r' 'a,b&c' 'h#ash' 'e=q'; do
		[ -f "profiles/runs_${n}_dump/simulator/trace.json" ] || { echo "no tree for $n"; ls profiles; return 1; }
		[ -f "profiles/runs_${n}_dump/.done" ]
	done
	run make -q -f "$top/pipelines/batch.mk" DUMPS='runs/*/dump' OUT=profiles
	[ "$status" -eq 0 ]
}

@test "batch.mk: names make cannot hold are refused with a clear message, and nothing runs" {
	for n in 'sp ace' $'new\nline' 'semi;touch PWNED1' 'co:lon' 'pi|pe' 'back\slash'; do
		rm -rf runs
		mkdir -p "runs/$n"
		cp "$data"/910B/* "runs/$n/"
		run make -s -f "$top/pipelines/batch.mk" DUMPS='runs/*' OUT=profiles
		no_markers
		[ "$status" -ne 0 ] || { echo "accepted '$n'"; return 1; }
		[[ "$output" == *"batch.mk: "*"white space"*";"*":"*"|"* ]] || { echo "$n: $output"; return 1; }
		[ ! -e profiles ] || [ -z "$(find profiles -name trace.json)" ]
	done
	# OUT too
	rm -rf runs && mkdir -p runs/a && cp "$data"/910B/* runs/a/
	run make -s -f "$top/pipelines/batch.mk" DUMPS='runs/*' 'OUT=pro files;touch PWNED2'
	no_markers
	[ "$status" -ne 0 ]
	[[ "$output" == *"batch.mk: "*"OUT"* ]]
}
