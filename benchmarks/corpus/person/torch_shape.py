import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedProjection(nn.Module):
    def __init__(self, d_model, ffn_mult):
        super().__init__()
        hidden = d_model * ffn_mult
        self.value = nn.Linear(d_model, hidden)
        self.gate = nn.Linear(d_model, hidden)
        self.down = nn.Linear(d_model * 2, d_model)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.value(x))


GatedProjection(32, 4)(torch.randn(16, 24, 32))
