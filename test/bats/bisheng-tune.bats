#!/usr/bin/env bats
# The compiler's dfx_region instrumentation of the stand-in CANN tree
# (build/cann/compiler/ccec_compiler/bin/bisheng-tune, test/camodel/README
# section 12): the kernel chosen by name or tiling key, the region map's
# pcs at the intrinsics' own source lines, missing kernels, a pipe out of
# dfx ids, a kernel of 5,000 regions, and a full board-flow InstrTimeline
# run of the SIMT and vector samples.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	tune=$cann/compiler/ccec_compiler/bin/bisheng-tune
	[ -x "$tune" ] || skip "bisheng-tune is not built (build/cann)"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	unset CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_TIMELINE_PIPES CAMODEL_DEVICE_TIMELINE_BODY CAMODEL_DEVICE_TIMELINE_DROP
	unset CAMODEL_DEVICE_DFX_MAP OPTRACE_DFX_TUNE OPTRACE_DFX_PIPES
	export ASCEND_HOME_PATH=$cann
	cd "$BATS_TEST_TMPDIR"
}

# kc NAME: compile NAME.c as the stand-in's kernels are built
kc() {
	cc -std=c11 -g -O0 -fPIC -shared -fno-optimize-sibling-calls -I"$top/test/camodel/include" -o "$1.o" "$1.c"
}

# The source line of a map line's pc, without the file.
line_of() {
	addr2line -e "$1" "$2" | sed 's/ (discriminator [0-9]*)$//; s/.*://'
}

@test "bisheng-tune --kernel-name: each region's pc is its intrinsic's call, on the intrinsic's own line" {
	command -v addr2line >/dev/null || skip "no addr2line"
	run "$tune" --action=instru-dfx --kernel-name=mixed_custom -o . "$ops/kernels/mixed_custom.o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f dfx_region_map.txt ] && [ -f dfx_tune.log ]
	# Every compute and transfer intrinsic of the kernel and its helpers,
	# none of the scalar or synchronisation ones.
	src=$top/test/ops/mixed/mixed_custom.c
	want=$(grep -cE 'COPY_GM_TO_L1|COPY_GM_TO_UB|COPY_UB_TO_GM|LOAD_L1_TO_L0[AB]|MMAD|FIXPIPE_L0C_TO_GM|VBIN|VUNA|VREDUCE_ADD|SIMT_OP' "$src")
	[ "$(wc -l <dfx_region_map.txt)" -eq "$want" ]
	declare -A macro=([copy_gm_to_ubuf]=COPY_GM_TO_UB [copy_gm_to_cbuf]=COPY_GM_TO_L1 [copy_ubuf_to_gm]=COPY_UB_TO_GM
		[load_cbuf_to_ca]=LOAD_L1_TO_L0A [load_cbuf_to_cb]=LOAD_L1_TO_L0B [mmad]=MMAD
		[fix_matrix_cc_to_gm]=FIXPIPE_L0C_TO_GM [vbinary]=VBIN [vunary]=VUNA)
	while IFS=, read -r id pipe kind pc op; do
		n=$(line_of "$ops/kernels/mixed_custom.o" "${pc#pc=}")
		echo "$id $pipe $pc $op -> line $n: $(sed -n "${n}p" "$src")"
		sed -n "${n}p" "$src" | grep -q "${macro[${op#opcode=}]}("
	done <dfx_region_map.txt
	# ids per pipe from 0x600 in program order
	[ "$(grep -c '^region_id=1536,' dfx_region_map.txt)" -eq "$(cut -d, -f2 dfx_region_map.txt | sort -u | wc -l)" ]
	grep -q '^\[INFO\] TUNE-INFO: dfx region instrumentation of mixed_custom' dfx_tune.log
	! grep -q 'TUNE-ERROR' dfx_tune.log
	# Only the pipes asked for; simt is the SIMT half of the vector pipe.
	run "$tune" --action=instru-dfx --dfx-pipe='mte2|cube' -o . "$ops/kernels/mixed_custom.o"
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f2 dfx_region_map.txt | sort -u | paste -sd' ')" = "pipe=cube pipe=mte2" ]
	run "$tune" --action=instru-dfx --dfx-pipe=simt -o . "$ops/kernels/simt_custom.o"
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f3 dfx_region_map.txt | sort -u)" = "kind=simt" ]
	[ "$(wc -l <dfx_region_map.txt)" -eq "$(grep -c 'SIMT_OP(' "$top/test/ops/simt/simt_custom.c")" ]
}

