import pytest


def staging_bytes(block, dtype):
    pad = 3 * block if dtype == "float16" else 0  # bank-conflict padding
    return block * (block + pad) * 2


def check_smem(smem, device, block, dtype):
    if smem > device["smem"] * 0.7:
        raise ValueError(f"tile check failed: block {block} needs {smem} bytes of shared memory ({dtype})")


@pytest.mark.parametrize("dtype", ["float16"])
@pytest.mark.parametrize("block", [64])
def test_plan(block, dtype):
    device = {"smem": 48 * 1024}
    smem = staging_bytes(block, dtype) * 2  # double buffering
    check_smem(smem, device, block, dtype)
