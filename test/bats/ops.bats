#!/usr/bin/env bats
# The sample operators (test/ops) on the stand-in simulator (test/camodel):
# each sample and launch path runs, computes the right result, and leaves
# dumps that dump-split | instr-parse read completely.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	cann=$top/build/cann
	ops=$top/build/ops
	[ -x "$ops/bin/op_rt" ] || skip "the samples are not built (make camodel)"
	command -v instr-parse >/dev/null || skip "instr-parse is not built"
	t=$BATS_TEST_TMPDIR
}

socname() {
	case $1 in dav_3510) echo Ascend950PR_9599 ;; *) echo "$1" ;; esac
}

# sample SOC DIR PROGRAM ARGS...: run a host program against SOC's simulator
sample() {
	local soc=$1 dir=$2
	shift 2
	LD_LIBRARY_PATH=$cann/tools/simulator/$soc/lib:$cann/lib64 CAMODEL_LOG_PATH=$dir "$@"
}

# parse SOC DIR: the dump as JSON records
parse() {
	dump-split --soc-version="$(socname "$1")" "$2" | instr-parse --json
}

# complete SOC DIR: zero unparsed lines, every instruction paired
complete() {
	parse "$1" "$2" > "$t/p.json" 2> "$t/p.err"
	jq -e -s 'map(select(.kind == "trailer"))[0] | .bad == 0 and .dropped == 0' "$t/p.json" >/dev/null || {
		cat "$t/p.err"
		return 1
	}
	! grep -q '"kind":"diag"' "$t/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$t/p.json" | wc -l)" -gt 0 ]
}

@test "every sample on every SoC family: right results, complete dumps" {
	for soc in Ascend910B1 Ascend910B4 Ascend910_9391 Ascend310P1 dav_3510; do
		for s in add add_trace matmul mixed count simt; do
			[ $s = simt ] && [ $soc != dav_3510 ] && continue
			run sample $soc "$t/$soc.$s" "$ops/bin/op_rt" -s $s
			[ "$status" -eq 0 ] || { echo "$soc $s: $output"; false; }
			complete $soc "$t/$soc.$s" || { echo "$soc $s incomplete"; false; }
		done
	done
}

@test "dump files per core carry each family's names" {
	sample Ascend910B1 "$t/a2" "$ops/bin/op_rt" -s mixed
	for c in 0 1; do
		for sub in cubecore0 veccore0 veccore1; do
			for k in instr_log instr_popped_log ifu.icache_log ccu_log; do
				[ -s "$t/a2/core$c.$sub.$k.dump" ] || { echo "missing core$c.$sub.$k.dump"; false; }
			done
		done
	done
	sample Ascend310P1 "$t/p" "$ops/bin/op_rt" -s add
	[ -s "$t/p/core0.instr_log.dump" ] && [ -s "$t/p/core1.instr_popped_log.dump" ] && [ -s "$t/p/core0.icache_log.dump" ]
	grep -q ', instr ID is: 1. pop success 1$' "$t/p/core0.instr_popped_log.dump"
	sample dav_3510 "$t/a5" "$ops/bin/op_rt" -s add
	[ -s "$t/a5/core0.veccore0.icache_log.dump" ] && [ -s "$t/a5/core0.veccore1.instr_log.dump" ]
	grep -q '(ID: 000001) ' "$t/a5/core0.veccore0.instr_log.dump"
	[ ! -e "$t/a5/core0.veccore0.ccu_log.dump" ]
}

@test "the same kernel through rt* and through aclrtLaunchKernel leaves identical dumps" {
	sample Ascend910B1 "$t/rt" "$ops/bin/op_rt" -s add
	sample Ascend910B1 "$t/acl" "$ops/bin/op_acl" -s add -m launch
	diff -r "$t/rt" "$t/acl"
}

@test "every launch path: rt* (3 APIs), aclrt* (3 APIs), Python ctypes, kernel-launcher" {
	for m in launch flag handle; do
		run sample Ascend910B1 "$t/rt.$m" "$ops/bin/op_rt" -s matmul -m $m
		[ "$status" -eq 0 ] && complete Ascend910B1 "$t/rt.$m"
	done
	for m in config hostargs launch; do
		run sample Ascend910B1 "$t/acl.$m" "$ops/bin/op_acl" -s mixed -m $m
		[ "$status" -eq 0 ] && complete Ascend910B1 "$t/acl.$m"
	done
	command -v python3 >/dev/null || skip "no python3"
	run sample Ascend910B1 "$t/py" python3 "$ops/bin/add_acl.py" -b 4
	[ "$status" -eq 0 ]
	[[ $output == *"32768 elements on 4 blocks"*ok* ]]
	complete Ascend910B1 "$t/py"
	[ -s "$t/py/core1.veccore1.instr_log.dump" ]
}

