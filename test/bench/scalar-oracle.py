#!/usr/bin/env python3
"""Random scalar-merge inputs and the scalar head overhead they give
(optrace-sidelogs(5), CCU LOG, Scalar head overhead), computed the
reference's way (whole tables in memory), for test/bats/scalar-merge.bats.

  scalar-oracle.py gen SEED [--unordered] [--issues N]   JSON Lines records on stdout
  scalar-oracle.py expect FILE                             [pc, start, icache, ccu] per record

The generated stream: per core, fetch records, then CCU issue lines, then
instruction records (each pc's in start order, pcs interleaved as
completion order would interleave them), as dump-split | instr-parse |
icache-merge would send them."""
import bisect
import json
import random
import sys

NONE = None


def gen(seed, unordered, issues):
    rnd = random.Random(seed)
    out = [{"kind": "header", "version": 1, "mhz": 1850, "producer": "oracle",
            "soc": "Ascend910B1", "origin": "oracle"}]
    for core in range(2):
        unit = {"core": core, "sub": "veccore", "subidx": 0}
        pcs = [0x1000 + 4 * rnd.randrange(64) for _ in range(24)]
        t = 100
        fetches, ccu, recs = [], [], []
        for _ in range(issues):
            pc = rnd.choice(pcs)
            t += rnd.randrange(3)
            if rnd.random() < 0.3:
                fetches.append((t - rnd.randrange(20), pc - 4 * rnd.randrange(4)))
            if rnd.random() < 0.05:     # an issue without a record, or a stray record
                if rnd.random() < 0.5:
                    ccu.append((t, pc))
                else:
                    recs.append((t + rnd.randrange(10), pc))
                continue
            ccu.append((t, pc))
            if rnd.random() < 0.97:
                start = t + rnd.randrange(30) - (3 if rnd.random() < 0.05 else 0)
                recs.append((max(start, 0), pc))
        fetches.sort()
        if unordered:
            for i in range(len(ccu) // 10):
                a, b = rnd.randrange(len(ccu)), rnd.randrange(len(ccu))
                ccu[a], ccu[b] = ccu[b], ccu[a]
            rnd.shuffle(fetches)
        # each pc's records in start order; across pcs by end (start + latency)
        recs = sorted(recs)
        ends = [(s + rnd.randrange(40), s, pc) for s, pc in recs]
        byend = {}
        for e, s, pc in ends:
            byend.setdefault(pc, []).append(e)
        for pc in byend:
            byend[pc].sort()
        k = {pc: 0 for pc in byend}
        order = []
        for s, pc in recs:
            order.append((byend[pc][k[pc]], s, pc))
            k[pc] += 1
        order.sort()
        for tick, addr in fetches:
            out.append(dict(unit, kind="fetch", tick=tick, pc=hex(addr)))
        for n, (tick, pc) in enumerate(ccu):
            text = ("[info] %d: is_single_issue instr, pc:%s" if n % 2 else
                    "[info] %d: ccu do issue success.issue isa pc :%s") % (tick, hex(pc))
            out.append(dict(unit, kind="line", file=1, log="ccu", line=n + 1, text=text))
        for e, s, pc in order:
            out.append(dict(unit, kind="instr", block=-1, subblock=-1, start=s, end=max(e, s), pc=hex(pc),
                            id=0, warp=-1, sch=-1, threads=-1, gpr=0, bytes=0, vec_util=-1,
                            ub_read=-1, ub_write=-1, icache_tick=None, ccu_tick=None,
                            pipe="SCALAR", name="ADD", detail=""))
    out.append({"kind": "trailer", "records": 0, "bad": 0, "dropped": 0, "interrupted": 0,
                "producer": "oracle"})
    for r in out:
        print(json.dumps(r))


def expect(path):
    units = {}
    rows = []
    import re
    pat = re.compile(r"\[info\] ([0-9]+): (is_single_issue instr, pc|ccu do issue success.issue isa pc ):(0x[0-9a-f]+)")
    for line in open(path):
        r = json.loads(line)
        if r["kind"] not in ("fetch", "line", "instr"):
            continue
        u = units.setdefault((r["core"], r["sub"], r["subidx"]), {"fetch": {}, "ccu": {}, "recs": []})
        if r["kind"] == "fetch":
            a = int(r["pc"], 16)
            for k in range(4):
                u["fetch"].setdefault(a + 4 * k, set()).add(r["tick"])
        elif r["kind"] == "line":
            m = pat.search(r["text"])
            if m:
                u["ccu"].setdefault(int(m.group(3), 16), []).append([int(m.group(1)), NONE])
        else:
            u["recs"].append(r)
    res = {}
    for key, u in units.items():
        if u["ccu"] and u["fetch"]:
            for pc, ents in u["ccu"].items():       # step 1
                f = sorted(u["fetch"].get(pc, ()))
                for e in ents:
                    k = bisect.bisect_left(f, e[0])     # lower_bound, then the one before
                    if not k:
                        break
                    e[1] = f[k - 1]
            bypc = {}
            for i, r in enumerate(u["recs"]):
                bypc.setdefault(int(r["pc"], 16), []).append((r["start"], i))
            for pc, lst in bypc.items():             # step 2 (records of a pc in arrival = start order)
                ents = u["ccu"].get(pc, [])
                for j, (s, i) in enumerate(lst):
                    if j >= len(ents) or ents[j][0] > s:
                        break
                    res[(key, i)] = (ents[j][1], ents[j][0])
        for i, r in enumerate(u["recs"]):
            ic, cc = res.get((key, i), (NONE, NONE))
            rows.append((key, i, [r["pc"], r["start"], ic, cc]))
    for key, i, row in sorted(rows, key=lambda x: (x[0], x[1])):
        print(json.dumps(row, separators=(",", ":")))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        issues = 300
        if "--issues" in sys.argv:
            issues = int(sys.argv[sys.argv.index("--issues") + 1])
        gen(int(sys.argv[2]), "--unordered" in sys.argv, issues)
    else:
        expect(sys.argv[2])
