#!/usr/bin/env bats
# sim-capture and sim-flow end to end, against the stand-in simulator
# (build/cann, test/camodel) and its sample operators (build/ops).

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	[ -d "$cann/tools/simulator" ] || skip "the stand-in simulator is not built (build/cann)"
	command -v sim-capture >/dev/null || skip "sim-capture is not built"
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	unset ASCEND_HOME_PATH OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	export ASCEND_HOME_PATH=$cann
}

need() {
	[ -f "$1" ] || skip "$(basename "$1") is not built"
}

rundir() {
	ls -d "$out"/OPPROF_* | head -n 1
}

# The instruction records of a stream, as comparable lines.
instrs() {
	instr-parse --json | jq -c 'select(.kind == "instr") | [.core, .sub, .subidx, .start, .end, .pc, .pipe, .name, .detail]'
}

@test "rt* sample: sim-flow writes the reference's tree with a valid trace" {
	need "$ops/bin/add_rt"
	run sim-flow -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -f "$r/dump/aicore_binary.o" ]
	[ -f "$r/dump/pc_start_addr.txt" ]
	ls "$r"/dump/core*instr_log.dump
	jq -e '.profilingType == "op" and (.traceEvents | map(select(.ph == "X")) | length) > 10' "$r/simulator/trace.json"
	jq -e '.kernels[0].name == "add_custom" and .app_status == 0' "$r/manifest.json"
	[[ $output == *"$r/simulator/trace.json"* ]]
	# the host API timeline: the registration, the launch and its synchronisation
	jq -e '.traceEvents | map(.name) | (index("rtDevBinaryRegister") != null) and
	       (index("launch add_custom") != null) and (index("rtKernelLaunch") != null)' "$r/host_api.json"
	jq -e '.traceEvents | all(.dur >= 0 and .ph == "X")' "$r/host_api.json"
}

@test "rt* sample: every captured line parses and pairs" {
	need "$ops/bin/add_rt"
	run sim-capture -o "$out" -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	d=$(rundir)/device0/add_custom/0/dump
	dump-split "$d" | instr-parse --json > "$BATS_TEST_TMPDIR/p.json"
	jq -e -s 'map(select(.kind == "trailer"))[-1] | .bad == 0 and .dropped == 0' "$BATS_TEST_TMPDIR/p.json"
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -gt 10 ]
	# the binary is the registered kernel
	cmp "$d/aicore_binary.o" "$ops/kernels/add_custom.o"
}

