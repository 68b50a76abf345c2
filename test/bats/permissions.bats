#!/usr/bin/env bats
# What the tools and recipes create, and what they say of the inputs they
# are given (optrace(7), FILES AND PERMISSIONS): files 0640, directories
# 0750; an input writable by others or owned by another user is warned
# about (not for root), a symbolic link on its path too; an input over the
# limit of its kind is refused; a recipe's messages name the tree it
# leaves, never the work directory it makes it in.

load sim-export-lib

setup() {
	se_setup
	cd "$tmp" || return 1
	umask 022   # the recipes set their own
}

teardown() {
	[ -z "${shared:-}" ] || rm -rf -- "$shared"
}

# modes_ok DIR [INPUT_DIR]: every directory under DIR (itself included)
# is 0750, every file 0640, but a file that is a hard link of one of
# INPUT_DIR's (the dump linked in, not copied: the user's own file).
modes_ok() {
	local p m bad=0 f
	while IFS= read -r -d '' p; do
		m=$(stat -c %a -- "$p")
		if [ -d "$p" ]; then
			[ "$m" = 750 ] || { echo "directory $p: $m" >&2; bad=1; }
		elif [ -f "$p" ]; then
			[ "$m" = 640 ] && continue
			if [ -n "${2:-}" ]; then
				for f in "$2"/*; do
					[ ! "$p" -ef "$f" ] || continue 2
				done
			fi
			echo "file $p: $m" >&2
			bad=1
		fi
	done < <(find "$1" -print0)
	return "$bad"
}

# A directory the user nobody can read (the test's own is private).
shared_dir() {
	shared=$(mktemp -d /tmp/optrace-perm.XXXXXX)
	chmod 0755 "$shared"
}

# as_nobody CMD...: CMD as the user nobody (skips when that cannot be).
as_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run a command as another user"
	command -v setpriv >/dev/null 2>&1 || skip "setpriv is missing"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

@test "sim-export: every file of the tree is 0640, every directory 0750 (the dump's own files linked in)" {
	cp -r "$data/910B" dump
	run sim-export -q -o out dump
	[ "$status" -eq 0 ]
	tree=$(echo out/OPPROF_*)
	[ -d "$tree/simulator" ] && [ -f "$tree/manifest.json" ]
	modes_ok out dump
	# a copy (not a link: another filesystem, here the binary) is 0640 too
	cp -r "$data/910B" dump2
	printf 'not an elf\n' >kbin
	chmod 0755 kbin
	run sim-export -q --binary kbin -o out2 dump2
	[ -f out2/OPPROF_*/dump/aicore_binary.o ]
	modes_ok out2 dump2
}

@test "board-export: every file of the tree is 0640, every directory 0750 (the dump copied)" {
	cp -r "$data/board910B" board
	chmod -R a+rwX board
	run board-export -q -o out board
	[ "$status" -eq 0 ]
	tree=$(echo out/OPPROF_*)
	[ -f "$tree/OpBasicInfo.csv" ] || [ -n "$(find "$tree" -name OpBasicInfo.csv)" ]
	modes_ok out
}

@test "a tool's own -o file and directory: 0640 and 0750 (less the umask)" {
	dump-split -q -o recs.rec "$data/910B"
	[ "$(stat -c %a recs.rec)" = 640 ]
	dump-split -q "$data/910B" | instr-parse -q | timeline-emit -q -o emitted >/dev/null
	modes_ok emitted
	umask 077
	dump-split -q -o private.rec "$data/910B"
	[ "$(stat -c %a private.rec)" = 600 ]
}

@test "a dump log over 1 GiB (the reference's limit) is taken: the tools stream it" {
	cp -r "$data/910B" dump
	truncate -s $(((1 << 30) + 1)) dump/core0.veccore1.instr_log.dump
	run dump-split -q --list-cores dump
	[ "$status" -eq 0 ]
	[[ $output != *"limit"* ]]
}

@test "a kernel binary over 10 GiB is refused by src-map, naming it" {
	truncate -s $(((10 << 30) + 1)) big.o
	run bash -c 'dump-split -q "$1" | instr-parse -q | src-map -q --binary big.o -o /dev/null' _ "$data/910B"
	[ "$status" -eq 3 ]
	[[ $output == *"src-map: big.o: 10737418241 bytes, over the 10 GiB limit of a kernel binary"* ]]
}

@test "root is not warned about a world-writable dump (the reference's rule); another user is, once per file" {
	shared_dir
	cp -r "$data/910B" "$shared/dump"
	chmod 0755 "$shared/dump"
	chmod 0644 "$shared"/dump/*
	chmod 0666 "$shared/dump/core0.veccore0.instr_log.dump"
	if [ "$(id -u)" -eq 0 ]; then
		run dump-split -q --list-cores "$shared/dump"
		[ "$status" -eq 0 ]
		[[ $output != *writable* ]]
	fi
	run as_nobody dump-split -q --list-cores "$shared/dump"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'writable by others' <<<"$output")" -eq 1 ]
	[[ $output == *"dump-split: $shared/dump/core0.veccore0.instr_log.dump: writable by others"* ]]
	# a directory writable by its group
	chmod 0775 "$shared/dump"
	run as_nobody dump-split -q --list-cores "$shared/dump"
	[[ $output == *"dump-split: $shared/dump: writable by its group"* ]]
	# owned by a third user: said; by root or the caller: not
	chmod 0644 "$shared/dump/core0.veccore0.instr_log.dump"
	chmod 0755 "$shared/dump"
	chown 4321 "$shared/dump/core0.veccore1.instr_log.dump"
	run as_nobody dump-split -q --list-cores "$shared/dump"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'owned by another user' <<<"$output")" -eq 1 ]
	[[ $output == *"dump-split: $shared/dump/core0.veccore1.instr_log.dump: owned by another user (uid 4321)"* ]]
}

@test "a dump reached through a symbolic link: sim-export warns once, and parses it" {
	cp -r "$data/910B" real
	ln -s real linked
	run sim-export -q -o out linked
	[ "$status" -eq 0 ]
	[ "$(grep -c 'symbolic link' <<<"$output")" -eq 1 ]
	[[ $output == *"dump-split: linked: a symbolic link is on its path"* ]]
	[ -f out/OPPROF_*/simulator/trace.json ]
}

@test "sim-export's messages name the tree it leaves, never its work directory" {
	need_fault
	cp -r "$data/910B" dump
	run inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=/trace.json sim-export -q -o out dump
	tree=$(echo out/OPPROF_*)
	[ -d "$tree" ]
	[[ $output == *"timeline-emit: $tree/simulator/trace.json: cannot write: No space left on device"* ]]
	[[ $output != *".tmp"* ]]
	[[ $output != *"/.OPPROF_"* ]]
}

@test "board-export's messages name the tree it leaves, never its work directory" {
	need_fault
	cp -r "$data/board910B" board
	run inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=/OpBasicInfo.csv board-export -q -o out board
	[ "$status" -ne 0 ]
	[[ $output == *"OpBasicInfo.csv"* ]]
	[[ $output == *"out/OPPROF_"* ]]
	[[ $output != *".tmp"* ]]
	[[ $output != *"/.OPPROF_"* ]]
}
