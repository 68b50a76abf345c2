#!/usr/bin/env bats
# The fault matrix: every tool x every fault the system can hand it, each
# cell one run (or two: with no older output, and over one) checked by the
# helpers of fault-lib.bash.  Faults are injected with test/fault/fault.so
# (test/fault/README).  The tools are described in tool_* below, the faults
# in the cells; faults.bats holds the deeper cases of dump-split,
# instr-parse and rec-cat (faults in the middle of large files, spools).
#
#   fault        what fails                          the rule
#   in-eio       read(2) of the input: EIO           4, input named, no -o output
#   in-eio-one   one input file of several: EIO      1, file named, the rest written
#   in-short     reads return 7 bytes at a time      the same status, messages, output
#   out-enospc   write(2) of -o: ENOSPC              4, -o named, nothing left, older kept
#   out-eio      write(2) of -o: EIO                 the same
#   fsync        fsync(2) of -o: EIO                 the same
#   close        close(2) of -o: EIO                 the same
#   rename       rename(2) into -o: EIO              the same
#   stdout-epipe standard output: EPIPE              0, nothing said (the reader went away)
#   stdout-eio   standard output: EIO                4, one message
#   stdout-full  standard output is /dev/full        4, one message
#   stdout-gone  standard output a pipe, reader gone  its usual status, quiet
#   summary-full -o FILE, the summary on /dev/full      its usual status, said once

bats_require_minimum_version 1.5.0

load fault-lib

setup_file() {
	export FAULT_SO="$BATS_TEST_DIRNAME/../../build/fault.so"
	export DATA="$BATS_TEST_DIRNAME/../data"
	export IN="$BATS_FILE_TMPDIR/in"
	unset OPTRACE_FORMAT
	[ -f "$FAULT_SO" ] || return 0
	mkdir -p "$IN"
	dump-split "$DATA/910B" >"$IN/lines.rec" 2>/dev/null
	instr-parse "$IN/lines.rec" >"$IN/instr.rec" 2>/dev/null
	icache-merge "$IN/instr.rec" 2>/dev/null | scalar-merge >"$IN/merged.rec" 2>/dev/null
	timeline-emit -o "$IN/tl" "$IN/merged.rec" >/dev/null 2>&1
	cp -r "$DATA/board910B/dump" "$IN/board"
	cp -r "$DATA/910B" "$IN/sim"
	mkdir -p "$IN/runs" && cp -r "$DATA/910B" "$IN/runs/a"
	dump-split -o "$IN/board.rec" "$IN/board" 2>/dev/null
	# a kernel binary with a line table, for src-map
	printf 'int kernel_f(int x)\n{\n\treturn x + 1;\n}\n' > "$IN/k.c"
	cc -g -O0 -c "$IN/k.c" -o "$IN/k.o"
	device_inputs
}

# The raw files of the on-board tools, from the stand-in device
# (test/camodel/README, section 11): an A5 InstrTimeline run (timeline.bin),
# the A5 SIMT sample with PC sampling (WarpTimeline.bin, pcSampling.bin.0),
# a 910B MC2 run (aicpu.bin), the dots kernel (aic_timestamp.bin) and the
# vector add's MemoryDetail instrumentation (MemoryChart.bin).  Without the
# stand-in their cells are skipped.
device_inputs() {
	local top=$BATS_TEST_DIRNAME/../.. lib ops
	lib=$top/build/cann/lib64 ops=$top/build/ops
	[ -f "$lib/libruntime.so" ] && [ -x "$ops/bin/op_acl" ] || return 0
	dev() { env LD_LIBRARY_PATH="$lib" CAMODEL_LOG_PATH="$BATS_FILE_TMPDIR/simlog" "$@" >/dev/null 2>&1; }
	dev CAMODEL_SOC_VERSION=Ascend950PR_9599 CAMODEL_DEVICE_DUMP="$IN/a5" CAMODEL_DEVICE_TIMELINE=InstrTimeline \
		"$ops/bin/op_acl" -s mixed
	dev CAMODEL_SOC_VERSION=Ascend950PR_9599 CAMODEL_DEVICE_DUMP="$IN/simt" CAMODEL_DEVICE_PCSAMPLING=1 \
		"$ops/bin/op_acl" -s simt
	dev CAMODEL_SOC_VERSION=Ascend910B1 CAMODEL_DEVICE_DUMP="$IN/mc2" CAMODEL_DEVICE_MC2=2 "$ops/bin/op_acl" -s mixed
	dev CAMODEL_SOC_VERSION=Ascend910B1 CAMODEL_DEVICE_DUMP="$IN/dots" \
		"$ops/bin/op_acl" -s mixed -b 2 -k "$ops/kernels/mixed_custom_dots.o"
	dev CAMODEL_SOC_VERSION=Ascend910B4 CAMODEL_DEVICE_DUMP="$IN/dbi" CAMODEL_DEVICE_DBI=MemoryDetail \
		"$ops/bin/op_acl" -s add -b 4 -n 3
}

setup() {
	[ -f "$FAULT_SO" ] || skip "build/fault.so is missing: build it from test/fault/fault.c (test/fault/README)"
	unset OPTRACE_FORMAT
	T=$BATS_TEST_TMPDIR/w
	mkdir -p "$T"
	cd "$T"
}

