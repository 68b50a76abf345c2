#!/usr/bin/env bats
# trace-clean as a user runs it.  Inputs are written here, by a small
# Python helper (tc.py, made in setup_file): visualize_data.bin containers
# block by block, trace.json documents event by event, random traces for
# the property test, and the checks that read the outputs back.

load waits

setup_file() {
	export TOP="${OPTRACE_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
	export PY="$BATS_FILE_TMPDIR/tc.py"
	cat > "$PY" <<'EOF'
"""trace-clean test helper: write inputs, check outputs (see the .bats file)."""
import bisect, json, math, random, struct, sys

# ---- inputs ----

def block(btype, payload, version=0x5A, pad=None, reserved=0x5A, path=None, size=None):
    if isinstance(payload, str):
        payload = payload.encode()
    p = (4 - len(payload) % 4) % 4 if pad is None else pad
    body = payload + b"\0" * p
    head = struct.pack("<QBBBB", len(body) if size is None else size, btype, p, version, reserved)
    if btype == 1:
        head += (path or "/src/kernel.cpp").encode().ljust(4096, b"\0")
    return head + body

def vdata(path, *blocks):
    with open(path, "wb") as f:
        for b in blocks:
            f.write(b)

def trace(events, **top):
    d = {"displayTimeUnit": "ns", "profilingType": "op", "schemaVersion": 2}
    d.update(top)
    d["traceEvents"] = events
    return json.dumps(d)

def X(name, pid, tid, ts, dur, args=None, cname="startup"):
    return {"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "cname": cname,
            "args": args if args is not None else {"pc_addr": "0x100", "detail": name}}

def flag(kind, pid, tid, begin, end, detail, eid="f"):
    name = "SET_FLAG" if kind == "set" else "WAIT_FLAG"
    return [{"name": name, "ph": "B", "ts": begin, "pid": pid, "tid": tid,
             "args": {"pc_addr": "0x200", "code": "", "detail": detail}, "id": eid},
            {"name": name, "ph": "E", "ts": end, "pid": pid, "tid": tid, "args": {}, "id": eid}]

# ---- the rules, as the established tool states them ----

ALIAS = {"VEC": "VECTOR", "FIXP": "FIXPIPE", "FIX": "FIXPIPE"}
NOISE = {"CACHEMISS", "FLOWCTRL", "ALL"}
SCALARS = {"SCALAR", "SCALARLDST"}
SYNC = {"SET_FLAG", "WAIT_FLAG", "BAR", "set_event", "wait_event", "SET_INTRA_BLOCK",
        "SET_INTRA_BLOCKI", "WAIT_INTRA_BLOCK", "WAIT_INTRA_BLOCKI", "cache_time", "ccu_time"}

def canon(tid):
    tid = str(tid)
    return ALIAS.get(tid, tid)

def kept(e, keep_scalar):
    if e.get("ph") != "X" or e.get("name") in SYNC:
        return False
    lane = canon(e.get("tid", ""))
    return lane not in NOISE and (keep_scalar or lane not in SCALARS)

def llr(x):
    """Perfetto's ns: llround(x * 1000.0), the product in double (v - floor(v)
    is exact for the magnitudes of a trace)."""
    v = x * 1000.0
    a = abs(v)
    f = math.floor(a)
    r = int(f) + (1 if a - f >= 0.5 else 0)
    return r if v >= 0 else -r

def free(a, b):
    """Slice b may follow slice a on one track (a starts first)."""
    return a[0] + a[1] <= b[0] and llr(a[0]) + llr(a[1]) <= llr(b[0])

def load(path):
    with open(path) as f:
        return json.load(f)

def out_tracks(out):
    """Output slices by (process name, pipe, track) and the names of things."""
    ev = out["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    return ev, pname, tname

def pipe_of(thread_name):
    return thread_name.split(" ")[0].split("#")[0]

def check(inp, outp, keep_scalar=False, peak=True, arrows=True):
    """Every rule that can be checked from the input and the output alone."""
    src, out = load(inp), load(outp)
    ev, pname, tname = out_tracks(out)
    assert list(out.keys())[0] == "profilingType", list(out.keys())
    problems = []
    tracks = {}
    for e in ev:
        if e["ph"] != "X":
            continue
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        assert e["pid"] in pname and (e["pid"], e["tid"]) in tname, ("no names for", e)
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    # every track overlap-free, also at Perfetto's ns resolution
    for k, sl in tracks.items():
        sl.sort(key=lambda e: (e["ts"], e.get("dur", 0)))
        for a, b in zip(sl, sl[1:]):
            if not free((a["ts"], a.get("dur", 0)), (b["ts"], b.get("dur", 0))):
                problems.append("overlap on %s: %s / %s" % (tname[k], a, b))
    # the kept events, exactly
    def key(pid, lane, e):
        return (str(pid), lane, e["name"], e["ts"], e.get("dur"), json.dumps(e.get("args"), sort_keys=True))
    want = sorted(key(e.get("pid", ""), canon(e.get("tid", "")), e) for e in src["traceEvents"] if kept(e, keep_scalar))
    got = sorted(key(pname[e["pid"]], pipe_of(tname[(e["pid"], e["tid"])]), e) for e in ev if e["ph"] == "X")
    if want != got:
        problems.append("kept events differ: %d in, %d out; first differences %s / %s" % (
            len(want), len(got), [w for w in want if w not in got][:2], [g for g in got if g not in want][:2]))
    # sub-lanes: as many as the peak concurrency of each pipe
    if peak:
        by_pipe = {}
        for (pid, tid), sl in tracks.items():
            by_pipe.setdefault((pid, pipe_of(tname[(pid, tid)])), []).append(tid)
        for (pid, pipe), tids in by_pipe.items():
            # in start order each slice's earlier conflicts are pairwise in
            # conflict too: the peak is 1 + the most earlier conflicts
            iv = sorted((e["ts"], e.get("dur", 0)) for t in tids for e in tracks[(pid, t)])
            best, active = 1, []
            for b in iv:    # once free for b, free for every later slice
                active = [a for a in active if not free(a, b)]
                best = max(best, 1 + len(active))
                active.append(b)
            if best != len(tids):
                problems.append("%s %s: %d sub-lanes, peak concurrency %d" % (pname[pid], pipe, len(tids), best))
    # arrows
    if arrows:
        exp = expected_arrows(src, keep_scalar)
        flows = {}
        for e in ev:
            if e["ph"] in "sf" and e["ph"] != "" and e.get("cat") == "sync":
                flows.setdefault(e["id"], {})[e["ph"]] = e
        got_a = []
        for i, fl in flows.items():
            s, f = fl["s"], fl["f"]
            assert f.get("bp") == "e" and s["pid"] == f["pid"] and s["name"] == f["name"], fl
            for x in (s, f):
                if not any(abs(e["ts"] - x["ts"]) == 0 for e in tracks.get((x["pid"], x["tid"]), [])):
                    problems.append("arrow end not on a slice: %s" % x)
            got_a.append((pname[s["pid"]], pipe_of(tname[(s["pid"], s["tid"])]), s["ts"],
                          pipe_of(tname[(f["pid"], f["tid"])]), f["ts"]))
        if sorted(exp) != sorted(got_a):
            problems.append("arrows differ: want %d, got %d: %s / %s" % (len(exp), len(got_a),
                            [a for a in sorted(exp) if a not in got_a][:3], [a for a in sorted(got_a) if a not in exp][:3]))
    if problems:
        print("\n".join(problems[:10]))
        sys.exit(1)
    print("ok: %d slices on %d tracks, %d kept" % (sum(map(len, tracks.values())), len(tracks), len(want)))

def parse_detail(d):
    out = {}
    for part in (d or "").split(","):
        if ":" in part:
            k, _, v = part.partition(":")
            out[k.replace(" ", "").strip()] = v.strip()
    return out

def expected_arrows(src, keep_scalar):
    """Pairs by (core, producer, consumer, flag id), i-th SET with i-th WAIT by begin;
    anchored on the last kept producer slice starting at or before the SET's begin and
    the first kept consumer slice starting at or after the WAIT's end."""
    lanes = {}
    for e in src["traceEvents"]:
        if kept(e, keep_scalar):
            lanes.setdefault((str(e.get("pid", "")), canon(e.get("tid", ""))), []).append(e["ts"])
    for v in lanes.values():
        v.sort()
    flags, stacks = [], {}
    for e in src["traceEvents"]:
        if e.get("name") not in ("SET_FLAG", "WAIT_FLAG", "set_event", "wait_event"):
            continue
        k = (str(e.get("pid", "")), str(e.get("tid", "")), e["name"])
        if e["ph"] == "B":
            stacks.setdefault(k, []).append(e)
        elif e["ph"] == "E" and stacks.get(k):
            b = stacks[k].pop()
            flags.append((k[0], e["name"], b.get("args", {}).get("detail", ""), b["ts"], e["ts"]))
        elif e["ph"] == "X":
            flags.append((k[0], e["name"], e.get("args", {}).get("detail", ""), e["ts"], e["ts"] + e.get("dur", 0)))
    q = {}
    for pid, name, detail, b, end in flags:
        d = parse_detail(detail)
        prod = canon(d.get("PIPE", d.get("pipe_type", "")))
        cons = canon(d.get("TRIGGERPIPE", d.get("tigger_pipe", "")))
        fid = d.get("FLAGID", d.get("event_id", ""))
        q.setdefault((pid, prod, cons, fid), ([], []))[name.lower().startswith("wait")].append((b, end))
    arrows = []
    for (pid, prod, cons, fid), (sets, waits) in q.items():
        for s, w in zip(sorted(sets), sorted(waits)):
            lp, lc = lanes.get((pid, prod), []), lanes.get((pid, cons), [])
            i, j = bisect.bisect_right(lp, s[0]), bisect.bisect_left(lc, w[1])
            if i and j < len(lc):
                arrows.append((pid, prod, lp[i - 1], cons, lc[j]))
    return arrows

# ---- random traces ----

def fmt_ts(ticks, style):
    if style == 0:
        return float(struct.unpack("f", struct.pack("f", ticks / 1850.0))[0])  # the reference's floats
    if style == 1:
        return round(ticks / 1850.0, 6)
    return ticks  # plain integers

def random_trace(seed, n=1500, shuffle=False):
    r = random.Random(seed)
    style = r.randrange(3)
    pipes = ["MTE2", "MTE1", "CUBE", "VECTOR", "VEC", "FIXP", "MTE3", "SCALAR", "SCALARLDST",
             "CACHEMISS", "FLOWCTRL", "ALL", "USERMARK", "WARP_3"]
    cores = ["core%d.%s" % (c, s) for c in range(r.randrange(1, 3)) for s in ("cubecore0", "veccore0", "veccore1")]
    ev = [{"name": "process_sort_index", "ph": "M", "pid": c, "tid": "NA", "args": {"sort_index": 1}} for c in cores]
    items = []
    for c in cores:
        t = {p: r.randrange(0, 50) for p in pipes}
        for i in range(n // len(cores)):
            p = r.choice(pipes)
            kind = r.random()
            start = t[p] + r.choice([0, 0, 1, 2, 5, 20]) - (r.randrange(0, 40) if p in ("MTE2", "MTE1", "MTE3") else 0)
            start = max(start, 0)
            dur = r.choice([0, 1, 1, 2, 3, 10, 30, 60, 200])
            t[p] = max(t[p], start + (dur if r.random() < 0.5 else r.randrange(0, dur + 1)))
            if kind < 0.08:
                a, b = r.sample(["MTE2", "MTE1", "CUBE", "VEC", "FIXP", "MTE3", "SCALAR"], 2)
                fid = str(r.randrange(2))
                fields = ["PIPE:" + a, "TRIGGERPIPE:" + b, "FLAGID:" + fid]
                r.shuffle(fields)
                sb = start
                wb = start + r.randrange(0, 20)
                we = max(sb + 1, wb) + r.randrange(1, 10)
                items.append((sb + 1, c, a if a != "VEC" else "VECTOR", "set", sb, sb + 1, ",".join(fields) + ","))
                items.append((we, c, b if b != "VEC" else "VECTOR", "wait", wb, we, ",".join(fields) + ","))
            elif kind < 0.1:
                items.append((start + 1, c, p, "X", "BAR", start, 1))
            else:
                items.append((start + dur, c, p, "X", r.choice(["LD", "ST", "VADD", "MMAD", "MOV"]) + str(i % 7), start, dur))
    items.sort(key=lambda x: (x[1], x[0]))
    if shuffle:
        r.shuffle(items)
    else:
        for i in range(len(items) - 1):     # a little disorder, as real streams have
            if r.random() < 0.05 and items[i][1] == items[i + 1][1]:
                items[i], items[i + 1] = items[i + 1], items[i]
    for it in items:
        if it[3] == "X":
            _, c, p, _, name, s, d = it
            ts = fmt_ts(s, style)
            du = fmt_ts(s + d, style) - ts if style != 2 else d
            ev.append(X(name, c, p, ts, du, {"pc_addr": hex(0x100 + s % 64), "detail": "x"}))
        else:
            _, c, p, k, b, e, detail = it
            tid = p if r.random() < 0.8 else "SCALAR"
            ev.extend(flag(k, c, tid, fmt_ts(b, style), fmt_ts(e, style), detail))
    ev.append({"name": "GM_TO_UB", "ph": "C", "pid": "MTE Throughput", "tid": 0, "ts": 1, "args": {"x": 1}})
    return trace(ev)

if __name__ == "__main__":
    exec(sys.argv[1])
EOF
}

setup() {
	DATA="$TOP/test/data"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

py() { python3 "$PY" "from __main__ import *; $1"; }
# A visualize_data.bin of a TRACE block holding the trace in FILE (and an
# INSTR_API block when a second file is given).
vd() {
	local out=$1 tr=$2 ins=${3:-}
	py "vdata('$out', block(2, open('$tr').read())$([ -n "$ins" ] && echo ", block(4, open('$ins').read(), version=0)"))"
}
xs() { jq -c '[.traceEvents[] | select(.ph=="X")]' "$1"; }
names() { jq -r --arg ph "${2:-X}" '.traceEvents[] | select(.ph==$ph) | .name' "$1" | sort | tr '\n' ' '; }

# The sample of the README: four kinds of noise and three pipeline lanes.
sample() {
	py "print(trace([
		X('MOV_OUT_TO_UB', 'core0.veccore0', 'MTE2', 1.0, 0.5),
		X('VADD', 'core0.veccore0', 'VECTOR', 2.0, 0.25),
		X('MOV_UB_TO_OUT', 'core0.veccore0', 'MTE3', 3.0, 0.5),
		X('0x10f86a80', 'core0.veccore0', 'CACHEMISS', 0.5, 0.001),
		X('JUMPC', 'core0.veccore0', 'FLOWCTRL', 0.6, 0.001),
		X('BAR', 'core0.veccore0', 'ALL', 0.7, 0.001),
		X('BAR', 'core0.veccore0', 'MTE2', 0.7, 0.001),
		X('SET_FLAG', 'core0.veccore0', 'MTE2', 1.6, 0.001),
		X('cache_time', 'core0.veccore0', 'MTE2', 0.2, 0.1),
		X('MOV_XD_IMM', 'core0.veccore0', 'SCALAR', 0.1, 0.001),
		X('LD_XD_XN_IMM', 'core0.veccore0', 'SCALARLDST', 0.11, 0.001),
		{'name': 'flow', 'ph': 's', 'id': 'x', 'pid': 'core0.veccore0', 'tid': 'MTE2', 'ts': 1.5},
		{'name': 'thread_sort_index', 'ph': 'M', 'pid': 'core0.veccore0', 'tid': 'MTE2', 'args': {'sort_index': 6}},
		{'name': 'GM_TO_UB', 'ph': 'C', 'pid': 'MTE Throughput', 'tid': 0, 'ts': 1, 'args': {'throughput(MB/s)': 1.5}},
	]))" > sample.json
}

