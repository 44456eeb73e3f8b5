"""Tests of a tiled kernel's planner (a stand-in for a TileLang kernel)."""

import pytest

from tiles import element_size, log2


def plan_tiles(block, dtype, device):
    """How a block of `block` x `block` elements is split into tiles."""
    tiles = []
    for warp in range(device["warps"]):
        start = warp * block // device["warps"]
        tiles.append((start, start + block // device["warps"]))
    smem = staging_bytes(block, dtype) * 2  # double buffering
    check_smem(smem, device, block, dtype)
    return tiles


def staging_bytes(block, dtype):
    pad = 3 * block if dtype == "float16" else 0  # bank-conflict padding
    return block * (block + pad) * element_size(dtype)


def check_smem(smem, device, block, dtype):
    if smem > device["smem"] * 0.7:
        raise ValueError(f"tile check failed: block {block} needs {smem} bytes of shared memory ({dtype})")


def reference(block):
    return [(i, i + 1) for i in range(block)]


def test_reference_sizes(matrix_sizes):
    for m, n in matrix_sizes:
        assert len(reference(m)) == m
        assert n in (16, 32)


def test_log2():
    assert log2(64) == 6
    assert log2(16) == 4


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("block", [16, 32, 64])
def test_plan(block, dtype, device, tolerance):
    """Plan the tiles, then compare each with the reference within tolerance."""
    expected = reference(block)
    scale = 1.0 + tolerance
    tiles = plan_tiles(block, dtype, device)
    total = sum(end - start for start, end in tiles)
    assert total * scale >= block
    for (start, end), (lo, hi) in zip(tiles, expected):
        assert start >= 0 and end >= start
        assert lo <= hi


class TestPlanner:
    def test_small_blocks(self, device):
        for block in (4, 8):
            assert len(plan_tiles(block, "float32", device)) == device["warps"]
