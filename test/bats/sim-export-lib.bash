# Shared by the sim-export and batch.mk tests (load sim-export-lib).

se_setup() {
	top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	data="$top/test/data"
	tmp=$BATS_TEST_TMPDIR
	variant=${OPTRACE_VARIANT:-build}
	# The recipe of the checkout, with the tools of the build under test
	# (OPTRACE_BIN comes first in sim-export's search).
	export OPTRACE_BIN="$top/$variant/bin"
	export PATH="$top/pipelines:$OPTRACE_BIN:$PATH"
	FAULT_SO="$top/build/fault.so"
	unset OPTRACE_FORMAT
}

need_fault() {
	[ -f "$FAULT_SO" ] || skip "build/fault.so is missing (make build/fault.so)"
}

# inject VAR=value... CMD...: CMD and all it runs under the fault library.
inject() {
	env LD_PRELOAD="$FAULT_SO" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

# fake_tool NAME SCRIPT: make $tmp/fakebin, where NAME is the shell script
# SCRIPT (it finds the real tools in "$FAKE_REAL") and every other tool is
# the real one, and let sim-export take its tools from there.
fake_tool() {
	local fb=$tmp/fakebin t
	mkdir -p "$fb"
	if [ -z "${FAKE_REAL:-}" ]; then
		export FAKE_REAL=$OPTRACE_BIN
	fi
	for t in "$FAKE_REAL"/*; do
		case ${t##*/} in sim-export|sim-flow) continue ;; esac
		[ -e "$fb/${t##*/}" ] || ln -s "$t" "$fb/"
	done
	rm -f "$fb/$1"
	printf '#!/bin/sh\n%s\n' "$2" >"$fb/$1"
	chmod +x "$fb/$1"
	export OPTRACE_BIN=$fb
	export PATH="$fb:$PATH"
}

# no_markers: no file made by an injected command exists.
no_markers() {
	local found
	found=$(find "$tmp" / -xdev -maxdepth 1 -name 'PWNED*' 2>/dev/null; find "$tmp" -name 'PWNED*' 2>/dev/null)
	[ -z "$found" ] || { echo "injected code ran: $found"; return 1; }
}

# the_tree DIR: the one OPPROF_* tree under DIR.
the_tree() {
	local d n=0
	for d in "$1"/OPPROF_*; do
		[ -d "$d" ] || continue
		n=$((n + 1))
		tree=$d
	done
	[ "$n" -eq 1 ] || { echo "want one OPPROF_* tree in $1, found $n"; ls -la "$1"; return 1; }
}