@test "noise lanes and sync slices are dropped, pipeline slices kept" {
	sample
	run trace-clean sample.json
	[ "$status" -eq 0 ]
	[ "$(names trace.clean.json)" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
	[ "$(jq '[.traceEvents[] | select(.ph=="C" or .ph=="t" or (.ph=="s" and .cat!="sync"))] | length' trace.clean.json)" -eq 0 ]
	py "check('sample.json', 'trace.clean.json')"
}

@test "the SCALAR lanes are kept only with --keep-scalar" {
	sample
	run trace-clean sample.json
	[ "$(names trace.clean.json)" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
	run trace-clean --keep-scalar sample.json
	[ "$status" -eq 0 ]
	[ "$(names trace.clean.json)" = "LD_XD_XN_IMM MOV_OUT_TO_UB MOV_UB_TO_OUT MOV_XD_IMM VADD " ]
	py "check('sample.json', 'trace.clean.json', keep_scalar=True)"
}

@test "lanes in dataflow order, cores in order, integer ids with names" {
	py "print(trace([X('n', c, p, 1.0 + i, 0.5) for i, (c, p) in enumerate([
		('core1.veccore0', 'MTE3'), ('core1.veccore0', 'SCALAR'), ('core0.veccore1', 'VECTOR'), ('core0.cubecore0', 'FIXP'),
		('core0.cubecore0', 'CUBE'), ('core0.cubecore0', 'MTE1'), ('core0.veccore0', 'MTE2'), ('core0.veccore0', 'VEC'),
		('core0.veccore0', 'MTE3'), ('core0.cubecore0', 'MTE2'), ('core0.veccore0', 'SCALAR')])]))" > order.json
	run trace-clean --keep-scalar order.json
	[ "$status" -eq 0 ]
	# cores by sort index
	run jq -r '[.traceEvents[] | select(.name=="process_sort_index")] | sort_by(.args.sort_index) | map(.pid|tostring) | join(" ")' trace.clean.json
	procs=$output
	run jq -r --arg p "$procs" '[.traceEvents[] | select(.name=="process_name")] | map({key: (.pid|tostring), value: .args.name}) | from_entries as $n | $p | split(" ") | map($n[.]) | join(" ")' trace.clean.json
	[ "$output" = "core0.cubecore0 core0.veccore0 core0.veccore1 core1.veccore0" ]
	# lanes of each core by sort index
	lanes() {
		jq -r --arg c "$1" '(.traceEvents[] | select(.name=="process_name" and .args.name==$c) | .pid) as $p
			| [.traceEvents[] | select(.pid==$p)] as $e
			| [$e[] | select(.name=="thread_sort_index")] | sort_by(.args.sort_index) | map(.tid) as $order
			| [$e[] | select(.name=="thread_name")] | map({key: (.tid|tostring), value: (.args.name | split(" ")[0])}) | from_entries as $n
			| $order | map($n[tostring]) | join(" ")' trace.clean.json
	}
	[ "$(lanes core0.cubecore0)" = "MTE2 MTE1 CUBE FIXPIPE" ]
	[ "$(lanes core0.veccore0)" = "MTE2 VECTOR MTE3 SCALAR" ]
	[ "$(lanes core1.veccore0)" = "MTE3 SCALAR" ]
	# readable labels, sort indexes on every lane, integer pid and tid everywhere
	jq -e '[.traceEvents[] | select(.name=="thread_name") | .args.name] | index("MTE2 (load GM->UB)") != null' trace.clean.json
	jq -e '([.traceEvents[] | select(.name=="thread_name")] | length) == ([.traceEvents[] | select(.name=="thread_sort_index")] | length)' trace.clean.json
	jq -e '[.traceEvents[] | select(.ph=="X" or .ph=="M") | .pid, (.tid // 0)] | all(type=="number")' trace.clean.json
	py "check('order.json', 'trace.clean.json', keep_scalar=True)"
}

