"""A blocked attention forward pass, driven from the command line; the head dim does not tile."""
import argparse

import torch


def attention_fwd(q, k, v, block_m, block_n, dim):
    if dim % block_n != 0:
        raise ValueError(f"head dim {dim} is not a multiple of block_n={block_n}")
    batch, heads, seq, _ = q.shape
    out = torch.empty_like(q)
    for start in range(0, seq, block_m):
        rows = q[:, :, start:start + block_m]
        scores = rows @ k.transpose(-2, -1) / dim ** 0.5
        out[:, :, start:start + block_m] = torch.softmax(scores, dim=-1) @ v
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--dim", type=int, default=96)
    parser.add_argument("--block_m", type=int, default=64)
    parser.add_argument("--block_n", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    shape = (args.batch, args.heads, args.seq, args.dim)
    q = torch.randn(shape)
    k = torch.randn(shape)
    v = torch.randn(shape)
    out = attention_fwd(q, k, v, args.block_m, args.block_n, args.dim)
    print(out.shape)


if __name__ == "__main__":
    main()
