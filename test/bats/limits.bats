#!/usr/bin/env bats
# Sizes read from inputs are checked before anything is allocated or
# written: a --config tensor past the cap of optrace-capture(5) (The
# --config kernel description) is refused with one line naming the file and
# the tensor, exit status 2, and nothing is left under -o.  Ticks too large
# to convert to microseconds are counted and said, status 1, never written
# as a saturated time in silence.

bats_require_minimum_version 1.5.0

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	T=$BATS_TEST_TMPDIR
	[[ $BATS_TEST_DESCRIPTION != ticks:* ]] || return 0
	[ -f "$ops/config/add_custom.json" ] || skip "the sample --config case is not built (build/ops)"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	export ASCEND_HOME_PATH=$cann
}

# big JQ-FILTER: the sample description changed by the filter, in $T/big.json
big() {
	jq "$1" "$ops/config/add_custom.json" >"$T/big.json"
}

# refusal: $T/big.json refused, status 2, one line, nothing left under -o
refusal() {
	run --separate-stderr sim-capture -q -o "$T/out" --config="$T/big.json"
	[ "$status" -eq 2 ] || { echo "status $status: $stderr" >&2; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "want one line: $stderr" >&2; return 1; }
	[ -z "$(ls -A "$T/out" 2>/dev/null)" ] || { echo "left under -o:" >&2; find "$T/out" >&2; return 1; }
	[ -z "$(find "$ops/config" -newer "$T/big.json" -name '*.bin')" ] || { echo "an output was written" >&2; return 1; }
}

refused() { # what the one line says after the file name
	refusal || return 1
	[ "$stderr" = "sim-capture: $T/big.json: $1" ] || { echo "message: $stderr" >&2; return 1; }
}

@test "--config: an output tensor of shape [2,2147483648] (8 GiB of float16) is refused before the launcher runs" {
	big '.test_cases[0].param_desc[2] |= (.shape = [2, 2147483648] | .type = "float16")'
	refused "tensor z: its shape is larger than 1 GiB"
}

@test "--config: an input tensor over 1 GiB, and one whose shape's product wraps 64 bits, are refused" {
	big '.test_cases[0].param_desc[0].shape = [1073741825]'
	refused "tensor x: its shape is larger than 1 GiB"
	big '.test_cases[0].param_desc[0].shape = [4294967296, 4294967296]'
	refused "tensor x: its shape is larger than 1 GiB"
}

@test "--config: a workspace or tiling size over 1 GiB is refused" {
	big '.test_cases[0].param_desc += [{"param_type": "workspace", "user_workspace_size": 1073741825}]'
	refused '"user_workspace_size" should be a size in (0, 1 GiB]'
	big '.test_cases[0].param_desc[3].tiling_data_size = 2147483648'
	refused '"tiling_data_size" should be a size in (0, 1 GiB]'
}

@test "--config: a kernel_config.bin asking for more than 1 GiB is refused too" {
	jq -n -c --arg k "$ops/kernels/add_custom.o" \
		'{bin_path: $k, block_dim: "2", kernel_name: "add_custom", magic: "RT_DEV_BINARY_MAGIC_ELF_AIVEC",
		  output_dir: "'"$T"'/res", output_name: "z", output_size: "8589934592"}' >"$T/big.json"
	refused '"output_size": a size is larger than 1 GiB'
	[ ! -e "$T/res" ]
}

# sparse FILE: a file of the free memory (MemFree of /proc/meminfo) and a
# GiB more, twice the limit of half of it: made with truncate, nothing
# written to disk, and nothing of it may be read.
sparse() {
	local kb
	kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
	[ -n "$kb" ] || skip "no MemFree in /proc/meminfo"
	truncate -s $((kb * 1024 + (1 << 30))) "$1"
	SPARSE=$(stat -c %s "$1")
}

# over_half FILE WHAT: the line refused says for FILE
over_half() {
	[[ $stderr == "sim-capture: $T/big.json: $1: $SPARSE bytes, over the limit of $2 (half of the free memory, MemFree of /proc/meminfo: "[0-9]*" bytes; OPTRACE_INPUT_LIMITS=off lifts it)" ]] ||
		{ echo "message: $stderr" >&2; return 1; }
}