@test "slices are recoloured by lane" {
	py "print(trace([X('a', 'c', 'MTE2', 1, 1, cname='black'), X('b', 'c', 'MTE2', 3, 1, cname='yellow'),
		X('c', 'c', 'VECTOR', 1, 1, cname='black'), X('d', 'c', 'CUBE', 1, 1), X('e', 'c', 'MTE3', 1, 1),
		X('f', 'c', 'FIXP', 1, 1), X('g', 'c', 'MTE1', 1, 1)]))" > colour.json
	run trace-clean colour.json
	[ "$status" -eq 0 ]
	run jq -r '.traceEvents[] | select(.ph=="X") | "\(.name)=\(.cname)"' trace.clean.json
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "a=thread_state_iowait b=thread_state_iowait c=good d=rail_response e=cq_build_passed f=yellow g=thread_state_iowait " ]
}

@test "timestamps are kept exactly as written" {
	cat > ts.json <<'EOF'
{"profilingType":"op","traceEvents":[
{"name":"A","ph":"X","pid":"core0.veccore0","tid":"MTE2","ts":5.964864730834961,"dur":0.14810776710510254,"args":{}},
{"name":"B","ph":"X","pid":"core0.veccore0","tid":"MTE2","ts":1e1,"dur":5E-1,"args":{}},
{"name":"C","ph":"X","pid":"core0.veccore0","tid":"VECTOR","ts":12,"dur":0,"args":{"k":[1,{"x":"y"}]}},
{"name":"D","ph":"X","pid":"core0.veccore0","tid":"VECTOR","ts":12.500000,"dur":0.0050,"args":{}}
]}
EOF
	run trace-clean ts.json
	[ "$status" -eq 0 ]
	grep -q '"name":"A".*"ts":5.964864730834961,.*"dur":0.14810776710510254,' trace.clean.json
	grep -q '"name":"B".*"ts":1e1,.*"dur":5E-1,' trace.clean.json
	grep -q '"name":"C".*"ts":12,.*"dur":0,"args":{"k":\[1,{"x":"y"}\]}' trace.clean.json
	grep -q '"name":"D".*"ts":12.500000,.*"dur":0.0050,' trace.clean.json
}

@test "three partially overlapping loads go to three sub-lanes, a fourth back to the first" {
	py "print(trace([X('L1', 'c', 'MTE2', 0, 10), X('L2', 'c', 'MTE2', 3, 10), X('L3', 'c', 'MTE2', 6, 10),
		X('L4', 'c', 'MTE2', 20, 5), X('V', 'c', 'VECTOR', 0, 100)]))" > loads.json
	run trace-clean loads.json
	[ "$status" -eq 0 ]
	run jq -r '(.traceEvents | map(select(.name=="thread_name")) | map({key: (.tid|tostring), value: .args.name}) | from_entries) as $n
		| .traceEvents[] | select(.ph=="X") | "\(.name)@\($n[.tid|tostring])"' trace.clean.json
	[ "$(sort <<<"$output" | tr '\n' ';')" = "L1@MTE2 (load GM->UB);L2@MTE2#1 (load GM->UB);L3@MTE2#2 (load GM->UB);L4@MTE2 (load GM->UB);V@VECTOR (compute);" ]
	py "check('loads.json', 'trace.clean.json')"
}

@test "touching slices share a track unless Perfetto's ns rounding would make them overlap" {
	# 1.0 + 1.0 = 2.0 touches exactly; 0.6 ns + 0.6 ns rounds to 1 + 1 > 1 ns
	py "print(trace([X('a', 'c', 'VECTOR', 0.001, 0.001), X('b', 'c', 'VECTOR', 0.002, 0.001),
		X('c', 'c', 'MTE3', 0.0006, 0.0006), X('d', 'c', 'MTE3', 0.0012, 0.0006)]))" > touch.json
	run trace-clean touch.json
	[ "$status" -eq 0 ]
	[ "$(jq '[.traceEvents[] | select(.name=="thread_name")] | length' trace.clean.json)" -eq 3 ]
	py "check('touch.json', 'trace.clean.json')"
}

