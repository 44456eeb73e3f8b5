"""Sweep GEMM shapes through the project's launch planner and print a table.

One tuned configuration needs more shared memory than the device has; the
planner's own check rejects it.
"""

import json
import os
import statistics

import tiles
import tiles.plan
from tiles import TileConfig

SHAPES = [
    (1024, 1024, 1024),
    (2048, 1024, 512),
    (4096, 4096, 256),
    (512, 2048, 2048),
    (8192, 1024, 1024),
]
DTYPES = ["float16", "float32", "bfloat16"]

TUNED = {
    ("float16", 4096): TileConfig(128, 256, 64, stages=4),
    ("float32", 512): TileConfig(64, 128, 16),
}


def load_overrides(path):
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return json.load(handle)


def pick_tile(m, dtype, overrides):
    key = f"{dtype}:{m}"
    if key in overrides:
        return TileConfig(**overrides[key])
    return TUNED.get((dtype, m))


def sweep(overrides):
    plans = []
    for dtype in DTYPES:
        for m, n, k in SHAPES:
            tile = pick_tile(m, dtype, overrides)
            plans.append(tiles.plan_launch(m, n, k, dtype, tile))
    return plans


def summarize(plans):
    waves = [p["waves"] for p in plans]
    smem = [p["smem"] for p in plans]
    return {
        "plans": len(plans),
        "mean_waves": statistics.mean(waves),
        "max_smem_kib": max(smem) // 1024,
    }


def main():
    overrides = load_overrides(os.path.join(os.path.dirname(__file__), "overrides.json"))
    print(f"{len(SHAPES)} shapes x {len(DTYPES)} dtypes, defaults: {sorted(tiles.DEFAULTS)}")
    plans = sweep(overrides)
    for plan in plans:
        print(tiles.plan.describe(plan))
    print(json.dumps(summarize(plans), indent=2))


main()
