#!/usr/bin/env bats
# The compute load of an on-board run (optrace-board(5), COMPUTE LOAD):
# board-metrics' COMPUTE_LOAD_FIGURE and COMPUTE_LOAD_TABLE blocks from the
# PMU counts of board-synth dumps and, on A5, from OperandRecord.bin, a
# bad OperandRecord.bin refused, the stand-in device's OperandRecord.bin
# through board-export, and the blocks against the reference's own parse
# where one is built (OPTRACE_REF_BOARD).

setup() {
	top=${OPTRACE_TOP:-$BATS_TEST_DIRNAME/../..}
	GEN=$(command -v board-synth || echo "$top/build/bin/board-synth")
	[ -x "$GEN" ] || { echo "board-synth is not built (make build/bin/board-synth)"; return 1; }
	cd "$BATS_TEST_TMPDIR"
}

payload() {
	vdata-dump --payload "$2" "$1"
}

# oprec FILE BLOCKS [INDEX THREAD TYPE INSTR OPS]...: an OperandRecord.bin
# of BLOCKS sub-blocks with the records given (THREAD -1: the SIMD one).
oprec() {
	python3 - "$@" <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
blk = 856 * 2049 + 64
with open(path, "wb") as f:
    f.write(struct.pack("<II", 0x5A5A5A5A, 0))
    f.truncate(8 + n * blk)
    a = sys.argv[3:]
    for i in range(0, len(a), 5):
        b, th, t, ins, ops = (int(x) for x in a[i:i + 5])
        f.seek(8 + b * blk + (th + 1) * 856 + t * 24)
        f.write(struct.pack("<QQQ", ins, ops, 0))
PY
}

@test "910B mix: the compute-load blocks, an entry per item of each sub-core, in the reference's JSON" {
	"$GEN" 910B d
	dump-split d | board-metrics -q -o m --vdata m/v.bin
	[ "$(vdata-dump m/v.bin | cut -d' ' -f1 | sed -n 2,3p | tr '\n' ' ')" = "type=COMPUTE_LOAD_FIGURE type=COMPUTE_LOAD_TABLE " ]
	# (the reference's bytes for this dump's first entries)
	[[ "$(payload m/v.bin COMPUTE_LOAD_FIGURE)" == '{"advice":[],"subblock_detail":[{"block_id":"0","block_type":"cube0","name":"Cube All Active","origin_value":2005.0,"unit":3,"value":10.024999618530273},{"block_id":"0","block_type":"cube0","name":"Cube FP","origin_value":1002.0,"unit":3,"value":5.009999752044678},'* ]]
	payload m/v.bin COMPUTE_LOAD_FIGURE > fig.json
	payload m/v.bin COMPUTE_LOAD_TABLE > tab.json
	python3 - <<'PY'
import json, struct
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
fig = json.load(open("fig.json"))["subblock_detail"]
tab = json.load(open("tab.json"))["subblock_detail"]
# percentages: cube0 4, each vector sub-core 1 ("Vector All Active0" / "1")
assert [(e["block_type"], e["name"]) for e in fig] == [("cube0", "Cube All Active"), ("cube0", "Cube FP"),
    ("cube0", "Cube INT"), ("cube0", "Cube Wait"), ("vector0", "Vector All Active0"),
    ("vector1", "Vector All Active1")], fig
cycles = {"cube0": 20000, "vector0": 10000, "vector1": 10000}
for e in fig:
    assert e["unit"] == 3 and e["block_id"] == "0", e
    want = f32(f32(f32(e["origin_value"]) / cycles[e["block_type"]]) * 100)
    assert abs(e["value"] - want) <= 1e-9 * want, (e, want)
# All Active is FP + INT (events 73 + 74)
assert fig[0]["origin_value"] == fig[1]["origin_value"] + fig[2]["origin_value"], fig
# the table: 3 cube instruction counts, 13 + the wait per vector sub-core
names = [(e["block_type"], e["name"], e["unit"]) for e in tab]
assert len(tab) == 3 + 2 * 14, names
assert names[:3] == [("cube0", "Cube All Active", 1), ("cube0", "Cube FP", 1), ("cube0", "Cube INT", 1)], names
assert names[3] == ("vector0", "Vector All Active", 1) and names[16] == ("vector0", "Vector Wait", 0), names
v = {e["name"]: int(e["value"]) for e in tab if e["block_type"] == "vector1"}
# Vector All Block is the four block counts' sum; Wait is us
assert v["Vector All Block"] == sum(v["Vector " + k + " Block"] for k in ("Bank Group Conflict", "Bank Conflict",
    "VALU Resource Conflict", "MTE Urgent Request")), v
assert all(isinstance(e["value"], str) for e in tab), tab
print("ok")
PY
}