@test "SET/WAIT pairs become arrows from the producer's to the consumer's instruction" {
	py "print(trace([X('LD0', 'c', 'MTE2', 0.5, 3.0), X('LD1', 'c', 'MTE2', 1.0, 3.0), X('LD2', 'c', 'MTE2', 9, 1),
		X('VADD', 'c', 'VECTOR', 4.5, 1.0), X('VEARLY', 'c', 'VECTOR', 2.0, 0.5), X('VMUL', 'c', 'VECTOR', 6.0, 1.0)]
		+ flag('set', 'c', 'MTE2', 3.99, 4.0, 'PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:0,', 'c_0')
		+ flag('wait', 'c', 'VECTOR', 2.6, 4.2, 'FLAGID:0,TRIGGERPIPE:VEC,PIPE:MTE2,', 'c_0')))" > arrows.json
	run trace-clean arrows.json
	[ "$status" -eq 0 ]
	# one s/f pair, same id, from LD1 (the last MTE2 slice starting before
	# the SET, on sub-lane #1) to VADD (the first VECTOR slice after the WAIT)
	[ "$(jq '[.traceEvents[] | select(.ph=="s" or .ph=="f")] | length' trace.clean.json)" -eq 2 ]
	run jq -r '(.traceEvents | map(select(.name=="thread_name")) | map({key: (.tid|tostring), value: (.args.name|split(" ")[0])}) | from_entries) as $n
		| .traceEvents[] | select(.ph=="s" or .ph=="f") | "\(.ph) \(.id) \(.cat) \(.name) \($n[.tid|tostring]) \(.ts) \(.bp // "-")"' trace.clean.json
	[ "${lines[0]}" = "s 1 sync MTE2->VEC flag0 MTE2#1 1 -" ]
	[ "${lines[1]}" = "f 1 sync MTE2->VEC flag0 VECTOR 4.5 e" ]
	py "check('arrows.json', 'trace.clean.json')"
}

@test "flags that cannot be anchored are counted and reported" {
	py "print(trace([X('LD', 'c', 'MTE2', 0.5, 1.0), X('V', 'c', 'VECTOR', 0.1, 0.1)]
		+ flag('set', 'c', 'MTE2', 2.0, 2.1, 'PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:0,')
		+ flag('wait', 'c', 'VECTOR', 2.0, 2.5, 'PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:0,')
		+ flag('set', 'c', 'MTE2', 3.0, 3.1, 'PIPE:MTE2,TRIGGERPIPE:MTE3,FLAGID:1,')
		+ flag('wait', 'c', 'MTE3', 3.0, 3.5, 'PIPE:MTE1,TRIGGERPIPE:MTE3,FLAGID:1,')
		+ flag('set', 'c', 'SCALAR', 0.1, 0.2, 'PIPE:S,TRIGGERPIPE:MTE2,FLAGID:2,')
		+ flag('wait', 'c', 'MTE2', 0.1, 0.3, 'PIPE:S,TRIGGERPIPE:MTE2,FLAGID:2,')))" > lost.json
	run trace-clean lost.json
	[ "$status" -eq 0 ]
	grep -q '4 sync flags not drawn as arrows: 1 SETs without a WAIT, 1 WAITs without a SET, 1 pairs without a kept producer instruction, 1 without a kept consumer instruction' <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph=="s" or .ph=="f")] | length' trace.clean.json)" -eq 0 ]
	run trace-clean -q lost.json
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "metrics: per-core arrays become one record list per core" {
	sample
	cat > instr.json <<'EOF'
{"Cores":["core0.cubecore0","core0.veccore0","core0.veccore1"],
 "Instructions":[
  {"Address":"0x10f86000","AscendC Inner Code":"/k.cpp:30","Cycles":[1,2,3],"GPR Count":[0,1,2],"Instructions Executed":[1,1,0],"Pipe":"SCALAR","Source":"ADD XD:X1","Vector Utilization Percentage":[-1.0,50.5,-1.0],"Odd":[1,2]},
  {"Address":"0x10f86004","Cycles":[7,8,9],"Pipe":"VECTOR","Process Bytes":[-1,512,-1]}],
 "Instructions Dtype":{"Instructions":{"Address":3,"Cycles":1}}}
EOF
	vd vis.bin sample.json instr.json
	run trace-clean vis.bin
	[ "$status" -eq 0 ]
	run python3 - <<'EOF'
import json
raw, got = json.load(open("instr.json")), json.load(open("instr_metrics.json"))
cores = raw["Cores"]
want = {"cores": cores, "instructions": {c: [{k.lower().replace(" ", "_"): (v[i] if isinstance(v, list) and len(v) == len(cores) else v)
        for k, v in rec.items()} for rec in raw["Instructions"]] for i, c in enumerate(cores)},
        "column_types": raw["Instructions Dtype"]}
assert got == want, (got, want)
assert list(got["instructions"]["core0.veccore0"][0].keys())[:3] == ["address", "ascendc_inner_code", "cycles"]
assert got["instructions"]["core0.veccore0"][0]["vector_utilization_percentage"] == 50.5
assert got["instructions"]["core0.veccore0"][0]["odd"] == [1, 2]
print("ok")
EOF
	[ "$status" -eq 0 ]
}

