#!/usr/bin/env bats
# batch.mk on remote hosts (HOSTS=, SSHLOGIN=): two hosts made here, each a
# network namespace on a veth pair with its own sshd (a host key and a
# user key made for the test, sshd's own configuration), and a mount
# namespace that hides the test's work directory and gives /root and /run
# a tmpfs: a host sees the dumps only as GNU parallel transfers them, and
# its trees reach the work directory only as they come back.  The optrace
# of the checkout is at the same path on both (the same install).
# Everything made here goes in teardown_file, whatever happened.

bats_require_minimum_version 1.5.0
load sim-export-lib

# The addresses: 198.18.0.0/15 is kept for network tests (RFC 2544); only
# these two, made here, are ever contacted.
NET=198.18.213

host_addr() { case $1 in a) echo "$NET.2" ;; b) echo "$NET.6" ;; esac; }

# cannot REASON: the tests are skipped, saying why (setup does it: bats
# 1.8 cannot skip in setup_file).
cannot() {
	export RB_SKIP=$1
}

setup_file() {
	F=$BATS_FILE_TMPDIR
	export RB_SKIP=
	export RB_NS_A="otrb$$a" RB_NS_B="otrb$$b" RB_ETC="$F/etc"
	[ "$(id -u)" -eq 0 ] || { cannot "needs root (network namespaces and sshd)"; return 0; }
	local t
	for t in ip unshare mount ssh ssh-keygen rsync parallel tar; do
		command -v "$t" >/dev/null 2>&1 || { cannot "$t is not installed (make deps)"; return 0; }
	done
	[ -x /usr/sbin/sshd ] || { cannot "sshd is not installed (make deps: openssh-server)"; return 0; }
	if ip -o addr show | grep -q " $NET\."; then
		cannot "$NET.0/24 is already in use on this machine"
		return 0
	fi
	ip netns add "$RB_NS_A" 2>"$F/netns.err" || { cannot "cannot make a network namespace: $(head -n 1 "$F/netns.err")"; return 0; }
	unshare -m true 2>"$F/unshare.err" || { ip netns del "$RB_NS_A"; cannot "cannot make a mount namespace: $(head -n 1 "$F/unshare.err")"; return 0; }
	ip netns add "$RB_NS_B" || return 1

	mkdir -p "$RB_ETC" "$F/local" "$F/shared" "$F/bin"
	ssh-keygen -q -t ed25519 -N '' -C optrace-test-host -f "$RB_ETC/host_key" || return 1
	ssh-keygen -q -t ed25519 -N '' -C optrace-test-user -f "$RB_ETC/user_key" || return 1
	cp "$RB_ETC/user_key.pub" "$RB_ETC/authorized_keys"
	: >"$RB_ETC/known_hosts"
	cat >"$RB_ETC/ssh_config" <<-EOF
	Host *
	  User root
	  IdentityFile $RB_ETC/user_key
	  IdentitiesOnly yes
	  UserKnownHostsFile $RB_ETC/known_hosts
	  GlobalKnownHostsFile /dev/null
	  StrictHostKeyChecking yes
	  BatchMode yes
	  ConnectTimeout 10
	  ServerAliveInterval 5
	  ServerAliveCountMax 3
	EOF
	# parallel and rsync run "ssh" from PATH: this one reads the test's
	# configuration only.
	printf '#!/bin/sh\nexec /usr/bin/ssh -F "%s" "$@"\n' "$RB_ETC/ssh_config" >"$F/bin/ssh"
	chmod +x "$F/bin/ssh"
	export PATH="$F/bin:$PATH"

	local h ns i=0 addr
	for h in a b; do
		ns=RB_NS_${h^^}
		ns=${!ns}
		addr=$(host_addr "$h")
		ip link add "${ns}0" type veth peer name "${ns}1" || return 1
		ip link set "${ns}1" netns "$ns" || return 1
		ip addr add "$NET.$((i * 4 + 1))/30" dev "${ns}0" || return 1
		ip link set "${ns}0" up || return 1
		ip -n "$ns" addr add "$addr/30" dev "${ns}1" || return 1
		ip -n "$ns" link set "${ns}1" up || return 1
		ip -n "$ns" link set lo up || return 1
		printf '%s %s\n' "$addr" "$(cut -d' ' -f1,2 "$RB_ETC/host_key.pub")" >>"$RB_ETC/known_hosts"
		cat >"$RB_ETC/sshd_$h.conf" <<-EOF
		ListenAddress $addr:22
		HostKey $RB_ETC/host_key
		AuthorizedKeysFile $RB_ETC/authorized_keys
		PidFile $RB_ETC/sshd_$h.pid
		StrictModes no
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PermitRootLogin prohibit-password
		UsePAM no
		PrintMotd no
		LogLevel INFO
		EOF
		start_host "$h" || return 1
		i=$((i + 1))
	done
}