@test "kernel-launcher runs a --config case and a kernel_config.bin, outputs right" {
	cfg=$ops/config
	[ -f "$cfg/add_custom.json" ] || skip "no --config case"
	jq '.output_data_path = "'"$t"'/res"' "$cfg/add_custom.json" > "$t/case.json"
	run sample Ascend910B1 "$t/c1" "$cann/tools/msopt/bin/kernel-launcher" --config="$t/case.json"
	[ "$status" -eq 0 ]
	complete Ascend910B1 "$t/c1"
	python3 - "$cfg" "$t/res/Test_AddCustom_001/z.bin" <<'EOF'
import struct, sys
d = sys.argv[1]
x = open(d + "/input_x.bin", "rb").read(); y = open(d + "/input_y.bin", "rb").read(); z = open(sys.argv[2], "rb").read()
n = len(x) // 4
X, Y, Z = (struct.unpack("<%df" % n, b) for b in (x, y, z))
sys.exit(1 if any(X[i] + Y[i] != Z[i] for i in range(n)) else 0)
EOF
	printf '{"bin_path":"%s","block_dim":"2","device_id":"0","ffts":"N","input_path":"%s;%s","input_size":"65536;65536","kernel_name":"add_custom","magic":"RT_DEV_BINARY_MAGIC_ELF_AIVEC","output_name":"z","output_size":"65536","output_dir":"%s","tiling_data_path":"%s;8","tiling_key":"1"}' \
		"$ops/kernels/add_custom.o" "$cfg/input_x.bin" "$cfg/input_y.bin" "$t/kc" "$cfg/tiling.bin" > "$t/kernel_config.bin"
	run sample Ascend910B1 "$t/c2" "$cann/tools/msopt/bin/kernel-launcher" -c "$t/kernel_config.bin"
	[ "$status" -eq 0 ]
	cmp "$t/kc/z.bin" "$t/res/Test_AddCustom_001/z.bin"
	complete Ascend910B1 "$t/c2"
	# a broken config: exit 1 and a message naming the key
	echo '{"bin_path":"x"}' > "$t/bad.bin"
	run sample Ascend910B1 "$t/c3" "$cann/tools/msopt/bin/kernel-launcher" -c "$t/bad.bin"
	[ "$status" -eq 1 ]
	[[ $output == *"kernel_name"* ]]
}

@test "PCs resolve with addr2line to the kernel's source lines" {
	command -v addr2line >/dev/null || skip "no addr2line"
	sample Ascend910B1 "$t/d" "$ops/bin/op_rt" -s add
	parse Ascend910B1 "$t/d" | jq -r 'select(.kind == "instr") | [.pc, .name] | @tsv' | sort -u > "$t/pcs"
	[ "$(wc -l < "$t/pcs")" -gt 10 ]
	# the binary is registered first: pc_start = 0x11000000
	while IFS=$'\t' read -r pc name; do
		off=$(printf '0x%x' $((pc - 0x11000000)))
		loc=$(addr2line -e "$ops/kernels/add_custom.o" "$off")
		[[ $loc == */test/ops/vadd/add_custom.c:* ]] || { echo "$pc $name -> $loc"; false; }
		line=${loc##*:}
		line=${line%% *}
		src=$(sed -n "${line}p" "$top/test/ops/vadd/add_custom.c")
		case $name in
		VADD) [[ $src == *"VBIN(V_ADD"* ]] ;;
		MOV_OUT_TO_UB) [[ $src == *COPY_GM_TO_UB* ]] ;;
		MOV_UB_TO_OUT) [[ $src == *COPY_UB_TO_GM* ]] ;;
		SET_FLAG) [[ $src == *SET_FLAG* ]] ;;
		WAIT_FLAG) [[ $src == *WAIT_FLAG* ]] ;;
		MOV_XD_SPR) [[ $src == *GetBlockIdx* ]] ;;
		esac || { echo "$name at $loc: $src"; false; }
	done < "$t/pcs"
}

@test "calculators get meaningful numbers: process bytes, vector utilisation, bank conflicts" {
	sample Ascend910B1 "$t/m" "$ops/bin/op_rt" -s matmul
	parse Ascend910B1 "$t/m" > "$t/m.json"
	jq -e -s '[.[] | select(.kind == "instr" and (.name == "MOV_OUT_TO_L1" or .name == "LOAD_2D" or .name == "FIX_L0C_TO_DST")) | .bytes] | length > 0 and all(. == 16384)' "$t/m.json"
	sample Ascend910B1 "$t/a" "$ops/bin/op_rt" -s add
	parse Ascend910B1 "$t/a" > "$t/a.json"
	# VADD: 32 repeats of 64 float32 lanes -> 32*256/65280 = 12.55 %; x and y 16 KiB apart share banks
	jq -e -s '[.[] | select(.kind == "instr" and .name == "VADD")] | length > 0 and all(.vec_util > 12.5 and .vec_util < 12.6 and .ub_read == 1 and .ub_write == 0)' "$t/a.json"
	jq -e -s '[.[] | select(.kind == "instr" and .name == "MOV_OUT_TO_UB") | .bytes] | all(. == 8192)' "$t/a.json"
}