@test "310P: the AI Core's cube and vector items, block NA, FP and INT cube instructions NA" {
	"$GEN" 310P d
	dump-split d | board-metrics -q -o m --vdata m/v.bin
	payload m/v.bin COMPUTE_LOAD_TABLE > tab.json
	python3 - <<'PY'
import json
tab = json.load(open("tab.json"))["subblock_detail"]
assert len(tab) == 3 + 14, len(tab)
assert [e["name"] for e in tab][2:4] == ["Cube INT", "Vector All Active"], tab
assert {e["block_id"] for e in tab} == {"NA"} and {e["block_type"] for e in tab} == {"AiCore"}, tab
fp = [e["value"] for e in tab if e["name"] in ("Cube FP", "Cube INT")]
assert fp == ["NA"] * 2, fp
print("ok")
PY
}

@test "A5: the vector instructions by operand type from --operand-records, sub-blocks by the index rule" {
	"$GEN" -k vector -b 2 A5 v
	dump-split v > v.rec
	# vector op: block 0 is sub-block 0, block 1 sub-block 1 (vector 1 of core 0)
	oprec ops.bin 6  0 -1 0 3 30  1 5 15 7 7  1 2047 15 2 2  1 9 27 4 4  2 0 15 99 99
	board-metrics -q -o m --vdata m/v.bin --operand-records ops.bin < v.rec
	payload m/v.bin COMPUTE_LOAD_TABLE > tab.json
	python3 - <<'PY'
import json
tab = json.load(open("tab.json"))["subblock_detail"]
got = [(e["block_id"], e["name"], e["value"]) for e in tab if e["name"] != "Vector Wait"]
assert got == [("0", "Vector F16", "3"), ("0", "Vector All Active", "3"),
               ("1", "Vector F32", "9"), ("1", "Vector S8", "4"), ("1", "Vector All Active", "13")], got
print("ok")
PY
	# a mix op: block b's vectors are 3b, 3b + 1, its cube 3b + 2 (no operand items)
	"$GEN" -b 2 A5 x
	oprec ops2.bin 6  4 3 20 5 5  5 -1 15 8 8
	dump-split x | board-metrics -q -o m2 --vdata m2/v.bin --operand-records ops2.bin
	payload m2/v.bin COMPUTE_LOAD_TABLE > tab2.json
	python3 - <<'PY'
import json
tab = json.load(open("tab2.json"))["subblock_detail"]
got = [(e["block_id"], e["block_type"], e["name"], e["value"]) for e in tab if e["name"].startswith("Vector B")]
assert got == [("1", "vector1", "Vector B32", "5")], got
assert ("1", "vector1", "Vector All Active", "5") in [(e["block_id"], e["block_type"], e["name"], e["value"]) for e in tab]
assert [e["name"] for e in tab if e["block_type"] == "cube0"][:3] == ["Cube FP", "Cube INT", "Cube All Active"]
print("ok")
PY
	# a file of many more blocks than the rows have (sparse, 17 GB): read
	# as far as the rows go, the same blocks
	cp ops.bin big.bin
	truncate -s $((8 + 10000 * 1754008)) big.bin
	board-metrics -q -o m4 --vdata m4/v.bin --operand-records big.bin < v.rec
	cmp <(payload m/v.bin COMPUTE_LOAD_TABLE) <(payload m4/v.bin COMPUTE_LOAD_TABLE)
	# without the file: no instruction of any type, the totals 0
	board-metrics -q -o m3 --vdata m3/v.bin < v.rec
	[ "$(payload m3/v.bin COMPUTE_LOAD_TABLE | jq -r '[.subblock_detail[] | .name] | unique | join(",")')" = "Vector All Active,Vector Wait" ]
}

