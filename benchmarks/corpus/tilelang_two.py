"""Feature normalisation for a small tabular model: two TileLang kernels compiled for the CPU.

The first kernel adds the per-feature bias and halves (checked against PyTorch,
correct); the second centres each row on its mean, and divides the row's sum by
the tile width (BLOCK_N) instead of the row length (N): a kernel author's slip
that only the comparison with the reference catches
(`torch.testing.assert_close`: "Tensor-likes are not close!"). Each run
compiles both kernels (TileLang's C target, a C++ compile each).
"""
import logging
import time

import torch
import tilelang
import tilelang.language as T

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
log = logging.getLogger("features")

M, N = 64, 128
BLOCK_M, BLOCK_N = 16, 32
SETTINGS = {"seed": 7, "rtol": 1e-4, "atol": 1e-4, "warmup": 1, "iters": 3, "report": True}


def bias_half(M, N, bm, bn, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Bias: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                Y[by * bm + i, bx * bn + j] = (X[by * bm + i, bx * bn + j] + Bias[bx * bn + j]) * 0.5
    return kernel


def center_rows(M, N, bm, dtype="float32"):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, bm)) as bx:
            total = T.alloc_fragment((bm,), dtype)
            for i in T.Parallel(bm):
                total[i] = 0.0
            for j in T.serial(N):
                for i in T.Parallel(bm):
                    total[i] += X[bx * bm + i, j]
            for j in T.serial(N):
                for i in T.Parallel(bm):
                    Y[bx * bm + i, j] = X[bx * bm + i, j] - total[i] / BLOCK_N
    return kernel


def timed(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - start) / iters


def make_inputs(seed):
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(M, N, generator=generator)
    bias = torch.randn(N, generator=generator)
    return features, bias


def summarize(name, seconds, out):
    spread = float(out.max() - out.min())
    return f"{name}: {seconds * 1e3:.2f} ms, spread {spread:.3f}"


def main():
    features, bias = make_inputs(SETTINGS["seed"])
    lines = []

    shifted = torch.empty(M, N)
    first = tilelang.compile(bias_half(M, N, BLOCK_M, BLOCK_N), target="c")
    seconds = timed(lambda: first(features, bias, shifted), SETTINGS["warmup"], SETTINGS["iters"])
    torch.testing.assert_close(shifted, (features + bias) * 0.5, rtol=SETTINGS["rtol"], atol=SETTINGS["atol"])
    lines.append(summarize("bias_half", seconds, shifted))

    centred = torch.empty(M, N)
    second = tilelang.compile(center_rows(M, N, BLOCK_M), target="c")
    seconds = timed(lambda: second(shifted, centred), SETTINGS["warmup"], SETTINGS["iters"])
    expected = shifted - shifted.mean(dim=1, keepdim=True)
    torch.testing.assert_close(centred, expected, rtol=SETTINGS["rtol"], atol=SETTINGS["atol"])
    lines.append(summarize("center_rows", seconds, centred))

    if SETTINGS["report"]:
        for line in lines:
            print(line)
    log.info("features normalised: %d rows", M)


main()
