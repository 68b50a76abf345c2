#!/usr/bin/env bats
# The stand-in's device mode (test/camodel/README, section 11): the sample
# operators run on lib64's runtime with no simulator and leave the on-board
# raw files of optrace-board(5), read back with the board decoders
# (board-gen --check); and board-gen's own raw files.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	cann=$top/build/cann
	ops=$top/build/ops
	gen=$top/build/bin/board-gen
	t=$BATS_TEST_TMPDIR
	for need in "$ops/bin/op_acl" "$gen"; do
		[ -x "$need" ] || skip "$need is not built (make camodel build/bin/board-gen)"
	done
	[ "${OPTRACE_VARIANT:-build}" = build ] || skip "the stand-in is the same in every variant"
}

# device SOC DIR ARGS...: op_acl ARGS on SOC's device, raw files into DIR
device() {
	local soc=$1 dir=$2
	shift 2
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=$soc CAMODEL_DEVICE_DUMP=$dir CAMODEL_LOG_PATH=$t/simlog \
		"$ops/bin/op_acl" "$@"
}

# field NAME LINE: the value of NAME=value in a --check summary line
field() {
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# events DIR REPLAY CORE: the "id=count ..." lists of the records of a replay
events() {
	"$gen" --check -v "$1" | awk -v r="replay=$2" -v c="core=$3" '$1 == r && $4 == c'
}

@test "a mix kernel on every family: blocks x sub-cores per replay, no simulator dumps" {
	for soc in Ascend910B1 Ascend910_9391 Ascend310P1 Ascend950PR_9599; do
		rm -rf "$t/simlog"
		run device $soc "$t/$soc" -s mixed -b 3
		[ "$status" -eq 0 ] || { echo "$soc: $output"; false; }
		[ ! -e "$t/simlog" ]
		run "$gen" --check "$t/$soc"
		[ "$status" -eq 0 ] || { echo "$soc: $output"; false; }
		line=$output
		[ "$(field block_dim "$line")" = 3 ]
		case $soc in
		Ascend310P1)
			[ "$(field replays "$line")" = 7 ] && [ "$(field records "$line")" = 3 ]
			[ "$(field cube "$line")" = 3 ] && [ "$(field vector "$line")" = 0 ]
			[ "$(stat -c %s "$t/$soc/duration.bin")" = 128 ] ;;
		Ascend950PR_9599)
			[ "$(field replays "$line")" = 6 ] && [ "$(field records "$line")" = 9 ]
			[ "$(field cube "$line")" = 3 ] && [ "$(field vector "$line")" = 6 ]
			[ "$(stat -c %s "$t/$soc/duration.bin")" = 64 ]
			[ ! -e "$t/$soc/L2Cache.bin" ] ;;
		*)
			[ "$(field replays "$line")" = 10 ] && [ "$(field records "$line")" = 9 ]
			[ "$(field cube "$line")" = 3 ] && [ "$(field vector "$line")" = 6 ]
			[ "$(stat -c %s "$t/$soc/duration.bin")" = 128 ] ;;
		esac
		n=$(field replays "$line")
		for k in $(seq 1 "$n"); do
			[ "$(stat -c %s "$t/$soc/DeviceProf$k.bin")" = $(( $(field records "$line") * 128 )) ]
		done
		[ ! -e "$t/$soc/DeviceProf$((n + 1)).bin" ]
	done
}

@test "A2 mix records: a cube and vector sub-blocks 0 and 1 per block, the replay lists' event ids" {
	device Ascend910B1 "$t/d" -s mixed -b 2
	"$gen" --check -v "$t/d" > "$t/v"
	[ "$(awk '$1 == "replay=1" {print $2, $3, $4}' "$t/v" | tr '\n' ,)" = \
	  "block=0 sub=0 core=cube,block=0 sub=0 core=vector,block=0 sub=1 core=vector,block=1 sub=0 core=cube,block=1 sub=0 core=vector,block=1 sub=1 core=vector," ]
	# the slots of replay 1 carry 1032 1033 1280 1282 1283 1292 (cube) and 55 56 1280 ... (vector)
	[ "$(events "$t/d" 1 cube | head -1 | cut -d' ' -f7- | sed 's/=[0-9]*//g')" = "1032 1033 1280 1282 1283 1292" ]
	[ "$(events "$t/d" 1 vector | head -1 | cut -d' ' -f7- | sed 's/=[0-9]*//g')" = "55 56 1280 1282 1283 1292" ]
	[ "$(events "$t/d" 10 cube | head -1 | cut -d' ' -f7- | sed 's/=[0-9]*//g')" = "9 10 12 88 90 91 770 771" ]
	# the cube ran matmuls: cube busy (10) and instructions (1032) above 0
	c10=$(events "$t/d" 10 cube | head -1 | grep -o ' 10=[0-9]*' | cut -d= -f2)
	[ "$c10" -gt 0 ]
	[ "$(events "$t/d" 1 cube | head -1 | grep -o ' 1032=[0-9]*' | cut -d= -f2)" -gt 0 ]
}