@test "A5: an OperandRecord.bin that is not a header and whole blocks is named, exit 3, nothing written" {
	"$GEN" -k vector A5 v
	dump-split v > v.rec
	oprec ops.bin 1
	truncate -s -1 ops.bin
	run board-metrics -q -o m --vdata m/v.bin --operand-records ops.bin < v.rec
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "board-metrics: ops.bin: size is not 8 + k x 1754008 bytes (a header and whole blocks): nothing written" ]]
	[ ! -e m ]
	run board-metrics -q -o m --vdata m/v.bin --operand-records missing.bin < v.rec
	[ "$status" -eq 3 ]
	[[ "$output" == "board-metrics: missing.bin: cannot open: No such file or directory" ]]
	[ ! -e m ]
}

@test "the stand-in device's A5 OperandRecord.bin: the SIMT threads' fp32 and int32 instructions, through board-export" {
	cann=$top/build/cann
	[ -x "$top/build/ops/bin/op_acl" ] || skip "the sample operators are not built"
	for n in 1 3; do
		rm -rf "l$n"
		LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=dav_3510 CAMODEL_DEVICE_DUMP=$PWD/l$n/dump \
			"$top/build/ops/bin/op_acl" -s simt -n "$n" >/dev/null
		# two blocks: a header and three sub-blocks each
		[ "$(stat -c %s "l$n/dump/OperandRecord.bin")" -eq $((8 + 6 * 1754008)) ]
		board-export -q --in-place "l$n" >/dev/null
		payload "l$n/visualize_data.bin" COMPUTE_LOAD_TABLE > "t$n.json"
	done
	# per loop each of 8 warps runs FMUL and FADD on 32 lanes, IADD on 16
	python3 - <<'PY'
import json
for n in (1, 3):
    tab = json.load(open("t%d.json" % n))["subblock_detail"]
    for b in ("0", "1"):
        v = {e["name"]: e["value"] for e in tab if e["block_id"] == b}
        assert v["Vector F32"] == str(n * 8 * 32 * 2) and v["Vector S32"] == str(n * 8 * 16), v
        assert v["Vector All Active"] == str(n * 8 * 32 * 2 + n * 8 * 16), v
print("ok")
PY
	# a mix kernel's cube runs fp32 MMADs: one record at sub-block 3b + 2
	rm -rf x
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=dav_3510 CAMODEL_DEVICE_DUMP=$PWD/x/dump \
		"$top/build/ops/bin/op_acl" -s mixed -b 1 >/dev/null
	python3 - <<'PY'
import struct
d = open("x/dump/OperandRecord.bin", "rb").read()
blk = 856 * 2049 + 64
assert len(d) == 8 + 3 * blk and struct.unpack("<I", d[:4])[0] == 0x5A5A5A5A
ins, ops = struct.unpack("<QQ", d[8 + 2 * blk + 15 * 24:8 + 2 * blk + 15 * 24 + 16])
assert ins >= 1 and ops % (2 * 16 * 16 * 8) == 0, (ins, ops)
# nothing else in the file
assert d[8:].count(0) == len(d) - 8 - sum(1 for x in d[8 + 2 * blk + 15 * 24:8 + 2 * blk + 15 * 24 + 16] if x)
print("ok")
PY
}

