"""Tiled fp16 GEMM in TileLang, with a bench/verify harness around it.

This program is deliberately noisy: it is the input for the AutoDD example.
It fails while TileLang traces the kernel, before any GPU is touched:

    AssertionError: T.gemm K shape check failed: K_A = 32, K_B = 64

main() is called at module level (no ``if __name__ == "__main__":`` guard) so
that tools which exec the program with a different ``__name__`` still see it fail.
"""

import json
import logging
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import tilelang
import tilelang.language as T
import torch

log = logging.getLogger("gemm_bug")

SUPPORTED_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
DEFAULT_PROBLEM = (512, 512, 256)


@dataclass
class GemmConfig:
    """Problem size and tiling knobs, overridable through GEMM_* variables."""

    M: int = DEFAULT_PROBLEM[0]
    N: int = DEFAULT_PROBLEM[1]
    K: int = DEFAULT_PROBLEM[2]
    block_M: int = 64
    block_N: int = 64
    block_K: int = 32
    num_stages: int = 2
    threads: int = 128
    dtype: str = "float16"
    accum_dtype: str = "float"
    seed: int = 1234
    warmup: int = 3
    repeats: int = 10
    verify: bool = True
    tags: list = field(default_factory=lambda: ["tiled", "pipelined"])

    def validate(self):
        if self.dtype not in SUPPORTED_DTYPES:
            raise ValueError(f"unsupported dtype {self.dtype!r}")
        for dim, block in ((self.M, self.block_M), (self.N, self.block_N), (self.K, self.block_K)):
            if dim % block:
                log.warning("dimension %d is not a multiple of block %d; tail tiles are padded", dim, block)
        if self.threads % 32:
            raise ValueError("threads must be a multiple of the warp size")
        return self

    def flops(self):
        return 2.0 * self.M * self.N * self.K


def parse_overrides(environ, defaults):
    """Read GEMM_<FIELD>=value pairs, converting each to the default's type."""
    overrides = {}
    for key, default in asdict(defaults).items():
        raw = environ.get("GEMM_" + key.upper())
        if raw is None:
            continue
        if isinstance(default, bool):
            overrides[key] = raw.lower() in ("1", "true", "yes")
        elif isinstance(default, int):
            overrides[key] = int(raw)
        elif isinstance(default, list):
            overrides[key] = raw.split(",")
        else:
            overrides[key] = raw
    return overrides


def build_config(environ):
    defaults = GemmConfig()
    overrides = parse_overrides(environ, defaults)
    if overrides:
        log.info("config overrides: %s", json.dumps(overrides, sort_keys=True))
    return GemmConfig(**{**asdict(defaults), **overrides}).validate()


def tile_shapes(cfg):
    """Shared-memory tile shapes for A and B (row-major, no transposes)."""
    a_tile = (cfg.block_M, cfg.block_K)
    # The B tile is staged K-major for the non-transposed GEMM below.
    b_tile = (cfg.block_N, cfg.block_K)
    return a_tile, b_tile


def shared_memory_bytes(cfg):
    a_tile, b_tile = tile_shapes(cfg)
    elem = torch.tensor([], dtype=SUPPORTED_DTYPES[cfg.dtype]).element_size()
    per_stage = (math.prod(a_tile) + math.prod(b_tile)) * elem
    return per_stage * cfg.num_stages


@tilelang.jit(out_idx=[-1])
def tiled_matmul(M, N, K, block_M, block_N, block_K, a_tile, b_tile, num_stages, threads, dtype, accum_dtype):
    @T.prim_func
    def gemm_kernel(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(a_tile, dtype)
            B_shared = T.alloc_shared(b_tile, dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_kernel


def compile_kernel(cfg):
    a_tile, b_tile = tile_shapes(cfg)
    log.info("tiles: A %s, B %s, %d bytes of shared memory", a_tile, b_tile, shared_memory_bytes(cfg))
    return tiled_matmul(
        cfg.M, cfg.N, cfg.K,
        cfg.block_M, cfg.block_N, cfg.block_K,
        a_tile, b_tile,
        cfg.num_stages, cfg.threads,
        cfg.dtype, cfg.accum_dtype,
    )


def make_inputs(cfg):
    gen = torch.Generator().manual_seed(cfg.seed)
    dtype = SUPPORTED_DTYPES[cfg.dtype]
    a = torch.randn(cfg.M, cfg.K, generator=gen).to(dtype)
    b = torch.randn(cfg.K, cfg.N, generator=gen).to(dtype)
    return a, b


def reference_matmul(a, b):
    return (a.float() @ b.float()).to(a.dtype)


def check_close(actual, expected, rtol=1e-2, atol=1e-2):
    diff = (actual.float() - expected.float()).abs()
    worst = diff.max().item()
    if not torch.allclose(actual.float(), expected.float(), rtol=rtol, atol=atol):
        raise AssertionError(f"GEMM mismatch: max abs diff {worst:.4f}")
    return worst


def time_kernel(fn, warmup, repeats):
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / max(repeats, 1)


def format_report(cfg, seconds, max_diff):
    tflops = cfg.flops() / seconds / 1e12 if seconds else float("nan")
    rows = [
        ("shape", f"{cfg.M}x{cfg.N}x{cfg.K}"),
        ("tiles", f"{cfg.block_M}x{cfg.block_N}x{cfg.block_K}"),
        ("latency", f"{seconds * 1e3:.3f} ms"),
        ("throughput", f"{tflops:.2f} TFLOP/s"),
        ("max diff", f"{max_diff:.2e}"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name.ljust(width)}  {value}" for name, value in rows)


def sweep_block_sizes(cfg, candidates=(32, 64, 128)):
    """Autotuning helper from an earlier version; kept for reference."""
    results = []
    for bm in candidates:
        for bn in candidates:
            trial = GemmConfig(**{**asdict(cfg), "block_M": bm, "block_N": bn})
            results.append((shared_memory_bytes(trial), bm, bn))
    return sorted(results)


def run(cfg):
    kernel = compile_kernel(cfg)
    a, b = make_inputs(cfg)
    c = kernel(a, b)
    max_diff = check_close(c, reference_matmul(a, b)) if cfg.verify else float("nan")
    seconds = time_kernel(lambda: kernel(a, b), cfg.warmup, cfg.repeats)
    return format_report(cfg, seconds, max_diff)


def main():
    logging.basicConfig(level=os.environ.get("GEMM_LOG", "WARNING"), stream=sys.stderr)
    cfg = build_config(os.environ)
    log.info("running %s", cfg)
    print(run(cfg))


main()