@test "vector add: GM traffic in requests whose bytes are the kernel's transfers, scaled by loops" {
	# add: per block 2 x 32 KiB in and 32 KiB out per loop
	for loops in 1 3; do
		device Ascend910B1 "$t/a$loops" -s add -b 4 -n $loops
		line=$("$gen" --check "$t/a$loops")
		[ "$(field records "$line")" = 4 ] && [ "$(field cube "$line")" = 0 ]
		# replay 3 of the AIV list: 61 62 67 68 (UB->GM, GM->UB at 128 B a request)
		events "$t/a$loops" 3 vector > "$t/e"
		[ "$(wc -l < "$t/e")" = 4 ]
		[ "$(grep -vc " 61=$((loops * 32768 / 128)) 62=$((loops * 65536 / 128)) " "$t/e")" = 0 ]
	done
	# 310P: 16-byte UB requests (replay 3: 19 44 49 50 61 62 27 28)
	device Ascend310P1 "$t/p" -s add -b 2
	events "$t/p" 3 cube > "$t/e"
	[ "$(wc -l < "$t/e")" = 2 ]
	[ "$(grep -vc " 61=2048 62=4096 " "$t/e")" = 0 ]
	# A5: main-memory reads and writes 1058/1059 at 128 B (replay 3)
	device Ascend950PR_9599 "$t/5" -s add -b 2
	events "$t/5" 3 vector > "$t/e"
	[ "$(wc -l < "$t/e")" = 2 ]
	[ "$(grep -vc " 1058=512 1059=256 " "$t/e")" = 0 ]
}

@test "busy cycles never above total cycles; the task's duration from start to end" {
	for soc in Ascend910B1 Ascend310P1 Ascend950PR_9599; do
		device $soc "$t/$soc" -s mixed -n 2
		"$gen" --check -v "$t/$soc" > "$t/v"
		# vector busy (8 / 1281) and cube busy (10 / 810) against cycles
		awk '{ c = 0; for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cycles") c = kv[2];
		       if ((kv[1] == 8 || kv[1] == 10 || kv[1] == 810 || kv[1] == 1281 || kv[1] == 12 || kv[1] == 514) && kv[2] + 0 > c + 0) bad++ } }
		     END { exit bad > 0 }' "$t/v"
		line=$("$gen" --check "$t/$soc")
		awk -v d="$(field duration_us "$line")" 'BEGIN { exit !(d > 0) }'
	done
}

@test "op_basic_info.txt: the keys the on-board flow reads" {
	device Ascend910B1 "$t/d" -s matmul
	for k in "Op Name=matmul_custom" "Block Dim=4" "Run Soc Version=Ascend910B1" "Device Id=0" "Current Freq=1850" \
	         "Rated Freq=1850" "Is MC2=0" "Has Simt=0"; do
		grep -qx "$k" "$t/d/op_basic_info.txt" || { echo "no $k"; false; }
	done
	grep -qx "Pid=[0-9]*" "$t/d/op_basic_info.txt"
	line=$("$gen" --check "$t/d")
	[ "$(field vector "$line")" = 0 ] && [ "$(field records "$line")" = 4 ]
	device Ascend950PR_9599 "$t/s" -s simt
	grep -qx "Has Simt=1" "$t/s/op_basic_info.txt"
}

@test "the same counts on every run; CAMODEL_DEVICE_REPLAY writes that replay only" {
	device Ascend910B1 "$t/r1" -s mixed
	device Ascend910B1 "$t/r2" -s mixed
	for f in DeviceProf1.bin DeviceProf7.bin DeviceProf10.bin duration.bin L2Cache.bin; do
		cmp "$t/r1/$f" "$t/r2/$f"
	done
	CAMODEL_DEVICE_REPLAY=7 device Ascend910B1 "$t/r3" -s mixed
	[ "$(ls "$t/r3" | grep -c DeviceProf)" = 1 ]
	cmp "$t/r1/DeviceProf7.bin" "$t/r3/DeviceProf7.bin"
	run env CAMODEL_DEVICE_REPLAY=11 LD_LIBRARY_PATH=$cann/lib64 CAMODEL_DEVICE_DUMP=$t/r4 "$ops/bin/op_acl" -s add
	[ "$status" -ne 0 ]
	[[ "$output" == *"CAMODEL_DEVICE_REPLAY=11: not a replay number 1..10"* ]]
	[ ! -e "$t/r4/DeviceProf11.bin" ]
}