# start_host a|b: host a or b's sshd, in its own mount namespace (the work
# directory hidden, its own /root, the login directory, and /run, for the
# privilege separation; bin/ of the host at $F/rbin, the sim-export or
# dump-split some tests run), until a login works.
start_host() {
	local h=$1 ns i=0
	ns=RB_NS_${h^^}
	ns=${!ns}
	mkdir -p "$F/host_$h/bin"
	ip netns exec "$ns" unshare -m --propagation private sh -c '
		mount -t tmpfs optrace-test "$1/local" &&
		mount -t tmpfs optrace-test /root &&
		mount -t tmpfs optrace-test /run && mkdir /run/sshd &&
		mkdir -p "$1/rbin" && mount --bind "$1/host_$2/bin" "$1/rbin" &&
		exec /usr/sbin/sshd -f "$3" -E "$4"' sh "$F" "$h" "$RB_ETC/sshd_$h.conf" "$RB_ETC/sshd_$h.log" \
		</dev/null >/dev/null 2>&1 || { cat "$RB_ETC/sshd_$h.log" >&2; return 1; }
	# (sshd listens before it forks away: the first try normally works)
	until ssh "$(host_addr "$h")" true 2>"$F/ssh.err"; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || { cat "$F/ssh.err" "$RB_ETC/sshd_$h.log" >&2; return 1; }
		sleep 0.1
	done
}