# ---------------------------------------------------------------- the tools
# One row a tool, columns separated by "|":
#   name          the row's name (the tool's, or another for a second row)
#   command       with -o @OUT@ (@IN@: the inputs made in setup_file)
#   to stdout     the same writing to standard output (-o DIR tools: their
#                 summary goes there)
#   input         the input file the faults hit, under @IN@
#   named         what a message about the output names: the -o file, or
#                 for a -o DIR tool "@OUT@/", anything in the set
#   in-eio        the status of a read error of the input (default 4);
#                 dump-split(1): a dump file that cannot be read is an input
#                 problem (1, the others written), an on-board dump whose
#                 op_basic_info.txt cannot be read is unusable (3)
#   one input     a file of several whose read error is status 1 (in-eio-one)
#   summary       the status when only the summary is lost (stdout-full):
#                 the set is in place, the status stands (timeline-emit(1))
#   stdio         "stdio": what goes to standard output is written with
#                 stdio, which fault.so cannot reach (stdout-eio n.a.;
#                 stdout-full checks it); "child": the tool's helper process
#                 (src-map's symbolizer) inherits fault.so, and an EPIPE on
#                 "stdout" would hit the helper's own answers (stdout-epipe
#                 n.a.; stdout-gone checks a reader that went away)
TOOL_TABLE='
instr-parse|instr-parse -o @OUT@ @IN@/lines.rec|instr-parse @IN@/lines.rec|lines.rec|@OUT@|||
icache-merge|icache-merge -o @OUT@ @IN@/instr.rec|icache-merge @IN@/instr.rec|instr.rec|@OUT@|||
scalar-merge|scalar-merge -o @OUT@ @IN@/instr.rec|scalar-merge @IN@/instr.rec|instr.rec|@OUT@|||
mte-parse|mte-parse -o @OUT@ @IN@/lines.rec|mte-parse @IN@/lines.rec|lines.rec|@OUT@|||
rec-cat|rec-cat -o @OUT@ @IN@/instr.rec|rec-cat @IN@/instr.rec|instr.rec|@OUT@|||
dump-split|dump-split -o @OUT@ @IN@/sim|dump-split @IN@/sim|sim/core0.veccore1.instr_log.dump|@OUT@|1||
dump-split-board|dump-split -o @OUT@ @IN@/board|dump-split @IN@/board|board/op_basic_info.txt|@OUT@|3|board/DeviceProf3.bin|
timeline-emit|timeline-emit -o @OUT@ @IN@/merged.rec|timeline-emit -o @DIR@/out @IN@/merged.rec|merged.rec|@OUT@/|||0
trace-clean|trace-clean -o @OUT@ @IN@/tl/visualize_data.bin|trace-clean -o - @IN@/tl/visualize_data.bin|tl/visualize_data.bin|@OUT@/|||
board-metrics|board-metrics -o @OUT@ @IN@/board.rec|board-metrics -o @DIR@/out @IN@/board.rec|board.rec|@OUT@/|||0
board-metrics-vdata|board-metrics --aic-metrics=Default,Occupancy,Roofline -o @OUT@ --vdata @OUT@/visualize_data.bin @IN@/board.rec|board-metrics --aic-metrics=Occupancy -o @DIR@/out --vdata @DIR@/out/v.bin @IN@/board.rec|board.rec|@OUT@/|||0
biu-timeline|biu-timeline -o @OUT@ @IN@/a5|biu-timeline @IN@/a5|a5/timeline.bin|@OUT@||a5/dfx_region_map.txt|
warp-timeline|warp-timeline -o @OUT@ @IN@/simt|warp-timeline @IN@/simt|simt/WarpTimeline.bin|@OUT@|||
pc-stall|pc-stall -o @OUT@ @IN@/simt|pc-stall -o @DIR@/out @IN@/simt|simt/pcSampling.bin.0|@OUT@/|||0
mc2-timeline|mc2-timeline -o @OUT@ @IN@/mc2|mc2-timeline @IN@/mc2|mc2/aicpu.bin|@OUT@||mc2/duration.bin|
aic-timeline|aic-timeline -o @OUT@ @IN@/dots|aic-timeline @IN@/dots|dots/aic_timestamp.bin|@OUT@||dots/duration.bin|
board-code|board-code -o @OUT@ @IN@/dbi|board-code -o @DIR@/out @IN@/dbi|dbi/MemoryChart.bin|@OUT@/|||0
src-map|src-map --binary @IN@/k.o -o @OUT@ @IN@/instr.rec|src-map --binary @IN@/k.o @IN@/instr.rec|instr.rec|@OUT@||||child
prof-diff|prof-diff -q -o @OUT@ @IN@/merged.rec @IN@/instr.rec|prof-diff @IN@/merged.rec @IN@/instr.rec|merged.rec|@OUT@/||||stdio
'

# tool NAME: CMD, CMD_STDOUT (arrays), INPUT, NAMED_OUT, INPUT_STATUS,
# ONE_INPUT and SUMMARY_STATUS from NAME's row.
tool() {
	local row name cmd to_stdout
	row=$(grep "^$1|" <<<"$TOOL_TABLE") || { echo "no row for $1" >&2; return 1; }
	IFS='|' read -r name cmd to_stdout INPUT NAMED_OUT INPUT_STATUS ONE_INPUT SUMMARY_STATUS STDIO <<<"$row"
	read -ra CMD <<<"$cmd"
	read -ra CMD_STDOUT <<<"$to_stdout"
	: "${INPUT_STATUS:=4}"
}

