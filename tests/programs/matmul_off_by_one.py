"""Naive matrix product, checked against numpy."""
import numpy as np


def matmul(a, b):
    n, m, p = len(a), len(b), len(b[0])
    out = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            for k in range(m - 1):  # off by one: the last term is never added
                out[i, j] += a[i][k] * b[k][j]
    return out


a = np.arange(9, dtype=float).reshape(3, 3)
b = np.eye(3) * 2
actual = matmul(a, b)
expected = a @ b
np.testing.assert_allclose(actual, expected)
print("ok")
