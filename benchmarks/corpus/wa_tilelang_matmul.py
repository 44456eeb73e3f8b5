"""Tiled matmul, transpose and axpy kernels for the CPU with TileLang, checked against PyTorch.

The matmul walks K in tiles of `block_k`; everything is timed and compared.
"""
import argparse
import json
import logging
import time

import torch
import tilelang
import tilelang.language as T

logging.basicConfig(level=logging.WARNING)
log = logging.getLogger("tiles")

SETTINGS = json.loads('{"m": 64, "n": 64, "k": 64, "block_m": 16, "block_n": 16, "block_k": 16, "seed": 7}')
TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
RESULTS = []


def matmul(M, N, K, bm, bn, bk):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            acc = T.alloc_fragment((bm, bn), "float32")
            for i, j in T.Parallel(bm, bn):
                acc[i, j] = 0.0
            for ko in T.serial(T.ceildiv(K, bk) - 1):
                for i, j in T.Parallel(bm, bn):
                    for kk in T.serial(bk):
                        acc[i, j] += A[by * bm + i, ko * bk + kk] * B[ko * bk + kk, bx * bn + j]
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = acc[i, j]
    return main


def transpose(M, N, bm, bn):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((N, M), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                B[bx * bn + j, by * bm + i] = A[by * bm + i, bx * bn + j]
    return main


def axpy(M, N, bm, bn, alpha):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32"), Z: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                Z[by * bm + i, bx * bn + j] = X[by * bm + i, bx * bn + j] * alpha + Y[by * bm + i, bx * bn + j]
    return main


def bench(label, fn, repeat=3):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    elapsed = (time.perf_counter() - start) / repeat
    RESULTS.append({"kernel": label, "ms": round(elapsed * 1e3, 3)})
    log.info("%s took %.3f ms", label, elapsed * 1e3)
    return elapsed


def check_transpose(s):
    kernel = tilelang.compile(transpose(s["m"], s["n"], s["block_m"], s["block_n"]), target="c")
    a = torch.randn(s["m"], s["n"])
    b = torch.empty(s["n"], s["m"])
    bench("transpose", lambda: kernel(a, b))
    torch.testing.assert_close(b, a.t().contiguous(), **TOLERANCE)


def check_axpy(s):
    kernel = tilelang.compile(axpy(s["m"], s["n"], s["block_m"], s["block_n"], 2.0), target="c")
    x, y = torch.randn(s["m"], s["n"]), torch.randn(s["m"], s["n"])
    z = torch.empty(s["m"], s["n"])
    bench("axpy", lambda: kernel(x, y, z))
    torch.testing.assert_close(z, 2.0 * x + y, **TOLERANCE)


def check_matmul(s):
    kernel = tilelang.compile(matmul(s["m"], s["n"], s["k"], s["block_m"], s["block_n"], s["block_k"]), target="c")
    a = torch.randn(s["m"], s["k"])
    b = torch.randn(s["k"], s["n"])
    c = torch.zeros(s["m"], s["n"])
    bench("matmul", lambda: kernel(a, b, c))
    torch.testing.assert_close(c, a @ b, **TOLERANCE)


def report():
    for row in RESULTS:
        print(f"{row['kernel']:>10}: {row['ms']:8.3f} ms")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip", action="append", default=[])
    args = parser.parse_args(argv)
    torch.manual_seed(SETTINGS["seed"])
    for name, check in (("transpose", check_transpose), ("axpy", check_axpy), ("matmul", check_matmul)):
        if name in args.skip:
            continue
        check(SETTINGS)
        print(f"{name}: ok")
    report()


main([])
