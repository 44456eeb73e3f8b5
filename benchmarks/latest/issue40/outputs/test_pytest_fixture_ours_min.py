import pytest


def simulated_device(warps):
    return {"name": "sim0", "smem": 48 * 1024, "warps": warps}


@pytest.fixture
def device():
    # the tests run on a simulated device
    return simulated_device(warps=4)


def element_size(dtype):
    return {"float16": 2}[dtype]


def staging_bytes(block, dtype):
    return block * (block + 3 * block) * element_size(dtype)


@pytest.mark.parametrize("dtype", ["float16"])
@pytest.mark.parametrize("block", [64])
def test_plan(block, dtype, device):
    smem = staging_bytes(block, dtype) * 2  # double buffering
    if smem > device["smem"] * 0.7:
        raise ValueError(f"tile check failed: block {block} needs {smem} bytes of shared memory ({dtype})")
