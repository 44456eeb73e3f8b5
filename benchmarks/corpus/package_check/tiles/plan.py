"""Launch planning: grid sizes, checks, and a human-readable plan."""

import math

from . import config as cfg
from .config import check_divisible, check_smem


def grid(m, n, tile):
    return (math.ceil(m / tile.block_m), math.ceil(n / tile.block_n))


def plan_launch(m, n, k, dtype, tile=None):
    tile = tile or cfg.DEFAULTS[dtype]
    check_divisible(m, tile.block_m, "M")
    check_divisible(n, tile.block_n, "N")
    check_divisible(k, tile.block_k, "K")
    smem = check_smem(tile, dtype)
    blocks = grid(m, n, tile)
    return {
        "shape": (m, n, k),
        "dtype": dtype,
        "grid": blocks,
        "threads": 128 if tile.block_m >= 128 else 64,
        "smem": smem,
        "waves": math.ceil(blocks[0] * blocks[1] / 132),
    }


def describe(plan):
    m, n, k = plan["shape"]
    gx, gy = plan["grid"]
    return (
        f"{m}x{n}x{k} {plan['dtype']}: grid {gx}x{gy}, {plan['threads']} threads, "
        f"{plan['smem'] // 1024} KiB smem, {plan['waves']} waves"
    )
