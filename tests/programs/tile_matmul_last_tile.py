import torch
import tilelang
import tilelang.language as T

M = N = K = 64
bm = bn = bk = 16


def matmul(M, N, K, bm, bn, bk):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            acc = T.alloc_fragment((bm, bn), "float32")
            for i, j in T.Parallel(bm, bn):
                acc[i, j] = 0.0
            for ko in T.serial(T.ceildiv(K, bk) - 1):
                for i, j in T.Parallel(bm, bn):
                    for kk in T.serial(bk):
                        acc[i, j] += A[by * bm + i, ko * bk + kk] * B[ko * bk + kk, bx * bn + j]
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = acc[i, j]
    return main


torch.manual_seed(0)
kernel = tilelang.compile(matmul(M, N, K, bm, bn, bk), target="c")
a = torch.randn(M, K)
b = torch.randn(K, N)
c = torch.zeros(M, N)
kernel(a, b, c)
torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