@test "A2 device: the wait cycles of a flag-synchronised kernel are Cube Wait and Vector Wait" {
	cann=$top/build/cann
	[ -x "$top/build/ops/bin/op_acl" ] || skip "the sample operators are not built"
	LD_LIBRARY_PATH=$cann/lib64 CAMODEL_SOC_VERSION=Ascend910B1 CAMODEL_DEVICE_DUMP=$PWD/l/dump \
		"$top/build/ops/bin/op_acl" -s mixed >/dev/null
	board-export -q --in-place l >/dev/null
	payload l/visualize_data.bin COMPUTE_LOAD_FIGURE > fig.json
	payload l/visualize_data.bin COMPUTE_LOAD_TABLE > tab.json
	# the cube waits for its loads (WAIT_FLAG): cycles above 0, below its total
	python3 - <<'PY'
import json
fig = json.load(open("fig.json"))["subblock_detail"]
tab = json.load(open("tab.json"))["subblock_detail"]
cw = [e for e in fig if e["name"] == "Cube Wait"]
assert cw and all(e["origin_value"] > 0 and 0 < e["value"] < 100 for e in cw), cw
vw = [e for e in tab if e["name"] == "Vector Wait"]
assert vw and all(e["unit"] == 0 for e in vw), vw
# fp32 and fp16 are the kernel's vector instructions by type: their sum is at most All Active
for b in ("vector0", "vector1"):
    v = {e["name"]: int(e["value"]) for e in tab if e["block_type"] == b}
    assert v["Vector FP32"] + v["Vector FP16"] + v["Vector S32"] + v["Vector S16"] <= v["Vector All Active"], v
print("ok")
PY
}

# The reference's own on-board parse, where one is built: OPTRACE_REF_BOARD names a
# command taking DUMPDIR OUTDIR SOC that leaves its tree in OUTDIR/OPPROF_*.
@test "the compute-load blocks are byte-identical to the reference's (910B, 310P, A5 with OperandRecord.bin)" {
	ref=${OPTRACE_REF_BOARD:-}
	[ -n "$ref" ] && [ -x "$ref" ] || skip "OPTRACE_REF_BOARD does not name the reference's on-board parse"
	gen=$(command -v board-gen || echo "$top/build/bin/board-gen")
	"$GEN" -b 2 -k cube 910B a1
	"$GEN" -b 3 -n 123456789012 910B a2
	sed -i 's/^Current Freq=N\/A/Current Freq=1500/' a2/op_basic_info.txt
	"$GEN" -b 4 -k vector 910B a3
	"$gen" --chip 910B --blocks 6 --kind mix --loops 3 a4 >/dev/null
	"$GEN" -b 4 310P b1
	"$GEN" -k vector -b 2 A5 c1
	oprec c1/OperandRecord.bin 6  0 -1 0 3 30  1 5 15 7 7  1 2047 15 2 2  1 9 27 4 4
	"$gen" --chip A5 --blocks 4 --kind mix c2 >/dev/null
	oprec c2/OperandRecord.bin 12  4 3 20 5 5  9 -1 2 8 8
	dirs="a1 a2 a3 a4 b1 c1 c2"
	if [ -x "$top/build/ops/bin/op_acl" ]; then
		LD_LIBRARY_PATH=$top/build/cann/lib64 CAMODEL_SOC_VERSION=dav_3510 CAMODEL_DEVICE_DUMP=$PWD/c3 \
			"$top/build/ops/bin/op_acl" -s simt -n 2 >/dev/null
		dirs="$dirs c3"
	fi
	for d in $dirs; do
		case $d in a4) soc=Ascend910B1 ;; a*) soc=Ascend910B4 ;; b*) soc=Ascend310P3 ;; c*) soc=Ascend950PR_9589 ;; esac
		o=()
		[ ! -f "$d/OperandRecord.bin" ] || o=(--operand-records "$d/OperandRecord.bin")
		dump-split "$d" | board-metrics -q -o "opt.$d" --vdata "opt.$d/v.bin" "${o[@]}"
		"$ref" "$d" "ref.$d" "$soc" > "ref.$d.log" 2>&1 || { cat "ref.$d.log"; return 1; }
		r=$(find "ref.$d" -name visualize_data.bin)
		for t in COMPUTE_LOAD_FIGURE COMPUTE_LOAD_TABLE; do
			payload "opt.$d/v.bin" "$t" > opt.json
			payload "$r" "$t" > ref.json
			[ -s ref.json ]
			cmp ref.json opt.json || { echo "$d $t"; cat ref.json; echo; cat opt.json; return 1; }
		done
	done
}
