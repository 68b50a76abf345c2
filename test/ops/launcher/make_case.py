#!/usr/bin/env python3
"""Write a --config case for the vector-add kernel (see optrace-capture(5),
KERNEL DESCRIPTIONS, The --config kernel description): inputs, tiling and the
JSON, into DIR.  Usage: make_case.py DIR KERNEL.o [LOOPS]"""
import json
import os
import struct
import sys

def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__ + "\n")
        return 2
    out, kernel = sys.argv[1], os.path.abspath(sys.argv[2])
    loops = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    os.makedirs(out, exist_ok=True)
    blocks, elems = 2, 8192
    n = blocks * elems
    x = [(i % 1000) / 8.0 for i in range(n)]
    y = [((i * 7) % 1000) / 8.0 for i in range(n)]
    paths = {}
    for name, data, fmt in (("x", x, "f"), ("y", y, "f")):
        p = os.path.abspath(os.path.join(out, "input_%s.bin" % name))
        with open(p, "wb") as f:
            f.write(struct.pack("<%d%s" % (len(data), fmt), *data))
        paths[name] = p
    tiling = os.path.abspath(os.path.join(out, "tiling.bin"))
    with open(tiling, "wb") as f:
        f.write(struct.pack("<II", elems, loops))
    case = {
        "kernel_name": "add_custom", "kernel_path": kernel, "blockdim": blocks, "mode": "ca",
        "device_id": 0, "magic": "RT_DEV_BINARY_MAGIC_ELF_AIVEC",
        "output_data_path": os.path.abspath(os.path.join(out, "result")),
        "test_cases": [{"case_name": "Test_AddCustom_001", "param_desc": [
            {"param_type": "input", "name": "x", "type": "float32", "shape": [blocks, elems], "data_path": paths["x"]},
            {"param_type": "input", "name": "y", "type": "float32", "shape": [blocks, elems], "data_path": paths["y"]},
            {"param_type": "output", "name": "z", "type": "float32", "shape": [blocks, elems]},
            {"param_type": "tiling", "tiling_data_size": 8, "tiling_data_path": tiling}]}]}
    with open(os.path.join(out, "add_custom.json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
    return 0

sys.exit(main())