@test "metrics: many cores, duplicate names, escaped keys, an empty list" {
	python3 - <<'EOF'
import json
cores = ["core%d.veccore%d" % (i // 2, i % 2) for i in range(150)] + ["core0.veccore0"]
ins = [{"Addr\\u0065ss": "0x%x" % (0x100 + 4 * k), "Cycles": [k * 1000 + i for i in range(len(cores))], "Pipe": "MTE2"} for k in range(40)]
open("many.json", "w").write(json.dumps({"Cores": cores, "Instructions": ins}).replace("\\\\u0065", "\\u0065"))
EOF
	sample
	vd many.bin sample.json many.json
	run trace-clean many.bin
	[ "$status" -eq 0 ]
	run python3 - <<'EOF'
import json
raw, got = json.load(open("many.json")), json.load(open("instr_metrics.json"))
cores = raw["Cores"]
want = {}
for rec in raw["Instructions"]:
    for i, c in enumerate(cores):
        want.setdefault(c, []).append({k.lower().replace(" ", "_"): (v[i] if isinstance(v, list) and len(v) == len(cores) else v) for k, v in rec.items()})
assert got["instructions"] == want and got["column_types"] == {} and got["cores"] == cores
assert len(got["instructions"]["core0.veccore0"]) == 80
print("ok")
EOF
	[ "$status" -eq 0 ]
	echo '{"Cores":[],"Instructions":[]}' > empty.json
	vd empty.bin sample.json empty.json
	run trace-clean empty.bin
	[ "$status" -eq 0 ]
	[ "$(jq -c . instr_metrics.json)" = '{"cores":[],"instructions":{},"column_types":{}}' ]
}

@test "--raw-metrics writes the API_INSTR payload byte for byte" {
	sample
	printf '{"Cores":["a"],  "Instructions":[{"Cycles":[1]}]\n, "x":"\\u00e9"}' > instr.json
	vd vis.bin sample.json instr.json
	run trace-clean --raw-metrics vis.bin
	[ "$status" -eq 0 ]
	cmp instr.json instr_metrics.json
}

@test "a directory: OPPROF_*/simulator/visualize_data.bin, or visualize_data.bin in it" {
	sample
	mkdir -p OPPROF_20260101000000_ABCDEFGHIJKLMNOP/simulator plain
	vd OPPROF_20260101000000_ABCDEFGHIJKLMNOP/simulator/visualize_data.bin sample.json
	vd plain/visualize_data.bin sample.json
	run trace-clean OPPROF_20260101000000_ABCDEFGHIJKLMNOP
	[ "$status" -eq 0 ]     # no API_INSTR block: a warning
	[ -s OPPROF_20260101000000_ABCDEFGHIJKLMNOP/simulator/trace.clean.json ]
	[ ! -e OPPROF_20260101000000_ABCDEFGHIJKLMNOP/trace.clean.json ]
	run trace-clean plain
	[ -s plain/trace.clean.json ]
	# no visualize_data.bin: the trace.json is read instead
	mkdir -p only/simulator
	cp sample.json only/simulator/trace.json
	run trace-clean only
	[ "$status" -eq 0 ]
	[ -s only/simulator/trace.clean.json ]
	mkdir empty
	run trace-clean empty
	[ "$status" -eq 3 ]
	grep -q "empty: no visualize_data.bin or trace.json" <<<"$output"
}

@test "a missing API_INSTR block is a warning: the trace is still written, no metrics, exit 0" {
	sample
	vd vis.bin sample.json
	run trace-clean vis.bin
	[ "$status" -eq 0 ]
	grep -q "vis.bin: no API_INSTR (INSTR_API) block: instr_metrics.json not written" <<<"$output"
	[ -s trace.clean.json ]
	[ ! -e instr_metrics.json ]
}

# An error: exit 3, a message naming the file (and the offset), and no output
# file touched (an old trace.clean.json stays as it was, no temporary left).
refused() {
	local file=$1 msg=$2
	echo old > trace.clean.json
	run trace-clean "$file"
	echo "$output"
	[ "$status" -eq 3 ]
	grep -qF "trace-clean: $file: $msg" <<<"$output"
	[ "$(cat trace.clean.json)" = old ]
	[ "$(ls | grep -c tmp)" -eq 0 ]
	[ ! -e instr_metrics.json ]
}

@test "errors: wrong magic, size past the end, bad padding, missing TRACE" {
	sample
	n=$(stat -c %s sample.json)
	p=$(( (4 - n % 4) % 4 ))
	second=$(( 12 + n + p ))        # offset of the second block
	py "vdata('magic.bin', block(2, open('sample.json').read()), block(4, '{}', reserved=0x5B))"
	refused magic.bin "offset $(( second + 11 )): reserved byte is 0x5B, not 0x5A"
	py "vdata('size.bin', block(2, open('sample.json').read()), block(4, '{}', size=1 << 40))"
	refused size.bin "offset $second: content size 1099511627776 runs past the end of the file"
	py "vdata('pad.bin', block(2, open('sample.json').read(), pad=5))"
	refused pad.bin "offset 9: padding 5 > 3"
	py "vdata('nulpad.bin', struct.pack('<QBBBB', 8, 2, 2, 0x5A, 0x5A) + b'{}    xy')"
	refused nulpad.bin "offset 18: padding byte is 0x78, not NUL"
	py "vdata('notrace.bin', block(4, '{}', version=0), block(1, 'int main;'))"
	refused notrace.bin "no TRACE block (2 blocks)"
	# a TRACE block after a corrupt one is never reached
	py "vdata('late.bin', block(5, 'x', reserved=0), block(2, open('sample.json').read()))"
	refused late.bin "offset 11: reserved byte is 0x00, not 0x5A"
}

@test "errors: a TRACE payload that is not JSON, with the offset of the bad byte" {
	sample
	py "vdata('bad.bin', block(1, 'int x;'), block(2, '{\"traceEvents\":[{\"ph\":\"X\"} {}]}'))"
	# CODE block: 12 + 4096 + 8; TRACE header 12; the stray '{' at 27 of the payload
	refused bad.bin "offset $(( 12 + 4096 + 8 + 12 + 27 )): TRACE block: not valid JSON: expected ',' or ']' in an array"
	py "vdata('cut.bin', block(2, '{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\"'))"
	refused cut.bin "offset 48: TRACE block: not valid JSON: unexpected end of data"
	py "vdata('noev.bin', block(2, '{\"profilingType\":\"op\"}'))"
	refused noev.bin "TRACE block: no traceEvents array"
	py "vdata('obj.bin', block(2, '{\"traceEvents\":{}}'))"
	refused obj.bin "TRACE block: traceEvents is not an array"
	printf '{"traceEvents":[]}garbage' > trailing.json
	refused trailing.json "offset 18: not valid JSON: extra data after the JSON document"
	printf 'hello\n' > text.txt
	run trace-clean text.txt
	[ "$status" -eq 3 ]
	run trace-clean no-such-file
	[ "$status" -eq 3 ]
	grep -q "no-such-file: cannot open: No such file or directory" <<<"$output"
}

@test "usage errors" {
	run trace-clean a b
	[ "$status" -eq 2 ]
	run trace-clean --no-such-option x
	[ "$status" -eq 2 ]
	run trace-clean -h
	[ "$status" -eq 0 ]
	grep -q "usage: trace-clean" <<<"$output"
	run trace-clean --version
	[ "$status" -eq 0 ]
	grep -q "^trace-clean (optrace)" <<<"$output"
	run bash -c "trace-clean < /dev/null"
	[ "$status" -eq 3 ]
}

@test "malformed events are skipped, counted, and make the exit status 1" {
	cat > mal.json <<'EOF'
{"traceEvents":[{"name":"A","ph":"X","pid":"c","tid":"MTE2","ts":"1","dur":1},
{"name":"B","ph":"X","pid":"c","tid":"MTE2","ts":2,"dur":-1},
{"ph":"X","pid":"c","tid":"MTE2","ts":2,"dur":1},
{"name":"C","ph":"X","pid":"c","tid":"MTE2","ts":3,"dur":1},
17]}
EOF
	run trace-clean mal.json
	[ "$status" -eq 1 ]
	grep -q "mal.json: 4 events skipped (first: offset 16: an event without a numeric ts)" <<<"$output"
	[ "$(names trace.clean.json)" = "C " ]
}

@test "-o DIR: outputs there, raw files copied to raw_simulator/, the source untouched" {
	sample
	echo '{"Cores":[],"Instructions":[]}' > instr.json
	mkdir -p run/simulator/core0.veccore0 run/simulator/other
	vd run/simulator/visualize_data.bin sample.json instr.json
	cp sample.json run/simulator/trace.json
	echo a,b > run/simulator/core0.veccore0/core0.veccore0_instr_exe.csv
	echo unrelated > run/simulator/notes.txt
	ln -s /etc/passwd run/simulator/core0.veccore1
	before=$(cd run && find . -type f | sort | xargs md5sum)
	run trace-clean run -o out/clean
	[ "$status" -eq 0 ]
	[ -s out/clean/trace.clean.json ] && [ -s out/clean/instr_metrics.json ]
	[ "$(cd out/clean/raw_simulator && find . | sort | tr '\n' ' ')" = ". ./core0.veccore0 ./core0.veccore0/core0.veccore0_instr_exe.csv ./trace.json ./visualize_data.bin " ]
	cmp run/simulator/visualize_data.bin out/clean/raw_simulator/visualize_data.bin
	[ "$(cd run && find . -type f | sort | xargs md5sum)" = "$before" ]
	# no copy when asked, or when -o is the input's own directory
	run trace-clean --no-copy-raw run -o out2
	[ -s out2/trace.clean.json ] && [ ! -e out2/raw_simulator ]
	run trace-clean run -o run/simulator
	[ ! -e run/simulator/raw_simulator ]
	# an output directory inside the source: never copied into itself
	run trace-clean run -o run/simulator/core0.veccore0/clean
	[ "$status" -eq 0 ]
	[ ! -e run/simulator/core0.veccore0/clean/raw_simulator/core0.veccore0/clean ]
	[ -s run/simulator/core0.veccore0/clean/raw_simulator/visualize_data.bin ]
}

@test "-o - writes the clean trace to standard output" {
	sample
	run bash -c "trace-clean sample.json -o - 2>/dev/null | jq -r '.traceEvents[] | select(.ph==\"X\") | .name' | sort | tr '\n' ' '"
	[ "$output" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
	[ ! -e trace.clean.json ]
}

@test "a trace.json in array form, lz4-compressed, or on standard input" {
	sample
	jq '.traceEvents' sample.json > array.json
	run trace-clean array.json
	[ "$status" -eq 0 ]
	[ "$(names trace.clean.json)" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
	lz4 -q sample.json sample.json.lz4
	rm trace.clean.json
	run trace-clean sample.json.lz4
	[ "$status" -eq 0 ]
	[ "$(names trace.clean.json)" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
	mkdir in && cd in
	run bash -c "cat ../sample.json | trace-clean"
	[ "$status" -eq 0 ]
	[ "$(names trace.clean.json)" = "MOV_OUT_TO_UB MOV_UB_TO_OUT VADD " ]
}

@test "records on standard input: the same clean trace as through timeline-emit" {
	command -v timeline-emit >/dev/null || skip "timeline-emit not built"
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null > recs
	run bash -c "trace-clean --keep-scalar -o direct - < recs"
	[ "$status" -eq 0 ]
	timeline-emit -o emitted < recs >/dev/null 2>&1
	run trace-clean --keep-scalar -o via emitted/trace.json
	[ "$status" -eq 0 ]
	python3 - <<'EOF'
import json
def xs(p):
    d = json.load(open(p))
    return sorted(json.dumps(e, sort_keys=True) for e in d["traceEvents"])
assert xs("direct/trace.clean.json") == xs("via/trace.clean.json")
EOF
	# six instruction addresses and the trace mark's
	jq -e '.cores == ["core0.veccore0","core0.veccore1"] and (.instructions["core0.veccore0"] | length) == 7' direct/instr_metrics.json
	jq -e '.instructions["core0.veccore0"][] | select(.address=="0x10f86084") | .source == "SET_FLAG SCALAR ID:0" and .cycles == 274' direct/instr_metrics.json
	jq -e '.instructions["core0.veccore0"][] | select(.address=="0x10f8600c") | .source == "ADD dtype:S64,XD:X29,XN:X29,XM:X15=0"' direct/instr_metrics.json
	# no path and standard input not a terminal: the same
	mkdir cwd && cd cwd
	run bash -c "trace-clean --keep-scalar < ../recs"
	[ "$status" -eq 0 ]
	cmp trace.clean.json ../direct/trace.clean.json
}

@test "records: the raw INSTR_API form round-trips through a visualize_data.bin" {
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null > recs
	trace-clean -q -o a - < recs
	trace-clean -q --raw-metrics -o b - < recs
	jq -e '.Cores == ["core0.veccore0","core0.veccore1"] and (.Instructions[0].Cycles | length) == 2' b/instr_metrics.json
	vd rt.bin a/trace.clean.json b/instr_metrics.json
	trace-clean -q rt.bin -o c
	[ "$(jq -cS . a/instr_metrics.json)" = "$(jq -cS . c/instr_metrics.json)" ]
}

@test "records: the metrics are INSTR_API's, as through timeline-emit: marks in, cache misses out" {
	command -v timeline-emit >/dev/null || skip "timeline-emit not built"
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null | rec-cat --json > recs.jsonl
	grep -q '"kind":"mark"' recs.jsonl
	# Two cache misses by hand: at a pc nothing executes, and at an executed one.
	jq -c 'select(.kind=="instr" and .pc=="0x10f86000" and .subidx==0)' recs.jsonl | head -n 1 > first
	[ -s first ]
	jq -c '.pipe="CACHEMISS" | .name=.pc | .start=23071 | .end=23072 | .gpr=0 | .bytes=-1
		| .detail="size is 0x00000080,type:1,last:0,status is MISS"' first > miss0
	jq -c '.pc="0x10f86a80" | .name=.pc' miss0 > miss1
	{ grep -v '"kind":"trailer"' recs.jsonl; cat miss0 miss1; grep '"kind":"trailer"' recs.jsonl; } > in.jsonl
	run bash -c "trace-clean -o direct - < in.jsonl"
	[ "$status" -eq 0 ]
	timeline-emit -o emitted < in.jsonl >/dev/null 2>&1
	run trace-clean --no-copy-raw -o via emitted
	[ "$status" -eq 0 ]
	cmp direct/instr_metrics.json via/instr_metrics.json
	# the mark, on its start pc, with no metrics of its own
	jq -e '[.instructions[][] | select(.pipe=="USERMARK")] | length == 2 and all(.address == "0x10f86148"
		and .source == "Mark 0x1 SPR:LPCNT,XN:X6" and .instructions_executed == 1 and .cycles == 2264
		and .gpr_count == -1 and .process_bytes == -1 and .vector_utilization_percentage == -1)' direct/instr_metrics.json
	# no cache miss: no row of its own, nothing added to the instruction's
	jq -e '[.instructions[][] | select(.pipe=="CACHEMISS" or .address=="0x10f86a80")] | length == 0' direct/instr_metrics.json
	jq -e '.instructions["core0.veccore0"][] | select(.address=="0x10f86000") | .pipe == "SCALAR" and .instructions_executed == 1 and .cycles == 1' direct/instr_metrics.json
	# the raw form says the same
	trace-clean -q --raw-metrics -o raw - < in.jsonl
	[ "$(jq -cS . raw/instr_metrics.json)" = "$(vdata-dump --payload INSTR_API emitted/visualize_data.bin | jq -cS .)" ]
}

@test "records: a stream cut short, or with bad lines, still gives a trace, exit 1" {
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null > recs
	grep -av '^T' recs > cut
	run bash -c "trace-clean -o o1 - < cut"
	[ "$status" -eq 1 ]
	grep -q "without a trailer" <<<"$output"
	[ -s o1/trace.clean.json ]
	{ printf 'Ibroken\n'; cat recs; } > bad
	run bash -c "trace-clean -o o2 - < bad"
	[ "$status" -eq 1 ]
	grep -q "(stdin):1: bad record" <<<"$output"
}

# An endless trace on standard input, one MTE2 slice after another.
endless() {
	{ printf '{"traceEvents":[\n'; seq 1 1000000000 | awk '{printf "{\"name\":\"L\",\"ph\":\"X\",\"pid\":\"c\",\"tid\":\"MTE2\",\"ts\":%d,\"dur\":1},\n", $1}'; } 2>/dev/null
}

# interrupt_midway ARGS...: trace-clean ARGS reads 50000 slices of a trace
# from a FIFO whose writer stays open, and gets SIGINT once it has taken
# them all and waits for more: in the middle of its input.
interrupt_midway() {
	rm -f in
	mkfifo in
	trace-clean "$@" < in 3>&- & pid=$!
	exec 5> in
	{ printf '{"traceEvents":[\n'; seq 1 50000 | awk '{printf "{\"name\":\"L\",\"ph\":\"X\",\"pid\":\"c\",\"tid\":\"MTE2\",\"ts\":%d,\"dur\":1},\n", $1}'; } >&5
	wait_in_read $pid
	kill -INT $pid
	status=0
	wait $pid || status=$?
	exec 5>&-
}

@test "interrupted: exit 130, no file left behind, a trace on stdout still whole" {
	have_syscall || skip "no /proc/PID/syscall here"
	echo old > trace.clean.json
	interrupt_midway -
	[ "$status" -eq 130 ]
	[ "$(cat trace.clean.json)" = old ]
	[ "$(ls | grep -c tmp)" -eq 0 ]
	interrupt_midway -o - - > out.json
	[ "$status" -eq 130 ]
	python3 -c "import json; assert isinstance(json.load(open('out.json'))['traceEvents'], list)"
}

@test "a reader that goes away ends the run quietly" {
	endless | trace-clean -o - - 2> err | head -c 100 > /dev/null
	[ "${PIPESTATUS[1]}" -eq 0 ]
	[ ! -s err ]
}

@test "property: random traces, every track overlap-free, kept events and arrows exact" {
	for seed in $(seq 1 12); do
		py "print(random_trace($seed))" > r$seed.json
		if [ $((seed % 2)) -eq 0 ]; then
			vd r$seed.bin r$seed.json
			run trace-clean --no-copy-raw -o o$seed r$seed.bin
			[ "$status" -le 1 ]
		else
			run trace-clean -o o$seed r$seed.json
			[ "$status" -eq 0 ]
		fi
		ks=$([ $((seed % 3)) -eq 0 ] && echo True || echo False)
		if [ "$ks" = True ]; then
			trace-clean -q --keep-scalar -o o$seed r$seed.json
		fi
		py "check('r$seed.json', 'o$seed/trace.clean.json', keep_scalar=$ks)"
	done
}

@test "property: events in any order still give overlap-free tracks and exact arrows" {
	for seed in 101 102 103; do
		py "print(random_trace($seed, n=800, shuffle=True))" > s$seed.json
		run trace-clean -o o$seed s$seed.json
		[ "$status" -eq 0 ]
		py "check('s$seed.json', 'o$seed/trace.clean.json', peak=False)"
	done
}

@test "a generated simulator-like trace: reference and in-line flag order agree" {
	cc -std=c11 -D_GNU_SOURCE -O2 -I"$TOP/lib" -o gen-vdata "$TOP/test/bench/gen-vdata.c" "$TOP/build/liboptrace.a" -llz4 -lm
	./gen-vdata -n 20000 -c 2 -o g.bin 2>/dev/null
	./gen-vdata -n 20000 -c 2 --inline-flags --json -o g.json 2>/dev/null
	run trace-clean -v g.bin -o a
	[ "$status" -eq 0 ]
	grep -q "arrows" <<<"$output"
	! grep -q "not drawn" <<<"$output"
	run trace-clean g.json -o b
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.traceEvents[] | select(.ph=="s" or .ph=="f") | [.ph, .pid, .tid, .ts]] | sort' a/trace.clean.json)" = \
	  "$(jq -c '[.traceEvents[] | select(.ph=="s" or .ph=="f") | [.ph, .pid, .tid, .ts]] | sort' b/trace.clean.json)" ]
	vdata-dump --payload TRACE g.bin > g-trace.json
	py "check('g-trace.json', 'a/trace.clean.json')"
}

@test "every event written has a category: the lane for slices, sync for arrows, __metadata for names" {
	py "print(trace([X('LD0', 'c', 'MTE2', 0.5, 3.0), X('VADD', 'c', 'VEC', 4.5, 1.0), X('MOV', 'c', 'SCALAR', 0.1, 0.1)]
		+ flag('set', 'c', 'MTE2', 3.99, 4.0, 'PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:0,', 'c_0')
		+ flag('wait', 'c', 'VECTOR', 2.6, 4.2, 'FLAGID:0,TRIGGERPIPE:VEC,PIPE:MTE2,', 'c_0')))" > cat.json
	for ks in "" --keep-scalar; do
		run trace-clean $ks -o o cat.json
		[ "$status" -eq 0 ]
		jq -e '.traceEvents | length > 0 and all(.cat | type == "string" and length > 0)' o/trace.clean.json
		jq -e '[.traceEvents[] | select(.ph == "M") | .cat] | unique == ["__metadata"]' o/trace.clean.json
		jq -e '[.traceEvents[] | select(.ph == "s" or .ph == "f") | .cat] | unique == ["sync"]' o/trace.clean.json
		run jq -r '[.traceEvents[] | select(.ph == "X") | "\(.name)=\(.cat)"] | sort | join(" ")' o/trace.clean.json
		[ "$output" = "LD0=MTE2 VADD=VECTOR${ks:+ MOV=SCALAR}" ] || [ "$output" = "LD0=MTE2${ks:+ MOV=SCALAR} VADD=VECTOR" ]
	done
	# records: the marks too
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null | trace-clean -q --keep-scalar -o r -
	jq -e '.traceEvents | all(.cat | type == "string" and length > 0)' r/trace.clean.json
	jq -e '[.traceEvents[] | select(.ph == "X" and .cat == "USERMARK")] | length > 0' r/trace.clean.json
}

@test "a trace with only SCALAR-lane instructions: a warning naming --keep-scalar, exit 0" {
	py "print(trace([X('MOV_XD_IMM', 'c', 'SCALAR', 0.1, 0.001), X('LD_XD_XN_IMM', 'c', 'SCALARLDST', 0.2, 0.001),
		X('0x10', 'c', 'CACHEMISS', 0.3, 0.001)]))" > scalar.json
	run trace-clean scalar.json
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "trace-clean: scalar.json: no slice kept: 2 instructions on the SCALAR lanes were dropped; --keep-scalar keeps them" <<<"$output"
	[ "$(jq '[.traceEvents[] | select(.ph=="X")] | length' trace.clean.json)" -eq 0 ]
	run trace-clean --keep-scalar scalar.json
	[ "$status" -eq 0 ]
	! grep -q "keep-scalar" <<<"$output"
	# records: the same
	dump-split "$DATA/910B" 2>/dev/null | instr-parse 2>/dev/null | rec-cat --json |
		jq -c 'select(.kind != "instr" or .pipe == "SCALAR" or .pipe == "SCALARLDST") | select(.kind != "mark")' > sc.jsonl
	run bash -c "trace-clean -o r - < sc.jsonl"
	[ "$status" -eq 0 ]
	grep -q "(stdin): no slice kept: [0-9]* instructions on the SCALAR lanes were dropped; --keep-scalar keeps them" <<<"$output"
	# an empty trace is not scalar-only: no such warning
	py "print(trace([]))" > empty.json
	run trace-clean empty.json
	[ "$status" -eq 0 ]
	! grep -q "keep-scalar" <<<"$output"
}

