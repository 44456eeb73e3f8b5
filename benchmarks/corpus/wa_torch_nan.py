"""Attention helpers for a tiny decoder: masked softmax, causal masks, a reference, timings.

A padded batch has a sequence with no valid key at all; its rows must come out as zeros.
"""
import argparse
import logging
import math
import time

import torch

logging.basicConfig(level=logging.WARNING)
log = logging.getLogger("attention")

CONFIG = {"batch": 3, "heads": 2, "length": 6, "dim": 8, "seed": 5, "lengths": [6, 4, 0]}


def causal_mask(length):
    return torch.tril(torch.ones(length, length, dtype=torch.bool))


def padding_mask(lengths, length):
    positions = torch.arange(length)
    return positions[None, :] < torch.tensor(lengths)[:, None]


def masked_softmax(scores, mask):
    # BUG: a row with every key masked is all -inf, and softmax of it is NaN
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1)


def masked_softmax_reference(scores, mask):
    out = torch.zeros_like(scores)
    flat_scores = scores.reshape(-1, scores.shape[-1])
    flat_mask = mask.expand_as(scores).reshape(-1, scores.shape[-1])
    flat_out = out.reshape(-1, scores.shape[-1])
    for row in range(flat_scores.shape[0]):
        keep = flat_mask[row]
        if keep.any():
            values = flat_scores[row][keep]
            weights = torch.exp(values - values.max())
            flat_out[row][keep] = weights / weights.sum()
    return out


def attention(q, k, v, mask, softmax):
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    return softmax(scores, mask) @ v


def build_mask(cfg):
    pad = padding_mask(cfg["lengths"], cfg["length"])
    return causal_mask(cfg["length"])[None, None] & pad[:, None, None, :]


def timed(fn, repeat=3):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def check_mask_shapes(cfg):
    mask = build_mask(cfg)
    assert mask.shape == (cfg["batch"], 1, cfg["length"], cfg["length"]), mask.shape
    log.info("mask ok: %s", tuple(mask.shape))


def check_softmax_rows(cfg, scores, mask):
    probs = masked_softmax_reference(scores, mask)
    sums = probs.sum(dim=-1)
    expected = (mask.expand_as(scores).any(dim=-1)).to(sums.dtype)
    torch.testing.assert_close(sums, expected)


def check_attention(cfg, q, k, v, mask):
    got = attention(q, k, v, mask, masked_softmax)
    want = attention(q, k, v, mask, masked_softmax_reference)
    seconds = timed(lambda: attention(q, k, v, mask, masked_softmax))
    log.info("attention %.3f ms", seconds * 1e3)
    torch.testing.assert_close(got, want)


def make_inputs(cfg):
    g = torch.Generator().manual_seed(cfg["seed"])
    shape = (cfg["batch"], cfg["heads"], cfg["length"], cfg["dim"])
    return [torch.randn(*shape, generator=g) for _ in range(3)]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=int, default=CONFIG["length"])
    args = parser.parse_args(argv)
    cfg = dict(CONFIG, length=args.length)
    q, k, v = make_inputs(cfg)
    mask = build_mask(cfg)
    check_mask_shapes(cfg)
    scores = q @ k.transpose(-1, -2)
    check_softmax_rows(cfg, scores, mask)
    check_attention(cfg, q, k, v, mask)
    print("attention: ok")


main([])
