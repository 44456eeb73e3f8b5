"""Tiny text classifier: tokenizer, synthetic data, a small transformer, training loop.

Benchmark input for AutoDD. A Linear deep inside the gated feed-forward of
each block has the wrong in_features, so the first forward pass fails with
"mat1 and mat2 shapes cannot be multiplied". Runs on the CPU in ~2 s.
The entry point is called at module level so exec-based tools reproduce it.
"""

import json
import logging
import math
import random
import time
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("classifier")

VOCAB = ["<pad>", "<unk>"] + [f"w{i}" for i in range(120)]


@dataclass
class TrainConfig:
    vocab_size: int = len(VOCAB)
    seq_len: int = 24
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    ffn_mult: int = 4
    n_classes: int = 5
    dropout: float = 0.1
    batch_size: int = 16
    epochs: int = 2
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_steps: int = 10
    grad_clip: float = 1.0
    n_samples: int = 256
    seed: int = 7
    log_every: int = 5


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = list(vocab)
        self.index = {tok: i for i, tok in enumerate(self.vocab)}

    def encode(self, text, length):
        ids = [self.index.get(tok, 1) for tok in text.split()][:length]
        return ids + [0] * (length - len(ids))

    def decode(self, ids):
        return " ".join(self.vocab[i] for i in ids if i != 0)


class SyntheticTexts(Dataset):
    """Sentences whose label is the most frequent word bucket."""

    def __init__(self, cfg, tokenizer):
        rng = random.Random(cfg.seed)
        self.items = []
        for _ in range(cfg.n_samples):
            words = [rng.choice(VOCAB[2:]) for _ in range(rng.randint(5, cfg.seq_len))]
            label = max(range(cfg.n_classes), key=lambda c: sum(int(w[1:]) % cfg.n_classes == c for w in words))
            self.items.append((tokenizer.encode(" ".join(words), cfg.seq_len), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        ids, label = self.items[i]
        return torch.tensor(ids), torch.tensor(label)


def collate(batch):
    ids = torch.stack([ids for ids, _ in batch])
    labels = torch.stack([label for _, label in batch])
    return ids, labels, ids.ne(0)


class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_heads = cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, d // self.n_heads).unbind(2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.n_heads)
        scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        attn = self.drop(scores.softmax(-1))
        return self.out((attn @ v).transpose(1, 2).reshape(b, t, d))


class GatedProjection(nn.Module):
    """Second half of the gated FFN: gate * value, projected back to d_model."""

    def __init__(self, cfg):
        super().__init__()
        hidden = cfg.d_model * cfg.ffn_mult
        self.value = nn.Linear(cfg.d_model, hidden)
        self.gate = nn.Linear(cfg.d_model, hidden)
        self.down = nn.Linear(cfg.d_model * 2, cfg.d_model)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.value(x))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm = nn.LayerNorm(cfg.d_model)
        self.proj = GatedProjection(cfg)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        return self.drop(self.proj(self.norm(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm = nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg)
        self.ffn = FeedForward(cfg)

    def forward(self, x, mask):
        x = x + self.attn(self.norm(x), mask)
        return x + self.ffn(x)


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, cfg.seq_len, cfg.d_model))
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.head = nn.Sequential(nn.LayerNorm(cfg.d_model), nn.Linear(cfg.d_model, cfg.n_classes))

    def forward(self, ids, mask):
        x = self.embed(ids) + self.pos[:, : ids.shape[1]]
        for block in self.blocks:
            x = block(x, mask)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return self.head(pooled)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def warmup_cosine(step, total, warmup):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * progress))


def accuracy(logits, labels):
    return (logits.argmax(-1) == labels).float().mean().item()


def save_checkpoint(model, cfg, path):
    """Unused in this run; kept for the full training script."""
    torch.save({"model": model.state_dict(), "config": asdict(cfg)}, path)


def evaluate(model, loader):
    model.eval()
    total, correct = 0, 0.0
    with torch.no_grad():
        for ids, labels, mask in loader:
            correct += accuracy(model(ids, mask), labels) * len(labels)
            total += len(labels)
    model.train()
    return correct / max(total, 1)


def train_one_epoch(model, loader, optimizer, scheduler, cfg, epoch):
    running = 0.0
    for step, (ids, labels, mask) in enumerate(loader):
        logits = model(ids, mask)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
        scheduler.step()
        running += loss.item()
        if step % cfg.log_every == 0:
            log.info("epoch %d step %d loss %.4f", epoch, step, running / (step + 1))
    return running / max(len(loader), 1)


def build_training(cfg):
    tokenizer = Tokenizer(VOCAB)
    data = SyntheticTexts(cfg, tokenizer)
    n_val = len(data) // 8
    train_set, val_set = torch.utils.data.random_split(data, [len(data) - n_val, n_val])
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, collate_fn=collate)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, collate_fn=collate)
    model = Classifier(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    total = cfg.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: warmup_cosine(s, total, cfg.warmup_steps))
    return model, optimizer, scheduler, train_loader, val_loader


def main():
    logging.basicConfig(level=logging.WARNING)
    cfg = TrainConfig()
    set_seed(cfg.seed)
    model, optimizer, scheduler, train_loader, val_loader = build_training(cfg)
    log.info("model has %d parameters", count_parameters(model))
    history = []
    for epoch in range(cfg.epochs):
        start = time.perf_counter()
        loss = train_one_epoch(model, train_loader, optimizer, scheduler, cfg, epoch)
        history.append({"epoch": epoch, "loss": loss, "val_acc": evaluate(model, val_loader),
                        "seconds": time.perf_counter() - start})
    print(json.dumps(history, indent=2))


main()
