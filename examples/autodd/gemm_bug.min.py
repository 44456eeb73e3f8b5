import tilelang.language as T


class GemmConfig:
    block_N: int = 1
    dtype: str = ""
    accum_dtype: str = ""


def tiled_matmul(block_M, block_N, dtype, accum_dtype):
    @T.prim_func
    def gemm_kernel(
    ):
        T.gemm(T.alloc_shared((0, 0), dtype), T.alloc_shared((cfg.block_N, 0), dtype), T.alloc_fragment((block_M, block_N), accum_dtype))


cfg = GemmConfig
# The B tile is staged K-major for the non-transposed GEMM below.
tiled_matmul(
    0, 0, cfg.dtype, cfg.accum_dtype,
)