@test "bisheng-tune --tiling-key: only the kernel NAME_KEY; a missing kernel or key is exit 3, nothing written" {
	cat >k.c <<'EOF'
#include "camodel_kernel.h"
KERNEL_ENTRY void op_1(GM_ADDR x) { COPY_GM_TO_UB(0, x, 1, 1); COPY_UB_TO_GM(x, 0, 1, 1); }
KERNEL_ENTRY void op_2(GM_ADDR x) { COPY_GM_TO_UB(0, x, 1, 1); VBIN(V_ADD, 0, 0, 0, 1, DT_F32); S_MOVI(3); }
KERNEL_ENTRY void op_12_mix_aiv(GM_ADDR x) { MMAD(0, 0, 0, 16, 16, 16, 0); }
EOF
	kc k
	run "$tune" --action=instru-dfx --tiling-key=2 -o . k.o
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f2,5 dfx_region_map.txt | paste -sd' ')" = "pipe=mte2,opcode=copy_gm_to_ubuf pipe=vector,opcode=vbinary" ]
	run "$tune" --action=instru-dfx --tiling-key=12 -o . k.o
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f2,5 dfx_region_map.txt)" = "pipe=cube,opcode=mmad" ]
	run "$tune" --action=instru-dfx --kernel-name=op_1 -o . k.o
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f2 dfx_region_map.txt | paste -sd' ')" = "pipe=mte2 pipe=mte3" ]
	mkdir none
	run "$tune" --action=instru-dfx --kernel-name=op_3 -o none k.o
	[ "$status" -eq 3 ]
	[ "$output" = "bisheng-tune: k.o: no kernel named op_3" ]
	run "$tune" --action=instru-dfx --tiling-key=7 -o none k.o
	[ "$status" -eq 3 ]
	grep -q "k.o: no kernel for tiling key 7" <<<"$output"
	[ -z "$(ls -A none)" ]
	# a binary of one kernel: a tiling key runs that one, as the runtime does
	run "$tune" --action=instru-dfx --tiling-key=1 -o . "$ops/kernels/add_custom.o"
	[ "$status" -eq 0 ]
	grep -q 'instrumentation of add_custom ' dfx_tune.log
	[ "$(wc -l <dfx_region_map.txt)" -eq 4 ]
	# three kernels: one must be named
	run "$tune" --action=instru-dfx -o none k.o
	[ "$status" -eq 2 ]
	run "$tune" --action=instru-dfx --tiling-key=x -o none k.o
	[ "$status" -eq 2 ]
	run "$tune" --action=instru-dfx --dfx-pipe=scalar -o none k.o
	[ "$status" -eq 2 ]
	printf 'not an ELF' >bad.o
	run "$tune" --action=instru-dfx -o none bad.o
	[ "$status" -eq 3 ]
	grep -q "bad.o: not a 64-bit little-endian ELF file" <<<"$output"
	[ -z "$(ls -A none)" ]
}

