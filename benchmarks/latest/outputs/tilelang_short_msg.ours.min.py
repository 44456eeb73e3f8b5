import tilelang.language as T


@T.prim_func
def gemm_kernel():
    T.gemm(T.alloc_shared((64, 32), "float16"), T.alloc_shared((64, 1), "float16"), T.alloc_fragment((64, 1), "float"))
