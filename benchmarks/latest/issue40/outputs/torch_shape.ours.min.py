import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedProjection(nn.Module):
    def __init__(self):
        super().__init__()
        self.value = nn.Linear(32, 128)
        self.gate = nn.Linear(32, 128)
        self.down = nn.Linear(64, 32)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.value(x))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = GatedProjection()

    def forward(self, x):
        return self.proj(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ffn = FeedForward()

    def forward(self, x, mask):
        return self.ffn(x)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = (Block() for _ in range(1))

    def forward(self, ids, mask):
        for block in self.blocks:
            block(torch.zeros((16, 24, 32), dtype=torch.float32), mask)


Classifier()(torch.zeros((1, 1), dtype=torch.int64), torch.zeros((1, 1), dtype=torch.bool))
