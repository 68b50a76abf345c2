#!/usr/bin/env bats
# mte-parse as a user runs it: dump-split DIR | mte-parse.

bats_require_minimum_version 1.5.0

setup() {
	tmp="$BATS_TEST_TMPDIR"
	dump="$tmp/dump"
	mkdir -p "$dump"
}

S1='[info] 19333: BRIF send_req, addr: 0x10f74400, size: 256, tag_id: 4, instr_id: 4, req_id: 5259'
S2='[info] 19687: BRIF recv_rsp, uop_cnt: 1, tnx_id: 0, tag_id: 4, instr_id: 4, req_id: 5259'
S3='[info] 19703: UB1WIF send_req, addr: 0x0, size: 128, tag_id: 4, instr_id: 4, req_id: 5985'
# A line without an interface name: ignored, as by the reference.
PAD='[info] 19335: MOV_OUT_TO_UB, set_cmd_done'

# usage: mtelog FILE 'line'... — writes the lines, then padding lines the
# parser ignores, so the file is larger than the reference's 500-byte cut.
mtelog() {
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
	while [ "$(wc -c <"$f")" -le 500 ]; do printf '%s\n' "$PAD" >>"$f"; done
}

xfers() { jq -c 'select(.kind=="mte_xfer") | [.core,.instr_id,.req_id,.path,.bytes,.tick]'; }
bw() { jq -c 'select(.kind=="mte_bw") | [.bucket_us,.GM_TO_UB,.GM_TO_L1,.GM_TO_TOTAL,.UB_TO_GM,.L1_TO_GM,.TOTAL_TO_GM]'; }

@test "example lines of optrace-sidelogs(5): one GM->UB request of 256 bytes at 10.642 us" {
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	run bash -c "dump-split '$dump' | mte-parse --json > '$tmp/out'"
	[ "$status" -eq 0 ]
	# round3(19687 / 1850) = 10.642 -> bucket 10; 256 x 0.95367431640625 = 244.140625
	[ "$(xfers <"$tmp/out")" = "[0,4,5259,0,256,19687]" ]
	run bw <"$tmp/out"
	[ "${#lines[@]}" -eq 12 ]
	[ "${lines[10]}" = "[10,244.140625,0,244.140625,0,0,0]" ]
	for i in 0 1 2 3 4 5 6 7 8 9 11; do
		[ "${lines[$i]}" = "[$i,0,0,0,0,0,0]" ]
	done
	[ "$(jq -c 'select(.kind=="header") | [.producer,.mhz]' <"$tmp/out")" = '["mte-parse",1850]' ]
	[ "$(jq -c 'select(.kind=="trailer") | [.bad,.dropped]' <"$tmp/out")" = '[0,0]' ]
}

@test "the clock: --soc-version selects the MHz (Ascend910B4, 1650)" {
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	# 19687 / 1650 = 11.9315 -> bucket 11
	run bash -c "dump-split '$dump' | mte-parse --soc-version=Ascend910B4 --json | jq -c 'select(.kind==\"mte_bw\" and .GM_TO_UB > 0) | .bucket_us'"
	[ "$output" = "11" ]
}

