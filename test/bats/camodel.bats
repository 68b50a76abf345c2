#!/usr/bin/env bats
# The stand-in simulator (test/camodel): its CANN-shaped tree, the SoC
# choice, rotation, callback mode, the MTE log switch, faults.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	cann=$top/build/cann
	ops=$top/build/ops
	[ -x "$ops/bin/op_rt" ] || skip "the stand-in is not built (make camodel)"
	[ "${OPTRACE_VARIANT:-build}" = build ] || skip "the stand-in is the same in every variant"
	t=$BATS_TEST_TMPDIR
}

sample() {
	local soc=$1 dir=$2
	shift 2
	LD_LIBRARY_PATH=$cann/tools/simulator/$soc/lib:$cann/lib64 CAMODEL_LOG_PATH=$dir "$@"
}

@test "the tree: a runtime per SoC with CANN's rt* and Dvc* symbols, ACL in lib64" {
	for soc in Ascend910B1 Ascend910B4 Ascend910_9391 Ascend310P1 dav_3510; do
		lib=$cann/tools/simulator/$soc/lib/libruntime_camodel.so
		[ -f "$lib" ] && [ -f "$cann/tools/simulator/$soc/lib/libpem_davinci.so" ]
		nm -D --defined-only "$lib" | awk '{print $3}' > "$t/syms"
		for s in rtSetDevice rtGetDevice rtGetSocVersion rtMalloc rtFree rtMallocHost rtMemcpy rtMemset \
		         rtStreamCreate rtStreamSynchronize rtDevBinaryRegister rtRegisterAllKernel rtFunctionRegister \
		         rtKernelLaunch rtKernelLaunchWithFlagV2 rtKernelLaunchWithHandleV2 rtKernelGetAddrAndPrefCnt \
		         DvcSetLogLevel DvcAttachLogCallback; do
			grep -qx "$s" "$t/syms" || { echo "$soc: no $s"; false; }
		done
		# internal functions stay hidden
		! grep -q '^sim_launch$\|^logw_' "$t/syms"
	done
	nm -D --defined-only "$cann/lib64/libascendcl.so" | grep -q ' aclrtLaunchKernelWithConfig$'
	nm -D --defined-only "$cann/lib64/libacl_rt_impl.so" | grep -q ' aclrtLaunchKernelWithConfigImpl$'
	[ -f "$cann/include/runtime/rt.h" ] && [ -f "$cann/include/acl/acl.h" ] && [ -f "$cann/include/dvc_log.h" ]
	grep -q "ASCEND_HOME_PATH=$cann" "$cann/set_env.sh" || grep -q "ASCEND_HOME_PATH=$(cd "$cann" && pwd -P)" "$cann/set_env.sh"
	# libpem_davinci.so hands out the log functions of the runtime
	python3 -c 'import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); l.DvcSetLogLevel; l.DvcAttachLogCallback' \
		"$cann/tools/simulator/Ascend910B1/lib/libpem_davinci.so"
}

@test "the SoC: from the library's directory, overridden by CAMODEL_SOC_VERSION" {
	sample Ascend310P1 "$t/p" "$ops/bin/op_rt"
	[ -f "$t/p/core0.instr_log.dump" ] && [ ! -e "$t/p/core0.veccore0.instr_log.dump" ]
	CAMODEL_SOC_VERSION=Ascend950PR_9599 sample Ascend310P1 "$t/x" "$ops/bin/op_rt"
	grep -q '(ID: 000001)' "$t/x/core0.veccore0.instr_log.dump"
	# lib64's copy (what ACL programs use) follows LD_LIBRARY_PATH
	LD_LIBRARY_PATH=$cann/tools/simulator/dav_3510/lib:$cann/lib64 CAMODEL_LOG_PATH=$t/a \
		"$ops/bin/op_acl" -m launch
	[ -f "$t/a/core0.veccore0.icache_log.dump" ]
}