# cell TOOL FAULT: the check of the header's table.
cell() {
	local -a CMD CMD_STDOUT
	local INPUT NAMED_OUT INPUT_STATUS ONE_INPUT SUMMARY_STATUS STDIO
	tool "$1" || return 1
	[ -e "$IN/$INPUT" ] || skip "@IN@/$INPUT is missing: the stand-in device is not built (build/cann, build/ops)"
	local w="FAULT_PATH=@DIR@/out"
	case $2 in
	in-eio)
		if [ "$INPUT_STATUS" = 1 ]; then
			fm_partial "@IN@/$INPUT" "Input/output error" "FAULT_OP=read FAULT_PATH=in/$INPUT" "${CMD[@]}"
		else
			fm_fails "$INPUT_STATUS" "@IN@/$INPUT" "Input/output error" "FAULT_OP=read FAULT_PATH=in/$INPUT" "${CMD[@]}"
		fi ;;
	in-eio-one)
		[ -n "$ONE_INPUT" ] || skip "n.a.: one input file"
		fm_partial "@IN@/$ONE_INPUT" "Input/output error" "FAULT_OP=read FAULT_PATH=in/$ONE_INPUT" "${CMD[@]}" ;;
	in-short) fm_same "FAULT_OP=short FAULT_SHORT=7 FAULT_PATH=in/$INPUT" "${CMD[@]}" ;;
	out-enospc) fm_fails 4 "$NAMED_OUT" "No space left on device" "FAULT_OP=write FAULT_ERRNO=ENOSPC $w" "${CMD[@]}" ;;
	out-eio) fm_fails 4 "$NAMED_OUT" "Input/output error" "FAULT_OP=write $w" "${CMD[@]}" ;;
	fsync) fm_fails 4 "$NAMED_OUT" "Input/output error" "FAULT_OP=fsync $w" "${CMD[@]}" ;;
	close) fm_fails 4 "$NAMED_OUT" "Input/output error" "FAULT_OP=close $w" "${CMD[@]}" ;;
	rename) fm_fails 4 "$NAMED_OUT" "Input/output error" "FAULT_OP=rename $w" "${CMD[@]}" ;;
	stdout-epipe)
		[ "$STDIO" != child ] || skip "n.a.: its symbolizer inherits fault.so, whose EPIPE would hit the symbolizer's answers (stdout-gone)"
		dir=$T/to-screen && mkdir -p "$dir"
		fm_stdout 0 "FAULT_OP=write FAULT_PATH=stdout FAULT_ERRNO=EPIPE" "${CMD_STDOUT[@]}" ;;
	stdout-eio)
		[ -z "$SUMMARY_STATUS" ] || skip "n.a.: the summary is written with stdio, which fault.so cannot reach (stdout-full)"
		[ "$STDIO" != stdio ] || skip "n.a.: the table is written with stdio, which fault.so cannot reach (stdout-full)"
		dir=$T/to-screen && mkdir -p "$dir"
		fm_stdout 4 "FAULT_OP=write FAULT_PATH=stdout" "${CMD_STDOUT[@]}" ;;
	stdout-full)
		# A summary's loss is said, the set is in place and the status
		# stands (timeline-emit(1), board-metrics(1)).
		dir=$T/to-screen && mkdir -p "$dir"
		FULL_STATUS=${SUMMARY_STATUS:-4} fm_full "${CMD_STDOUT[@]}" ;;
	stdout-gone)
		dir=$T/to-screen && mkdir -p "$dir"
		fm_gone "${CMD_STDOUT[@]}" ;;
	summary-full)
		# -o FILE, its summary on /dev/full: said once, the trace in
		# place and the status as without (the man pages' EXIT STATUS)
		dir=$T/summary && out=$dir/out && rm -rf "$dir" && mkdir -p "$dir"
		local -a args
		fm_words args "${CMD[@]}"
		run --separate-stderr "${args[@]}"
		local plain=$status
		rm -f "$out"
		run --separate-stderr fm_to_full "${args[@]}"
		[ "$status" -eq "$plain" ] || { fm_why "exit status $status, $plain with a reader"; return 1; }
		[ "$(grep -c "^$1: (stdout): cannot write: No space left on device$" <<<"$stderr")" -eq 1 ] ||
			{ fm_why "not one message of the lost summary"; return 1; }
		[ -s "$out" ] || { fm_why "the output is not in place"; return 1; } ;;
	*) echo "no such fault: $2" >&2; return 1 ;;
	esac
}
@test "dump-split x in-eio" { cell dump-split in-eio; }
@test "dump-split x in-short" { cell dump-split in-short; }
@test "dump-split x out-enospc" { cell dump-split out-enospc; }
@test "dump-split x out-eio" { cell dump-split out-eio; }
@test "dump-split x fsync" { cell dump-split fsync; }
@test "dump-split x close" { cell dump-split close; }
@test "dump-split x rename" { cell dump-split rename; }
@test "dump-split x stdout-epipe" { cell dump-split stdout-epipe; }
@test "dump-split x stdout-eio" { cell dump-split stdout-eio; }
@test "dump-split x stdout-full" { cell dump-split stdout-full; }
@test "dump-split x stdout-gone" { cell dump-split stdout-gone; }

@test "dump-split-board x in-eio" { cell dump-split-board in-eio; }
@test "dump-split-board x in-eio-one" { cell dump-split-board in-eio-one; }
@test "dump-split-board x in-short" { cell dump-split-board in-short; }
@test "dump-split-board x out-enospc" { cell dump-split-board out-enospc; }
@test "dump-split-board x out-eio" { cell dump-split-board out-eio; }
@test "dump-split-board x fsync" { cell dump-split-board fsync; }
@test "dump-split-board x close" { cell dump-split-board close; }
@test "dump-split-board x rename" { cell dump-split-board rename; }
@test "dump-split-board x stdout-epipe" { cell dump-split-board stdout-epipe; }
@test "dump-split-board x stdout-eio" { cell dump-split-board stdout-eio; }
@test "dump-split-board x stdout-full" { cell dump-split-board stdout-full; }
@test "dump-split-board x stdout-gone" { cell dump-split-board stdout-gone; }

@test "instr-parse x in-eio" { cell instr-parse in-eio; }
@test "instr-parse x in-short" { cell instr-parse in-short; }
@test "instr-parse x out-enospc" { cell instr-parse out-enospc; }
@test "instr-parse x out-eio" { cell instr-parse out-eio; }
@test "instr-parse x fsync" { cell instr-parse fsync; }
@test "instr-parse x close" { cell instr-parse close; }
@test "instr-parse x rename" { cell instr-parse rename; }
@test "instr-parse x stdout-epipe" { cell instr-parse stdout-epipe; }
@test "instr-parse x stdout-eio" { cell instr-parse stdout-eio; }
@test "instr-parse x stdout-full" { cell instr-parse stdout-full; }
@test "instr-parse x stdout-gone" { cell instr-parse stdout-gone; }

