"""Helpers shared by the training scripts: configuration, seeding, logging, meters, schedules, checkpoints."""

import argparse
import json
import math
import os
import random
import sys
import time
from dataclasses import asdict, dataclass, field

import torch


@dataclass
class TrainConfig:
    """Everything a run needs; the command line overrides the defaults."""

    model: str = "gpt"
    data: str = "synthetic"
    corpus_chars: int = 20000
    seq_len: int = 64
    batch_size: int = 16
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    block_size: int = 64
    dropout: float = 0.1
    lr: float = 3e-3
    weight_decay: float = 0.01
    betas: tuple = (0.9, 0.95)
    warmup_steps: int = 20
    max_steps: int = 200
    eval_every: int = 50
    eval_batches: int = 4
    grad_clip: float = 1.0
    seed: int = 1337
    out_dir: str = "runs"
    save: bool = False
    log_every: int = 10
    tags: list = field(default_factory=list)

    def to_json(self):
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text):
        values = json.loads(text)
        known = {k: v for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def build_parser(defaults=None):
    defaults = defaults or TrainConfig()
    parser = argparse.ArgumentParser(description="Train a small character-level model.")
    parser.add_argument("--model", default=defaults.model, choices=["gpt", "lstm", "bow"])
    parser.add_argument("--data", default=defaults.data, help="'synthetic' or a path to a text file")
    parser.add_argument("--corpus-chars", type=int, default=defaults.corpus_chars)
    parser.add_argument("--seq-len", type=int, default=defaults.seq_len)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--n-layer", type=int, default=defaults.n_layer)
    parser.add_argument("--n-head", type=int, default=defaults.n_head)
    parser.add_argument("--n-embd", type=int, default=defaults.n_embd)
    parser.add_argument("--block-size", type=int, default=defaults.block_size)
    parser.add_argument("--dropout", type=float, default=defaults.dropout)
    parser.add_argument("--lr", type=float, default=defaults.lr)
    parser.add_argument("--weight-decay", type=float, default=defaults.weight_decay)
    parser.add_argument("--warmup-steps", type=int, default=defaults.warmup_steps)
    parser.add_argument("--max-steps", type=int, default=defaults.max_steps)
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-batches", type=int, default=defaults.eval_batches)
    parser.add_argument("--grad-clip", type=float, default=defaults.grad_clip)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--out-dir", default=defaults.out_dir)
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--log-every", type=int, default=defaults.log_every)
    parser.add_argument("--config", help="a JSON file with a saved configuration")
    return parser


def parse_config(argv=None):
    args = build_parser().parse_args(argv)
    if args.config:
        with open(args.config) as handle:
            base = TrainConfig.from_json(handle.read())
    else:
        base = TrainConfig()
    for name, value in vars(args).items():
        if name != "config" and hasattr(base, name):
            setattr(base, name, value)
    return base


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


class Logger:
    """Prints to stdout and, when a folder is given, appends to a log file there."""

    def __init__(self, folder=None, quiet=False):
        self.folder = folder
        self.quiet = quiet
        self.start = time.time()
        self.path = os.path.join(folder, "log.txt") if folder else None
        if folder:
            os.makedirs(folder, exist_ok=True)

    def log(self, message):
        stamp = f"[{time.time() - self.start:7.1f}s]"
        line = f"{stamp} {message}"
        if not self.quiet:
            print(line)
            sys.stdout.flush()
        if self.path:
            with open(self.path, "a") as handle:
                handle.write(line + "\n")


class AverageMeter:
    """A running mean of a scalar, e.g. the loss over an epoch."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    @property
    def mean(self):
        return self.total / max(1, self.count)

    def __str__(self):
        return f"{self.name} {self.mean:.4f}"


class Timer:
    def __init__(self):
        self.last = time.time()

    def lap(self):
        now = time.time()
        elapsed, self.last = now - self.last, now
        return elapsed


def cosine_lr(step, base_lr, warmup_steps, max_steps, min_ratio=0.1):
    """Linear warmup, then a cosine decay down to `min_ratio` of the base rate."""
    if step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    if step >= max_steps:
        return base_lr * min_ratio
    progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
    coeff = 0.5 * (1.0 + math.cos(math.pi * progress))
    return base_lr * (min_ratio + coeff * (1.0 - min_ratio))


def set_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr


def count_parameters(model, trainable_only=True):
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def grad_norm(model):
    norms = [p.grad.detach().norm(2) for p in model.parameters() if p.grad is not None]
    if not norms:
        return 0.0
    return torch.norm(torch.stack(norms), 2).item()


def perplexity(loss):
    return math.exp(min(loss, 20.0))


def accuracy(logits, targets):
    predictions = logits.argmax(dim=-1)
    return (predictions == targets).float().mean().item()


def save_checkpoint(folder, model, optimizer, step, config):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"ckpt_{step:06d}.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step, "config": asdict(config)}, path)
    return path


def load_checkpoint(path, model, optimizer=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    return state.get("step", 0)


class EarlyStopping:
    """Stop when the validation loss has not improved for `patience` evaluations."""

    def __init__(self, patience=5, min_delta=0.0):
        self.patience = patience
        self.min_delta = min_delta
        self.best = float("inf")
        self.bad = 0

    def step(self, value):
        if value < self.best - self.min_delta:
            self.best = value
            self.bad = 0
            return False
        self.bad += 1
        return self.bad >= self.patience


class ExponentialAverage:
    """A smoothed value (the loss curve a person reads), debiased like Adam's moments."""

    def __init__(self, beta=0.98):
        self.beta = beta
        self.value = 0.0
        self.steps = 0

    def update(self, x):
        self.steps += 1
        self.value = self.beta * self.value + (1 - self.beta) * float(x)
        return self.smoothed

    @property
    def smoothed(self):
        if self.steps == 0:
            return 0.0
        return self.value / (1 - self.beta ** self.steps)


def environment():
    """What a bug report about a run needs: versions and threads."""
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "cuda": torch.cuda.is_available(),
    }


def human_count(n):
    for unit in ("", "K", "M", "B"):
        if abs(n) < 1000:
            return f"{n:.0f}{unit}" if unit == "" else f"{n:.1f}{unit}"
        n /= 1000.0
    return f"{n:.1f}T"


def format_seconds(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{seconds:02d}s"
    if minutes:
        return f"{minutes}m{seconds:02d}s"
    return f"{seconds}s"
