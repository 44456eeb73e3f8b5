"""Tile configurations and the checks a launch must pass."""

from dataclasses import dataclass


@dataclass(frozen=True)
class TileConfig:
    block_m: int
    block_n: int
    block_k: int
    stages: int = 2

    def smem_bytes(self, itemsize):
        a = self.block_m * self.block_k
        b = self.block_k * self.block_n
        return (a + b) * itemsize * self.stages


DEFAULTS = {
    "float16": TileConfig(128, 128, 32, stages=3),
    "float32": TileConfig(64, 64, 16),
    "bfloat16": TileConfig(128, 64, 32, stages=3),
}

ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4}
SMEM_LIMIT = 96 * 1024


def check_divisible(extent, block, axis):
    if extent % block:
        raise ValueError(f"{axis}={extent} is not a multiple of the block ({block})")


def check_smem(config, dtype):
    need = config.smem_bytes(ITEMSIZE[dtype])
    if need > SMEM_LIMIT:
        raise ValueError(f"tile needs {need} bytes of shared memory, the limit is {SMEM_LIMIT}")
    return need