@test "icache-merge x in-eio" { cell icache-merge in-eio; }
@test "icache-merge x in-short" { cell icache-merge in-short; }
@test "icache-merge x out-enospc" { cell icache-merge out-enospc; }
@test "icache-merge x out-eio" { cell icache-merge out-eio; }
@test "icache-merge x fsync" { cell icache-merge fsync; }
@test "icache-merge x close" { cell icache-merge close; }
@test "icache-merge x rename" { cell icache-merge rename; }
@test "icache-merge x stdout-epipe" { cell icache-merge stdout-epipe; }
@test "icache-merge x stdout-eio" { cell icache-merge stdout-eio; }
@test "icache-merge x stdout-full" { cell icache-merge stdout-full; }
@test "icache-merge x stdout-gone" { cell icache-merge stdout-gone; }

@test "scalar-merge x in-eio" { cell scalar-merge in-eio; }
@test "scalar-merge x in-short" { cell scalar-merge in-short; }
@test "scalar-merge x out-enospc" { cell scalar-merge out-enospc; }
@test "scalar-merge x out-eio" { cell scalar-merge out-eio; }
@test "scalar-merge x fsync" { cell scalar-merge fsync; }
@test "scalar-merge x close" { cell scalar-merge close; }
@test "scalar-merge x rename" { cell scalar-merge rename; }
@test "scalar-merge x stdout-epipe" { cell scalar-merge stdout-epipe; }
@test "scalar-merge x stdout-eio" { cell scalar-merge stdout-eio; }
@test "scalar-merge x stdout-full" { cell scalar-merge stdout-full; }
@test "scalar-merge x stdout-gone" { cell scalar-merge stdout-gone; }

@test "mte-parse x in-eio" { cell mte-parse in-eio; }
@test "mte-parse x in-short" { cell mte-parse in-short; }
@test "mte-parse x out-enospc" { cell mte-parse out-enospc; }
@test "mte-parse x out-eio" { cell mte-parse out-eio; }
@test "mte-parse x fsync" { cell mte-parse fsync; }
@test "mte-parse x close" { cell mte-parse close; }
@test "mte-parse x rename" { cell mte-parse rename; }
@test "mte-parse x stdout-epipe" { cell mte-parse stdout-epipe; }
@test "mte-parse x stdout-eio" { cell mte-parse stdout-eio; }
@test "mte-parse x stdout-full" { cell mte-parse stdout-full; }
@test "mte-parse x stdout-gone" { cell mte-parse stdout-gone; }

@test "rec-cat x in-eio" { cell rec-cat in-eio; }
@test "rec-cat x in-short" { cell rec-cat in-short; }
@test "rec-cat x out-enospc" { cell rec-cat out-enospc; }
@test "rec-cat x out-eio" { cell rec-cat out-eio; }
@test "rec-cat x fsync" { cell rec-cat fsync; }
@test "rec-cat x close" { cell rec-cat close; }
@test "rec-cat x rename" { cell rec-cat rename; }
@test "rec-cat x stdout-epipe" { cell rec-cat stdout-epipe; }
@test "rec-cat x stdout-eio" { cell rec-cat stdout-eio; }
@test "rec-cat x stdout-full" { cell rec-cat stdout-full; }
@test "rec-cat x stdout-gone" { cell rec-cat stdout-gone; }

@test "timeline-emit x in-eio" { cell timeline-emit in-eio; }
@test "timeline-emit x in-short" { cell timeline-emit in-short; }
@test "timeline-emit x out-enospc" { cell timeline-emit out-enospc; }
@test "timeline-emit x out-eio" { cell timeline-emit out-eio; }
@test "timeline-emit x fsync" { cell timeline-emit fsync; }
@test "timeline-emit x close" { cell timeline-emit close; }
@test "timeline-emit x rename" { cell timeline-emit rename; }
@test "timeline-emit x stdout-epipe" { cell timeline-emit stdout-epipe; }
@test "timeline-emit x stdout-eio" { cell timeline-emit stdout-eio; }
@test "timeline-emit x stdout-full" { cell timeline-emit stdout-full; }
@test "timeline-emit x stdout-gone" { cell timeline-emit stdout-gone; }

@test "trace-clean x in-eio" { cell trace-clean in-eio; }
@test "trace-clean x in-short" { cell trace-clean in-short; }
@test "trace-clean x out-enospc" { cell trace-clean out-enospc; }
@test "trace-clean x out-eio" { cell trace-clean out-eio; }
@test "trace-clean x fsync" { cell trace-clean fsync; }
@test "trace-clean x close" { cell trace-clean close; }
@test "trace-clean x rename" { cell trace-clean rename; }
@test "trace-clean x stdout-epipe" { cell trace-clean stdout-epipe; }
@test "trace-clean x stdout-eio" { cell trace-clean stdout-eio; }
@test "trace-clean x stdout-full" { cell trace-clean stdout-full; }
@test "trace-clean x stdout-gone" { cell trace-clean stdout-gone; }

@test "board-metrics x in-eio" { cell board-metrics in-eio; }
@test "board-metrics x in-short" { cell board-metrics in-short; }
@test "board-metrics x out-enospc" { cell board-metrics out-enospc; }
@test "board-metrics x out-eio" { cell board-metrics out-eio; }
@test "board-metrics x fsync" { cell board-metrics fsync; }
@test "board-metrics x close" { cell board-metrics close; }
@test "board-metrics x rename" { cell board-metrics rename; }
@test "board-metrics x stdout-epipe" { cell board-metrics stdout-epipe; }
@test "board-metrics x stdout-eio" { cell board-metrics stdout-eio; }
@test "board-metrics x stdout-full" { cell board-metrics stdout-full; }
@test "board-metrics x stdout-gone" { cell board-metrics stdout-gone; }
@test "board-metrics-vdata x in-eio" { cell board-metrics-vdata in-eio; }
@test "board-metrics-vdata x in-short" { cell board-metrics-vdata in-short; }
@test "board-metrics-vdata x out-enospc" { cell board-metrics-vdata out-enospc; }
@test "board-metrics-vdata x out-eio" { cell board-metrics-vdata out-eio; }
@test "board-metrics-vdata x fsync" { cell board-metrics-vdata fsync; }
@test "board-metrics-vdata x close" { cell board-metrics-vdata close; }
@test "board-metrics-vdata x rename" { cell board-metrics-vdata rename; }
@test "board-metrics-vdata x stdout-epipe" { cell board-metrics-vdata stdout-epipe; }
@test "board-metrics-vdata x stdout-eio" { cell board-metrics-vdata stdout-eio; }
@test "board-metrics-vdata x stdout-full" { cell board-metrics-vdata stdout-full; }
@test "board-metrics-vdata x stdout-gone" { cell board-metrics-vdata stdout-gone; }

