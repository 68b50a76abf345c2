#!/usr/bin/env bats
# Sizes read from inputs are checked before anything is allocated or
# written: a --config tensor past the cap of optrace-capture(5) (The
# --config kernel description) is refused with one line naming the file and
# the tensor, exit status 2, and nothing is left under -o.

bats_require_minimum_version 1.5.0

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	[ -f "$ops/config/add_custom.json" ] || skip "the sample --config case is not built (build/ops)"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	export ASCEND_HOME_PATH=$cann
	T=$BATS_TEST_TMPDIR
}

# big JQ-FILTER: the sample description changed by the filter, in $T/big.json
big() {
	jq "$1" "$ops/config/add_custom.json" >"$T/big.json"
}

refused() { # what the one line says after the file name
	run --separate-stderr sim-capture -q -o "$T/out" --config="$T/big.json"
	[ "$status" -eq 2 ] || { echo "status $status: $stderr" >&2; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "want one line: $stderr" >&2; return 1; }
	[ "$stderr" = "sim-capture: $T/big.json: $1" ] || { echo "message: $stderr" >&2; return 1; }
	[ -z "$(ls -A "$T/out" 2>/dev/null)" ] || { echo "left under -o:" >&2; find "$T/out" >&2; return 1; }
	[ -z "$(find "$ops/config" -newer "$T/big.json" -name '*.bin')" ] || { echo "an output was written" >&2; return 1; }
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
