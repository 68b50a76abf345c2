#!/usr/bin/env bats
# instr-parse as a user runs it: dump-split DIR | instr-parse.

setup() {
	data="$BATS_TEST_DIRNAME/../data"
	tmp="$BATS_TEST_TMPDIR"
}

# A hand-made stream of raw-line records for one sub-core (JSON Lines).
# usage: lines LOG 'text' ['text'...]
lines() {
	local log=$1 n=0
	shift
	for t in "$@"; do
		n=$((n + 1))
		jq -nc --arg t "$t" --arg log "$log" --argjson n "$n" \
			'{kind:"line",file:(if $log=="popped" then 1 else 0 end),core:0,sub:"veccore",subidx:0,log:$log,line:$n,text:$t}'
	done
}
trailer() { echo '{"kind":"trailer","records":0,"bad":0,"dropped":0,"interrupted":0,"producer":"test"}'; }
instrs() { jq -c 'select(.kind=="instr")'; }

@test "910B sample: 6 paired instructions per sub-core, in readable form" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse --text"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^core0.veccore0  *\[' <<<"$output")" -eq 6 ]
	[ "$(grep -c '^core0.veccore1  *\[' <<<"$output")" -eq 6 ]
	grep -q '^core0.veccore0  *Mark 0x1 \[11746, 14010\]' <<<"$output"
	grep -q 'core0.veccore0  *\[11035, 11036\] 0x10f86000 SCALAR  *MOV_XD_IMM XD:X29=0x7f80,IMM:0x7f80,' <<<"$output"
	grep -q '\[11416, 11690\] 0x10f86084 MTE2  *SET_FLAG PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,' <<<"$output"
	grep -q '\[11416, 11691\] 0x10f86088 SCALAR  *WAIT_FLAG' <<<"$output"
}

@test "910B sample: the trace mark Mark 0x1 [11746, 14010]" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"mark\") | [.name, .start, .end, .start_pc, .end_pc]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '["Mark 0x1",11746,14010,"0x10f86148","0x10f86390"]' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "newer simulators' marks (SPR:COND, for SPR:LPCNT) give the same mark; a COND: operand is no mark" {
	mkdir -p "$tmp/cond" "$tmp/lt"
	for f in "$data"/910B/*instr*; do
		sed 's/SPR:LPCNT,/SPR:COND,/' "$f" >"$tmp/cond/${f##*/}"
		# the mark lines as plain instructions: COND: and CNT in operands
		sed 's/SPR:LPCNT, XN/COND:LT, SPR:PCNT, XN/' "$f" >"$tmp/lt/${f##*/}"
	done
	grep -q 'SPR:COND, XN:X6=0x80000001' "$tmp/cond/core0.veccore0.instr_popped_log.dump"
	run bash -c "dump-split '$tmp/cond' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"mark\") | [.name, .start, .end, .start_pc, .end_pc]'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '["Mark 0x1",11746,14010,"0x10f86148","0x10f86390"]' ]
	[ "${#lines[@]}" -eq 2 ]
	run bash -c "dump-split '$tmp/lt' 2>/dev/null | instr-parse --json 2>/dev/null | jq -r 'select(.kind==\"mark\" or .name==\"MOV_SPR_XN\") | .kind + \" \" + .pipe'"
	[ "${lines[0]}" = "instr SCALAR" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "910B sample: GPR counts in pc order are [1,1,2,2,0,0]" {
	run bash -c "dump-split --core=core0.veccore0 '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map(.gpr)'"
	[ "$status" -eq 0 ]
	[ "$output" = "[1,1,2,2,0,0]" ]
}

@test "910B sample: start and end ticks of every pair" {
	run bash -c "dump-split --core=core0.veccore1 '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map([.pc,.start,.end])'"
	[ "$output" = '[["0x10f86000",11035,11036],["0x10f86004",11036,11037],["0x10f86008",11036,11037],["0x10f8600c",11037,11038],["0x10f86084",11416,11690],["0x10f86088",11416,11691]]' ]
}

@test "unmatched executions are counted, reported with file:line, and in the trailer" {
	run bash -c "dump-split --core=core0.veccore0 '$data/910B' 2>/dev/null | instr-parse --json 2>$tmp/err"
	[ "$status" -eq 0 ]
	grep -q '4 executed lines without a popped partner' "$tmp/err"
	grep -q 'core0.veccore0.instr_log.dump:9: no partner' "$tmp/err"
	[ "$(jq -c 'select(.kind=="trailer") | .dropped' <<<"$output")" -eq 4 ]
	[ "$(jq -c 'select(.kind=="diag") | .count' <<<"$output")" -eq 4 ]
}

@test "A5 sample: 3 instructions paired by id" {
	run bash -c "dump-split '$data/A5' 2>/dev/null | instr-parse --soc-version=Ascend950PR_9599 --json 2>/dev/null | jq -c 'select(.kind==\"instr\") | [.id,.start,.end,.name]'"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = '[123,745,749,"ADD_IMM"]' ]
	[ "${lines[1]}" = '[124,745,749,"MOV_XD_SPR"]' ]
	[ "${lines[2]}" = '[125,746,750,"MOVK"]' ]
}