@test "interface names: BWIF times, UBRIF UB->GM, L1WIF GM->L1, L1RIF L1->GM, others GM<->other" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: UBRIF read, instr_id: 1, req_id: 1' \
		'[info] 1900: BWIF send_req, size: 64, instr_id: 1, req_id: 7' \
		'[info] 200: L1WIF write, instr_id: 2, req_id: 1' \
		'[info] 1950: BRIF recv_rsp, size: 32, instr_id: 2, req_id: 8' \
		'[info] 300: L1RIF read, instr_id: 3, req_id: 1' \
		'[info] 2000: BWIF recv_rsp, size: 16, instr_id: 3, req_id: 9' \
		'[info] 400: L0AWIF write, instr_id: 5, req_id: 1' \
		'[info] 2100: BRIF recv_rsp, size: 8, instr_id: 5, req_id: 10' \
		'[info] 500: FIXRIF read, instr_id: 6, req_id: 1' \
		'[info] 2200: BWIF recv_rsp, size: 4, instr_id: 6, req_id: 11'
	run bash -c "dump-split '$dump' | mte-parse --window=0 --json | jq -c 'select(.kind==\"mte_xfer\") | [.instr_id,.path,.bytes]' | sort"
	[ "${lines[0]}" = "[1,2,64]" ]   # UB_TO_GM
	[ "${lines[1]}" = "[2,1,32]" ]   # GM_TO_L1
	[ "${lines[2]}" = "[3,3,16]" ]   # L1_TO_GM
	[ "${lines[3]}" = "[5,4,8]" ]    # GM_TO_OTHER
	[ "${lines[4]}" = "[6,5,4]" ]    # OTHER_TO_GM
	# Bucket 1 (1900..2200 ticks / 1850 -> 1.027..1.189 us): the totals add up.
	run bash -c "dump-split '$dump' | mte-parse --json | jq -c 'select(.kind==\"mte_bw\" and .bucket_us==1) | [.GM_TO_UB,.GM_TO_L1,.GM_TO_TOTAL,.UB_TO_GM,.L1_TO_GM,.TOTAL_TO_GM] | map(. / 0.95367431640625)'"
	[ "$output" = "[0,32,40,64,16,84]" ]
}

@test "dotted interface names: x.y.UBRIF.z classifies UB->GM, a.L1WIF.b GM->L1" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 10: top.core0.UBRIF.port0 read, instr_id: 1, req_id: 3' \
		'[info] 1850: BWIF recv_rsp, size: 100, instr_id: 1, req_id: 4' \
		'[info] 20: top.L1WIF.p write, instr_id: 2, req_id: 3' \
		'[info] 1860: BRIF recv_rsp, size: 50, instr_id: 2, req_id: 5' \
		'[info] 30: top.core0.NOTANIF send, instr_id: 9, req_id: 3'
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err | jq -c 'select(.kind==\"mte_xfer\") | [.instr_id,.path,.bytes,.tick]'"
	[ "${lines[0]}" = "[1,2,100,1850]" ]
	[ "${lines[1]}" = "[2,1,50,1860]" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "gid stands in for req_id; a missing size is 0; the first non-zero size and the last tick count" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: BRIF send_req, instr_id: 7, gid: 42' \
		'[info] 200: BRIF recv_rsp, size: 512, instr_id: 7, gid: 42' \
		'[info] 300: BRIF recv_rsp, size: 64, instr_id: 7, gid: 42' \
		'[info] 150: BRIF send_req, instr_id: 7, req_id: 43' \
		'[info] 400: UB0WIF write, instr_id: 7, req_id: 1'
	run bash -c "dump-split '$dump' | mte-parse --json | jq -c 'select(.kind==\"mte_xfer\") | [.req_id,.bytes,.tick]'"
	[ "${lines[0]}" = "[42,512,300]" ]
	[ "${lines[1]}" = "[43,0,150]" ]
}

@test "the first classification wins" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: L1WIF write, instr_id: 1, req_id: 1' \
		'[info] 200: UB1WIF write, instr_id: 1, req_id: 2' \
		'[info] 2000: BRIF recv_rsp, size: 16, instr_id: 1, req_id: 3'
	run bash -c "dump-split '$dump' | mte-parse --json | jq -c 'select(.kind==\"mte_xfer\") | .path'"
	[ "$output" = "1" ]
}