@test "rt* sample: live mode gives the same instruction records as the dumps" {
	need "$ops/bin/add_rt"
	sim-capture -q -o "$out" --live -- "$ops/bin/add_rt" | instrs > "$BATS_TEST_TMPDIR/live"
	[ -z "$(ls "$(rundir)"/device0/add_custom/0/dump | grep '\.dump$')" ]
	rm -rf "$out"/*
	sim-capture -q -o "$out" -- "$ops/bin/add_rt"
	dump-split "$(rundir)/device0/add_custom/0/dump" | instrs > "$BATS_TEST_TMPDIR/dump"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/dump")" -gt 10 ]
	diff "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/live"
}

@test "rt* sample: a replayable capture replays through --config with the same instructions" {
	need "$ops/bin/add_rt"
	launcher=$cann/tools/msopt/bin/kernel-launcher
	[ -x "$launcher" ] || [ -n "${OPTRACE_KERNEL_LAUNCHER:-}" ] || skip "no kernel-launcher in the stand-in"
	run sim-capture -o "$out" --replay -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	k=$(rundir)/device0/add_custom/0/dump
	jq -e '.kernel_name == "add_custom" and (.input_path | split(";") | length) >= 2' "$k/kernel_data/kernel_config.bin"
	dump-split "$k" | instrs > "$BATS_TEST_TMPDIR/app"
	mkdir "$BATS_TEST_TMPDIR/re"
	run sim-capture -o "$BATS_TEST_TMPDIR/re" --config="$k/kernel_data/kernel_config.bin"
	[ "$status" -eq 0 ]
	dump-split "$(ls -d "$BATS_TEST_TMPDIR"/re/OPPROF_*)"/device0/add_custom/0/dump | instrs > "$BATS_TEST_TMPDIR/replay"
	diff "$BATS_TEST_TMPDIR/app" "$BATS_TEST_TMPDIR/replay"
}

@test "--soc-version: the Ascend950 family uses dav_3510" {
	need "$ops/bin/add_rt"
	[ -d "$cann/tools/simulator/dav_3510" ] || skip "no dav_3510 simulator"
	run sim-capture -o "$out" --soc-version=Ascend950PR_9599 -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	jq -e '.soc == "Ascend950PR_9599" and (.simulator | endswith("/dav_3510/lib"))' "$(rundir)/manifest.json"
}

# One capture through a launch path: the kernel, its binary, start pc and
# dumps that parse with nothing left over.
check_path() {
	run sim-capture -o "$out" -- "$@"
	[ "$status" -eq 0 ] || { echo "$*: $status: $output"; return 1; }
	r=$(rundir)
	d=$r/device0/add_custom/0/dump
	[ -f "$d/aicore_binary.o" ] && [ -f "$d/pc_start_addr.txt" ] || { echo "$*: no capture"; return 1; }
	cmp "$d/aicore_binary.o" "$ops/kernels/add_custom.o"
	jq -e '.launches == 1 and .kernels[0].block_dim > 0' "$r/manifest.json" >/dev/null
	dump-split "$d" | instr-parse --json > "$BATS_TEST_TMPDIR/p.json"
	jq -e -s 'map(select(.kind == "trailer"))[-1] | .bad == 0 and .dropped == 0' "$BATS_TEST_TMPDIR/p.json" >/dev/null
	[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -gt 10 ]
	rm -rf "$out"/*
}

@test "every rt* launch path: rtKernelLaunch, ...WithFlagV2, rtRegisterAllKernel + ...WithHandleV2" {
	need "$ops/bin/op_rt"
	for m in launch flag handle; do
		check_path "$ops/bin/op_rt" -s add -m "$m"
	done
	# the launch record: API, blockDim and (handle launches) the tiling key
	sim-capture -q -o "$out" -- "$ops/bin/op_rt" -s add -m handle -b 3
	rec-cat --json "$(rundir)/capture.rec" | jq -e -s 'map(select(.kind == "launch")) | length == 1 and
	    (.[0] | .api == "rtKernelLaunchWithHandleV2" and .tiling_key != null and .block_dim == 3 and .order == 0)'
}

@test "every aclrt* launch path: WithConfig, WithHostArgs, aclrtLaunchKernel" {
	need "$ops/bin/op_acl"
	for m in config hostargs launch; do
		check_path "$ops/bin/op_acl" -s add -m "$m"
	done
}

@test "Python through ctypes and ACL" {
	need "$ops/bin/add_acl.py"
	command -v python3 >/dev/null || skip "no python3"
	check_path "$ops/bin/add_acl.py"
}

@test "--config: a JSON kernel description run by the launcher" {
	need "$ops/config/add_custom.json"
	[ -x "$cann/tools/msopt/bin/kernel-launcher" ] || skip "no kernel-launcher"
	run sim-capture -o "$out" --config="$ops/config/add_custom.json"
	[ "$status" -eq 0 ]
	d=$(rundir)/device0/add_custom/0/dump
	cmp "$d/aicore_binary.o" "$ops/kernels/add_custom.o"
	dump-split "$d" | instr-parse --json | jq -e -s 'map(select(.kind == "trailer"))[-1].bad == 0' >/dev/null
	jq -e '.config and (.command | length) == 0' "$(rundir)/manifest.json"
}

@test "several kernels and launches: filters, counts and the <kernel>/<n> layout" {
	need "$ops/bin/op_rt"
	run sim-flow -q -o "$out" --launch-count=3 -- "$ops/bin/op_rt" -s add -r 3
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(ls "$r/add_custom" | tr '\n' ' ')" = "0 1 2 " ]
	for n in 0 1 2; do [ -f "$r/add_custom/$n/simulator/trace.json" ]; done
	[ ! -e "$r/device0" ]
	rm -rf "$out"/*
	run sim-capture -o "$out" --kernel-name='matmul*' -- "$ops/bin/op_rt" -s add -r 2
	[ "$status" -eq 3 ]
	[[ $output == *"no kernel matched --kernel-name=matmul* (launched: add_custom)"* ]]
}

@test "cube and mixed samples: live mode equals dump mode on every sub-core" {
	need "$ops/bin/op_rt"
	for s in matmul mixed; do
		rm -rf "$out"/*
		sim-capture -q -o "$out" --live -- "$ops/bin/op_rt" -s "$s" | instrs | sort > "$BATS_TEST_TMPDIR/live"
		rm -rf "$out"/*
		sim-capture -q -o "$out" -- "$ops/bin/op_rt" -s "$s"
		k=$(ls "$(rundir)/device0")
		dump-split "$(rundir)/device0/$k/0/dump" | instrs | sort > "$BATS_TEST_TMPDIR/dump"
		[ "$(wc -l < "$BATS_TEST_TMPDIR/dump")" -gt 10 ] || { echo "$s: no instructions"; return 1; }
		diff "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/live" || { echo "$s differs"; return 1; }
	done
}

@test "ACL launches are replayable too (old_mode 0): same instructions and ticks" {
	need "$ops/bin/op_acl"
	[ -x "$cann/tools/msopt/bin/kernel-launcher" ] || skip "no kernel-launcher"
	sel='select(.kind == "instr") | [.core, .sub, .subidx, .start, .end, .pc, .pipe, .name]'
	for m in config hostargs launch; do
		rm -rf "$out"/* "$BATS_TEST_TMPDIR/re"
		sim-capture -q -o "$out" --replay -- "$ops/bin/op_acl" -s add -m "$m"
		k=$(rundir)/device0/add_custom/0/dump
		jq -e '.old_mode == "0" and (.tiling_data_path | endswith(";8"))' "$k/kernel_data/kernel_config.bin" >/dev/null
		mkdir "$BATS_TEST_TMPDIR/re"
		sim-capture -q -o "$BATS_TEST_TMPDIR/re" --config="$k/kernel_data/kernel_config.bin"
		dump-split -q "$k" | instr-parse --json | jq -c "$sel" > "$BATS_TEST_TMPDIR/a"
		dump-split -q "$BATS_TEST_TMPDIR"/re/OPPROF_*/device0/add_custom/0/dump | instr-parse --json | jq -c "$sel" > "$BATS_TEST_TMPDIR/b"
		[ "$(wc -l < "$BATS_TEST_TMPDIR/a")" -gt 10 ]
		diff "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" || { echo "$m differs"; return 1; }
	done
}

