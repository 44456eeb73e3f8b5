"""Fused epilogue kernels for a small MLP block, compiled for the CPU with TileLang.

Runs every kernel of the block against its PyTorch reference and prints timings.
"""
import argparse
import logging
import time

import torch
import tilelang
import tilelang.language as T

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
log = logging.getLogger("mlp-kernels")

CONFIG = {
    "batch": 64,
    "hidden": 96,
    "block_m": 16,
    "block_n": 32,
    "dtype": "float32",
    "seed": 1234,
    "warmup": 1,
    "iters": 3,
    "rtol": 1e-4,
    "atol": 1e-4,
}


def bias_half(M, N, bm, bn, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Bias: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                Y[by * bm + i, bx * bn + j] = (X[by * bm + i, bx * bn + j] + Bias[bx * bn + j]) * 0.5
    return kernel


def scale_shift(M, N, bm, bn, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Scale: T.Tensor((N,), dtype), Shift: T.Tensor((N,), dtype),
               Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                Y[by * bm + i, bx * bn + j] = X[by * bm + i, bx * bn + j] * Scale[bx * bn + j] + Shift[bx * bn + j]
    return kernel


def row_sum(M, N, bm, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Out: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, bm)) as bx:
            acc = T.alloc_fragment((bm,), dtype)
            for i in T.Parallel(bm):
                acc[i] = 0.0
            for j in T.serial(N):
                for i in T.Parallel(bm):
                    acc[i] += X[bx * bm + i, j]
            for i in T.Parallel(bm):
                Out[bx * bm + i] = acc[i]
    return kernel


def residual_add(M, N, bm, bn, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), R: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                # BUG: the residual is read one row block late (by + 1) on all but the last block row
                src = T.if_then_else(by < T.ceildiv(M, bm) - 1, (by + 1) * bm + i, by * bm + i)
                Y[by * bm + i, bx * bn + j] = X[by * bm + i, bx * bn + j] + R[src, bx * bn + j]
    return kernel


def reference(name, *args):
    if name == "bias_half":
        x, b = args
        return (x + b) * 0.5
    if name == "scale_shift":
        x, s, t = args
        return x * s + t
    if name == "row_sum":
        (x,) = args
        return x.sum(dim=1)
    if name == "residual_add":
        x, r = args
        return x + r
    raise KeyError(name)


def timed(fn, *args, warmup=1, iters=3):
    for _ in range(warmup):
        fn(*args)
    start = time.perf_counter()
    for _ in range(iters):
        fn(*args)
    return (time.perf_counter() - start) / iters


def build(cfg):
    M, N, bm, bn = cfg["batch"], cfg["hidden"], cfg["block_m"], cfg["block_n"]
    return {
        "bias_half": tilelang.compile(bias_half(M, N, bm, bn), target="c"),
        "scale_shift": tilelang.compile(scale_shift(M, N, bm, bn), target="c"),
        "row_sum": tilelang.compile(row_sum(M, N, bm), target="c"),
        "residual_add": tilelang.compile(residual_add(M, N, bm, bn), target="c"),
    }


def inputs(cfg):
    g = torch.Generator().manual_seed(cfg["seed"])
    M, N = cfg["batch"], cfg["hidden"]
    x = torch.randn(M, N, generator=g)
    return {
        "bias_half": (x, torch.randn(N, generator=g)),
        "scale_shift": (x, torch.rand(N, generator=g) + 0.5, torch.randn(N, generator=g)),
        "row_sum": (x,),
        "residual_add": (x, torch.randn(M, N, generator=g)),
    }


def output_like(name, cfg):
    M, N = cfg["batch"], cfg["hidden"]
    return torch.zeros(M) if name == "row_sum" else torch.zeros(M, N)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.verbose:
        log.setLevel(logging.INFO)
    cfg = dict(CONFIG)
    kernels = build(cfg)
    data = inputs(cfg)
    for name, kernel in kernels.items():
        if args.only and name != args.only:
            continue
        out = output_like(name, cfg)
        seconds = timed(lambda: kernel(*data[name], out), warmup=cfg["warmup"], iters=cfg["iters"])
        log.info("%s: %.3f ms", name, seconds * 1e3)
        torch.testing.assert_close(out, reference(name, *data[name]), rtol=cfg["rtol"], atol=cfg["atol"])
        print(f"{name}: ok ({seconds * 1e3:.2f} ms)")


main([])
