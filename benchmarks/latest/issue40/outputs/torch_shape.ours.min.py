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


GatedProjection()(torch.zeros((16, 24, 32), dtype=torch.float32))