@test "undetermined instructions: written with path 6, left out of the chart, counted" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: BRIF send_req, size: 16, instr_id: 1, req_id: 1' \
		'[info] 200: BRIF recv_rsp, instr_id: 1, req_id: 1'
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err > $tmp/out"
	[ "$status" -eq 0 ]
	[ "$(xfers <"$tmp/out")" = "[0,1,1,6,16,200]" ]
	[ -z "$(bw <"$tmp/out")" ]
	grep -q '1 instructions whose direction was never determined' "$tmp/err"
	grep -q 'core0.mte_log.dump: instr_id 1' "$tmp/err"
	[ "$(jq -c 'select(.kind=="diag") | [.count,.level]' <"$tmp/out")" = "[1,2]" ]
	[ "$(jq -c 'select(.kind=="trailer") | .dropped' <"$tmp/out")" = "1" ]
}

@test "two files are independent tables, summed into one chart" {
	# The same instr_id classified differently in each file.
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	mtelog "$dump/core0.mte_log.dump.1" \
		'[info] 19000: L1WIF write, instr_id: 4, req_id: 1' \
		'[info] 19690: BRIF recv_rsp, size: 128, instr_id: 4, req_id: 5259'
	mtelog "$dump/core1.mte_log.dump" "$S1" "$S2" "$S3"
	run bash -c "dump-split '$dump' | mte-parse --json > $tmp/out"
	[ "$status" -eq 0 ]
	[ "$(xfers <"$tmp/out" | sort | tr '\n' ' ')" = "[0,4,5259,0,256,19687] [0,4,5259,1,128,19690] [1,4,5259,0,256,19687] " ]
	# 512 + 128 + 128 bytes... GM_TO_UB 2 x 244.140625, GM_TO_L1 122.0703125, total both.
	[ "$(bw <"$tmp/out" | sed -n 11p)" = "[10,488.28125,122.0703125,610.3515625,0,0,0]" ]
	[ "$(bw <"$tmp/out" | wc -l)" -eq 12 ]
}

@test "CRLF lines parse" {
	printf '%s\r\n' "$S1" "$S2" "$S3" >"$dump/core0.mte_log.dump"
	while [ "$(wc -c <"$dump/core0.mte_log.dump")" -le 500 ]; do printf '%s\r\n' "$PAD" >>"$dump/core0.mte_log.dump"; done
	run bash -c "dump-split '$dump' | mte-parse --json | jq -c 'select(.kind==\"mte_xfer\") | [.req_id,.bytes,.tick]'"
	[ "$output" = "[5259,256,19687]" ]
}

@test "files of 500 bytes or less are skipped with a note naming them; --keep-small reads them" {
	printf '%s\n' "$S1" "$S2" "$S3" >"$dump/core0.mte_log.dump"
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err > $tmp/out"
	[ "$status" -eq 0 ]
	grep -q '1 MTE files of 500 bytes or less skipped' "$tmp/err"
	grep -q 'core0.mte_log.dump: 274 bytes, 3 lines skipped' "$tmp/err"
	[ -z "$(xfers <"$tmp/out")" ]
	[ -z "$(bw <"$tmp/out")" ]
	[ "$(jq -c 'select(.kind=="diag") | .count' <"$tmp/out")" = "1" ]
	run bash -c "dump-split '$dump' | mte-parse --keep-small --json 2>$tmp/err | jq -c 'select(.kind==\"mte_xfer\") | .bytes'"
	[ "$output" = "256" ]
	[ ! -s "$tmp/err" ]
}

@test "unparsable lines and lines without ids: counted with file:line, exit 1" {
	mtelog "$dump/core0.mte_log.dump" "$S1" \
		'garbage line' \
		'[info] abc: BRIF send_req, instr_id: 1, req_id: 1' \
		'[info] 5: BRIF send_req, size: 1, req_id: 1' \
		"$S2" "$S3"
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err > $tmp/out"
	[ "$status" -eq 1 ]
	grep -q '2 lines not in the MTE log grammar' "$tmp/err"
	grep -q 'core0.mte_log.dump:2: no \[info\] at column 0' "$tmp/err"
	grep -q 'core0.mte_log.dump:3: tick not a number' "$tmp/err"
	grep -q 'core0.mte_log.dump:4: no instr_id' "$tmp/err"
	[ "$(jq -c 'select(.kind=="trailer") | .bad' <"$tmp/out")" = "3" ]
	[ "$(xfers <"$tmp/out")" = "[0,4,5259,0,256,19687]" ]
}

