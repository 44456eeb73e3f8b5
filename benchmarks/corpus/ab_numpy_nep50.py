"""A loss accumulator for mixed-precision training logs: per-step float32 losses summed into a running total.

Fine with NumPy 1.x; NumPy 2 (NEP 50) keeps `np.float32 * float` in float32, and the running total drifts.
"""
import argparse
import json
import logging
import math
import time

import numpy as np

logging.basicConfig(level=logging.WARNING)
log = logging.getLogger("losses")

SETTINGS = json.loads('{"steps": 400, "micro_batches": 4, "scale": 1.0001, "seed": 2, "rel_tol": 1e-9}')


def make_losses(settings):
    rng = np.random.default_rng(settings["seed"])
    raw = rng.uniform(0.05, 0.15, size=(settings["steps"], settings["micro_batches"]))
    return raw.astype(np.float32)


def running_total(losses, scale):
    total = 0.0
    for step in losses:
        for loss in step:
            total = total + loss * scale
    return total


def running_total_reference(losses, scale):
    return math.fsum(float(loss) * scale for step in losses for loss in step)


def moving_average(values, window):
    out = []
    acc = 0.0
    for i, v in enumerate(values):
        acc += float(v)
        if i >= window:
            acc -= float(values[i - window])
        out.append(acc / min(i + 1, window))
    return out


def check_moving_average(losses):
    flat = losses.reshape(-1)
    avg = moving_average(flat, 8)
    assert len(avg) == flat.size
    log.info("moving average ok: %.4f", avg[-1])


def check_shapes(settings, losses):
    assert losses.shape == (settings["steps"], settings["micro_batches"]), losses.shape
    assert losses.dtype == np.float32
    log.info("shapes ok")


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def check_total(settings, losses):
    total, seconds = timed(running_total, losses, settings["scale"])
    log.info("running total in %.3f ms", seconds * 1e3)
    reference = running_total_reference(losses, settings["scale"])
    assert math.isclose(total, reference, rel_tol=settings["rel_tol"]), (total, reference)


def header(settings):
    return "numpy %s; %s" % (np.__version__, ", ".join(f"{k}={v}" for k, v in sorted(settings.items())))


def validate_settings(settings):
    problems = []
    for key, value in settings.items():
        if isinstance(value, (int, float)) and value < 0:
            problems.append(f"{key} must not be negative")
    if problems:
        raise ValueError("; ".join(problems))
    return True


def format_table(rows):
    width = max((len(str(name)) for name, _ in rows), default=0)
    return "\n".join(f"{str(name):>{width}}  {value}" for name, value in rows)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=SETTINGS["steps"])
    args = parser.parse_args(argv)
    settings = dict(SETTINGS, steps=args.steps)
    validate_settings(settings)
    print(header(settings))
    losses = make_losses(settings)
    check_shapes(settings, losses)
    check_moving_average(losses)
    check_total(settings, losses)
    print(format_table([("total", "ok"), ("average", "ok")]))


main([])