@test "board-gen: each chip's raw set for a block and loop count, read back whole" {
	for c in 910B:Ascend910B1:10:3 310P:Ascend310P3:7:1 A5:Ascend950PR_9599:6:3; do
		IFS=: read -r chip soc reps subs <<<"$c"
		"$gen" --chip $chip --blocks 7 --loops 2 "$t/$chip"
		line=$("$gen" --check "$t/$chip")
		[ "$(field soc "$line")" = $soc ] && [ "$(field replays "$line")" = $reps ]
		[ "$(field records "$line")" = $((7 * subs)) ]
		[ "$(stat -c %s "$t/$chip/DeviceProf$reps.bin")" = $((7 * subs * 128)) ]
	done
	[ "$(stat -c %s "$t/310P/L2Cache.bin")" = 72 ] && [ "$(stat -c %s "$t/910B/L2Cache.bin")" = 72 ]
	"$gen" --chip 910B --kind vector --blocks 5 --launches 3 "$t/l"
	for i in 0 1 2; do
		[ "$(field records "$("$gen" --check "$t/l/$i/dump")")" = 5 ]
	done
	# loops scale the counts, not the record count
	"$gen" --chip 910B --kind vector --blocks 1 --loops 4 "$t/n4"
	[ "$(events "$t/n4" 3 vector | grep -o ' 62=[0-9]*')" = " 62=$((4 * 16384 / 128))" ]
}

@test "board-gen: bad options exit 2; a broken raw file is named and exits 3" {
	run "$gen" --chip 310B "$t/x"
	[ "$status" -eq 2 ] && [[ "$output" == *"--chip 310B"* ]]
	run "$gen" --replay 11 "$t/x"
	[ "$status" -eq 2 ]
	"$gen" --chip 910B --blocks 2 "$t/g"
	cp -r "$t/g" "$t/cut"
	truncate -s 200 "$t/cut/DeviceProf4.bin"
	run "$gen" --check "$t/cut"
	[ "$status" -eq 3 ] && [[ "$output" == *"DeviceProf4.bin"* ]]
	# a busy count above the cycles (replay 10, cube slot 0 = event 9)
	cp -r "$t/g" "$t/busy"
	printf '\377\377\377\377' | dd of="$t/busy/DeviceProf10.bin" bs=1 seek=48 conv=notrunc status=none
	run "$gen" --check "$t/busy"
	[ "$status" -eq 3 ] && [[ "$output" == *"event 9 busy"* ]]
	cp -r "$t/g" "$t/l2"
	truncate -s 71 "$t/l2/L2Cache.bin"
	run "$gen" --check "$t/l2"
	[ "$status" -eq 3 ] && [[ "$output" == *"L2Cache.bin"* ]]
	cp -r "$t/g" "$t/nb"
	sed -i 's/^Device Id=.*/Device Id=x/' "$t/nb/op_basic_info.txt"
	run "$gen" --check "$t/nb"
	[ "$status" -eq 3 ] && [[ "$output" == *"op_basic_info.txt"* ]]
}

@test "every program on lib64's runtime runs in device mode: kernel-launcher, Python ctypes" {
	cfg=$ops/config
	[ -f "$cfg/add_custom.json" ] || skip "no --config case"
	jq '.output_data_path = "'"$t"'/res"' "$cfg/add_custom.json" > "$t/case.json"
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_DEVICE_DUMP=$t/kl CAMODEL_LOG_PATH=$t/simlog \
		"$cann/tools/msopt/bin/kernel-launcher" --config="$t/case.json"
	[ -s "$t/res/Test_AddCustom_001/z.bin" ]
	line=$("$gen" --check "$t/kl")
	[ "$(field op "$line")" = add_custom ] && [ "$(field cube "$line")" = 0 ]
	[ "$(field records "$line")" = "$(field block_dim "$line")" ]
	command -v python3 >/dev/null || skip "no python3"
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_DEVICE_DUMP=$t/py python3 "$ops/bin/add_acl.py" -b 4
	[ "$(field records "$("$gen" --check "$t/py")")" = 4 ]
	[ ! -e "$t/simlog" ]
}

@test "the reference's on-board parse reads the files of every layout (when its peer build is here)" {
	peer=${OPTRACE_REF_BOARD:-}      # the reference's on-board parse, as a command: DUMPDIR OUTDIR SOC
	[ -n "$peer" ] && [ -x "$peer" ] || skip "OPTRACE_REF_BOARD does not name the reference's on-board parse"
	for c in Ascend910B1:mix Ascend310P3:AiCore Ascend950PR_9599:mix; do
		soc=${c%%:*}
		device $soc "$t/$soc" -s mixed
		"$peer" "$t/$soc" "$t/ref.$soc" $soc > "$t/ref.log" 2>&1 || { cat "$t/ref.log"; false; }
		csv=$(ls "$t/ref.$soc"/OPPROF_*/OpBasicInfo.csv)
		[ "$(sed -n 2p "$csv" | cut -d, -f1-2)" = "mixed_custom,${c#*:}" ]
		[ "$(ls "$t/ref.$soc"/OPPROF_*/ | grep -c 'Utilization.csv$')" = 2 ]
	done
}
