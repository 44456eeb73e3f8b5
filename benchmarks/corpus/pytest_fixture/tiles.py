"""Element sizes and small helpers of the simulated kernels."""

import math


def element_size(dtype):
    return {"float16": 2, "bfloat16": 2, "float32": 4}[dtype]


def log2(n):
    return int(math.log2(n))