@test "rotation: parts stay under the limit, oldest-first they make the unrotated log" {
	sample Ascend910B1 "$t/one" "$ops/bin/op_rt" -n 20
	CAMODEL_LOG_FILE_SIZE=64k sample Ascend910B1 "$t/rot" "$ops/bin/op_rt" -n 20
	[ -f "$t/rot/core0.veccore0.instr_log.1.dump" ] && [ -f "$t/rot/core0.veccore0.instr_log.2.dump" ]
	for f in "$t"/rot/*; do [ "$(stat -c %s "$f")" -le 65536 ]; done
	for log in instr_log instr_popped_log ifu.icache_log ccu_log; do
		b=$t/rot/core0.veccore1.$log
		k=1
		while [ -f "$b.$k.dump" ]; do k=$((k + 1)); done
		: > "$t/cat"
		while [ $((k -= 1)) -ge 1 ]; do cat "$b.$k.dump" >> "$t/cat"; done
		cat "$b.dump" >> "$t/cat"
		cmp "$t/cat" "$t/one/core0.veccore1.$log.dump"
	done
	command -v instr-parse >/dev/null || skip "instr-parse is not built"
	dump-split "$t/rot" | instr-parse --json | jq -e 'select(.kind == "trailer") | .bad == 0 and .dropped == 0'
}

@test "callback mode: the entries equal the dump lines, and no file is written" {
	[ -f "$top/build/camodel/cbcollect.so" ] || skip "build/camodel/cbcollect.so is not built"
	cfg=$t/cfg
	mkdir -p "$cfg" "$t/cb"
	sed 's/"ccu_log"\]/"ccu_log", "mte_log"]/' "$cann/tools/simulator/Ascend910B1/lib/pem_config_cloud.toml" > "$cfg/pem_config_cloud.toml"
	CAMODEL_CONFIG_PATH=$cfg sample Ascend910B1 "$t/files" "$ops/bin/op_rt" -s mixed
	CAMODEL_CONFIG_PATH=$cfg CBCOLLECT_DIR=$t/cb LD_PRELOAD=$top/build/camodel/cbcollect.so \
		sample Ascend910B1 "$t/none" "$ops/bin/op_rt" -s mixed
	[ -z "$(ls -A "$t/none" 2>/dev/null)" ]
	n=0
	for f in "$t"/files/*; do
		b=$(basename "$f")
		case $b in
		*mte_log*) cmp <(sort "$f") <(sort "$t/cb/$b") ;;   # per sub-core order, not merged
		*) cmp "$f" "$t/cb/$b" ;;
		esac
		n=$((n + 1))
	done
	[ "$n" -eq 26 ]
	# a log with a callback attached goes to the callback only, even with
	# file logging on
	mkdir "$t/cb2"
	CAMODEL_CONFIG_PATH=$cfg CBCOLLECT_KEEP_LEVEL=1 CBCOLLECT_DIR=$t/cb2 LD_PRELOAD=$top/build/camodel/cbcollect.so \
		sample Ascend910B1 "$t/none2" "$ops/bin/op_rt" -s mixed
	[ -z "$(ls -A "$t/none2" 2>/dev/null)" ]
	cmp "$t/cb/core1.veccore1.instr_log.dump" "$t/cb2/core1.veccore1.instr_log.dump"
}

@test "the MTE log: only when the config asks for it; mte-parse charts it" {
	sample Ascend910B1 "$t/off" "$ops/bin/op_rt"
	[ ! -e "$t/off/core0.mte_log.dump" ]
	mkdir "$t/cfg"
	sed 's/"ccu_log"\]/"ccu_log", "mte_log"]/' "$cann/tools/simulator/Ascend910B1/lib/pem_config_cloud.toml" > "$t/cfg/pem_config_cloud.toml"
	CAMODEL_CONFIG_PATH=$t/cfg sample Ascend910B1 "$t/on" "$ops/bin/op_rt"
	[ -s "$t/on/core0.mte_log.dump" ]
	# merged over the core's two vector sub-cores, in tick order
	sed 's/^\[info\] \([0-9]*\):.*/\1/' "$t/on/core0.mte_log.dump" | sort -c -n
	command -v mte-parse >/dev/null || skip "mte-parse is not built"
	dump-split --log=mte "$t/on" | mte-parse --json > "$t/bw.json"
	jq -e -s '[.[] | select(.kind == "trailer")][0] | .bad == 0' "$t/bw.json"
	grep -q 'GM_TO_UB' "$t/bw.json"
}