@test "biu-timeline x in-eio" { cell biu-timeline in-eio; }
@test "biu-timeline x in-eio-one" { cell biu-timeline in-eio-one; }
@test "biu-timeline x in-short" { cell biu-timeline in-short; }
@test "biu-timeline x out-enospc" { cell biu-timeline out-enospc; }
@test "biu-timeline x out-eio" { cell biu-timeline out-eio; }
@test "biu-timeline x fsync" { cell biu-timeline fsync; }
@test "biu-timeline x close" { cell biu-timeline close; }
@test "biu-timeline x rename" { cell biu-timeline rename; }
@test "biu-timeline x stdout-epipe" { cell biu-timeline stdout-epipe; }
@test "biu-timeline x stdout-eio" { cell biu-timeline stdout-eio; }
@test "biu-timeline x stdout-full" { cell biu-timeline stdout-full; }
@test "biu-timeline x stdout-gone" { cell biu-timeline stdout-gone; }
@test "biu-timeline x summary-full" { cell biu-timeline summary-full; }

@test "warp-timeline x in-eio" { cell warp-timeline in-eio; }
@test "warp-timeline x in-eio-one" { cell warp-timeline in-eio-one; }
@test "warp-timeline x in-short" { cell warp-timeline in-short; }
@test "warp-timeline x out-enospc" { cell warp-timeline out-enospc; }
@test "warp-timeline x out-eio" { cell warp-timeline out-eio; }
@test "warp-timeline x fsync" { cell warp-timeline fsync; }
@test "warp-timeline x close" { cell warp-timeline close; }
@test "warp-timeline x rename" { cell warp-timeline rename; }
@test "warp-timeline x stdout-epipe" { cell warp-timeline stdout-epipe; }
@test "warp-timeline x stdout-eio" { cell warp-timeline stdout-eio; }
@test "warp-timeline x stdout-full" { cell warp-timeline stdout-full; }
@test "warp-timeline x stdout-gone" { cell warp-timeline stdout-gone; }
@test "warp-timeline x summary-full" { cell warp-timeline summary-full; }

@test "pc-stall x in-eio" { cell pc-stall in-eio; }
@test "pc-stall x in-eio-one" { cell pc-stall in-eio-one; }
@test "pc-stall x in-short" { cell pc-stall in-short; }
@test "pc-stall x out-enospc" { cell pc-stall out-enospc; }
@test "pc-stall x out-eio" { cell pc-stall out-eio; }
@test "pc-stall x fsync" { cell pc-stall fsync; }
@test "pc-stall x close" { cell pc-stall close; }
@test "pc-stall x rename" { cell pc-stall rename; }
@test "pc-stall x stdout-epipe" { cell pc-stall stdout-epipe; }
@test "pc-stall x stdout-eio" { cell pc-stall stdout-eio; }
@test "pc-stall x stdout-full" { cell pc-stall stdout-full; }
@test "pc-stall x stdout-gone" { cell pc-stall stdout-gone; }

@test "mc2-timeline x in-eio" { cell mc2-timeline in-eio; }
@test "mc2-timeline x in-eio-one" { cell mc2-timeline in-eio-one; }
@test "mc2-timeline x in-short" { cell mc2-timeline in-short; }
@test "mc2-timeline x out-enospc" { cell mc2-timeline out-enospc; }
@test "mc2-timeline x out-eio" { cell mc2-timeline out-eio; }
@test "mc2-timeline x fsync" { cell mc2-timeline fsync; }
@test "mc2-timeline x close" { cell mc2-timeline close; }
@test "mc2-timeline x rename" { cell mc2-timeline rename; }
@test "mc2-timeline x stdout-epipe" { cell mc2-timeline stdout-epipe; }
@test "mc2-timeline x stdout-eio" { cell mc2-timeline stdout-eio; }
@test "mc2-timeline x stdout-full" { cell mc2-timeline stdout-full; }
@test "mc2-timeline x stdout-gone" { cell mc2-timeline stdout-gone; }
@test "mc2-timeline x summary-full" { cell mc2-timeline summary-full; }

@test "aic-timeline x in-eio" { cell aic-timeline in-eio; }
@test "aic-timeline x in-eio-one" { cell aic-timeline in-eio-one; }
@test "aic-timeline x in-short" { cell aic-timeline in-short; }
@test "aic-timeline x out-enospc" { cell aic-timeline out-enospc; }
@test "aic-timeline x out-eio" { cell aic-timeline out-eio; }
@test "aic-timeline x fsync" { cell aic-timeline fsync; }
@test "aic-timeline x close" { cell aic-timeline close; }
@test "aic-timeline x rename" { cell aic-timeline rename; }
@test "aic-timeline x stdout-epipe" { cell aic-timeline stdout-epipe; }
@test "aic-timeline x stdout-eio" { cell aic-timeline stdout-eio; }
@test "aic-timeline x stdout-full" { cell aic-timeline stdout-full; }
@test "aic-timeline x stdout-gone" { cell aic-timeline stdout-gone; }
@test "aic-timeline x summary-full" { cell aic-timeline summary-full; }

@test "board-code x in-eio" { cell board-code in-eio; }
@test "board-code x in-eio-one" { cell board-code in-eio-one; }
@test "board-code x in-short" { cell board-code in-short; }
@test "board-code x out-enospc" { cell board-code out-enospc; }
@test "board-code x out-eio" { cell board-code out-eio; }
@test "board-code x fsync" { cell board-code fsync; }
@test "board-code x close" { cell board-code close; }
@test "board-code x rename" { cell board-code rename; }
@test "board-code x stdout-epipe" { cell board-code stdout-epipe; }
@test "board-code x stdout-eio" { cell board-code stdout-eio; }
@test "board-code x stdout-full" { cell board-code stdout-full; }
@test "board-code x stdout-gone" { cell board-code stdout-gone; }

