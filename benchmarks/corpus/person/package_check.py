from dataclasses import dataclass


@dataclass
class TileConfig:
    block_m: int
    block_n: int
    block_k: int
    stages: int = 2

    def smem_bytes(self, itemsize):
        a = self.block_m * self.block_k
        b = self.block_k * self.block_n
        return (a + b) * itemsize * self.stages


ITEMSIZE = {"float16": 2}
SMEM_LIMIT = 96 * 1024


def check_smem(config, dtype):
    need = config.smem_bytes(ITEMSIZE[dtype])
    if need > SMEM_LIMIT:
        raise ValueError(f"tile needs {need} bytes of shared memory, the limit is {SMEM_LIMIT}")


check_smem(TileConfig(128, 256, 64, stages=4), "float16")
