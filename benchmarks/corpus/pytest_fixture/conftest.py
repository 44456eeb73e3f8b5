"""Fixtures shared by the kernel tests."""

import pytest

SMEM_BYTES = 48 * 1024


def simulated_device(warps):
    return {"name": "sim0", "smem": SMEM_BYTES, "warps": warps}


@pytest.fixture
def device():
    # the tests run on a simulated device
    return simulated_device(warps=4)


@pytest.fixture
def matrix_sizes():
    return [(m, n) for m in (16, 32) for n in (16, 32)]


@pytest.fixture
def tolerance(device):
    return 1e-3 if device["warps"] > 2 else 1e-2


@pytest.fixture(autouse=True)
def quiet_logging():
    yield


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a slow test")