@test "src-map x in-eio" { cell src-map in-eio; }
@test "src-map x in-eio-one" { cell src-map in-eio-one; }
@test "src-map x in-short" { cell src-map in-short; }
@test "src-map x out-enospc" { cell src-map out-enospc; }
@test "src-map x out-eio" { cell src-map out-eio; }
@test "src-map x fsync" { cell src-map fsync; }
@test "src-map x close" { cell src-map close; }
@test "src-map x rename" { cell src-map rename; }
@test "src-map x stdout-epipe" { cell src-map stdout-epipe; }
@test "src-map x stdout-eio" { cell src-map stdout-eio; }
@test "src-map x stdout-full" { cell src-map stdout-full; }
@test "src-map x stdout-gone" { cell src-map stdout-gone; }

@test "prof-diff x in-eio" { cell prof-diff in-eio; }
@test "prof-diff x in-eio-one" { cell prof-diff in-eio-one; }
@test "prof-diff x in-short" { cell prof-diff in-short; }
@test "prof-diff x out-enospc" { cell prof-diff out-enospc; }
@test "prof-diff x out-eio" { cell prof-diff out-eio; }
@test "prof-diff x fsync" { cell prof-diff fsync; }
@test "prof-diff x close" { cell prof-diff close; }
@test "prof-diff x rename" { cell prof-diff rename; }
@test "prof-diff x stdout-epipe" { cell prof-diff stdout-epipe; }
@test "prof-diff x stdout-eio" { cell prof-diff stdout-eio; }
@test "prof-diff x stdout-full" { cell prof-diff stdout-full; }
@test "prof-diff x stdout-gone" { cell prof-diff stdout-gone; }

# ---------------------------------------------------------------- recipes
# A recipe writes a tree under -o OUTDIR (sim-export, board-export: a new
# OPPROF_* tree each run; batch.mk: OUT/<name>).  The tools' own messages
# name the files; the recipe adds what it means for the tree.  Each cell:
# fm_tree (the status, a message, no temporary left, an older tree as it
# was) or fm_gone.

# rcell RECIPE FAULT
rcell() {
	local top=$BATS_TEST_DIRNAME/../..
	export OPTRACE_BIN=$top/${OPTRACE_VARIANT:-build}/bin
	local PATH=$top/pipelines:$OPTRACE_BIN:$PATH
	local -a se=(sim-export -q -o @OUT@ @IN@/sim) be=(board-export -q -o @OUT@ @IN@/board)
	local -a bm=(make -s -f "$top/pipelines/batch.mk" "DUMPS=@IN@/runs/*" OUT=@OUT@)
	case $1/$2 in
	sim-export/in-eio)
		fm_tree 1 "*core0.veccore1.instr_log.dump: read error: Input/output error" \
			"FAULT_OP=read FAULT_PATH=in/sim/core0.veccore1.instr_log" "${se[@]}" ;;
	sim-export/out-enospc)
		fm_tree 4 "timeline-emit: */trace.json: cannot write: No space left on device" \
			"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=/trace.json" "${se[@]}" ;;
	sim-export/out-eio)
		fm_tree 4 "scalar-merge: */records/core0.veccore1.rec: write error: Input/output error" \
			"FAULT_OP=write FAULT_PATH=records/core0.veccore1.rec" "${se[@]}" ;;
	sim-export/fsync)
		fm_tree 4 "trace-clean: */trace.clean.json: *Input/output error" \
			"FAULT_OP=fsync FAULT_PATH=trace.clean.json" "${se[@]}" ;;
	sim-export/close)
		fm_tree 4 "timeline-emit: */visualize_data.bin: *Input/output error" \
			"FAULT_OP=close FAULT_PATH=visualize_data.bin" "${se[@]}" ;;
	sim-export/rename)
		fm_tree 4 "*cannot rename the finished tree into place: nothing written" \
			"FAULT_OP=rename FAULT_PATH=/OPPROF_" "${se[@]}" ;;
	sim-export/stdout-gone) dir=$T/to-screen && mkdir -p "$dir" && fm_gone sim-export -o @DIR@ @IN@/sim ;;
	batch.mk/out-enospc)
		AGE_STAMPS=1 fm_tree 2 "batch.mk: *: sim-export exited 4; the older *runs_a is kept, what this run left is *runs_a.incomplete" \
			"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=/trace.json" "${bm[@]}" ;;
	batch.mk/fsync)
		AGE_STAMPS=1 fm_tree 2 "batch.mk: *: sim-export exited 4; the older * is kept*" \
			"FAULT_OP=fsync FAULT_PATH=trace.clean.json" "${bm[@]}" ;;
	batch.mk/rename)
		AGE_STAMPS=1 fm_tree 2 "batch.mk: *: sim-export exited 4; the older * is kept*" \
			"FAULT_OP=rename FAULT_PATH=/OPPROF_" "${bm[@]}" ;;
	board-export/in-eio)
		# the dump is copied into the tree first: it is cp that fails
		fm_tree 4 "board-export: */in/board: cannot be copied into */OPPROF_* (see above): nothing written" \
			"FAULT_OP=read FAULT_PATH=in/board/DeviceProf3.bin" "${be[@]}" ;;
	board-export/out-enospc)
		fm_tree 4 "board-metrics: */OpBasicInfo.csv: cannot write: No space left on device" \
			"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=OpBasicInfo.csv" "${be[@]}" ;;
	board-export/fsync)
		fm_tree 4 "board-metrics: */PipeUtilization.csv: cannot write: Input/output error" \
			"FAULT_OP=fsync FAULT_PATH=PipeUtilization.csv" "${be[@]}" ;;
	board-export/close)
		fm_tree 4 "board-metrics: */roofline.svg: *Input/output error" \
			"FAULT_OP=close FAULT_PATH=roofline.svg" "${be[@]}" ;;
	board-export/rename)
		fm_tree 4 "board-export: *" "FAULT_OP=rename FAULT_PATH=/OPPROF_" "${be[@]}" ;;
	sim-export/stdout-full)
		dir=$T/to-screen && mkdir -p "$dir" && FULL_ONE=0 FULL_TEXT="(stdout): cannot write" fm_full sim-export -o @DIR@ @IN@/sim ;;
	board-export/stdout-full)
		dir=$T/to-screen && mkdir -p "$dir" && FULL_ONE=0 FULL_TEXT="(stdout): cannot write" fm_full board-export -o @DIR@ @IN@/board ;;
	board-export/stdout-gone) dir=$T/to-screen && mkdir -p "$dir" && fm_gone board-export -o @DIR@ @IN@/board ;;
	*) echo "no such cell: $1 x $2" >&2; return 1 ;;
	esac
}

