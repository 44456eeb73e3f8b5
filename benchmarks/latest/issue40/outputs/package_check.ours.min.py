from dataclasses import dataclass


@dataclass
class TileConfig:
    block_m: int
    block_n: int
    block_k: int
    stages: int = 1

    def smem_bytes(self, itemsize):
        return (self.block_m * self.block_k + self.block_k * self.block_n) * itemsize * self.stages


ITEMSIZE = {"float16": 2}
SMEM_LIMIT = 96 * 1024


def check_smem(config):
    need = config.smem_bytes(ITEMSIZE['float16'])
    if need > SMEM_LIMIT:  # autodd: freeze (the check from tiles/config.py:37 that raises the failure)
        raise ValueError(f"tile needs {need} bytes of shared memory, the limit is {SMEM_LIMIT}")


TUNED = {
    ("float16", 4096): TileConfig(128, 256, 64, stages=4),
}


check_smem(TUNED.get(('float16', 4096)))
