#!/usr/bin/env bats
# Every command in the EXAMPLES section of every man page runs, from the
# test data directory, and succeeds.

setup() {
	top="$BATS_TEST_DIRNAME/../.."
	cd "$BATS_TEST_DIRNAME/../data" || return 1
}

# Print the example commands of a page: lines "$ cmd" inside .EX/.EE.
examples() {
	awk '/^\.SH EXAMPLES/{ex=1; next} /^\.SH/{ex=0} ex && /^\.EX/{in_ex=1; next} ex && /^\.EE/{in_ex=0; next} ex && in_ex && /^\$ /{sub(/^\$ /,""); gsub(/\\-/,"-"); gsub(/\\e/,"\\"); gsub(/\\\(aq/,"'"'"'"); print}' "$1"
}

@test "every man page has an EXAMPLES section with commands" {
	for page in "$top"/man/*.[157]; do
		case "$page" in *.5) continue ;; esac
		n=$(examples "$page" | wc -l)
		[ "$n" -gt 0 ] || { echo "no examples in $page"; return 1; }
	done
}

@test "man page examples run and succeed" {
	for page in "$top"/man/*.[17]; do
		while IFS= read -r cmd; do
			run bash -o pipefail -c "$cmd"
			if [ "$status" -ne 0 ]; then
				echo "$(basename "$page"): '$cmd' exited $status"
				echo "$output" | head -20
				return 1
			fi
			[ -n "$output" ] || { echo "$(basename "$page"): '$cmd' printed nothing"; return 1; }
		done < <(examples "$page")
	done
}

@test "every man page renders without warnings" {
	command -v groff >/dev/null || skip "groff is not installed"
	for page in "$top"/man/*.[157]; do
		run groff -man -ww -z "$page"
		[ "$status" -eq 0 ] || { echo "$page: groff failed"; return 1; }
		[ -z "$output" ] || { echo "$page: $output"; return 1; }
	done
}

@test "man -k optrace lists every page, once installed" {
	command -v mandb >/dev/null && command -v apropos >/dev/null || skip "man-db is not installed"
	m=$BATS_TEST_TMPDIR/man
	n=0
	for page in "$top"/man/*.[157]; do
		mkdir -p "$m/man${page##*.}"
		cp "$page" "$m/man${page##*.}/"
		n=$((n + 1))
	done
	mandb -q "$m" 2>/dev/null
	run env MANPATH="$m" apropos optrace
	[ "$status" -eq 0 ]
	for page in "$top"/man/*.[157]; do
		b=${page##*/}
		grep -q "^${b%.*} (${b##*.})" <<<"$output" || { echo "man -k optrace does not list ${b%.*}(${b##*.})"; echo "$output"; return 1; }
	done
	[ "$(wc -l <<<"$output")" -eq "$n" ]
}