@test "bisheng-tune: a pipe with more than 1024 instructions runs out of dfx ids: TUNE-ERROR, exit 1" {
	{
		echo '#include "camodel_kernel.h"'
		echo 'KERNEL_ENTRY void big(GM_ADDR x) {'
		for i in $(seq 1100); do echo "COPY_GM_TO_UB(0, x, 1, 1);"; done
		echo 'COPY_UB_TO_GM(x, 0, 1, 1); }'
	} >big.c
	kc big
	run "$tune" --action=instru-dfx -o . big.o
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "pipe mte2 has 1100 instructions, 1024 dfx ids: 76 left unmarked" <<<"$output"
	[ "$(grep -c 'pipe=mte2' dfx_region_map.txt)" -eq 1024 ]
	[ "$(grep -c 'pipe=mte3' dfx_region_map.txt)" -eq 1 ]
	grep -qx '\[ERROR\] TUNE-ERROR: all dfx ids consumed\[pipe=mte2\]' dfx_tune.log
	[ "$(grep -c TUNE-ERROR dfx_tune.log)" -eq 1 ]
	# ids 0x600..0x7ff, then 0xe00..0xfff: bits 9 and 10 set, none twice
	[ "$(grep 'pipe=mte2' dfx_region_map.txt | cut -d, -f1 | sort -u | wc -l)" -eq 1024 ]
	[ "$(sed -n 's/^region_id=\([0-9]*\),pipe=mte2.*/\1/p' dfx_region_map.txt | awk '$1 < 1536 || ($1 > 2047 && $1 < 3584) || $1 > 4095' | wc -l)" -eq 0 ]
}

@test "bisheng-tune: a kernel of 5,000 regions over six pipes, every pc distinct" {
	{
		echo '#include "camodel_kernel.h"'
		echo 'KERNEL_ENTRY void k5(GM_ADDR x) {'
		for i in $(seq 850); do
			echo "COPY_GM_TO_UB(0, x, 1, 1); COPY_UB_TO_GM(x, 0, 1, 1); LOAD_L1_TO_L0A(0, 0, 1);"
			echo "MMAD(0, 0, 0, 16, 16, 16, 0); FIXPIPE_L0C_TO_GM(x, 0, 16, 16); S_MOVI(1);"
		done
		for i in $(seq 750); do echo "VBIN(V_ADD, 0, 0, 0, 1, DT_F32); SET_FLAG(PIPE_V, PIPE_MTE3, 0);"; done
		echo '}'
	} >k5.c
	kc k5
	run "$tune" --action=instru-dfx -o . k5.o
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(wc -l <dfx_region_map.txt)" -eq 5000 ]
	[ "$(cut -d, -f4 dfx_region_map.txt | sort -u | wc -l)" -eq 5000 ]
	[ "$(cut -d, -f2 dfx_region_map.txt | sort | uniq -c | awk '{ print $1 }' | sort -n | paste -sd' ')" = "750 850 850 850 850 850" ]
	# (pipe, id) pairs are unique
	[ "$(cut -d, -f1,2 dfx_region_map.txt | sort -u | wc -l)" -eq 5000 ]
	! grep -q TUNE-ERROR dfx_tune.log
}

# The flow: board-flow instruments the captured kernel (sim-capture runs
# bisheng-tune), the device stamps the map's regions, trace.json has the
# kernel's pcs and their source lines.
flow() {
	local sample=$1 src=$2
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	command -v addr2line >/dev/null || skip "no addr2line"
	run board-flow -q -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline -- "$ops/bin/op_acl" -s "$sample"
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/trace.json" ] && [ -f "$l/dump/dfx_region_map.txt" ] && [ -f "$l/dump/dfx_tune.log" ]
	start=$(cat "$l/dump/pc_start_addr.txt")
	jq -r '[.traceEvents[] | select(.ph == "X" and .args.pc_addr) | "\(.args.pc_addr) \(.tid) \(.args.code)"] | unique | .[]' \
		"$l/trace.json" >pcs
	cat pcs
	# every region of the map ran and was drawn, at its own pc
	[ "$(wc -l <pcs)" -eq "$(wc -l <"$l/dump/dfx_region_map.txt")" ]
	while read -r pc tid code; do
		off=$(printf '0x%x' $((pc - start)))
		grep -q ",pipe=${tid,,},.*,pc=$off," "$l/dump/dfx_region_map.txt"
		[[ "$code" =~ /test/ops/$src:[1-9][0-9]*$ ]]
		[ "${code##*:}" = "$(line_of "$l/dump/aicore_binary.o" "$off")" ]
	done <pcs
}