# The fault library (test/fault/README) under trace-clean.
inject() {
	env LD_PRELOAD="$TOP/build/fault.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
# A run directory with every output's input, and an older set of outputs in out/.
old_set() {
	sample
	echo '{"Cores":["core0.veccore0"],"Instructions":[]}' > instr.json
	mkdir -p run/simulator/core0.veccore0
	vd run/simulator/visualize_data.bin sample.json instr.json
	echo a,b > run/simulator/core0.veccore0/core0.veccore0_instr_exe.csv
	mkdir -p out/raw_simulator
	echo old > out/trace.clean.json
	echo oldm > out/instr_metrics.json
	echo oldr > out/raw_simulator/old.txt
}
old_set_intact() {
	[ "$(cat out/trace.clean.json)" = old ]
	[ "$(cat out/instr_metrics.json)" = oldm ]
	[ "$(cd out/raw_simulator && find . | sort | tr '\n' ' ')" = ". ./old.txt " ]
	[ "$(ls -A out | tr '\n' ' ')" = "instr_metrics.json raw_simulator trace.clean.json " ]
}

@test "outputs are all-or-nothing: a failed trace.clean.json write or rename keeps the whole older set" {
	[ -f "$TOP/build/fault.so" ] || skip "build/fault.so is missing (make build/fault.so)"
	old_set
	for fault in "write ENOSPC No space left on device" "fsync EIO Input/output error" "rename EACCES Permission denied"; do
		set -- $fault
		run inject FAULT_OP=$1 FAULT_ERRNO=$2 FAULT_PATH=trace.clean.json trace-clean run -o out
		echo "$fault: $output"
		[ "$status" -eq 4 ]
		[ "$(grep -c . <<<"$output")" -eq 1 ]
		grep -q "^trace-clean: out/trace.clean.json: .*${fault#* * }" <<<"$output"
		old_set_intact
	done
	# the move into place fails at trace.clean.json, the last: the metrics
	# and raw_simulator/ already moved go back, the older ones with them
	run inject FAULT_OP=rename FAULT_AFTER=1 FAULT_ERRNO=EACCES FAULT_PATH=trace.clean.json trace-clean run -o out
	echo "$output"
	[ "$status" -eq 4 ]
	grep -q "^trace-clean: out/trace.clean.json: cannot move into place: Permission denied" <<<"$output"
	old_set_intact
	# the metrics' write, and a raw file's
	run inject FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=instr_metrics.json trace-clean run -o out
	[ "$status" -eq 4 ]
	grep -q "^trace-clean: out/instr_metrics.json: " <<<"$output"
	old_set_intact
	run inject FAULT_OP=write FAULT_ERRNO=EIO FAULT_PATH=_instr_exe.csv trace-clean run -o out
	[ "$status" -eq 4 ]
	grep -q "^trace-clean: out/raw_simulator/core0.veccore0/core0.veccore0_instr_exe.csv: " <<<"$output"
	old_set_intact
	# and without the fault the new set replaces the old, whole
	run trace-clean run -o out
	[ "$status" -eq 0 ]
	jq -e '.traceEvents | length > 0' out/trace.clean.json
	jq -e '.cores == ["core0.veccore0"]' out/instr_metrics.json
	[ "$(cd out/raw_simulator && find . | sort | tr '\n' ' ')" = ". ./core0.veccore0 ./core0.veccore0/core0.veccore0_instr_exe.csv ./visualize_data.bin " ]
	[ "$(ls -A out | tr '\n' ' ')" = "instr_metrics.json raw_simulator trace.clean.json " ]
}

@test "a failed run leaves no -o directory it created, and an unusable input none either" {
	echo 'not json' > bad.json
	run trace-clean bad.json -o fresh/out
	[ "$status" -eq 3 ]
	[ ! -e fresh ]
	sample
	run trace-clean sample.json -o fresh/out
	[ "$status" -eq 0 ]
	[ -s fresh/out/trace.clean.json ]
	# an existing directory stays, as it was
	mkdir keep
	run trace-clean bad.json -o keep
	[ "$status" -eq 3 ]
	[ -d keep ] && [ -z "$(ls -A keep)" ]
	[ -f "$TOP/build/fault.so" ] || skip "build/fault.so is missing (make build/fault.so)"
	run inject FAULT_OP=write FAULT_ERRNO=ENOSPC FAULT_PATH=trace.clean.json trace-clean sample.json -o fresh2/out
	[ "$status" -eq 4 ]
	[ ! -e fresh2 ]
}

@test "a double quote or backslash in an operand survives, escaped, from the dump line to every JSON output" {
	command -v timeline-emit >/dev/null || skip "timeline-emit not built"
	mkdir d
	# the ADD of the sample, paired, with an operand holding a quote and a backslash
	for f in instr_log instr_popped_log; do
		sed 's|XM:X15=0,$|XM:X15=0, TAG:a"b\\c"d,|' "$DATA/910B/core0.veccore0.$f.dump" > "d/core0.veccore0.$f.dump"
	done
	grep -qF 'TAG:a"b\c"d,' d/core0.veccore0.instr_log.dump
	want='dtype:S64,XD:X29=0x107f80,XN:X29=0x107f80,XM:X15=0,TAG:a"b\c"d,'
	dump-split d 2>/dev/null | instr-parse 2>/dev/null > recs
	# the record
	[ "$(rec-cat --json < recs | jq -r 'select(.kind=="instr" and .pc=="0x10f8600c") | .detail')" = "$want" ]
	# trace-clean from the records: the trace and the metrics
	trace-clean -q --keep-scalar -o tc - < recs
	[ "$(jq -r '.traceEvents[] | select(.name=="ADD") | .args.detail' tc/trace.clean.json)" = "$want" ]
	[ "$(jq -r '.instructions[][] | select(.address=="0x10f8600c") | .source' tc/instr_metrics.json)" = 'ADD dtype:S64,XD:X29,XN:X29,XM:X15=0,TAG:a"b\c"d' ]
	# timeline-emit's traces, then trace-clean of those
	timeline-emit -q -o em < recs >/dev/null 2>&1
	[ "$(jq -r '.traceEvents[] | select(.name=="ADD") | .args.detail' em/trace.json)" = "$want" ]
	[ "$(jq -r '.traceEvents[] | select(.name=="ADD") | .args.detail' em/core0.veccore0/trace.json)" = "$want" ]
	trace-clean -q --keep-scalar --no-copy-raw -o tv em
	[ "$(jq -r '.traceEvents[] | select(.name=="ADD") | .args.detail' tv/trace.clean.json)" = "$want" ]
	[ "$(jq -r '.instructions[][] | select(.address=="0x10f8600c") | .source' tv/instr_metrics.json)" = 'ADD dtype:S64,XD:X29,XN:X29,XM:X15=0,TAG:a"b\c"d' ]
	trace-clean -q --keep-scalar -o tj em/trace.json
	[ "$(jq -r '.traceEvents[] | select(.name=="ADD") | .args.detail' tj/trace.clean.json)" = "$want" ]
}

@test "records: a flag is what its sync fields say, whatever its detail or name" {
	h='{"kind":"header","version":2,"mhz":1000,"producer":"t","soc":"Ascend910B1","origin":""}'
	i='{"kind":"instr","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"pc":"0x100","id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":0,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null'
	{
		echo "$h"
		echo "$i"',"start":1000,"end":2000,"sync":"","pipe":"MTE2","name":"MOV_OUT_TO_UB","detail":"","prod":"","cons":"","flag":""}'
		# a SET and a WAIT whose details name other pipes: the fields count
		echo "$i"',"start":2000,"end":3000,"sync":"set","pipe":"MTE2","name":"SET_FLAG","detail":"PIPE:MTE3,TRIGGERPIPE:CUBE,FLAGID:7,","prod":"MTE2","cons":"VEC","flag":"3"}'
		echo "$i"',"start":2000,"end":4000,"sync":"wait","pipe":"VECTOR","name":"WAIT_FLAG","detail":"","prod":"MTE2","cons":"VEC","flag":"3"}'
		echo "$i"',"start":4000,"end":5000,"sync":"","pipe":"VECTOR","name":"VADD","detail":"","prod":"","cons":"","flag":""}'
		# named like a flag, but not one: an ordinary slice
		echo "$i"',"start":5000,"end":6000,"sync":"","pipe":"VECTOR","name":"SET_FLAG","detail":"PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:3,","prod":"","cons":"","flag":""}'
		# a barrier: dropped as sync
		echo "$i"',"start":6000,"end":7000,"sync":"bar","pipe":"VECTOR","name":"PIPE_BARRIER","detail":"","prod":"","cons":"","flag":""}'
		echo '{"kind":"trailer","records":6,"bad":0,"dropped":0,"interrupted":0,"producer":"t"}'
	} > recs.jsonl
	run trace-clean -o out - < recs.jsonl
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.traceEvents[] | select(.ph=="s") | .name] | join(" ")' out/trace.clean.json)" = "MTE2->VEC flag3" ]
	[ "$(jq -r '[.traceEvents[] | select(.ph=="X") | .name] | join(" ")' out/trace.clean.json)" = "MOV_OUT_TO_UB VADD SET_FLAG" ]
	# the arrow: from the load before the SET to the VADD after the WAIT
	jq -e '[.traceEvents[] | select(.ph=="s")][0].ts == 1 and [.traceEvents[] | select(.ph=="f")][0].ts == 4' out/trace.clean.json
}

