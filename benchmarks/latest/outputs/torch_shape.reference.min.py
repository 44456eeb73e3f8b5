import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
VOCAB = 1

class TrainConfig:
    seq_len: int = 1
    d_model: int = 2
    n_layers: int = 1

class Tokenizer:

    def __init__(*args, **kwargs):
        pass

    def encode(*args, **kwargs):
        return []

class SyntheticTexts(Dataset):

    def __init__(self, cfg, tokenizer, *args, **kwargs):
        self.items = []
        label = 1
        self.items.append((tokenizer.encode(), label))

    def __len__(self, *args, **kwargs):
        return len(self.items)

    def __getitem__(self, i, *args, **kwargs):
        ids, label = self.items[i]
        return (torch.tensor(ids), label)

def collate(batch, *args, **kwargs):
    ids = torch.stack([ids for ids, _ in batch])
    labels = 1
    return (ids, labels, 0)

class GatedProjection(nn.Module):

    def __init__(self, cfg, *args, **kwargs):
        super().__init__()
        self.down = nn.Linear(1, cfg.d_model)

    def forward(self, x, *args, **kwargs):
        return self.down(x)

class FeedForward(nn.Module):

    def __init__(self, cfg, *args, **kwargs):
        super().__init__()
        self.proj = GatedProjection(cfg)

    def forward(self, x, *args, **kwargs):
        return self.proj(x)

class Block(nn.Module):

    def __init__(self, cfg, *args, **kwargs):
        super().__init__()
        self.ffn = FeedForward(cfg)

    def forward(self, x, *args, **kwargs):
        return self.ffn(x)

class Classifier(nn.Module):

    def __init__(self, cfg, *args, **kwargs):
        super().__init__()
        self.pos = torch.zeros(1, cfg.seq_len)
        self.blocks = (Block(cfg) for _ in range(cfg.n_layers))

    def forward(self, ids, mask, *args, **kwargs):
        x = self.pos[:, :ids.shape[1]]
        for block in self.blocks:
            block(x, mask)

def train_one_epoch(model, loader, *args, **kwargs):
    for step, (ids, labels, mask) in enumerate(loader):
        model(ids, mask)

def build_training(cfg, *args, **kwargs):
    tokenizer = Tokenizer()
    data = SyntheticTexts(cfg, tokenizer)
    n_val = len(data) // 2
    train_set, val_set = torch.utils.data.random_split(data, [len(data), n_val])
    train_loader = DataLoader(train_set, collate_fn=collate)
    val_loader = 1
    model = Classifier(cfg)
    optimizer = 1
    scheduler = 1
    return (model, optimizer, scheduler, train_loader, val_loader)

def main(*args, **kwargs):
    cfg = TrainConfig()
    model, optimizer, scheduler, train_loader, val_loader = build_training(cfg)
    0
    train_one_epoch(model, train_loader)
main()