@test "retirement: an instruction quiet for a window is written early; a late line is counted" {
	# --keep-small: retirement waits until a file is known to be larger than 500 bytes.
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: UB1WIF write, instr_id: 1, req_id: 1' \
		'[info] 200: BRIF recv_rsp, size: 32, instr_id: 1, req_id: 1' \
		'[info] 5000: BRIF recv_rsp, size: 32, instr_id: 2, req_id: 2' \
		'[info] 5100: BRIF recv_rsp, size: 32, instr_id: 1, req_id: 3' \
		'[info] 5200: UB1WIF write, instr_id: 2, req_id: 1'
	run bash -c "dump-split '$dump' | mte-parse --keep-small --window=3000 --json 2>$tmp/err | jq -c 'select(.kind==\"mte_xfer\") | [.instr_id,.req_id]'"
	[ "${lines[0]}" = "[1,1]" ]
	grep -q '1 lines for an instruction already retired' "$tmp/err"
	grep -q 'core0.mte_log.dump:4:' "$tmp/err"
	# With no window the table is the reference's: no late lines.
	run bash -c "dump-split '$dump' | mte-parse --window=0 --json 2>$tmp/err | jq -c 'select(.kind==\"mte_xfer\") | [.instr_id,.req_id]' | tr '\n' ' '"
	[ "$output" = "[1,1] [1,3] [2,2] " ]
	[ ! -s "$tmp/err" ]
}

@test "buckets beyond 60,000,000 us are dropped with a warning" {
	mtelog "$dump/core0.mte_log.dump" \
		'[info] 100: UB1WIF write, instr_id: 1, req_id: 1' \
		'[info] 111000001850: BRIF recv_rsp, size: 32, instr_id: 1, req_id: 1'
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err > $tmp/out"
	[ "$status" -eq 0 ]
	grep -q '1 requests in buckets beyond 60,000,000 us' "$tmp/err"
	[ -z "$(bw <"$tmp/out")" ]
	[ "$(xfers <"$tmp/out")" = "[0,1,1,0,32,111000001850]" ]
}

@test "other records pass through; -o writes the file; text output" {
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	mkdir -p "$tmp/mix"
	cp -r "$BATS_TEST_DIRNAME/../data/910B/." "$tmp/mix/"
	cp "$dump/core0.mte_log.dump" "$tmp/mix/"
	n_in=$(dump-split "$tmp/mix" 2>/dev/null | rec-cat --json | jq -c 'select(.kind=="line" and .log!="mte")' | wc -l)
	run bash -c "dump-split '$tmp/mix' 2>/dev/null | mte-parse -o '$tmp/o.rec'"
	[ "$status" -eq 0 ]
	[ "$(rec-cat --json "$tmp/o.rec" | jq -c 'select(.kind=="line")' | wc -l)" -eq "$n_in" ]
	[ "$(rec-cat --json "$tmp/o.rec" | jq -c 'select(.kind=="mte_xfer")' | wc -l)" -eq 1 ]
	run bash -c "dump-split '$dump' | mte-parse --text"
	grep -q '^mte_xfer core=0 instr_id=4 req_id=5259 path=0 bytes=256 tick=19687' <<<"$output"
}

@test "usage errors exit 2; a broken pipe is quiet" {
	run mte-parse --no-such-option
	[ "$status" -eq 2 ]
	run mte-parse --soc-version=Nope </dev/null
	[ "$status" -eq 2 ]
	run mte-parse --help
	[ "$status" -eq 0 ]
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	run bash -c "dump-split '$dump' | mte-parse --json 2>$tmp/err | head -1"
	[ "$status" -eq 0 ]
	[ ! -s "$tmp/err" ]
}