@test "A5: pairing follows the id, not the pc" {
	{
		lines popped '[info] [00000010] (PC: 0x100) SCALAR   : (Binary: 0x00000001) (ID: 000001) ADD  XD:X1=0x1, ' \
			'[info] [00000011] (PC: 0x100) SCALAR   : (Binary: 0x00000001) (ID: 000002) ADD  XD:X1=0x2, '
		lines instr '[info] [00000020] (PC: 0x100) SCALAR   : (Binary: 0x00000001) (ID: 000002) ADD  XD:X1=0x2, ' \
			'[info] [00000030] (PC: 0x100) SCALAR   : (Binary: 0x00000001) (ID: 000001) ADD  XD:X1=0x1, '
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --soc-version=Ascend950PR_9599 --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.id) | map([.id,.start,.end])'"
	[ "$output" = '[[1,10,30],[2,11,20]]' ]
}

@test "310P grammar: name(args), ISSUE pipes, poped from IQ dropped, pop success kept" {
	{
		lines popped '[info] [00000344](PC: 0x10cfa03c) MTE2 : (Binary: 0x74401100) mov_out_to_ub(xd:0, xn:1, xm:2, xdValue:0x0, xnValue:0x1068be00, xmValue:0x10010, srcIDValue:2, destIDValue:1, reluValue:0, padValue:0), instr ID is: 1. poped from IQ' \
			'[info] [00000345](PC: 0x10cfa03c) MTE2 : (Binary: 0x74401100) mov_out_to_ub(xd:0, xn:1, xm:2, xdValue:0x0, xnValue:0x1068be00, xmValue:0x10010, srcIDValue:2, destIDValue:1, reluValue:0, padValue:0), instr ID is: 1. pop success 1' \
			'[info] [00000500](PC: 0x10cfa2f8) SCALAR ISSUE : (Binary: 0x40a20098) set_event(pipe_type: SCALAR, tigger_pipe: VECTOR, event_id: 0)'
		lines instr '[info] [00000350](PC: 0x10cfa03c) MTE2 : (Binary: 0x74401100) mov_out_to_ub(xd:0, xn:1, xm:2, xdValue:0x0, xnValue:0x1068be00, xmValue:0x10010, srcIDValue:2, destIDValue:1, reluValue:0, padValue:0), instr ID is: 1' \
			'[info] [00000502](PC: 0x10cfa2f8) SCALAR ISSUE : (Binary: 0x40a20098) set_event(pipe_type: SCALAR, tigger_pipe: VECTOR, event_id: 0)'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --soc-version=Ascend310P1 --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map([.start,.end,.pipe,.name,.detail,.bytes])'"
	[ "${lines[0]}" = '[[345,350,"MTE2","mov_out_to_ub","xd:0,xn:1,xm:2,xdValue:0x0,xnValue:0x1068be00,xmValue:0x10010,srcIDValue:2,destIDValue:1,reluValue:0,padValue:0",32],[500,502,"SCALAR","set_event","pipe_type:SCALAR,tigger_pipe:VECTOR,event_id:0",0]]' ]
}

@test "910B sample: SET_FLAG and WAIT_FLAG records carry sync, prod, cons and flag" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse 2>/dev/null | rec-cat --json | jq -c 'select(.kind==\"instr\" and (.name==\"SET_FLAG\" or .name==\"WAIT_FLAG\")) | [.name,.sync,.prod,.cons,.flag]'"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(sort -u <<<"$output" | tr '\n' ' ')" = '["SET_FLAG","set","MTE2","SCALAR","0"] ["WAIT_FLAG","wait","MTE2","SCALAR","0"] ' ]
}

