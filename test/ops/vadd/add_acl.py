#!/usr/bin/env python3
"""Vector add launched from Python through ACL with ctypes (the framework
path): aclrtBinaryLoadFromFile, aclrtKernelArgs*, aclrtLaunchKernelWithConfig.

    add_acl.py [-n LOOPS] [-b BLOCKDIM] [-k KERNEL.o] [-r MESSAGE]

-r puts the launch inside an mstx range of that message, through
libms_tools_ext.so opened with ctypes (as Python frameworks do).
libascendcl.so is found through LD_LIBRARY_PATH, else $ASCEND_HOME_PATH/lib64.
Exit 0 when z == x + y."""
import array
import ctypes
import os
import sys

def load_lib(name):
    try:
        return ctypes.CDLL(name)
    except OSError:
        home = os.environ.get("ASCEND_HOME_PATH", "")
        return ctypes.CDLL(os.path.join(home, "lib64", name))

def main(argv):
    loops, blocks, mstx_message = 1, 2, None
    kernel = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "add_custom.o")
    args = list(argv)
    while args:
        opt = args.pop(0)
        if opt in ("-n", "-b", "-k", "-r") and args:
            val = args.pop(0)
            if opt == "-n":
                loops = int(val)
            elif opt == "-b":
                blocks = int(val)
            elif opt == "-r":
                mstx_message = val
            else:
                kernel = val
        else:
            sys.stderr.write("usage: add_acl.py [-n LOOPS] [-b BLOCKDIM] [-k KERNEL] [-r MESSAGE]\n")
            return 2
    acl = load_lib("libascendcl.so")
    vp = ctypes.c_void_p
    for name, res, params in (
            ("aclInit", ctypes.c_int, [ctypes.c_char_p]),
            ("aclrtSetDevice", ctypes.c_int, [ctypes.c_int32]),
            ("aclrtCreateStream", ctypes.c_int, [ctypes.POINTER(vp)]),
            ("aclrtBinaryLoadFromFile", ctypes.c_int, [ctypes.c_char_p, vp, ctypes.POINTER(vp)]),
            ("aclrtBinaryGetFunction", ctypes.c_int, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            ("aclrtMalloc", ctypes.c_int, [ctypes.POINTER(vp), ctypes.c_size_t, ctypes.c_int]),
            ("aclrtMemcpy", ctypes.c_int, [vp, ctypes.c_size_t, vp, ctypes.c_size_t, ctypes.c_int]),
            ("aclrtKernelArgsInit", ctypes.c_int, [vp, ctypes.POINTER(vp)]),
            ("aclrtKernelArgsAppend", ctypes.c_int, [vp, vp, ctypes.c_size_t, ctypes.POINTER(vp)]),
            ("aclrtKernelArgsFinalize", ctypes.c_int, [vp]),
            ("aclrtLaunchKernelWithConfig", ctypes.c_int, [vp, ctypes.c_uint32, vp, vp, vp, vp]),
            ("aclrtSynchronizeStream", ctypes.c_int, [vp]),
            ("aclrtFree", ctypes.c_int, [vp]),
            ("aclrtBinaryUnLoad", ctypes.c_int, [vp]),
            ("aclrtDestroyStream", ctypes.c_int, [vp]),
            ("aclrtResetDevice", ctypes.c_int, [ctypes.c_int32]),
            ("aclFinalize", ctypes.c_int, [])):
        fn = getattr(acl, name)
        fn.restype, fn.argtypes = res, params

    def check(rc, what):
        if rc != 0:
            sys.stderr.write("add_acl.py: %s failed: %d\n" % (what, rc))
            sys.exit(1)

    elems = 8192
    n = blocks * elems
    x = array.array("f", [(i % 1000) / 8.0 for i in range(n)])
    y = array.array("f", [((i * 3) % 1000) / 8.0 for i in range(n)])
    z = array.array("f", bytes(4 * n))
    tiling = array.array("I", [elems, loops])
    check(acl.aclInit(None), "aclInit")
    check(acl.aclrtSetDevice(0), "aclrtSetDevice")
    stream, binh, func, argsh, param = vp(), vp(), vp(), vp(), vp()
    check(acl.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
    check(acl.aclrtBinaryLoadFromFile(kernel.encode(), None, ctypes.byref(binh)), "aclrtBinaryLoadFromFile")
    check(acl.aclrtBinaryGetFunction(binh, b"add_custom", ctypes.byref(func)), "aclrtBinaryGetFunction")
    dev = []
    for host, nbytes in ((x, 4 * n), (y, 4 * n), (z, 4 * n), (tiling, 8)):
        d = vp()
        check(acl.aclrtMalloc(ctypes.byref(d), nbytes, 0), "aclrtMalloc")
        if host is not z:
            addr, _ = host.buffer_info()
            check(acl.aclrtMemcpy(d, nbytes, addr, nbytes, 1), "aclrtMemcpy")
        dev.append(d)
    check(acl.aclrtKernelArgsInit(func, ctypes.byref(argsh)), "aclrtKernelArgsInit")
    ptrs = (ctypes.c_uint64 * 4)(*[d.value for d in dev])
    check(acl.aclrtKernelArgsAppend(argsh, ctypes.addressof(ptrs), 32, ctypes.byref(param)), "aclrtKernelArgsAppend")
    check(acl.aclrtKernelArgsFinalize(argsh), "aclrtKernelArgsFinalize")
    range_id = None
    if mstx_message is not None:
        mstx = load_lib("libms_tools_ext.so")
        mstx.mstxRangeStartA.restype, mstx.mstxRangeStartA.argtypes = ctypes.c_uint64, [ctypes.c_char_p, vp]
        mstx.mstxRangeEnd.restype, mstx.mstxRangeEnd.argtypes = None, [ctypes.c_uint64]
        range_id = mstx.mstxRangeStartA(mstx_message.encode(), stream)
    check(acl.aclrtLaunchKernelWithConfig(func, blocks, stream, None, argsh, None), "aclrtLaunchKernelWithConfig")
    check(acl.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")
    if range_id is not None:
        mstx.mstxRangeEnd(range_id)
    addr, _ = z.buffer_info()
    check(acl.aclrtMemcpy(addr, 4 * n, dev[2], 4 * n, 2), "aclrtMemcpy")
    for d in dev:
        check(acl.aclrtFree(d), "aclrtFree")
    check(acl.aclrtBinaryUnLoad(binh), "aclrtBinaryUnLoad")
    check(acl.aclrtDestroyStream(stream), "aclrtDestroyStream")
    check(acl.aclrtResetDevice(0), "aclrtResetDevice")
    check(acl.aclFinalize(), "aclFinalize")
    bad = sum(1 for i in range(n) if z[i] != x[i] + y[i])
    if bad:
        sys.stderr.write("add_acl.py: %d of %d results wrong\n" % (bad, n))
        return 1
    print("add_acl.py: %d elements on %d blocks, %d loops: ok" % (n, blocks, loops))
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