@test "sim-flow --live: the same tree from the live stream, no dump file written" {
	need "$ops/bin/op_rt"
	run sim-flow -q --live -o "$out" -- "$ops/bin/op_rt" -s mixed
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ -f "$r/dump/aicore_binary.o" ]
	[ -z "$(ls "$r/dump" | grep '\.dump$')" ]
	jq -e '.profilingType == "op" and (.traceEvents | map(select(.ph == "X")) | length) > 10' "$r/simulator/trace.json" >/dev/null
	(cd "$r/simulator" && find . -mindepth 1 -maxdepth 1 -type d | sort) > "$BATS_TEST_TMPDIR/live"
	rm -rf "$out"/*
	run sim-flow -q -o "$out" -- "$ops/bin/op_rt" -s mixed
	[ "$status" -eq 0 ]
	(cd "$(rundir)/simulator" && find . -mindepth 1 -maxdepth 1 -type d | sort) > "$BATS_TEST_TMPDIR/dump"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/dump")" -eq 6 ]
	diff "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/live"
	run sim-flow -q --live --launch-count=2 -o "$out" -- "$ops/bin/op_rt"
	[ "$status" -eq 2 ]
}

@test "sim-flow --core-id parses only the chosen cores" {
	need "$ops/bin/op_rt"
	run sim-flow -q --core-id=1 -o "$out" -- "$ops/bin/op_rt" -s mixed
	[ "$status" -eq 0 ]
	r=$(rundir)
	[ "$(cd "$r/simulator" && find . -mindepth 1 -maxdepth 1 -type d | sort | tr '\n' ' ')" = \
	  "./core1.cubecore0 ./core1.veccore0 ./core1.veccore1 " ]
	# the dump keeps every core
	ls "$r"/dump/core0.veccore0.instr_log.dump
}

@test "sim-flow --report: each core's hottest source lines of the kernel, with their share" {
	need "$ops/bin/op_rt"
	run sim-flow -o "$out" --report=2 -- "$ops/bin/op_rt" -s matmul -n 4
	[ "$status" -eq 0 ]
	[[ $output == *"core0.cubecore0: "*" instruction cycles"* ]]
	# the first line under "top source lines" is in the matmul kernel's source
	first=$(printf '%s\n' "$output" | grep -A 2 'top source lines' | sed -n 3p)
	[[ $first == *"matmul/matmul_custom.c:"* ]]
	[[ $first == *"%"* ]]
	# two lines per list
	[ "$(printf '%s\n' "$output" | grep -A 3 'top source lines' | grep -c 'matmul_custom.c:')" -ge 2 ]
}

@test "the simulator's config as msprof adjusts it: a private copy named by CAMODEL_CONFIG_PATH" {
	show='cd "$CAMODEL_CONFIG_PATH" && for f in *; do echo "== $f $(stat -c %a "$f")"; grep -v "^#" "$f"; done'
	run sim-capture -o "$out" -- sh -c "$show"
	[ "$status" -eq 3 ]   # nothing launched
	[[ $output == *"== pem_config_cloud.toml 400"* ]]
	# no MTE log unless PMSampling is asked for, as the reference
	[[ $output != *'"mte_log"'* ]]
	run sim-capture -o "$out" --aic-metrics=PipeUtilization,PMSampling -- sh -c "$show"
	[[ $output == *'enable_list = ["mte_log", '* ]]
	[[ $output == *"cache_enable                = 1"* ]]
	run sim-capture -o "$out" --aic-metrics=PipeUtilization,ResourceConflictRatio -- sh -c "$show"
	[[ $output != *'"mte_log"'* ]]
	[[ $output == *"cache_enable                = 1"* ]]
	run sim-capture -o "$out" --soc-version=Ascend950PR_9599 -- sh -c "$show"
	[[ $output == *'"flush_level": 2'* ]]
	run sim-capture -o "$out" --soc-version=Ascend310P1 -- sh -c "$show"
	[[ $output == *"== davinci_vec_core.spec 400"*'flush_level = "2"'* ]]
	# the original is untouched
	grep -q 'cache_enable                = 0' "$cann/tools/simulator/Ascend910B1/lib/pem_config_cloud.toml"
	run sim-capture -o "$out" --aic-metrics=Bogus -- true
	[ "$status" -eq 2 ]
}

@test "with --aic-metrics=...,PMSampling the MTE log is captured and parsed into the bandwidth chart" {
	need "$ops/bin/add_rt"
	run sim-flow -q -o "$out" --aic-metrics=PipeUtilization,ResourceConflictRatio,PMSampling -- "$ops/bin/add_rt"
	[ "$status" -eq 0 ]
	r=$(rundir)
	ls "$r"/dump/core*.mte_log.dump
	jq -e '[.traceEvents[] | select(.ph == "C")] | length > 0' "$r/simulator/trace.json"
}

@test "live mode forwards the MTE log too: the same transfers and bandwidth as the dumps" {
	need "$ops/bin/add_rt"
	sel='select(.kind == "mte_xfer" or .kind == "mte_bw")'
	sim-capture -q -o "$out" --live --aic-metrics=PipeUtilization,PMSampling -- "$ops/bin/add_rt" | mte-parse --json | jq -c "$sel" | sort > "$BATS_TEST_TMPDIR/live"
	rm -rf "$out"/*
	sim-capture -q -o "$out" --aic-metrics=PipeUtilization,PMSampling -- "$ops/bin/add_rt"
	dump-split -q --log=mte "$(rundir)"/device0/add_custom/0/dump | mte-parse --json | jq -c "$sel" | sort > "$BATS_TEST_TMPDIR/dump"
	[ "$(grep -c mte_xfer "$BATS_TEST_TMPDIR/dump")" -gt 10 ]
	[ "$(grep -c mte_bw "$BATS_TEST_TMPDIR/dump")" -gt 0 ]
	diff "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/live"
}

@test "a long simulation: --timeout and Ctrl+C keep partial but valid outputs" {
	need "$ops/bin/add_rt"
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# The application launches once, then blocks forever on a FIFO: the
	# timeout always fires, and (INT and TERM ignored until the launch is
	# done) always after the launch, however slow the machine.
	run sim-flow -q -o "$out" --timeout=1s -- \
		sh -c 'trap "" INT TERM; "$0"; trap - INT TERM; exec cat "$1" 2>/dev/null 3>&-' "$ops/bin/add_rt" "$f"
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
	r=$(rundir)
	jq -e '.timed_out == true' "$r/manifest.json"
	jq -e '.profilingType == "op" and (.traceEvents | length) > 100' "$r/simulator/trace.json" >/dev/null
	# Ctrl+C: the application interrupts sim-capture itself after its
	# launch, then blocks
	rm -rf "$out"/*
	st=0
	sim-capture -q -o "$out" -- sh -c '"$0"; kill -INT $PPID; exec cat "$1" 2>/dev/null 3>&-' "$ops/bin/add_rt" "$f" || st=$?
	[ "$st" -eq 130 ]
	d=$(rundir)/device0/add_custom/0/dump
	jq -e '.interrupted == true' "$(rundir)/manifest.json"
	dump-split -q "$d" | instr-parse --json | jq -c 'select(.kind == "instr")' | head -n 100 | wc -l | grep -qx 100
}

@test "live mode interrupted or timed out: the stream downstream is whole records and ends marked interrupted" {
	need "$ops/bin/add_rt"
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	# what the same pipeline gives when nothing interrupts it
	sim-capture -q -o "$out" --live -- "$ops/bin/add_rt" |
		instr-parse -q | icache-merge -q | scalar-merge -q | mte-parse -q --json > "$BATS_TEST_TMPDIR/p.json"
	n=$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)
	[ "$n" -gt 100 ]
	for how in int timeout; do
		rm -rf "$out"/*
		if [ $how = int ]; then
			set -- sh -c '"$0"; kill -INT $PPID; exec cat "$1" 2>/dev/null 3>&-' "$ops/bin/add_rt" "$f"
		else
			set -- --timeout=1s -- sh -c 'trap "" INT TERM; "$0"; trap - INT TERM; exec cat "$1" 2>/dev/null 3>&-' "$ops/bin/add_rt" "$f"
		fi
		{ sim-capture -q -o "$out" --live "$@" || echo $? > "$BATS_TEST_TMPDIR/st"; } |
			instr-parse -q | icache-merge -q | scalar-merge -q | mte-parse -q --json > "$BATS_TEST_TMPDIR/p.json"
		[ "$(cat "$BATS_TEST_TMPDIR/st")" -eq "$([ $how = int ] && echo 130 || echo 1)" ]
		rm "$BATS_TEST_TMPDIR/st"
		[ "$(jq -c 'select(.kind == "instr")' "$BATS_TEST_TMPDIR/p.json" | wc -l)" -eq "$n" ] || { echo "$how: not all instructions"; return 1; }
		jq -e -s '.[-1] | .kind == "trailer" and .interrupted == 1 and .bad == 0' "$BATS_TEST_TMPDIR/p.json" ||
			{ echo "$how: trailer"; return 1; }
	done
}

@test "host API spans carry their key arguments: sizes, pointers, blockDim, stream (rt and ACL), also in host_api.json" {
	need "$ops/bin/op_rt"
	need "$ops/bin/op_acl"
	run sim-capture -q -o "$out" -- "$ops/bin/op_rt" -s add -m handle
	[ "$status" -eq 0 ]
	rec-cat --json "$(rundir)/capture.rec" | jq -c 'select(.kind == "api")' > "$BATS_TEST_TMPDIR/rt.json"
	jq -e -s 'length > 10 and all(.args != "")' "$BATS_TEST_TMPDIR/rt.json"
	# rtMalloc: size, type and the pointer it returned; rtMemcpy to that pointer
	jq -e -s '[.[] | select(.name == "rtMalloc") | .args] | length == 4 and
	          all(test("^size=[0-9]+ type=[0-9]+ ptr=0x1[0-9a-f]{8}$")) and (.[0] | startswith("size=65536 "))' "$BATS_TEST_TMPDIR/rt.json"
	ptr=$(jq -r -s '[.[] | select(.name == "rtMalloc")][0].args | capture("ptr=(?<p>0x[0-9a-f]+)").p' "$BATS_TEST_TMPDIR/rt.json")
	jq -e -s --arg p "$ptr" 'any(.[]; .name == "rtMemcpy" and (.args | test("^dst=\($p) src=0x[0-9a-f]+ size=65536 max=65536 kind=host_to_device$")))' "$BATS_TEST_TMPDIR/rt.json"
	jq -e -s 'any(.[]; .name == "rtMemcpy" and (.args | endswith(" kind=device_to_host")))' "$BATS_TEST_TMPDIR/rt.json"
	jq -e -s 'map(select(.name == "rtKernelLaunchWithHandleV2"))[0].args |
	          test("^kernel=add_custom blockDim=2 stream=0x[0-9a-f]+ tilingKey=[0-9]+ args=0x[0-9a-f]+ argsSize=[0-9]+ handle=0x[0-9a-f]+$")' "$BATS_TEST_TMPDIR/rt.json"
	jq -e -s 'map(select(.name == "rtRegisterAllKernel"))[0].args | test("^size=[0-9]+ magic=0x41415246 handle=0x")' "$BATS_TEST_TMPDIR/rt.json"
	# ACL: aclrtMalloc, the device pointers appended to the args handle, the launch
	rm -rf "$out"/*
	run sim-capture -q -o "$out" -- "$ops/bin/op_acl" -s add -m config
	[ "$status" -eq 0 ]
	rec-cat --json "$(rundir)/capture.rec" | jq -c 'select(.kind == "api")' > "$BATS_TEST_TMPDIR/acl.json"
	jq -e -s 'all(.args != "")' "$BATS_TEST_TMPDIR/acl.json"
	jq -e -s '[.[] | select(.name == "aclrtMalloc") | .args | capture("ptr=(?<p>0x[0-9a-f]+)").p][0:3] ==
	          [.[] | select(.name == "aclrtKernelArgsAppend") | .args | capture("value=(?<p>0x[0-9a-f]+)").p]' "$BATS_TEST_TMPDIR/acl.json"
	jq -e -s 'map(select(.name == "aclrtLaunchKernelWithConfig"))[0].args |
	          test("^kernel=add_custom blockDim=2 stream=0x[0-9a-f]+ args=0x[0-9a-f]+ config=0x[0-9a-f]+ function=0x[0-9a-f]+$")' "$BATS_TEST_TMPDIR/acl.json"
	jq -e -s 'map(select(.name == "aclrtBinaryLoadFromFile"))[0].args | test("^handle=0x[0-9a-f]+ path=/.*/kernels/add_custom.o$")' "$BATS_TEST_TMPDIR/acl.json"
	# sim-flow puts them into host_api.json
	rm -rf "$out"/*
	run sim-flow -q -o "$out" -- "$ops/bin/op_rt" -s add
	[ "$status" -eq 0 ]
	jq -e '[.traceEvents[] | select(.name == "rtMalloc") | .args | tostring] | length == 4 and all(test("size=[0-9]+ type="))' "$(rundir)/host_api.json"
}

@test "user strings are data: quotes, spaces, \$(), backticks, ';', a newline and a leading '-' in -o, --cann-root and the app's argv; --kernel-name checked" {
	need "$ops/bin/add_rt"
	m=$BATS_TEST_TMPDIR/m
	weird="q'\" \$(touch $m.1) \`touch $m.2\` ; touch $m.3 ;'x"
	o="$BATS_TEST_TMPDIR/-o $weird"
	# (LD_LIBRARY_PATH cannot name a directory with ':' or ';': such a root
	# is a usage error, said as such)
	bad="$BATS_TEST_TMPDIR/-c $weird"
	mkdir -p "$bad"
	cp -a "$cann"/. "$bad"/
	run sim-capture -q -o "$o" --cann-root="$bad" -- "$BATS_TEST_TMPDIR/app"
	[ "$status" -eq 2 ]
	[[ $output == *"cannot go into LD_LIBRARY_PATH"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/argv" ]
	root="$BATS_TEST_TMPDIR/-c q'\" \$(touch $m.5) \`touch $m.6\` x"
	mkdir -p "$root"
	cp -a "$cann"/. "$root"/
	# an app that records its arguments one per line, then launches
	cat > "$BATS_TEST_TMPDIR/app" <<APP
#!/bin/sh
for a; do printf '<%s>\n' "\$a"; done > "$BATS_TEST_TMPDIR/argv"
exec "$ops/bin/add_rt"
APP
	chmod +x "$BATS_TEST_TMPDIR/app"
	nl='a
b'
	# a kernel name takes A-Z a-z 0-9 _ * only: anything else is a usage error
	run sim-capture -q -o "$o" --cann-root="$root" --kernel-name="add_custom|$weird" -- "$BATS_TEST_TMPDIR/app"
	[ "$status" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/argv" ]
	run sim-capture -q -o "$o" --cann-root="$root" --kernel-name="add_*" -- \
		"$BATS_TEST_TMPDIR/app" "$weird" "-x" "$nl" ";" '$(touch '"$m"'.4)'
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ ! -e "$m.1" ] && [ ! -e "$m.2" ] && [ ! -e "$m.3" ] && [ ! -e "$m.4" ] && [ ! -e "$m.5" ] && [ ! -e "$m.6" ]
	# argv arrives untouched, one argument each
	[ "$(cat "$BATS_TEST_TMPDIR/argv")" = "<$weird>
<-x>
<a
b>
<;>
<\$(touch $m.4)>" ]
	r=$(ls -d "$o"/OPPROF_* | head -n 1)
	jq -e '.kernels | length == 1' "$r/manifest.json"
	ls "$r"/device0/add_custom/0/dump/*instr_log.dump > /dev/null
}
