import tilelang.language as T

block_M, block_N, block_K = 64, 64, 32


@T.prim_func
def gemm_kernel():
    A_shared = T.alloc_shared((block_M, block_K), "float16")
    B_shared = T.alloc_shared((block_N, block_K), "float16")
    C_local = T.alloc_fragment((block_M, block_N), "float")
    T.gemm(A_shared, B_shared, C_local)
