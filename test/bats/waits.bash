# Helpers for tests that signal a tool in the middle of its input without
# depending on timing.  None waits for ever: when the process waited on has
# ended first, the wait fails and says so.

# alive PID: PID runs (not ended, not a zombie waiting to be reaped).
alive() {
	local st
	if [ -r "/proc/$1/stat" ]; then
		st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
		[ -n "$st" ] && [ "${st%% *}" != Z ]
	else
		kill -0 "$1" 2>/dev/null
	fi
}

# wait_for PID COMMAND...: until COMMAND succeeds; fails when PID ends first.
wait_for() {
	local pid=$1
	shift
	until "$@"; do
		alive "$pid" || { echo "process $pid ended while waiting for: $*" >&2; return 1; }
		sleep 0.05
	done
}

# in_read PID: PID sleeps in read(0, ...) (syscall 0 on x86_64, 63 on arm64).
in_read() {
	local nr fd rest
	read -r nr fd rest < "/proc/$1/syscall" 2>/dev/null && [ "$fd" = 0x0 ] && { [ "$nr" = 0 ] || [ "$nr" = 63 ]; }
}

# wait_in_read PID: until PID sleeps in read(0, ...) waiting for more input:
# it has taken all it was given and its signal handling is in place, however
# loaded the machine.  Where there is no /proc/PID/syscall, the caller skips.
wait_in_read() {
	wait_for "$1" in_read "$1"
}

# have_syscall: this system shows what a process waits in.
have_syscall() { [ -r /proc/self/syscall ]; }