@test "two launches in one process append to the same files" {
	sample Ascend910B1 "$t/one" "$ops/bin/op_rt"
	sample Ascend910B1 "$t/two" "$ops/bin/op_rt" -r 2
	[ "$(wc -l < "$t/two/core0.veccore0.instr_log.dump")" -eq $((2 * $(wc -l < "$t/one/core0.veccore0.instr_log.dump"))) ]
	# files of an earlier run are replaced, not appended to
	sample Ascend910B1 "$t/two" "$ops/bin/op_rt"
	cmp "$t/one/core0.veccore0.instr_log.dump" "$t/two/core0.veccore0.instr_log.dump"
}

@test "a faulting kernel: the stream reports 507015 and says why" {
	cat > "$t/bad.c" <<'EOF'
#include "camodel_kernel.h"
KERNEL_ENTRY void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR t)
{
	(void)y; (void)z; (void)t;
	COPY_GM_TO_UB(0, x + 0x40000000, 1, 8);
}
EOF
	cc -std=c11 -g -O0 -fPIC -shared -I"$cann/include" -o "$t/bad.o" "$t/bad.c"
	run sample Ascend910B1 "$t/d" "$ops/bin/op_rt" -k "$t/bad.o"
	[ "$status" -eq 1 ]
	[[ $output == *"aicore exception: GM access outside any allocation"* ]]
	[[ $output == *"rtStreamSynchronize(stream) failed: 507015"* ]]
	# a kernel whose last intrinsic became a tail call: no PC in the image
	cat > "$t/tail.c" <<'EOF2'
#include "camodel_kernel.h"
KERNEL_ENTRY void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR t)
{
	(void)x; (void)y; (void)z; (void)t;
	PIPE_BARRIER(PIPE_ALL);
}
EOF2
	cc -std=c11 -g -O2 -foptimize-sibling-calls -fPIC -shared -I"$cann/include" -o "$t/tail.o" "$t/tail.c"
	if objdump -d "$t/tail.o" | grep -A6 '<add_custom>:' | grep -q 'jmp  *\*'; then
		run sample Ascend910B1 "$t/d" "$ops/bin/op_rt" -k "$t/tail.o"
		[ "$status" -eq 1 ]
		[[ $output == *"outside the kernel image"*"-fno-optimize-sibling-calls"* ]]
	fi
	# not an ELF: registration fails cleanly
	echo junk > "$t/junk.o"
	run sample Ascend910B1 "$t/d" "$ops/bin/op_rt" -k "$t/junk.o"
	[ "$status" -eq 1 ]
	[[ $output == *"rtDevBinaryRegister"*"107000"* ]]
}

@test "popped lines show a destination register at issue, executed lines the result" {
	sample Ascend910B1 "$t/d" "$ops/bin/op_rt" -n 2
	# block 1: base 0x8000; the second tile's address is 0x8000 + 0x2000
	grep 'ADD_IMM' "$t/d/core0.veccore1.instr_popped_log.dump" | sed -n 2p > "$t/pop"
	grep 'ADD_IMM' "$t/d/core0.veccore1.instr_log.dump" | sed -n 2p > "$t/exe"
	grep -q 'XD:X[0-9]*=0x8000, XN' "$t/pop"   # the first tile's, still in the register
	grep -q 'XD:X[0-9]*=0xa000, XN' "$t/exe"
	command -v instr-parse >/dev/null || skip "instr-parse is not built"
	dump-split "$t/d" | instr-parse --json |
		jq -e -s '[.[] | select(.kind == "instr" and .name == "ADD_IMM" and .core == 0 and .subidx == 1)][1].detail | test("XD:X[0-9]+=0x8000,")'
}
