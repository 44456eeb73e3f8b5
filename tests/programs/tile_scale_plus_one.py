import torch
import tilelang
import tilelang.language as T


def scale(M, N, bm):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32"), Z: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm)) as bx:
            for i, j in T.Parallel(bm, N):
                Z[bx * bm + i, j] = X[bx * bm + i, j] * 3.0
            for i, j in T.Parallel(bm, N):
                Y[bx * bm + i, j] = X[bx * bm + i, j] * 2.0 + 1.0
    return main


torch.manual_seed(0)
kernel = tilelang.compile(scale(64, 32, 16), target="c")
x = torch.randn(64, 32)
y = torch.zeros(64, 32)
z = torch.zeros(64, 32)
kernel(x, y, z)
torch.testing.assert_close(y, x * 2.0, rtol=1e-4, atol=1e-4)
