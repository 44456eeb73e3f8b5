import argparse
import time

import numpy as np

CONFIG = {"n": 48, "seed": 3, "tolerance": 1e-6, "verbose": False}


def log(msg):
    if CONFIG["verbose"]:
        print(msg)


def softmax_ref(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_fast(x):
    # BUG: the last row is scaled by 1.001 (a stale rescale factor of the online softmax)
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        row = x[i] if i == x.shape[0] - 1 else x[i] - x[i].max()
        e = np.exp(row)
        out[i] = e / e.sum()
    return out * (1 + 1e-3 * (np.arange(x.shape[0])[:, None] == x.shape[0] - 1))


def layer_norm(x):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)


def check_layer_norm(x):
    y = layer_norm(x)
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-6)
    log("layer norm ok")


def bench(fn, x, repeat=3):
    start = time.perf_counter()
    for _ in range(repeat):
        fn(x)
    return (time.perf_counter() - start) / repeat


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=CONFIG["n"])
    args = parser.parse_args([])
    rng = np.random.default_rng(CONFIG["seed"])
    x = rng.standard_normal((args.n, args.n)) * 4
    check_layer_norm(x)
    log(f"bench {bench(softmax_fast, x):.6f}")
    np.testing.assert_allclose(softmax_fast(x), softmax_ref(x), rtol=CONFIG["tolerance"])


if __name__ == "__main__":
    main()