@test "sim-export x in-eio" { rcell sim-export in-eio; }
@test "sim-export x out-enospc" { rcell sim-export out-enospc; }
@test "sim-export x out-eio" { rcell sim-export out-eio; }
@test "sim-export x fsync" { rcell sim-export fsync; }
@test "sim-export x close" { rcell sim-export close; }
@test "sim-export x rename" { rcell sim-export rename; }
@test "sim-export x stdout-gone" { rcell sim-export stdout-gone; }
@test "sim-export x stdout-full" { rcell sim-export stdout-full; }

@test "batch.mk x out-enospc" { rcell batch.mk out-enospc; }
@test "batch.mk x fsync" { rcell batch.mk fsync; }
@test "batch.mk x rename" { rcell batch.mk rename; }

@test "board-export x in-eio" { rcell board-export in-eio; }
@test "board-export x out-enospc" { rcell board-export out-enospc; }
@test "board-export x fsync" { rcell board-export fsync; }
@test "board-export x close" { rcell board-export close; }
@test "board-export x rename" { rcell board-export rename; }
@test "board-export x stdout-gone" { rcell board-export stdout-gone; }
@test "board-export x stdout-full" { rcell board-export stdout-full; }

# ---------------------------------------------------------------- capture
# sim-capture and its preload library (in the application) under a fault:
# the status 4, sim-capture's message naming the file of the run, no
# temporary name left, and manifest.json saying what is missing (KEY
# false).  sim-capture-faults.bats holds the deeper cases.

# ccell FAULT
ccell() {
	local top=$BATS_TEST_DIRNAME/../..
	local app=$top/build/ops/bin/add_rt
	[ -x "$app" ] && [ -d "$top/build/cann/tools/simulator" ] || skip "the stand-in simulator is not built"
	export ASCEND_HOME_PATH=$top/build/cann
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	local d=/device0/add_custom/0/dump
	case $1 in
	in-eio) fm_capture dumps_complete "$d/core0.veccore0.instr_log.dump: dump not saved: Input/output error" \
		"FAULT_OP=read FAULT_PATH=tmp_dump/core0.veccore0.instr_log" "$app" ;;
	in-short) fm_capture_same "FAULT_OP=short FAULT_SHORT=7 FAULT_PATH=tmp_dump/" "$app" ;;
	out-enospc) fm_capture dumps_complete "$d/core0.veccore1.instr_log.dump: dump not saved: No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=$d/core0.veccore1.instr_log.dump" "$app" ;;
	out-eio) fm_capture records_complete "/capture.rec: Input/output error" \
		"FAULT_OP=write FAULT_PATH=capture.rec" "$app" ;;
	fsync) fm_capture records_complete "/capture.rec: Input/output error" \
		"FAULT_OP=fsync FAULT_PATH=capture.rec" "$app" ;;
	close) fm_capture records_complete "/capture.rec: Input/output error" \
		"FAULT_OP=close FAULT_PATH=capture.rec" "$app" ;;
	rename) fm_capture records_complete "/capture.rec: Input/output error" \
		"FAULT_OP=rename FAULT_PATH=capture.rec" "$app" ;;
	esac
}

# fm_capture KEY MESSAGE FAULTS APP: sim-capture -o DIR -- APP under
# FAULTS: status 4, "sim-capture: RUN/...MESSAGE" on stderr, KEY false in
# the manifest, no temporary file in the run.
fm_capture() {
	local key=$1 msg=$2 faults=$3 r
	local -a envs
	shift 3
	dir=$T/cap
	rm -rf "$dir" && mkdir -p "$dir"
	# shellcheck disable=SC2206
	envs=($faults)
	run --separate-stderr fm_inject "${envs[@]}" sim-capture -q -o "$dir" -- "$@"
	[ "$status" -eq 4 ] || { fm_why "exit status $status, want 4"; return 1; }
	r=$(ls -d "$dir"/OPPROF_*)
	[ "$(grep -c -F -- "sim-capture: $r$msg" <<<"$stderr")" -eq 1 ] || { fm_why "no one message 'sim-capture: $r$msg'"; return 1; }
	jq -e --arg k "$key" '.[$k] == false' "$r/manifest.json" >/dev/null || { fm_why "manifest: $key is not false"; return 1; }
	[ -z "$(find "$r" -name '*.tmp*')" ] || { fm_why "a temporary file left"; return 1; }
	dir=
}

# fm_capture_same FAULTS APP: the same dumps and status as without FAULTS.
fm_capture_same() {
	local faults=$1 a b
	local -a envs
	shift
	dir=$T/cap
	rm -rf "$dir" && mkdir -p "$dir/a" "$dir/b"
	sim-capture -q -o "$dir/a" -- "$@"
	# shellcheck disable=SC2206
	envs=($faults)
	run --separate-stderr fm_inject "${envs[@]}" sim-capture -q -o "$dir/b" -- "$@"
	[ "$status" -eq 0 ] || { fm_why "exit status $status, want 0"; return 1; }
	a=$(ls -d "$dir"/a/OPPROF_*)/device0/add_custom/0/dump
	b=$(ls -d "$dir"/b/OPPROF_*)/device0/add_custom/0/dump
	diff -r "$a" "$b" >&2 || { fm_why "the dumps differ"; return 1; }
	dir=
}