# host_pid a|b: the pid of host a or b's sshd, when it runs (a pid file
# left by a killed one may name another process by now).
host_pid() {
	local pid
	pid=$(cat "$RB_ETC/sshd_$1.pid" 2>/dev/null) && [ -n "$pid" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$RB_ETC/sshd_$1.conf" && echo "$pid"
}

# kill_tree PID: PID and every process below it.
kill_tree() {
	local pids
	pids=$(ps -e -o pid=,ppid= | awk -v r="$1" '{ p[$1] = $2 } END {
		for (x in p) { y = x; while ((y in p) && y != r && y > 1) y = p[y]; if (y == r) print x } }')
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
}

teardown_file() {
	local h ns pid
	for h in a b; do
		ns=RB_NS_${h^^}
		ns=${!ns}
		[ -n "$ns" ] || continue
		pid=$(host_pid "$h") && kill_tree "$pid"
		ip link del "${ns}0" 2>/dev/null || :
		ip netns del "$ns" 2>/dev/null || :
	done
	return 0
}

setup() {
	[ -z "$RB_SKIP" ] || skip "$RB_SKIP"
	se_setup
	F=$BATS_FILE_TMPDIR
	# the hosts cannot see under $F/local
	w=$F/local/$BATS_TEST_NUMBER
	mkdir -p "$w" && cd "$w" || return 1
	export PATH="$F/bin:$PATH"
	rm -rf "$F/shared"/* "$F"/host_?/bin/*
	# a host an earlier test killed comes back
	for h in a b; do
		host_pid "$h" >/dev/null || start_host "$h" || return 1
	done
	for n in plain "q'uote" 'c$(touch${IFS}PWNED1)' 'b`touch${IFS}PWNED2`' -lead 'a,b&c'; do
		mkdir -p "runs/$n/dump"
		cp "$data"/910B/* "runs/$n/dump/"
	done
	ndumps=6
	printf '1/%s\n# the second host\n1/root@%s\n' "$(host_addr a)" "$(host_addr b)" >hosts
}

# no_markers_here: no injected command ran here either (on a host, it
# would have changed the path it ran in, and the trees would differ).
no_markers_here() {
	no_markers || return 1
	[ -z "$(find "$w" -name 'PWNED*')" ] || { echo "injected code ran: $(find "$w" -name 'PWNED*')"; return 1; }
}

# dying_host TOOL REAL: TOOL in the bin/ of both hosts ($F/rbin there),
# running REAL.  Host a's first run waits until host b has died; host b
# runs its first job whole, then dies (its sshd and all below it killed)
# when its second one starts.  So b surely takes a second job, and that
# job is cut off in the middle.  Each run leaves its arguments in
# $F/shared/a.N or b.N; b.killed says b died.
dying_host() {
	cat >"$F/host_a/bin/$1" <<-EOF
	#!/bin/sh
	n=\$(ls "$F/shared" | grep -c '^a\.')
	printf '%s\n' "\$*" >"$F/shared/a.\$((n + 1))"
	if [ "\$n" -eq 0 ]; then
		i=0
		until [ -e "$F/shared/b.killed" ] || [ \$i -ge 600 ]; do sleep 0.1; i=\$((i + 1)); done
	fi
	exec "$2" "\$@"
	EOF
	cat >"$F/host_b/bin/$1" <<-EOF
	#!/bin/sh
	n=\$(ls "$F/shared" | grep -c '^b\.[0-9]')
	printf '%s\n' "\$*" >"$F/shared/b.\$((n + 1))"
	if [ "\$n" -ge 1 ]; then
		touch "$F/shared/b.killed"
		pids=\$(ps -e -o pid=,ppid= | awk -v r="\$(cat "$RB_ETC/sshd_b.pid")" -v me=\$\$ '{ p[\$1] = \$2 } END {
			for (x in p) { y = x; while ((y in p) && y != r && y > 1) y = p[y]; if (y == r && x != me) print x } }')
		kill -KILL \$(cat "$RB_ETC/sshd_b.pid") \$pids
		kill -KILL \$\$
	fi
	exec "$2" "\$@"
	EOF
	chmod +x "$F/host_a/bin/$1" "$F/host_b/bin/$1"
}

# b_died N: host b ran one job whole and died in its second, and host a
# ran the cut-off job and at least N jobs in all.
b_died() {
	[ -e "$F/shared/b.killed" ] || { echo "host b did not die"; return 1; }
	[ "$(ls "$F/shared" | grep -c '^b\.[0-9]')" -eq 2 ] || { ls "$F/shared"; return 1; }
	! host_pid b
	grep -qxF -- "$(cat "$F/shared/b.2")" "$F"/shared/a.* || { echo "the cut-off job was not run on a"; return 1; }
	[ "$(ls "$F/shared" | grep -c '^a\.')" -ge "$1" ]
}

batch() {
	make -s -f "$top/pipelines/batch.mk" DUMPS='runs/*/dump' "$@"
}

# same_trees A B: the trees of two OUTs hold the same files, byte for byte
# (the remote state directory .remote aside).
same_trees() {
	diff -r -x .remote "$1" "$2" || return 1
	[ "$(find "$1" -path "$1/.remote" -prune -o -print | sed "s|^$1||" | sort)" = \
		"$(find "$2" -path "$2/.remote" -prune -o -print | sed "s|^$2||" | sort)" ]
}

logins() { grep -c 'Accepted publickey' "$RB_ETC/sshd_$1.log"; }

@test "batch.mk HOSTS=: the dumps are parsed on both hosts, the trees byte-identical to a local run" {
	batch OUT=local -j2 2>/dev/null
	[ "$(ls local | wc -l)" -eq "$ndumps" ]
	a0=$(logins a) b0=$(logins b)
	run batch OUT=remote HOSTS=hosts
	no_markers_here
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	same_trees local remote
	# the dump path in each manifest is the one given, as in the local run
	jq -e '.dump == "runs/-lead/dump" and .complete' remote/runs_-lead_dump/manifest.json >/dev/null
	# both hosts were used
	[ "$(logins a)" -gt "$a0" ] && [ "$(logins b)" -gt "$b0" ]
	# up to date now; nothing left on the way
	batch -q OUT=remote HOSTS=hosts
	[ "$(ls -A remote/.remote)" = batch ]
	# a changed dump is parsed again, on the host asked for, the others not
	touch runs/plain/dump/*
	run batch -q OUT=remote HOSTS=hosts
	[ "$status" -ne 0 ]
	other=$(stat -c %Y.%y remote/runs_-lead_dump/manifest.json)
	a0=$(logins a) b0=$(logins b)
	run batch OUT=remote "SSHLOGIN=$(host_addr b)"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "$(logins a)" -eq "$a0" ] && [ "$(logins b)" -gt "$b0" ]
	[ "$(stat -c %Y.%y remote/runs_-lead_dump/manifest.json)" = "$other" ]
	batch -q OUT=remote HOSTS=hosts
	same_trees local remote
	# the hosts' login directories hold nothing of it (--cleanup)
	for h in a b; do
		[ -z "$(ssh "$(host_addr "$h")" 'ls -A')" ]
	done
}

@test "batch.mk HOSTS=: a host that dies in the middle of the run: its jobs are run on the other, nothing lost" {
	batch OUT=local 2>/dev/null
	dying_host sim-export "$top/pipelines/sim-export"
	run batch OUT=remote HOSTS=hosts "REMOTE_SIM_EXPORT=$F/rbin/sim-export"
	no_markers_here
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	b_died $((ndumps - 1))
	# nothing lost: every tree, as the local run made it, with its stamp
	same_trees local remote
	for d in local/*; do [ -f "remote/${d#local/}/.done" ]; done
	batch -q OUT=remote HOSTS=hosts
}

@test "batch.mk HOSTS=: a host list entry that is not a plain host is refused, and nothing runs" {
	for e in 'x;touch PWNED1' '$(touch PWNED2)' '-oProxyCommand=touch PWNED3' 'a b' 'h`touch PWNED4`' ':'; do
		printf '1/%s\n%s\n' "$(host_addr a)" "$e" >bad
		a0=$(logins a)
		run batch OUT=out HOSTS=bad
		no_markers_here
		[ "$status" -ne 0 ] || { echo "accepted '$e'"; return 1; }
		[[ "$output" == *"batch.mk: bad:2: '$e' is not a host"* ]] || { echo "$e: $output"; return 1; }
		[ "$(logins a)" -eq "$a0" ]
		[ -z "$(find out -name trace.json 2>/dev/null)" ]
	done
	run batch OUT=out 'SSHLOGIN=h;touch PWNED5'
	no_markers_here
	[ "$status" -ne 0 ]
	[[ "$output" == *"SSHLOGIN: 'h;touch PWNED5' is not a host"* ]]
	# a dump outside the current directory is refused
	run make -s -f "$top/pipelines/batch.mk" "DUMPS=$w/runs/plain/dump" OUT=out HOSTS=hosts
	[ "$status" -ne 0 ]
	[[ "$output" == *"relative paths below the current one"* ]]
	run make -s -C runs/plain -f "$top/pipelines/batch.mk" "DUMPS=../-lead/dump" OUT=out HOSTS=hosts
	[ "$status" -ne 0 ]
	[[ "$output" == *"relative paths below the current one"* ]]
	# and one whose tree would be OUT/.remote, the remote run's state
	mkdir .remote && cp "$data"/910B/* .remote/
	run make -s -f "$top/pipelines/batch.mk" DUMPS=.remote OUT=out HOSTS=hosts
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot be named .remote"* ]]
}

@test "batch.mk HOSTS=: SOC travels as data; a dump that fails fails on the host, as it would here" {
	# (the hosts see $F/shared: a command run there would leave its file)
	# ($ is make's own syntax in a make variable: none here)
	soc="q'\"\`touch $F/shared/PWNED1\`;touch $F/shared/PWNED2"
	run batch OUT=remote HOSTS=hosts "SOC=$soc"
	no_markers_here
	[ -z "$(ls "$F/shared")" ]
	[ "$status" -ne 0 ]
	# the value reached sim-export on the host as it was
	[[ "$output" == *"$soc"* ]] || { echo "$output"; return 1; }
	[[ "$output" == *"batch.mk: runs/plain/dump: sim-export exited 2"* ]] || { echo "$output"; return 1; }
	[ -z "$(find remote -name .done)" ]
	# and with a good one, the same trees as here
	batch OUT=local SOC=Ascend910B1 2>/dev/null
	run batch OUT=remote HOSTS=hosts SOC=Ascend910B1
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	same_trees local remote
}

@test "batch.mk HOSTS=: on-board dumps go to board-export on the hosts; AIC_METRICS travels as data; the trees as here" {
	mkdir -p "board/b'rd/dump" board/launch
	cp "$data"/board910B/dump/* "board/b'rd/dump/"
	cp -r "$data"/board910B/dump board/launch/
	mb() { make -s -f "$top/pipelines/batch.mk" DUMPS='runs/plain/dump board/*/dump board/launch' "$@"; }
	mb OUT=local AIC_METRICS=L2Cache,Memory 2>/dev/null
	[ -f "local/board_b'rd_dump/L2Cache.csv" ] && [ -f local/board_launch/Memory.csv ]
	[ ! -e local/board_launch/PipeUtilization.csv ]
	run mb OUT=remote HOSTS=hosts AIC_METRICS=L2Cache,Memory
	no_markers_here
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ "$output" != *OPPROF_* ]] || { echo "$output"; return 1; }
	same_trees local remote
	# a value that is not a group reaches board-export on the host as text
	bad="L2Cache\`touch $F/shared/PWNED1\`;touch $F/shared/PWNED2"
	run mb OUT=remote2 HOSTS=hosts "AIC_METRICS=$bad"
	no_markers_here
	[ -z "$(ls "$F/shared")" ]
	[ "$status" -ne 0 ]
	[[ "$output" == *"batch.mk: board/launch: board-export exited 2"* ]] || { echo "$output"; return 1; }
	[ -f remote2/runs_plain_dump/.done ]
	[ -z "$(find remote2 -path '*board*' -name .done)" ]
}

