import pytest


def element_size(dtype):
    return {"float16": 2}[dtype]


def staging_bytes(block, dtype):
    return block * (block + (3 * block)) * element_size(dtype)


@pytest.mark.parametrize("dtype", ["float16"])
@pytest.mark.parametrize("block", [64])
def test_plan(block, dtype):
    raise ValueError(f"tile check failed: block {block} needs {(staging_bytes(block, dtype) * 2)} bytes of shared memory ({dtype})")