@test "pipeline: dump-split | mte-parse | timeline-emit draws the MTE Throughput counters" {
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	run bash -c "dump-split '$dump' | mte-parse | timeline-emit --aic-metrics=PipeUtilization,ResourceConflictRatio,PMSampling -o '$tmp/out' >/dev/null 2>&1"
	[ "$status" -eq 0 ]
	run jq -c '[.traceEvents[] | select(.pid=="MTE Throughput" and .ph=="C")] | length' "$tmp/out/trace.json"
	[ "$output" -eq 72 ]
	run jq -c '.traceEvents[] | select(.pid=="MTE Throughput" and .ph=="C" and .ts==10 and .name=="GM_TO_UB") | .args["throughput(MB/s)"]' "$tmp/out/trace.json"
	[ "$output" = "244.140625" ]
}

@test "golden outputs: the example lines of optrace-sidelogs(5) and the 910B sample (test/golden/stages)" {
	sh "$BATS_TEST_DIRNAME/../golden/stages/make.sh" "$BATS_TEST_TMPDIR/golden"
	for n in mte-910B mte-trace-910B; do
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.jsonl" "$BATS_TEST_TMPDIR/golden/$n.jsonl"
		diff "$BATS_TEST_DIRNAME/../golden/stages/out/$n.err" "$BATS_TEST_TMPDIR/golden/$n.err"
	done
}

@test "--lz4 with a terminal on stdout: refused, exit 2, no lz4 bytes written" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	dump-split "$dump" > "$tmp/in.rec"
	script -qec "mte-parse --lz4 '$tmp/in.rec'; echo \"status=\$?\"" /dev/null </dev/null >"$tmp/tty.out"
	cat -v "$tmp/tty.out"
	grep -q 'status=2' "$tmp/tty.out"
	grep -q 'mte-parse: refusing to write compressed data to a terminal' "$tmp/tty.out"
	! grep -a -q "$(printf '\042\115\030')" "$tmp/tty.out"
}

@test "SoC: --soc-version wins over the stream header (its name and clock), the header over the default" {
	mtelog "$dump/core0.mte_log.dump" "$S1" "$S2" "$S3"
	dump-split --soc-version=Ascend310P1 "$dump" > "$tmp/in.rec"
	# the header's SoC and clock: 19687 ticks at 1060 MHz = 18.573 us
	run bash -c "mte-parse --json '$tmp/in.rec' | jq -c 'select(.kind==\"header\") | [.soc, .mhz]'"
	[ "$output" = '["Ascend310P1",1060]' ]
	run bash -c "mte-parse --json '$tmp/in.rec' | jq -c 'select(.kind==\"mte_bw\" and .GM_TO_UB > 0) | .bucket_us'"
	[ "$output" = 18 ]
	# the option's: 19687 / 1650 = 11.93 us
	run bash -c "mte-parse --soc-version=ascend910b4 --json '$tmp/in.rec' | jq -c 'select(.kind==\"header\") | [.soc, .mhz]'"
	[ "$output" = '["Ascend910B4",1650]' ]
	run bash -c "mte-parse --soc-version=Ascend910B4 --json '$tmp/in.rec' | jq -c 'select(.kind==\"mte_bw\" and .GM_TO_UB > 0) | .bucket_us'"
	[ "$output" = 11 ]
	# no header: the default
	run bash -c "rec-cat --json '$tmp/in.rec' | sed 1d | mte-parse --json 2>/dev/null | jq -c 'select(.kind==\"header\") | [.soc, .mhz]'"
	[ "$output" = '["Ascend910B1",1850]' ]
}

@test "an unknown --soc-version: exit 2, the one message, nothing written" {
	run --separate-stderr mte-parse --soc-version=Nope </dev/null
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "mte-parse: --soc-version: unknown SoC 'Nope' (want a name of the SoC table"* ]]
}