@test "--config: a kernel binary, an input or tiling file over half of the free memory is refused before it is read" {
	sparse "$T/kernel.o"
	big ".kernel_path = \"$T/kernel.o\""
	refusal
	over_half "$T/kernel.o" "a kernel binary"
	# checked before the file's size is compared with the shape's
	mv "$T/kernel.o" "$T/x.bin"
	big ".test_cases[0].param_desc[0].data_path = \"$T/x.bin\""
	refusal
	over_half "$T/x.bin" "an input"
	mv "$T/x.bin" "$T/t.bin"
	big ".test_cases[0].param_desc[3].tiling_data_path = \"$T/t.bin\""
	refusal
	over_half "$T/t.bin" "tiling data"
}

@test "--config: a kernel_config.bin's binary and inputs over half of the free memory are refused too" {
	sparse "$T/x.bin"
	jq -n -c --arg k "$ops/kernels/add_custom.o" --arg x "$T/x.bin" \
		'{bin_path: $k, block_dim: "2", input_path: ("n;" + $x), input_size: "0;65536", kernel_name: "add_custom",
		  magic: "RT_DEV_BINARY_MAGIC_ELF_AIVEC"}' >"$T/big.json"
	refusal
	over_half "$T/x.bin" "an input"
	mv "$T/x.bin" "$T/k.o"
	jq -n -c --arg k "$T/k.o" '{bin_path: $k, block_dim: "2", kernel_name: "add_custom",
		magic: "RT_DEV_BINARY_MAGIC_ELF_AIVEC"}' >"$T/big.json"
	refusal
	over_half "$T/k.o" "a kernel binary"
}

# records START...: a record stream of one sub-core, an instruction of 5
# ticks at each start tick.
records() {
	local s
	echo '{"kind":"header","version":2,"mhz":1850,"producer":"test","soc":"Ascend910B1","origin":"test"}'
	for s in "$@"; do
		printf '{"kind":"instr","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"start":%s,"end":%s,"pc":"0x100","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":0,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null,"pipe":"VECTOR","name":"VADD","detail":"XD:X1=0x1,"}\n' \
			"$s" "$((s + 5))"
	done
	echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'
}

# 10^17 ticks at 1850 MHz are 5.4e13 us: past 2^64 ps.
@test "ticks: timeline-emit says how many times did not fit, status 1, the trace still written" {
	records 1000 100000000000000000 >"$T/big.jsonl"
	run --separate-stderr timeline-emit -q -o "$T/out" "$T/big.jsonl"
	[ "$status" -eq 1 ] || { echo "status $status: $stderr" >&2; return 1; }
	[ "$(grep -c 'times did not fit in microseconds' <<<"$stderr")" -eq 1 ]
	[[ $stderr == *"timeline-emit: "[1-9]*" times did not fit in microseconds (tick counts too large for the clock, garbage in the input) and were written as the largest"* ]]
	jq -e '.traceEvents | map(select(.ph == "X")) | length == 2' "$T/out/trace.json"
	# the same with the trace on standard output
	run --separate-stderr timeline-emit -q "$T/big.jsonl"
	[ "$status" -eq 1 ]
	[[ $stderr == *"times did not fit in microseconds"* ]]
	# ticks that fit: nothing said, status 0
	records 1000 2000 >"$T/small.jsonl"
	run --separate-stderr timeline-emit -q -o "$T/out2" "$T/small.jsonl"
	[ "$status" -eq 0 ]
	[[ $stderr != *"did not fit"* ]]
}

@test "ticks: trace-clean over records says so too, status 1" {
	records 1000 100000000000000000 >"$T/big.jsonl"
	run --separate-stderr trace-clean -q -o "$T/out" "$T/big.jsonl"
	[ "$status" -eq 1 ] || { echo "status $status: $stderr" >&2; return 1; }
	[[ $stderr == "trace-clean: "[1-9]*" times did not fit in microseconds"* ]]
	[ -s "$T/out/trace.clean.json" ]
	records 1000 2000 >"$T/small.jsonl"
	run --separate-stderr trace-clean -q -o "$T/out2" "$T/small.jsonl"
	[ "$status" -eq 0 ]
}