@test "records: the Source text keeps a register name with a value before its '='" {
	h='{"kind":"header","version":2,"mhz":1000,"producer":"t","soc":"Ascend910B1","origin":""}'
	i='{"kind":"instr","core":0,"sub":"veccore","subidx":0,"block":-1,"subblock":-1,"id":0,"warp":-1,"sch":-1,"threads":-1,"gpr":0,"bytes":0,"vec_util":-1,"ub_read":-1,"ub_write":-1,"icache_tick":null,"ccu_tick":null,"sync":"","prod":"","cons":"","flag":""'
	{
		echo "$h"
		echo "$i"',"pc":"0x100","start":1000,"end":2000,"pipe":"VECTOR","name":"VADD","detail":"A:0x1=0x2,B:X1=0x3,"}'
		echo "$i"',"pc":"0x104","start":2000,"end":3000,"pipe":"VECTOR","name":"VMUL","detail":"C:0x5,D:X2=0x7,"}'
		echo '{"kind":"trailer","records":2,"bad":0,"dropped":0,"interrupted":0,"producer":"t"}'
	} > recs.jsonl
	run trace-clean -q -o out - < recs.jsonl
	[ "$status" -eq 0 ]
	# cut at "=0x", else at ":0x": what timeline-emit writes into INSTR_API
	[ "$(jq -r '.instructions[][] | select(.address=="0x100") | .source' out/instr_metrics.json)" = "VADD A:0x1,B:X1" ]
	[ "$(jq -r '.instructions[][] | select(.address=="0x104") | .source' out/instr_metrics.json)" = "VMUL C,D:X2" ]
}