@test "TRACE_START/STOP marks come out as one mark per core" {
	sample Ascend910B1 "$t/tr" "$ops/bin/op_rt" -s add_trace -n 2
	parse Ascend910B1 "$t/tr" > "$t/tr.json"
	[ "$(jq -c 'select(.kind == "mark" and .name == "Mark 0x1")' "$t/tr.json" | wc -l)" -eq 2 ]
	jq -e -s '[.[] | select(.kind == "mark")] | all(.end > .start)' "$t/tr.json"
	sample Ascend910B1 "$t/no" "$ops/bin/op_rt" -s add
	! parse Ascend910B1 "$t/no" | grep -q '"kind":"mark"'
}

@test "a loop count from an input tensor: zeros give an almost empty trace" {
	sample Ascend910B1 "$t/z" "$ops/bin/op_rt" -s count -z
	complete Ascend910B1 "$t/z"
	n=$(jq -c 'select(.kind == "instr")' "$t/p.json" | wc -l)
	[ "$n" -le 6 ]
	! jq -r 'select(.kind == "instr") | .pipe' "$t/p.json" | grep -qv SCALAR
	sample Ascend910B1 "$t/c3" "$ops/bin/op_rt" -s count -n 3
	complete Ascend910B1 "$t/c3"
	[ "$(jq -c 'select(.kind == "instr" and .name == "VMULS")' "$t/p.json" | wc -l)" -eq 6 ]
}

@test "the loop count scales the dump linearly" {
	for n in 1 2 5; do
		sample Ascend910B1 "$t/n$n" "$ops/bin/op_rt" -s add -n $n
		complete Ascend910B1 "$t/n$n"
		eval c$n=$(jq -c 'select(.kind == "instr")' "$t/p.json" | wc -l)
	done
	[ $((c5 - c1)) -eq $((4 * (c2 - c1))) ]
	[ "$c2" -gt "$c1" ]
}

@test "mixed kernel: cube and vector sub-cores, logical names, cross-core flags" {
	sample Ascend910B1 "$t/x" "$ops/bin/op_rt" -s mixed -b 3
	complete Ascend910B1 "$t/x"
	jq -e -s '[.[] | select(.kind == "instr" and .sub == "veccore") | [.core, .subidx, .block, .subblock]] | unique == [[0,0,0,0],[0,1,0,1],[1,0,1,0],[1,1,1,1],[2,0,2,0],[2,1,2,1]]' "$t/p.json"
	jq -e -s '[.[] | select(.kind == "instr" and .name == "WAIT_CROSS_CORE")] | length == 6' "$t/p.json"
	sample dav_3510 "$t/x5" "$ops/bin/op_rt" -s mixed
	complete dav_3510 "$t/x5"
	grep -q 'SET_INTRA_BLOCK  PIPE:FIXP, sync_id:19, ' "$t/x5/core0.cubecore0.instr_log.dump"
}

@test "SIMT on A5: one instruction per warp with thread counts; other SoCs refuse" {
	sample dav_3510 "$t/s" "$ops/bin/op_rt" -s simt
	complete dav_3510 "$t/s"
	jq -e -s '[.[] | select(.kind == "instr" and .warp >= 0) | .warp] | unique == [0,1,2,3,4,5,6,7]' "$t/p.json"
	jq -e -s '[.[] | select(.kind == "instr" and .name == "SIMT_IADD") | .threads] | unique == [16]' "$t/p.json"
	run sample Ascend910B1 "$t/s2" "$ops/bin/op_rt" -s simt
	[ "$status" -eq 1 ]
	[[ $output == *"SIMT instructions need an A5"* ]]
	[[ $output == *507015* ]]
}

@test "dumps are deterministic: same inputs, byte-identical files" {
	for soc in Ascend910B1 dav_3510; do
		sample $soc "$t/r1" "$ops/bin/op_rt" -s mixed -n 2
		sample $soc "$t/r2" "$ops/bin/op_rt" -s mixed -n 2
		diff -r "$t/r1" "$t/r2"
		rm -rf "$t/r1" "$t/r2"
	done
}

@test "a bad option or sample: usage error" {
	run sample Ascend910B1 "$t/u" "$ops/bin/op_rt" -s nosuch
	[ "$status" -eq 2 ]
	[[ $output == *"unknown sample"* ]]
	run sample Ascend910B1 "$t/u" "$ops/bin/op_acl" -m nosuch
	[ "$status" -eq 2 ]
	[[ $output == *"unknown mode"* ]]
}

@test "icache fetch and CCU issue lines give every instruction its scalar head (A2)" {
	command -v scalar-merge >/dev/null && command -v icache-merge >/dev/null || skip "icache-merge/scalar-merge not built"
	sample Ascend910B1 "$t/h" "$ops/bin/op_rt" -s add -n 3
	dump-split "$t/h" | instr-parse | icache-merge | scalar-merge --json > "$t/h.json"
	jq -e -s '[.[] | select(.kind == "instr" and .pipe != "CACHEMISS")] | length > 100 and
		all(.icache_tick != null and .ccu_tick != null and .icache_tick < .ccu_tick and .ccu_tick <= .start)' "$t/h.json"
	jq -e -s '[.[] | select(.kind == "instr" and .pipe == "CACHEMISS")] | length > 0' "$t/h.json"
	jq -e -s '[.[] | select(.kind == "trailer")] | all(.bad == 0 and .dropped == 0)' "$t/h.json"
}