@test "sim-capture x in-eio" { ccell in-eio; }
@test "sim-capture x in-short" { ccell in-short; }
@test "sim-capture x out-enospc" { ccell out-enospc; }
@test "sim-capture x out-eio" { ccell out-eio; }
@test "sim-capture x fsync" { ccell fsync; }
@test "sim-capture x close" { ccell close; }
@test "sim-capture x rename" { ccell rename; }

# sim-flow: sim-capture, then sim-export for each launch.
# fcell FAULT
fcell() {
	local top=$BATS_TEST_DIRNAME/../..
	local app=$top/build/ops/bin/add_rt
	[ -x "$app" ] && [ -d "$top/build/cann/tools/simulator" ] || skip "the stand-in simulator is not built"
	export ASCEND_HOME_PATH=$top/build/cann OPTRACE_BIN=$top/${OPTRACE_VARIANT:-build}/bin
	local PATH=$top/pipelines:$OPTRACE_BIN:$PATH
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS
	case $1 in
	out-enospc) fm_tree 4 "timeline-emit: */trace.json: cannot write: No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=/trace.json" sim-flow -q -o @OUT@ -- "$app" ;;
	fsync) fm_tree 4 "sim-capture: */capture.rec: Input/output error" \
		"FAULT_OP=fsync FAULT_PATH=capture.rec" sim-flow -q -o @OUT@ -- "$app" ;;
	stdout-gone)
		# The application's own output goes there too: it is the one that
		# dies of SIGPIPE, status 1 ("the application failed"); sim-flow
		# itself neither dies of it (141) nor calls it an error.
		dir=$T/to-screen && mkdir -p "$dir"
		FM_GONE_STATUS=1 fm_gone sim-flow -o @DIR@ -- "$app"
		[[ $stderr == *"the application was killed by signal 13"* ]] || fm_why "not the application's SIGPIPE" ;;
	esac
}

# board-flow: sim-capture --device on the stand-in device, then
# board-export of the launch in place.  Each run adds its own OPPROF_*
# tree; the older one must stay as it was.
# bfcell FAULT
bfcell() {
	local top=$BATS_TEST_DIRNAME/../..
	local app=$top/build/ops/bin/op_acl
	[ -x "$app" ] && [ -f "$top/build/cann/lib64/libruntime.so" ] || skip "the stand-in device is not built"
	export ASCEND_HOME_PATH=$top/build/cann OPTRACE_BIN=$top/${OPTRACE_VARIANT:-build}/bin
	local PATH=$top/pipelines:$OPTRACE_BIN:$PATH
	unset OPTRACE_INJECT_LIB GE_PROFILING_MODE GE_PROFILING_OPTIONS CAMODEL_DEVICE_DUMP CAMODEL_DEVICE_REPLAY
	local -a bf=(board-flow -q -o @OUT@ -- "$app" -s add)
	case $1 in
	in-eio)
		# a DeviceProf file that cannot be read: an input problem of
		# dump-split's (1), the other replays' metrics written
		fm_tree 1 "dump-split: */DeviceProf3.bin: read error after record 0: Input/output error" \
			"FAULT_OP=read FAULT_PATH=dump/DeviceProf3.bin" "${bf[@]}" ;;
	out-enospc) fm_tree 4 "board-metrics: */OpBasicInfo.csv: cannot write: No space left on device" \
		"FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=OpBasicInfo.csv" "${bf[@]}" ;;
	fsync) fm_tree 4 "board-metrics: */PipeUtilization.csv: cannot write: Input/output error" \
		"FAULT_OP=fsync FAULT_PATH=PipeUtilization.csv" "${bf[@]}" ;;
	close) fm_tree 4 "board-metrics: */roofline.svg: *Input/output error" \
		"FAULT_OP=close FAULT_PATH=roofline.svg" "${bf[@]}" ;;
	rename) fm_tree 4 "board-flow: */OPPROF_*: cannot move the capture into place" \
		"FAULT_OP=rename FAULT_PATH=/OPPROF_" "${bf[@]}" ;;
	stdout-full)
		# Standard output carries only the tools' summaries (the tree is
		# named on stderr): their loss is said by the tool, once, and
		# leaves the status (board-flow(7)); the tree is in place.
		dir=$T/to-screen && mkdir -p "$dir"
		run --separate-stderr fm_to_full board-flow -o "$dir" -- "$app" -s add
		[ "$status" -eq 0 ] || fm_why "exit status $status, want 0"
		[ "$(grep -c 'cannot write: No space left on device' <<<"$stderr")" -eq 1 ] ||
			fm_why "not one message of the lost summary"
		grep -q '^board-metrics: (stdout): cannot write: No space left on device$' <<<"$stderr" || fm_why "no message"
		[ -s "$(echo "$dir"/OPPROF_*/device0/add_custom/0/OpBasicInfo.csv)" ] || fm_why "the tree is not in place" ;;
	stdout-gone)
		# The application's own output goes there too: op_acl is the one
		# that dies of SIGPIPE (the application failed: 1); board-flow
		# itself neither dies of it nor calls it an error.
		dir=$T/to-screen && mkdir -p "$dir"
		FM_GONE_STATUS=1 fm_gone board-flow -o @DIR@ -- "$app" -s add ;;
	esac
}

@test "board-flow x in-eio" { bfcell in-eio; }
@test "board-flow x out-enospc" { bfcell out-enospc; }
@test "board-flow x fsync" { bfcell fsync; }
@test "board-flow x close" { bfcell close; }
@test "board-flow x rename" { bfcell rename; }
@test "board-flow x stdout-full" { bfcell stdout-full; }
@test "board-flow x stdout-gone" { bfcell stdout-gone; }

@test "sim-flow x out-enospc" { fcell out-enospc; }
@test "sim-flow x fsync" { fcell fsync; }
@test "sim-flow x stdout-gone" { fcell stdout-gone; }
