# Helpers for tests that signal a tool in the middle of its input without
# depending on timing.

# wait_in_read PID: until PID sleeps in read(0, ...) waiting for more input
# (syscall 0 on x86_64, 63 on arm64): it has taken all it was given and its
# signal handling is in place, however loaded the machine.  Where there is
# no /proc/PID/syscall, the caller skips.
wait_in_read() {
	local nr fd rest
	until read -r nr fd rest < "/proc/$1/syscall" && [ "$fd" = 0x0 ] && { [ "$nr" = 0 ] || [ "$nr" = 63 ]; }; do
		sleep 0.05
	done
}

# have_syscall: this system shows what a process waits in.
have_syscall() { [ -r /proc/self/syscall ]; }
