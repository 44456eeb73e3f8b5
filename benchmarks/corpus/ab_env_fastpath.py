"""A small feature pipeline with a fast path for its pooling step (set POOL_REFERENCE=1 to use the slow one).

Computes windowed mean pooling over signals, standardizes, checks against a straightforward reference.
"""
import argparse
import logging
import os
import time

import numpy as np

logging.basicConfig(level=logging.WARNING)
log = logging.getLogger("features")

CONFIG = {"signals": 5, "length": 37, "window": 4, "seed": 21, "rtol": 1e-9}


def pool_reference(x, window):
    n = x.shape[-1] // window
    out = np.empty(x.shape[:-1] + (n,))
    for i in range(n):
        out[..., i] = x[..., i * window:(i + 1) * window].mean(axis=-1)
    return out


def pool_fast(x, window):
    n = x.shape[-1] // window
    csum = np.cumsum(x, axis=-1)
    ends = csum[..., window - 1::window][..., :n]
    starts = np.concatenate([np.zeros(x.shape[:-1] + (1,)), ends[..., :-1]], axis=-1)
    # BUG: the window sums are divided by window + 1
    return (ends - starts) / (window + 1)


def pool(x, window):
    if os.environ.get("POOL_REFERENCE") == "1":
        return pool_reference(x, window)
    return pool_fast(x, window)


def standardize(x):
    mu = x.mean(axis=-1, keepdims=True)
    sd = x.std(axis=-1, keepdims=True)
    return (x - mu) / np.where(sd == 0, 1.0, sd)


def energy(x):
    return (x * x).sum(axis=-1)


def timed(fn, *args, repeat=3):
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn(*args)
    return out, (time.perf_counter() - start) / repeat


def make_signals(cfg):
    rng = np.random.default_rng(cfg["seed"])
    t = np.linspace(0, 1, cfg["length"])
    base = np.sin(2 * np.pi * 3 * t)[None, :]
    return base + 0.1 * rng.standard_normal((cfg["signals"], cfg["length"]))


def check_standardize(cfg, x):
    z = standardize(x)
    np.testing.assert_allclose(z.mean(axis=-1), np.zeros(cfg["signals"]), atol=1e-12)
    log.info("standardize ok")


def check_energy(cfg, x):
    np.testing.assert_allclose(energy(x), np.einsum("ij,ij->i", x, x), rtol=1e-12)
    log.info("energy ok")


def check_pool(cfg, x):
    pooled, seconds = timed(pool, x, cfg["window"])
    log.info("pool %.3f ms", seconds * 1e3)
    np.testing.assert_allclose(pooled, pool_reference(x, cfg["window"]), rtol=cfg["rtol"])


def describe(cfg):
    return ", ".join(f"{key}={value}" for key, value in sorted(cfg.items()))


def validate_settings(settings):
    problems = []
    for key, value in settings.items():
        if isinstance(value, (int, float)) and value < 0:
            problems.append(f"{key} must not be negative")
    if problems:
        raise ValueError("; ".join(problems))
    return True


def format_table(rows):
    width = max((len(str(name)) for name, _ in rows), default=0)
    return "\n".join(f"{str(name):>{width}}  {value}" for name, value in rows)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--window", type=int, default=CONFIG["window"])
    args = parser.parse_args(argv)
    cfg = dict(CONFIG, window=args.window)
    validate_settings(cfg)
    print(describe(cfg))
    x = make_signals(cfg)
    check_standardize(cfg, x)
    check_energy(cfg, x)
    check_pool(cfg, x)
    print(format_table([("pool", "ok"), ("energy", "ok")]))


main([])
