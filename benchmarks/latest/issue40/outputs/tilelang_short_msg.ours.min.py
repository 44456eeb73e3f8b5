import tilelang.language as T


@T.prim_func
def gemm_kernel():
    A_shared = T.alloc_shared((64, 32), "float16")
    B_shared = T.alloc_shared((64, 32), "float16")
    C_local = T.alloc_fragment((64, 64), "float")
    T.gemm(A_shared, B_shared, C_local)