@test "board-flow InstrTimeline: the vector sample's trace.json at the kernel's pcs, with source lines" {
	flow add vadd/add_custom.c
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .tid] | unique | join(" ")' "$l/trace.json")" = "MTE2 MTE3 VECTOR" ]
}

@test "board-flow InstrTimeline: the SIMT sample's SIMT instructions on the vector pipe, with source lines" {
	flow simt simt/simt_custom.c
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "simt_vf")] | length' "$l/trace.json")" -gt 0 ]
	# the warps join the same trace
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.pid | startswith("warp.")))] | length' "$l/trace.json")" -gt 0 ]
}

@test "board-flow InstrTimeline: a launch by handle and tiling key (rtKernelLaunchWithHandleV2) is instrumented too" {
	[ -x "$ops/bin/op_rt" ] || skip "op_rt is not built"
	# op_rt links the simulator's runtime library: found there, run on the device
	LD_LIBRARY_PATH=$cann/tools/simulator/dav_3510/lib run board-flow -q -o out --soc-version=Ascend950PR_9599 \
		--aic-metrics=InstrTimeline --pipe='cube|mte1' -- "$ops/bin/op_rt" -s mixed -m handle
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ "$(jq -r '[.traceEvents[] | select(.ph == "X") | .name] | unique | join(" ")' "$l/trace.json")" = \
		"load_cbuf_to_ca load_cbuf_to_cb mmad" ]
	[ "$(jq '[.traceEvents[] | select(.ph == "X" and (.args.code | test("mixed_custom\\.c:[0-9]+$") | not))] | length' "$l/trace.json")" -eq 0 ]
}

@test "sim-capture: --instr-timeline-pipe only with InstrTimeline and known pipes; not with PipeTimeline" {
	run sim-capture --device -o out --soc-version=Ascend950PR_9599 --instr-timeline-pipe=cube -- true
	[ "$status" -eq 2 ]
	grep -q "only works with --aic-metrics=InstrTimeline" <<<"$output"
	run sim-capture --device -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline --pipe='cube|scalar' -- true
	[ "$status" -eq 2 ]
	grep -q "pipes are cube fixp vector mte1 mte2 mte3" <<<"$output"
	run sim-capture --device -o out --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline,PipeTimeline -- true
	[ "$status" -eq 2 ]
	grep -q "cannot be specified together" <<<"$output"
	run sim-capture --device -o out --soc-version=Ascend910B1 --aic-metrics=InstrTimeline -- true
	[ "$status" -eq 2 ]
	grep -q "InstrTimeline: not supported on this chip (Ascend910B1)" <<<"$output"
	[ ! -e out ] || [ -z "$(ls -A out)" ]
}

@test "sim-capture: a failed instrumentation leaves the launch without the timeline, said" {
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
	# a CANN root whose bisheng-tune always fails
	mkdir -p root/compiler/ccec_compiler/bin
	for f in lib64 tools include set_env.sh; do ln -s "$cann/$f" "root/$f"; done
	printf '#!/bin/sh\necho "bisheng-tune: broken" >&2\nexit 3\n' >root/compiler/ccec_compiler/bin/bisheng-tune
	chmod +x root/compiler/ccec_compiler/bin/bisheng-tune
	run sim-capture --device -o out --cann-root=root --soc-version=Ascend950PR_9599 --aic-metrics=InstrTimeline \
		-- "$ops/bin/op_acl" -s add
	echo "$output"
	grep -q "bisheng-tune: broken" <<<"$output"
	grep -q "the instrumentation of add_custom failed (above): no instruction timeline" <<<"$output"
	l=$(ls -d out/OPPROF_*/device0/*/0)
	[ -f "$l/dump/DeviceProf1.bin" ] && [ ! -e "$l/dump/dfx_region_map.txt" ] && [ ! -e "$l/dump/timeline.bin" ]
}