@test "910B sample: no other instruction has sync fields" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"instr\" and .name!=\"SET_FLAG\" and .name!=\"WAIT_FLAG\") | [.sync,.prod,.cons,.flag]' | sort -u"
	[ "$status" -eq 0 ]
	[ "$output" = '["","","",""]' ]
}

@test "sync fields: keys in any order, blanks in keys and values, the pipe names as written" {
	{
		lines popped '[info] [00000010] (PC: 0x100) MTE3     : (Binary: 0x40a01000) WAIT_FLAG  FLAG ID:7, TRIGGER PIPE:MTE3, PIPE:V,' \
			'[info] [00000011] (PC: 0x104) SCALAR   : (Binary: 0x40a01000) SET_FLAG  PIPE:S, FLAG ID:2,'
		lines instr '[info] [00000020] (PC: 0x100) MTE3     : (Binary: 0x40a01000) WAIT_FLAG  FLAG ID:7, TRIGGER PIPE:MTE3, PIPE:V,' \
			'[info] [00000021] (PC: 0x104) SCALAR   : (Binary: 0x40a01000) SET_FLAG  PIPE:S, FLAG ID:2,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse '$tmp/in' 2>/dev/null | rec-cat --json | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map([.sync,.prod,.cons,.flag])'"
	[ "$output" = '[["wait","V","MTE3","7"],["set","S","","2"]]' ]
}

@test "310P: set_event and wait_event carry pipe_type, tigger_pipe (or trigger_pipe) and event_id" {
	{
		lines popped '[info] [00000500](PC: 0x10cfa2f8) SCALAR ISSUE : (Binary: 0x40a20098) set_event(pipe_type: SCALAR, tigger_pipe: VECTOR, event_id: 0)' \
			'[info] [00000510](PC: 0x10cfa300) VECTOR ISSUE : (Binary: 0x40a20099) wait_event(pipe_type: SCALAR, trigger_pipe: VECTOR, event_id: 3)'
		lines instr '[info] [00000502](PC: 0x10cfa2f8) SCALAR ISSUE : (Binary: 0x40a20098) set_event(pipe_type: SCALAR, tigger_pipe: VECTOR, event_id: 0)' \
			'[info] [00000520](PC: 0x10cfa300) VECTOR ISSUE : (Binary: 0x40a20099) wait_event(pipe_type: SCALAR, trigger_pipe: VECTOR, event_id: 3)'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --soc-version=Ascend310P1 '$tmp/in' 2>/dev/null | rec-cat --json | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map([.name,.sync,.prod,.cons,.flag])'"
	[ "$output" = '[["set_event","set","SCALAR","VECTOR","0"],["wait_event","wait","SCALAR","VECTOR","3"]]' ]
}

@test "A5: intra-block sync carries its pipe and sync_id, BAR its pipe" {
	{
		lines popped '[info] [00000010] (PC: 0x100) FIXP     : (Binary: 0x00000001) (ID: 000001) SET_INTRA_BLOCK  PIPE:FIXP, sync_id:19, ' \
			'[info] [00000011] (PC: 0x104) VEC      : (Binary: 0x00000002) (ID: 000002) WAIT_INTRA_BLOCKI  PIPE:V, sync_id:3, ' \
			'[info] [00000012] (PC: 0x108) VEC      : (Binary: 0x00000003) (ID: 000003) BAR  PIPE:V, '
		lines instr '[info] [00000020] (PC: 0x100) FIXP     : (Binary: 0x00000001) (ID: 000001) SET_INTRA_BLOCK  PIPE:FIXP, sync_id:19, ' \
			'[info] [00000021] (PC: 0x104) VEC      : (Binary: 0x00000002) (ID: 000002) WAIT_INTRA_BLOCKI  PIPE:V, sync_id:3, ' \
			'[info] [00000022] (PC: 0x108) VEC      : (Binary: 0x00000003) (ID: 000003) BAR  PIPE:V, '
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --soc-version=Ascend950PR_9599 '$tmp/in' 2>/dev/null | rec-cat --json | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.id) | map([.name,.sync,.prod,.cons,.flag])'"
	[ "$output" = '[["SET_INTRA_BLOCK","set_intra","FIXP","","19"],["WAIT_INTRA_BLOCKI","wait_intra","V","","3"],["BAR","bar","V","",""]]' ]
}

@test "process bytes: MOV_OUT_TO_L1 with XM=0x100010 moves 512 bytes" {
	{
		lines popped '[info] [00000100] (PC: 0x200) MTE2     : (Binary: 0x12345678) MOV_OUT_TO_L1  Src:OUT, Dst:L1, XD:X9=0x70000, XN:X0=0x113f9600, XM:X3=0x100010,'
		lines instr '[info] [00000200] (PC: 0x200) MTE2     : (Binary: 0x12345678) MOV_OUT_TO_L1  Src:OUT, Dst:L1, XD:X9=0x70000, XN:X0=0x113f9600, XM:X3=0x100010,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -c 'select(.kind==\"instr\") | .bytes'"
	[ "$output" = "512" ]
}

@test "vector utilisation: VSUBRELU after a mask in element-count mode gives 3.725490 %" {
	{
		lines popped '[info] [00000100] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000101] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000102] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,'
		lines instr '[info] [00000110] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000111] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000112] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -r 'select(.kind==\"instr\" and .name==\"VSUBRELU\") | .vec_util * 1000000 | round'"
	[ "$output" = "3725490" ]
}

@test "UB conflict: sources 0x0 and 0x200 stride 1 read 1, destination 0x400 write 0" {
	{
		lines popped '[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x400, XN:X2=0x0, XM:X3=0x200, XT:X4=0x100000000010101, Dtype:F32,'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x400, XN:X2=0x0, XM:X3=0x200, XT:X4=0x100000000010101, Dtype:F32,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -c 'select(.kind==\"instr\") | [.ub_read,.ub_write]'"
	[ "$output" = "[1,0]" ]
}

@test "prune: micro-op exec lines within 8 cycles collapse to the last one" {
	{
		lines popped '[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000200] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000115] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000210] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>$tmp/err | jq -s -c 'map(select(.kind==\"instr\")) | map([.start,.end])'"
	[ "$output" = "[[100,115],[200,210]]" ]
	grep -q '1 micro-op lines merged by the prune rules' "$tmp/err"
}

@test "prune: without a count mismatch nothing collapses" {
	{
		lines popped '[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000101] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000112] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | map([.start,.end])'"
	[ "$output" = "[[100,110],[101,112]]" ]
}

@test "prune: back-to-back pops collapse when executions are fewer" {
	{
		lines popped '[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,' \
			'[info] [00000101] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | map([.start,.end])'"
	[ "$output" = "[[101,110]]" ]
}

@test "a pop after its execution drops the pair and counts it" {
	{
		lines popped '[info] [00000120] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>$tmp/err | jq -c 'select(.kind==\"instr\")' | wc -l"
	[ "$output" -eq 0 ]
	grep -q '1 pairs dropped because the pop tick is after the exec tick' "$tmp/err"
}

@test "CRLF lines parse; unparsable lines are counted with file:line and exit 1" {
	{
		lines popped $'[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,\r' 'garbage line'
		lines instr $'[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) VADD  XD:X1=0x0,\r'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>$tmp/err"
	[ "$status" -eq 1 ]
	[ "$(jq -c 'select(.kind=="instr") | [.start,.end,.detail]' <<<"$output")" = '[100,110,"XD:X1=0x0,"]' ]
	[ "$(jq -c 'select(.kind=="trailer") | .bad' <<<"$output")" -eq 1 ]
	grep -q '1 lines not in the instr/popped grammar' "$tmp/err"
	grep -q ':2: popped' "$tmp/err"
}

@test "SIMT: warp and scheduler ids from the pop, thread count from the exec masks" {
	{
		lines popped '[info] [00000100] (PC: 0x100) VEC      : (Binary: 0x12345678) (ID: 000001) VADD  [Rd:5|R],[warpId:59],[bundleId:14],[schId:3],[prdctMask:ffffffff],[execMask:ffffffff],'
		lines instr '[info] [00000110] (PC: 0x100) VEC      : (Binary: 0x12345678) (ID: 000001) VADD  [Rd:5|R],[warpId:59],[bundleId:14],[schId:3],[prdctMask:0000ffff],[execMask:00ff00ff],'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --soc-version=Ascend950PR_9599 --json '$tmp/in' 2>/dev/null | jq -c 'select(.kind==\"instr\") | [.warp,.sch,.threads,(.detail|endswith(\", [threadNum:8]\"))]'"
	[ "$output" = "[59,3,8,true]" ]
}

@test "logical block ids come from the BLOCKID and SUBBLOCKID reads" {
	{
		lines popped '[info] [00001623] (PC: 0x126cf2dc) SCALAR   : (Binary: 0x02161880) MOV_XD_SPR  XD:X11=0x1f, SPR:BLOCKID,' \
			'[info] [00001679] (PC: 0x126cf340) SCALAR   : (Binary: 0x02dc0880) MOV_XD_SPR  XD:X14=0x1, SPR:SUBBLOCKID,'
		lines instr '[info] [00001624] (PC: 0x126cf2dc) SCALAR   : (Binary: 0x02161880) MOV_XD_SPR  XD:X11=0x1f, SPR:BLOCKID,' \
			'[info] [00001680] (PC: 0x126cf340) SCALAR   : (Binary: 0x02dc0880) MOV_XD_SPR  XD:X14=0x1, SPR:SUBBLOCKID,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | map([.block,.subblock]) | unique'"
	[ "$output" = "[[31,1]]" ]
}

@test "records it does not consume pass through untouched" {
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -r 'select(.kind==\"line\") | .log' | sort | uniq -c"
	[ "$status" -eq 0 ]
	grep -q '6 icache' <<<"$output"
	run bash -c "dump-split '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"source\")' | wc -l"
	[ "$output" -eq 6 ]
}

@test "a stream without a trailer is reported and the output still completes" {
	run bash -c "dump-split --json '$data/910B' 2>/dev/null | grep -v trailer | instr-parse --json 2>$tmp/err"
	[ "$status" -eq 1 ]
	grep -q 'cut short' "$tmp/err"
	[ "$(jq -c 'select(.kind=="instr")' <<<"$output" | wc -l)" -eq 12 ]
	[ "$(tail -n 1 <<<"$output" | jq -r .kind)" = trailer ]
}

@test "binary and JSON input, even mixed, give the same instructions" {
	dump-split "$data/910B" >"$tmp/bin"
	dump-split --json "$data/910B" >"$tmp/json"
	{ head -n 20 "$tmp/bin"; tail -n +21 "$tmp/json"; } >"$tmp/mixed"
	a=$(instr-parse --json <"$tmp/bin" | instrs)
	b=$(instr-parse --json <"$tmp/json" | instrs)
	c=$(instr-parse --json <"$tmp/mixed" | instrs)
	[ "$a" = "$b" ]
	[ "$a" = "$c" ]
	[ -n "$a" ]
}

@test "lz4 input and output" {
	dump-split "$data/910B" | lz4 -q >"$tmp/in.lz4"
	instr-parse --lz4 -o "$tmp/out.lz4" "$tmp/in.lz4"
	[ "$(lz4 -dc "$tmp/out.lz4" | rec-cat --json | instrs | wc -l)" -eq 12 ]
}

@test "-o writes the file only on success; bad usage exits 2" {
	run instr-parse --soc-version=NoSuchChip -o "$tmp/out" /dev/null
	[ "$status" -eq 2 ]
	[ ! -e "$tmp/out" ]
	run instr-parse --no-such-option
	[ "$status" -eq 2 ]
	run instr-parse "$tmp/missing"
	[ "$status" -eq 3 ]
}

@test "--help and --version" {
	run instr-parse --help
	[ "$status" -eq 0 ]
	grep -q usage <<<"$output"
	run instr-parse --version
	[ "$status" -eq 0 ]
}

@test "a broken pipe downstream ends quietly" {
	run bash -c "dump-split --json '$data/910B' 2>/dev/null | instr-parse --json 2>$tmp/err | head -n 1"
	[ "$status" -eq 0 ]
	! grep -q 'write' "$tmp/err"
}

@test "spooling to temporary files gives the same records as memory" {
	gen-dump -s 3 -c 2 -o "$tmp/d"
	dump-split "$tmp/d" >"$tmp/lines" 2>/dev/null
	instr-parse -q "$tmp/lines" >"$tmp/mem"
	OPTRACE_SPOOL_MEM=0 TMPDIR="$tmp" instr-parse -q "$tmp/lines" >"$tmp/file"
	cmp "$tmp/mem" "$tmp/file"
	[ "$(rec-cat --count "$tmp/mem" | grep -c instr)" -eq 1 ]
	# nothing left behind in TMPDIR (the spool files are unlinked at once)
	[ "$(ls "$tmp" | wc -l)" -eq 4 ]
}

@test "A5 generated dump pairs by id" {
	gen-dump --soc A5 -s 1 -c 1 -o "$tmp/a5"
	run bash -c "dump-split '$tmp/a5' 2>/dev/null | instr-parse -q --soc-version=Ascend950PR_9599 --json | jq -s 'map(select(.kind==\"instr\")) | length'"
	[ "$status" -eq 0 ]
	[ "$output" -gt 1000 ]
}

@test "vector state comes from the writer's latest pair that survives" {
	# The second MOVEMASK pops after its exec: that pair is dropped, so the
	# VSUBRELU sees the first mask (0x260), not 0xffff.
	{
		lines popped '[info] [00000100] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000101] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000102] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,' \
			'[info] [00000300] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0xffff, Pos:0,'
		lines instr '[info] [00000110] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000111] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000112] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,' \
			'[info] [00000290] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0xffff, Pos:0,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -r 'select(.kind==\"instr\" and .name==\"VSUBRELU\") | .vec_util * 1000000 | round'"
	[ "$output" = "3725490" ]
}

@test "vector state of a writer with micro-op exec lines is its last pop's" {
	# Two MOVEMASKs, the second with two exec lines 3 cycles apart (pruned
	# to one): the VSUBRELU sees the second mask, 0xff (in element-count
	# mode: 255 elements x 4 bytes / 65280 = 1.5625 %).
	{
		lines popped '[info] [00000100] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000101] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000201] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0xff, Pos:0,' \
			'[info] [00000302] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,'
		lines instr '[info] [00000110] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_SPR_XN  SPR:CTRL, XN:X1=0x100000000000000,' \
			'[info] [00000111] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0x260, Pos:0,' \
			'[info] [00000211] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0xff, Pos:0,' \
			'[info] [00000214] (PC: 0x104) VEC      : (Binary: 0x12345678) MOVEMASK  XN:X2=0xff, Pos:0,' \
			'[info] [00000312] (PC: 0x108) VEC      : (Binary: 0x12345678) VSUBRELU  XD:X3=0x0, XN:X4=0x0, XM:X5=0x200, XT:X6=0x100080808010101, Dtype:F32,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -c 'select(.kind==\"instr\" and .pc==\"0x104\") | [.start,.end]'"
	[ "${lines[0]}" = "[101,111]" ]
	[ "${lines[1]}" = "[201,214]" ]
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -r 'select(.kind==\"instr\" and .name==\"VSUBRELU\") | .vec_util * 1000000 | round'"
	[ "$output" = "1562500" ]
}

@test "a pc whose only pair is dropped is left out of the table and of the GPR walk" {
	# pc 0x104 pairs only with its pop after its exec: no record; the walk
	# over 0x100 and 0x108 gives 1 and 2 (X1; X1 and X3).
	{
		lines popped '[info] [00000100] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_XD_IMM  XD:X1=0x1, IMM:0x1,' \
			'[info] [00000300] (PC: 0x104) SCALAR   : (Binary: 0x12345678) MOV_XD_IMM  XD:X2=0x1, IMM:0x1,' \
			'[info] [00000102] (PC: 0x108) SCALAR   : (Binary: 0x12345678) ADD  dtype:S64, XD:X3=0x2, XN:X1=0x1, XM:X1=0x1,'
		lines instr '[info] [00000110] (PC: 0x100) SCALAR   : (Binary: 0x12345678) MOV_XD_IMM  XD:X1=0x1, IMM:0x1,' \
			'[info] [00000200] (PC: 0x104) SCALAR   : (Binary: 0x12345678) MOV_XD_IMM  XD:X2=0x1, IMM:0x1,' \
			'[info] [00000112] (PC: 0x108) SCALAR   : (Binary: 0x12345678) ADD  dtype:S64, XD:X3=0x2, XN:X1=0x1, XM:X1=0x1,'
		trailer
	} >"$tmp/in"
	run bash -c "instr-parse --json '$tmp/in' 2>/dev/null | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.pc) | map([.pc,.gpr])'"
	[ "$output" = '[["0x100",1],["0x108",2]]' ]
}

# An A5 dump of a loop run twice, written by hand: ADD R1 (counter), MOV R2
# from R1, ST of R2; ids in program order, pops and executions 2 ticks apart.
a5_loop() {
	mkdir -p "$1"
	python3 - "$1" <<'PY'
import sys
body = [(0x11bbe100, 'ADD', '[Rd:1|R],[Rn:1|R],'), (0x11bbe104, 'MOV', '[Rd:2|R],[Rn:1|R],'),
        (0x11bbe108, 'ST', '[Rn:2|R],')]
pop, ex, t, i = [], [], 100, 1
for _ in range(2):
    for pc, name, det in body:
        fmt = '[info] [%08d] (PC: 0x%x) SCALAR   : (Binary: 0x12345678) (ID: %06d) %s  %s'
        pop.append(fmt % (t, pc, i, name, det)); ex.append(fmt % (t + 2, pc, i, name, det))
        t += 1; i += 1
open(sys.argv[1] + '/core0.veccore0.instr_popped_log.dump', 'w').write('\n'.join(pop) + '\n')
open(sys.argv[1] + '/core0.veccore0.instr_log.dump', 'w').write('\n'.join(ex) + '\n')
PY
}

@test "A5: live GPRs are counted over every execution in instruction-id order" {
	a5_loop "$tmp/loop"
	run bash -c "dump-split --soc-version=Ascend950PR_9599 '$tmp/loop' | instr-parse --json | jq -s -c 'map(select(.kind==\"instr\")) | sort_by(.id) | map(.gpr)'"
	[ "$status" -eq 0 ]
	# In id order R2 is live from its MOV to its ST in each pass, and R1
	# from the first ADD to the last MOV: the first ST sees both.  (In pc
	# order the ST would come after the last use of R1: 1.)
	[ "$output" = "[1,2,2,1,2,1]" ]
}

@test "310B: no calculator runs, as in the reference: 0 live GPRs, 0 bytes, -1 utilisation and conflicts" {
	run bash -c "dump-split --soc-version=Ascend310B1 '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"instr\") | [.gpr, .bytes, .vec_util, .ub_read, .ub_write]' | sort | uniq -c"
	[ "$status" -eq 0 ]
	[ "$(wc -l <<<"$output")" -eq 1 ]
	[[ "$output" == *' [0,0,-1,-1,-1]' ]]
	# 310P runs them
	run bash -c "dump-split --soc-version=Ascend310P1 '$data/910B' 2>/dev/null | instr-parse --json 2>/dev/null | jq -c 'select(.kind==\"instr\") | .gpr' | sort -u | tr '\n' ' '"
	[[ "$output" == *2* ]]
}

@test "operands that change on every execution: each record has its pop's name and detail, in memory and spooled" {
	# gen-dump --unique: the pops of a pc differ in their operands, so the
	# spool keeps each detail as a difference from the pc's previous one.
	gen-dump --unique -s 2 -c 1 -o "$tmp/u"
	dump-split "$tmp/u" >"$tmp/lines" 2>/dev/null
	instr-parse -q "$tmp/lines" >"$tmp/mem"
	OPTRACE_SPOOL_MEM=0 TMPDIR="$tmp" instr-parse -q "$tmp/lines" >"$tmp/file"
	cmp "$tmp/mem" "$tmp/file"
	rec-cat --json "$tmp/mem" | jq -r 'select(.kind=="instr") | "\(.start) \(.pc) \(.name) \(.detail)"' |
		sort >"$tmp/got"
	# The popped lines, marks left out (they never pair), details space-free.
	grep -hv LPCNT "$tmp"/u/core0.veccore*.instr_popped_log.dump |
		sed -E 's/^\[info\] \[0*([0-9]+)\] \(PC: 0x([0-9a-f]+)\) [A-Z0-9]+ *: \(Binary: 0x[0-9a-f]+\) ([A-Z0-9_]+)  (.*)$/\1 \2 \3 \4/' |
		awk '{ d = ""; for (i = 4; i <= NF; i++) d = d $i; printf "%s 0x%s %s %s\n", $1, $2, $3, d }' |
		sort >"$tmp/want"
	[ "$(wc -l <"$tmp/got")" -gt 5000 ]
	# every record is one of the pops (the few unpaired ones make no record)
	[ -z "$(comm -13 "$tmp/want" "$tmp/got")" ]
}
