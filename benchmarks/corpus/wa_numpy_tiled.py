"""A blocked matmul and friends in NumPy, checked against np.matmul: a little linear-algebra toolkit."""
import argparse
import logging
import time
from dataclasses import dataclass

import numpy as np

logging.basicConfig(level=logging.WARNING)
log = logging.getLogger("blocked")


@dataclass
class Config:
    m: int = 70
    n: int = 50
    k: int = 45
    tile: int = 16
    seed: int = 11
    rtol: float = 1e-7
    repeat: int = 2


def blocked_matmul(a, b, tile):
    m, k = a.shape
    _, n = b.shape
    c = np.zeros((m, n), dtype=a.dtype)
    for i0 in range(0, m, tile):
        for j0 in range(0, n, tile):
            for k0 in range(0, k - k % tile, tile):  # BUG: the last partial K tile is skipped
                c[i0:i0 + tile, j0:j0 + tile] += a[i0:i0 + tile, k0:k0 + tile] @ b[k0:k0 + tile, j0:j0 + tile]
    return c


def blocked_transpose(a, tile):
    m, n = a.shape
    out = np.empty((n, m), dtype=a.dtype)
    for i0 in range(0, m, tile):
        for j0 in range(0, n, tile):
            out[j0:j0 + tile, i0:i0 + tile] = a[i0:i0 + tile, j0:j0 + tile].T
    return out


def row_norms(a):
    return np.sqrt((a * a).sum(axis=1))


def normalize_rows(a):
    norms = row_norms(a)
    return a / np.where(norms == 0, 1.0, norms)[:, None]


def timed(fn, *args, repeat=2):
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn(*args)
    return out, (time.perf_counter() - start) / repeat


def check_transpose(cfg, rng):
    a = rng.standard_normal((cfg.m, cfg.n))
    out, seconds = timed(blocked_transpose, a, cfg.tile, repeat=cfg.repeat)
    np.testing.assert_array_equal(out, a.T)
    log.info("transpose %.3f ms", seconds * 1e3)


def check_normalize(cfg, rng):
    a = rng.standard_normal((cfg.m, cfg.n))
    out, seconds = timed(normalize_rows, a, repeat=cfg.repeat)
    np.testing.assert_allclose(row_norms(out), np.ones(cfg.m), rtol=1e-12)
    log.info("normalize %.3f ms", seconds * 1e3)


def check_matmul(cfg, rng):
    a = rng.standard_normal((cfg.m, cfg.k))
    b = rng.standard_normal((cfg.k, cfg.n))
    out, seconds = timed(blocked_matmul, a, b, cfg.tile, repeat=cfg.repeat)
    log.info("matmul %.3f ms", seconds * 1e3)
    np.testing.assert_allclose(out, a @ b, rtol=cfg.rtol)


def summary(cfg):
    flops = 2 * cfg.m * cfg.n * cfg.k
    return f"m={cfg.m} n={cfg.n} k={cfg.k} tile={cfg.tile} ({flops / 1e6:.2f} MFLOP)"


CHECKS = {"transpose": check_transpose, "normalize": check_normalize, "matmul": check_matmul}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tile", type=int, default=Config.tile)
    parser.add_argument("--only", choices=sorted(CHECKS), default=None)
    args = parser.parse_args(argv)
    cfg = Config(tile=args.tile)
    rng = np.random.default_rng(cfg.seed)
    print(summary(cfg))
    for name, check in CHECKS.items():
        if args.only and name != args.only:
            continue
        check(cfg, rng)
        print(f"{name}: ok")


main([])