@test "sim-export --sshloginfile: the cores are parsed on both hosts, the tree byte-identical to a local run" {
	# (on the hosts the dump is dump/ of the run's directory: the name
	# stays here)
	n="-d q'uote \$(touch PWNED1) \`touch PWNED2\`"
	gen-dump -s 4 -c 2 -o "$n"
	cp -- "$data"/910B/core0.veccore0.instr_log.dump "$n/"
	sim-export -q -j 2 -o here -- "$n" 2>/dev/null
	a0=$(logins a) b0=$(logins b)
	run sim-export -q -j 1 --sshloginfile hosts -o there -- "$n"
	no_markers_here
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "$(logins a)" -gt "$a0" ] && [ "$(logins b)" -gt "$b0" ]
	the_tree here; t1=$tree
	the_tree there; t2=$tree
	diff -r "$t1" "$t2"
	[ "$(cd "$t1" && find . | sort)" = "$(cd "$t2" && find . | sort)" ]
	jq -e --arg d "./$n" '.dump == $d and .complete' "$t2/manifest.json" >/dev/null
	# nothing of it left on the hosts
	for h in a b; do
		[ -z "$(ssh "$(host_addr "$h")" 'find . -mindepth 1')" ] || { ssh "$(host_addr "$h")" 'find . -mindepth 1'; return 1; }
	done
	# a bad host list is a usage error, nothing written
	run sim-export -q --sshlogin 'h;touch PWNED3' -o bad -- "$n"
	[ "$status" -eq 2 ]
	[[ "$output" == *"sim-export: --sshlogin: 'h;touch PWNED3' is not a host"* ]]
	[ -z "$(ls -A bad)" ]
}

@test "sim-export --sshloginfile: a host that dies in the middle of the run: its cores are parsed on the other, nothing lost" {
	gen-dump -s 4 -c 2 -o d
	sim-export -q -j 2 -o here -- d
	for t in instr-parse icache-merge scalar-merge; do
		ln -s "$OPTRACE_BIN/$t" "$F/host_a/bin/"
		ln -s "$OPTRACE_BIN/$t" "$F/host_b/bin/"
	done
	dying_host dump-split "$OPTRACE_BIN/dump-split"
	run sim-export -q -j 1 --sshloginfile hosts --remote-bin "$F/rbin" -o there -- d
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	b_died 3
	the_tree here; t1=$tree
	the_tree there; t2=$tree
	diff -r "$t1" "$t2"
	[ "$(cd "$t1" && find . | sort)" = "$(cd "$t2" && find . | sort)" ]
	jq -e '.complete and .missing == []' "$t2/manifest.json" >/dev/null
}
