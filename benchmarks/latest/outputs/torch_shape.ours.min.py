import torch
import torch.nn as nn


class GatedProjection(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Linear(64, 32)

    def forward(self, x):
        return self.down(torch.zeros((16, 24, 128), dtype=torch.float32))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = GatedProjection()

    def forward(self, x):
        return self.proj(torch.zeros((1), dtype=torch.float32))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ffn = FeedForward()

    def forward(self, x, mask):
        return self.ffn(torch.zeros((1), dtype=torch.float32))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = (Block() for _ in range(1))

    def forward(self, ids, mask):
        for block in self.blocks:
            block(torch.zeros((1), dtype=torch.float32), torch.zeros((1), dtype=torch.bool))


Classifier()(torch.zeros((1), dtype=torch.int64), torch.zeros((1), dtype=torch.bool))
