# remote.bash: the host list of a remote run, sourced by batch-remote (and
# by sim-export for its per-core fan-out).  See optrace-batch(7), "Remote
# hosts".
#
# GNU parallel reads an sshlogin as part of an ssh command line, so only
# plain [N/][user@]host entries are let through: ssh options, ports and
# keys belong in ~/.ssh/config (or PARALLEL_SSH), never in the host list.

# remote_logins PROG HOSTSFILE SSHLOGIN LABEL OUTFILE: the hosts of
# HOSTSFILE (one a line, blank lines and # comments skipped) and of
# SSHLOGIN (separated by commas; LABEL names it in messages), checked, one
# a line into OUTFILE.  A bad entry:
# one line naming it (and the file and line) on stderr, status 2.
remote_logins() {
	local prog=$1 file=$2 list=$3 label=$4 out=$5 line n=0 where e
	local -a entries=() places=()
	if [ -n "$file" ]; then
		[ -f "$file" ] && [ -r "$file" ] || { echo "$prog: $file: cannot read the host list" >&2; return 2; }
		while IFS= read -r line || [ -n "$line" ]; do
			n=$((n + 1))
			line=${line%%#*}
			line=${line#"${line%%[![:space:]]*}"}
			line=${line%"${line##*[![:space:]]}"}
			[ -n "$line" ] || continue
			entries+=("$line")
			places+=("$file:$n")
		done <"$file"
	fi
	if [ -n "$list" ]; then
		local IFS=,
		for e in $list; do
			entries+=("$e")
			places+=("$label")
		done
		unset IFS
	fi
	[ ${#entries[@]} -gt 0 ] || { echo "$prog: the host list is empty" >&2; return 2; }
	for n in "${!entries[@]}"; do
		e=${entries[n]}
		where=${places[n]}
		if ! [[ $e =~ ^([1-9][0-9]{0,3}/)?([A-Za-z0-9_][A-Za-z0-9._-]*@)?[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; then
			echo "$prog: $where: '$e' is not a host ([N/][user@]host; ports, keys and ssh options go in ~/.ssh/config)" >&2
			return 2
		fi
	done
	printf '%s\n' "${entries[@]}" >"$out"
}
