import tilelang.language as T
DEFAULT_PROBLEM = (1, 1)

class GemmConfig:
    N: int = DEFAULT_PROBLEM[1]
    K: int = DEFAULT_PROBLEM[1]
    block_M: int = 1
    block_N: int = 2
    block_K: int = 1
    num_stages: int = 1
    threads: int = 1
    dtype: str = 'float16'
    accum_dtype: str = 'float'

    def validate(self, *args, **kwargs):
        return self

def build_config(*args, **kwargs):
    return GemmConfig().validate()

def tile_shapes(cfg, *args, **kwargs):
    a_tile = (cfg.block_M, cfg.block_K)
    b_tile = (cfg.block_N, cfg.block_K)
    return (a_tile, b_tile)

def tiled_matmul(M, N, block_M, block_N, block_K, a_tile, b_tile, num_stages, threads, dtype, accum_dtype, *args, **kwargs):

    @T.prim_func
    def gemm_kernel():
        with T.Kernel():
            A_shared = T.alloc_shared(a_tile, dtype)
            B_shared = T.alloc_shared(b_tile, dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.gemm(A_shared, B_shared, C_local)

def compile_kernel(cfg, *args, **kwargs):
    a_tile, b_tile = tile_shapes(cfg)
    return tiled_matmul(cfg.N, cfg.K, cfg.block_M, cfg.block_N, cfg.block_K, a_tile, b_tile, cfg.num_stages, cfg.threads, cfg.dtype, cfg.accum_dtype)

def run(cfg, *args, **kwargs):
    compile_kernel(cfg)

def main(*args, **kwargs):
    cfg = build_config()
    run(cfg)
main()